"""Which library function each backend's linear algebra runs (raw arrays only).

Each function takes a Backend and its library's arrays and returns arrays:
NumPy through `numpy.linalg` (SciPy's `solve_triangular`), CuPy through
`cupy.linalg` / `cupyx.scipy.linalg` (imported lazily), torch through
`torch.linalg`, JAX through `jax.numpy.linalg` / `jax.scipy.linalg`,
array_api_strict (and any other array-API library) through its `linalg`
extension, and Dask through `dask.array.linalg` for one 2-d matrix where it
has the function (but cholesky, solve and inv, whose errors are NumPy's
then), otherwise a `map_blocks` over whole matrices (the last two dims made
one chunk) that calls NumPy's: nothing here computes a Dask array.

The callers (torchlight/ops/decompositions.py) have checked shapes and
dtypes and broadcast the batch dims of A and B; a right-hand side B is
always a batch of matrices (..., n, k) here.

A library's own error for a singular or non-positive-definite matrix is
raised again as `LinAlgError` (a ValueError, and NumPy's LinAlgError),
naming the function and, where cheap (on the error path only), the first
failing batch element. JAX raises no error there (it returns NaN or inf):
its results are checked for that, which costs one host read of a flag per
call. On Dask the error appears only when the result is computed.

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> from torchlight.backends import linalg
    >>> be = tl.backends.get("numpy")
    >>> linalg.cholesky(be, np.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    >>> try:
    ...     linalg.cholesky(be, np.array([[1.0, 2.0], [2.0, 1.0]]))
    ... except ValueError as exc:
    ...     print(exc)
    cholesky: the matrix is not positive-definite (Matrix is not positive definite)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from torchlight.backends.errors import BackendError

_npl: Any = np.linalg  # (NumPy's linalg, called with modes and UPLO given as plain strings)

__all__ = ["LinAlgError", "cholesky", "det", "eigh", "eigvalsh", "inv", "qr", "slogdet", "solve",
           "solve_triangular", "svd", "svdvals"]


class LinAlgError(np.linalg.LinAlgError):
    """A singular or non-positive-definite matrix (a ValueError, as NumPy's LinAlgError is),
    raised again with the torchlight function's name and, where known, the batch element."""


_KINDS = {"numpy": "numpy", "cupy": "cupy", "torch": "torch", "jax": "jax", "dask": "dask",
          "array_api_strict": "strict"}
_LIBRARIES = {"numpy": "numpy", "cupy": "cupy", "torch": "torch", "jax.numpy": "jax", "dask.array": "dask",
              "array_api_strict": "strict"}

_WHAT = {"cholesky": "the matrix is not positive-definite", "solve": "the matrix is singular",
         "inv": "the matrix is singular", "solve_triangular": "the matrix is singular (a zero on its diagonal)"}


def kind(backend: Any) -> str:
    """The library routing a backend takes: numpy, cupy, torch, jax, dask, strict or generic."""
    found = _KINDS.get(backend.name)
    if found is None:
        found = _LIBRARIES.get(getattr(backend, "library", ""), "generic")
    return found


def _module(backend: Any) -> Any:
    """The library module itself (torch, jax.numpy, dask.array), not its array-API wrapper."""
    return getattr(backend, "_module", None) or backend.xp


def _linalg(backend: Any, fn: str) -> Any:
    """The namespace's `linalg.<fn>`, or a BackendError naming the function and the backend."""
    found = getattr(getattr(backend.xp, "linalg", None), fn, None)
    if found is None:
        raise BackendError(f"{fn}: the {backend.name!r} backend's library has no linalg.{fn} "
                           "(its namespace lacks the array API's linalg extension or this function)")
    return found


def _raise(fn: str, exc: BaseException, batch: str = "") -> None:
    what = _WHAT.get(fn, "the matrix is singular or the factorization failed")
    raise LinAlgError(f"{fn}: {what}{batch} ({exc})") from None


def _failing_element(call: Callable[..., Any], arrays: tuple) -> str:
    """', at batch element (i, j)' for the first matrix of the batch that `call` fails on (the arrays
    share one batch shape; the error path only: one call per matrix until one fails), '' for one matrix."""
    batch = tuple(arrays[0].shape[:-2])
    if not batch:
        return ""
    for index in np.ndindex(*batch):
        try:
            call(*(x[index + (Ellipsis,)] for x in arrays))
        except Exception:  # noqa: BLE001 (whatever the library raises for that matrix)
            return f", at batch element {index}"
    return ""


def _guarded(fn: str, call: Callable[..., Any], *arrays: Any) -> Any:
    """`call(*arrays)` with NumPy's LinAlgError (array_api_strict's and CuPy's are NumPy's) named for `fn`."""
    try:
        return call(*arrays)
    except np.linalg.LinAlgError as exc:
        _raise(fn, exc, _failing_element(call, arrays))


def _torch_guarded(fn: str, call: Callable[..., Any], *arrays: Any) -> Any:
    import torch

    try:
        return call(*arrays)
    except torch.linalg.LinAlgError as exc:  # (its message names the batch element)
        _raise(fn, exc)


def _jax_checked(fn: str, out: Any) -> Any:
    """JAX's result, or LinAlgError where it holds NaN or inf (JAX's answer for a singular or
    non-positive-definite matrix; it raises nothing itself)."""
    import jax.numpy as jnp

    if not bool(jnp.all(jnp.isfinite(out))):
        bad = jnp.reshape(~jnp.all(jnp.isfinite(out), axis=(-2, -1)), (-1,))
        where = ""
        if out.ndim > 2:
            index = np.unravel_index(int(jnp.argmax(bad)), out.shape[:-2])
            where = f", at batch element {tuple(int(i) for i in index)}"
        _raise(fn, ValueError("JAX's result holds NaN or inf; the input may hold them too"), where)
    return out


# ------------------------------------------------------------------ Dask: whole matrices per block
def _dask_matrices(a: Any, batch: tuple | None = None) -> Any:
    """`a` (a Dask array of matrices) broadcast to `batch` and rechunked so that each block holds whole
    matrices (the last two dims one chunk)."""
    import dask.array as da

    if batch is not None and tuple(a.shape[:-2]) != tuple(batch):
        a = da.broadcast_to(a, tuple(batch) + tuple(a.shape[-2:]))
    return a.rechunk({a.ndim - 2: -1, a.ndim - 1: -1})


def _dask_map(numpy_fn: Callable[..., Any], arrays: list[Any], tails: list[tuple[int, ...]],
              dtypes: list[Any]) -> Any:
    """`numpy_fn` (NumPy arrays of whole matrices -> one array or a tuple) over the blocks of the Dask
    `arrays` (one batch shape): one array of shape batch + tails[0], or a tuple of them, each lazy.

    Several results are packed into one block (flattened, in the dtype of the first, which the
    callers choose to hold them all) and sliced out again lazily."""
    import dask.array as da

    first = arrays[0]
    batch = tuple(first.shape[:-2])
    arrays = [_dask_matrices(x, batch) for x in arrays]
    arrays = [arrays[0]] + [x.rechunk(arrays[0].chunks[:-2] + x.chunks[-2:]) for x in arrays[1:]]
    sizes = [math.prod(t) for t in tails]
    dtype = dtypes[0]
    nd = len(batch)

    def block(*blocks: np.ndarray) -> np.ndarray:
        out = numpy_fn(*blocks)
        outs = out if isinstance(out, tuple) else (out,)
        here = blocks[0].shape[:-2]
        return np.concatenate([np.reshape(np.asarray(o, dtype=dtype), here + (n,)) for o, n in zip(outs, sizes)],
                              axis=-1)

    packed = da.map_blocks(block, *arrays, chunks=arrays[0].chunks[:-2] + ((sum(sizes),),),
                           drop_axis=[nd + 1], dtype=dtype, meta=np.empty((0,) * (nd + 1), dtype=dtype))
    results, start = [], 0
    for tail, n, want in zip(tails, sizes, dtypes):
        piece = packed[..., start:start + n]
        piece = da.reshape(piece, batch + tuple(tail)) if tuple(tail) != (n,) else piece
        if want != dtype:
            piece = piece.real.astype(want) if np.issubdtype(dtype, np.complexfloating) else piece.astype(want)
        results.append(piece)
        start += n
    return results[0] if len(results) == 1 else tuple(results)


def _real_of(dtype: Any) -> Any:
    return np.empty((0,), dtype=dtype).real.dtype


def _two_d_single(a: Any) -> bool:
    """Whether Dask's own dask.array.linalg takes `a`: one 2-d matrix, real (its complex meta arrays
    are cast to real, with NumPy's ComplexWarning; complex ones take the whole-matrix map)."""
    return a.ndim == 2 and not np.issubdtype(a.dtype, np.complexfloating)


# ----------------------------------------------------------------------------------------- cholesky
def cholesky(backend: Any, a: Any, upper: bool = False) -> Any:
    """The Cholesky factor of each matrix (lower, or upper with `upper`), read from its lower triangle
    (the upper one with `upper`, as torch.linalg reads it)."""
    k = kind(backend)
    if k == "numpy":
        return _guarded("cholesky", lambda m: _npl.cholesky(m, upper=upper), a)
    if k == "torch":
        import torch

        return _torch_guarded("cholesky", lambda m: torch.linalg.cholesky(m, upper=upper), a)
    if k == "jax":
        import jax.numpy as jnp

        return _jax_checked("cholesky", jnp.linalg.cholesky(a, upper=upper, symmetrize_input=False))
    if k == "cupy":
        import cupy

        if upper:
            a = cupy.conj(cupy.swapaxes(a, -1, -2))
        factor = _guarded("cholesky", cupy.linalg.cholesky, a)
        return cupy.conj(cupy.swapaxes(factor, -1, -2)) if upper else factor
    if k == "dask":  # (NumPy's on whole-matrix chunks, not dask.array.linalg's: NumPy's check and message)
        return _dask_map(lambda m: cholesky_numpy(m, upper), [a], [tuple(a.shape[-2:])], [a.dtype])
    fn = _linalg(backend, "cholesky")
    return _guarded("cholesky", lambda m: fn(m, upper=upper), a)


def cholesky_numpy(a: np.ndarray, upper: bool = False) -> np.ndarray:
    return _guarded("cholesky", lambda m: _npl.cholesky(m, upper=upper), a)


# -------------------------------------------------------------------------------------------- solve
def solve(backend: Any, a: Any, b: Any) -> Any:
    """X with A X = B, for A (..., n, n) and B (..., n, k) of one batch shape."""
    k = kind(backend)
    if k == "numpy":
        return _guarded("solve", _npl.solve, a, b)
    if k == "torch":
        import torch

        return _torch_guarded("solve", torch.linalg.solve, a, b)
    if k == "jax":
        import jax.numpy as jnp

        return _jax_checked("solve", jnp.linalg.solve(a, b))
    if k == "cupy":
        import cupy

        return _guarded("solve", cupy.linalg.solve, a, b)
    if k == "dask":  # (as cholesky's)
        return _dask_map(lambda m, r: _guarded("solve", _npl.solve, m, r), [a, b],
                         [tuple(b.shape[-2:])], [b.dtype])
    fn = _linalg(backend, "solve")
    return _guarded("solve", fn, a, b)


def inv(backend: Any, a: Any) -> Any:
    """The inverse of each matrix."""
    k = kind(backend)
    if k == "numpy":
        return _guarded("inv", _npl.inv, a)
    if k == "torch":
        import torch

        return _torch_guarded("inv", torch.linalg.inv, a)
    if k == "jax":
        import jax.numpy as jnp

        return _jax_checked("inv", jnp.linalg.inv(a))
    if k == "cupy":
        import cupy

        return _guarded("inv", cupy.linalg.inv, a)
    if k == "dask":  # (as cholesky's)
        return _dask_map(lambda m: _guarded("inv", _npl.inv, m), [a], [tuple(a.shape[-2:])], [a.dtype])
    return _guarded("inv", _linalg(backend, "inv"), a)


# --------------------------------------------------------------------------------- solve_triangular
def _triangle(xp: Any, a: Any, upper: bool, unitriangular: bool) -> Any:
    """The triangle of `a` that a triangular solve reads (its diagonal ones with `unitriangular`)."""
    tri = xp.triu(a) if upper else xp.tril(a)
    if unitriangular:
        n = a.shape[-1]
        eye = xp.eye(n, dtype=a.dtype, device=getattr(a, "device", None))
        tri = tri - tri * eye + eye
    return tri


def _swap(xp: Any, x: Any) -> Any:
    return xp.permute_dims(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def solve_triangular(backend: Any, a: Any, b: Any, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Any:
    """X with A X = B (`left`) or X A = B, A triangular (only its `upper` or lower triangle is read,
    and not its diagonal with `unitriangular`), for A (..., n, n) and B of one batch shape."""
    k = kind(backend)
    if not left:  # X A = B  <=>  A^T X^T = B^T, the other triangle
        xp = backend.xp if k != "dask" else _module(backend)
        if k == "dask":
            return solve_triangular(backend, a.swapaxes(-1, -2), b.swapaxes(-1, -2), not upper, True,
                                    unitriangular).swapaxes(-1, -2)
        return _swap(xp, solve_triangular(backend, _swap(xp, a), _swap(xp, b), not upper, True, unitriangular))
    if k == "numpy":
        import scipy.linalg

        return _guarded("solve_triangular", lambda m, r: scipy.linalg.solve_triangular(
            m, r, lower=not upper, unit_diagonal=unitriangular, check_finite=False), a, b)
    if k == "torch":
        import torch

        return _torch_guarded("solve_triangular", lambda m, r: torch.linalg.solve_triangular(
            m, r, upper=upper, left=True, unitriangular=unitriangular), a, b)
    if k == "jax":
        import jax.scipy.linalg

        return _jax_checked("solve_triangular", jax.scipy.linalg.solve_triangular(
            a, b, lower=not upper, unit_diagonal=unitriangular))
    if k == "cupy":
        import cupyx.scipy.linalg

        if a.ndim == 2:
            return _guarded("solve_triangular", lambda m, r: cupyx.scipy.linalg.solve_triangular(
                m, r, lower=not upper, unit_diagonal=unitriangular), a, b)
        return _guarded("solve_triangular", backend.xp.linalg.solve, _triangle(backend.xp, a, upper, unitriangular), b)
    if k == "dask":
        import dask.array as da

        if _two_d_single(a) and not unitriangular:
            return da.linalg.solve_triangular(_dask_matrices(a), _dask_matrices(b), lower=not upper)
        return _dask_map(lambda m, r: solve_triangular_numpy(m, r, upper, unitriangular), [a, b],
                         [tuple(b.shape[-2:])], [b.dtype])
    # array_api_strict and other array-API libraries: the standard has no triangular solve, so the
    # triangle is solved as a general matrix (correct; it does not exploit the structure)
    fn = _linalg(backend, "solve")
    return _guarded("solve_triangular", fn, _triangle(backend.xp, a, upper, unitriangular), b)


def solve_triangular_numpy(a: np.ndarray, b: np.ndarray, upper: bool, unitriangular: bool) -> np.ndarray:
    import scipy.linalg

    return _guarded("solve_triangular", lambda m, r: scipy.linalg.solve_triangular(
        m, r, lower=not upper, unit_diagonal=unitriangular, check_finite=False), a, b)


# ------------------------------------------------------------------------------------ det, slogdet
def det(backend: Any, a: Any) -> Any:
    """The determinant of each matrix."""
    k = kind(backend)
    if k == "torch":
        import torch

        return torch.linalg.det(a)
    if k == "jax":
        import jax.numpy as jnp

        return jnp.linalg.det(a)
    if k == "dask":
        return _dask_map(_npl.det, [a], [()], [a.dtype])
    if k in ("numpy", "cupy"):
        return _module(backend).linalg.det(a) if k == "cupy" else _npl.det(a)
    return _linalg(backend, "det")(a)


def slogdet(backend: Any, a: Any) -> tuple[Any, Any]:
    """(sign, log |det|) of each matrix: the sign 0 and log|det| -inf for a singular one."""
    k = kind(backend)
    if k == "torch":
        import torch

        return tuple(torch.linalg.slogdet(a))  # type: ignore[return-value]
    if k == "jax":
        import jax.numpy as jnp

        return tuple(jnp.linalg.slogdet(a))  # type: ignore[return-value]
    if k == "dask":
        return _dask_map(lambda m: tuple(_npl.slogdet(m)), [a], [(), ()], [a.dtype, _real_of(a.dtype)])
    if k == "numpy":
        return tuple(_npl.slogdet(a))  # type: ignore[return-value]
    if k == "cupy":
        return tuple(_module(backend).linalg.slogdet(a))  # type: ignore[return-value]
    return tuple(_linalg(backend, "slogdet")(a))  # type: ignore[return-value]


# ----------------------------------------------------------------------------------------- eigh
def _from_triangle(xp: Any, a: Any, uplo: str) -> Any:
    """The Hermitian matrix that the `uplo` triangle of `a` stands for (for a library that reads the
    lower triangle only)."""
    tri = xp.triu(a, k=1) if uplo == "U" else xp.tril(a, k=-1)
    diag = a - xp.triu(a, k=1) - xp.tril(a, k=-1)
    if xp.isdtype(a.dtype, "complex floating"):
        diag = xp.real(diag)
        diag = xp.astype(diag, a.dtype)
    return tri + xp.conj(_swap(xp, tri)) + diag


def _check_uplo(fn: str, uplo: Any) -> None:
    if not (isinstance(uplo, str) and uplo in ("L", "U")):
        raise ValueError(f"{fn}: UPLO must be 'L' or 'U', not {uplo!r}")


def eigh(backend: Any, a: Any, uplo: str = "L") -> tuple[Any, Any]:
    """(eigenvalues ascending, eigenvectors as columns) of each Hermitian matrix, read from its `uplo`
    triangle."""
    _check_uplo("eigh", uplo)
    k = kind(backend)
    if k == "numpy":
        return tuple(_npl.eigh(a, UPLO=uplo))  # type: ignore[return-value]
    if k == "torch":
        import torch

        return tuple(torch.linalg.eigh(a, UPLO=uplo))  # type: ignore[return-value]
    if k == "jax":
        import jax.numpy as jnp

        return tuple(jnp.linalg.eigh(a, UPLO=uplo, symmetrize_input=False))  # type: ignore[return-value]
    if k == "cupy":
        return tuple(_module(backend).linalg.eigh(a, UPLO=uplo))  # type: ignore[return-value]
    if k == "dask":
        n = a.shape[-1]
        return _dask_map(lambda m: tuple(_npl.eigh(m, UPLO=uplo))[::-1], [a], [(n, n), (n,)],
                         [a.dtype, _real_of(a.dtype)])[::-1]
    fn = _linalg(backend, "eigh")
    return tuple(fn(_from_triangle(backend.xp, a, uplo) if uplo == "U" else a))  # type: ignore[return-value]


def eigvalsh(backend: Any, a: Any, uplo: str = "L") -> Any:
    """The eigenvalues (ascending) of each Hermitian matrix, read from its `uplo` triangle."""
    _check_uplo("eigvalsh", uplo)
    k = kind(backend)
    if k == "numpy":
        return _npl.eigvalsh(a, UPLO=uplo)
    if k == "torch":
        import torch

        return torch.linalg.eigvalsh(a, UPLO=uplo)
    if k == "jax":
        import jax.numpy as jnp

        return jnp.linalg.eigvalsh(a, UPLO=uplo, symmetrize_input=False)
    if k == "cupy":
        return _module(backend).linalg.eigvalsh(a, UPLO=uplo)
    if k == "dask":
        return _dask_map(lambda m: _npl.eigvalsh(m, UPLO=uplo), [a], [(a.shape[-1],)], [_real_of(a.dtype)])
    fn = _linalg(backend, "eigvalsh")
    return fn(_from_triangle(backend.xp, a, uplo) if uplo == "U" else a)


# ------------------------------------------------------------------------------------------ svd
def svd(backend: Any, a: Any, full_matrices: bool = True) -> tuple[Any, Any, Any]:
    """(U, S descending, Vh) of each matrix."""
    k = kind(backend)
    if k == "numpy":
        return tuple(_npl.svd(a, full_matrices=full_matrices))  # type: ignore[return-value]
    if k == "torch":
        import torch

        return tuple(torch.linalg.svd(a, full_matrices=full_matrices))  # type: ignore[return-value]
    if k == "jax":
        import jax.numpy as jnp

        return tuple(jnp.linalg.svd(a, full_matrices=full_matrices))  # type: ignore[return-value]
    if k == "cupy":
        return tuple(_module(backend).linalg.svd(a, full_matrices=full_matrices))  # type: ignore[return-value]
    if k == "dask":
        import dask.array as da

        m, n = a.shape[-2:]
        if _two_d_single(a) and (not full_matrices or m == n):
            return tuple(da.linalg.svd(_dask_matrices(a)))  # type: ignore[return-value]
        r = min(m, n)
        mu, nv = (m, n) if full_matrices else (r, r)
        return _dask_map(lambda x: tuple(_npl.svd(x, full_matrices=full_matrices)), [a],
                         [(m, mu), (r,), (nv, n)], [a.dtype, _real_of(a.dtype), a.dtype])
    return tuple(_linalg(backend, "svd")(a, full_matrices=full_matrices))  # type: ignore[return-value]


def svdvals(backend: Any, a: Any) -> Any:
    """The singular values (descending) of each matrix."""
    k = kind(backend)
    if k == "numpy":
        return _npl.svd(a, compute_uv=False)
    if k == "torch":
        import torch

        return torch.linalg.svdvals(a)
    if k == "jax":
        import jax.numpy as jnp

        return jnp.linalg.svd(a, compute_uv=False)
    if k == "cupy":
        return _module(backend).linalg.svd(a, compute_uv=False)
    if k == "dask":
        return _dask_map(lambda x: _npl.svd(x, compute_uv=False), [a], [(min(a.shape[-2:]),)],
                         [_real_of(a.dtype)])
    return _linalg(backend, "svdvals")(a)


# ------------------------------------------------------------------------------------------- qr
def qr(backend: Any, a: Any, mode: str = "reduced") -> tuple[Any, Any]:
    """(Q, R) of each matrix, mode "reduced" or "complete" (the callers take R of "reduced" for "r")."""
    k = kind(backend)
    if k == "numpy":
        return tuple(_npl.qr(a, mode=mode))  # type: ignore[return-value]
    if k == "torch":
        import torch

        return tuple(torch.linalg.qr(a, mode=mode))  # type: ignore[return-value]
    if k == "jax":
        import jax.numpy as jnp

        return tuple(jnp.linalg.qr(a, mode=mode))  # type: ignore[return-value]
    if k == "cupy":
        return tuple(_module(backend).linalg.qr(a, mode=mode))  # type: ignore[return-value]
    m, n = a.shape[-2:]
    if k == "dask":
        import dask.array as da

        if _two_d_single(a) and (mode == "reduced" or m <= n):
            return tuple(da.linalg.qr(_dask_matrices(a)))  # type: ignore[return-value]
        r = m if mode == "complete" else min(m, n)
        return _dask_map(lambda x: tuple(_npl.qr(x, mode=mode)), [a], [(m, r), (r, n)], [a.dtype, a.dtype])
    return tuple(_linalg(backend, "qr")(a, mode=mode))  # type: ignore[return-value]
