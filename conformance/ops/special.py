"""The special entries (torchlight/ops/special.py): the error functions and their inverses, the normal CDF,
its inverse and its log, logit, entr, sinc, xlogy and xlog1py, against scipy.special in float64.

Each runs the shape cases of an elementwise op on a domain inside the
function's (erfinv inside (-1, 1), logit inside (0, 1), ...), then the
tails and edges that an approximation gets wrong first: erfinv and
erfcinv near their poles, log_ndtr far below 0 (where log(ndtr) would
underflow) and far above, sinc at and near 0, logit at 0 and 1; and
out-of-domain values (SciPy's NaN and +-inf), forward only. `expit` is
the Sigmoid op (its entry is the activations'); `rel_entr` of the
namespace is composed of other ops (its check is scipy's own, in
tests/array_api/test_third_party_code.py).

Example:
    >>> from conformance.ops.special import OPS
    >>> sorted(op.function for op in OPS if op.function)[:4]
    ['Entr', 'Erf', 'Erfc', 'Erfcinv']
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo, Tol
from conformance.ops.common import PAIR_SHAPES, SMALL_UNARY, binary_errors, uniform


def scipy_special(name: str) -> Any:
    """scipy.special's `name`, imported when first called (scipy is a test dependency)."""
    def reference(*arrays: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module("scipy.special"), name)(*arrays, **kwargs)
    reference.__name__ = f"scipy.special.{name}"
    return reference


def edges(values: list[float], note: str, **extra: Any) -> Case:
    """Out-of-domain values and ends: SciPy's NaN and +-inf, the forward only."""
    return Case("edges", ((len(values),),), domain=D.fixed(values), forward_only=True, ieee=True, note=note, **extra)


F64_TAIL = ("float64",)  # tails beyond float32's reach (1 - 1e-6, x = -30) run in float64 only
TAIL_TOL = Tol("a derivative of exp(y**2) or exp(-x**2/2 - log_ndtr) size: central differences lose digits",
               rtol=1e-5)


def near_edge(eps: float) -> dict[str, Tol]:
    """Central differences with a step `eps` small enough not to cross the domain's edge nearby."""
    tol = Tol(f"points near the domain's edge: a central-difference step of {eps}", rtol=1e-4, eps=eps)
    return {"backward": tol, "double_backward": tol}


def special(name: str, function: str, domain: Any, extra: tuple[Case, ...], method: bool = False,
            reference: Any = None, **kw: Any) -> OpInfo:
    """An elementwise special function: `x.name()` where `method`, else `tl.special.name(x)`."""
    call = (lambda x, **k: getattr(x, name)(**k)) if method else (lambda x, **k: getattr(tl.special, name)(x, **k))
    return OpInfo(name if method else f"tl.special.{name}", call, reference or scipy_special(name), SMALL_UNARY + extra,
                  domain=domain,
                  method=name if method else None, function=function, **kw)


def logit_reference(x: np.ndarray, eps: float | None = None) -> np.ndarray:
    return scipy_special("logit")(x if eps is None else np.clip(x, eps, 1.0 - eps))


def sinc_reference(x: np.ndarray) -> np.ndarray:
    return np.sinc(x)


def pair_entry(name: str, function: str, domain: tuple[Any, Any], method: bool, extra: tuple[Case, ...]) -> OpInfo:
    """A broadcasting pair: `a.name(b)` where `method`, else `tl.special.name(a, b)`; a number for b."""
    def call(a: Any, b: Any = None, number: float | None = None) -> Any:
        other = number if b is None else b
        return getattr(a, name)(other) if method else getattr(tl.special, name)(a, other)

    def reference(a: np.ndarray, b: Any = None, number: float | None = None) -> Any:
        return scipy_special(name)(a, number if b is None else b)

    cases = (*PAIR_SHAPES, Case("number", ((3, 4),), kwargs={"number": 1.5}), *extra, *binary_errors(name))
    return OpInfo(name if method else f"tl.special.{name}", call, reference, cases, domain=domain,
                  method=name if method else None, function=function)


def x_zero(kind: str) -> Case:
    """x == 0 beside y: the value 0 and the derivatives along x (log y) and y (x / y = 0)."""
    ys = [0.5, 2.0, 3.0] if kind == "xlogy" else [-0.5, 1.0, 2.0]
    return Case("x_zero", ((3,), (3,)), domain=(D.fixed([0.0, 0.0, 1.5]), D.fixed(ys)),
                note="the function is x log y at x == 0 too: its gradients there are the derivatives (PyTorch's)")


OPS: list[OpInfo] = [
    special("erf", "Erf", D.normal, (
        Case("tails", ((6,),), domain=D.fixed([-6.0, -3.0, -0.4, 0.4, 3.0, 6.0]), note="Cody's three intervals"),
        edges([-np.inf, np.inf, np.nan, 0.0], "+-1 at +-inf, NaN stays"),), method=True),
    special("erfc", "Erfc", D.normal, (
        Case("tail", ((4,),), domain=D.fixed([4.5, 8.0, 15.0, 25.0]), dtypes=F64_TAIL,
             note="erfc's relative accuracy where it is tiny (1e-274 at 25)"),
        edges([-np.inf, np.inf, np.nan, 30.0], "2 and 0 at -+inf; 0 beyond 27"),), method=True),
    special("erfinv", "Erfinv", uniform(-0.95, 0.95), (
        Case("near_poles", ((4,),), domain=D.fixed([-0.999999, -0.9999, 0.9999, 0.999999]), dtypes=F64_TAIL,
             tol=near_edge(1e-9), note="erfinv near +-1"),
        Case("near_zero", ((3,),), domain=D.fixed([-1e-9, 1e-12, 1e-6]), note="erfinv(x) ~ sqrt(pi)/2 x"),
        edges([-1.0, 1.0, 1.5, -2.0, np.nan], "+-inf at +-1, NaN outside"),), method=True),
    special("erfcinv", "Erfcinv", uniform(0.05, 1.95), (
        Case("tail", ((4,),), domain=D.fixed([1e-300, 1e-100, 1e-10, 1.999999]), dtypes=F64_TAIL, forward_only=True,
             note="erfcinv near 0 (26.2 at 1e-300) and 2 (the values; central differences cannot step there)"),
        Case("near_ends", ((3,),), domain=D.fixed([1e-6, 0.01, 1.99999]), dtypes=F64_TAIL, tol=near_edge(1e-10)),
        edges([0.0, 2.0, -1.0, 2.5, np.nan], "inf at 0, -inf at 2, NaN outside"),)),
    special("ndtr", "Ndtr", D.normal, (
        Case("tails", ((4,),), domain=D.fixed([-30.0, -8.0, 8.0, 30.0]), dtypes=F64_TAIL,
             note="the lower tail's relative accuracy (5e-198 at -30)"),
        edges([-np.inf, np.inf, np.nan], "0 and 1 at -+inf"),)),
    special("ndtri", "Ndtri", uniform(0.02, 0.98), (
        Case("lower_tail", ((3,),), domain=D.fixed([1e-12, 1e-9, 1e-5]), dtypes=F64_TAIL, tol=near_edge(1e-17)),
        Case("upper_tail", ((2,),), domain=D.fixed([1.0 - 1e-5, 1.0 - 1e-7]), dtypes=F64_TAIL, tol=near_edge(1e-11)),
        edges([0.0, 1.0, -0.5, 1.5, np.nan], "-inf at 0, inf at 1, NaN outside"),)),
    special("log_ndtr", "LogNdtr", uniform(-3.0, 3.0), (
        Case("very_negative", ((4,),), domain=D.fixed([-200.0, -50.0, -30.0, -8.0]), dtypes=F64_TAIL,
             tol={"backward": TAIL_TOL, "double_backward": TAIL_TOL},
             note="log(ndtr) would underflow: -x**2/2 + log of erfc's scaled tail; the gradient is about -x"),
        Case("very_positive", ((3,),), domain=D.fixed([6.0, 10.0, 30.0]), dtypes=F64_TAIL,
             note="-ndtr(-x), not log(1 - tiny) = 0"),
        edges([-np.inf, np.inf, np.nan], "-inf and 0 at -+inf"),)),
    special("logit", "Logit", uniform(0.05, 0.95), (
        Case("eps", ((3, 4),), domain=uniform(0.0, 1.0), kwargs={"eps": 0.1},
             note="x clamped to [eps, 1 - eps] first: the gradient 0 outside (PyTorch's)"),
        Case("near_half", ((3,),), domain=D.fixed([0.5, 0.5 + 1e-9, 0.49]), note="2 atanh(2p - 1) near 1/2"),
        edges([0.0, 1.0, -0.5, 1.5, np.nan], "-inf at 0, inf at 1, NaN outside"),),
        method=True, reference=logit_reference),
    special("entr", "Entr", D.positive, (
        Case("small", ((3,),), domain=D.fixed([1e-8, 1e-3, 5.0]), dtypes=F64_TAIL, tol=near_edge(1e-11)),
        edges([0.0, -1.0, np.inf, np.nan], "0 at 0, -inf below 0"),)),
    OpInfo("sinc", lambda x: x.sinc(), sinc_reference, SMALL_UNARY + (
        Case("near_zero", ((5,),), domain=D.fixed([0.0, 1e-9, -1e-5, 0.01, -0.06]),
             note="1 at 0 with the gradient 0 there; the derivative's series where its quotient cancels"),
        Case("integers", ((3,),), domain=D.fixed([1.0, -2.0, 3.0]), note="the zeros of sinc"),
        edges([np.nan], "NaN stays"),), domain=D.normal, method="sinc", function="Sinc"),
    pair_entry("xlogy", "Xlogy", (D.normal, D.positive), True, (
        x_zero("xlogy"),
        Case("edges", ((4,), (4,)), domain=(D.fixed([0.0, 0.0, 1.0, 2.0]), D.fixed([0.0, np.nan, 0.0, -1.0])),
             forward_only=True, ieee=True, note="0 at x == 0 (NaN for a NaN y), -inf at y == 0, NaN below"),)),
    pair_entry("xlog1py", "Xlog1py", (D.normal, D.positive), False, (
        x_zero("xlog1py"),
        Case("edges", ((3,), (3,)), domain=(D.fixed([0.0, 1.0, 2.0]), D.fixed([-1.0, -1.0, -2.0])),
             forward_only=True, ieee=True, note="0 at x == 0, -inf at y == -1, NaN below"),)),
]
