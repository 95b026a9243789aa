"""The decompositions entries (torchlight/ops/decompositions.py): cholesky, solve, solve_triangular,
cholesky_solve, inv, det, slogdet, logdet, eigh, eigvalsh, svd, svdvals, qr, pinv, matrix_rank.

The domains keep every input away from singular matrices by construction:
Hermitian positive-definite ones are made inside the call as A A^H of a
well-conditioned A (so a complex twin is one too), well-conditioned ones are (n + 1) I plus small
noise, Hermitian ones with a well-separated spectrum are diag(1, 3, 5, ...)
plus small noise, made Hermitian in the call ((A + A^H) / 2: the gradient of
a function of a Hermitian matrix is Hermitian, as PyTorch's), and matrices
with distinct, non-zero singular values are a rectangular diag(4, 2.5, 1, ...)
plus small noise. Eigenvectors and singular vectors enter only through
functions invariant to their sign (phase): |V|^2 elementwise, U diag(S) Vh.

Example:
    >>> from conformance.ops.decompositions import OPS
    >>> [op.name for op in OPS][:4]
    ['cholesky', 'solve', 'solve_triangular', 'cholesky_solve']
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

import torchlight as tl
from conformance.domains import normal
from conformance.opinfo import Case, OpInfo, Tol
from torchlight.ops import decompositions as D


# ----------------------------------------------------------------------------------- domains
def well_conditioned(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """(n + 1) I + 0.3 * noise: far from singular (its smallest singular value is about n + 1 - 0.6 sqrt(n))."""
    n = shape[-1]
    return (n + 1) * np.eye(n, shape[-2]).T + 0.3 * rng.standard_normal(shape)


def separated_spectrum(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """diag(1, 3, 5, ...) + 0.1 * noise: its Hermitian part has eigenvalues about 2 apart."""
    n = shape[-1]
    return np.diag(1.0 + 2.0 * np.arange(n)) + 0.1 * rng.standard_normal(shape)


def separated_singular_values(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """A rectangular diag(4, 2.5, 1, ...) + 0.1 * noise: distinct singular values, none near 0."""
    m, n = shape[-2:]
    base = np.zeros((m, n))
    k = min(m, n)
    base[np.arange(k), np.arange(k)] = 4.0 - 1.5 * np.arange(k)
    return base + 0.1 * rng.standard_normal(shape)


def low_rank(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """A matrix of rank 2 (the product of m x 2 and 2 x n)."""
    *batch, m, n = shape
    return rng.standard_normal((*batch, m, 2)) @ rng.standard_normal((*batch, 2, n))


def fixed(values: Any) -> Any:
    array = np.asarray(values, dtype=np.float64)

    def make(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return np.broadcast_to(array, shape).copy()

    make.__name__ = f"fixed({array.tolist()})"
    return make


SINGULAR = fixed([[1.0, 2.0], [2.0, 4.0]])
INDEFINITE = fixed([[1.0, 2.0], [2.0, 1.0]])
DASK_LATE = {"dask": "on Dask the library's error appears when the result is computed, not at the call"}


# ------------------------------------------------------------------ what the calls are made of
def _hpd(a: Any) -> Any:
    """A A^H of a well-conditioned A: Hermitian positive-definite (its smallest eigenvalue is A's smallest
    singular value squared), for a Tensor or a NumPy array; no constant made in the call (tl.compile)."""
    if isinstance(a, np.ndarray):
        return a @ np.conj(np.swapaxes(a, -1, -2))
    return a @ a.conj().mT


def _herm(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return (a + np.conj(np.swapaxes(a, -1, -2))) * 0.5
    return (a + a.conj().mT) * 0.5


def _flat(*parts: Any, vectors: int = 1) -> Any:
    """The parts (the first `vectors` of them batches of vectors, the rest of matrices) flattened and
    joined: one Tensor (or array) for the harness to compare."""
    if isinstance(parts[0], np.ndarray):
        return np.concatenate([p if k < vectors else np.reshape(p, p.shape[:-2] + (-1,))
                               for k, p in enumerate(parts)], axis=-1)
    return tl.cat([p if k < vectors else p.reshape(*p.shape[:-2], -1) for k, p in enumerate(parts)], -1)


def _abs2(v: Any) -> Any:
    return (v * np.conj(v)).real if isinstance(v, np.ndarray) else (v * v.conj()).real


def _parts(x: Any) -> Any:
    """A real array as it is; a complex one as its real and imaginary parts side by side."""
    if isinstance(x, np.ndarray):
        return np.concatenate([x.real, x.imag], axis=-1) if np.iscomplexobj(x) else x
    return tl.cat([x.real, x.imag], -1) if x.backend.is_complex(x.dtype) else x


def _integer(a: Any) -> Any:
    return a.astype(tl.int64)


# ------------------------------------------------------------------------------------- cholesky
def _cholesky(a: Any, upper: bool = False, raw: bool = False, integer: bool = False) -> Any:
    if integer:
        return D.cholesky(_integer(a))
    return D.cholesky(a if raw else _hpd(a), upper=upper)


def _cholesky_ref(a: np.ndarray, upper: bool = False, raw: bool = False, integer: bool = False) -> np.ndarray:
    return np.linalg.cholesky(a if raw else _hpd(a), upper=upper)


CHOLESKY_CASES = (
    Case("3x3", ((3, 3),)),
    Case("batched", ((2, 3, 3),)),
    Case("upper", ((3, 3),), kwargs={"upper": True}),
    Case("1x1", ((1, 1),)),
    Case("not_positive_definite", ((2, 2),), domain=INDEFINITE, kwargs={"raw": True}, raises=ValueError,
         match="cholesky: the matrix is not positive-definite", skips=DASK_LATE),
    Case("batch_index", ((2, 2, 2),), domain=INDEFINITE, kwargs={"raw": True}, raises=ValueError,
         match="batch element", skips={**DASK_LATE, "torch": "torch's message names the batch element its way",
                                       "jax": "JAX's NaN result is checked as a whole"}),
    Case("not_square", ((2, 3),), kwargs={"raw": True}, raises=ValueError, match="cholesky: A must be a square"),
    Case("one_dim", ((3,),), domain=normal, kwargs={"raw": True}, raises=ValueError, match="2 or more dims"),
    Case("integer", ((2, 2),), kwargs={"integer": True}, raises=TypeError, match="cholesky: A has dtype"),
)


# ---------------------------------------------------------------------------------------- solve
def _solve_ref(a: np.ndarray, b: np.ndarray, left: bool = True) -> np.ndarray:
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if not left:
        a, b = np.swapaxes(a, -1, -2), (b if vector else np.swapaxes(b, -1, -2))
    if vector:
        return np.linalg.solve(a, b[..., None])[..., 0]
    x = np.linalg.solve(a, b)
    return x if left else np.swapaxes(x, -1, -2)


SOLVE_CASES = (
    Case("matrix", ((3, 3), (3, 2))),
    Case("vector", ((3, 3), (3,))),
    Case("batched_vector", ((2, 3, 3), (2, 3)), note="B has A's shape but its last: a batch of vectors"),
    Case("broadcast_batch", ((2, 1, 3, 3), (4, 3, 2))),
    Case("right", ((3, 3), (2, 3)), kwargs={"left": False}),
    Case("one_side_grad", ((3, 3), (3, 2)), grad=(False, True)),
    Case("singular", ((2, 2), (2, 1)), domain=(SINGULAR, well_conditioned), raises=ValueError,
         match="solve: the matrix is singular", skips=DASK_LATE),
    Case("rows_mismatch", ((3, 3), (2, 2)), raises=ValueError, match="solve: A (3, 3) and B (2, 2)"),
    Case("batch_mismatch", ((2, 3, 3), (4, 3, 1)), raises=ValueError, match="solve: the batch dims"),
    Case("not_square", ((2, 3), (2, 1)), raises=ValueError, match="solve: A must be a square"),
)


# ----------------------------------------------------------------------------- solve_triangular
def _solve_triangular(a: Any, b: Any, upper: bool = False, left: bool = True, unitriangular: bool = False) -> Any:
    return D.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular)


def _solve_triangular_ref(a: np.ndarray, b: np.ndarray, upper: bool = False, left: bool = True,
                          unitriangular: bool = False) -> np.ndarray:
    if left:
        return scipy.linalg.solve_triangular(a, b, lower=not upper, unit_diagonal=unitriangular)
    x = scipy.linalg.solve_triangular(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), lower=upper,
                                      unit_diagonal=unitriangular)
    return np.swapaxes(x, -1, -2)


TRIANGULAR_CASES = (
    Case("lower", ((3, 3), (3, 2))),
    Case("upper", ((3, 3), (3, 2)), kwargs={"upper": True}),
    Case("batched", ((2, 3, 3), (2, 3, 1))),
    Case("right", ((3, 3), (2, 3)), kwargs={"left": False}),
    Case("unitriangular", ((3, 3), (3, 2)), kwargs={"unitriangular": True, "upper": True}),
    Case("right_unit_lower", ((3, 3), (2, 3)), kwargs={"left": False, "unitriangular": True}),
    Case("rows_mismatch", ((3, 3), (2, 2)), raises=ValueError, match="solve_triangular: A (3, 3) and B (2, 2)"),
    Case("vector_b", ((3, 3), (3,)), raises=ValueError, match="solve_triangular: B must be a matrix"),
)


# ------------------------------------------------------------------------------- cholesky_solve
def _cholesky_solve(b: Any, factor: Any, upper: bool = False, method: bool = False) -> Any:
    return b.cholesky_solve(factor, upper) if method else D.cholesky_solve(b, factor, upper)


def _cholesky_solve_ref(b: np.ndarray, factor: np.ndarray, upper: bool = False, method: bool = False) -> np.ndarray:
    tri = np.triu(factor) if upper else np.tril(factor)
    a = np.conj(np.swapaxes(tri, -1, -2)) @ tri if upper else tri @ np.conj(np.swapaxes(tri, -1, -2))
    return np.linalg.solve(a, b)


CHOLESKY_SOLVE_CASES = (
    Case("lower", ((3, 2), (3, 3))),
    Case("upper", ((3, 2), (3, 3)), kwargs={"upper": True}),
    Case("batched", ((2, 3, 1), (2, 3, 3))),
    Case("method", ((3, 2), (3, 3)), kwargs={"method": True}, note="B.cholesky_solve(L)"),
    Case("rows_mismatch", ((2, 1), (3, 3)), raises=ValueError, match="cholesky_solve: B (2, 1) and L (3, 3)"),
)


# ---------------------------------------------------------------------------- inv, det, slogdet
SQUARE_CASES = (
    Case("3x3", ((3, 3),)),
    Case("batched", ((2, 3, 3),)),
    Case("1x1", ((1, 1),)),
    Case("not_square", ((2, 3),), raises=ValueError, match="must be a square"),
)

INV_CASES = SQUARE_CASES + (
    Case("singular", ((2, 2),), domain=SINGULAR, raises=ValueError, match="inv: the matrix is singular",
         skips=DASK_LATE),
)


def _slogdet(a: Any) -> Any:
    sign, logabs = a.slogdet()
    return logabs + sign.real


def _slogdet_ref(a: np.ndarray) -> np.ndarray:
    sign, logabs = np.linalg.slogdet(a)
    return logabs + sign.real


def _det_sign(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Well-conditioned with one column negated: a negative determinant (logdet's NaN)."""
    a = well_conditioned(rng, shape)
    a[..., 0] *= -1
    return a


LOGDET_CASES = (
    Case("3x3", ((3, 3),)),
    Case("batched", ((2, 3, 3),)),
    Case("negative_det", ((3, 3),), domain=_det_sign, kwargs={"raw": True}, forward_only=True, ieee=True,
         note="det < 0: NaN, as PyTorch's logdet"),
)


def _logdet(a: Any, raw: bool = False) -> Any:
    return (a if raw else _hpd(a)).logdet()


def _logdet_ref(a: np.ndarray, raw: bool = False) -> np.ndarray:
    sign, logabs = np.linalg.slogdet(a if raw else _hpd(a))
    return np.where(sign > 0, logabs, np.nan)


def _logdet_complex_ref(a: np.ndarray, raw: bool = False) -> np.ndarray:
    sign, logabs = np.linalg.slogdet(a if raw else _hpd(a))
    return logabs + 1j * np.angle(sign) if np.iscomplexobj(a) else np.where(sign > 0, logabs, np.nan)


# ------------------------------------------------------------------------------------ eigh
def _eigh(a: Any, UPLO: str = "L", raw: bool = False) -> Any:
    w, v = D.eigh(a if raw else _herm(a), UPLO=UPLO)
    return _flat(w, _abs2(v))


def _eigh_ref(a: np.ndarray, UPLO: str = "L", raw: bool = False) -> np.ndarray:
    w, v = np.linalg.eigh(a if raw else _herm(a), UPLO=UPLO)
    return _flat(w, _abs2(v))


EIGH_CASES = (
    Case("3x3", ((3, 3),)),
    Case("batched", ((2, 3, 3),)),
    Case("4x4", ((4, 4),)),
    Case("upper_triangle", ((3, 3),), kwargs={"UPLO": "U", "raw": True}, forward_only=True,
         note="only the upper triangle is read"),
    Case("lower_triangle", ((3, 3),), kwargs={"raw": True}, forward_only=True, note="only the lower triangle is read"),
    Case("bad_uplo", ((3, 3),), kwargs={"UPLO": "X"}, raises=ValueError, match="eigh: UPLO must be"),
    Case("not_square", ((2, 3),), domain=normal, kwargs={"raw": True}, raises=ValueError,
         match="eigh: A must be a square"),
)


def _eigvalsh(a: Any, UPLO: str = "L") -> Any:
    return D.eigvalsh(_herm(a), UPLO=UPLO)


def _eigvalsh_ref(a: np.ndarray, UPLO: str = "L") -> np.ndarray:
    return np.linalg.eigvalsh(_herm(a), UPLO=UPLO)


# -------------------------------------------------------------------------------------- svd
def _svd(a: Any, full_matrices: bool = False) -> Any:
    u, s, vh = D.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    return _flat(s, _abs2(u[..., :, :k]), _abs2(vh[..., :k, :]), _parts(u[..., :, :k] @ vh[..., :k, :]))


def _svd_ref(a: np.ndarray, full_matrices: bool = False) -> np.ndarray:
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    return _flat(s, _abs2(u[..., :, :k]), _abs2(vh[..., :k, :]), _parts(u[..., :, :k] @ vh[..., :k, :]))


SVD_CASES = (
    Case("square", ((3, 3),)),
    Case("tall", ((4, 2),)),
    Case("wide", ((2, 4),)),
    Case("batched", ((2, 3, 2),)),
    Case("full_tall", ((4, 2),), kwargs={"full_matrices": True}, note="the extra columns of U get no gradient"),
    Case("full_wide", ((2, 3),), kwargs={"full_matrices": True}),
    Case("one_dim", ((3,),), domain=normal, raises=ValueError, match="svd: A must be a matrix"),
)

SVDVALS_CASES = (
    Case("square", ((3, 3),)),
    Case("tall", ((4, 2),)),
    Case("batched", ((2, 2, 3),)),
)


# --------------------------------------------------------------------------------------- qr
def _qr(a: Any, mode: str = "reduced") -> Any:
    q, r = D.qr(a, mode=mode)
    return r if mode == "r" else _flat(r, q, vectors=0)


def _qr_ref(a: np.ndarray, mode: str = "reduced") -> np.ndarray:
    if mode == "r":
        return np.linalg.qr(a, mode="r")
    q, r = np.linalg.qr(a, mode=mode)
    return _flat(r, q, vectors=0)


QR_CASES = (
    Case("tall", ((4, 3),)),
    Case("square", ((3, 3),)),
    Case("wide", ((2, 4),)),
    Case("batched", ((2, 3, 2),)),
    Case("r", ((4, 3),), kwargs={"mode": "r"}, note="R alone, differentiable here"),
    Case("complete_wide", ((2, 3),), kwargs={"mode": "complete"}),
    Case("complete_tall", ((4, 2),), kwargs={"mode": "complete"}, forward_only=True,
         note="the extra columns of Q (any basis of the complement) get no gradient: not checked here"),
    Case("bad_mode", ((3, 3),), kwargs={"mode": "raw"}, raises=ValueError, match="qr: mode must be"),
)


# ------------------------------------------------------------------------------ pinv, matrix_rank
def _pinv(a: Any, hermitian: bool = False, **tol: Any) -> Any:
    return D.pinv(_herm(a) if hermitian else a, hermitian=hermitian, **tol)


def _pinv_ref(a: np.ndarray, hermitian: bool = False, **tol: Any) -> np.ndarray:
    if "atol" in tol:  # NumPy's pinv takes no atol: the cutoff by hand
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        keep = s > tol["atol"]
        inv_s = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
        return np.conj(np.swapaxes(vh, -1, -2)) * inv_s[..., None, :] @ np.conj(np.swapaxes(u, -1, -2))
    return np.linalg.pinv(_herm(a) if hermitian else a, hermitian=hermitian, **tol)


PINV_CASES = (
    Case("tall", ((4, 3),)),
    Case("wide", ((2, 3),)),
    Case("batched", ((2, 3, 2),)),
    Case("square", ((3, 3),)),
    Case("hermitian", ((3, 3),), domain=separated_spectrum, kwargs={"hermitian": True}),
    Case("rtol", ((3, 3),), kwargs={"rtol": 1e-3}),
    Case("atol_drops_one", ((3, 3),), kwargs={"atol": 1.5}, forward_only=True,
         note="the smallest singular value (about 1) is dropped"),
)


def _matrix_rank_ref(a: np.ndarray, hermitian: bool = False, **tol: Any) -> np.ndarray:
    return np.asarray(np.linalg.matrix_rank(a, hermitian=hermitian, **tol))


F64_ONLY = ("float64",)  # (a rank-2 product rounded to float32 has full rank at float64's tolerance)

RANK_CASES = (
    Case("full", ((3, 3),), domain=well_conditioned),
    Case("rank_2", ((4, 4),), dtypes=F64_ONLY),
    Case("batched", ((2, 4, 3),), dtypes=F64_ONLY),
    Case("hermitian", ((3, 3),), domain=well_conditioned, kwargs={"hermitian": True}),
    Case("rtol", ((4, 4),), kwargs={"rtol": 0.5}, dtypes=F64_ONLY),
)

F32 = {"backward:float32": Tol("a matrix function in float32 (its condition number times eps)", atol=2e-3,
                               rtol=2e-3),
       "forward:float32": Tol("a decomposition in float32", atol=1e-4, rtol=1e-4),
       "agreement:float32": Tol("two libraries' float32 decompositions", atol=1e-4, rtol=1e-4)}

OPS: list[OpInfo] = [
    OpInfo("cholesky", _cholesky, _cholesky_ref, CHOLESKY_CASES, domain=well_conditioned, function="Cholesky",
           complex=True, tol=F32),
    OpInfo("solve", lambda a, b, left=True: D.solve(a, b, left=left), _solve_ref, SOLVE_CASES,
           domain=(well_conditioned, normal), function="Solve", complex=True, tol=F32),
    OpInfo("solve_triangular", _solve_triangular, _solve_triangular_ref, TRIANGULAR_CASES,
           domain=(well_conditioned, normal), function="SolveTriangular", complex=True,
           tol=F32),
    OpInfo("cholesky_solve", _cholesky_solve, _cholesky_solve_ref, CHOLESKY_SOLVE_CASES,
           domain=(normal, well_conditioned), function="SolveTriangular", complex=True,
           tol=F32),
    OpInfo("linalg.inv", D.inv, np.linalg.inv, INV_CASES, domain=well_conditioned, function="Inv", complex=True,
           tol=F32),
    OpInfo("Tensor.inverse", lambda a: a.inverse(), np.linalg.inv, SQUARE_CASES[:2], domain=well_conditioned,
           method="inverse", function="Inv", tol=F32),
    OpInfo("det", lambda a: a.det(), np.linalg.det, SQUARE_CASES, domain=well_conditioned, method="det", function="Det",
           complex=True, tol=F32),
    OpInfo("slogdet", _slogdet, _slogdet_ref, SQUARE_CASES, domain=well_conditioned, method="slogdet",
           function="Slogdet", complex=True, tol=F32),
    OpInfo("logdet", _logdet, _logdet_ref, LOGDET_CASES, domain=well_conditioned, method="logdet",
           function="LogDet", tol=F32),
    OpInfo("logdet_complex", _logdet, _logdet_complex_ref,
           (Case("3x3", ((3, 3),), complex=True), Case("batched", ((2, 3, 3),), complex=True)),
           domain=well_conditioned,
           method="logdet", function="Slogdet", tol=F32),
    OpInfo("eigh", _eigh, _eigh_ref, EIGH_CASES, domain=separated_spectrum, function="Eigh", complex=True, tol=F32),
    OpInfo("eigvalsh", _eigvalsh, _eigvalsh_ref, EIGH_CASES[:2], domain=separated_spectrum, function="Eigh",
           complex=True, tol=F32),
    OpInfo("svd", _svd, _svd_ref, SVD_CASES, domain=separated_singular_values, function="Svd", complex=True, tol=F32),
    OpInfo("svdvals", D.svdvals, lambda a: np.linalg.svd(a, compute_uv=False), SVDVALS_CASES,
           domain=separated_singular_values, function="Svd", complex=True, tol=F32),
    OpInfo("qr", _qr, _qr_ref, QR_CASES, domain=separated_singular_values, function="Qr", complex=True, tol=F32),
    OpInfo("pinv", _pinv, _pinv_ref, PINV_CASES, domain=separated_singular_values, function="Pinv", complex=True,
           tol=F32),
    OpInfo("Tensor.pinverse", lambda a: a.pinverse(), lambda a: np.linalg.pinv(a, rcond=1e-15), PINV_CASES[:2],
           domain=separated_singular_values, method="pinverse", function="Pinv", tol=F32),
    OpInfo("matrix_rank", lambda a, **kw: D.matrix_rank(a, **kw), _matrix_rank_ref, RANK_CASES, domain=low_rank,
           function="Svd", differentiable=False, output_dtype="int"),
]
