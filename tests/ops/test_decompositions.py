"""The decompositions (torchlight/ops/decompositions.py) beyond their conformance entries: gradcheck and
gradgradcheck of every differentiable one on each backend of the suite, PyTorch as the oracle of gradient
values (real and complex), gradients at repeated eigenvalues and singular values, the named results and
their faces (Tensor methods, free functions), bad input, Dask's laziness, tl.compile."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.backends.linalg import LinAlgError
from torchlight.ops import decompositions as D

N = 3


def lift(backend, device, x, grad=True):
    return tl.tensor(backend.asarray(np.asarray(x), device=device), requires_grad=grad)


def eye_like(a, scale=1.0):
    return tl.tensor(a.backend.asarray(np.eye(a.shape[-1]) * scale, dtype=a.dtype, device=a._device))


def hpd(a):
    """A A^T + n I: symmetric positive-definite."""
    return a @ a.mT + eye_like(a, a.shape[-1])


def sym(a):
    return (a + a.mT) * 0.5


RNG = np.random.default_rng(22)
WELL = RNG.standard_normal((2, N, N)) * 0.3 + np.eye(N) * (N + 1)
SPECTRUM = np.diag([1.0, 3.0, 5.0]) + 0.1 * RNG.standard_normal((N, N))
TALL, WIDE = RNG.standard_normal((4, 3)), RNG.standard_normal((2, 4))
B = RNG.standard_normal((N, 2))

# name -> (function of Tensors, host inputs): every differentiable decomposition, in float64
CASES = {
    "cholesky": (lambda a: D.cholesky(hpd(a)), [RNG.standard_normal((N, N))]),
    "cholesky_upper": (lambda a: D.cholesky(hpd(a), upper=True), [RNG.standard_normal((N, N))]),
    "solve": (lambda a, b: D.solve(a, b), [WELL, B]),
    "solve_vector_right": (lambda a, b: D.solve(a, b, left=False), [WELL[0], B[:, 0]]),
    "solve_triangular": (lambda a, b: D.solve_triangular(a, b, upper=True), [WELL[0], B]),
    "solve_triangular_right_unit": (lambda a, b: D.solve_triangular(a, b, upper=False, left=False,
                                                                    unitriangular=True), [WELL[0], B.T]),
    "cholesky_solve": (lambda b, factor: D.cholesky_solve(b, factor), [B, WELL[1]]),
    "inv": (D.inv, [WELL]),
    "det": (D.det, [WELL[0] / N]),
    "slogdet": (lambda a: D.slogdet(a).logabsdet, [WELL]),
    "logdet": (lambda a: D.logdet(hpd(a)), [RNG.standard_normal((N, N))]),
    "eigh": (lambda a: (lambda r: (r.eigenvalues, r.eigenvectors ** 2))(D.eigh(sym(a))), [SPECTRUM]),
    "eigvalsh": (lambda a: D.eigvalsh(sym(a)), [SPECTRUM]),
    "svd_tall": (lambda a: (lambda r: (r.U ** 2, r.S, r.Vh ** 2))(D.svd(a, full_matrices=False)), [TALL]),
    "svd_wide_full": (lambda a: (lambda r: (r.S, r.Vh[..., :2, :] ** 2))(D.svd(a)), [WIDE]),
    "svdvals": (D.svdvals, [TALL]),
    "qr_tall": (lambda a: tuple(D.qr(a)), [TALL]),
    "qr_wide": (lambda a: tuple(D.qr(a)), [WIDE]),
    "qr_r": (lambda a: D.qr(a, mode="r").R, [TALL.T @ TALL]),
    "pinv_tall": (D.pinv, [TALL]),
    "pinv_hermitian": (lambda a: D.pinv(sym(a), hermitian=True), [SPECTRUM]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(backend, device, name):
    fn, hosts = CASES[name]
    inputs = [lift(backend, device, h) for h in hosts]
    assert gradcheck(fn, *inputs)
    assert gradgradcheck(fn, *inputs, full_jacobian_max=4)  # (4 random groups of entries: small test time)


# ------------------------------------------------------------------------------ PyTorch as oracle
torch = pytest.importorskip("torch", reason="PyTorch is the oracle of gradient values here")


def _herm(a):
    return (a + a.conj().mT) * 0.5


def _pd(a, eye):
    return _herm(a) @ _herm(a).conj().mT + eye * a.shape[-1]


def _lower(eye):
    """The lower-triangle mask, in the module of `eye` (a factor that holds nothing in its other triangle)."""
    if isinstance(eye, torch.Tensor):
        return torch.ones_like(eye).tril()
    return tl.tensor(np.tril(np.ones(eye.shape)).astype(eye.numpy().dtype))


def _abs2(v):
    return (v * v.conj()).real


# name -> (torchlight function, torch function, input shapes); both take the module's eye (tl or torch)
ORACLE = {
    "cholesky": (lambda a, eye: [D.cholesky(_pd(a, eye))], lambda a, eye: [torch.linalg.cholesky(_pd(a, eye))],
                 [(2, N, N)]),
    "solve": (lambda a, b, eye: [D.solve(a + eye * 4, b)], lambda a, b, eye: [torch.linalg.solve(a + eye * 4, b)],
              [(2, N, N), (N, 2)]),
    "solve_triangular": (lambda a, b, eye: [D.solve_triangular(a + eye * 4, b, upper=True)],
                         lambda a, b, eye: [torch.linalg.solve_triangular(a + eye * 4, b, upper=True)],
                         [(N, N), (N, 2)]),
    "cholesky_solve": (lambda b, f, eye: [D.cholesky_solve(b, f * _lower(eye) + eye * 3)],
                       lambda b, f, eye: [torch.cholesky_solve(b, f * _lower(eye) + eye * 3)], [(N, 2), (N, N)]),
    "inv": (lambda a, eye: [D.inv(a + eye * 4)], lambda a, eye: [torch.linalg.inv(a + eye * 4)], [(2, N, N)]),
    "det": (lambda a, eye: [D.det(a)], lambda a, eye: [torch.linalg.det(a)], [(2, N, N)]),
    "slogdet": (lambda a, eye: list(D.slogdet(a)), lambda a, eye: list(torch.linalg.slogdet(a)), [(2, N, N)]),
    "logdet": (lambda a, eye: [D.logdet(_pd(a, eye))], lambda a, eye: [torch.logdet(_pd(a, eye))], [(N, N)]),
    "eigh": (lambda a, eye: (lambda r: [r[0], _abs2(r[1])])(D.eigh(_herm(a))),
             lambda a, eye: (lambda r: [r[0], _abs2(r[1])])(torch.linalg.eigh(_herm(a))), [(N, N)]),
    "svd": (lambda a, eye: (lambda r: [_abs2(r[0]), r[1], _abs2(r[2])])(D.svd(a, full_matrices=False)),
            lambda a, eye: (lambda r: [_abs2(r[0]), r[1], _abs2(r[2])])(torch.linalg.svd(a, full_matrices=False)),
            [(4, 2)]),
    "qr": (lambda a, eye: list(D.qr(a)), lambda a, eye: list(torch.linalg.qr(a)), [(4, 3)]),
    "qr_wide": (lambda a, eye: list(D.qr(a)), lambda a, eye: list(torch.linalg.qr(a)), [(2, 4)]),
    "pinv": (lambda a, eye: [D.pinv(a)], lambda a, eye: [torch.linalg.pinv(a)], [(4, 3)]),
}


def _loss(outs, weights, complex_of):
    total = None
    for o, w in zip(outs, weights):
        term = (o * w).real.sum() if complex_of(o) else (o * w).sum()
        total = term if total is None else total + term
    return total


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("name", sorted(ORACLE))
def test_gradients_match_pytorch(name, complex_):
    ours, theirs, shapes = ORACLE[name]
    rng = np.random.default_rng(7)

    def draw(shape):
        x = rng.standard_normal(shape)
        return x + 1j * rng.standard_normal(shape) if complex_ else x

    hosts = [draw(s) for s in shapes]
    leaves_t = [torch.tensor(h, requires_grad=True) for h in hosts]
    outs_t = theirs(*leaves_t, torch.eye(N, dtype=leaves_t[0].dtype))
    weights = [draw(tuple(o.shape)) if o.is_complex() else rng.standard_normal(tuple(o.shape)) for o in outs_t]
    expected = torch.autograd.grad(_loss(outs_t, [torch.tensor(w) for w in weights], torch.is_complex), leaves_t)
    leaves = [tl.tensor(h, requires_grad=True) for h in hosts]
    outs = ours(*leaves, tl.tensor(np.eye(N, dtype=hosts[0].dtype)))
    for o, t in zip(outs, outs_t):
        np.testing.assert_allclose(o.numpy(), t.detach().numpy(), atol=1e-10)
    _loss(outs, [tl.tensor(w) for w in weights], lambda o: o.backend.is_complex(o.dtype)).backward()
    for leaf, want in zip(leaves, expected):
        if name == "cholesky_solve" and leaf is leaves[1]:  # PyTorch also fills the triangle not read
            np.testing.assert_allclose(np.tril(leaf.grad.numpy()), np.tril(want.numpy()), atol=1e-10)
            assert not np.triu(leaf.grad.numpy(), 1).any()
            continue
        np.testing.assert_allclose(leaf.grad.numpy(), want.numpy(), atol=1e-10)


# ---------------------------------------------------------------------- repeated values, results
def test_gradients_of_the_values_alone_are_finite_at_repeated_values():
    """eigvalsh and svdvals of the identity: the terms 1 / (w_j - w_i) of the repeated pairs are taken
    as 0, so the gradient of the values' sum (the trace; the nuclear norm) is exact, not NaN."""
    a = tl.tensor(np.eye(3), requires_grad=True)
    D.eigvalsh(a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.eye(3), atol=1e-12)
    b = tl.tensor(np.eye(3), requires_grad=True)
    D.svdvals(b).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), np.eye(3), atol=1e-12)


def test_results_are_named_tuples_with_pytorchs_fields():
    a = tl.tensor(SPECTRUM)
    assert D.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert D.svd(a)._fields == ("U", "S", "Vh")
    assert D.qr(a)._fields == ("Q", "R")
    assert D.slogdet(a)._fields == ("sign", "logabsdet")
    q, r = D.qr(a, mode="r")
    assert q.shape == (0,) and r.shape == (3, 3)
    u, s, vh = D.svd(tl.tensor(TALL))
    assert (u.shape, s.shape, vh.shape) == ((4, 4), (3,), (3, 3))
    assert D.matrix_rank(tl.tensor(np.ones((3, 3)))).item() == 1


def test_tensor_methods_and_free_functions(backend, device):
    a = lift(backend, device, WELL[0], grad=False)
    np.testing.assert_allclose(a.det().numpy(), np.linalg.det(WELL[0]), rtol=1e-12)
    np.testing.assert_allclose(tl.det(a).numpy(), np.linalg.det(WELL[0]), rtol=1e-12)
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(WELL[0]), atol=1e-12)
    np.testing.assert_allclose(tl.inverse(a).numpy(), np.linalg.inv(WELL[0]), atol=1e-12)
    sign, logabs = np.linalg.slogdet(WELL[0])
    for result in (a.slogdet(), tl.slogdet(a)):
        assert float(result.sign.numpy()) == sign and np.isclose(float(result.logabsdet.numpy()), logabs)
    np.testing.assert_allclose(a.logdet().numpy(), logabs, rtol=1e-12)
    np.testing.assert_allclose(tl.logdet(a).numpy(), logabs, rtol=1e-12)
    np.testing.assert_allclose(a.pinverse().numpy(), np.linalg.pinv(WELL[0]), atol=1e-12)
    np.testing.assert_allclose(tl.pinverse(a).numpy(), np.linalg.pinv(WELL[0]), atol=1e-12)
    factor = D.cholesky(a @ a.mT)
    b = lift(backend, device, B, grad=False)
    want = np.linalg.solve(WELL[0] @ WELL[0].T, B)
    np.testing.assert_allclose(b.cholesky_solve(factor).numpy(), want, atol=1e-10)
    np.testing.assert_allclose(tl.cholesky_solve(b, factor).numpy(), want, atol=1e-10)


# ---------------------------------------------------------------------------------------- bad input
def test_bad_input_names_the_function_and_the_argument():
    a = tl.tensor(WELL[0])
    with pytest.raises(TypeError, match="cholesky: A has dtype"):
        D.cholesky(tl.tensor([[2, 1], [1, 2]]))
    with pytest.raises(TypeError, match="solve: A and B must have one dtype"):
        D.solve(a, tl.tensor(B).astype(tl.float32))
    with pytest.raises(TypeError, match="inv: A must be a Tensor"):
        D.inv(WELL[0])
    with pytest.raises(ValueError, match="det: A must be a square"):
        D.det(tl.tensor(TALL))
    with pytest.raises(ValueError, match="svd: A must be a matrix or a batch of matrices"):
        D.svd(tl.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="solve: the batch dims"):
        D.solve(tl.tensor(WELL), tl.tensor(np.ones((3, N, 1))))
    with pytest.raises(ValueError, match="eigh: UPLO must be 'L' or 'U'"):
        D.eigh(a, UPLO="l")
    with pytest.raises(ValueError, match="qr: mode must be"):
        D.qr(a, mode="raw")
    with pytest.raises(TypeError, match="pinv: atol must be a number"):
        D.pinv(a, atol="big")


def test_a_library_error_is_raised_again_with_the_function_and_the_batch_element(backend, device):
    if backend.lazy:
        pytest.skip("on Dask the error appears when the result is computed (test_dask_stays_lazy)")
    batch = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 1.0]]])
    with pytest.raises(LinAlgError, match=r"cholesky: the matrix is not positive-definite, at batch element \(1,\)"):
        D.cholesky(lift(backend, device, batch, grad=False))
    with pytest.raises(ValueError, match="solve: the matrix is singular"):
        D.solve(lift(backend, device, [[1.0, 2.0], [2.0, 4.0]], grad=False), lift(backend, device, [1.0, 1.0]))


def test_extra_columns_of_complete_factors_get_no_gradient():
    """qr(mode="complete") of a tall matrix and svd(full_matrices=True): the extra columns of Q (U) are
    any basis of the complement; a loss of the others has the reduced factorisation's gradient."""
    for reduced, complete in ((lambda a: D.qr(a).Q, lambda a: D.qr(a, mode="complete").Q[..., :, :3]),
                              (lambda a: D.svd(a, full_matrices=False).U ** 2,
                               lambda a: D.svd(a).U[..., :, :3] ** 2)):
        a, b = tl.tensor(TALL, requires_grad=True), tl.tensor(TALL, requires_grad=True)
        (reduced(a) * tl.tensor(TALL)).sum().backward()
        (complete(b) * tl.tensor(TALL)).sum().backward()
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), atol=1e-12)


# --------------------------------------------------------------------------------------- Dask, compile
def test_dask_stays_lazy():
    """Forward and backward of every function build graphs only: a scheduler that raises is never
    called until the results are computed, and then they agree with NumPy's."""
    dask = pytest.importorskip("dask", reason="Dask is not installed")
    try:
        be = tl.backends.get("dask")
    except tl.BackendUnavailableError as exc:
        pytest.skip(str(exc))

    def refuse(*args, **kwargs):
        raise AssertionError("a Dask array was computed")

    fns = [lambda a: D.cholesky(hpd(a)).sum(), lambda a: D.solve(a + eye_like(a, 4.0), a[..., 0]).sum(),
           lambda a: D.slogdet(a + eye_like(a, 4.0)).logabsdet.sum(), lambda a: D.eigh(sym(a)).eigenvalues.sum(),
           lambda a: (D.svd(a).S ** 2).sum(), lambda a: D.qr(a).R.sum(), lambda a: D.pinv(a).sum(),
           lambda a: D.det(a).sum(), lambda a: D.inv(a + eye_like(a, 4.0)).sum(),
           lambda a: D.solve_triangular(a + eye_like(a, 4.0), a, upper=True).sum()]
    for host in (SPECTRUM, np.stack([SPECTRUM, SPECTRUM.T])):  # one matrix (dask.array.linalg) and a batch
        for fn in fns:
            with dask.config.set(scheduler=refuse):
                a = tl.tensor(be.asarray(host), requires_grad=True)
                out = fn(a)
                out.backward()
                grad = a.grad
            ref = tl.tensor(host, requires_grad=True)
            fn(ref).backward()
            np.testing.assert_allclose(out.numpy(), fn(tl.tensor(host)).numpy(), rtol=1e-10)
            np.testing.assert_allclose(grad.numpy(), ref.grad.numpy(), rtol=1e-8, atol=1e-10)
    with dask.config.set(scheduler=refuse):
        bad = D.cholesky(tl.tensor(be.asarray(np.stack([np.eye(2), [[1.0, 2.0], [2.0, 1.0]]]))))
    with pytest.raises(ValueError, match="cholesky: the matrix is not positive-definite"):
        bad.numpy()


def test_compile_replays_the_decompositions():
    shift = tl.tensor(np.eye(N) * N)

    def f(a, b):
        s = a @ a.mT + shift
        w, v = D.eigh(s)
        return (D.cholesky_solve(b.reshape(N, 1), D.cholesky(s)).sum() + D.slogdet(s).logabsdet + D.logdet(s)
                + (w * w).sum() + (v * v)[0].sum() + D.svd(a).S.sum() + (D.qr(a).R ** 2).sum() + D.inv(s).sum()
                + D.det(s) + D.pinv(a).sum() + D.solve(s, b).sum())

    compiled = tl.compile(f)
    for k in range(2):
        host = RNG.standard_normal((N, N))
        a, b = tl.tensor(host, requires_grad=True), tl.tensor(B[:, 0] + k, requires_grad=True)
        a2, b2 = tl.tensor(host, requires_grad=True), tl.tensor(B[:, 0] + k, requires_grad=True)
        out, want = compiled(a, b), f(a2, b2)
        out.backward()
        want.backward()
        np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-12)
        np.testing.assert_allclose(a.grad.numpy(), a2.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(b.grad.numpy(), b2.grad.numpy(), rtol=1e-10, atol=1e-12)
