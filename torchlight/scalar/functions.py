"""`ScalarFunction` and the scalar functions (`add`, `mul`, ..., `max`, and their derivative helpers).

A scalar function computes on plain numbers (`number_fn`), builds a `Value` node when given
Values, and runs elementwise through a Tensor's backend (`Map`/`Zip`), which reads its
`array_fn`, `partials`, `arity` and `reduce_name`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchlight.scalar.forms import (
    _add,
    _div,
    _exp,
    _inv,
    _ln,
    _max,
    _max_vjp,
    _mul,
    _neg,
    _number,
    _one_array,
    _pow,
    _pow_da_array,
    _pow_da_vjp,
    _pow_db_array,
    _pow_db_vjp,
    _pow_vjp,
    _relu,
    _right_wins_array,
    _sigmoid,
    _sigmoid_array,
    _sqrt,
    _sqrt_vjp,
    _step_array,
    _sub,
    _tanh,
    _zero_array,
    _zero_vjp,
)


class ScalarFunction:
    """A scalar function of numbers, Values and Tensors, with its derivatives.

    `number_fn` computes on plain numbers (and raises on bad input);
    `array_fn(xp, *arrays)` is its vectorised form; `partials[i](*args)` is
    the derivative with respect to argument i; `vjp(d, out, *args)` is the
    vector-Jacobian product on plain numbers (one number per argument, a
    tuple for two); `reduce_name` names the namespace reduction that folds it
    (`sum` for add).
    """

    def __init__(self, name: str, number_fn: Callable, array_fn: Callable | None,
                 partials: tuple[Callable, ...], vjp: Callable, reduce_name: str | None = None) -> None:
        self.__name__ = name
        self.arity = len(partials)
        self.number_fn = number_fn
        self.array_fn = array_fn
        self.partials = partials
        self.vjp = vjp
        self.reduce_name = reduce_name

    def __repr__(self) -> str:
        return f"<scalar function {self.__name__}>"

    # Like a Python function, a scalar function is one object: a copy is itself (so a copied
    # graph's `history.last_fn is scalar.mul`), and this module's own pickle by name.
    def __copy__(self) -> ScalarFunction:
        return self

    def __deepcopy__(self, memo: dict) -> ScalarFunction:
        return self

    def __reduce_ex__(self, protocol: Any) -> Any:
        if globals().get(self.__name__) is self:
            return _scalar_function, (self.__name__,)
        return super().__reduce_ex__(protocol)

    def __call__(self, *args: Any) -> Any:
        if len(args) != self.arity:
            raise TypeError(f"{self.__name__}() takes {self.arity} argument(s), got {len(args)}")
        kind = _kind_of(args, self.__name__)
        if kind is None:
            return self.number_fn(*args)
        if kind is Value:
            return _apply(self, args)
        return _on_tensors(self, args)


def _scalar_function(name: str) -> ScalarFunction:
    """This module's scalar function `name` (what unpickling one gives back)."""
    return globals()[name]


def _kind_of(args: tuple, name: str) -> type | None:
    """None for plain numbers only, else `Value`, or the class of the first Tensor (any Tensor class:
    a Parameter and a Tensor go together)."""
    kind = None
    for a in args:
        t = type(a)
        if t is float or t is int:
            continue
        if isinstance(a, Value):
            if kind is not None and kind is not Value:
                _mixed(name)
            kind = Value
        elif getattr(a, "_is_tensor", False):
            if kind is Value:
                _mixed(name)
            kind = kind or t
        else:
            _number(a, name)
    return kind


def _mixed(name: str) -> None:
    raise TypeError(f"{name}: cannot mix a Value and a Tensor in one call; use one engine or the other")


def _on_tensors(fn: ScalarFunction, args: tuple) -> Any:
    like = next(a for a in args if getattr(a, "_is_tensor", False))
    if fn.arity == 1:
        return like.backend.map(fn)(like)
    return like.backend.zip(fn)(*args)



# (declared first for the type checker: the partials' lambdas call these before, or while, they are bound)
zero: ScalarFunction
neg: ScalarFunction
div: ScalarFunction
pow_da: ScalarFunction
pow_db: ScalarFunction
ln: ScalarFunction
exp: ScalarFunction
sqrt: ScalarFunction
tanh: ScalarFunction
sigmoid: ScalarFunction

# The derivative helpers are ScalarFunctions too, so `Map` can differentiate
# its own backward (second derivatives through map/zip).
zero = ScalarFunction("zero", lambda x: 0.0, _zero_array, (lambda x: zero(x),), _zero_vjp)
one = ScalarFunction("one", lambda x: 1.0, _one_array, (lambda x: zero(x),), _zero_vjp)
step = ScalarFunction("step", lambda x: 1.0 if x > 0 else 0.0, _step_array, (lambda x: zero(x),), _zero_vjp)
# 1.0 where max(a, b) is b (b larger, or b alone NaN), else 0.0: which side max's gradient goes to
right_wins = ScalarFunction("right_wins", lambda a, b: 0.0 if a >= b or a != a else 1.0, _right_wins_array,
                            (lambda a, b: zero(a), lambda a, b: zero(b)), _zero_vjp)

add = ScalarFunction("add", _add, lambda xp, a, b: a + b, (lambda a, b: one(a), lambda a, b: one(b)),
                     lambda d, out, a, b: (d, d), "sum")
sub = ScalarFunction("sub", _sub, lambda xp, a, b: a - b, (lambda a, b: one(a), lambda a, b: neg(one(b))),
                     lambda d, out, a, b: (d, -d))
mul = ScalarFunction("mul", _mul, lambda xp, a, b: a * b, (lambda a, b: b, lambda a, b: a),
                     lambda d, out, a, b: (d * b, d * a), "prod")
div = ScalarFunction("div", _div, lambda xp, a, b: a / b,
                     (lambda a, b: div(1.0, b), lambda a, b: neg(div(div(a, b), b))),  # (a / b / b: b * b overflows)
                     lambda d, out, a, b: (d / b, -d * out / b))
neg = ScalarFunction("neg", _neg, lambda xp, x: -x, (lambda x: neg(one(x)),), lambda d, out, x: -d)
pow = ScalarFunction("pow", _pow, lambda xp, a, b: a ** b,
                     (lambda a, b: pow_da(a, b), lambda a, b: pow_db(a, b)), _pow_vjp)
# pow's partials with its conventions (those of `_pow_vjp`), so map/zip's gradients are the Value
# engine's: d/da is 0 where b == 0, d/db 0 where a == 0 and NaN where a < 0. Their own partials
# (second derivatives) are the plain formulas.
pow_da = ScalarFunction("pow_da", lambda a, b: _pow_vjp(1.0, 0.0, a, b)[0], _pow_da_array,
                        (lambda a, b: mul(b, pow_da(a, sub(b, 1.0))),
                         lambda a, b: add(pow(a, sub(b, 1.0)), mul(b, pow_db(a, sub(b, 1.0))))),
                        lambda d, out, a, b: _pow_da_vjp(d, a, b))
pow_db = ScalarFunction("pow_db", lambda a, b: _pow_vjp(1.0, _pow(a, b), a, b)[1], _pow_db_array,
                        (lambda a, b: add(mul(pow_da(a, b), ln(a)), pow(a, sub(b, 1.0))),
                         lambda a, b: mul(pow_db(a, b), ln(a))),
                        lambda d, out, a, b: _pow_db_vjp(d, out, a, b))
exp = ScalarFunction("exp", _exp, lambda xp, x: xp.exp(x), (lambda x: exp(x),), lambda d, out, x: d * out)
ln = ScalarFunction("ln", _ln, lambda xp, x: xp.log(x), (lambda x: div(1.0, x),), lambda d, out, x: d / x)
sqrt = ScalarFunction("sqrt", _sqrt, lambda xp, x: xp.sqrt(x), (lambda x: div(0.5, sqrt(x)),), _sqrt_vjp)
tanh = ScalarFunction("tanh", _tanh, lambda xp, x: xp.tanh(x), (lambda x: sub(1.0, mul(tanh(x), tanh(x))),),
                      lambda d, out, x: d * (1.0 - out * out))
sigmoid = ScalarFunction("sigmoid", _sigmoid, _sigmoid_array, (lambda x: mul(sigmoid(x), sub(1.0, sigmoid(x))),),
                         lambda d, out, x: d * out * (1.0 - out))
# relu'(0) = 0: the kink gets the left slope, as in PyTorch (step is x > 0).
relu = ScalarFunction("relu", _relu, lambda xp, x: xp.where(x <= 0, xp.zeros_like(x), x), (lambda x: step(x),),
                      lambda d, out, x: d if x > 0 else 0.0)
inv = ScalarFunction("inv", _inv, lambda xp, x: 1.0 / x, (lambda x: neg(div(1.0, mul(x, x))),),
                     lambda d, out, x: -d * out * out)
log = ln
max = ScalarFunction("max", _max, lambda xp, a, b: xp.maximum(a, b),
                     (lambda a, b: sub(one(a), right_wins(a, b)), lambda a, b: right_wins(a, b)), _max_vjp, "max")
# numbers-only helpers that read as their names (no gradient)
eq = ScalarFunction("eq", lambda a, b: 1.0 if a == b else 0.0, lambda xp, a, b: xp.astype(a == b, a.dtype),
                    (lambda a, b: zero(a), lambda a, b: zero(b)), _zero_vjp)
lt = ScalarFunction("lt", lambda a, b: 1.0 if a < b else 0.0, lambda xp, a, b: xp.astype(a < b, a.dtype),
                    (lambda a, b: zero(a), lambda a, b: zero(b)), _zero_vjp)


def _binary_vjp(op: ScalarFunction, d: float, out: float, a: float, b: float) -> tuple[float, float]:
    """The two input gradients of a binary node; add and mul inline (no vjp call for the commonest ops)."""
    if op is add:
        return d, d
    if op is mul:
        return d * b, d * a
    return op.vjp(d, out, a, b)



# Value's module builds on the functions above (its operators record them), and `__call__` above
# builds Values: the package imports this module first, so this import finds them defined.
from torchlight.scalar.node import Value, _apply  # noqa: E402
