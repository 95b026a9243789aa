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

    return _named(function, name, f"`x.{method}()`")


def _operator(name: str, symbol: str) -> Callable[[Any, Any], Tensor]:
    """The standard's `name(x1, x2, /)` as the Tensor operator `symbol`, which lifts a Python scalar
    on either side as the standard asks; two non-Tensors go through `pair` (its checks name `name`)."""
    op = getattr(operator, _OPERATORS[symbol])

    def function(x1: Any, x2: Any, /) -> Tensor:
        if isinstance(x1, Tensor) or isinstance(x2, Tensor):
            return op(x1, x2)  # type: ignore[no-any-return]
        a, b = pair(x1, x2, name)
        return op(a, b)  # type: ignore[no-any-return]

    return _named(function, name, f"`x1 {symbol} x2`")


def _binary(name: str, method: str) -> Callable[[Any, Any], Tensor]:
    """The standard's `name(x1, x2, /)` as the Tensor method `method` of the first operand."""
    def function(x1: Any, x2: Any, /) -> Tensor:
        a, b = pair(x1, x2, name)
        return getattr(a, method)(b)  # type: ignore[no-any-return]

    return _named(function, name, f"`x1.{method}(x2)`")


def _named(function: Any, name: str, spelling: str) -> Any:
    """`function` as the namespace's `name`, its docstring the summary and example of `_DOCS` with
    the Tensor spelling that does the work."""
    summary, call, result = _DOCS[name]
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"{summary}: {spelling}.\n\nExample:\n    >>> import torchlight.array_api as xp\n"
                        f"    >>> {call}\n    {result}\n")
    function.__module__ = __name__
    return function


# Each wrapper's docstring: (summary, an example call, its printed result); the doctest of this module runs them
_DOCS = {
    "abs": ("The absolute value of each element", "xp.abs(xp.asarray([-1.5, 0.0, 2.0]))",
            "tensor([1.5, 0. , 2. ])"),
    "acos": ("The inverse cosine of each element, in radians from 0 to pi", "xp.acos(xp.asarray([1.0, 0.0, -1.0]))",
             "tensor([0.        , 1.57079633, 3.14159265])"),
    "acosh": ("The inverse hyperbolic cosine of each element (defined for x >= 1)",
              "xp.acosh(xp.asarray([1.0, 2.0]))", "tensor([0.       , 1.3169579])"),
    "asin": ("The inverse sine of each element, in radians from -pi/2 to pi/2",
             "xp.asin(xp.asarray([0.0, 0.5, 1.0]))", "tensor([0.        , 0.52359878, 1.57079633])"),
    "asinh": ("The inverse hyperbolic sine of each element", "xp.asinh(xp.asarray([0.0, 1.0]))",
              "tensor([0.        , 0.88137359])"),
    "atan": ("The inverse tangent of each element, in radians from -pi/2 to pi/2", "xp.atan(xp.asarray([0.0, 1.0]))",
             "tensor([0.        , 0.78539816])"),
    "atanh": ("The inverse hyperbolic tangent of each element (finite for -1 < x < 1)",
              "xp.atanh(xp.asarray([0.0, 0.5]))", "tensor([0.        , 0.54930614])"),
    "bitwise_invert": ("The bitwise NOT of each element of an integer or boolean array (two's complement: "
                       "~x == -x - 1)", "xp.bitwise_invert(xp.asarray([0, 5, -1]))", "tensor([-1, -6,  0])"),
    "ceil": ("Each element rounded up to an integer (in x's dtype)", "xp.ceil(xp.asarray([-1.5, 0.2, 2.0]))",
             "tensor([-1.,  1.,  2.])"),
    "conj": ("The complex conjugate of each element", "xp.conj(xp.asarray([1 + 2j, 3 - 1j]))",
             "tensor([1.-2.j, 3.+1.j])"),
    "cos": ("The cosine of each element (in radians)", "xp.cos(xp.asarray([0.0, xp.pi]))", "tensor([ 1., -1.])"),
    "cosh": ("The hyperbolic cosine of each element", "xp.cosh(xp.asarray([0.0, 1.0]))",
             "tensor([1.        , 1.54308063])"),
    "exp": ("e to the power of each element", "xp.exp(xp.asarray([0.0, 1.0]))", "tensor([1.        , 2.71828183])"),
    "expm1": ("exp(x) - 1, accurate where x is near 0 (where exp(x) - 1 loses the digits)",
              "xp.expm1(xp.asarray(1e-10)).item(), (xp.exp(xp.asarray(1e-10)) - 1).item()",
              "(1.00000000005e-10, 1.000000082740371e-10)"),
    "floor": ("Each element rounded down to an integer (in x's dtype)", "xp.floor(xp.asarray([-1.5, 0.2, 2.0]))",
              "tensor([-2.,  0.,  2.])"),
    "isfinite": ("Whether each element is finite (neither infinite nor NaN)",
                 "xp.isfinite(xp.asarray([1.0, xp.inf, xp.nan]))", "tensor([ True, False, False])"),
    "isinf": ("Whether each element is +inf or -inf", "xp.isinf(xp.asarray([1.0, -xp.inf, xp.nan]))",
              "tensor([False,  True, False])"),
    "isnan": ("Whether each element is NaN", "xp.isnan(xp.asarray([1.0, xp.inf, xp.nan]))",
              "tensor([False, False,  True])"),
    "log": ("The natural logarithm of each element", "xp.log(xp.asarray([1.0, xp.e]))", "tensor([0., 1.])"),
    "log10": ("The base-10 logarithm of each element", "xp.log10(xp.asarray([1.0, 1000.0]))", "tensor([0., 3.])"),
    "log1p": ("log(1 + x), accurate where x is near 0 (where 1 + x rounds)",
              "xp.log1p(xp.asarray(1e-10)).item(), xp.log(1 + xp.asarray(1e-10)).item()",
              "(9.999999999500001e-11, 1.000000082690371e-10)"),
    "log2": ("The base-2 logarithm of each element", "xp.log2(xp.asarray([1.0, 8.0]))", "tensor([0., 3.])"),
    "logical_not": ("The logical NOT of each element", "xp.logical_not(xp.asarray([True, False]))",
                    "tensor([False,  True])"),
    "negative": ("-x, elementwise", "xp.negative(xp.asarray([1.0, -2.0]))", "tensor([-1.,  2.])"),
    "positive": ("+x, elementwise (the same values)", "xp.positive(xp.asarray([1.0, -2.0]))",
                 "tensor([ 1., -2.])"),
    "reciprocal": ("1 / x, elementwise", "xp.reciprocal(xp.asarray([2.0, -0.5]))", "tensor([ 0.5, -2. ])"),
    "round": ("Each element rounded to the nearest integer, halves to the even one",
              "xp.round(xp.asarray([0.5, 1.5, 2.5, -1.7]))", "tensor([ 0.,  2.,  2., -2.])"),
    "sign": ("The sign of each element: -1, 0 or 1 (x / |x| for a complex x)",
             "xp.sign(xp.asarray([-3.0, 0.0, 2.0]))", "tensor([-1.,  0.,  1.])"),
    "signbit": ("Whether each element's sign bit is set (True for -0.0)",
                "xp.signbit(xp.asarray([-1.0, -0.0, 0.0, 2.0]))", "tensor([ True,  True, False, False])"),
    "sin": ("The sine of each element (in radians)", "xp.sin(xp.asarray([0.0, xp.pi / 2]))", "tensor([0., 1.])"),
    "sinh": ("The hyperbolic sine of each element", "xp.sinh(xp.asarray([0.0, 1.0]))",
             "tensor([0.        , 1.17520119])"),
    "sqrt": ("The non-negative square root of each element", "xp.sqrt(xp.asarray([4.0, 2.0]))",
             "tensor([2.        , 1.41421356])"),
    "square": ("x * x, elementwise", "xp.square(xp.asarray([-3.0, 0.5]))", "tensor([9.  , 0.25])"),
    "tan": ("The tangent of each element (in radians)", "xp.tan(xp.asarray([0.0, xp.pi / 4]))", "tensor([0., 1.])"),
    "tanh": ("The hyperbolic tangent of each element", "xp.tanh(xp.asarray([0.0, 1.0]))",
             "tensor([0.        , 0.76159416])"),
    "trunc": ("Each element rounded toward zero to an integer (in x's dtype)",
              "xp.trunc(xp.asarray([-1.7, 0.2, 2.9]))", "tensor([-1.,  0.,  2.])"),
    "add": ("The sum x1 + x2, elementwise", "xp.add(xp.asarray([1.0, 2.0]), 0.5)", "tensor([1.5, 2.5])"),
    "divide": ("The true quotient x1 / x2, elementwise", "xp.divide(xp.asarray([1.0, 3.0]), xp.asarray([2.0, 4.0]))",
               "tensor([0.5 , 0.75])"),
    "equal": ("Whether x1 == x2, elementwise", "xp.equal(xp.asarray([1, 2, 3]), 2)", "tensor([False,  True, False])"),
    "floor_divide": ("The quotient x1 / x2 rounded down (toward -inf), elementwise",
                     "xp.floor_divide(xp.asarray([7, -7]), 2)", "tensor([ 3, -4])"),
    "greater": ("Whether x1 > x2, elementwise", "xp.greater(xp.asarray([1, 2, 3]), 2)",
                "tensor([False, False,  True])"),
    "greater_equal": ("Whether x1 >= x2, elementwise", "xp.greater_equal(xp.asarray([1, 2, 3]), 2)",
                      "tensor([False,  True,  True])"),
    "less": ("Whether x1 < x2, elementwise", "xp.less(xp.asarray([1, 2, 3]), 2)", "tensor([ True, False, False])"),
    "less_equal": ("Whether x1 <= x2, elementwise", "xp.less_equal(xp.asarray([1, 2, 3]), 2)",
                   "tensor([ True,  True, False])"),
    "multiply": ("The product x1 * x2, elementwise", "xp.multiply(xp.asarray([1.0, 2.0]), xp.asarray([3.0, -1.0]))",
                 "tensor([ 3., -2.])"),
    "not_equal": ("Whether x1 != x2, elementwise", "xp.not_equal(xp.asarray([1, 2, 3]), 2)",
                  "tensor([ True, False,  True])"),
    "pow": ("x1 to the power x2, elementwise", "xp.pow(2.0, xp.asarray([0.5, 3.0]))",
            "tensor([1.41421356, 8.        ])"),
    "subtract": ("The difference x1 - x2, elementwise", "xp.subtract(1.0, xp.asarray([0.25, 2.0]))",
                 "tensor([ 0.75, -1.  ])"),
    "atan2": ("The angle of the point (x2, x1) from the positive x2 axis, in radians from -pi to pi "
              "(atan(x1 / x2) in the right quadrant)", "xp.atan2(xp.asarray([1.0, 1.0]), xp.asarray([1.0, -1.0]))",
              "tensor([0.78539816, 2.35619449])"),
    "bitwise_and": ("The bitwise AND of integer or boolean arrays", "xp.bitwise_and(xp.asarray([12, 10]), 6)",
                    "tensor([4, 2])"),
    "bitwise_left_shift": ("x1 shifted left by x2 bits (x1 * 2**x2)", "xp.bitwise_left_shift(xp.asarray([1, 3]), 2)",
                           "tensor([ 4, 12])"),
    "bitwise_or": ("The bitwise OR of integer or boolean arrays", "xp.bitwise_or(xp.asarray([12, 10]), 6)",
                   "tensor([14, 14])"),
    "bitwise_right_shift": ("x1 shifted right by x2 bits (arithmetic: a negative x1 stays negative)",
                            "xp.bitwise_right_shift(xp.asarray([8, -8]), 2)", "tensor([ 2, -2])"),
    "bitwise_xor": ("The bitwise exclusive OR of integer or boolean arrays",
                    "xp.bitwise_xor(xp.asarray([12, 10]), 6)", "tensor([10, 12])"),
    "copysign": ("|x1| with the sign of x2 (its sign bit: -0.0 is negative)",
                 "xp.copysign(xp.asarray([1.0, 2.0]), xp.asarray([-0.0, 3.0]))", "tensor([-1.,  2.])"),
    "hypot": ("sqrt(x1**2 + x2**2), without overflow where the squares would",
              "xp.hypot(xp.asarray([3.0, 3e200]), xp.asarray([4.0, 4e200]))", "tensor([5.e+000, 5.e+200])"),
    "logaddexp": ("log(exp(x1) + exp(x2)), without overflow where the exponentials would",
                  "xp.logaddexp(xp.asarray([0.0, 1000.0]), xp.asarray([0.0, 1000.0]))",
                  "tensor([6.93147181e-01, 1.00069315e+03])"),
    "logical_and": ("The logical AND, elementwise",
                    "xp.logical_and(xp.asarray([True, True, False]), xp.asarray([True, False, False]))",
                    "tensor([ True, False, False])"),
    "logical_or": ("The logical OR, elementwise",
                   "xp.logical_or(xp.asarray([True, True, False]), xp.asarray([True, False, False]))",
                   "tensor([ True,  True, False])"),
    "logical_xor": ("The logical exclusive OR, elementwise",
                    "xp.logical_xor(xp.asarray([True, True, False]), xp.asarray([True, False, False]))",
                    "tensor([False,  True, False])"),
    "maximum": ("The larger of x1 and x2, elementwise", "xp.maximum(xp.asarray([1.0, 5.0]), xp.asarray([3.0, 2.0]))",
                "tensor([3., 5.])"),
    "minimum": ("The smaller of x1 and x2, elementwise", "xp.minimum(xp.asarray([1.0, 5.0]), xp.asarray([3.0, 2.0]))",
                "tensor([1., 2.])"),
    "nextafter": ("The next representable floating-point value after x1 toward x2",
                  "(xp.nextafter(xp.asarray(1.0), 2.0) - 1.0).item() == xp.finfo(xp.float64).eps", "True"),
    "remainder": ("The remainder of x1 / x2 with the sign of x2 (Python's %), elementwise",
                  "xp.remainder(xp.asarray([7, -7]), 3)", "tensor([1, 2])"),
}


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
    """The real part (`x.real`); a real array as it is.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.real(xp.asarray([1 + 2j, 3 - 1j]))
        tensor([1., 3.])
    """
    return tensor_arg(x, "real").real


def imag(x: Tensor, /) -> Tensor:
    """The imaginary part (`x.imag`).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.imag(xp.asarray([1 + 2j, 3 - 1j]))
        tensor([ 2., -1.])
    """
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
