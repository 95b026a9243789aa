"""The special_gamma entries (torchlight/ops/special_gamma.py): gammaln (`lgamma`), digamma, polygamma,
multigammaln (`mvlgamma`), i0, i0e, i1, i1e.

References are scipy.special's, in float64. Inputs for the gamma family keep
clear of the poles at 0 and the negative integers (`off_the_poles`: positive
values, and negative ones at least 0.15 from an integer); the exponentially
scaled Bessel functions, which have a kink at 0 (from exp(-|x|)), draw away
from 0, and a case at 0 checks the documented gradient there (i0e: 0, the
kink's sign(0) = 0; i1 and i1e: 1/2, the limit). `edges` cases check SciPy's
values at the poles, at +-0, +-inf and NaN, forward only.

Example:
    >>> from conformance.ops.special_gamma import OPS
    >>> sorted({op.function for op in OPS})
    ['Gammaln', 'I0', 'I0e', 'I1', 'I1e', 'Multigammaln', 'Polygamma']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo, Tol
from conformance.ops.common import SMALL_UNARY
from torchlight.ops import special_gamma as G


def _sc() -> Any:
    import scipy.special

    return scipy.special


def off_the_poles(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Half the values uniform on [0.2, 5], half k + u for k in -3..-1 and u in [0.15, 0.85]: clear of
    the poles of gammaln, digamma and polygamma at 0 and the negative integers."""
    positive = rng.uniform(0.2, 5.0, shape)
    negative = rng.integers(-3, 0, shape) + rng.uniform(0.15, 0.85, shape)
    return np.where(rng.uniform(size=shape) < 0.5, positive, negative)


def wide(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Normal samples times 4 (the Bessel functions across both of Cephes' intervals, |x| <= 8 and above)."""
    return rng.standard_normal(shape) * 4.0


def away_from_zero(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Either sign, magnitude in [0.3, 10]: clear of the kink of i0e and i1e at 0."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 10.0, shape)


def above(bound: float) -> Any:
    """Uniform on [bound + 0.3, bound + 5] (multigammaln's domain a > (p - 1)/2, with room for the step)."""

    def make(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return rng.uniform(bound + 0.3, bound + 5.0, shape)

    make.__name__ = f"above({bound})"
    return make


#: SciPy's values at the poles and other edges (forward only)
POLES = D.fixed([0.0, -0.0, -1.0, -2.0, -7.0, np.inf, -np.inf, np.nan, 1e-300, 200.5, -1e20, -30.25])
BESSEL_EDGES = D.fixed([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 700.0, -710.0, 8.0, -8.0, 1e6])


def edges(domain: Any) -> Case:
    return Case("edges", ((12,),) if domain is POLES else ((11,),), domain=domain, forward_only=True, ieee=True,
                dtypes=("float64",), note="SciPy's values at the poles, +-0, +-inf and NaN (never an exception); "
                "float64 only: float32 overflows sooner (i0(700))")


#: the cases of an entry that calls a Function another entry checks in full (a free function beside its
#: method): the portable formulas are long programs of array ops, so array_api_strict's double backward
#: of every shape case costs seconds per entry
ALIAS = (SMALL_UNARY[1],)


def gamma_entry(name: str, call: Any, reference: Any, function: str, method: str | None = None,
                alias: bool = False) -> OpInfo:
    """An entry of the gamma family on `off_the_poles`, with the edge case (one case for an alias)."""
    cases = ALIAS if alias else SMALL_UNARY + (edges(POLES),)
    return OpInfo(name, call, reference, cases, domain=off_the_poles, method=method, function=function)


def bessel_entry(name: str, call: Any, reference: str, function: str, method: str | None = None,
                 domain: Any = wide, extra: tuple[Case, ...] = (), alias: bool = False) -> OpInfo:
    cases = ALIAS if alias else SMALL_UNARY + (edges(BESSEL_EDGES),) + extra
    return OpInfo(name, call, lambda x: getattr(_sc(), reference)(x), cases, domain=domain, method=method,
                  function=function)


def _bessel_grad(name: str) -> Any:
    """The gradient of sum(f(x)) by its formula, 1/2 or 0 at 0 (the `at_zero` case's reference)."""

    def reference(x: np.ndarray, **kwargs: Any) -> tuple[np.ndarray]:
        sc = _sc()
        safe = np.where(x == 0, 1.0, x)
        ratio = {"i1": sc.i1, "i1e": sc.i1e}.get(name, lambda t: t * 0)(x) / safe
        ratio = np.where(x == 0, 0.5, ratio)
        grads = {"i0": sc.i1(x), "i1": sc.i0(x) - ratio, "i0e": sc.i1e(x) - np.sign(x) * sc.i0e(x),
                 "i1e": sc.i0e(x) - np.sign(x) * sc.i1e(x) - ratio}
        return (grads[name],)

    return reference


def zero_case(name: str) -> Case:
    return Case("at_zero", ((3,),), domain=D.fixed([0.0, 0.5, -2.0]), grad_reference=_bessel_grad(name),
                double_backward=False, note="the gradient at 0: i1'(0) = i1e'(0) = 1/2 (the limit), i0e'(0) = 0")


def polygamma_call(x: Any, n: int, free: bool = False) -> Any:
    return tl.polygamma(n, x) if free else x.polygamma(n)


def polygamma_ref(x: np.ndarray, n: int, free: bool = False) -> np.ndarray:
    return _sc().polygamma(n, x)


POLYGAMMA_CASES = (
    Case("n1", ((3, 4),), kwargs={"n": 1}),
    Case("n2", ((5,),), kwargs={"n": 2}),
    Case("n3_0d", ((),), kwargs={"n": 3}),
    Case("n0_is_digamma", ((4,),), kwargs={"n": 0}),
    Case("n1_empty", ((0, 3),), kwargs={"n": 1}),
    Case("n2_edges", ((12,),), domain=POLES, kwargs={"n": 2}, forward_only=True, ieee=True,
         note="SciPy's values: (-1)**(n + 1) inf at the poles and -inf, (-1)**(n + 1) 0 at +inf"),
    Case("n1_edges", ((12,),), domain=POLES, kwargs={"n": 1}, forward_only=True, ieee=True),
    Case("negative_n", ((3,),), kwargs={"n": -1}, raises=ValueError, match="polygamma: n must be at least 0"),
    Case("float_n", ((3,),), kwargs={"n": 1.5}, raises=TypeError, match="polygamma: n must be an int"),
)


def mvlgamma_call(a: Any, p: int, free: bool = False) -> Any:
    return tl.mvlgamma(a, p) if free else a.mvlgamma(p)


def mvlgamma_ref(a: np.ndarray, p: int, free: bool = False) -> np.ndarray:
    return _sc().multigammaln(a, p)


LAZY_RAISE = {"dask": "Dask raises the domain error when the value is computed, not at the call "
                      "(tests/ops/test_gamma_bessel.py checks it)"}

MVLGAMMA_CASES = (
    Case("p1", ((3, 4),), kwargs={"p": 1}, domain=above(0.0)),
    Case("p3", ((4,),), kwargs={"p": 3}, domain=above(1.0)),
    Case("p4_0d", ((),), kwargs={"p": 4}, domain=above(1.5)),
    Case("empty", ((0, 2),), kwargs={"p": 2}, domain=above(0.5)),
    Case("below_the_domain", ((3,),), kwargs={"p": 3}, domain=D.fixed([0.9, 2.0, 3.0]), raises=ValueError,
         match="multigammaln: every element of a must be greater than (p - 1)/2 = 1.0", skips=LAZY_RAISE,
         note="a <= (p - 1)/2 is a ValueError, as SciPy's and PyTorch's"),
    Case("p0", ((3,),), kwargs={"p": 0}, raises=ValueError, match="multigammaln: p must be at least 1"),
)

#: the float32 tier near a pole of polygamma(3) (values up to ~1e3): a few float32 ulps of slack more
POLY32 = {"forward:float32": Tol("float32 polygamma grows as (x - pole)^-(n+1) near the poles", rtol=3e-4)}


OPS: list[OpInfo] = [
    gamma_entry("lgamma", lambda x: x.lgamma(), lambda x: _sc().gammaln(x), "Gammaln", method="lgamma"),
    gamma_entry("tl.lgamma", lambda x: tl.lgamma(x), lambda x: _sc().gammaln(x), "Gammaln", alias=True),
    gamma_entry("special_gamma.gammaln", G.gammaln, lambda x: _sc().gammaln(x), "Gammaln", alias=True),
    gamma_entry("digamma", lambda x: x.digamma(), lambda x: _sc().digamma(x), "Polygamma", method="digamma"),
    gamma_entry("tl.digamma", lambda x: tl.digamma(x), lambda x: _sc().digamma(x), "Polygamma", alias=True),
    gamma_entry("special_gamma.digamma", G.digamma, lambda x: _sc().digamma(x), "Polygamma", alias=True),
    OpInfo("polygamma", polygamma_call, polygamma_ref, POLYGAMMA_CASES, domain=off_the_poles, method="polygamma",
           function="Polygamma", tol=POLY32),
    OpInfo("tl.polygamma", lambda x, n: polygamma_call(x, n, True), polygamma_ref, POLYGAMMA_CASES[1:2],
           domain=off_the_poles, function="Polygamma", tol=POLY32),
    OpInfo("special_gamma.polygamma", lambda x, n: G.polygamma(n, x), polygamma_ref, POLYGAMMA_CASES[1:2],
           domain=off_the_poles, function="Polygamma"),
    OpInfo("mvlgamma", mvlgamma_call, mvlgamma_ref, MVLGAMMA_CASES, method="mvlgamma", function="Multigammaln"),
    OpInfo("tl.mvlgamma", lambda a, p: mvlgamma_call(a, p, True), mvlgamma_ref, MVLGAMMA_CASES[1:2],
           function="Multigammaln"),
    OpInfo("special_gamma.multigammaln", G.multigammaln, mvlgamma_ref, MVLGAMMA_CASES[1:2], function="Multigammaln"),
    bessel_entry("i0", lambda x: x.i0(), "i0", "I0", method="i0", extra=(zero_case("i0"),)),
    bessel_entry("tl.i0", lambda x: tl.i0(x), "i0", "I0", alias=True),
    bessel_entry("special_gamma.i0", G.i0, "i0", "I0", alias=True),
    bessel_entry("special_gamma.i0e", G.i0e, "i0e", "I0e", domain=away_from_zero, extra=(zero_case("i0e"),)),
    bessel_entry("special_gamma.i1", G.i1, "i1", "I1", extra=(zero_case("i1"),)),
    bessel_entry("special_gamma.i1e", G.i1e, "i1e", "I1e", domain=away_from_zero, extra=(zero_case("i1e"),)),
]
