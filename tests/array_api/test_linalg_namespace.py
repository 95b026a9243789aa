"""The two linalg faces: `xp.linalg` has the standard's 23 functions with the stubs' signatures, its
named tuples, and the standard's rules where PyTorch's differ (solve's 1-d x2, rtol-only matrix_rank and
pinv with their default, trace's dtype); `tl.linalg` has torch.linalg's names and signatures; calls
through both differentiate to second order on each backend, and bad input names the function."""

from __future__ import annotations

import inspect
import pathlib
import sys

import numpy as np
import pytest

import torchlight as tl
import torchlight.array_api as xp
from torchlight.autograd import gradcheck, gradgradcheck

STUBS = pathlib.Path(__file__).parents[3] / "shared" / "array-api-tests" / "suite" / "array-api" / "src"


def _linalg_stubs():
    """(name, stub) of the 2024.12 linalg extension, from the standard's own stubs beside the repository."""
    if not STUBS.is_dir():
        return []
    sys.path.insert(0, str(STUBS))
    try:
        import importlib

        module = importlib.import_module("array_api_stubs._2024_12.linalg")
        return [(name, getattr(module, name)) for name in module.__all__]
    finally:
        sys.path.remove(str(STUBS))


STUB_FUNCTIONS = _linalg_stubs()


@pytest.mark.skipif(not STUB_FUNCTIONS, reason="the standard's stubs (../shared/array-api-tests) are not here")
@pytest.mark.parametrize("name,stub", STUB_FUNCTIONS, ids=[n for n, _ in STUB_FUNCTIONS])
def test_each_linalg_function_has_the_standards_parameters_and_kinds(name, stub):
    ours = inspect.signature(getattr(xp.linalg, name)).parameters
    theirs = inspect.signature(stub).parameters
    assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()]
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


def test_the_23_functions_are_exported():
    names = {n for n, _ in STUB_FUNCTIONS} if STUB_FUNCTIONS else set(xp.linalg.__all__)
    assert len(names) == 23 and set(xp.linalg.__all__) == names
    assert all(callable(getattr(xp.linalg, n)) for n in names)


#: torch.linalg's signatures as its documentation gives them (its functions are builtins without one),
#: less `out=` and svd's `driver=`
TORCH_SIGNATURES = {
    "cholesky": "(A, *, upper=False)", "cross": "(input, other, *, dim=-1)", "det": "(A)",
    "diagonal": "(A, *, offset=0, dim1=-2, dim2=-1)", "eigh": "(A, UPLO='L')", "eigvalsh": "(A, UPLO='L')",
    "inv": "(A)", "matmul": "(input, other)",
    "matrix_norm": "(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None)", "matrix_power": "(A, n)",
    "matrix_rank": "(A, *, atol=None, rtol=None, hermitian=False)", "multi_dot": "(tensors)",
    "norm": "(A, ord=None, dim=None, keepdim=False, *, dtype=None)",
    "pinv": "(A, *, atol=None, rtol=None, hermitian=False)", "qr": "(A, mode='reduced')", "slogdet": "(A)",
    "solve": "(A, B, *, left=True)", "solve_triangular": "(A, B, *, upper, left=True, unitriangular=False)",
    "svd": "(A, full_matrices=True)", "svdvals": "(A)", "vecdot": "(x, y, *, dim=-1)",
    "vector_norm": "(x, ord=2, dim=None, keepdim=False, *, dtype=None)",
}


def test_pytorchs_face_has_torch_linalgs_names_and_signatures():
    functions = {n for n in tl.linalg.__all__ if not n.endswith("Result")}
    assert functions == set(TORCH_SIGNATURES)
    for name, expected in TORCH_SIGNATURES.items():
        sig = inspect.signature(getattr(tl.linalg, name))
        bare = sig.replace(parameters=[p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()],
                           return_annotation=inspect.Signature.empty)
        assert str(bare) == expected, name
    torch = pytest.importorskip("torch", reason="the names are checked against torch.linalg too")
    assert all(hasattr(torch.linalg, n) for n in functions)


def test_results_are_named_tuples_with_the_standards_fields():
    a = xp.asarray([[2.0, 1.0], [1.0, 3.0]])
    assert xp.linalg.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert xp.linalg.svd(a)._fields == ("U", "S", "Vh")
    assert xp.linalg.qr(a)._fields == ("Q", "R")
    assert xp.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert type(tl.linalg.eigh(a)) is type(xp.linalg.eigh(a))


def test_solve_reads_a_1d_x2_as_one_vector_for_every_matrix():
    rng = np.random.default_rng(0)
    a = np.eye(3) + 0.2 * rng.standard_normal((3, 3, 3))
    b = rng.standard_normal(3)
    out = xp.linalg.solve(xp.asarray(a), xp.asarray(b))
    assert out.shape == (3, 3)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a, b[:, None])[..., 0])
    # x2 of shape (3, 3) with x1 of shape (3, 3, 3): one 3 x 3 matrix for every x1 (PyTorch reads vectors here)
    c = rng.standard_normal((3, 3))
    np.testing.assert_allclose(xp.linalg.solve(xp.asarray(a), xp.asarray(c)).numpy(), np.linalg.solve(a, c))
    assert tl.linalg.solve(tl.tensor(a), tl.tensor(c)).shape == (3, 3)


def test_matrix_rank_and_pinv_take_rtol_with_the_standards_default():
    eps = np.finfo(np.float32).eps
    x = xp.asarray(np.diag([1.0, 10 * eps, 0.0]).astype(np.float32))
    assert xp.linalg.matrix_rank(x).item() == 2                # rtol = max(M, N) * eps = 3 eps < 10 eps
    assert xp.linalg.matrix_rank(x, rtol=20 * eps).item() == 1
    per_matrix = xp.asarray([0.0, 20 * eps], dtype=xp.float32)
    assert xp.linalg.matrix_rank(xp.stack([x, x]), rtol=per_matrix).tolist() == [2, 1]
    assert xp.linalg.matrix_rank(x).dtype == xp.int64
    np.testing.assert_allclose(xp.linalg.pinv(x, rtol=20 * eps).numpy(), np.diag([1.0, 0.0, 0.0]))


def test_trace_follows_the_standards_dtype_rules():
    x = xp.asarray([[1, 2], [3, 4]], dtype=xp.int16)
    assert xp.linalg.trace(x).dtype == xp.int64 and xp.linalg.trace(x).item() == 5
    assert xp.linalg.trace(x, dtype=xp.float32).dtype == xp.float32
    assert xp.linalg.trace(xp.ones((2, 3, 3), dtype=xp.float32)).dtype == xp.float32


@pytest.mark.parametrize("fn,shapes", [
    (lambda a: xp.linalg.det(a), [(3, 3)]),
    (lambda a: xp.linalg.inv(a), [(2, 2, 2)]),
    (lambda a, b: xp.linalg.solve(a, b), [(3, 3), (3,)]),
    (lambda a: xp.linalg.slogdet(a).logabsdet, [(3, 3)]),
    (lambda a: xp.linalg.matrix_power(a, -2), [(2, 2)]),
    (lambda a: xp.linalg.vector_norm(a, axis=1, ord=3), [(2, 3)]),
    (lambda a: xp.linalg.matrix_norm(a, ord="nuc"), [(2, 3)]),
    (lambda a: xp.linalg.trace(a, offset=1), [(2, 3, 3)]),
    (lambda a, b: xp.linalg.cross(a, b), [(2, 3), (3,)]),
    (lambda a, b: tl.linalg.solve(a, b, left=False), [(3, 3), (2, 3)]),
    (lambda a: tl.linalg.norm(a, 2), [(3, 3)]),
    (lambda a: tl.linalg.cholesky(a @ a.mT + xp.eye(3, dtype=a.dtype, device=a.device)), [(3, 3)]),
], ids=["det", "inv", "solve_1d", "slogdet", "matrix_power_neg", "vector_norm", "nuc", "trace", "cross",
        "tl_solve_right", "tl_norm_2", "tl_cholesky"])
def test_calls_through_both_faces_differentiate_twice(backend, fn, shapes):
    rng = np.random.default_rng(1)
    inputs = [tl.tensor((np.eye(s[-1]) if len(s) > 1 and s[-1] == s[-2] else 0) + 0.3 * rng.standard_normal(s),
                        backend=backend.name, requires_grad=True) for s in shapes]
    assert gradcheck(fn, *inputs)
    assert gradgradcheck(fn, *inputs)


@pytest.mark.parametrize("call,error,words", [
    (lambda: xp.linalg.det([[1.0]]), TypeError, ["linalg.det", "x"]),
    (lambda: xp.linalg.det(xp.ones((2, 3))), ValueError, ["linalg.det", "square"]),
    (lambda: xp.linalg.solve(xp.eye(2), xp.ones(3)), ValueError, ["linalg.solve", "x2"]),
    (lambda: xp.linalg.solve(xp.eye(2), xp.ones((3, 1))), ValueError, ["linalg.solve", "x2"]),
    (lambda: xp.linalg.cross(xp.ones(3), xp.ones(3), axis=1), IndexError, ["linalg.cross", "axis 1"]),
    (lambda: xp.linalg.qr(xp.eye(2), mode="r"), ValueError, ["linalg.qr", "mode"]),
    (lambda: xp.linalg.matrix_rank(xp.ones(3)), ValueError, ["linalg.matrix_rank", "2 dimensions"]),
    (lambda: xp.linalg.pinv(xp.eye(2), rtol="a"), TypeError, ["linalg.pinv", "rtol"]),
    (lambda: xp.linalg.trace(xp.ones(3)), ValueError, ["linalg.trace", "2 dimensions"]),
    (lambda: xp.linalg.vector_norm(xp.ones(3), axis=[0]), TypeError, ["linalg.vector_norm", "axis"]),
    (lambda: xp.linalg.matrix_norm(xp.eye(2), ord=3), ValueError, ["matrix_norm", "ord"]),
    (lambda: tl.linalg.multi_dot(tl.ones(2, 2)), TypeError, ["multi_dot", "sequence"]),
    (lambda: tl.linalg.inv(tl.tensor([[1.0, 2.0], [2.0, 4.0]])), ValueError, ["inv"]),
])
def test_bad_input_names_the_function_and_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert all(w in str(info.value) for w in words), str(info.value)
