"""The scalar functions' plain-number forms, their derivatives on numbers, and their array forms.

`_number` checks one argument (a real number, not a bool); each `_name` computes on numbers and
raises on bad input; the `_*_vjp` helpers are the vector-Jacobian products a `Value` node calls in
backward; the `_*_array(xp, ...)` forms are the vectorised ones `Backend.map/zip` run.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

_inf = math.inf


def _number(x: Any, name: str) -> Any:
    """`x` itself if it is a real number (not a bool), a 0-d real array of any library (a 0-d
    Tensor's `.data`) as a Python number, else a TypeError naming it."""
    t = type(x)
    if t is float or t is int:
        return x
    if t is bool or not isinstance(x, Real):
        if getattr(x, "shape", None) == () and not getattr(x, "_is_tensor", False):
            return _zero_d_number(x, name)
        raise TypeError(f"{name}: expected a number or a Value, got {t.__name__} ({x!r})")
    return x


def _zero_d_number(x: Any, name: str) -> float | int:
    """A 0-d array's element as a Python float (an int for an integer dtype); a bool or complex
    array is refused as its Python scalar would be."""
    kind = str(getattr(x, "dtype", ""))
    if "bool" in kind or "complex" in kind:
        raise TypeError(f"{name}: expected a number or a Value, got a 0-d {kind} array")
    return int(x) if "int" in kind else float(x)


# ------------------------------------------------------- the number forms
def _add(a: Any, b: Any) -> Any:
    return _number(a, "add") + _number(b, "add")


def _sub(a: Any, b: Any) -> Any:
    return _number(a, "sub") - _number(b, "sub")


def _mul(a: Any, b: Any) -> Any:
    return _number(a, "mul") * _number(b, "mul")


def _div(a: Any, b: Any) -> float:
    a, b = _number(a, "div"), _number(b, "div")
    if b == 0:
        raise ZeroDivisionError(f"div: division by zero ({a!r} / {b!r})")
    return a / b


def _inv(x: Any) -> float:
    if _number(x, "inv") == 0:
        raise ZeroDivisionError(f"inv: the inverse of zero ({x!r})")
    return 1.0 / x


def _neg(x: Any) -> Any:
    return -_number(x, "neg")


def _pow(a: Any, b: Any) -> Any:
    """`a ** b`; raises where it has no real value, overflows to infinity."""
    a, b = _python_number(_number(a, "pow")), _python_number(_number(b, "pow"))
    if a == 0 and b < 0:
        raise ZeroDivisionError(f"pow: zero to a negative power ({a!r} ** {b!r})")
    try:
        result = a ** b
    except OverflowError:  # (a negative base to a fractional power overflows before it turns complex)
        result = _signed_inf(a, b) if a >= 0 or b % 1 == 0 else 1j
    if isinstance(result, complex):
        raise ValueError(f"pow: a negative base to a fractional power has no real value ({a!r} ** {b!r})")
    return result


def _python_number(x: Any) -> Any:
    """A number of another type (a NumPy scalar) as the Python int or float it holds: NumPy's own
    `**` gives NaN and a warning where these rules raise, and refuses an integer to a negative power."""
    t = type(x)
    if t is float or t is int:
        return x
    return int(x) if isinstance(x, Integral) else float(x)


def _signed_inf(a: Any, b: Any) -> float:
    """The infinity `a ** b` overflows to (or, for a pole `0 ** b`, tends to): negative only for
    a negative base (or -0.0) to an odd integer power."""
    negative = a < 0 or a == 0 and math.copysign(1.0, a) < 0  # (copysign would float a huge int)
    return -_inf if negative and b % 2 == 1 else _inf


def _exp(x: Any) -> float:
    try:
        return math.exp(_number(x, "exp"))
    except OverflowError:
        return _inf


def _ln(x: Any) -> float:
    if _number(x, "ln") <= 0:
        raise ValueError(f"ln: the logarithm needs a positive number, got {x!r}")
    return math.log(x)


def _sqrt(x: Any) -> float:
    if _number(x, "sqrt") < 0:
        raise ValueError(f"sqrt: the square root needs a non-negative number, got {x!r}")
    return math.sqrt(x)


def _tanh(x: Any) -> float:
    return math.tanh(_number(x, "tanh"))


def _sigmoid(x: Any) -> float:
    """1 / (1 + e^-x), written so neither branch overflows."""
    if _number(x, "sigmoid") >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _relu(x: Any) -> float:
    return 0.0 if _number(x, "relu") <= 0 else x + 0.0  # NaN stays NaN (as the Tensor op)


def _max(a: Any, b: Any) -> Any:
    return a if _number(a, "max") >= _number(b, "max") or a != a else b  # a NaN on either side wins


# ---------------------------------------- vector-Jacobian products (numbers)
def _pow_or_inf(a: float, b: float) -> float:
    """`a ** b` for a derivative: a pole (0 to a negative power) or an overflow is an infinity of
    the sign the power has (-inf for a negative base to an odd power)."""
    try:
        return a ** b
    except (ZeroDivisionError, OverflowError):
        return _signed_inf(a, b)


def _pow_vjp(d: float, out: float, a: float, b: float) -> tuple[float, float]:
    """d/da = b a^(b-1) (0 when b == 0, PyTorch's convention); d/db = a^b ln a, 0 where a == 0."""
    da = 0.0 if b == 0 else d * b * _pow_or_inf(a, b - 1.0)
    if a > 0:
        db = d * out * math.log(a)
    else:  # a == 0: the limit a -> 0+ for b > 0, and (b == 0) the Tensor engine's and PyTorch's convention;
        db = 0.0 if a == 0 else math.nan  # a negative base has no real derivative in b
    return da, db


def _pow_da_vjp(d: float, a: float, b: float) -> tuple[float, float]:
    """The partials of pow_da(a, b) = b * a^(b-1), through `_pow_vjp` at (a, b - 1), so that its
    conventions hold (0 ** -1 is never computed: the plain formula raised ZeroDivisionError at a = 0)."""
    power = _pow_or_inf(a, b - 1.0)
    da, db = _pow_vjp(1.0, power, a, b - 1.0)
    return d * b * da, d * (power + b * db)


def _pow_db_vjp(d: float, out: float, a: float, b: float) -> tuple[float, float]:
    """The partials of pow_db(a, b) = a^b ln a: as the formula where a > 0; where a <= 0, pow_db
    is a convention (0 at a == 0, NaN below), constant in b at 0, with no derivative in a."""
    if a <= 0:
        return math.nan, (0.0 if a == 0 else math.nan)
    log_a = math.log(a)
    return d * (_pow_vjp(1.0, out, a, b)[0] * log_a + _pow_or_inf(a, b - 1.0)), d * out * log_a


def _sqrt_vjp(d: float, out: float, x: float) -> float:
    """0.5 / sqrt(x); +inf at 0, where the slope is vertical (-inf at -0.0, whose sqrt is -0.0: 0.5 / -0.0,
    as the Tensor op and PyTorch give)."""
    return d * 0.5 / out if out else d * math.copysign(_inf, out)


def _max_vjp(d: float, out: float, a: float, b: float) -> tuple[float, float]:
    """The gradient goes to the argument `_max` returns: the larger, `a` at a tie, the NaN if one is."""
    return (d, 0.0) if a >= b or a != a else (0.0, d)


# ------------------------------------------------------ the vectorised forms
def _sigmoid_array(xp: Any, x: Any) -> Any:
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _step_array(xp: Any, x: Any) -> Any:
    return xp.astype(x > 0, x.dtype)


def _right_wins_array(xp: Any, a: Any, b: Any) -> Any:
    return xp.astype(xp.logical_not((a >= b) | (a != a)), a.dtype)


def _pow_da_array(xp: Any, a: Any, b: Any) -> Any:
    """b a^(b-1), 0 where b == 0 (with the exponent 1 there, so no 0 ** -1 is computed)."""
    nonzero = b != 0
    da = b * a ** (xp.where(nonzero, b, xp.ones_like(b)) - 1.0)
    return xp.where(nonzero, da, xp.zeros_like(da))


def _pow_db_array(xp: Any, a: Any, b: Any) -> Any:
    """a^b ln a where a > 0, 0 where a == 0, NaN where a < 0 (no log of a non-positive number)."""
    positive = a > 0
    safe = xp.where(positive, a, xp.ones_like(a))
    db = safe ** b * xp.log(safe)
    fill = xp.where(a == 0, xp.zeros_like(db), xp.full_like(db, math.nan))
    return xp.where(positive, db, fill)


def _zero_array(xp: Any, x: Any, *rest: Any) -> Any:
    return xp.zeros_like(x)


def _one_array(xp: Any, x: Any, *rest: Any) -> Any:
    return xp.ones_like(x)


def _zero_vjp(d: float, out: float, *args: float) -> Any:
    return 0.0 if len(args) == 1 else (0.0, 0.0)
