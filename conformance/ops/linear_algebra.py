"""The linear-algebra entries: `@` and its reflected form (Function MatMul).

Example:
    >>> from conformance.ops.linear_algebra import OPS
    >>> [op.name for op in OPS], [case.name for case in OPS[0].cases][-3:]
    (['__matmul__', '__rmatmul__'], ['zero_dim', 'mat_mat_complex', 'vec_mat_complex'])
"""

from __future__ import annotations

import numpy as np

from conformance.opinfo import Case, OpInfo
from conformance.ops.common import complex_twins

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

# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"__matmul__", "__rmatmul__"})
