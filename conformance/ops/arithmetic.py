"""The arithmetic entries: + - * / (and reflected), negation, `**`, `//` and `%`.

Functions Add, Sub, Mul, Div, Neg, Pow, FloorDivide and Remainder (and
`__pos__`, which has no Function). `//` and `%` draw dividends off the steps
and divisors in +-0.5, 1, 2 (`divisors`), so no input sits on a jump.

Example:
    >>> from conformance.ops.arithmetic import OPS
    >>> sorted(op.name for op in OPS if op.function == "Pow")
    ['__pow__', '__rpow__', 'pow']
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import UNARY, binary, binary_errors, complex_twins, off_the_steps, unary


def pow_zero_base_grads(a: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d(a**p)/da and d(a**p)/dp, the latter 0 at a = 0 (PyTorch's convention)."""
    safe = np.where(a > 0, a, 1.0)
    return p * a ** (p - 1), np.where(a > 0, a ** p * np.log(safe), 0.0)


def divisors(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """+-0.5, +-1, +-2: with `off_the_steps` dividends, a / b stays at least 0.05 from every integer
    (the steps of // and %), also a number 2.6 divided by them."""
    return rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], shape)


DIVIDE_CASES = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (1, 4))),
    Case("broadcast_rank", ((2, 3, 4), (4,))),
    Case("0d_1d", ((), (4,))),
    Case("dividend_grad", ((3, 4), (3, 4)), grad=(True, False)),
    Case("divisor_grad", ((3, 4), (3, 4)), grad=(False, True)),
    Case("empty", ((0, 3), (3,))),
    Case("signs", ((4,), (4,)), domain=(D.fixed([5.5, -5.5, 5.5, -5.5]), D.fixed([2.0, 2.0, -2.0, -2.0])),
         note="the result takes the divisor's sign (Python, NumPy, PyTorch), unlike C's fmod"),
)


def dividing(name: str, fn: Any, function: str, right: bool = False) -> OpInfo:
    """`//` or `%` (`right`: the reflected dunder), dividends off the steps, divisors +-0.5, 1, 2."""
    number = Case("number", ((3, 4),), kwargs={"number": 2.6 if right else 2.0},
                  domain=divisors if right else off_the_steps, note="number // x" if right else "x // 2.0")
    return binary(name, fn, fn, function, domain=(off_the_steps, divisors), right=right,
                  cases=DIVIDE_CASES + (number,))


OPS: list[OpInfo] = [
    binary("__add__", operator.add, operator.add, "Add"),
    binary("__radd__", operator.add, operator.add, "Add", right=True),
    binary("__sub__", operator.sub, operator.sub, "Sub"),
    binary("__rsub__", operator.sub, operator.sub, "Sub", right=True),
    binary("__mul__", operator.mul, operator.mul, "Mul"),
    binary("__rmul__", operator.mul, operator.mul, "Mul", right=True),
    binary("__truediv__", operator.truediv, operator.truediv, "Div", domain=D.away_from_zero),
    binary("__rtruediv__", operator.truediv, operator.truediv, "Div", domain=D.away_from_zero, right=True),
    OpInfo("__neg__", operator.neg, operator.neg, UNARY, method="__neg__", function="Neg"),
    unary("neg", np.negative, "Neg"),
    OpInfo("__pos__", operator.pos, operator.pos, UNARY[:3], method="__pos__"),
    OpInfo("__pow__", lambda a, b=None, p=None: a ** (b if p is None else p),
           lambda a, b=None, p=None: np.power(a, b if p is None else p),
           (
               Case("square", ((3, 4),), kwargs={"p": 2}),
               Case("cube_negative_bases", ((5,),), kwargs={"p": 3}, note="integer powers of negative bases"),
               Case("sqrt", ((3, 4),), domain=D.positive, kwargs={"p": 0.5}),
               Case("negative_fractional", ((2, 3),), domain=D.positive, kwargs={"p": -1.5}),
               Case("zero_exponent", ((3,),), domain=D.fixed([0.0, 1.5, -2.0]), kwargs={"p": 0},
                    grad_reference=lambda a, p: (np.zeros_like(a),), double_backward=False,
                    note="d(x**0)/dx is 0, also at x = 0 (PyTorch's convention)"),
               Case("nan_for_negative_base", ((3,),), domain=D.fixed([-1.0, 2.0, -0.5]), kwargs={"p": 0.5},
                    forward_only=True, ieee=True, note="NaN, as NumPy"),
               Case("tensor_exponent", ((3, 4), (3, 4)), domain=(D.positive, D.bounded)),
               Case("tensor_exponent_broadcast", ((2, 3), (3,)), domain=(D.positive, D.bounded)),
               Case("0d", ((),), domain=D.positive, kwargs={"p": 2.5}),
               Case("empty", ((0, 2),), kwargs={"p": 2}),
               Case("zero_base", ((3,), (3,)), domain=(D.fixed([0.0, 1.5, 2.0]), D.fixed([2.0, 3.0, 0.5])),
                    grad_reference=pow_zero_base_grads,
                    double_backward=False, note="d(a**p)/dp is 0 at a = 0"),
           ) + binary_errors("Pow")[:1],
           method="__pow__", function="Pow"),
    OpInfo("pow", lambda a, p=2.0: a.pow(p), lambda a, p=2.0: np.power(a, p),
           (Case("square", ((3, 4),), kwargs={"p": 2}), Case("sqrt", ((3,),), domain=D.positive, kwargs={"p": 0.5})),
           method="pow", function="Pow"),
    OpInfo("__rpow__", lambda x, base=2.0: base ** x, lambda x, base=2.0: np.power(base, x),
           (Case("two", ((3, 4),)), Case("0d", ((),), kwargs={"base": 0.5}), Case("1d", ((5,),))),
           domain=D.bounded, method="__rpow__", function="Pow"),
    dividing("__floordiv__", operator.floordiv, "FloorDivide"),
    dividing("__rfloordiv__", operator.floordiv, "FloorDivide", right=True),
    dividing("__mod__", operator.mod, "Remainder"),
    dividing("__rmod__", operator.mod, "Remainder", right=True),
]


def _free(name: str) -> Any:
    """`tl.name(a, b)`, a number on either side."""
    return lambda a, b: getattr(tl, name)(a, b)


OPS += [
    binary("remainder", lambda a, b: a.remainder(b), operator.mod, "Remainder", domain=(off_the_steps, divisors),
           cases=DIVIDE_CASES + (Case("number", ((3, 4),), kwargs={"number": 2.0}, domain=off_the_steps),)),
    binary("floor_divide", lambda a, b: a.floor_divide(b), operator.floordiv, "FloorDivide",
           domain=(off_the_steps, divisors), cases=DIVIDE_CASES),
    binary("tl.remainder", _free("remainder"), operator.mod, "Remainder", domain=(off_the_steps, divisors),
           cases=DIVIDE_CASES + (Case("number", ((3, 4),), kwargs={"number": 2.0}, domain=off_the_steps),)),
    OpInfo("tl.remainder.number_first", lambda b, number: tl.remainder(number, b), lambda b, number: number % b,
           (Case("number", ((3, 4),), kwargs={"number": 2.6}),), domain=divisors, function="Remainder"),
    binary("tl.floor_divide", _free("floor_divide"), operator.floordiv, "FloorDivide",
           domain=(off_the_steps, divisors), cases=DIVIDE_CASES),
    # a sum's backward hands its ones to the product (NumPy's backend passes each factor on as it is,
    # `Backend.is_broadcast_one`): the whole path, against the factors and central differences
    OpInfo("mul_then_sum", lambda a, b: (a * b).sum(), lambda a, b: np.sum(a * b),
           (
               Case("same_shape", ((3, 4), (3, 4)), grad_reference=lambda a, b: (b, a),
                    note="the gradient of ones reaches the product: each factor is the other's gradient"),
               Case("one_side", ((3, 4), (3, 4)), grad=(True, False)),
               Case("broadcast", ((3, 1), (1, 4)), note="factors of other shapes: multiplied, then summed to shape"),
               Case("0d_1d", ((), (5,))),
           ), function=("Mul", "Sum")),
    OpInfo("positive", lambda x: x.positive(), operator.pos, UNARY[:3], method="positive"),
    OpInfo("tl.positive", lambda x: tl.positive(x), operator.pos, UNARY[:3]),
]
# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                          "__rtruediv__", "__neg__", "neg", "__pow__", "__rpow__"})
