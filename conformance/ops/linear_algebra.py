"""The linear-algebra entries: `@` and its reflected form (Function MatMul), tl.tensordot and vecdot
(built on it).

Example:
    >>> from conformance.ops.linear_algebra import OPS
    >>> [op.name for op in OPS], [case.name for case in OPS[0].cases][-3:]
    (['__matmul__', '__rmatmul__', 'tl.tensordot', 'vecdot'], ['zero_dim', 'mat_mat_complex', 'vec_mat_complex'])
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import complex_twins
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

# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"__matmul__", "__rmatmul__"})
