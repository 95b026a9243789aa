"""Special functions: the error functions, the logistic functions, xlogy and friends, sinc (torch.special's names)."""

from __future__ import annotations


class SpecialMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()
