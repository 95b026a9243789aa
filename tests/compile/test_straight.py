"""The straight-line replay (`torchlight.compile.straight`): a step list run as generated code.

Each array kernel a step may call in place of its op's forward gives what that forward gives, to
the bit, on every backend, in float32 and float64, special values included; a program replayed as
generated code gives what the step-by-step loop gives, to the bit; a long list runs in chunks.
"""

from __future__ import annotations

import numpy as np
import pytest
from library_functions import ARRAY_OP_CASES, library_functions

import torchlight as tl
from torchlight.compile import straight
from torchlight.compile.program import run_steps
from torchlight.compile.steps import Step
from torchlight.engine import Context

CASES = ARRAY_OP_CASES
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -800.0, 800.0, 90.0, -90.0]


TABLE = {fn.__name__: fn for fn in straight.ARRAY_FORWARDS}
# the ops that `unary_op` made, by module and name (held from collection: never a doctest's Function)
UNARY = {f"{fn.__module__.rpartition('.')[2]}.{fn.__name__}": fn for fn in library_functions()
         if "array_name" in fn.__dict__}


def test_every_op_with_an_array_kernel_has_a_case():
    assert set(TABLE) == set(CASES)
    assert len(UNARY) >= 10  # (sin, cos, sinh, expm1, log1p, erf, ...: the ops `unary_op` makes)


def arguments(shapes, domain, dtype, backend, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        a = rng.uniform(0.05, 0.95, shape) if domain == "unit" else rng.normal(size=shape) * 3.0
        if domain == "any" and a.size >= len(SPECIALS):
            a.reshape(-1)[:len(SPECIALS)] = SPECIALS
        out.append(tl.tensor(backend.asarray(a.astype(dtype))))
    return out


def bits(backend, array):
    a = backend.to_numpy(array)
    return a.dtype, a.shape, np.ascontiguousarray(a).tobytes()


def same_as_forward(fn, tensors, extra, backend):
    kernel = straight.array_kernel(fn, fn.forward, (*tensors, *extra))
    assert kernel is not None
    with np.errstate(all="ignore"):
        expected = fn.forward(Context(no_grad=True), *tensors, *extra)
        got = kernel(*[t.data for t in tensors], *extra)
    assert bits(backend, got) == bits(backend, expected)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_array_kernel_gives_its_ops_forward_to_the_bit(name, dtype, backend):
    shapes, extra, domain = CASES[name]
    same_as_forward(TABLE[name], arguments(shapes, domain, dtype, backend), extra, backend)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_a_unary_ops_array_kernel_gives_its_forward_to_the_bit(name, dtype, backend):
    fn = UNARY[name]
    if not hasattr(backend.xp, fn.array_name):
        pytest.skip(f"{backend.name} has no {fn.array_name}")
    same_as_forward(fn, arguments([(4, 5)], "any", dtype, backend), (), backend)


def test_a_step_that_runs_another_function_has_no_kernel():
    x = tl.tensor([1.0, 2.0])
    Exp = TABLE["Exp"]
    assert straight.array_kernel(Exp, lambda ctx, a: a, (x,)) is None  # (a write into an input, a fused kernel)
    assert straight.array_kernel(None, Exp.forward, (x,)) is None      # (an opaque node's call)
    assert straight.array_kernel(Exp, Exp.forward, (2.0,)) is None      # (no Tensor to name its namespace)
    sin = UNARY["trigonometric.Sin"]  # (made by `unary_op`: no row, its `array_name`)
    assert straight.array_kernel(sin, sin.forward, (x,))(x.data).tolist() == np.sin([1.0, 2.0]).tolist()


def w1_like(x, w, b):
    h = x
    for _ in range(5):
        h = ((h * w + b).tanh().exp().sigmoid() * 0.9).relu() - h.sin() / 3.0
    return h.sum()


def program_of(fn, *args):
    compiled = tl.compile(fn)
    for _ in range(straight.WARM + 1):  # (warm: each list runs as generated code from now on)
        compiled(*args).backward()
    return compiled, compiled.programs[next(iter(compiled.programs))][0]


def leaves(n, dtype="float64", seed=1):
    rng = np.random.default_rng(seed)
    return [tl.tensor(rng.normal(size=n).astype(dtype), requires_grad=True) for _ in range(3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_generated_code_gives_what_the_step_loop_gives_to_the_bit(dtype, monkeypatch):
    xs = leaves(16, dtype)
    compiled, program = program_of(w1_like, *xs)
    assert type(program.train) is straight.Steps and program.train._run is not None
    assert sum(s.kernel is not None for s in program.train) > len(program.train) // 2
    for x in xs:
        x.grad = None
    compiled(*xs).backward()
    generated = [x.grad.data.copy() for x in xs]
    for x in xs:
        x.grad = None
    # the same Program, its lists replayed a step at a time (a plain list takes the loop)
    for name in ("infer", "train", "backward", "backward_one"):
        monkeypatch.setattr(program, name, list(getattr(program, name)))
    compiled(*xs).backward()
    for g, x in zip(generated, xs):
        assert g.tobytes() == x.grad.data.tobytes()


def test_a_long_list_is_generated_a_chunk_per_replay(monkeypatch):
    """Each replay after WARM generates one more chunk and runs the rest a step at a time: every
    call on the way gives the gradients the step loop gives, to the bit."""
    monkeypatch.setattr(straight, "CHUNK", 7)
    monkeypatch.setattr(straight, "WARM_LONG", 1)  # (a list of more than two chunks waits WARM_LONG)
    xs = leaves(8)
    compiled = tl.compile(w1_like)
    compiled(*xs).backward()  # (recorded, then replayed: the first run)
    program = compiled.programs[next(iter(compiled.programs))][0]
    steps = program.backward_one
    assert len(steps) > 3 * straight.CHUNK
    loop = [s for s in steps]
    expected = []
    for x in xs:
        x.grad = None
    monkeypatch.setattr(program, "backward_one", loop)  # (a plain list: the step loop)
    compiled(*xs).backward()
    expected = [x.grad.data.tobytes() for x in xs]
    monkeypatch.setattr(program, "backward_one", steps)
    calls = 0
    while steps._run is None:
        for x in xs:
            x.grad = None
        compiled(*xs).backward()
        calls += 1
        assert [x.grad.data.tobytes() for x in xs] == expected
        assert len(steps._parts) == calls or steps._run is not None
    assert calls == -(-len(steps) // straight.CHUNK)


def test_the_source_calls_kernels_and_frees_registers(monkeypatch):
    monkeypatch.setattr(straight, "WARM", 0)
    a, b, c = (tl.tensor(np.ones(3)) for _ in range(3))
    exp, mul = TABLE["Exp"], TABLE["Mul"]
    other = lambda ctx, t: t.data + 1.0  # noqa: E731 (a step whose forward is its own)
    steps = straight.Steps([
        Step(mul.forward, None, (a, 2.0), b, (a,), straight.array_kernel(mul, mul.forward, (a, 2.0))),
        Step(other, None, (b,), c, (b,)),
        Step(exp.forward, None, (c,), a, (), straight.array_kernel(exp, exp.forward, (c,))),
    ])
    text = straight.source(steps)
    assert "O0.data = K0(A0_0.data, A0_1)" in text and "R0_0.data = None" in text
    assert "d = F1(C1, A1_0)" in text
    a.data = np.array([0.0, 1.0, 2.0])
    run_steps(steps)
    assert a.data.tolist() == np.exp([1.0, 3.0, 5.0]).tolist() and b.data is None
    assert straight.source(straight.Steps()) == "def run():\n    pass\n"


def test_a_list_runs_step_by_step_until_warm():
    xs = leaves(4)
    compiled = tl.compile(w1_like)
    compiled(*xs).backward()  # (the recording's replay is the first run)
    program = compiled.programs[next(iter(compiled.programs))][0]
    for _ in range(straight.WARM - 1):
        compiled(*xs).backward()
        assert program.train._run is None
    compiled(*xs).backward()
    assert program.train._run is not None


def test_database_cases_through_compile_as_generated_code(monkeypatch):
    """A sample of the op database through compile (test_compile's 1a: forward against the reference,
    gradients against central differences, bad inputs raising), each list generated on its first
    replay: the gradient checks alone call a compiled function fewer times than `WARM` for some."""
    import test_compile  # (beside this file)

    monkeypatch.setattr(straight, "WARM", 0)
    names = [*test_compile.SAMPLE, "nn.functional.cross_entropy", "sin", "log", "sqrt", "relu", "sigmoid"]
    for dtype in ("float64", "float32"):
        failures = test_compile._conformance_failures(names, test_compile._target("numpy"), dtype)
        assert not failures, "\n".join(failures)
