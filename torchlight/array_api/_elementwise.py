"""Elementwise functions: each calls the Tensor method or operator that does the work.

Binary functions take a Python scalar on either side (2024.12), lifted to the
array's backend and dtype as the Tensor operators lift it; two scalars are a
TypeError. The dtypes of two arrays meet by the backend's own promotion
(NumPy promotes int with float; array_api_strict refuses), the standard's
rules wherever it defines them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
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


def _unary(name: str, method: str) -> Callable[[Tensor], Tensor]:
    """The standard's `name(x, /)` as the Tensor method `method` (one table row: the function is the
    method, after the argument check naming `name`)."""
    call = operator.methodcaller(method)

    def function(x: Tensor, /) -> Tensor:
        return call(tensor_arg(x, name))  # type: ignore[no-any-return]

    return _named(function, name, f"`x.{method}()`.")


def _operator(name: str, symbol: str) -> Callable[[Any, Any], Tensor]:
    """The standard's `name(x1, x2, /)` as the Tensor operator `symbol`, which lifts a Python scalar
    on either side as the standard asks; two non-Tensors go through `pair` (its checks name `name`)."""
    op = getattr(operator, _OPERATORS[symbol])

    def function(x1: Any, x2: Any, /) -> Tensor:
        if isinstance(x1, Tensor) or isinstance(x2, Tensor):
            return op(x1, x2)  # type: ignore[no-any-return]
        a, b = pair(x1, x2, name)
        return op(a, b)  # type: ignore[no-any-return]

    return _named(function, name, f"`x1 {symbol} x2`.")


def _binary(name: str, method: str) -> Callable[[Any, Any], Tensor]:
    """The standard's `name(x1, x2, /)` as the Tensor method `method` of the first operand."""
    def function(x1: Any, x2: Any, /) -> Tensor:
        a, b = pair(x1, x2, name)
        return getattr(a, method)(b)  # type: ignore[no-any-return]

    return _named(function, name, f"`x1.{method}(x2)`.")


def _named(function: Any, name: str, doc: str) -> Any:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    function.__module__ = __name__
    return function


_OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "**": "pow",
              "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}  # (the operator module's names)

abs = _unary("abs", "abs")
acos = _unary("acos", "acos")
acosh = _unary("acosh", "acosh")
asin = _unary("asin", "asin")
asinh = _unary("asinh", "asinh")
atan = _unary("atan", "atan")
atanh = _unary("atanh", "atanh")
bitwise_invert = _unary("bitwise_invert", "bitwise_not")
ceil = _unary("ceil", "ceil")
conj = _unary("conj", "conj")
cos = _unary("cos", "cos")
cosh = _unary("cosh", "cosh")
exp = _unary("exp", "exp")
expm1 = _unary("expm1", "expm1")
floor = _unary("floor", "floor")
isfinite = _unary("isfinite", "isfinite")
isinf = _unary("isinf", "isinf")
isnan = _unary("isnan", "isnan")
log = _unary("log", "log")
log10 = _unary("log10", "log10")
log1p = _unary("log1p", "log1p")
log2 = _unary("log2", "log2")
logical_not = _unary("logical_not", "logical_not")
negative = _unary("negative", "neg")
positive = _unary("positive", "positive")
reciprocal = _unary("reciprocal", "reciprocal")
round = _unary("round", "round")
sign = _unary("sign", "sign")
signbit = _unary("signbit", "signbit")
sin = _unary("sin", "sin")
sinh = _unary("sinh", "sinh")
sqrt = _unary("sqrt", "sqrt")
square = _unary("square", "square")
tan = _unary("tan", "tan")
tanh = _unary("tanh", "tanh")
trunc = _unary("trunc", "trunc")

add = _operator("add", "+")
divide = _operator("divide", "/")
equal = _operator("equal", "==")
floor_divide = _operator("floor_divide", "//")
greater = _operator("greater", ">")
greater_equal = _operator("greater_equal", ">=")
less = _operator("less", "<")
less_equal = _operator("less_equal", "<=")
multiply = _operator("multiply", "*")
not_equal = _operator("not_equal", "!=")
pow = _operator("pow", "**")
subtract = _operator("subtract", "-")

atan2 = _binary("atan2", "atan2")
bitwise_and = _binary("bitwise_and", "bitwise_and")
bitwise_left_shift = _binary("bitwise_left_shift", "bitwise_left_shift")
bitwise_or = _binary("bitwise_or", "bitwise_or")
bitwise_right_shift = _binary("bitwise_right_shift", "bitwise_right_shift")
bitwise_xor = _binary("bitwise_xor", "bitwise_xor")
copysign = _binary("copysign", "copysign")
hypot = _binary("hypot", "hypot")
logaddexp = _binary("logaddexp", "logaddexp")
logical_and = _binary("logical_and", "logical_and")
logical_or = _binary("logical_or", "logical_or")
logical_xor = _binary("logical_xor", "logical_xor")
maximum = _binary("maximum", "maximum")
minimum = _binary("minimum", "minimum")
nextafter = _binary("nextafter", "nextafter")
remainder = _binary("remainder", "remainder")


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
