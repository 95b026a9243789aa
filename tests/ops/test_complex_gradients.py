"""Complex gradients follow PyTorch's convention, checked against PyTorch and central differences.

For a real loss L, the gradient of a complex z is the conjugate Wirtinger
derivative 2 dL/d(conj z) = dL/dRe z + i dL/dIm z (what PyTorch's `z.grad`
holds), and a real input that meets a complex one gets the real part of
its complex gradient. Every op whose Function says `complex_grad` is
checked here on complex128 and complex64: first order (and second order,
`create_graph`) against PyTorch, and against central differences that move
the real and imaginary parts separately. Ops without complex gradients
refuse a complex input that requires grad with a TypeError naming them;
ops the standard defines for real numbers only refuse complex inputs.

Found by: `(y * 1j).abs().sum()` gave y.grad == -1 (PyTorch: 1), and
`(x * x).abs().sum()` gave conj(PyTorch's) scaled wrongly, both silently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import torchlight as tl
import torchlight.nn.functional as F
from torchlight.autograd import functions as fns
from torchlight.ops import decompositions as D

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of the complex convention")

BACKENDS = ("numpy", "array_api_strict")
COMPLEX = {"complex128": (np.complex128, np.float64, 1e-10), "complex64": (np.complex64, np.float32, 2e-4)}


def _away_from_cuts(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Points with Re in (0.3, 1.2) and |Im| in (0.3, 1.0): off every branch cut and pole of the
    ops here (log's negative axis, asin's and atanh's |x| > 1, acosh's x < 1, atan's and
    asinh's imaginary axis, tan's real poles)."""
    re = rng.uniform(0.3, 1.2, shape)
    im = rng.uniform(0.3, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
    return re + 1j * im


def _anywhere(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _real(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.standard_normal(shape)


@dataclass(frozen=True)
class Op:
    """One op: `tl_fn(*tensors)` and `torch_fn(*tensors)` compute the same thing; `inputs` gives
    each input's shape and domain (a real domain makes a real input); `second` says PyTorch
    gives a second derivative to compare with."""

    name: str
    tl_fn: Callable[..., Any]
    torch_fn: Callable[..., Any]
    inputs: tuple[tuple[tuple[int, ...], Callable], ...] = (((3,), _away_from_cuts),)
    second: bool = True
    functions: tuple[str, ...] = field(default_factory=tuple)


U = (((3,), _away_from_cuts),)
A = (((3,), _anywhere),)
M23, M34, V3 = ((2, 3), _anywhere), ((3, 4), _anywhere), ((3,), _anywhere)

OPS = [
    # arithmetic
    Op("add", lambda a, b: a + b, lambda a, b: a + b, (V3, V3), functions=("Add",)),
    Op("sub", lambda a, b: a - b, lambda a, b: a - b, (V3, V3), functions=("Sub",)),
    Op("mul", lambda a, b: a * b, lambda a, b: a * b, (V3, V3), functions=("Mul",)),
    Op("div", lambda a, b: a / b, lambda a, b: a / b, (V3, ((3,), _away_from_cuts)), functions=("Div",)),
    Op("neg", lambda a: -a, lambda a: -a, A, functions=("Neg",)),
    Op("pow_number", lambda a: a ** 3, lambda a: a ** 3, A, functions=("Pow",)),
    Op("pow_fraction", lambda a: a ** 0.5, lambda a: a ** 0.5, U, functions=("Pow",)),
    Op("pow_tensor", lambda a, p: a ** p, lambda a, p: a ** p, (((3,), _away_from_cuts), V3), functions=("Pow",)),
    Op("pow_real_base", lambda a, p: a ** p, lambda a, p: a ** p, (((3,), lambda r, s: r.uniform(0.5, 2, s)), V3)),
    # mixed real and complex: the real input gets the real part
    Op("mul_real_complex", lambda y, c: y * c, lambda y, c: y * c, (((3,), _real), V3)),
    Op("matmul_real_complex", lambda w, c: w @ c, lambda w, c: w.to(c.dtype) @ c, (((2, 3), _real), M34)),
    Op("astype_real_to_complex", lambda y: y.astype("complex128") * 1j, lambda y: y.to(torch.complex128) * 1j,
       (((3,), _real),), functions=("AsType",)),
    # linear algebra
    Op("matmul", lambda a, b: a @ b, lambda a, b: a @ b, (M23, M34), functions=("MatMul",)),
    Op("matmul_vec_mat", lambda a, b: a @ b, lambda a, b: a @ b, (V3, M34)),
    Op("matmul_mat_vec", lambda a, b: a @ b, lambda a, b: a @ b, (M23, V3)),
    Op("matmul_vec_vec", lambda a, b: a @ b, lambda a, b: a @ b, (V3, V3)),
    Op("linear", lambda x, w, b: F.linear(x, w, b), lambda x, w, b: torch.nn.functional.linear(x, w, b),
       (M23, ((4, 3), _anywhere), ((4,), _anywhere)), functions=("Linear",)),
    # elementwise
    Op("exp", lambda a: a.exp(), torch.exp, A, functions=("Exp",)),
    Op("log", lambda a: a.log(), torch.log, U, functions=("Log",)),
    Op("log1p", lambda a: a.log1p(), torch.log1p, U, functions=("Log1p",)),
    Op("log2", lambda a: a.log2(), torch.log2, U, functions=("Log2",)),
    Op("log10", lambda a: a.log10(), torch.log10, U, functions=("Log10",)),
    Op("expm1", lambda a: a.expm1(), torch.expm1, A, functions=("Expm1",)),
    Op("sqrt", lambda a: a.sqrt(), torch.sqrt, U, functions=("Sqrt",)),
    Op("square", lambda a: a.square(), torch.square, A, functions=("Square",)),
    Op("inv", lambda a: a.inv(), torch.reciprocal, U, functions=("Inv",)),
    Op("abs", lambda a: a.abs(), torch.abs, A, functions=("Abs",)),
    Op("sigmoid", lambda a: a.sigmoid(), torch.sigmoid, A, functions=("Sigmoid",)),
    # trigonometric
    Op("sin", lambda a: a.sin(), torch.sin, A, functions=("Sin",)),
    Op("cos", lambda a: a.cos(), torch.cos, A, functions=("Cos",)),
    Op("tan", lambda a: a.tan(), torch.tan, U, functions=("Tan",)),
    Op("tanh", lambda a: a.tanh(), torch.tanh, U, functions=("Tanh",)),
    Op("sinh", lambda a: a.sinh(), torch.sinh, A, functions=("Sinh",)),
    Op("cosh", lambda a: a.cosh(), torch.cosh, A, functions=("Cosh",)),
    Op("asin", lambda a: a.asin(), torch.asin, U, functions=("Asin",)),
    Op("acos", lambda a: a.acos(), torch.acos, U, functions=("Acos",)),
    Op("atan", lambda a: a.atan(), torch.atan, U, functions=("Atan",)),
    Op("asinh", lambda a: a.asinh(), torch.asinh, U, functions=("Asinh",)),
    Op("acosh", lambda a: a.acosh(), torch.acosh, U, functions=("Acosh",)),
    Op("atanh", lambda a: a.atanh(), torch.atanh, U, functions=("Atanh",)),
    # complex numbers
    Op("conj", lambda a: a.conj() * a.exp(), lambda a: a.conj() * a.exp(), A, functions=("Conj",)),
    Op("real", lambda a: a.real * a.abs(), lambda a: a.real * a.abs(), A, functions=("Real",)),
    Op("imag", lambda a: a.imag * a.abs(), lambda a: a.imag * a.abs(), A, functions=("Imag",)),
    Op("angle", lambda a: a.angle(), torch.angle, A, functions=("Angle",)),
    Op("angle_times", lambda a: a.angle() * a, lambda a: a.angle() * a, A),
    # reductions
    Op("sum", lambda a: a.sum(1), lambda a: a.sum(1), (M23,), functions=("Sum",)),
    Op("mean", lambda a: a.mean(0), lambda a: a.mean(0), (M23,)),
    Op("prod", lambda a: a.prod(1), lambda a: a.prod(1), (M23,), functions=("Prod",)),
    Op("cumsum", lambda a: a.cumsum(1), lambda a: a.cumsum(1), (M23,), functions=("Cumsum", "ReverseCumsum")),
    Op("norm", lambda a: a.norm(dim=1), lambda a: torch.linalg.vector_norm(a, dim=1), (M23,)),
    Op("norm_p3", lambda a: a.norm(3, dim=1), lambda a: torch.linalg.vector_norm(a, 3, dim=1), (M23,)),
    # shapes and indexing
    Op("reshape", lambda a: a.reshape(3, 2) * a.reshape(3, 2), lambda a: a.reshape(3, 2) * a.reshape(3, 2), (M23,),
       functions=("Reshape",)),
    Op("transpose", lambda a: a.T @ a, lambda a: a.T @ a, (M23,), functions=("Permute",)),
    Op("expand", lambda a: a.reshape(1, 3).expand(2, 3) * a, lambda a: a.reshape(1, 3).expand(2, 3) * a, (V3,),
       functions=("BroadcastView", "SumTo")),
    Op("broadcast", lambda a, b: a * b, lambda a, b: a * b, (M23, ((1, 3), _anywhere))),
    Op("flip", lambda a: a.flip(1) * a, lambda a: a.flip(1) * a, (M23,), functions=("Flip",)),
    Op("roll", lambda a: a.roll(1, 1) * a, lambda a: a.roll(1, 1) * a, (M23,), functions=("Roll",)),
    Op("tile", lambda a: a.tile(2, 1) * a.tile(2, 1), lambda a: a.tile(2, 1) * a.tile(2, 1), (M23,),
       functions=("Tile",)),
    Op("cat", lambda a, b: tl.cat([a, b]) ** 2, lambda a, b: torch.cat([a, b]) ** 2, (V3, V3), functions=("Concat",)),
    Op("stack", lambda a, b: tl.stack([a, b]) ** 2, lambda a, b: torch.stack([a, b]) ** 2, (V3, V3),
       functions=("Stack",)),
    Op("getitem", lambda a: a[[0, 0, 2]] * a[1], lambda a: a[[0, 0, 2]] * a[1], (V3,),
       functions=("Gather", "GatherBack")),
    Op("where", lambda a, b: tl.where(a.real > 0, a, b) ** 2, lambda a, b: torch.where(a.real > 0, a, b) ** 2,
       (V3, V3), functions=("Where",)),
    Op("clone", lambda a: a.clone() * a, lambda a: a.clone() * a, A, functions=("Clone",)),
    Op("to", lambda a: (a.to("array_api_strict") ** 2).to(a.backend), lambda a: a ** 2, A, functions=("To",)),
    Op("pad", lambda a: fns.Pad.apply(a, ((1, 2),), 0.0) ** 2, lambda a: torch.nn.functional.pad(a, (1, 2)) ** 2,
       (M23,), functions=("Pad",)),
    # diagonal and its embedding (each the other's backward)
    Op("diagonal", lambda a: tl.linalg.diagonal(a, offset=1) ** 2, lambda a: torch.diagonal(a, 1, -2, -1) ** 2,
       (M34,), functions=("Diagonal", "DiagonalEmbed")),
]


def _well(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """3 (1 + i) I plus small complex noise: far from singular."""
    n = shape[-1]
    return 3 * (1 + 1j) * np.eye(shape[-2], n) + 0.3 * _anywhere(rng, shape)


def _spread(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """A diagonal of distinct magnitudes (4, 2.5, 1) plus small complex noise: distinct eigenvalues of its
    Hermitian part and distinct singular values."""
    base = np.zeros(shape, dtype=complex)
    k = min(shape)
    base[np.arange(k), np.arange(k)] = 4.0 - 1.5 * np.arange(k)
    return base + 0.1 * _anywhere(rng, shape)


def _abs2(v: Any) -> Any:
    return (v * v.conj()).real


def _herm(a: Any) -> Any:
    return (a + a.conj().mT) * 0.5


W3, S3 = ((3, 3), _well), ((3, 3), _spread)
OPS += [  # the decompositions (torchlight/ops/decompositions.py); eigen- and singular vectors through
    # functions invariant to their phase
    Op("cholesky", lambda a: D.cholesky(a @ a.conj().mT), lambda a: torch.linalg.cholesky(a @ a.mH), (W3,),
       functions=("Cholesky",)),
    Op("solve", lambda a, b: D.solve(a, b), torch.linalg.solve, (W3, ((3, 2), _anywhere)), functions=("Solve",)),
    Op("solve_triangular", lambda a, b: D.solve_triangular(a, b, upper=True),
       lambda a, b: torch.linalg.solve_triangular(a, b, upper=True), (W3, ((3, 2), _anywhere)),
       functions=("SolveTriangular",)),
    Op("linalg_inv", D.inv, torch.linalg.inv, (W3,), functions=("Inverse",)),
    Op("det", D.det, torch.linalg.det, (W3,), functions=("Det",)),
    Op("slogdet", lambda a: (lambda r: r.sign * r.logabsdet)(D.slogdet(a)),
       lambda a: (lambda r: r.sign * r.logabsdet)(torch.linalg.slogdet(a)), (W3,), functions=("Slogdet",)),
    Op("eigh", lambda a: (lambda r: _abs2(r[1]) * r[0])(D.eigh(_herm(a))),
       lambda a: (lambda r: _abs2(r[1]) * r[0])(torch.linalg.eigh(_herm(a))), (S3,), functions=("Eigh",)),
    Op("svd", lambda a: (lambda r: _abs2(r[0]) * r[1] + (r[0] @ r[2]).real)(D.svd(a)),
       lambda a: (lambda r: _abs2(r[0]) * r[1] + (r[0] @ r[2]).real)(torch.linalg.svd(a)), (S3,),
       functions=("Svd",)),
    Op("qr", lambda a: (lambda r: r[0] + r[1])(D.qr(a)), lambda a: (lambda r: r[0] + r[1])(torch.linalg.qr(a)),
       (S3,), functions=("Qr",)),
    Op("pinv", D.pinv, torch.linalg.pinv, (((4, 3), _spread),), functions=("Pinv",)),
    # fft (torchlight.ops.fft): squared, so that the second derivative is not zero
    Op("fft", lambda a: tl.fft.fft(a, n=5) ** 2, lambda a: torch.fft.fft(a, n=5) ** 2, A,
       functions=("FFT", "FFTResize")),
    Op("ifftn", lambda a: tl.fft.ifftn(a, s=(3, 2), norm="ortho") ** 2,
       lambda a: torch.fft.ifftn(a, s=(3, 2), norm="ortho") ** 2, (M23,)),
    Op("rfft", lambda y: tl.fft.rfft(y) ** 2, lambda y: torch.fft.rfft(y) ** 2, (((4,), _real),), functions=("RFFT",)),
    Op("irfft", lambda a: tl.fft.irfft(a, n=5) ** 2, lambda a: torch.fft.irfft(a, n=5) ** 2, A, functions=("IRFFT",)),
    Op("hfft", lambda a: tl.fft.hfft(a, norm="forward") ** 2, lambda a: torch.fft.hfft(a, norm="forward") ** 2, A),
    Op("ihfft", lambda y: tl.fft.ihfft(y, n=5) ** 2, lambda y: torch.fft.ihfft(y, n=5) ** 2, (((4,), _real),)),
    Op("fftshift", lambda a: tl.fft.fftshift(a) * a, lambda a: torch.fft.fftshift(a) * a, (M23,),
       functions=("FFTShift",)),
]


def _hosts(op: Op, dtype: str) -> list[np.ndarray]:
    cdtype, rdtype, _ = COMPLEX[dtype]
    rng = np.random.default_rng(abs(hash(op.name)) % 2**32)
    out = []
    for shape, domain in op.inputs:
        h = domain(rng, shape)
        out.append(h.astype(cdtype if np.iscomplexobj(h) else rdtype))
    return out


def _upstream(out_shape: tuple, complex_out: bool, dtype: str) -> np.ndarray:
    cdtype, rdtype, _ = COMPLEX[dtype]
    rng = np.random.default_rng(7)
    v = rng.standard_normal(out_shape)
    if complex_out:
        return (v + 1j * rng.standard_normal(out_shape)).astype(cdtype)
    return v.astype(rdtype)


def _tl_inputs(hosts: list[np.ndarray], backend: str) -> list[Any]:
    return [tl.tensor(h, backend=backend, requires_grad=True) for h in hosts]


def _torch_grads(op: Op, hosts: list[np.ndarray], second: bool = False) -> tuple[list, list | None]:
    xs = [torch.tensor(h, requires_grad=True) for h in hosts]
    out = op.torch_fn(*xs)
    v = torch.tensor(_upstream(tuple(out.shape), out.is_complex(), _dtype_of(hosts)))
    grads = torch.autograd.grad(out, xs, v, create_graph=second)
    if not second:
        return [g.detach().resolve_conj().numpy() for g in grads], None
    us = [torch.tensor(_upstream(tuple(g.shape), g.is_complex(), _dtype_of(hosts)) * 0.5) for g in grads]
    total = sum((torch.real(torch.conj(u) * g)).sum() for u, g in zip(us, grads))
    if not total.requires_grad:  # a linear op: its gradient does not depend on the inputs
        return [g.detach().resolve_conj().numpy() for g in grads], [None] * len(xs)
    seconds = torch.autograd.grad(total, xs, allow_unused=True)
    return ([g.detach().resolve_conj().numpy() for g in grads],
            [None if s is None else s.resolve_conj().numpy() for s in seconds])


def _dtype_of(hosts: list[np.ndarray]) -> str:
    return "complex64" if any(h.dtype in (np.complex64, np.float32) for h in hosts) else "complex128"


def _tl_grads(op: Op, hosts: list[np.ndarray], backend: str, second: bool = False) -> tuple[list, list | None]:
    xs = _tl_inputs(hosts, backend)
    out = op.tl_fn(*xs)
    v = tl.tensor(_upstream(out.shape, out.backend.is_complex(out.dtype), _dtype_of(hosts)), backend=backend)
    grads = tl.autograd.grad(out, xs, v, create_graph=second)
    firsts = [g.numpy() for g in grads]
    for g, x in zip(grads, xs):  # the gradient has its input's dtype, backend and device
        assert g.dtype == x.dtype and g.backend is x.backend and g.shape == x.shape
    if not second:
        return firsts, None
    us = [tl.tensor(_upstream(g.shape, g.backend.is_complex(g.dtype), _dtype_of(hosts)) * 0.5, backend=backend)
          for g in grads]
    total = sum(((u.conj() * g).real.sum() for u, g in zip(us, grads)), tl.tensor(0.0, backend=backend))
    if not total.requires_grad:  # a linear op: its gradient does not depend on the inputs
        return firsts, [None] * len(xs)
    seconds = tl.autograd.grad(total, xs, allow_unused=True)
    return firsts, [None if s is None else s.numpy() for s in seconds]


def _close(got: np.ndarray | None, want: np.ndarray | None, tol: float, what: str) -> None:
    if want is None or got is None:  # unused: PyTorch says None where torchlight may give zeros
        assert got is None or np.allclose(got, 0), what
        return
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * 10, err_msg=what)


@pytest.mark.parametrize("dtype", list(COMPLEX))
@pytest.mark.parametrize("library", BACKENDS)
@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_first_and_second_order_gradients_equal_pytorchs(op: Op, library: str, dtype: str) -> None:
    hosts = _hosts(op, dtype)
    tol = COMPLEX[dtype][2]
    second = op.second and dtype == "complex128"
    want, want2 = _torch_grads(op, hosts, second)
    got, got2 = _tl_grads(op, hosts, library, second)
    for i, (g, w) in enumerate(zip(got, want)):
        _close(g, w, tol, f"{op.name}: gradient of input {i}")
    if second:
        for i, (g, w) in enumerate(zip(got2, want2)):
            _close(g, w, tol, f"{op.name}: second derivative of input {i}")


def _loss(op: Op, hosts: list[np.ndarray], v: np.ndarray) -> float:
    """The real loss Re(sum(conj(v) * f(inputs))) at `hosts`, without grad."""
    with tl.no_grad():
        out = op.tl_fn(*[tl.tensor(h) for h in hosts]).numpy()
    return float(np.real(np.sum(np.conj(v) * out)))


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_gradients_equal_central_differences_in_the_real_and_imaginary_parts(op: Op) -> None:
    hosts = _hosts(op, "complex128")
    got, _ = _tl_grads(op, hosts, "numpy")
    with tl.no_grad():
        out = op.tl_fn(*[tl.tensor(h) for h in hosts])
    v = _upstream(out.shape, out.backend.is_complex(out.dtype), "complex128")
    eps = 1e-6
    for i, h in enumerate(hosts):
        numeric = np.zeros(h.shape, dtype=h.dtype)
        parts = (1.0, 1j) if np.iscomplexobj(h) else (1.0,)
        for j in np.ndindex(h.shape):
            for part in parts:
                up, down = [x.copy() for x in hosts], [x.copy() for x in hosts]
                up[i][j] += eps * part
                down[i][j] -= eps * part
                numeric[j] += part * (_loss(op, up, v) - _loss(op, down, v)) / (2 * eps)
        np.testing.assert_allclose(got[i], numeric, rtol=1e-5, atol=1e-6, err_msg=f"{op.name}: input {i}")


def test_every_function_that_claims_complex_gradients_is_checked_here() -> None:
    claimed = {name for name in dir(fns) if isinstance(getattr(fns, name), type)
               and issubclass(getattr(fns, name), tl.autograd.Function) and getattr(fns, name).complex_grad}
    checked = {f for op in OPS for f in op.functions}
    assert claimed == checked, (sorted(claimed - checked), sorted(checked - claimed))


# ------------------------------------------------------------------ the examples of the issue
def test_a_real_input_meeting_a_complex_one_gets_the_real_part() -> None:
    y = tl.tensor([2.0], requires_grad=True)
    (y * tl.tensor([1j])).abs().sum().backward()
    assert y.grad.dtype == y.dtype and y.grad.tolist() == [1.0]


def test_the_gradient_of_abs_of_a_square_is_pytorchs() -> None:
    x = tl.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    (x * x).abs().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 + 4j, 6 - 2j])


def test_the_squared_modulus_gives_2z() -> None:
    z = tl.tensor([1 + 2j, -0.5 + 3j], requires_grad=True)
    (z * z.conj()).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 2 * np.array([1 + 2j, -0.5 + 3j]))


def test_abs_and_angle_have_gradient_zero_at_zero() -> None:
    z = tl.tensor([0j, 1j], requires_grad=True)
    (z.abs() + z.angle()).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [0, -1 + 1j])  # abs: z / |z| = i; angle: i z / |z|**2 = -1


# ------------------------------------------------------------------ the seed of backward
def test_a_complex_gradient_for_a_real_root_is_refused() -> None:
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    for seed in (tl.tensor([1j, 1.0]), np.array([1j, 1.0]), 1j):
        with pytest.raises(RuntimeError, match="the gradient is complex"):
            (x * 2.0).backward(seed)
    assert x.grad is None


def test_a_complex_root_needs_an_explicit_gradient() -> None:
    z = tl.tensor([1 + 2j], requires_grad=True)
    with pytest.raises(RuntimeError, match="implicitly created only for real scalar outputs"):
        (z * 2.0).sum().backward()
    (z * 2.0).sum().backward(tl.tensor(1 + 0j))
    assert z.grad.tolist() == [2 + 0j]


# ------------------------------------------------------------------ the complex-number ops
def test_real_imag_conj_and_angle_of_real_tensors() -> None:
    x = tl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    assert x.real is x and x.conj() is x
    assert x.imag.tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(x.angle().numpy(), [np.pi, 0.0, 0.0])
    (x.imag + x.angle()).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_free_functions_match_the_methods() -> None:
    z = tl.tensor([1 + 2j, -3 - 1j])
    for free, method in ((tl.real, lambda t: t.real), (tl.imag, lambda t: t.imag), (tl.conj, lambda t: t.conj()),
                         (tl.angle, lambda t: t.angle())):
        np.testing.assert_array_equal(free(z).numpy(), method(z).numpy())
    np.testing.assert_allclose(tl.angle(z).numpy(), np.angle(z.numpy()))


def test_a_cast_from_complex_to_real_is_refused() -> None:
    with pytest.raises(TypeError, match="astype: .*imaginary part"):
        tl.tensor([1 + 2j]).astype("float64")


# ------------------------------------------------------------------ refusals
REFUSED_FOR_COMPLEX = [  # undefined for complex numbers in the standard: refused whether or not they require grad
    ("maximum", lambda z: z.maximum(z)), ("minimum", lambda z: z.minimum(z)), ("clamp", lambda z: z.clamp(0.0, 1.0)),
    ("floor", lambda z: z.floor()), ("ceil", lambda z: z.ceil()), ("trunc", lambda z: z.trunc()),
    ("relu", lambda z: z.relu()), ("logaddexp", lambda z: z.logaddexp(z)), ("hypot", lambda z: z.hypot(z)),
    ("copysign", lambda z: z.copysign(z)), ("atan2", lambda z: z.atan2(z)), ("max", lambda z: z.max()),
    ("min", lambda z: z.min()), ("argmax", lambda z: z.argmax()), ("argmin", lambda z: z.argmin()),
    ("softmax", lambda z: z.softmax()), ("log_softmax", lambda z: z.log_softmax()),
    ("logsumexp", lambda z: z.logsumexp(0)), ("var", lambda z: z.var()), ("std", lambda z: z.std()),
    ("less", lambda z: z < z), ("less_equal", lambda z: z <= z), ("greater", lambda z: z > z),
    ("greater_equal", lambda z: z >= z), ("floor_divide", lambda z: z // z), ("remainder", lambda z: z % z),
]


@pytest.mark.parametrize("name, call", REFUSED_FOR_COMPLEX, ids=[n for n, _ in REFUSED_FOR_COMPLEX])
def test_ops_undefined_for_complex_numbers_refuse_them(name: str, call: Callable) -> None:
    z = tl.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    with pytest.raises(TypeError, match=f"^{name}: "):
        call(z)


NO_COMPLEX_GRADIENT = [  # defined for complex inputs, but their gradient is not: refused when one requires grad
    ("sign", lambda z: z.sign()), ("round", lambda z: z.round()),
    ("Softplus", lambda z: F.softplus(z)), ("Map", lambda z: z.backend.map(tl.scalar.exp)(z)),
    ("PiecewiseConstant", lambda z: fns.PiecewiseConstant.apply(z, "sign")),
    ("LogBack", lambda z: fns.LogBack.apply(z, z)), ("TanhBack", lambda z: fns.TanhBack.apply(z, z)),
]


@pytest.mark.parametrize("name, call", NO_COMPLEX_GRADIENT, ids=[n for n, _ in NO_COMPLEX_GRADIENT])
def test_ops_without_complex_gradients_refuse_a_complex_input_that_requires_grad(name: str, call: Callable) -> None:
    z = tl.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    with pytest.raises(TypeError, match=f"^{name}: gradients of complex inputs are not implemented"):
        call(z)
    call(z.detach())  # without grad the forward runs


def test_an_op_without_complex_gradients_refuses_a_real_input_that_meets_a_complex_one() -> None:
    y = tl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="^Zip: gradients of complex inputs"):
        y.backend.zip(tl.scalar.mul)(y, tl.tensor([1j, 1j]))


def test_real_dtypes_are_unchanged() -> None:
    x = tl.tensor([0.5, -1.5, 2.0], requires_grad=True)
    (x * x.exp() / (x.abs() + 1.0) + x.relu().sigmoid()).sum().backward()
    t = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
    (t * t.exp() / (t.abs() + 1.0) + t.relu().sigmoid()).sum().backward()
    assert x.grad.dtype == x.dtype
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_gradcheck_refuses_complex_inputs_rather_than_dropping_their_imaginary_parts() -> None:
    z = tl.tensor([1 + 2j], requires_grad=True)
    for check in (tl.autograd.gradcheck, tl.autograd.gradgradcheck):
        with pytest.raises(TypeError, match="complex inputs are not supported"):
            check(lambda t: t.abs(), z)
