"""Vector and matrix norms: vector_norm, matrix_norm (the array API's and torch.linalg's)."""

from __future__ import annotations


class NormsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()
