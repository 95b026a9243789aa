"""Elementwise functions: each calls the Tensor method or operator that does the work.

Binary functions take a Python scalar on either side (2024.12), lifted to the
array's backend and dtype as the Tensor operators lift it; two scalars are a
TypeError. The dtypes of two arrays meet by the backend's own promotion
(NumPy promotes int with float; array_api_strict refuses), the standard's
rules wherever it defines them.
"""

from __future__ import annotations

from typing import Any

from torchlight.array_api._helpers import pair, tensor_arg
from torchlight.tensor import Tensor

__all__ = ["abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and", "bitwise_invert",
           "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "conj",
           "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater",
           "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log10",
           "log1p", "log2", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum",
           "minimum", "multiply", "negative", "nextafter", "not_equal", "positive", "pow", "real", "reciprocal",
           "remainder", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh",
           "trunc"]


def abs(x: Tensor, /) -> Tensor:
    """`x.abs()`."""
    return tensor_arg(x, "abs").abs()

def acos(x: Tensor, /) -> Tensor:
    """`x.acos()`."""
    return tensor_arg(x, "acos").acos()

def acosh(x: Tensor, /) -> Tensor:
    """`x.acosh()`."""
    return tensor_arg(x, "acosh").acosh()

def asin(x: Tensor, /) -> Tensor:
    """`x.asin()`."""
    return tensor_arg(x, "asin").asin()

def asinh(x: Tensor, /) -> Tensor:
    """`x.asinh()`."""
    return tensor_arg(x, "asinh").asinh()

def atan(x: Tensor, /) -> Tensor:
    """`x.atan()`."""
    return tensor_arg(x, "atan").atan()

def atanh(x: Tensor, /) -> Tensor:
    """`x.atanh()`."""
    return tensor_arg(x, "atanh").atanh()

def bitwise_invert(x: Tensor, /) -> Tensor:
    """`x.bitwise_not()`."""
    return tensor_arg(x, "bitwise_invert").bitwise_not()

def ceil(x: Tensor, /) -> Tensor:
    """`x.ceil()`."""
    return tensor_arg(x, "ceil").ceil()

def conj(x: Tensor, /) -> Tensor:
    """`x.conj()`."""
    return tensor_arg(x, "conj").conj()

def cos(x: Tensor, /) -> Tensor:
    """`x.cos()`."""
    return tensor_arg(x, "cos").cos()

def cosh(x: Tensor, /) -> Tensor:
    """`x.cosh()`."""
    return tensor_arg(x, "cosh").cosh()

def exp(x: Tensor, /) -> Tensor:
    """`x.exp()`."""
    return tensor_arg(x, "exp").exp()

def expm1(x: Tensor, /) -> Tensor:
    """`x.expm1()`."""
    return tensor_arg(x, "expm1").expm1()

def floor(x: Tensor, /) -> Tensor:
    """`x.floor()`."""
    return tensor_arg(x, "floor").floor()

def isfinite(x: Tensor, /) -> Tensor:
    """`x.isfinite()`."""
    return tensor_arg(x, "isfinite").isfinite()

def isinf(x: Tensor, /) -> Tensor:
    """`x.isinf()`."""
    return tensor_arg(x, "isinf").isinf()

def isnan(x: Tensor, /) -> Tensor:
    """`x.isnan()`."""
    return tensor_arg(x, "isnan").isnan()

def log(x: Tensor, /) -> Tensor:
    """`x.log()`."""
    return tensor_arg(x, "log").log()

def log10(x: Tensor, /) -> Tensor:
    """`x.log10()`."""
    return tensor_arg(x, "log10").log10()

def log1p(x: Tensor, /) -> Tensor:
    """`x.log1p()`."""
    return tensor_arg(x, "log1p").log1p()

def log2(x: Tensor, /) -> Tensor:
    """`x.log2()`."""
    return tensor_arg(x, "log2").log2()

def logical_not(x: Tensor, /) -> Tensor:
    """`x.logical_not()`."""
    return tensor_arg(x, "logical_not").logical_not()

def negative(x: Tensor, /) -> Tensor:
    """`x.neg()`."""
    return tensor_arg(x, "negative").neg()

def positive(x: Tensor, /) -> Tensor:
    """`x.positive()`."""
    return tensor_arg(x, "positive").positive()

def reciprocal(x: Tensor, /) -> Tensor:
    """`x.reciprocal()`."""
    return tensor_arg(x, "reciprocal").reciprocal()

def round(x: Tensor, /) -> Tensor:
    """`x.round()`."""
    return tensor_arg(x, "round").round()

def sign(x: Tensor, /) -> Tensor:
    """`x.sign()`."""
    return tensor_arg(x, "sign").sign()

def signbit(x: Tensor, /) -> Tensor:
    """`x.signbit()`."""
    return tensor_arg(x, "signbit").signbit()

def sin(x: Tensor, /) -> Tensor:
    """`x.sin()`."""
    return tensor_arg(x, "sin").sin()

def sinh(x: Tensor, /) -> Tensor:
    """`x.sinh()`."""
    return tensor_arg(x, "sinh").sinh()

def sqrt(x: Tensor, /) -> Tensor:
    """`x.sqrt()`."""
    return tensor_arg(x, "sqrt").sqrt()

def square(x: Tensor, /) -> Tensor:
    """`x.square()`."""
    return tensor_arg(x, "square").square()

def tan(x: Tensor, /) -> Tensor:
    """`x.tan()`."""
    return tensor_arg(x, "tan").tan()

def tanh(x: Tensor, /) -> Tensor:
    """`x.tanh()`."""
    return tensor_arg(x, "tanh").tanh()

def trunc(x: Tensor, /) -> Tensor:
    """`x.trunc()`."""
    return tensor_arg(x, "trunc").trunc()

def add(x1: Any, x2: Any, /) -> Tensor:
    """`x1 + x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 + x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "add")
    return a + b  # type: ignore[no-any-return]

def divide(x1: Any, x2: Any, /) -> Tensor:
    """`x1 / x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 / x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "divide")
    return a / b  # type: ignore[no-any-return]

def equal(x1: Any, x2: Any, /) -> Tensor:
    """`x1 == x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 == x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "equal")
    return a == b  # type: ignore[no-any-return]

def floor_divide(x1: Any, x2: Any, /) -> Tensor:
    """`x1 // x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 // x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "floor_divide")
    return a // b  # type: ignore[no-any-return]

def greater(x1: Any, x2: Any, /) -> Tensor:
    """`x1 > x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 > x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "greater")
    return a > b  # type: ignore[no-any-return]

def greater_equal(x1: Any, x2: Any, /) -> Tensor:
    """`x1 >= x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 >= x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "greater_equal")
    return a >= b  # type: ignore[no-any-return]

def less(x1: Any, x2: Any, /) -> Tensor:
    """`x1 < x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 < x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "less")
    return a < b  # type: ignore[no-any-return]

def less_equal(x1: Any, x2: Any, /) -> Tensor:
    """`x1 <= x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 <= x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "less_equal")
    return a <= b  # type: ignore[no-any-return]

def multiply(x1: Any, x2: Any, /) -> Tensor:
    """`x1 * x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 * x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "multiply")
    return a * b  # type: ignore[no-any-return]

def not_equal(x1: Any, x2: Any, /) -> Tensor:
    """`x1 != x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 != x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "not_equal")
    return a != b  # type: ignore[no-any-return]

def pow(x1: Any, x2: Any, /) -> Tensor:
    """`x1 ** x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 ** x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "pow")
    return a ** b  # type: ignore[no-any-return]

def subtract(x1: Any, x2: Any, /) -> Tensor:
    """`x1 - x2`."""
    if isinstance(x1, Tensor) or isinstance(x2, Tensor):  # (the operator lifts a scalar on either side)
        return x1 - x2  # type: ignore[no-any-return]
    a, b = pair(x1, x2, "subtract")
    return a - b  # type: ignore[no-any-return]

def atan2(x1: Any, x2: Any, /) -> Tensor:
    """`x1.atan2(x2)`."""
    a, b = pair(x1, x2, "atan2")
    return a.atan2(b)

def bitwise_and(x1: Any, x2: Any, /) -> Tensor:
    """`x1.bitwise_and(x2)`."""
    a, b = pair(x1, x2, "bitwise_and")
    return a.bitwise_and(b)

def bitwise_left_shift(x1: Any, x2: Any, /) -> Tensor:
    """`x1.bitwise_left_shift(x2)`."""
    a, b = pair(x1, x2, "bitwise_left_shift")
    return a.bitwise_left_shift(b)

def bitwise_or(x1: Any, x2: Any, /) -> Tensor:
    """`x1.bitwise_or(x2)`."""
    a, b = pair(x1, x2, "bitwise_or")
    return a.bitwise_or(b)

def bitwise_right_shift(x1: Any, x2: Any, /) -> Tensor:
    """`x1.bitwise_right_shift(x2)`."""
    a, b = pair(x1, x2, "bitwise_right_shift")
    return a.bitwise_right_shift(b)

def bitwise_xor(x1: Any, x2: Any, /) -> Tensor:
    """`x1.bitwise_xor(x2)`."""
    a, b = pair(x1, x2, "bitwise_xor")
    return a.bitwise_xor(b)

def copysign(x1: Any, x2: Any, /) -> Tensor:
    """`x1.copysign(x2)`."""
    a, b = pair(x1, x2, "copysign")
    return a.copysign(b)

def hypot(x1: Any, x2: Any, /) -> Tensor:
    """`x1.hypot(x2)`."""
    a, b = pair(x1, x2, "hypot")
    return a.hypot(b)

def logaddexp(x1: Any, x2: Any, /) -> Tensor:
    """`x1.logaddexp(x2)`."""
    a, b = pair(x1, x2, "logaddexp")
    return a.logaddexp(b)

def logical_and(x1: Any, x2: Any, /) -> Tensor:
    """`x1.logical_and(x2)`."""
    a, b = pair(x1, x2, "logical_and")
    return a.logical_and(b)

def logical_or(x1: Any, x2: Any, /) -> Tensor:
    """`x1.logical_or(x2)`."""
    a, b = pair(x1, x2, "logical_or")
    return a.logical_or(b)

def logical_xor(x1: Any, x2: Any, /) -> Tensor:
    """`x1.logical_xor(x2)`."""
    a, b = pair(x1, x2, "logical_xor")
    return a.logical_xor(b)

def maximum(x1: Any, x2: Any, /) -> Tensor:
    """`x1.maximum(x2)`."""
    a, b = pair(x1, x2, "maximum")
    return a.maximum(b)

def minimum(x1: Any, x2: Any, /) -> Tensor:
    """`x1.minimum(x2)`."""
    a, b = pair(x1, x2, "minimum")
    return a.minimum(b)

def nextafter(x1: Any, x2: Any, /) -> Tensor:
    """`x1.nextafter(x2)`."""
    a, b = pair(x1, x2, "nextafter")
    return a.nextafter(b)

def remainder(x1: Any, x2: Any, /) -> Tensor:
    """`x1.remainder(x2)`."""
    a, b = pair(x1, x2, "remainder")
    return a.remainder(b)

def real(x: Tensor, /) -> Tensor:
    """The real part (`x.real`); a real array as it is."""
    return tensor_arg(x, "real").real


def imag(x: Tensor, /) -> Tensor:
    """The imaginary part (`x.imag`)."""
    return tensor_arg(x, "imag").imag


def clip(x: Tensor, /, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """`x` clamped to [min, max] (bounds are scalars or arrays; None leaves that side open); the
    result keeps `x`'s dtype. The gradient flows to `x` where it is inside the bounds, and to an
    array bound where it is the value.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.clip(xp.asarray([-2.0, 0.5, 3.0]), -1.0, 1.0).tolist()
        [-1.0, 0.5, 1.0]
    """
    x = tensor_arg(x, "clip")
    if min is None and max is None:
        return x.clone()
    return x.clip(min, max)
