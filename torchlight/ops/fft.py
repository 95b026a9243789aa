"""Discrete Fourier transforms: the array API's fft extension, with gradients."""

from __future__ import annotations


class FFTMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()
