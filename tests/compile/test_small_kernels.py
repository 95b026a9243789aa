"""Small-array kernels (torchlight/compile/small_kernels.py): a warm list's elementwise runs as one loop.

Each test runs with numba's loops and with their stand-in (the same source
run as Python on NumPy scalars, what CI has without numba). A kernel must give
what the step-by-step replay and eager mode give: arithmetic to the bit,
transcendental functions within a few units in the last place.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fusion import BINARY, PATTERNS, data  # (beside this file: the patterns fused there too)

import torchlight as tl
from torchlight.compile import fusion, small_kernels, straight
from torchlight.ops.common import _exp_limit

N = 16


@pytest.fixture(params=["numba", "stand-in"])
def loops(request, monkeypatch):
    """Kernels made at once (from the first replay) by numba, or by the Python stand-in."""
    if request.param == "numba":
        pytest.importorskip("numba", reason="numba is not installed: small-array kernels are not made without it")
        monkeypatch.setattr(small_kernels, "LOOP_MAKER", small_kernels.numba_loop)
    else:
        monkeypatch.setattr(small_kernels, "LOOP_MAKER", small_kernels.python_loop)
    monkeypatch.setattr(straight, "WARM", 0)
    return request.param


def leaves(arrays):
    return [tl.tensor(a, requires_grad=True) for a in arrays]


def value_and_grads(fn, xs):
    for x in xs:
        x.grad = None
    out = fn(*xs)
    out.backward()
    return [out.numpy().copy(), *(x.grad.numpy().copy() for x in xs)]


def kernel_lists(compiled):
    (programs,) = compiled.programs.values()
    p = programs[0]
    return [s for s in (p.infer, p.train, p.backward, p.backward_one) if type(s) is straight.Steps]


def made(compiled) -> int:
    """How many kernels the program's lists run."""
    return sum(len(s.kernels) for s in kernel_lists(compiled))


def through_kernels(fn, arrays):
    """fn's value and gradients in eager mode, and compiled with kernels=True (the first replay runs
    them, WARM being 0), with how many kernels that replay ran."""
    xs = leaves(arrays)
    eager = value_and_grads(fn, xs)
    compiled = tl.compile(fn, kernels=True)
    value_and_grads(compiled, xs)  # (recorded, then replayed once)
    got = value_and_grads(compiled, xs)
    return eager, got, compiled


# fusion's patterns (arithmetic to the bit there too), and a few more that only these kernels take
ARITHMETIC = {**{name: PATTERNS[name] for name in ("add-mul", "sub-neg", "div", "constants", "square", "reciprocal",
                                                   "mean")},
              "abs": lambda x, y: ((x - y).abs() * x + y).sum()}
TRANSCENDENTAL = {**{name: PATTERNS[name] for name in ("sqrt-abs", "tanh-backward", "sigmoid-backward",
                                                       "log-backward")},
                  "pow": lambda x, y: ((x * y) ** 2.5 + x).sum(),
                  "exp": lambda x, y: (x * (-y).exp()).sum(),
                  "sin-cos": lambda x, y: ((x * y).sin() * x.cos()).sum()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(ARITHMETIC))
def test_arithmetic_through_a_kernel_is_eager_to_the_bit(name, dtype, loops):
    eager, got, compiled = through_kernels(ARITHMETIC[name], data(N, 2, dtype))
    assert made(compiled) >= 1
    for e, g in zip(eager, got):
        assert g.dtype == dtype  # (a number is a scalar of the kernel's dtype, as in NumPy)
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL))
def test_transcendental_functions_through_a_kernel_are_eager_within_rounding(name, dtype, loops):
    eager, got, compiled = through_kernels(TRANSCENDENTAL[name], data(N, 2, dtype))
    assert made(compiled) >= 1
    rtol = 4 * np.finfo(dtype).eps * 10  # (a few ulps per function, a handful of functions deep)
    for e, g in zip(eager, got):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)


def test_special_values_go_through_a_kernel_as_through_numpy(loops):
    """inf, nan, -0.0 and values where exp overflows: the same nan positions, infinities and signs
    (division by zero gives inf, not an exception: NumPy's error model)."""
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 800.0, -800.0, 1e-310, 3.0, -2.0, 0.5, 1.0, -1.0, 2.0, 4.0, 7.0])
    y = np.array([1.0, -1.0, 2.0, 0.0, 1.0, 1.0, -1.0, 0.0, np.nan, 0.0, -0.0, 3.0, 1.0, 0.5, np.inf, 2.0])

    def fn(a, b):
        return a.sigmoid() * b + a.tanh() / b + (a * b).exp() - a / (b * b)

    xs = [tl.tensor(x), tl.tensor(y)]
    compiled = tl.compile(fn, kernels=True)
    with np.errstate(all="ignore"):
        want = fn(*xs).numpy()
        for _ in range(2):
            got = compiled(*xs).numpy()
    assert made(compiled) == 1
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert np.signbit(got).tolist() == np.signbit(want).tolist()


CYCLE = (lambda h, w, b: h * w, lambda h, w, b: h + b, lambda h, w, b: h.tanh(), lambda h, w, b: h.exp(),
         lambda h, w, b: h.sigmoid(), lambda h, w, b: h * 0.9)


def test_a_w1_like_chain_is_one_kernel_each_way_and_keeps_what_backward_reads(loops):
    """W1's cycle of ops: the forward is one kernel whose outputs are the values its backward reads
    and the sum's operand; the backward one kernel writing the three gradients alone."""
    def fn(x, w, b):
        h = x
        for i in range(30):
            h = CYCLE[i % 6](h, w, b)
        return h.sum()

    eager, got, compiled = through_kernels(fn, [a * 0.5 - 0.25 for a in data(N, 3)])
    (programs,) = compiled.programs.values()
    p = programs[0]
    (forward,) = p.train.kernels
    assert (forward.start, forward.stop) == (0, 30)
    assert set(forward.outputs) == set(p.saved).difference(p.inputs) | {p.train[30].args[0]}
    assert not any(forward.own)  # (the saved values: rows of one array, let go of after the backward)
    (backward,) = p.backward_one.kernels
    assert set(backward.outputs) == {g for g in p.grads if g is not None} and all(backward.own)
    for e, g in zip(eager, got):
        np.testing.assert_allclose(g, e, rtol=1e-13)


def test_kernels_are_made_at_the_replay_by_which_replaying_cost_what_compiling_will(monkeypatch):
    """The default: a list makes its kernels at a replay count set when it was built (its runs'
    estimated compile time over its estimated replay time: the same call in every run of a program);
    kernels=False: never; kernels=True: at the first replay that generates its code."""
    monkeypatch.setattr(small_kernels, "LOOP_MAKER", small_kernels.python_loop)
    xs = leaves(data(N, 2))

    def fn(x, y):
        return ((x * y + x) * y).sum()

    auto, never, now = tl.compile(fn), tl.compile(fn, kernels=False), tl.compile(fn, kernels=True)
    for f in (auto, never, now):
        value_and_grads(f, xs)  # (recorded, then replayed once)
    train = kernel_lists(auto)[1]
    (run,) = train.runs
    assert run.ops == 3 and len(train) == 4  # (three ops, then the sum)
    assert train.kernel_replays == math.ceil(3 * small_kernels.COMPILE_SECONDS / (4 * small_kernels.STEP_SECONDS))
    assert all(s.runs is None for s in kernel_lists(never))
    train.kernel_replays = straight.WARM + 5  # (rather than the estimated 7,500)
    calls = 1
    while train.runs is not None:
        value_and_grads(auto, xs)
        calls += 1
    assert calls == straight.WARM + 5 and train.kernels == [run]
    for _ in range(straight.WARM - 1):  # (replays 2 to WARM: a step at a time)
        value_and_grads(now, xs)
    now_train = kernel_lists(now)[1]
    assert now_train.runs is not None and not now_train.kernels  # (its code not generated yet)
    value_and_grads(now, xs)
    assert now_train.runs is None and now_train.kernels


def test_a_run_whose_loop_cannot_be_made_keeps_its_steps(loops, monkeypatch):
    def refuse(run):
        raise RuntimeError("no loop")

    monkeypatch.setattr(small_kernels, "LOOP_MAKER", refuse)
    eager, got, compiled = through_kernels(ARITHMETIC["add-mul"], data(N, 2))
    train = kernel_lists(compiled)[1]
    assert made(compiled) == 0 and train.runs is None and type(train._run).__name__ == "function"
    for e, g in zip(eager, got):
        np.testing.assert_array_equal(g, e)


def test_strided_read_only_and_two_dimensional_inputs(loops):
    """A transposed 2-D input, a broadcast (read-only, stride 0) one from outside fn: rows of the
    kernel's output keep the program's shapes."""
    rng = np.random.default_rng(1)
    a = tl.tensor(rng.normal(size=(4, 5)), requires_grad=True)
    b = tl.tensor(rng.normal(size=(5, 4)), requires_grad=True)
    row = tl.tensor(rng.normal(size=5))

    def fn(x, y):
        return ((x * y.mT + row.expand(4, 5)) * x - y.mT / 3.0).sum()

    eager = value_and_grads(fn, [a, b])
    compiled = tl.compile(fn, kernels=True)
    for _ in range(2):
        got = value_and_grads(compiled, [a, b])
    assert made(compiled) >= 1
    for e, g in zip(eager, got):
        assert g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def test_what_does_not_make_a_run(monkeypatch):
    """Big arrays (fusion's, or blocked), integer and 0-d values, one op alone, fusion off, a
    transcendental function on arrays where NumPy's vectorised one is faster than numba's loop."""

    def runs(fn, *arrays):
        compiled = tl.compile(fn)
        xs = leaves(arrays) if arrays[0].dtype.kind == "f" else [tl.tensor(a) for a in arrays]
        out = compiled(*xs)
        if out.requires_grad:
            out.backward()
        return sum(len(s.runs or ()) for s in kernel_lists(compiled))

    def two_ops(x, y):
        return ((x * y + x) * y).sum()

    assert runs(two_ops, *data(N, 2)) == 4  # (infer, train, backward and backward_one: the control)
    assert runs(two_ops, *data(fusion.MIN_ELEMENTS, 2)) == 0
    assert runs(lambda x, y: (x * y + x).sum(), np.arange(8), np.arange(8)) == 0
    assert runs(two_ops, *data(1, 2)) == 4 and runs(lambda x, y: (x * y + x) * y, *(np.array(0.5),) * 2) == 0
    assert runs(lambda x, y: (x * y).tanh().sum(), *data(4096, 2)) == 2  # (the backwards' arithmetic)
    monkeypatch.setattr(fusion, "ENABLED", False)
    assert runs(two_ops, *data(N, 2)) == 0


def test_results_and_gradients_are_arrays_of_their_own(loops):
    """A value handed out of the program (a result, a gradient) is not a row of the kernel's shared
    array, so that holding it holds no other value's memory; the saved values are rows."""
    x = tl.tensor(data(N, 1)[0], requires_grad=True)
    compiled = tl.compile(lambda x: (x * 2.0 + x) * x, kernels=True)
    for _ in range(2):
        x.grad = None
        out = compiled(x)
        out.backward(tl.ones_like(out))
    assert made(compiled) >= 2
    assert out.data.base is None and x.grad.data.base is None
    np.testing.assert_array_equal(out.numpy(), (x.numpy() * 2.0 + x.numpy()) * x.numpy())


def test_compile_refuses_a_kernels_value_that_is_not_a_bool():
    with pytest.raises(TypeError, match="kernels must be True, False or None"):
        tl.compile(lambda x: x.sum(), kernels="now")
    with pytest.raises(TypeError, match="kernels must be True, False or None"):
        tl.compile(lambda x: x.sum(), kernels=1)


def test_the_source_of_a_run(monkeypatch):
    """One loop over the elements: inputs loaded, a line per op (sigmoid two, as `_sigmoid`), a row
    of the output per value read after the run, each number a parameter of the kernel's dtype."""
    x = tl.tensor(data(N, 1, np.float32)[0], requires_grad=True)
    compiled = tl.compile(lambda x: ((x * 2.0).sigmoid() * x).sum())
    compiled(x).backward()
    (run,) = kernel_lists(compiled)[0].runs  # (infer: the sum's operand its one output)
    assert run.source.splitlines() == [
        "def kernel(x0, x1, c0, c1, out):",  # (x1: the 2.0, a 0-d tensor of x's dtype, passed as its scalar)
        "    for i in range(out.shape[1]):",
        "        a0 = x0[i]",
        "        a1 = x1",
        "        t0 = (a0 * a1)",
        "        t1 = exp((t0 if not (t0 > c0) else c0))",
        "        t1 = (t1 / (t1 + c1))",
        "        t2 = (t1 * a0)",
        "        out[0, i] = t2",
    ]
    assert run.scalars == (False, True)
    assert [type(c) for c in run.constants] == [np.float32] * 2
    assert run.constants[0] == np.float32(_exp_limit(np, np.dtype(np.float32))) and run.constants[1] == 1.0


OPS = {**BINARY, "**2": lambda a, b: a ** 2, "tanh": lambda a, b: a.tanh(), "sigmoid": lambda a, b: a.sigmoid(),
       "exp": lambda a, b: (a * 0.1).exp()}
PROGRAMS = st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 10), st.integers(0, 10)),
                    min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(PROGRAMS)
def test_random_elementwise_programs_through_kernels_equal_eager(ops):
    """Random programs of several results read in several places: arithmetic alone to the bit."""
    arrays = data(N, 2, seed=3)

    def fn(x, y):
        values = [x, y]
        for op, i, j in ops:
            values.append(OPS[op](values[i % len(values)], values[j % len(values)]))
        return values[-1].sum() + (values[-2] * 0.5).sum() + (x + y * 0.25).sum()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(small_kernels, "LOOP_MAKER", small_kernels.python_loop)
        mp.setattr(straight, "WARM", 0)
        eager, got, _ = through_kernels(fn, arrays)
    exact = not any(op in ("tanh", "sigmoid", "exp") for op, _, _ in ops)
    for e, g in zip(eager, got):
        if exact:
            np.testing.assert_array_equal(g, e)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
