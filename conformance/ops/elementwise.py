"""The elementwise entries: exp, log, sqrt, 1/x, abs, the step functions, maximum/minimum, logaddexp, hypot,
copysign, clamp.

Also `LogBack` and `InvBack`, called directly. Step functions (sign,
floor, ceil, round, trunc: Function PiecewiseConstant) draw inputs off
their steps and check the zero gradient at them; maximum and minimum draw
from two interleaved lattices (no ties but in the case that targets them).

Example:
    >>> from conformance.ops.elementwise import OPS
    >>> sorted(op.name for op in OPS if op.function == "PiecewiseConstant")
    ['ceil', 'floor', 'round', 'sign', 'trunc']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import (
    PAIR_SHAPES,
    UNARY,
    back,
    binary_errors,
    complex_twins,
    off_the_steps,
    pair,
    unary,
    uniform,
)


def lattice(offset: float) -> Any:
    """Multiples of 0.5 plus `offset` plus up to 0.1: inputs with offsets 0 and 0.25 are never
    within 0.15 of each other (maximum/minimum without ties)."""

    def make(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return rng.integers(-4, 4, shape) * 0.5 + offset + rng.uniform(0.0, 0.1, shape)

    make.__name__ = f"lattice({offset})"
    return make


def zero_grad(x: np.ndarray, *rest: Any, **kwargs: Any) -> tuple[np.ndarray]:
    return (np.zeros_like(x),)


def step(name: str, ref: Any, domain: Any = off_the_steps) -> OpInfo:
    """A step function: gradient 0 everywhere, at the steps too (PyTorch's convention)."""
    at_steps = D.fixed([-1.0, -0.5, 0.0, 0.5, 1.0, 2.5])
    return unary(name, ref, "PiecewiseConstant", domain=domain, cases=UNARY + (
        Case("at_the_steps", ((6,),), domain=at_steps, grad_reference=zero_grad, double_backward=False,
             note="the gradient is 0 at the jumps too (PyTorch's convention)"),))


def extremum_call(a: Any, b: Any = None, number: float | None = None, *, name: str, free: bool) -> Any:
    other = number if b is None else b
    return getattr(tl, name)(a, other) if free else getattr(a, name)(other)


def extremum(name: str, ref: Any, function: str, free: bool) -> OpInfo:
    """`tl.maximum(a, b)` (free) or `a.maximum(b)`; ties split the gradient evenly (PyTorch)."""
    tie_a, tie_b = [1.0, 2.0, 3.0, -1.0], [1.0, 0.0, 3.0, 4.0]

    def ties(a: np.ndarray, b: np.ndarray, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        share = (ref(a, b) == a) - 0.5 * (a == b)
        return share, 1.0 - share

    cases = (
        *PAIR_SHAPES,
        Case("number", ((3, 4),), kwargs={"number": 0.3}, domain=lattice(0.0)),
        Case("ties", ((4,), (4,)), domain=(D.fixed(tie_a), D.fixed(tie_b)), grad_reference=ties,
             double_backward=False, note="equal inputs get half the gradient each (PyTorch's convention)"),
        *binary_errors(name),
    )
    return OpInfo(f"tl.{name}" if free else name,
                  lambda *args, **kw: extremum_call(*args, name=name, free=free, **kw),
                  lambda a, b=None, number=None: ref(a, number if b is None else b),
                  cases, domain=(lattice(0.0), lattice(0.25)), method=None if free else name, function=function)


def clamp_call(x: Any, lo: Any = None, hi: Any = None, *, min: Any = None, max: Any = None,
               alias: str = "clamp") -> Any:
    """`x.clamp(min, max)` with Tensor bounds from the inputs or number bounds from the kwargs."""
    return getattr(x, alias)(min if lo is None else lo, max if hi is None else hi)


def clamp_ref(x: np.ndarray, lo: Any = None, hi: Any = None, *, min: Any = None, max: Any = None,
              alias: str = "clamp") -> np.ndarray:
    return np.clip(x, min if lo is None else lo, max if hi is None else hi)


def clamp_mask(x: np.ndarray, *, min: Any = None, max: Any = None, alias: str = "clamp") -> tuple[np.ndarray]:
    """The documented gradient: 1 where min <= x <= max, the bounds included (PyTorch)."""
    inside = np.ones_like(x, dtype=bool)
    if min is not None:
        inside &= x >= min
    if max is not None:
        inside &= x <= max
    return (inside * 1.0,)


#: clamp's inputs: `distinct` values (0.25 apart, plus up to 0.1) stay at least 0.02 from these bounds
LO, HI = -0.33, 0.62


LOGADDEXP_LARGE = (Case("large", ((4,), (4,)), domain=(D.fixed([1000.0, -1000.0, 0.0, 700.0]),
                                                       D.fixed([0.0, 0.0, 0.0, 710.0])),
                        note="no overflow at |x| = 1000; each side's share sigmoid(a - b), accurate in the tail"),)


def hypot_origin_grad(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) / hypot(a, b), and 0 at the origin (the convention of norm at a zero vector)."""
    h = np.hypot(a, b)
    scale = np.divide(1.0, h, out=np.zeros_like(h), where=h > 0)
    return a * scale, b * scale


HYPOT_ORIGIN = (Case("origin", ((4,), (4,)), domain=(D.fixed([0.0, 0.0, 3.0, -1.0]), D.fixed([0.0, 2.0, 0.0, 1e-3])),
                     grad_reference=hypot_origin_grad, double_backward=False,
                     note="the gradient is 0 at the origin"),)

# both sides clear of 0: |a| has its kink there and the sign of b its jump
COPYSIGN_DOMAIN = (D.away_from_zero, D.away_from_zero)


def copysign_zeros_grad(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """+-1 by whether the sign flips, 0 where a is 0; 0 for b (PyTorch's conventions)."""
    return np.where(a == 0, 0.0, np.copysign(1.0, a) * np.copysign(1.0, b)), np.zeros_like(b)


COPYSIGN_ZEROS = (Case("zeros", ((4,), (4,)), domain=(D.fixed([0.0, 2.0, -3.0, 1.0]), D.fixed([-1.0, -0.0, 0.0, 2.0])),
                       grad_reference=copysign_zeros_grad, double_backward=False,
                       note="-0.0 counts as negative; the gradient is 0 where a is 0 and for b"),)


OPS: list[OpInfo] = [
    unary("exp", np.exp, "Exp", domain=D.bounded),
    # a sum's ones reach exp's backward, which passes its result on as it is (NumPy's backend)
    OpInfo("exp_then_sum", lambda x: x.exp().sum(), lambda x: np.sum(np.exp(x)),
           (Case("vector", ((5,),), grad_reference=lambda x: (np.exp(x),)), Case("matrix", ((3, 4),))),
           domain=D.bounded, function=("Exp", "Sum")),
    unary("log", np.log, "Log", domain=D.positive, cases=UNARY + (
        Case("at_zero", ((2,),), domain=D.fixed([0.0, 1.0]), grad_reference=lambda x: (1.0 / x,),
             double_backward=False, ieee=True, note="log(0) = -inf with gradient inf, as NumPy"),)),
    unary("sqrt", np.sqrt, "Sqrt", domain=D.positive),
    unary("inv", lambda x: 1.0 / x, "Inv", domain=D.away_from_zero),
    unary("abs", np.abs, "Abs", domain=D.away_from_zero, cases=UNARY + (
        Case("kink", ((3,),), domain=D.fixed([-1.0, 0.0, 2.0]), grad_reference=lambda x: (np.sign(x),),
             double_backward=False, note="abs'(0) = 0 (PyTorch's convention)"),)),
    OpInfo("__abs__", abs, np.abs, UNARY[:3], domain=D.away_from_zero, method="__abs__", function="Abs"),
    back("LogBack", lambda a, g: g / a, (D.positive, D.normal)),
    back("InvBack", lambda a, g: -g / (a * a), (D.away_from_zero, D.normal)),
    unary("log1p", np.log1p, "Log1p", domain=uniform(-0.6, 2.0)),
    unary("expm1", np.expm1, "Expm1", domain=D.bounded),
    unary("log2", np.log2, "Log2", domain=D.positive),
    unary("log10", np.log10, "Log10", domain=D.positive),
    unary("square", np.square, "Square"),
    step("sign", np.sign, domain=D.away_from_zero),
    step("floor", np.floor),
    step("ceil", np.ceil),
    step("round", np.round),
    step("trunc", np.trunc),
    extremum("maximum", np.maximum, "Maximum", free=True),
    extremum("maximum", np.maximum, "Maximum", free=False),
    extremum("minimum", np.minimum, "Minimum", free=True),
    extremum("minimum", np.minimum, "Minimum", free=False),
    pair("logaddexp", np.logaddexp, "LogAddExp", True, D.normal, LOGADDEXP_LARGE),
    pair("logaddexp", np.logaddexp, "LogAddExp", False, D.normal),
    pair("hypot", np.hypot, "Hypot", True, D.normal, HYPOT_ORIGIN),
    pair("hypot", np.hypot, "Hypot", False, D.normal, HYPOT_ORIGIN),
    pair("copysign", np.copysign, "Copysign", True, COPYSIGN_DOMAIN, COPYSIGN_ZEROS),
    pair("copysign", np.copysign, "Copysign", False, COPYSIGN_DOMAIN),
    OpInfo("clamp", clamp_call, clamp_ref, (
        Case("both", ((3, 4),), kwargs={"min": LO, "max": HI}),
        Case("min_only", ((3, 4),), kwargs={"min": LO}),
        Case("max_only", ((3, 4),), kwargs={"max": HI}),
        Case("0d", ((),), kwargs={"min": LO, "max": HI}),
        Case("empty", ((0, 3),), kwargs={"min": LO, "max": HI}),
        Case("at_the_bounds", ((5,),), domain=D.fixed([-1.0, -0.5, 0.0, 0.5, 1.0]), kwargs={"min": -0.5, "max": 0.5},
             grad_reference=clamp_mask, double_backward=False,
             note="the gradient is 1 at x == min and x == max (PyTorch's convention)"),
        Case("min_above_max", ((4,),), domain=D.fixed([-1.0, 0.2, 0.7, 2.0]), kwargs={"min": 1.0, "max": 0.0},
             grad_reference=clamp_mask, double_backward=False, note="every result is max, with no gradient to x"),
        Case("tensor_bounds", ((3, 4), (3, 1), (4,)),
             domain=(D.distinct, D.fixed([[LO], [-0.83], [-0.08]]), D.fixed([HI, 0.87, 0.37, 1.13])),
             note="Tensor bounds broadcast and get the gradient where they are the result"),
        Case("tensor_min_fixed", ((3, 4), (4,)), domain=(D.distinct, D.fixed([LO, -0.83, -0.08, 0.37])),
             grad=(True, False)),
        Case("no_bounds", ((3,),), raises=ValueError, match="clamp: give at least one of min and max"),
        Case("bound_shape_mismatch", ((2, 3), (4,)), raises=ValueError, match="clamp: shapes (2, 3) and (4,)"),
    ), domain=D.distinct, method="clamp", function="Clamp"),
    OpInfo("clip", clamp_call, clamp_ref, (
        Case("both", ((3, 4),), kwargs={"min": LO, "max": HI, "alias": "clip"}),
        Case("tensor_bounds", ((3, 4), (3, 1), (4,)), kwargs={"alias": "clip"},
             domain=(D.distinct, D.fixed([[LO], [-0.83], [-0.08]]), D.fixed([HI, 0.87, 0.37, 1.13]))),
    ), domain=D.distinct, method="clip", function="Clamp"),
]


def _nextafter(a: Any, b: Any = None, number: float | None = None, left: float | None = None,
               free: bool = False) -> Any:
    if left is not None:
        return tl.nextafter(left, a)
    other = number if b is None else b
    return tl.nextafter(a, other) if free else a.nextafter(other)


def _nextafter_ref(a: np.ndarray, b: Any = None, number: float | None = None, left: float | None = None,
                   free: bool = False) -> np.ndarray:
    return np.nextafter(left, a) if left is not None else np.nextafter(a, number if b is None else b)


NEXTAFTER_CASES = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (4,))),
    Case("number", ((3, 4),), kwargs={"number": 0.0}),
    Case("ties", ((3,), (3,)), domain=D.fixed([0.0, 1.0, -2.0]), note="x == y gives y"),
    Case("empty", ((0, 3), (3,))),
    Case("shape_mismatch", ((2, 3), (4,)), raises=ValueError, match="nextafter: shapes (2, 3) and (4,)"),
)

OPS += [
    unary("reciprocal", lambda x: 1.0 / x, "Inv", domain=D.away_from_zero),
    OpInfo("tl.reciprocal", lambda x: tl.reciprocal(x), lambda x: 1.0 / x, UNARY[:3], domain=D.away_from_zero,
           function="Inv"),
    OpInfo("nextafter", _nextafter, _nextafter_ref, NEXTAFTER_CASES, method="nextafter", differentiable=False,
           output_dtype="float"),
    OpInfo("tl.nextafter", lambda *a, **k: _nextafter(*a, free=True, **k), _nextafter_ref,
           NEXTAFTER_CASES[:3] + (Case("number_left", ((3, 4),), kwargs={"left": 0.5}),), differentiable=False,
           output_dtype="float"),
]
# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"exp", "log", "sqrt", "inv", "abs", "__abs__", "log1p", "expm1", "log2", "log10", "square"})
