"""einsum: Einstein summation, contracted pairwise in the order opt_einsum chooses."""

from __future__ import annotations


class EinsumMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()
