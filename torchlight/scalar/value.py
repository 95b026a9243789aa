"""The scalar engine's core: the scalar functions (`add`, `mul`, ..., `max`), `Value` (the node,
with the engine's Variable protocol) and `backward`/`zero_grad` on a graph of Values.

A scalar function computes on plain numbers (`number_fn`), builds a `Value` node when given
Values, and runs elementwise through a Tensor's backend (`Map`/`Zip`), which reads its
`array_fn`, `partials`, `arity` and `reduce_name`. The three need each other (a function builds
Values, Value's operators are the functions, `backward` runs their derivatives), so they share
this module; the numbers' and arrays' forms they compute with are in `forms`.
"""

from __future__ import annotations

import copy
import inspect
import math
from collections.abc import Callable
from numbers import Real
from typing import Any

from torchlight.engine import History, sort_nodes
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
    (`sum` for add); `doc` is this function's own docstring (what `help` and
    the API reference show).

    Example:
        >>> from torchlight.scalar import ScalarFunction, variable
        >>> square = ScalarFunction("square", lambda x: x * x, lambda xp, x: x * x,
        ...                         (lambda x: 2.0 * x,), lambda d, out, x: d * 2.0 * x)
        >>> square(3.0)
        9.0
        >>> x = variable(3.0)
        >>> y = square(x)
        >>> y.backward()
        >>> y.data, x.grad
        (9.0, 6.0)
    """

    def __init__(self, name: str, number_fn: Callable, array_fn: Callable | None,
                 partials: tuple[Callable, ...], vjp: Callable, reduce_name: str | None = None,
                 doc: str | None = None) -> None:
        self.__name__ = name
        if doc is not None:
            self.__doc__ = doc
        # what `inspect.signature` (and so `help` and the API reference) shows: `add(a, b)`, not `(*args)`
        self.__signature__ = inspect.signature(number_fn).replace(return_annotation=inspect.Signature.empty)
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
zero = ScalarFunction("zero", lambda x: 0.0, _zero_array, (lambda x: zero(x),), _zero_vjp,
                      doc="""0.0 whatever `x` is: the derivative of a constant (no gradient flows back).

    Example:
        >>> from torchlight.scalar import zero
        >>> zero(7.0)
        0.0
    """)
one = ScalarFunction("one", lambda x: 1.0, _one_array, (lambda x: zero(x),), _zero_vjp,
                     doc="""1.0 whatever `x` is: the derivative of `add` with respect to either input.

    Example:
        >>> from torchlight.scalar import one
        >>> one(7.0)
        1.0
    """)
step = ScalarFunction("step", lambda x: 1.0 if x > 0 else 0.0, _step_array, (lambda x: zero(x),), _zero_vjp,
                      doc="""1.0 where `x > 0`, else 0.0: the derivative of `relu` (0.0 at the kink, as in PyTorch).

    Example:
        >>> from torchlight.scalar import step
        >>> step(2.0), step(0.0), step(-1.0)
        (1.0, 0.0, 0.0)
    """)
# 1.0 where max(a, b) is b (b larger, or b alone NaN), else 0.0: which side max's gradient goes to
right_wins = ScalarFunction("right_wins", lambda a, b: 0.0 if a >= b or a != a else 1.0, _right_wins_array,
                            (lambda a, b: zero(a), lambda a, b: zero(b)), _zero_vjp,
                            doc="""1.0 where `max(a, b)` is `b`, else 0.0: which input `max`'s gradient goes to.

    A tie goes to `a` (0.0); a NaN `b` beside a number `a` wins (1.0).

    Example:
        >>> from torchlight.scalar import right_wins
        >>> right_wins(1.0, 2.0), right_wins(2.0, 2.0), right_wins(1.0, float("nan"))
        (1.0, 0.0, 1.0)
    """)

add = ScalarFunction("add", _add, lambda xp, a, b: a + b, (lambda a, b: one(a), lambda a, b: one(b)),
                     lambda d, out, a, b: (d, d), "sum", doc="""`a + b`, on numbers, Values or Tensors.

    Example:
        >>> from torchlight.scalar import add, variable
        >>> add(2.0, 3.0)
        5.0
        >>> x = variable(2.0)
        >>> y = add(x, 3.0)
        >>> y.backward()
        >>> y.data, x.grad
        (5.0, 1.0)
        >>> import torchlight as tl
        >>> add(tl.tensor([1.0, 2.0]), tl.tensor([10.0, 20.0]))
        tensor([11., 22.])
    """)
sub = ScalarFunction("sub", _sub, lambda xp, a, b: a - b, (lambda a, b: one(a), lambda a, b: neg(one(b))),
                     lambda d, out, a, b: (d, -d), doc="""`a - b`; its gradients are 1 and -1.

    Example:
        >>> from torchlight.scalar import sub, variable
        >>> a, b = variable(5.0), variable(3.0)
        >>> y = sub(a, b)
        >>> y.backward()
        >>> y.data, a.grad, b.grad
        (2.0, 1.0, -1.0)
    """)
mul = ScalarFunction("mul", _mul, lambda xp, a, b: a * b, (lambda a, b: b, lambda a, b: a),
                     lambda d, out, a, b: (d * b, d * a), "prod",
                     doc="""`a * b`; the gradient of each input is the other.

    Example:
        >>> from torchlight.scalar import mul, variable
        >>> a, b = variable(2.0), variable(3.0)
        >>> y = mul(a, b)
        >>> y.backward()
        >>> y.data, a.grad, b.grad
        (6.0, 3.0, 2.0)
    """)
div = ScalarFunction("div", _div, lambda xp, a, b: a / b,
                     (lambda a, b: div(1.0, b), lambda a, b: neg(div(div(a, b), b))),  # (a / b / b: b * b overflows)
                     lambda d, out, a, b: (d / b, -d * out / b),
                     doc="""`a / b`; a zero `b` raises `ZeroDivisionError` on numbers and Values.

    Example:
        >>> from torchlight.scalar import div, variable
        >>> a, b = variable(3.0), variable(2.0)
        >>> y = div(a, b)
        >>> y.backward()
        >>> y.data, a.grad, b.grad
        (1.5, 0.5, -0.75)
    """)
neg = ScalarFunction("neg", _neg, lambda xp, x: -x, (lambda x: neg(one(x)),), lambda d, out, x: -d,
                     doc="""`-x`; its gradient is -1.

    Example:
        >>> from torchlight.scalar import neg, variable
        >>> x = variable(2.0)
        >>> y = neg(x)
        >>> y.backward()
        >>> y.data, x.grad
        (-2.0, -1.0)
    """)
pow = ScalarFunction("pow", _pow, lambda xp, a, b: a ** b,
                     (lambda a, b: pow_da(a, b), lambda a, b: pow_db(a, b)), _pow_vjp,
                     doc="""`a ** b`; its gradients are `pow_da(a, b)` and `pow_db(a, b)`.

    Example:
        >>> from torchlight.scalar import pow, variable
        >>> a, b = variable(2.0), variable(3.0)
        >>> y = pow(a, b)
        >>> y.backward()
        >>> y.data, a.grad, round(b.grad, 4)
        (8.0, 12.0, 5.5452)
    """)
# pow's partials with its conventions (those of `_pow_vjp`), so map/zip's gradients are the Value
# engine's: d/da is 0 where b == 0, d/db 0 where a == 0 and NaN where a < 0. Their own partials
# (second derivatives) are the plain formulas.
pow_da = ScalarFunction("pow_da", lambda a, b: _pow_vjp(1.0, 0.0, a, b)[0], _pow_da_array,
                        (lambda a, b: mul(b, pow_da(a, sub(b, 1.0))),
                         lambda a, b: add(pow(a, sub(b, 1.0)), mul(b, pow_db(a, sub(b, 1.0))))),
                        lambda d, out, a, b: _pow_da_vjp(d, a, b),
                        doc="""`b * a ** (b - 1)`, the derivative of `a ** b` in `a` (0.0 where `b == 0`).

    Example:
        >>> from torchlight.scalar import pow_da
        >>> pow_da(2.0, 3.0), pow_da(0.0, 0.0)
        (12.0, 0.0)
    """)
pow_db = ScalarFunction("pow_db", lambda a, b: _pow_vjp(1.0, _pow(a, b), a, b)[1], _pow_db_array,
                        (lambda a, b: add(mul(pow_da(a, b), ln(a)), pow(a, sub(b, 1.0))),
                         lambda a, b: mul(pow_db(a, b), ln(a))),
                        lambda d, out, a, b: _pow_db_vjp(d, out, a, b),
                        doc="""`a ** b * ln(a)`, the derivative of `a ** b` in `b` (0.0 at `a == 0`, NaN at `a < 0`).

    Example:
        >>> from torchlight.scalar import pow_db
        >>> round(pow_db(2.0, 3.0), 4), pow_db(0.0, 2.0), pow_db(-2.0, 2.0)
        (5.5452, 0.0, nan)
    """)
exp = ScalarFunction("exp", _exp, lambda xp, x: xp.exp(x), (lambda x: exp(x),), lambda d, out, x: d * out,
                     doc="""`e ** x`; its gradient is its output.

    Example:
        >>> from torchlight.scalar import exp, variable
        >>> x = variable(0.0)
        >>> y = exp(x)
        >>> y.backward()
        >>> y.data, x.grad
        (1.0, 1.0)
        >>> import torchlight as tl
        >>> exp(tl.tensor([0.0, 1.0]))
        tensor([1.        , 2.71828183])
    """)
ln = ScalarFunction("ln", _ln, lambda xp, x: xp.log(x), (lambda x: div(1.0, x),), lambda d, out, x: d / x,
                    doc="""The natural logarithm; a non-positive number raises `ValueError`. `log` is the same function.

    Example:
        >>> from torchlight.scalar import ln, variable
        >>> x = variable(2.0)
        >>> y = ln(x)
        >>> y.backward()
        >>> round(y.data, 4), x.grad
        (0.6931, 0.5)
        >>> ln(0.0)
        Traceback (most recent call last):
        ...
        ValueError: ...
    """)
sqrt = ScalarFunction("sqrt", _sqrt, lambda xp, x: xp.sqrt(x), (lambda x: div(0.5, sqrt(x)),), _sqrt_vjp,
                      doc="""The square root; a negative number raises `ValueError`.

    Example:
        >>> from torchlight.scalar import sqrt, variable
        >>> x = variable(9.0)
        >>> y = sqrt(x)
        >>> y.backward()
        >>> y.data, round(x.grad, 4)
        (3.0, 0.1667)
    """)
tanh = ScalarFunction("tanh", _tanh, lambda xp, x: xp.tanh(x), (lambda x: sub(1.0, mul(tanh(x), tanh(x))),),
                      lambda d, out, x: d * (1.0 - out * out),
                      doc="""The hyperbolic tangent; its gradient is `1 - tanh(x) ** 2`.

    Example:
        >>> from torchlight.scalar import tanh, variable
        >>> x = variable(0.0)
        >>> y = tanh(x)
        >>> y.backward()
        >>> y.data, x.grad
        (0.0, 1.0)
    """)
sigmoid = ScalarFunction("sigmoid", _sigmoid, _sigmoid_array, (lambda x: mul(sigmoid(x), sub(1.0, sigmoid(x))),),
                         lambda d, out, x: d * out * (1.0 - out),
                         doc="""`1 / (1 + e ** -x)`; its gradient is `s * (1 - s)`.

    Example:
        >>> from torchlight.scalar import sigmoid, variable
        >>> x = variable(0.0)
        >>> y = sigmoid(x)
        >>> y.backward()
        >>> y.data, x.grad
        (0.5, 0.25)
    """)
# relu'(0) = 0: the kink gets the left slope, as in PyTorch (step is x > 0).
relu = ScalarFunction("relu", _relu, lambda xp, x: xp.where(x <= 0, xp.zeros_like(x), x), (lambda x: step(x),),
                      lambda d, out, x: d if x > 0 else 0.0,
                      doc="""`max(x, 0)`; its gradient at the kink `x == 0` is 0, as in PyTorch.

    Example:
        >>> from torchlight.scalar import relu, variable
        >>> relu(-2.0), relu(3.0)
        (0.0, 3.0)
        >>> x = variable(0.0)
        >>> relu(x).backward()
        >>> x.grad
        0.0
    """)
inv = ScalarFunction("inv", _inv, lambda xp, x: 1.0 / x, (lambda x: neg(div(1.0, mul(x, x))),),
                     lambda d, out, x: -d * out * out,
                     doc="""`1 / x`; zero raises `ZeroDivisionError` on numbers and Values.

    Example:
        >>> from torchlight.scalar import inv, variable
        >>> x = variable(2.0)
        >>> y = inv(x)
        >>> y.backward()
        >>> y.data, x.grad
        (0.5, -0.25)
    """)
log = ln
max = ScalarFunction("max", _max, lambda xp, a, b: xp.maximum(a, b),
                     (lambda a, b: sub(one(a), right_wins(a, b)), lambda a, b: right_wins(a, b)), _max_vjp, "max",
                     doc="""The larger of `a` and `b`; the gradient goes to the larger input, to `a` on a tie.

    Example:
        >>> from torchlight.scalar import max, variable
        >>> a, b = variable(2.0), variable(2.0)
        >>> y = max(a, b)
        >>> y.backward()
        >>> y.data, a.grad, b.grad
        (2.0, 1.0, 0.0)
    """)
# numbers-only helpers that read as their names (no gradient)
eq = ScalarFunction("eq", lambda a, b: 1.0 if a == b else 0.0, lambda xp, a, b: xp.astype(a == b, a.dtype),
                    (lambda a, b: zero(a), lambda a, b: zero(b)), _zero_vjp,
                    doc="""1.0 where `a == b`, else 0.0 (a comparison: its gradient is zero).

    Example:
        >>> from torchlight.scalar import eq
        >>> eq(2.0, 2.0), eq(2.0, 3.0)
        (1.0, 0.0)
    """)
lt = ScalarFunction("lt", lambda a, b: 1.0 if a < b else 0.0, lambda xp, a, b: xp.astype(a < b, a.dtype),
                    (lambda a, b: zero(a), lambda a, b: zero(b)), _zero_vjp,
                    doc="""1.0 where `a < b`, else 0.0 (a comparison: its gradient is zero).

    Example:
        >>> from torchlight.scalar import lt
        >>> lt(2.0, 3.0), lt(3.0, 2.0)
        (1.0, 0.0)
    """)


def _binary_vjp(op: ScalarFunction, d: float, out: float, a: float, b: float) -> tuple[float, float]:
    """The two input gradients of a binary node; add and mul inline (no vjp call for the commonest ops)."""
    if op is add:
        return d, d
    if op is mul:
        return d * b, d * a
    return op.vjp(d, out, a, b)


def zero_grad(v: Value) -> None:
    """Reset the gradients of every node of the graph feeding `v`.

    The nodes are the ones `topological_sort(v)` lists (plus `v`), but no
    order is needed to zero them, so a plain depth-first walk does it in
    about two thirds of the time of the sort.

    Example:
        >>> from torchlight.scalar import backward, mul, variable, zero_grad
        >>> x = variable(3.0)
        >>> y = mul(x, x)
        >>> backward(y)
        >>> x.grad
        6.0
        >>> zero_grad(y)
        >>> x.grad, y.grad
        (0.0, 0.0)
    """
    v.grad = 0.0
    stack = [v]
    seen: set[int] = set()
    push, pop, mark, has = stack.append, stack.pop, seen.add, seen.__contains__
    while stack:
        node = pop()
        node.grad = 0.0
        if node._op is None:
            continue
        for parent in (node._a, node._b):
            if parent is not None and parent.requires_grad and not has(id(parent)):
                mark(id(parent))
                push(parent)


def backward(v: Value) -> None:
    """Clear the graph's old gradients, seed `v.grad = 1.0` and propagate.

    Every non-constant node feeding `v` ends with d v / d node, so calling
    it twice gives the same gradients. The order is the engine's
    `topological_sort`, shared with Tensors; the chain rule runs here, in
    place on each node's `grad`: a Value's gradient is one float, so it
    needs none of the engine's bookkeeping (pending gradients keyed by node,
    (input, gradient) pairs, a commit pass), which costs about as much
    again as the sort. A derivative that raises leaves the graph's
    gradients cleared, never half propagated. The engine's
    `backpropagate(v, 1.0)`, called directly, adds into `grad` as usual.

    Example:
        >>> from torchlight.scalar import backward, variable
        >>> x = variable(3.0)
        >>> y = x * x + x
        >>> backward(y)
        >>> x.grad
        7.0
        >>> backward(y)  # again: the same gradients, not twice them
        >>> x.grad
        7.0
    """
    if not v.requires_grad:
        v.grad = 0.0
        return
    order = sort_nodes(v)  # leaves first, root last
    for node in order:
        node.grad = 0.0
    v.grad = 1.0
    order.reverse()  # root first: a node has all its gradient before it passes it on
    try:
        _propagate(order)
    except BaseException:
        for node in order:
            node.grad = 0.0
        raise


def _propagate(order: list[Value]) -> None:
    """Add each node's `grad` times its local derivatives into its inputs' `grad`."""
    a: Value  # (not None where read: a node with an _op has its input _a, set with it in _binary)
    for node in order:
        op = node._op
        if op is None:
            continue
        d, a, b = node.grad, node._a, node._b  # type: ignore[assignment]
        if b is None:
            if a.requires_grad:
                a.grad += op.vjp(d, node.data, a.data)
            continue
        da, db = _binary_vjp(op, d, node.data, a.data, b.data)
        if a.requires_grad:
            a.grad += da
        if b.requires_grad:
            b.grad += db


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
        if t is not float and t is not int and getattr(data, "shape", None) == () and not isinstance(data, Value):
            data = _number(data, "Value")  # a 0-d array (a 0-d Tensor's .data) is a number
            t = type(data)
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
    """A differentiable leaf: `variable(3.0).data == 3.0`. `value` is the same function.

    Example:
        >>> from torchlight.scalar import variable
        >>> x = variable(3.0)
        >>> y = x * x
        >>> y.backward()
        >>> x.requires_grad, x.grad
        (True, 6.0)
    """
    return Value(x, requires_grad=True)


value = variable


def constant(x: float) -> Value:
    """A leaf that gets no gradient: `constant(5.0).data == 5.0`.

    Example:
        >>> from torchlight.scalar import constant, variable
        >>> c, x = constant(5.0), variable(2.0)
        >>> y = c * x
        >>> y.backward()
        >>> c.grad, x.grad
        (0.0, 5.0)
    """
    return Value(x, requires_grad=False)


def data(v: Value) -> float:
    """The forward value of `v` (its `data`).

    Example:
        >>> from torchlight.scalar import data, variable
        >>> data(variable(2.0) * 3.0)
        6.0
    """
    return v.data


def grad(v: Value) -> float:
    """The accumulated gradient of `v` (its `grad`).

    Example:
        >>> from torchlight.scalar import grad, variable
        >>> x = variable(2.0)
        >>> (x * 3.0).backward()
        >>> grad(x)
        3.0
    """
    return v.grad
