"""`Value`, the scalar node, with the engine's Variable protocol, and the leaves' constructors."""

from __future__ import annotations

import copy
import math
from numbers import Real
from typing import Any

from torchlight.engine import History
from torchlight.scalar.forms import _div, _exp, _inv, _ln, _number, _pow, _sigmoid, _sqrt
from torchlight.scalar.functions import (
    ScalarFunction,
    _binary_vjp,
    add,
    div,
    exp,
    inv,
    ln,
    mul,
    neg,
    pow,
    relu,
    sigmoid,
    sqrt,
    sub,
    tanh,
)
from torchlight.scalar.gradients import backward, zero_grad

_new = object.__new__


class Value:
    """A scalar node: forward `data`, accumulated `grad`, and its history.

    Made by `variable`/`value` (a differentiable leaf), `constant` (a leaf
    that gets no gradient) or by an op. An op whose inputs are all constants
    gives a constant. `backward()` fills `grad` on every node of the graph
    (inner nodes too, as in micrograd), except constants, which stay 0.

    Example:
        >>> from torchlight.scalar import variable
        >>> variable(9.0).sqrt().data
        3.0
    """

    __slots__ = ("data", "grad", "requires_grad", "_op", "_a", "_b", "__weakref__")
    retains_grad = True

    def __init__(self, data: float, requires_grad: bool = True) -> None:
        t = type(data)  # (its own check: _number's message says "a number or a Value")
        if t is not float and t is not int and (t is bool or not isinstance(data, Real)):
            hint = "; pass its .data for a new leaf" if isinstance(data, Value) else ""
            raise TypeError(f"Value: data must be a number, got {type(data).__name__} ({data!r}){hint}")
        self.data = float(data)
        self.grad = 0.0
        self.requires_grad = bool(requires_grad)
        self._op: ScalarFunction | None = None  # the op that made it; its inputs are _a (and _b)
        self._a: Value | None = None
        self._b: Value | None = None

    def __repr__(self) -> str:
        return f"Value(data={self.data!r}, grad={self.grad!r})"

    def __float__(self) -> float:
        return self.data

    def __deepcopy__(self, memo: dict) -> Value:
        """A copy of this Value and of the graph feeding it, constants included (`copy.deepcopy`).

        Built leaves first in one loop rather than by recursion, so a graph of
        any depth copies (the default recursion stopped at a chain of about 200
        nodes); nodes already in `memo` are shared, as deepcopy promises.
        """
        for node in _nodes_leaves_first(self, memo):
            new = _new(type(node))
            new.data, new.grad, new.requires_grad, new._op = node.data, node.grad, node.requires_grad, node._op
            new._a = None if node._a is None else memo[id(node._a)]
            new._b = None if node._b is None else memo[id(node._b)]
            if hasattr(node, "__dict__"):  # a subclass's own attributes
                new.__dict__.update(copy.deepcopy(node.__dict__, memo))
            memo[id(node)] = new
        return memo[id(self)]

    @property
    def history(self) -> History | None:
        """The op that made this node and its inputs (None for a leaf)."""
        return None if self._op is None else History(self._op, None, self.parents)

    # ------------------------------------------------ the Variable protocol
    @property
    def parents(self) -> tuple[Value, ...]:
        if self._op is None:
            return ()
        # (a node an op made has its input _a: _binary sets _op, _a and _b together)
        return (self._a,) if self._b is None else (self._a, self._b)  # type: ignore[return-value]

    @property
    def is_leaf(self) -> bool:
        return self._op is None

    def chain_rule(self, d_output: float, retain_graph: bool = True) -> tuple[tuple[Value, float], ...]:
        """(input, gradient) pairs for the inputs that need one."""
        a: Value  # (not None: the engine calls chain_rule on a node an op made, whose _op and _a are set)
        op: ScalarFunction
        a, b, op = self._a, self._b, self._op  # type: ignore[assignment]
        if b is None:
            return ((a, op.vjp(d_output, self.data, a.data)),)
        da, db = _binary_vjp(op, d_output, self.data, a.data, b.data)
        if not b.requires_grad:
            return ((a, da),)
        if not a.requires_grad:
            return ((b, db),)
        return ((a, da), (b, db))

    def accumulate_derivative(self, d: float) -> None:
        """Add `d` into `grad` (the engine's commit)."""
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

    # ---------------------------------------------- methods (documented names)
    def add(self, other: Any) -> Value:
        return self.__add__(other)

    def sub(self, other: Any) -> Value:
        return self.__sub__(other)

    def mul(self, other: Any) -> Value:
        return self.__mul__(other)

    def div(self, other: Any) -> Value:
        return self.__truediv__(other)

    def neg(self) -> Value:
        return self.__neg__()

    def pow(self, exponent: Any) -> Value:
        return self.__pow__(exponent)

    def relu(self) -> Value:
        x = self.data
        return _unary(relu, 0.0 if x <= 0 else x, self)

    def tanh(self) -> Value:
        return _unary(tanh, math.tanh(self.data), self)

    def sigmoid(self) -> Value:
        return _unary(sigmoid, _sigmoid(self.data), self)

    def exp(self) -> Value:
        return _unary(exp, _exp(self.data), self)

    def ln(self) -> Value:
        return _unary(ln, _ln(self.data), self)

    log = ln

    def sqrt(self) -> Value:
        return _unary(sqrt, _sqrt(self.data), self)

    def inv(self) -> Value:
        return _unary(inv, _inv(self.data), self)

    # ------------------------------------------------------------- operators
    def __add__(self, other: Any) -> Value:
        if type(other) is not Value:
            other = _operand(other, "add")
        return _binary(add, self.data + other.data, self, other)

    def __radd__(self, other: Any) -> Value:
        return _operand(other, "add").__add__(self)

    def __sub__(self, other: Any) -> Value:
        if type(other) is not Value:
            other = _operand(other, "sub")
        return _binary(sub, self.data - other.data, self, other)

    def __rsub__(self, other: Any) -> Value:
        return _operand(other, "sub").__sub__(self)

    def __mul__(self, other: Any) -> Value:
        if type(other) is not Value:
            other = _operand(other, "mul")
        return _binary(mul, self.data * other.data, self, other)

    def __rmul__(self, other: Any) -> Value:
        return _operand(other, "mul").__mul__(self)

    def __truediv__(self, other: Any) -> Value:
        if type(other) is not Value:
            other = _operand(other, "div")
        return _binary(div, _div(self.data, other.data), self, other)

    def __rtruediv__(self, other: Any) -> Value:
        return _operand(other, "div").__truediv__(self)

    def __pow__(self, exponent: Any) -> Value:
        if type(exponent) is not Value:
            exponent = _operand(exponent, "pow")
        return _binary(pow, _pow(self.data, exponent.data), self, exponent)

    def __rpow__(self, base: Any) -> Value:
        return _operand(base, "pow").__pow__(self)

    def __neg__(self) -> Value:
        return _unary(neg, -self.data, self)


def _operand(x: Any, name: str) -> Value:
    """A Value as is; a number wrapped as a constant; anything else a TypeError."""
    if isinstance(x, Value):
        return x
    c = _new(Value)
    c.data = float(_number(x, name))
    c.grad = 0.0
    c.requires_grad = False
    c._op = c._a = c._b = None
    return c


def _nodes_leaves_first(root: Value, memo: dict) -> list[Value]:
    """Every node feeding `root` (constants too) that `memo` lacks, each after its inputs."""
    order: list[Value] = []
    seen: set[int] = set()
    stack: list[tuple[Value, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif id(node) not in seen and id(node) not in memo:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in (node._b, node._a) if p is not None)
    return order


def _unary(op: ScalarFunction, data: float, a: Value) -> Value:
    """The node `op(a)` whose forward value is `data`."""
    return _binary(op, data, a, None)


def _binary(op: ScalarFunction, data: float, a: Value, b: Value | None) -> Value:
    """The node `op(a, b)` whose forward value is `data` (no links when constant)."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    if a.requires_grad or b is not None and b.requires_grad:
        out.requires_grad = True
        out._op = op
        out._a = a
        out._b = b
    else:
        out.requires_grad = False
        out._op = out._a = out._b = None
    return out


def _apply(fn: ScalarFunction, args: tuple) -> Value:
    """`fn` on Values (numbers among them wrapped as constants)."""
    inputs = tuple(_operand(a, fn.__name__) for a in args)
    data = float(fn.number_fn(*[a.data for a in inputs]))
    if len(inputs) == 1:
        return _unary(fn, data, inputs[0])
    return _binary(fn, data, inputs[0], inputs[1])


# ------------------------------------------------------- the module API
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
