"""Scalar reverse-mode autodiff (`Value`) and the scalar functions it shares.

Every function here (`add, sub, mul, div, neg, pow, relu, tanh, exp, ln,
sqrt`, and `sigmoid, inv, max, log`) works on three kinds of argument:

- plain numbers: returns a plain number (`mul(2.0, 3.0) == 6.0`), so the same
  functions serve `backend.map/zip/reduce`;
- `Value`s (a number beside one is wrapped as a constant): returns a `Value`
  that records its inputs, for `backward()`;
- Tensors: runs elementwise through the tensor's backend (`Map`/`Zip`).

Each function carries its derivatives twice: `partials[i](*args)`, written
with these same functions so that it serves numbers and Tensors (and so the
`Map`/`Zip` backward is itself differentiable), and `vjp`, the plain-number
form a `Value` node calls in backward. Bad input raises at once, naming the
value: `ln` of a non-positive number and `sqrt` of a negative one raise
`ValueError`, division by zero `ZeroDivisionError`, a non-number `TypeError`.

Example:
    >>> from torchlight.scalar import variable
    >>> x, y = variable(2.0), variable(3.0)
    >>> loss = x.mul(y).add(x.pow(2.0)).add(1.0)
    >>> loss.backward()
    >>> loss.data, x.grad, y.grad
    (11.0, 7.0, 2.0)

The package's modules: `forms` (the functions' number, derivative and array forms) and `value`
(the functions, `Value` and the leaves' constructors, `backward` and `zero_grad`, which need
one another).
"""

from __future__ import annotations

from torchlight.scalar.value import (
    ScalarFunction,
    Value,
    add,
    backward,
    constant,
    data,
    div,
    eq,
    exp,
    grad,
    inv,
    ln,
    log,
    lt,
    max,
    mul,
    neg,
    one,
    pow,
    pow_da,
    pow_db,
    relu,
    right_wins,
    sigmoid,
    sqrt,
    step,
    sub,
    tanh,
    value,
    variable,
    zero,
    zero_grad,
)
from torchlight.scalar.value import _scalar_function as _scalar_function  # (old pickles name it here)

__all__ = [
    "ScalarFunction",
    "Value",
    "add",
    "backward",
    "constant",
    "data",
    "div",
    "eq",
    "exp",
    "grad",
    "inv",
    "ln",
    "log",
    "lt",
    "max",
    "mul",
    "neg",
    "one",
    "pow",
    "pow_da",
    "pow_db",
    "relu",
    "right_wins",
    "sigmoid",
    "sqrt",
    "step",
    "sub",
    "tanh",
    "value",
    "variable",
    "zero",
    "zero_grad",
]
