"""Scalar reverse-mode autodiff (`Value`) and the scalar functions it shares.

Every function here (`add, sub, mul, div, neg, pow, relu, tanh, exp, ln,
sqrt`, ...) works on three kinds of argument:

- plain numbers: returns a plain number (`mul(2.0, 3.0) == 6.0`), so the same
  functions serve `backend.map/zip/reduce`;
- `Value`s (numbers are wrapped as constants): returns a `Value` that records
  its inputs for `backward()`;
- Tensors: runs elementwise through the tensor's backend (`Map`/`Zip`).

Each function knows its partial derivatives (`fn.partials`), written with
these same functions, so they serve all three kinds too.

Example:
    >>> from torchlight.scalar import variable
    >>> x, y = variable(2.0), variable(3.0)
    >>> loss = x.mul(y).add(x.pow(2.0)).add(1.0)
    >>> loss.backward()
    >>> loss.data, x.grad, y.grad
    (11.0, 7.0, 2.0)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from torchlight.autograd.engine import backpropagate, topological_sort
from torchlight.autograd.function import History

Number = float


class ScalarFunction:
    """A scalar function of numbers, Values and Tensors, with its derivatives.

    `number_fn` computes on plain numbers (and raises on bad input);
    `array_fn(xp, *arrays)` is its vectorised form; `partials[i](*args)` is
    the derivative with respect to argument i; `reduce_name` names the
    namespace reduction that folds it (`sum` for add).
    """

    __slots__ = ("__name__", "arity", "number_fn", "array_fn", "partials", "reduce_name")

    def __init__(self, name: str, number_fn: Callable, array_fn: Callable | None,
                 partials: tuple[Callable, ...], reduce_name: str | None = None) -> None:
        self.__name__ = name
        self.arity = len(partials)
        self.number_fn = number_fn
        self.array_fn = array_fn
        self.partials = partials
        self.reduce_name = reduce_name

    def __repr__(self) -> str:
        return f"<scalar function {self.__name__}>"

    def __call__(self, *args: Any) -> Any:
        if len(args) != self.arity:
            raise TypeError(f"{self.__name__}() takes {self.arity} argument(s), got {len(args)}")
        kind = _kind_of(args, self.__name__)
        if kind is None:
            return self.number_fn(*args)
        if kind is Value:
            return Value._from_op(self, args)
        return _on_tensors(self, args)


def _kind_of(args: tuple, name: str) -> type | None:
    """None for all plain numbers, else `Value` or the Tensor class."""
    kind = None
    for a in args:
        if isinstance(a, Value):
            kind = kind or Value
        elif isinstance(a, (float, int)) or isinstance(a, numbers.Real):
            continue
        elif getattr(a, "_is_tensor", False):
            return type(a)
        else:
            raise TypeError(f"{name}: expected a number, Value or Tensor, got {type(a).__name__} ({a!r})")
    return kind


def _on_tensors(fn: ScalarFunction, args: tuple) -> Any:
    like = next(a for a in args if getattr(a, "_is_tensor", False))
    if fn.arity == 1:
        return like.backend.map(fn)(like)
    return like.backend.zip(fn)(*args)


def _check_number(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(x).__name__} ({x!r})")
    return x


def _div(a: float, b: float) -> float:
    if b == 0:
        raise ZeroDivisionError(f"div: division by zero ({a!r} / {b!r})")
    return a / b


def _ln(x: float) -> float:
    if x <= 0:
        raise ValueError(f"ln: the logarithm needs a positive number, got {x!r}")
    return math.log(x)


def _sqrt(x: float) -> float:
    if x < 0:
        raise ValueError(f"sqrt: the square root needs a non-negative number, got {x!r}")
    return math.sqrt(x)


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _pow(a: float, b: float) -> float:
    if a == 0 and b < 0:
        raise ZeroDivisionError(f"pow: zero to a negative power ({a!r} ** {b!r})")
    result = a ** b
    if isinstance(result, complex):
        raise ValueError(f"pow: a negative base to a fractional power has no real value ({a!r} ** {b!r})")
    return result


def _tanh_array(xp: Any, x: Any) -> Any:
    return xp.tanh(x)


def _sigmoid_number(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _sigmoid_array(xp: Any, x: Any) -> Any:
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _step_array(xp: Any, x: Any) -> Any:
    return xp.astype(x > 0, x.dtype)


def _zero_array(xp: Any, x: Any, *rest: Any) -> Any:
    return xp.zeros_like(x)


def _one_array(xp: Any, x: Any, *rest: Any) -> Any:
    return xp.ones_like(x)


# The derivative helpers are ScalarFunctions too, so `Map` can differentiate
# its own backward (second derivatives through map/zip).
zero = ScalarFunction("zero", lambda x: 0.0, _zero_array, (lambda x: zero(x),))
one = ScalarFunction("one", lambda x: 1.0, _one_array, (lambda x: zero(x),))
step = ScalarFunction("step", lambda x: 1.0 if x > 0 else 0.0, _step_array, (lambda x: zero(x),))

add = ScalarFunction("add", lambda a, b: _check_number(a, "add") + _check_number(b, "add"),
                     lambda xp, a, b: a + b, (lambda a, b: one(a), lambda a, b: one(b)), "sum")
sub = ScalarFunction("sub", lambda a, b: _check_number(a, "sub") - _check_number(b, "sub"),
                     lambda xp, a, b: a - b, (lambda a, b: one(a), lambda a, b: neg(one(b))))
mul = ScalarFunction("mul", lambda a, b: _check_number(a, "mul") * _check_number(b, "mul"),
                     lambda xp, a, b: a * b, (lambda a, b: b, lambda a, b: a), "prod")
div = ScalarFunction("div", lambda a, b: _div(_check_number(a, "div"), _check_number(b, "div")),
                     lambda xp, a, b: a / b, (lambda a, b: div(1.0, b), lambda a, b: neg(div(a, mul(b, b)))))
neg = ScalarFunction("neg", lambda x: -_check_number(x, "neg"), lambda xp, x: -x,
                     (lambda x: neg(one(x)),))
pow = ScalarFunction("pow", lambda a, b: _pow(_check_number(a, "pow"), _check_number(b, "pow")),
                     lambda xp, a, b: a ** b,
                     (lambda a, b: mul(b, pow(a, sub(b, 1.0))), lambda a, b: mul(pow(a, b), ln(a))))
exp = ScalarFunction("exp", lambda x: _exp(_check_number(x, "exp")), lambda xp, x: xp.exp(x),
                     (lambda x: exp(x),))
ln = ScalarFunction("ln", lambda x: _ln(_check_number(x, "ln")), lambda xp, x: xp.log(x),
                    (lambda x: div(1.0, x),))
sqrt = ScalarFunction("sqrt", lambda x: _sqrt(_check_number(x, "sqrt")), lambda xp, x: xp.sqrt(x),
                      (lambda x: div(0.5, sqrt(x)),))
tanh = ScalarFunction("tanh", lambda x: math.tanh(_check_number(x, "tanh")), _tanh_array,
                      (lambda x: sub(1.0, mul(tanh(x), tanh(x))),))
sigmoid = ScalarFunction("sigmoid", lambda x: _sigmoid_number(_check_number(x, "sigmoid")), _sigmoid_array,
                         (lambda x: mul(sigmoid(x), sub(1.0, sigmoid(x))),))
relu = ScalarFunction("relu", lambda x: 1.0 * x if _check_number(x, "relu") > 0 else 0.0,
                      lambda xp, x: xp.where(x > 0, x, xp.zeros_like(x)), (lambda x: step(x),))
inv = ScalarFunction("inv", lambda x: _div(1.0, _check_number(x, "inv")), lambda xp, x: 1.0 / x,
                     (lambda x: neg(div(1.0, mul(x, x))),))
log = ln
max = ScalarFunction("max", lambda a, b: a if _check_number(a, "max") >= _check_number(b, "max") else b,
                     lambda xp, a, b: xp.maximum(a, b),
                     (lambda a, b: sub(one(a), step(sub(b, a))), lambda a, b: step(sub(b, a))), "max")
# the numbers-only helpers that read as their names
eq = ScalarFunction("eq", lambda a, b: 1.0 if a == b else 0.0,
                    lambda xp, a, b: xp.astype(a == b, a.dtype), (lambda a, b: zero(a), lambda a, b: zero(b)))
lt = ScalarFunction("lt", lambda a, b: 1.0 if a < b else 0.0,
                    lambda xp, a, b: xp.astype(a < b, a.dtype), (lambda a, b: zero(a), lambda a, b: zero(b)))


class Value:
    """A scalar node: forward `data`, accumulated `grad`, and its history.

    Example:
        >>> from torchlight.scalar import variable
        >>> variable(9.0).sqrt().data
        3.0
    """

    __slots__ = ("data", "grad", "requires_grad", "history", "__weakref__")
    retains_grad = True

    def __init__(self, data: float, requires_grad: bool = True, history: History | None = None) -> None:
        self.data = float(_check_number(data, "Value"))
        self.grad = 0.0
        self.requires_grad = requires_grad
        self.history = history

    @classmethod
    def _from_op(cls, fn: ScalarFunction, args: tuple) -> Value:
        inputs = tuple(a if isinstance(a, Value) else Value(a, requires_grad=False) for a in args)
        out = cls.__new__(cls)
        out.data = float(fn.number_fn(*(a.data for a in inputs)))
        out.grad = 0.0
        out.requires_grad = any(a.requires_grad for a in inputs)
        out.history = History(fn, None, inputs) if out.requires_grad else None
        return out

    def __repr__(self) -> str:
        return f"Value(data={self.data!r}, grad={self.grad!r})"

    # ------------------------------------------------ the Variable protocol
    @property
    def parents(self) -> tuple[Value, ...]:
        return () if self.history is None else self.history.inputs

    @property
    def is_leaf(self) -> bool:
        return self.history is None

    def is_constant(self) -> bool:
        return not self.requires_grad

    def chain_rule(self, d_output: float, retain_graph: bool = True) -> list[tuple[Value, float]]:
        fn, inputs = self.history.last_fn, self.history.inputs
        datas = tuple(a.data for a in inputs)
        return [(a, d_output * partial(*datas)) for a, partial in zip(inputs, fn.partials)
                if a.requires_grad]

    def accumulate_derivative(self, d: float) -> None:
        self.grad += d

    def seed_derivative(self, d: Any) -> float:
        return float(d)

    # ------------------------------------------------------------- autograd
    def backward(self) -> None:
        """Clear the old gradients of this graph, seed 1.0 and propagate."""
        backward(self)

    def zero_grad(self) -> None:
        """Reset every gradient of the graph feeding this Value."""
        zero_grad(self)

    # ------------------------------------------------- methods and operators
    def add(self, other: Any) -> Value:
        return add(self, other)

    def sub(self, other: Any) -> Value:
        return sub(self, other)

    def mul(self, other: Any) -> Value:
        return mul(self, other)

    def div(self, other: Any) -> Value:
        return div(self, other)

    def neg(self) -> Value:
        return neg(self)

    def pow(self, exponent: Any) -> Value:
        return pow(self, exponent)

    def relu(self) -> Value:
        return relu(self)

    def tanh(self) -> Value:
        return tanh(self)

    def sigmoid(self) -> Value:
        return sigmoid(self)

    def exp(self) -> Value:
        return exp(self)

    def ln(self) -> Value:
        return ln(self)

    log = ln

    def sqrt(self) -> Value:
        return sqrt(self)

    def __add__(self, other: Any) -> Value:
        return add(self, other)

    def __radd__(self, other: Any) -> Value:
        return add(other, self)

    def __sub__(self, other: Any) -> Value:
        return sub(self, other)

    def __rsub__(self, other: Any) -> Value:
        return sub(other, self)

    def __mul__(self, other: Any) -> Value:
        return mul(self, other)

    def __rmul__(self, other: Any) -> Value:
        return mul(other, self)

    def __truediv__(self, other: Any) -> Value:
        return div(self, other)

    def __rtruediv__(self, other: Any) -> Value:
        return div(other, self)

    def __pow__(self, exponent: Any) -> Value:
        return pow(self, exponent)

    def __rpow__(self, base: Any) -> Value:
        return pow(base, self)

    def __neg__(self) -> Value:
        return neg(self)

    def __float__(self) -> float:
        return self.data


def variable(x: float) -> Value:
    """A differentiable leaf: `variable(3.0).data == 3.0`."""
    return Value(x, requires_grad=True)


value = variable


def constant(x: float) -> Value:
    """A leaf that gets no gradient: `constant(5.0).data == 5.0`."""
    return Value(x, requires_grad=False)


def data(v: Value) -> float:
    """The forward value of `v`."""
    return v.data


def grad(v: Value) -> float:
    """The accumulated gradient of `v`."""
    return v.grad


def zero_grad(v: Value) -> None:
    """Reset the gradients of every node of the graph feeding `v`."""
    v.grad = 0.0
    for node in topological_sort(v):
        node.grad = 0.0


def backward(v: Value) -> None:
    """Clear the graph's old gradients, seed `v.grad = 1.0` and propagate."""
    zero_grad(v)
    if v.requires_grad:
        backpropagate(v, 1.0)
