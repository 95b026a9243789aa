"""The norms entries (torchlight/ops/norms.py): vector_norm (every ord: Norm for the p-norms,
CountNonzero for ord 0, Abs with Sum/Max/Min for 1 and +-inf), matrix_norm and norm, in both faces
(`linalg.*` is torchlight.linalg, `xp.linalg.*` the namespace's). The inf norms' and the induced
1/inf matrix norms' inputs keep their magnitudes (sums) apart, so no tie sits within the
gradcheck step; the singular-value norms' random matrices have distinct singular values.

Example:
    >>> from conformance.ops.norms import OPS
    >>> [op.name for op in OPS]
    ['linalg.vector_norm', 'xp.linalg.vector_norm', 'linalg.matrix_norm', 'xp.linalg.matrix_norm', 'linalg.norm']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import torchlight as tl
import torchlight.array_api as xp
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.reductions import distinct_magnitudes


def vector_norm_ref(x: np.ndarray, ord: float = 2, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    a = np.abs(x)
    if ord == 0:
        return np.sum(a != 0, axis=dim, keepdims=keepdim).astype(np.float64)
    if math.isinf(ord):
        return (np.max if ord > 0 else np.min)(a, axis=dim, keepdims=keepdim)
    return np.sum(a ** ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)


def matrix_norm_ref(x: np.ndarray, ord: Any = "fro", dim: tuple[int, int] = (-2, -1),
                    keepdim: bool = False) -> np.ndarray:
    return np.linalg.norm(x, ord, dim, keepdim)


def norm_ref(x: np.ndarray, ord: Any = None, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    if dim is None and ord is None:
        return np.linalg.norm(x.reshape(-1), keepdims=False).reshape((1,) * x.ndim if keepdim else ())
    return np.linalg.norm(x, ord, dim, keepdim)


def _vector_norm(x: Any, ord: float = 2, dim: Any = None, keepdim: bool = False) -> Any:
    return tl.linalg.vector_norm(x, ord, dim, keepdim)


def _matrix_norm(x: Any, ord: Any = "fro", dim: tuple[int, int] = (-2, -1), keepdim: bool = False) -> Any:
    return tl.linalg.matrix_norm(x, ord, dim, keepdim)


def _norm(x: Any, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Any:
    return tl.linalg.norm(x, ord, dim, keepdim)


def distinct_sums(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Either sign, magnitudes (and so the row and column sums of |x|) far apart: no ties of the
    induced 1 and inf matrix norms' max and min."""
    return distinct_magnitudes(rng, shape)


VECTOR_NORM_CASES = (
    Case("all", ((3, 4),)),
    Case("last_dim", ((2, 3, 4),), kwargs={"dim": -1}),
    Case("dims_keepdim", ((2, 3, 4),), kwargs={"dim": (0, 2), "keepdim": True}),
    Case("ord1", ((3, 4),), kwargs={"ord": 1, "dim": 1}, domain=D.away_from_zero),
    Case("ord3", ((3, 4),), kwargs={"ord": 3, "dim": 0}),
    Case("ord_half", ((3, 4),), kwargs={"ord": 0.5, "dim": 1}, domain=D.away_from_zero),
    Case("ord_minus1", ((3, 4),), kwargs={"ord": -1, "dim": 1}, domain=D.away_from_zero),
    Case("ord_minus_2_5", ((5,),), kwargs={"ord": -2.5}, domain=D.away_from_zero),
    Case("inf", ((3, 4),), kwargs={"ord": math.inf, "dim": 1}, domain=distinct_magnitudes),
    Case("minus_inf", ((3, 4),), kwargs={"ord": -math.inf}, domain=distinct_magnitudes),
    Case("ord0", ((3, 4),), kwargs={"ord": 0, "dim": 1}, domain=D.away_from_zero,
         note="the count of nonzeros: gradient 0"),
    Case("zeros_ord2", ((2, 3),), kwargs={"dim": 1}, domain=D.fixed([[0.0, 0.0, 0.0], [3.0, 0.0, -4.0]]),
         grad_reference=lambda x, dim: (np.array([[0.0, 0.0, 0.0], [0.6, 0.0, -0.8]]),), double_backward=False,
         note="PyTorch's subgradient 0 at an all-zero vector"),
    Case("0d", ((),)),
    Case("empty", ((0, 3),), kwargs={"dim": 0}),
    Case("empty_inf", ((0, 3),), kwargs={"ord": math.inf, "dim": 0}, raises=ValueError,
         match="vector_norm: the inf norm of an empty dimension"),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="vector_norm: dim 2"),
    Case("bad_ord", ((3,),), kwargs={"ord": "fro"}, raises=ValueError, match="vector_norm: ord must be a real number"),
)

MATRIX_NORM_CASES = (
    Case("fro", ((3, 4),)),
    Case("fro_batched_keepdim", ((2, 3, 4),), kwargs={"keepdim": True}),
    Case("ord1", ((3, 4),), kwargs={"ord": 1}, domain=distinct_sums),
    Case("ord_minus1", ((2, 3, 4),), kwargs={"ord": -1}, domain=distinct_sums),
    Case("inf", ((3, 4),), kwargs={"ord": math.inf}, domain=distinct_sums),
    Case("minus_inf_dims", ((3, 2, 4),), kwargs={"ord": -math.inf, "dim": (2, 0)}, domain=distinct_sums),
    Case("nuc", ((3, 4),), kwargs={"ord": "nuc"}),
    Case("ord2", ((2, 4, 3),), kwargs={"ord": 2}),
    Case("ord_minus2_keepdim", ((3, 3),), kwargs={"ord": -2, "keepdim": True}),
    Case("spectral_dims", ((3, 2, 4),), kwargs={"ord": 2, "dim": (0, 2), "keepdim": True}),
    Case("bad_ord", ((3, 3),), kwargs={"ord": 3}, raises=ValueError, match="matrix_norm: ord must be"),
    Case("vector", ((3,),), raises=ValueError, match="matrix_norm: needs a matrix"),
    Case("same_dim", ((3, 3),), kwargs={"dim": (0, -2)}, raises=ValueError, match="matrix_norm"),
)

NORM_CASES = (
    Case("flattened", ((2, 3, 4),), note="ord None, dim None: the 2-norm of every element"),
    Case("vector_dim", ((3, 4),), kwargs={"ord": 3, "dim": 1}),
    Case("vector_1d", ((5,),), kwargs={"ord": math.inf}, domain=distinct_magnitudes),
    Case("matrix_2d", ((3, 4),), kwargs={"ord": 1}, domain=distinct_sums),
    Case("matrix_dims_fro", ((2, 3, 4),), kwargs={"dim": (0, 2)}),
    Case("nuc_2d", ((3, 3),), kwargs={"ord": "nuc"}),
    Case("ord_3d", ((2, 2, 2),), kwargs={"ord": 2}, raises=ValueError, match="norm: with ord 2 and dim None"),
    Case("fro_of_vectors", ((3, 4),), kwargs={"ord": "fro", "dim": 1}, raises=ValueError,
         match="norm: ord 'fro' is a matrix norm"),
)

OPS: list[OpInfo] = [
    OpInfo("linalg.vector_norm", _vector_norm, vector_norm_ref, VECTOR_NORM_CASES,
           function=("Norm", "NegativeNorm", "CountNonzero"), complex=True),
    OpInfo("xp.linalg.vector_norm", lambda x, axis=None, keepdims=False, ord=2:
           xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord),
           lambda x, axis=None, keepdims=False, ord=2: vector_norm_ref(x, ord, axis, keepdims), (
               Case("all", ((3, 4),)),
               Case("axis_keepdims", ((2, 3, 4),), kwargs={"axis": (0, 1), "keepdims": True}),
               Case("ord0", ((3, 4),), kwargs={"ord": 0, "axis": 1}, domain=D.away_from_zero),
               Case("minus_inf", ((4,),), kwargs={"ord": -math.inf}, domain=distinct_magnitudes),
           ), function=("Norm", "CountNonzero")),
    OpInfo("linalg.matrix_norm", _matrix_norm, matrix_norm_ref, MATRIX_NORM_CASES, complex=True,
           function=("Norm", "Abs", "Sum", "Max", "Min", "Svd")),
    OpInfo("xp.linalg.matrix_norm", lambda x, keepdims=False, ord="fro":
           xp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord),
           lambda x, keepdims=False, ord="fro": np.linalg.norm(x, ord, (-2, -1), keepdims), (
               Case("fro", ((2, 3, 4),)),
               Case("inf_keepdims", ((3, 4),), kwargs={"ord": math.inf, "keepdims": True}, domain=distinct_sums),
               Case("nuc", ((3, 3),), kwargs={"ord": "nuc"}),
               Case("vector", ((3,),), raises=ValueError, match="linalg.matrix_norm: x must have at least 2"),
           ), function=("Norm", "Abs", "Sum", "Max", "Svd")),
    OpInfo("linalg.norm", _norm, norm_ref, NORM_CASES, function=("Norm", "Abs", "Sum", "Max", "Svd")),
]
