"""Tests of the suite itself: it catches planted bugs, covers every op, and its CLI works."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import torchlight as tl
from conformance import __main__ as cli
from conformance import database
from conformance import domains as D
from conformance.checks import run_case
from conformance.matrix import render
from conformance.opinfo import Case, OpInfo
from conformance.ops import nn as ops_nn
from conformance.runner import run
from conformance.target import Unusable, resolve
from torchlight.autograd import Function
from torchlight.autograd import functions as F


# ------------------------------------------------------------ planted bugs
class ExpOffByHalf(Function):
    """exp whose gradient is 1.5 times too large."""

    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return a.backend.xp.exp(a.data)

    @staticmethod
    def backward(ctx, g):
        return g * ctx.output * 1.5


class SquareFrozenBackward(Function):
    """x**2 whose backward is computed on raw arrays: right once, wrong twice."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.data * a.data

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return tl.tensor(g.data * 2.0 * a.data)


class NegMutatesInput(Function):
    """-x that also doubles its input in place."""

    @staticmethod
    def forward(ctx, a):
        out = -a.data
        a.data[...] = a.data * 2.0
        return out

    @staticmethod
    def backward(ctx, g):
        return -g


def planted(name, fn, ref):
    return OpInfo(name, fn.apply, ref, (Case("vector", ((5,),)), Case("matrix", ((2, 3),))), domain=D.bounded)


@pytest.mark.parametrize("backend_name", ["numpy", "array_api_strict"])
def test_wrong_backward_is_caught_naming_op_and_case(backend_name):
    op = planted("planted_exp", ExpOffByHalf, np.exp)
    for case in op.cases:
        result = run_case(op, case, resolve(backend_name), "float64")
        assert result.status == "failed"
        assert f"planted_exp [{case.name}]" in result.message
        assert "backward" in result.message and "Error" not in result.message  # a wrong value, not a crash


def test_wrong_backward_is_caught_in_float32_too():
    op = planted("planted_exp", ExpOffByHalf, np.exp)
    result = run_case(op, op.cases[0], resolve("numpy"), "float32")
    assert result.status == "failed" and "backward" in result.message


def test_backward_without_a_graph_fails_double_backward_only():
    op = planted("planted_square", SquareFrozenBackward, np.square)
    result = run_case(op, op.cases[0], resolve("numpy"), "float64")
    assert result.status == "failed"
    assert result.checks == ["forward", "backward", "double_backward"]
    assert "planted_square [vector]" in result.message and "double_backward" in result.message


def test_mutated_input_is_caught():
    op = planted("planted_neg", NegMutatesInput, np.negative)
    result = run_case(op, op.cases[0], resolve("numpy"), "float64")
    assert result.status == "failed" and "modified" in result.message


def test_wrong_forward_is_caught():
    op = OpInfo("planted_tanh", lambda x: x.tanh(), np.sin, (Case("vector", ((5,),)),))
    result = run_case(op, op.cases[0], resolve("numpy"), "float64")
    assert result.status == "failed" and "forward" in result.message and "planted_tanh [vector]" in result.message


def test_wrong_second_derivative_in_a_core_back_function_is_caught(monkeypatch):
    """TanhBack with the sign of d/dy flipped: first derivatives stay right."""

    def backward(ctx, h):
        y, g = ctx.saved_tensors
        return h * g * y * 2.0, F.TanhBack.apply(y, h)

    monkeypatch.setattr(F.TanhBack, "backward", staticmethod(backward))
    op = database.get("tanh")
    result = run_case(op, op.cases[1], resolve("numpy"), "float64")
    assert result.status == "failed"
    assert result.checks[-1] == "double_backward" and "tanh [1d]" in result.message


def test_missing_error_is_caught():
    op = OpInfo("planted_add", lambda a, b: a + b, np.add,
                (Case("no_error", ((3,), (3,)), raises=ValueError, match="shapes"),))
    result = run_case(op, op.cases[0], resolve("numpy"), "float64")
    assert result.status == "failed" and "nothing was raised" in result.message


def test_cli_exits_1_and_names_the_planted_op(monkeypatch, capsys):
    monkeypatch.setattr(ops_nn, "OPS", [planted("planted_exp", ExpOffByHalf, np.exp)])
    assert cli.main(["--backend", "numpy", "--ops", "planted_exp", "--dtype", "float64"]) == 1
    out = capsys.readouterr().out
    assert "planted_exp [vector] on numpy/cpu float64: backward" in out
    assert out.splitlines()[-1] == "0 passed, 2 failed, 0 skipped"


# ----------------------------------------------------------------- coverage
NOT_OPS = {
    "data", "backend", "requires_grad", "history", "shape", "ndim", "dtype", "device", "size", "is_leaf",
    "grad", "requires_grad_", "parents", "retains_grad", "chain_rule", "accumulate_derivative",
    "graph_node", "add_gradients", "add_gradient_into", "seed_derivative", "backward", "retain_grad", "zero_grad_",
    "register_hook", "register_post_accumulate_grad_hook", "numel", "dim", "grad_fn", "cpu", "cuda",
    "item", "tolist", "numpy",
}


def tensor_ops():
    """The public methods and operators of Tensor that compute something."""
    names = set()
    for name, value in vars(tl.Tensor).items():
        if name in NOT_OPS or (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))):
            continue
        if name.startswith("__") and name not in OPERATORS:
            continue
        if callable(value) or isinstance(value, property):
            names.add(name)
    return names


OPERATORS = {f"__{n}__" for n in ("add radd sub rsub mul rmul truediv rtruediv pow rpow matmul rmatmul neg pos "
                                  "abs lt le gt ge eq ne and rand or ror xor rxor invert getitem floordiv rfloordiv "
                                  "mod rmod").split()}


def test_every_tensor_method_has_an_entry():
    covered = {op.method for op in database.all_ops()}
    missing = sorted(tensor_ops() - covered)
    assert not missing, f"Tensor ops without a conformance entry (add one to conformance/ops/<category>.py): {missing}"


def awaiting_nn(missing: list[str]) -> None:
    """xfail (visibly, naming them) while the nn area has added no entries yet."""
    if missing and not ops_nn.OPS:
        pytest.xfail(f"the nn area has not added its entries to conformance/ops/nn.py yet: {missing}")


def test_every_nn_functional_has_an_entry():
    functional = pytest.importorskip("torchlight.nn.functional")
    covered = {f for op in database.all_ops() for f in op.functions()}
    missing = sorted(n for n in getattr(functional, "__all__", ()) if f"nn.functional.{n}" not in covered)
    awaiting_nn(missing)
    assert not missing, f"torchlight.nn.functional without a conformance entry (conformance/ops/nn.py): {missing}"


def graph_functions(out):
    """The Functions of the graph that made `out` (its nodes are Histories; leaves have none)."""
    names, stack, seen = set(), [out.history], set()
    while stack:
        h = stack.pop()
        if h is None or id(h) in seen or h.last_fn is None:
            continue
        seen.add(id(h))
        names.add(h.last_fn.__name__)
        stack.extend(x for x in h.edges if isinstance(x, tl.autograd.History))
    return names


@pytest.mark.parametrize("op", [op for op in database.all_ops() if op.area == "core"], ids=lambda op: op.name)
def test_entry_exercises_its_function(op):
    """The Functions an entry names appear in the graph of one of its cases."""
    from conformance.checks import _leaves, host_inputs

    target, seen = resolve("array_api_strict"), set()
    for case in op.cases:
        if case.raises is None and op.differentiable:
            with np.errstate(all="ignore"):
                seen |= graph_functions(op.call(*_leaves(op, case, target, "float64",
                                                         host_inputs(op, case, "float64")), **case.kwargs))
    assert set(op.functions()) <= seen, f"{op.name} names {op.functions()} but its graphs hold {sorted(seen)}"


def test_database_is_well_formed():
    ops = database.all_ops()
    assert len({op.name for op in ops}) == len(ops)
    for op in ops:
        assert op.cases, op.name
        assert len({c.name for c in op.cases}) == len(op.cases), op.name
        assert op.double_backward or op.double_backward_reason, f"{op.name}: say why there is no double backward"
        for case in op.cases:
            assert case.raises is None or case.match, f"{op.name} [{case.name}]: say what the error names"


# --------------------------------------------------------------- the runner
def test_list_prints_every_op_name(capsys):
    assert cli.main(["--list"]) == 0
    assert capsys.readouterr().out.split() == [op.name for op in database.all_ops()]


def test_run_prints_rows_and_the_summary_line(tmp_path, capsys):
    report_path = tmp_path / "r.json"
    assert cli.main(["--backend", "numpy", "--device", "cpu", "--ops", "exp,sqrt", "--report", str(report_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("exp ") and "14/14" in line for line in lines)  # 5 cases, 2 complex twins, 2 dtypes
    assert lines[-1] == "28 passed, 0 failed, 0 skipped"
    report = json.loads(report_path.read_text())
    assert report["summary"] == {"passed": 28, "failed": 0, "skipped": 0}
    assert {r["op"] for r in report["results"]} == {"exp", "sqrt"}


def test_unusable_device_is_skipped_with_its_reason_never_passed(capsys):
    assert cli.main(["--backend", "numpy", "--device", "cuda:0", "--ops", "exp"]) == 0
    out = capsys.readouterr().out
    assert "NumPy arrays live on the cpu" in out
    assert out.splitlines()[-1] == "0 passed, 0 failed, 14 skipped"


def test_a_pattern_matching_nothing_is_an_error(capsys):
    assert cli.main(["--ops", "no_such_op"]) == 2
    assert "no op matches" in capsys.readouterr().err


def test_unknown_backend_is_unusable_with_a_reason():
    with pytest.raises(Unusable, match="unknown backend"):
        resolve("no_such_library")


def test_cupy_is_usable_or_says_why():
    try:
        target = resolve("cupy")
    except Unusable as exc:
        assert "cupy" in str(exc).lower()
    else:
        assert target.name == "cupy"


def test_matrix_has_ops_as_rows_and_targets_as_columns(tmp_path):
    reports = [run("numpy", "cpu", ["float64"], "exp,log", out=io.StringIO()),
               run("numpy", "cuda:0", ["float64"], "exp,log", out=io.StringIO())]
    text = render(reports)
    assert "| op | numpy/cpu | numpy/cuda:0 | Function |" in text
    assert "| `exp` | 7/7 | skipped | Exp |" in text  # (each with two complex twins)
    assert "| `log` | 8/8 | skipped | Log |" in text
    assert "0 passed, 0 failed, 15 skipped" in text
    cli.main(["--matrix", *_dump(tmp_path, reports), "--output", str(tmp_path / "m.md")])
    assert (tmp_path / "m.md").read_text().count("| `exp` |") == 1


def test_a_cast_to_float64_skips_on_a_device_without_it():
    report = run("array_api_strict", "no_float64", ["float32"], "double", out=io.StringIO())
    assert report["summary"] == {"passed": 0, "failed": 0, "skipped": 1}
    assert "has no float64" in report["results"][0]["message"]
    half = run("numpy", "cpu", ["float64"], "half", out=io.StringIO())  # float16, which the standard does not name
    assert half["summary"]["passed"] == 1


def test_matrix_is_stamped_with_the_commit_its_reports_were_run_at():
    report = run("numpy", "cpu", ["float64"], "exp", out=io.StringIO())
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=Path(__file__).parent, check=False).stdout.strip()
    if not head:
        pytest.skip("not a git checkout: the report's commit is 'unknown'")
    assert report["commit"].split("+")[0] == head
    assert f"Made at commit `{report['commit']}`." in render([report])
    older = dict(report, commit="0123abc", target="numpy/other")
    assert f"`{report['commit']}` (numpy/cpu), `0123abc` (numpy/other)" in render([report, older])


def _dump(tmp_path, reports):
    paths = []
    for i, r in enumerate(reports):
        path = tmp_path / f"r{i}.json"
        path.write_text(json.dumps(r))
        paths.append(str(path))
    return paths


# ------------------------------------------------------------ planted complex bugs
class SquareWithoutConjugate(Function):
    """z**2 whose gradient is g * 2z, not PyTorch's g * conj(2z): right for real inputs only."""

    complex_grad = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.data * a.data

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * (a * 2.0)


class ConjWithoutConjugate(Function):
    """conj(z) whose backward passes g on as it is (the right one conjugates it)."""

    complex_grad = True

    @staticmethod
    def forward(ctx, a):
        return a.backend.xp.conj(a.data)

    @staticmethod
    def backward(ctx, g):
        return g


class SquareWrongTwice(Function):
    """z**2 whose first derivative is right and whose second is not (the conjugate's backward is wrong)."""

    complex_grad = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.data * a.data

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * ConjWithoutConjugate.apply(a * 2.0)


def planted_complex(name, fn):
    return OpInfo(name, fn.apply, np.square, (Case("vector", ((5,),)),), domain=D.bounded, complex=True)


def test_a_complex_gradient_without_the_conjugate_is_caught_in_the_complex_twin_only():
    op = planted_complex("planted_square", SquareWithoutConjugate)
    real, twin = op.cases
    assert twin.name == "vector_complex" and twin.complex
    assert run_case(op, real, resolve("numpy"), "float64").status == "passed"
    for dtype in ("float64", "float32"):
        result = run_case(op, twin, resolve("array_api_strict"), dtype)
        assert result.status == "failed" and "backward: complex gradient" in result.message, result.message


def test_a_wrong_complex_second_derivative_is_caught():
    op = planted_complex("planted_square", SquareWrongTwice)
    result = run_case(op, op.cases[1], resolve("numpy"), "float64")
    assert result.status == "failed" and result.checks[-1] == "double_backward", result.message
    assert "complex second derivative" in result.message
