"""The linear-algebra entries: `@` and its reflected form (Function MatMul), tl.tensordot and vecdot
(built on it); diagonal and trace (Diagonal, and its backward DiagonalEmbed called directly), cross,
outer, matrix_power and multi_dot, in both faces (`linalg.*` is torchlight.linalg, `xp.linalg.*` the
namespace's).

Example:
    >>> from conformance.ops.linear_algebra import OPS
    >>> [op.name for op in OPS][:4], [case.name for case in OPS[0].cases][-3:]
    (['__matmul__', '__rmatmul__', 'tl.tensordot', 'vecdot'], ['zero_dim', 'mat_mat_complex', 'vec_mat_complex'])
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
import torchlight.array_api as xp
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import complex_twins
from torchlight.autograd import functions as F
from torchlight.ops.linear_algebra import vecdot

OPS: list[OpInfo] = [
    OpInfo("__matmul__", lambda a, b: a @ b, np.matmul,
           (
               Case("mat_mat", ((3, 4), (4, 2))),
               Case("vec_mat", ((4,), (4, 3))),
               Case("mat_vec", ((3, 4), (4,))),
               Case("vec_vec", ((4,), (4,))),
               Case("batched", ((2, 3, 4), (2, 4, 2))),
               Case("broadcast_batch", ((2, 1, 2, 3), (3, 3, 2))),
               Case("batched_vec", ((2, 3, 4), (4,))),
               Case("vec_batched", ((3,), (2, 3, 2))),
               Case("empty", ((0, 3), (3, 2))),
               Case("one_side_grad", ((3, 4), (4, 2)), grad=(False, True)),
               Case("inner_mismatch", ((3, 4), (5, 2)), raises=ValueError,
                    match="MatMul: shapes (3, 4) and (5, 2)"),
               Case("zero_dim", ((), (3,)), raises=ValueError, match="0-d"),
           ),
           method="__matmul__", function="MatMul"),
    OpInfo("__rmatmul__", lambda a, b: b.__rmatmul__(a), np.matmul,
           (Case("mat_mat", ((3, 4), (4, 2))), Case("vec_mat", ((4,), (4, 3)))),
           method="__rmatmul__", function="MatMul"),
]


def _vecdot(a: Any, b: Any, dim: int = -1) -> Any:
    return vecdot(a, b, dim)


def _vecdot_ref(a: np.ndarray, b: np.ndarray, dim: int = -1) -> np.ndarray:
    return np.sum(a * b, axis=dim)


TENSORDOT_CASES = (
    Case("default_2", ((2, 3, 4), (3, 4, 5))),
    Case("int_1", ((3, 4), (4, 2)), kwargs={"dims": 1}),
    Case("outer_0", ((3,), (2,)), kwargs={"dims": 0}),
    Case("pairs", ((2, 3, 4), (4, 3, 5)), kwargs={"dims": ([1, 2], [1, 0])}),
    Case("negative", ((2, 3), (3, 2)), kwargs={"dims": ([-1], [0])}),
    Case("all_dims", ((3, 4), (3, 4)), kwargs={"dims": ([0, 1], [0, 1])}, note="a 0-d result"),
    Case("one_side_grad", ((3, 4), (4, 2)), kwargs={"dims": 1}, grad=(False, True)),
    Case("size_mismatch", ((3, 4), (5, 2)), kwargs={"dims": 1}, raises=ValueError,
         match="tensordot: shapes (3, 4) and (5, 2)"),
    Case("pair_lengths", ((3, 4), (4, 2)), kwargs={"dims": ([0, 1], [0])}, raises=ValueError, match="tensordot: dims"),
    Case("too_many", ((3,), (3,)), kwargs={"dims": 2}, raises=ValueError, match="tensordot: dims=2"),
)

VECDOT_CASES = (
    Case("1d", ((4,), (4,))),
    Case("batched", ((2, 3, 4), (2, 3, 4))),
    Case("broadcast", ((3, 4), (2, 1, 4))),
    Case("dim0", ((4, 3), (4, 3)), kwargs={"dim": 0}),
    Case("dim_of_broadcast_shape", ((3, 4), (2, 3, 4)), kwargs={"dim": -2}),
    Case("one_side_grad", ((3, 4), (3, 4)), grad=(True, False)),
    Case("empty", ((0, 4), (4,))),
    Case("size_mismatch", ((3, 4), (3, 5)), raises=ValueError, match="vecdot: shapes (3, 4) and (3, 5)"),
    Case("bad_dim", ((3, 4), (3, 4)), kwargs={"dim": 2}, raises=IndexError, match="vecdot: dim 2"),
)

OPS += [
    OpInfo("tl.tensordot", lambda a, b, dims=2: tl.tensordot(a, b, dims),
           lambda a, b, dims=2: np.tensordot(a, b, dims), TENSORDOT_CASES, function="MatMul"),
    OpInfo("vecdot", _vecdot, _vecdot_ref, VECDOT_CASES, function="MatMul"),
]



def well_conditioned(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Square matrices I + 0.3 N(0, 1) / sqrt(n): singular values well away from 0 (inverses, negative powers)."""
    n = shape[-1]
    return np.eye(n) + 0.3 * rng.standard_normal(shape) / np.sqrt(n)


def _diagonal_ref(x: np.ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> np.ndarray:
    return np.diagonal(x, offset, dim1, dim2)


DIAGONAL_CASES = (
    Case("square", ((3, 3),)),
    Case("wide_above", ((3, 5),), kwargs={"offset": 2}),
    Case("tall_below", ((5, 3),), kwargs={"offset": -2}),
    Case("batched", ((2, 3, 4),)),
    Case("dims_0_2", ((3, 2, 4),), kwargs={"dim1": 0, "dim2": 2, "offset": 1}),
    Case("dims_reversed", ((3, 4),), kwargs={"dim1": -1, "dim2": -2, "offset": 1}),
    Case("past_the_corner", ((2, 3),), kwargs={"offset": 3}, note="an empty diagonal"),
    Case("empty_batch", ((0, 2, 2),)),
    Case("vector", ((3,),), raises=ValueError, match="diagonal: needs a matrix"),
    Case("same_dims", ((3, 3),), kwargs={"dim1": 0, "dim2": -2}, raises=ValueError, match="diagonal: dim1 and dim2"),
    Case("bad_dim", ((3, 3),), kwargs={"dim1": 2}, raises=IndexError, match="diagonal: dim 2"),
)


def _embed_ref(g: np.ndarray, shape: tuple, offset: int, d1: int, d2: int) -> np.ndarray:
    out = np.zeros(shape, dtype=g.dtype)
    moved = np.moveaxis(out, (d1, d2), (-2, -1))
    for i in range(g.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        moved[..., r, c] = g[..., i]
    return out


def _trace_ref(x: np.ndarray, offset: int = 0) -> np.ndarray:
    return np.trace(x, offset, -2, -1)


def _cross(a: Any, b: Any, dim: int = -1) -> Any:
    return tl.linalg.cross(a, b, dim=dim)


def _cross_ref(a: np.ndarray, b: np.ndarray, dim: int = -1) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    return np.cross(a, b, axis=dim)


CROSS_CASES = (
    Case("vectors", ((3,), (3,))),
    Case("batched", ((4, 3), (4, 3))),
    Case("broadcast", ((2, 1, 3), (4, 3))),
    Case("dim0", ((3, 2), (3, 2)), kwargs={"dim": 0}),
    Case("one_side_grad", ((2, 3), (2, 3)), grad=(False, True)),
    Case("not_three", ((4,), (4,)), raises=ValueError, match="cross: shapes (4,) and (4,): dim -1 must have size 3"),
    Case("bad_dim", ((3,), (3,)), kwargs={"dim": 1}, raises=IndexError, match="cross: dim 1"),
    Case("no_broadcast", ((2, 3), (4, 3)), raises=ValueError, match="cross: shapes (2, 3) and (4, 3)"),
)

OUTER_CASES = (
    Case("vectors", ((3,), (4,))),
    Case("empty", ((0,), (2,))),
    Case("one_side_grad", ((2,), (3,)), grad=(True, False)),
    Case("matrix", ((2, 2), (2,)), raises=ValueError, match="outer: expected two vectors"),
)


def _matrix_power(x: Any, n: int) -> Any:
    return tl.linalg.matrix_power(x, n)


def _matrix_power_ref(x: np.ndarray, n: int) -> np.ndarray:
    return np.linalg.matrix_power(x, n)


MATRIX_POWER_CASES = (
    Case("square", ((3, 3),), kwargs={"n": 2}),
    Case("cube_batched", ((2, 3, 3),), kwargs={"n": 3}),
    Case("fifth", ((2, 2),), kwargs={"n": 5}, note="repeated squaring: x, x^2, x^4"),
    Case("first", ((3, 3),), kwargs={"n": 1}),
    Case("zeroth", ((2, 3, 3),), kwargs={"n": 0}, note="the identity, gradient 0"),
    Case("inverse", ((3, 3),), kwargs={"n": -1}, domain=well_conditioned),
    Case("inverse_squared", ((2, 2, 2),), kwargs={"n": -2}, domain=well_conditioned),
    Case("not_square", ((2, 3),), kwargs={"n": 2}, raises=ValueError, match="matrix_power: expected a square"),
    Case("float_power", ((2, 2),), kwargs={"n": 1.5}, raises=TypeError, match="matrix_power: n must be an int"),
)


def _multi_dot(*tensors: Any) -> Any:
    return tl.linalg.multi_dot(list(tensors))


def _multi_dot_ref(*arrays: np.ndarray) -> np.ndarray:
    return np.linalg.multi_dot(list(arrays))


MULTI_DOT_CASES = (
    Case("two", ((3, 4), (4, 2))),
    Case("chain", ((5, 2), (2, 4), (4, 3), (3, 1))),
    Case("vector_ends", ((3,), (3, 4), (4, 2), (2,)), note="a 0-d result"),
    Case("row_vector", ((3,), (3, 2))),
    Case("mismatch", ((3, 4), (5, 2)), raises=ValueError, match="multi_dot: tensors 0 and 1"),
    Case("batched", ((2, 3, 4), (4, 2)), raises=ValueError, match="multi_dot: tensor 0 has shape (2, 3, 4)"),
)

OPS += [
    OpInfo("linalg.diagonal", lambda x, offset=0, dim1=-2, dim2=-1: tl.linalg.diagonal(x, offset=offset, dim1=dim1,
                                                                                      dim2=dim2),
           _diagonal_ref, DIAGONAL_CASES, function="Diagonal", complex=True),
    OpInfo("diagonal", lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2),
           lambda x, offset=0, dim1=0, dim2=1: np.diagonal(x, offset, dim1, dim2), DIAGONAL_CASES[:3],
           method="diagonal", function="Diagonal"),
    OpInfo("xp.linalg.diagonal", lambda x, offset=0: xp.linalg.diagonal(x, offset=offset),
           lambda x, offset=0: np.diagonal(x, offset, -2, -1), DIAGONAL_CASES[:4], function="Diagonal"),
    OpInfo("DiagonalEmbed", lambda g, shape, offset, d1, d2: F.DiagonalEmbed.apply(g, shape, offset, d1, d2),
           _embed_ref, (
               Case("main", ((3,),), kwargs={"shape": (3, 3), "offset": 0, "d1": 0, "d2": 1}),
               Case("above", ((2, 2),), kwargs={"shape": (2, 2, 4), "offset": 2, "d1": 1, "d2": 2}),
               Case("below_moved", ((4, 2),), kwargs={"shape": (3, 4, 2), "offset": -1, "d1": 0, "d2": 2}),
           ), function="DiagonalEmbed", complex=True),
    OpInfo("trace", lambda x: x.trace(), np.trace, (
        Case("square", ((3, 3),)),
        Case("wide", ((2, 4),)),
        Case("batched", ((2, 3, 3),), raises=ValueError, match="trace: expected a matrix (2 dims)"),
    ), method="trace", function="Diagonal"),
    OpInfo("tl.trace", lambda x: tl.trace(x), np.trace, (Case("square", ((3, 3),)),), function="Diagonal"),
    OpInfo("xp.linalg.trace", lambda x, offset=0: xp.linalg.trace(x, offset=offset), _trace_ref, (
        Case("square", ((3, 3),)),
        Case("batched_offset", ((2, 3, 4),), kwargs={"offset": 1}),
        Case("below", ((3, 3),), kwargs={"offset": -2}),
        Case("empty", ((2, 0, 0),), note="the empty sum: 0"),
        Case("vector", ((3,),), raises=ValueError, match="linalg.trace: x must have at least 2 dimensions"),
    ), function=("Diagonal", "Sum"), complex=True),
    OpInfo("linalg.cross", _cross, _cross_ref, CROSS_CASES, function=("Mul", "Sub", "Stack"), complex=True),
    OpInfo("xp.linalg.cross", lambda a, b, axis=-1: xp.linalg.cross(a, b, axis=axis),
           lambda a, b, axis=-1: _cross_ref(a, b, axis), (
               Case("batched", ((4, 3), (4, 3))),
               Case("axis", ((3, 2), (3, 2)), kwargs={"axis": -2}),
               Case("bad_axis", ((3,), (3,)), kwargs={"axis": -2}, raises=IndexError, match="linalg.cross: axis -2"),
           ), function=("Mul", "Sub", "Stack")),
    OpInfo("tl.outer", lambda a, b: tl.outer(a, b), np.outer, OUTER_CASES, function="Mul", complex=True),
    OpInfo("xp.linalg.outer", lambda a, b: xp.linalg.outer(a, b), np.outer, OUTER_CASES[:1], function="Mul"),
    OpInfo("linalg.matrix_power", _matrix_power, _matrix_power_ref, MATRIX_POWER_CASES,
           function=("MatMul", "PowerZero"), complex=True),
    OpInfo("xp.linalg.matrix_power", lambda x, n: xp.linalg.matrix_power(x, n), _matrix_power_ref,
           MATRIX_POWER_CASES[:2], function="MatMul"),
    OpInfo("linalg.multi_dot", _multi_dot, _multi_dot_ref, MULTI_DOT_CASES, function="MatMul", complex=True),
]

# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"__matmul__", "__rmatmul__"})
