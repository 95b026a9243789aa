"""Special functions of the gamma and Bessel families: gammaln, digamma, polygamma, multigammaln, i0, i0e, i1, i1e."""

from __future__ import annotations


class SpecialGammaMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()
