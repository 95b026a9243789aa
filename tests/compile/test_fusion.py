"""Fused kernels in compiled programs (torchlight/compile/fusion.py).

A fused replay must give what the unfused replay gives: arithmetic to the
bit (each kernel does the eager op's operations in its order), everything
within float rounding. Each test compares a program recorded with fusion
against the same function recorded without it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torchlight as tl
from torchlight.compile import fusion
from torchlight.compile.blocking import BLOCK_BYTES, MIN_BLOCKS, Blocked
from torchlight.compile.fusion import cuda_expression, cuda_source, fused_steps, numba_source, numexpr_source
from torchlight.ops.arithmetic import Neg
from torchlight.ops.complex_numbers import Conj
from torchlight.ops.reductions import Sum

N = fusion.MIN_ELEMENTS + 123  # fused, not blocked
N_BLOCKED = MIN_BLOCKS * BLOCK_BYTES // 8 + 1001  # float64: fused and blocked


def needs(name: str) -> None:
    pytest.importorskip(name, reason=f"{name} is not installed: NumPy programs are replayed unfused without it")


@pytest.fixture
def numba() -> None:
    needs("numba")


def run(fn, arrays: list[np.ndarray], fused: bool, monkeypatch: pytest.MonkeyPatch, kernels=("numba",)):
    """fn's value and gradients through a program recorded with (or without) fusion, replayed once."""
    monkeypatch.setattr(fusion, "ENABLED", fused)
    monkeypatch.setattr(fusion, "NUMPY_KERNELS", kernels)
    xs = [tl.tensor(a, requires_grad=True) for a in arrays]
    compiled = tl.compile(fn)
    compiled(*xs).backward()  # the recording
    for x in xs:
        x.grad = None
    out = compiled(*xs)
    out.backward()
    (programs,) = compiled.programs.values()
    return out.numpy(), [x.grad.numpy() for x in xs], programs[0]


def data(n: int, count: int, dtype=np.float64, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, n).astype(dtype) for _ in range(count)]


#: one program per fused pattern (arithmetic, and the backward Functions it records)
PATTERNS = {
    "add-mul": lambda x, y: ((x + y) * x).sum(),
    "sub-neg": lambda x, y: ((x - y) * -x).sum(),
    "div": lambda x, y: (x / y + y / x).sum(),
    "constants": lambda x, y: ((x * 0.3 + 2) * y - 1.5).sum(),
    "square": lambda x, y: ((x * y) ** 2 + x).sum(),  # (NumPy's x ** 2 is x * x; another power is a barrier)
    "reciprocal": lambda x, y: ((x * y).reciprocal() * y).sum(),
    "sqrt-abs": lambda x, y: ((x - y).abs().sqrt() * x + y).sum(),
    "tanh-backward": lambda x, y: ((x * y).tanh() * y).sum(),
    "sigmoid-backward": lambda x, y: ((x * y).sigmoid() * x).sum(),
    "log-backward": lambda x, y: ((x * y).log() * x).sum(),
    "mean": lambda x, y: (x * y + x).mean(),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_each_fused_pattern_equals_the_unfused_replay(name: str, numba, monkeypatch) -> None:
    arrays = data(N, 2)
    value, grads, p = run(PATTERNS[name], arrays, True, monkeypatch)
    assert sum(fused_steps(s) for s in (p.infer, p.train, p.backward, p.backward_one)) > 0
    plain_value, plain_grads, q = run(PATTERNS[name], arrays, False, monkeypatch)
    assert fused_steps(q.backward) == 0
    np.testing.assert_allclose(value, plain_value, rtol=1e-13)
    for g, h in zip(grads, plain_grads):
        np.testing.assert_array_equal(g, h)  # arithmetic in the eager op's order: the same bits


def test_w3_fused_and_blocked_equals_eager(numba, monkeypatch) -> None:
    def w3(x, w):
        return ((x * w).tanh() * x.sigmoid() + (-x * x).exp()).sum()

    arrays = data(N_BLOCKED, 2)
    value, grads, p = run(w3, arrays, True, monkeypatch)
    assert type(p.backward_one) is Blocked and fused_steps(p.backward_one) >= 2
    xs = [tl.tensor(a, requires_grad=True) for a in arrays]
    eager = w3(*xs)
    eager.backward()
    assert value == pytest.approx(eager.item(), rel=1e-12)
    for g, x in zip(grads, xs):
        np.testing.assert_array_equal(g, x.grad.numpy())


def test_a_negation_read_twice_is_computed_in_each_kernel_that_reads_it(numba, monkeypatch) -> None:
    """`n = -x` read by two kernels is inlined into both (an exact sign flip), so no step and no
    array is left for it; values equal the unfused replay's to the bit."""
    def fn(x, y):
        n = -x
        return (((n * x).exp() + y) * (n * y + 2.0)).sum()

    arrays = data(N, 2)
    value, grads, p = run(fn, arrays, True, monkeypatch)
    assert not any(step.forward is Neg.forward for step in p.infer) and fused_steps(p.infer) >= 2
    assert sum(s.forward.fused.count("-") for s in p.infer if hasattr(s.forward, "fused")) >= 2
    plain_value, plain_grads, _ = run(fn, arrays, False, monkeypatch)
    np.testing.assert_array_equal(value, plain_value)
    for g, h in zip(grads, plain_grads):
        np.testing.assert_array_equal(g, h)


def _kernels(p) -> list[str]:
    return [s.forward.fused for s in p.infer if hasattr(s.forward, "fused")]


def test_a_little_arithmetic_read_by_two_kernels_is_computed_in_each(numba, monkeypatch) -> None:
    """`m = x * y + 1` read by two kernels (the exps between are barriers) is computed in both: two
    kernels, not three, and no array for `m`; values equal the unfused replay's to the bit."""
    def fn(x, y):
        m = x * y + 1.0
        return ((m * x + y).exp() + (m * y - x).exp()).sum()

    arrays = data(N, 2)
    value, grads, p = run(fn, arrays, True, monkeypatch)
    sources = _kernels(p)
    assert len(sources) == 2 and all(src.count("*") == 2 for src in sources)
    plain_value, plain_grads, _ = run(fn, arrays, False, monkeypatch)
    np.testing.assert_array_equal(value, plain_value)
    for g, h in zip(grads, plain_grads):
        np.testing.assert_array_equal(g, h)


@pytest.mark.parametrize("case", ["four readers", "too long"])
def test_a_value_dearer_to_compute_again_than_to_read_is_written_once(case, numba, monkeypatch) -> None:
    """Four kernels reading `x * y + 1` would read x and y eight times where the value costs one
    write and six reads; a long expression costs more operations than a pass."""
    def fn(x, y):
        if case == "too long":
            m = (((x * y + 1.0) * x - y) * y + x) * x - 1.0  # 7 operations
        else:
            m = x * y + 1.0
        readers = [(m * x + y).exp(), (m * y - x).exp()]
        if case == "four readers":
            readers += [(m * 2.0 + x).exp(), (m * 3.0 - y).exp()]
        total = readers[0]
        for r in readers[1:]:
            total = total + r
        return total.sum()

    arrays = data(N, 2)
    value, grads, p = run(fn, arrays, True, monkeypatch)
    readers = 4 if case == "four readers" else 2
    sources = _kernels(p)
    assert sum(src.count("exp") for src in sources) == 0
    assert len([src for src in sources if src.count("*") == 1]) >= readers  # each reads m, not its terms
    plain_value, plain_grads, _ = run(fn, arrays, False, monkeypatch)
    np.testing.assert_allclose(value, plain_value, rtol=1e-13)
    for g, h in zip(grads, plain_grads):
        np.testing.assert_array_equal(g, h)


def _blocked_lists(p) -> list[Blocked]:
    lists = (p.infer, p.train, p.train_and_backward, p.backward, p.backward_one)
    return [b for b in lists if type(b) is Blocked]


def test_a_float32_kernel_read_only_by_the_sum_sums_its_block_itself(numba, monkeypatch) -> None:
    """W3's loss `t * s + e`, read by nothing but the sum, is never written: its kernel adds each
    block's float32 values in float64. The gradients keep their bits; the loss stays within
    float32 rounding of a float64 reference."""
    n = MIN_BLOCKS * BLOCK_BYTES // 4 + 1001

    def w3(x, w):
        return ((x * w).tanh() * x.sigmoid() + (-x * x).exp()).sum()

    arrays = [a - 1.0 for a in data(n, 2, np.float32)]
    value, grads, p = run(w3, arrays, True, monkeypatch)
    summing = [b for b in _blocked_lists(p) if b.kernel_sums]
    assert summing and all(any("total +=" in getattr(s.forward, "fused", "") for s in b.loop) for b in summing)
    plain_value, plain_grads, q = run(w3, arrays, False, monkeypatch)
    assert not any(b.kernel_sums for b in _blocked_lists(q))
    for g, h in zip(grads, plain_grads):
        np.testing.assert_array_equal(g, h)
    x, w = (a.astype(np.float64) for a in arrays)
    reference = (np.tanh(x * w) / (1.0 + np.exp(-x)) + np.exp(-x * x)).sum()
    assert value == pytest.approx(reference, rel=1e-6) and plain_value == pytest.approx(reference, rel=1e-6)


def test_a_float64_kernel_keeps_numpys_pairwise_sum(numba, monkeypatch) -> None:
    """In float64 a sum added in order would be less accurate than NumPy's pairwise one."""
    _, _, p = run(lambda x, y: ((x + y) * x).sum(), data(N_BLOCKED, 2), True, monkeypatch)
    lists = _blocked_lists(p)
    assert lists and not any(b.kernel_sums for b in lists)
    assert fused_steps(p.infer) + fused_steps(p.train) > 0


def _reductions(steps) -> list:
    """The steps of a list (not blocked) that sum a kernel's value in the kernel (`sum_in_kernels`)."""
    return [s for s in steps if getattr(s.forward, "__name__", "") == "reducing"]


def w3(x, w):
    return ((x * w).tanh() * x.sigmoid() + (-x * x).exp()).sum()


def test_a_float32_kernel_read_only_by_a_full_sum_is_summed_in_the_kernel_when_not_blocked(numba, monkeypatch) -> None:
    """Below the blocking size, W3's loss `t * s + e` becomes one reduction (no Sum step, no array of
    the loss's terms): the loss within float32 rounding of a float64 reference, a float32 scalar as
    NumPy's sum gives, the gradients to the bit."""
    arrays = [a - 1.0 for a in data(N, 2, np.float32)]
    value, grads, p = run(w3, arrays, True, monkeypatch)
    assert type(p.infer) is not Blocked
    (reduction,) = _reductions(p.infer)
    assert "total +=" in reduction.forward.fused and not any(s.forward is Sum.forward for s in p.infer)
    assert p.infer[-1] is reduction  # (the last step: the loss itself)
    plain_value, plain_grads, q = run(w3, arrays, False, monkeypatch)
    assert not _reductions(q.infer) and not _reductions(q.train)
    assert value.dtype == np.float32 == plain_value.dtype
    for g, h in zip(grads, plain_grads):
        np.testing.assert_array_equal(g, h)
    x, w = (a.astype(np.float64) for a in arrays)
    reference = (np.tanh(x * w) / (1.0 + np.exp(-x)) + np.exp(-x * x)).sum()
    assert value == pytest.approx(reference, rel=1e-6) and plain_value == pytest.approx(reference, rel=1e-6)


def _value(x):
    return (x * 2.0 + 1.0) * x  # (one kernel)


@pytest.mark.parametrize("case,fn", [
    ("float64: NumPy's pairwise sum kept", lambda x: _value(x).sum()),
    ("the value is also handed out", lambda x: (lambda y: (y.sum(), y))(_value(x))),
    ("the value is read again", lambda x: (lambda y: y.sum() * y.max())(_value(x))),
    ("a sum over one axis", lambda x: _value(x).sum(dim=1).sum()),
    ("a sum that keeps its dims", lambda x: _value(x).sum(keepdim=True).sum()),
])
def test_a_sum_is_left_to_numpy_where_the_kernel_may_not_sum_it(case, fn, numba, monkeypatch) -> None:
    dtype = np.float64 if case.startswith("float64") else np.float32
    x = data(N, 1, dtype)[0].reshape(-1, 1)
    monkeypatch.setattr(fusion, "ENABLED", True)
    monkeypatch.setattr(fusion, "NUMPY_KERNELS", ("numba",))
    t = tl.tensor(x)
    compiled = tl.compile(fn)
    compiled(t)
    got = compiled(t)
    (programs,) = compiled.programs.values()
    p = programs[0]
    assert fused_steps(p.infer) > 0 and not _reductions(p.infer), case  # (it fuses; the sum stays NumPy's)
    monkeypatch.setattr(fusion, "ENABLED", False)
    want = fn(t)
    for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6)


def test_float32_stays_float32_and_a_float64_scalar_is_not_fused(numba, monkeypatch) -> None:
    x32 = data(N, 1, np.float32)[0]
    value, (g,), p = run(lambda x: ((x * 0.1 + 1.0) * x).sum(), [x32], True, monkeypatch)
    assert g.dtype == np.float32 and fused_steps(p.backward) + fused_steps(p.infer) > 0
    _, (h,), _ = run(lambda x: ((x * 0.1 + 1.0) * x).sum(), [x32], False, monkeypatch)
    np.testing.assert_array_equal(g, h)
    # a float64 0-d tensor promotes the product to float64 in NumPy: such a step is left as it is
    s = tl.tensor(0.1, dtype=tl.float64)
    _, (g2,), p2 = run(lambda x: (x * s + 1.0).sum(), [x32], True, monkeypatch)
    assert fused_steps(p2.infer) == 0 and g2.dtype == np.float32


@pytest.mark.parametrize("name,fn", [("exp", lambda x: ((x * 2.0 + 1.0).exp() * 3.0 + x).sum()),
                                     ("**", lambda x: ((x * 2.0 + 1.0) ** 2.5 * 3.0 + x).sum())])
def test_a_transcendental_is_a_barrier_on_numpy(name, fn, numba, monkeypatch) -> None:
    """exp, log, tanh, sin, cos and a power other than 2: NumPy's vectorised ones are faster than a
    kernel's, and round otherwise."""
    _, _, p = run(fn, data(N, 1), True, monkeypatch)
    sources = [s.forward.fused for s in p.infer if hasattr(s.forward, "fused")]
    assert sources and not any(name in s for s in sources)


def test_small_arrays_and_fusion_off_are_replayed_unfused(numba, monkeypatch) -> None:
    _, _, p = run(lambda x: ((x * 2.0 + 1.0) * x).sum(), data(1000, 1), True, monkeypatch)
    assert fused_steps(p.infer) == 0
    _, _, q = run(lambda x: ((x * 2.0 + 1.0) * x).sum(), data(N, 1), True, monkeypatch, kernels=())
    assert fused_steps(q.infer) == 0


def test_numexpr_kernels_equal_the_unfused_replay(monkeypatch) -> None:
    needs("numexpr")
    arrays = data(N, 2, np.float32)
    fn = PATTERNS["tanh-backward"]
    value, grads, p = run(fn, arrays, True, monkeypatch, kernels=("numexpr",))
    assert fused_steps(p.backward) > 0
    _, plain, _ = run(fn, arrays, False, monkeypatch)
    for g, h in zip(grads, plain):
        assert g.dtype == np.float32  # (constants passed as float32 arrays: numexpr would widen a float)
        np.testing.assert_array_equal(g, h)


BINARY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / (b * b + 1.0), "neg": lambda a, b: -a, "c*": lambda a, b: a * 0.7,
          "c+": lambda a, b: a + 3, "sq": lambda a, b: a * a}
OPS = st.lists(st.tuples(st.sampled_from(sorted(BINARY)),
                         st.integers(0, 10), st.integers(0, 10)), min_size=1, max_size=10)


@settings(max_examples=10, deadline=None)
@given(OPS)
def test_random_elementwise_programs_fused_as_replayed_unfused(ops: list[tuple]) -> None:
    pytest.importorskip("numba", reason="numba is not installed")
    arrays = data(N, 2, seed=3)

    def fn(x, y):
        values = [x, y]
        for op, i, j in ops:
            values.append(BINARY[op](values[i % len(values)], values[j % len(values)]))
        return values[-1].sum() + (values[-2] * 0.5).sum() + (x + y * 0.25).sum()

    with pytest.MonkeyPatch.context() as mp:
        value, grads, _ = run(fn, arrays, True, mp)
        plain_value, plain_grads, _ = run(fn, arrays, False, mp)
    np.testing.assert_array_equal(value, plain_value)
    for g, h in zip(grads, plain_grads):
        np.testing.assert_array_equal(g, h)


# ------------------------------------------------------------------------- the sources, and CuPy's kernels
def test_the_sources_of_one_expression() -> None:
    x, y = tl.tensor([1.0]), tl.tensor(2.0)
    tree = fusion.EXPRESSIONS[fusion.TanhBack](("var", x), ("var", y))
    tree = ("+", tree, ("pow", ("abs", ("var", x)), ("const", 1.5)))
    inputs = fusion._inputs(tree)
    assert inputs[:2] == [y, x]  # (tensors in order of first use, then the constants 1 and 1.5)
    assert numexpr_source(tree, inputs) == "((x0 * (x2 - (x1 * x1))) + (abs(x1) ** x3))"
    assert cuda_source(tree, inputs) == "out = ((x0 * (x2 - (x1 * x1))) + pow(fabs(x1), x3));"
    assert cuda_expression(tree, inputs) == "((x0 * (x2 - (x1 * x1))) + pow(fabs(x1), x3))"  # (a reduction's map)
    assert "out[i] = ((x0 * (x2 - (x1[i] * x1[i]))) + (abs(x1[i]) ** x3))" in numba_source(tree, inputs, {y})


class StandIn:
    """cupy.ElementwiseKernel for a test without a GPU: runs the kernel's operation with NumPy."""

    made: list[tuple[str, str, str]] = []

    def __init__(self, in_params: str, out_params: str, operation: str, name: str) -> None:
        self.inputs = [p.split()[1] for p in in_params.split(", ")]
        self.operation = operation
        StandIn.made.append((in_params, out_params, operation))

    def __call__(self, *arrays: np.ndarray) -> np.ndarray:
        space = {"pow": np.power, "fabs": np.abs, "exp": np.exp, "log": np.log, "tanh": np.tanh,
                 "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, **dict(zip(self.inputs, arrays))}
        exec(self.operation, space)  # (a C expression of +, -, *, /, calls and parentheses reads as Python)
        return np.asarray(space["out"])


class ReductionStandIn(StandIn):
    """cupy.ReductionKernel for a test without a GPU: maps with NumPy, then adds as `reduce_expr` says."""

    reductions: list[tuple[str, ...]] = []

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str, post_map_expr: str,
                 identity: str, name: str) -> None:
        self.inputs = [p.split()[1] for p in in_params.split(", ")]
        self.operation = f"out = {map_expr}"
        assert (reduce_expr, post_map_expr, identity) == ("a + b", "out = a", "0")  # (what `__call__` does)
        ReductionStandIn.reductions.append((in_params, out_params, map_expr))

    def __call__(self, *arrays: np.ndarray) -> np.ndarray:
        mapped = super().__call__(*arrays)
        return np.sum(np.broadcast_to(mapped, np.broadcast_shapes(*(a.shape for a in arrays))))


def test_cupy_kernels_through_a_stand_in(monkeypatch) -> None:
    """CuPy's kernel maker, with cupy.ElementwiseKernel replaced by `StandIn`: transcendentals fuse
    too, and the loss's terms are summed by a reduction kernel (`ReductionStandIn`), not written."""
    def maker(backend):
        return lambda *a: fusion._cupy_kernel(*a, elementwise_kernel=StandIn, reduction_kernel=ReductionStandIn)

    monkeypatch.setattr(fusion, "kernel_maker", maker)
    monkeypatch.setattr(fusion, "MIN_ELEMENTS", 0)

    def w3(x, w):
        return ((x * w).tanh() * x.sigmoid() + (-x * x).exp()).sum()

    StandIn.made.clear()
    ReductionStandIn.reductions.clear()
    arrays = data(1000, 2, np.float32)
    value, grads, p = run(w3, arrays, True, monkeypatch)
    assert StandIn.made and all(m[1] == "T out" for m in StandIn.made)
    assert any("tanh(" in m[2] for m in StandIn.made) and any("exp(" in m[2] for m in StandIn.made)
    (reduction,) = _reductions(p.infer)  # the loss: its kernel's terms summed, no Sum step
    assert p.infer[-1] is reduction and not any(s.forward is Sum.forward for s in p.infer)
    assert reduction.forward.fused in {r[2] for r in ReductionStandIn.reductions}
    assert type(value) is np.ndarray and value.shape == () and value.dtype == np.float32
    monkeypatch.setattr(fusion, "kernel_maker", lambda backend: None)
    plain_value, plain_grads, _ = run(w3, arrays, False, monkeypatch)
    np.testing.assert_allclose(value, plain_value, rtol=1e-5)
    for g, h in zip(grads, plain_grads):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, h, rtol=1e-5, atol=1e-6)


def test_every_database_case_through_compile_with_every_size_fused(numba, monkeypatch) -> None:
    """The conformance suite's checks of every op and case through compile (test_compile's 1a), with
    fusion on at every size: each fused program's forward against the reference, its gradients
    against central differences (about 50 s: numba compiles some 70 kernels; float32 passes too)."""
    import test_compile  # (beside this file: the database run it makes is the one to reuse)

    monkeypatch.setattr(fusion, "MIN_ELEMENTS", 0)
    failures = test_compile._conformance_failures(list(test_compile.OPS), test_compile._target("numpy"), "float64")
    assert not failures, "\n".join(failures)
    assert len(fusion._NUMBA_CACHE) > 10  # (kernels were made: the run fused)


@pytest.mark.parametrize("name,kernels", [("numpy", "cpu"), ("cupy", "cupy"), ("array_api_strict", None),
                                          ("torch", None), ("jax", None), ("dask", None)])
def test_each_backend_says_which_kernels_it_fuses_into(name: str, kernels) -> None:
    """`Backend.fused_kernels`, read from the class (so checked where the library is missing too)."""
    assert tl.backends.backend_class(name).fused_kernels == kernels
    if kernels is None:
        assert fusion.kernel_maker(tl.backends.backend_class(name)) is None


def test_a_run_whose_inlined_value_is_also_read_whole_is_replayed_right(numba, monkeypatch) -> None:
    """A Conj of a real value is inlined as the value; where the Conj's own result is handed out (the
    output), the value it names must still be computed: such a list falls back to no fusion."""
    arrays = data(N, 1)
    fn = lambda x: Conj.apply(x * 2.0 + 1.0)  # noqa: E731  (Tensor.conj of a real tensor records nothing)
    monkeypatch.setattr(fusion, "ENABLED", True)
    x = tl.tensor(arrays[0], requires_grad=True)
    compiled = tl.compile(fn)
    compiled(x)
    with tl.no_grad():
        got = compiled(x).numpy()
    np.testing.assert_array_equal(got, arrays[0] * 2.0 + 1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_sigmoid_is_split_so_that_its_arithmetic_fuses(dtype, numba, monkeypatch) -> None:
    """sigmoid(x) of a big array becomes min(x, limit) (a kernel: NumPy's minimum is slow), NumPy's
    exp, and e / (e + 1) fused with what reads it: eager's bits, special values included, and the
    registers it adds let go of after each call."""
    x = data(N, 1, dtype)[0] * 40.0 - 20.0
    x[:6] = [np.nan, np.inf, -np.inf, 1000.0, -1000.0, -0.0]
    fn = lambda x: (x.sigmoid() * x + x.sigmoid() * 2.0).sum()  # noqa: E731
    with np.errstate(all="ignore"):
        value, grads, p = run(fn, [x], True, monkeypatch)
        t = tl.tensor(x, requires_grad=True)
        eager = fn(t)
        eager.backward()
    sources = [s.forward.fused for s in p.infer if hasattr(s.forward, "fused")]
    assert any("if not" in s for s in sources) and any("/ (x0[i] + x" in s or "/ (x" in s for s in sources)
    np.testing.assert_array_equal(grads[0], t.grad.numpy())
    np.testing.assert_allclose(value, eager.numpy(), rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert all(r.data is None for r in p.registers)
