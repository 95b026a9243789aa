"""The gamma and Bessel functions on raw arrays: gammaln, digamma, polygamma, i0, i0e, i1, i1e.

Each backend's library computes them where it has them (scipy.special for
NumPy, cupyx.scipy.special for CuPy, torch.special, jax.scipy.special, a
`map_blocks` of scipy.special for Dask, each imported when first used); any
other library (array_api_strict, a generic array-API one), and NumPy or Dask
without SciPy, gets a portable formula written with the array API alone,
accurate to near round-off in float64 and computed in the input's dtype
(float32 stays float32, without a float64 detour a device may lack).
Inputs are real floating arrays (the op layer promotes integers first).

Values at the edges are SciPy's on every backend (where a library differs,
its result is mended with `where`): gammaln is +inf at the poles (0 and the
negative integers) and -inf at -inf; digamma is -inf at +0, +inf at -0 and
NaN at the negative integers and -inf; polygamma(n >= 1) is
(-1)**(n + 1) * inf at the poles and at -inf and (-1)**(n + 1) * 0 at +inf;
i0 and i1 are NaN at +-inf (Cephes' expansions there), i0e and i1e 0.

The portable formulas: gammaln by Cephes' `lgam` (a rational approximation on
[2, 3] reached by the recurrence, Stirling's series from 13 up) with the
reflection formula below 0; digamma by the recurrence up to 10 and the
asymptotic series, Taylor series about its two roots nearest 0 (as SciPy), and
the reflection formula below 0; polygamma(n) as (-1)**(n + 1) n! zeta(n + 1, x)
with the Hurwitz zeta function by Euler-Maclaurin summation, and reflection
below 0 through the n-th derivative of cot; i0, i0e, i1, i1e by Cephes'
Chebyshev expansions on [0, 8] and (8, inf).

The Bessel coefficient tables, `lgam`'s tables and the Chebyshev evaluation
are from the Cephes Math Library (Copyright (c) 2018, Steven Moshier; 3-clause
BSD licence: redistributions keep this notice).

Example:
    >>> import numpy as np
    >>> from torchlight.backends import get
    >>> from torchlight.backends.special_gamma import gammaln, portable
    >>> be = get("numpy")
    >>> x = np.asarray([0.5, 3.0, -2.5])
    >>> np.allclose(gammaln(be, x), portable("gammaln", be.xp, x, None), rtol=1e-14)
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

#: the functions this module computes, by the names the op layer uses
NAMES = ("gammaln", "digamma", "polygamma", "i0", "i0e", "i1", "i1e")

#: scipy.special's (and cupyx.scipy.special's) names for them
_SCIPY = {"gammaln": "gammaln", "digamma": "psi", "i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e"}


def gammaln(backend: Any, x: Any) -> Any:
    """log|Gamma(x)| (scipy.special.gammaln): +inf at the poles."""
    return evaluate(backend, "gammaln", x)


def digamma(backend: Any, x: Any) -> Any:
    """psi(x) = d/dx log Gamma(x) (scipy.special.digamma): NaN at the negative integers."""
    return evaluate(backend, "digamma", x)


def polygamma(backend: Any, n: int, x: Any) -> Any:
    """The n-th derivative of digamma (scipy.special.polygamma); `n` a non-negative int."""
    return evaluate(backend, "digamma", x) if n == 0 else evaluate(backend, "polygamma", x, n)


def i0(backend: Any, x: Any) -> Any:
    """The modified Bessel function of the first kind, order 0 (scipy.special.i0)."""
    return evaluate(backend, "i0", x)


def i0e(backend: Any, x: Any) -> Any:
    """exp(-|x|) i0(x) (scipy.special.i0e)."""
    return evaluate(backend, "i0e", x)


def i1(backend: Any, x: Any) -> Any:
    """The modified Bessel function of the first kind, order 1 (scipy.special.i1)."""
    return evaluate(backend, "i1", x)


def i1e(backend: Any, x: Any) -> Any:
    """exp(-|x|) i1(x) (scipy.special.i1e)."""
    return evaluate(backend, "i1e", x)


def evaluate(backend: Any, name: str, x: Any, n: int | None = None) -> Any:
    """`name` of the array `x` (n for polygamma) with `backend`'s library, or the portable formula."""
    route = _ROUTES.get(backend.name)
    out = route(backend, name, x, n) if route is not None else None
    return portable(name, backend.xp, x, n) if out is None else out


# ------------------------------------------------------------------ the libraries' own functions
def _numpy(backend: Any, name: str, x: Any, n: int | None) -> Any:
    return _scipy_block(name, x, n)


def _scipy_block(name: str, x: np.ndarray, n: int | None) -> np.ndarray:
    """scipy.special's value for a NumPy array, in x's dtype (the portable formula without SciPy)."""
    try:
        import scipy.special as sc
    except ImportError:  # pragma: no cover - scipy is in the test extra
        import array_api_compat.numpy as xp

        return np.asarray(portable(name, xp, x, n), dtype=x.dtype)
    out = sc.polygamma(n, x) if name == "polygamma" else getattr(sc, _SCIPY[name])(x)
    return np.asarray(out, dtype=x.dtype)  # (a 0-d input gives a NumPy scalar; polygamma gives float64)


def _dask(backend: Any, name: str, x: Any, n: int | None) -> Any:
    """scipy.special a block at a time (lazy: nothing is computed here)."""
    return x.map_blocks(_on_block, name, n, dtype=x.dtype, meta=np.empty((0,) * x.ndim, dtype=x.dtype))


def _on_block(block: np.ndarray, name: str, n: int | None) -> np.ndarray:
    return _scipy_block(name, block, n)


def _cupy(backend: Any, name: str, x: Any, n: int | None) -> Any:  # pragma: no cover - needs a GPU
    import cupyx.scipy.special as sc

    out = sc.polygamma(n, x) if name == "polygamma" else getattr(sc, _SCIPY[name])(x)
    return out.astype(x.dtype, copy=False)


def _torch(backend: Any, name: str, x: Any, n: int | None) -> Any:
    """torch.special's functions, mended to SciPy's values at the edges; polygamma(n >= 1) from
    torch's Hurwitz zeta (its trigamma is accurate to only ~1e-10, its zeta to round-off, negative
    arguments included)."""
    import torch

    if name == "polygamma":
        assert n is not None
        s = torch.tensor(float(n + 1), dtype=x.dtype, device=x.device)
        out = torch.special.zeta(s, x) * ((-1.0) ** (n + 1) * math.factorial(n))
        return _mend_polygamma(backend.xp, n, x, out)
    out = getattr(torch.special, name)(x)
    if name == "gammaln":
        out = torch.where(x == -math.inf, -math.inf, out)
    elif name == "digamma":
        out = _digamma_near_roots(backend.xp, x, out)
    return out


def _jax(backend: Any, name: str, x: Any, n: int | None) -> Any:
    """jax.scipy.special's functions, mended to SciPy's values at the edges; polygamma(n >= 1) of
    negative arguments by the reflection formula (JAX's is wrong below about -10)."""
    import jax.scipy.special as js

    xp = backend.xp
    if name == "polygamma":
        assert n is not None
        order = xp.asarray(n)  # (an integer array: JAX refuses a float order)

        def positive(t: Any) -> Any:
            return js.polygamma(order, t)

        return _mend_polygamma(xp, n, x, _reflected_polygamma(xp, n, x, positive))
    out = getattr(js, name)(x)
    if name == "gammaln":
        out = xp.where(x == -math.inf, -math.inf, out)
    elif name == "digamma":  # JAX: NaN at 0
        out = _digamma_near_roots(xp, x, xp.where(x == 0, xp.copysign(xp.full_like(x, math.inf), -x), out))
    return out


_ROUTES: dict[str, Callable[[Any, str, Any, int | None], Any]] = {
    "numpy": _numpy, "dask": _dask, "cupy": _cupy, "torch": _torch, "jax": _jax}


# ------------------------------------------------------------------ the portable formulas
def portable(name: str, xp: Any, x: Any, n: int | None = None) -> Any:
    """`name` of `x` by the array-API formula, in x's dtype (NumPy's warnings about the discarded
    branches of `where`, such as log(0) at the poles, silenced: the result is SciPy's value)."""
    with np.errstate(all="ignore"):
        if name == "polygamma":
            assert n is not None
            return _polygamma(xp, n, x) if n else _digamma(xp, x)
        return _PORTABLE[name](xp, x)


def _full(xp: Any, x: Any, value: float) -> Any:
    return xp.full(x.shape, value, dtype=x.dtype, device=x.device)


def _zeros(xp: Any, x: Any) -> Any:
    """Zeros like x (x * 0.0 would be NaN where x is infinite)."""
    return xp.zeros_like(x)


def _polevl(xp: Any, x: Any, coefficients: tuple[float, ...]) -> Any:
    """sum c_i x^(N - i) by Horner's rule (Cephes' polevl); p1evl when the leading 1 is given."""
    out = _zeros(xp, x) + coefficients[0]
    for c in coefficients[1:]:
        out = out * x + c
    return out


def _chbevl(xp: Any, x: Any, coefficients: tuple[float, ...]) -> Any:
    """The Chebyshev series sum' c_i T_i(x / 2), coefficients highest first (Cephes' chbevl)."""
    b0, b1, b2 = _zeros(xp, x) + coefficients[0], _zeros(xp, x), _zeros(xp, x)
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + c
    return (b0 - b2) * 0.5


def _near_integer(xp: Any, x: Any) -> Any:
    """x - round(x), in [-1/2, 1/2]: sin(pi x) and cot(pi x) are periodic, and this reduction is exact."""
    return x - xp.round(x)


def _cot_pi(xp: Any, r: Any) -> Any:
    """cot(pi r) for r in [-1/2, 1/2] (0 at r = 0 instead of the pole): as tan(pi (1/2 - |r|)) with r's sign
    where |r| > 1/4, since 1/2 - |r| is exact there and pi r rounded near pi/2 would cost cot its digits."""
    a = xp.abs(r)
    inner = a <= 0.25
    direct = 1.0 / xp.tan(math.pi * xp.where(xp.logical_and(inner, a > 0), r, 0.25))
    outer = xp.tan(math.pi * (0.5 - xp.where(inner, 0.5, a)))
    return xp.where(inner, xp.where(a > 0, direct, 0.0), xp.where(r < 0, -outer, outer))


# gammaln: Cephes' lgam. Stirling's series for x >= 13, a rational function on [2, 3) otherwise
_LGAM_A = (8.11614167470508450300E-4, -5.95061904284301438324E-4, 7.93650340457716943945E-4,
           -2.77777777730099687205E-3, 8.33333333333331927722E-2)
_LGAM_B = (-1.37825152569120859100E3, -3.88016315134637840924E4, -3.31612992738871184744E5,
           -1.16237097492762307383E6, -1.72173700820839662146E6, -8.53555664245765465627E5)
_LGAM_C = (1.0, -3.51815701436523470549E2, -1.70642106651881159223E4, -2.20528590553854454839E5,
           -1.13933444367982507207E6, -2.53252307177582951285E6, -2.01889141433532773231E6)
_LS2PI = 0.91893853320467274178  # log(sqrt(2 pi))
#: log Gamma(2 + z) = sum c_k z^k, k = 1..21: c_1 = 1 - Euler's gamma, c_k = (-1)^k (zeta(k) - 1) / k
_LGAM2_SERIES = (0.42278433509846713, 0.3224670334241132, -0.0673523010531981, 0.020580808427784546,
                 -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425,
                 -0.00022315475845357939, 9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05,
                 -9.439488275268397e-06, 4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07,
                 -4.492469198764566e-07, 2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08,
                 -2.2711094608943164e-08)
#: how near 1 and 2 the series replaces the recurrence (whose terms cancel where log Gamma is 0)
_LGAM_ROOT_RADIUS = 0.2


def _gammaln_positive(xp: Any, x: Any) -> Any:
    """log Gamma(x) for x > 0 (any value in the discarded lanes of x <= 0)."""
    big = x >= 13.0
    # Stirling: (x - 1/2) log x - x + log sqrt(2 pi) + A(1/x^2) / x
    xb = xp.where(big, x, 13.0)
    stirling = (xb - 0.5) * xp.log(xb) - xb + _LS2PI + _polevl(xp, 1.0 / (xb * xb), _LGAM_A) / xb
    stirling = xp.where(xb == math.inf, math.inf, stirling)
    # the recurrence into [2, 3): Gamma(u) = (u - 1) Gamma(u - 1) down from below 13, Gamma(u) = Gamma(u + 1) / u up
    u = xp.where(big, 2.5, x)
    z = _full(xp, x, 1.0)
    for _ in range(10):  # 13 -> 3
        down = u >= 3.0
        u = xp.where(down, u - 1.0, u)
        z = xp.where(down, z * u, z)
    logs = _zeros(xp, x)
    for _ in range(2):  # (0, 2) -> [2, 3): each step's log kept apart (1/u overflows for a tiny u)
        up = u < 2.0
        logs = xp.where(up, logs - xp.log(u), logs)
        u = xp.where(up, u + 1.0, u)
    p = u - 2.0
    small = xp.log(z) + logs + p * _polevl(xp, p, _LGAM_B) / _polevl(xp, p, _LGAM_C)
    out = xp.where(big, stirling, small)
    # about the zeros at 1 and 2: log Gamma(2 + z), and log Gamma(1 + z) = log Gamma(2 + z) - log1p(z)
    # (one series for both: z = x - 1 beside 1, x - 2 elsewhere)
    z1 = x - 1.0
    near1 = xp.abs(z1) < _LGAM_ROOT_RADIUS
    z = xp.where(near1, z1, x - 2.0)
    series = _taylor(xp, z, _LGAM2_SERIES) - xp.where(near1, xp.log1p(z1), 0.0)
    return xp.where(xp.logical_or(near1, xp.abs(z) < _LGAM_ROOT_RADIUS), series, out)


def _gammaln(xp: Any, x: Any) -> Any:
    positive = x > 0
    direct = _gammaln_positive(xp, xp.where(positive, x, 1.0 - x))
    # x <= 0: log|Gamma(x)| = log(pi / |sin(pi x)|) - log Gamma(1 - x), with |sin(pi x)| = pi |r| sinc(r)
    r = _near_integer(xp, x)
    tiny = xp.abs(r) < 1e-8
    pr = math.pi * xp.where(tiny, 0.5, r)
    sinc = xp.where(tiny, 1.0, xp.sin(pr) / pr)
    reflected = -xp.log(xp.abs(r)) - xp.log(sinc) - direct
    out = xp.where(positive, direct, reflected)
    return xp.where(x == -math.inf, -math.inf, xp.where(r == 0, xp.where(positive, out, math.inf), out))


# digamma: the recurrence to 10, the asymptotic series, Taylor series about the roots nearest 0
_BERNOULLI_PSI = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12,
                  -3617.0 / 8160)  # B_2k / 2k, k = 1..8
_POS_ROOT, _POS_ROOT_VALUE = 1.4616321449683622, -9.241265521729427e-17
_NEG_ROOT, _NEG_ROOT_VALUE = -0.5040830082644554, 7.289763902976895e-17
#: (-1)^(n+1) zeta(n + 1, root) and, for the negative root, (-1)^(n+1) zeta(n + 1, root + 2), n = 1..26
_POS_SERIES = (0.9676722454476212, -0.4427631689835922, 0.2584997609556511, -0.16394270544240658,
               0.10782405069126241, -0.07219956125645474, 0.04880428816414313, -0.033161126474847376,
               0.022597648232218118, -0.01542476590494897, 0.010538791616612184, -0.007204534386356875,
               0.004926781395729858, -0.0033698016554393312, 0.00230512632673493, -0.001576936771430199,
               0.0010788252019162978, -0.000738070938996006, 0.0005049532658346027, -0.0003454680251063082,
               0.00023635601564027086, -0.00016170622091974827, 0.00011063372768747428, -7.569179582195078e-05,
               5.17857579522209e-05, -3.543007094765967e-05)
_NEG_SERIES = (0.9381979690834112, -0.41728953034468597, 0.23722825947363896, -0.1466662943236801,
               0.09410557231158634, -0.06150600545373637, 0.040595095830363755, -0.026938776410793626,
               0.017931311290499935, -0.011956729288150052, 0.007981037191019603, -0.005330509396838975,
               0.0035615020417106053, -0.002380069950809624, 0.001590746648516227, -0.0010632734592477785,
               0.0007107361968853116, -0.0004750983849279136, 0.0003175891442401357, -0.00021230094089949746,
               0.00014191904779929247, -9.48704488985804e-05, 6.341939860671127e-05, -4.239492005192181e-05,
               2.834039139884223e-05, -1.894515051568163e-05)
_ROOT_RADIUS = 0.3


def _taylor(xp: Any, z: Any, coefficients: tuple[float, ...]) -> Any:
    """sum c_n z^n, n = 1..N (Horner)."""
    out = _zeros(xp, z) + coefficients[-1]
    for c in reversed(coefficients[:-1]):
        out = out * z + c
    return out * z


def _digamma_positive(xp: Any, x: Any) -> Any:
    """psi(x) for x > 0: psi(x) = psi(x + k) - sum 1/(x + j), then the asymptotic series from 10."""
    u, shift = x, _zeros(xp, x)
    for _ in range(10):
        up = u < 10.0
        shift = xp.where(up, shift - 1.0 / u, shift)
        u = xp.where(up, u + 1.0, u)
    w = 1.0 / (u * u)
    series = xp.log(u) - 0.5 / u - w * _polevl(xp, w, _BERNOULLI_PSI[::-1])
    return series + shift


def _digamma_near_roots(xp: Any, x: Any, out: Any) -> Any:
    """`out` with, within 0.3 of digamma's roots nearest 0, the Taylor series about the root (as SciPy:
    elsewhere the terms of the recurrence or reflection cancel there, and a library's digamma may lose
    digits there: PyTorch's and JAX's keep only ~1e-11 of it)."""
    zp = x - _POS_ROOT
    out = xp.where(xp.abs(zp) < _ROOT_RADIUS, _POS_ROOT_VALUE + _taylor(xp, zp, _POS_SERIES), out)
    # about the negative root the poles at 0 and -1 are taken out exactly:
    # psi(x) = psi(x + 2) - 1/x - 1/(x + 1), the Taylor series about root + 2 for psi(x + 2)
    zn = x - _NEG_ROOT
    near = _NEG_ROOT_VALUE + _taylor(xp, zn, _NEG_SERIES) + zn / (x * _NEG_ROOT) + zn / ((x + 1.0) * (_NEG_ROOT + 1.0))
    return xp.where(xp.abs(zn) < _ROOT_RADIUS, near, out)


def _digamma(xp: Any, x: Any) -> Any:
    positive = x > 0
    direct = _digamma_positive(xp, xp.where(positive, x, 1.0 - x))
    r = _near_integer(xp, x)
    reflected = direct - math.pi * _cot_pi(xp, r)  # psi(x) = psi(1 - x) - pi cot(pi x)
    out = _digamma_near_roots(xp, x, xp.where(positive, direct, reflected))
    out = xp.where(xp.logical_and(r == 0, xp.logical_not(positive)), math.nan, out)
    return xp.where(x == 0, xp.copysign(_full(xp, x, math.inf), -x), out)


# polygamma: (-1)^(n+1) n! zeta(n + 1, x), Hurwitz zeta by Euler-Maclaurin
@cache
def _bernoulli(count: int) -> tuple[Fraction, ...]:
    """B_0 .. B_count (B_1 = -1/2), exactly, by the recurrence sum_k C(m + 1, k) B_k = 0."""
    b: list[Fraction] = [Fraction(1)]
    for m in range(1, count + 1):
        b.append(-sum((math.comb(m + 1, k) * b[k] for k in range(m)), Fraction(0)) / (m + 1))
    return tuple(b)


#: terms of the Euler-Maclaurin tail; the shift puts the tail at x + N >= 9 + s (its error then below 1e-16)
_EM_TERMS = 12


@cache
def _em_coefficients(s: int) -> tuple[float, ...]:
    """B_2j / (2j)! * s (s + 1) ... (s + 2j - 2), j = 1.._EM_TERMS: the tail's term j times a^(s + 2j - 1)."""
    b = _bernoulli(2 * _EM_TERMS)
    out = []
    for j in range(1, _EM_TERMS + 1):
        rising = math.prod(range(s, s + 2 * j - 1))
        out.append(float(b[2 * j] / math.factorial(2 * j) * rising))
    return tuple(out)


def _hurwitz_zeta(xp: Any, s: int, q: Any) -> Any:
    """zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2 and q > 0 (all terms positive: no cancellation)."""
    shift = 9 + s
    total = _zeros(xp, q)
    for k in range(shift):
        total = total + (q + float(k)) ** float(-s)
    a = q + float(shift)
    inv2 = 1.0 / (a * a)
    tail = _taylor(xp, inv2, _em_coefficients(s)) * a  # sum_j c_j a^(-2j) * a = sum_j c_j a^(1 - 2j)
    # a^(1 - s) / (s - 1) on its own: a^-s underflows first (psi'(1e308) = 1e-308)
    return total + a ** float(1 - s) / float(s - 1) + a ** float(-s) * (0.5 + tail)


@cache
def _cot_derivative(n: int) -> tuple[int, ...]:
    """The coefficients (highest power first) of P_n, d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)):
    P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c)."""
    p = [0, 1]  # lowest power first
    for _ in range(n):
        d = [k * p[k] for k in range(1, len(p))]
        nxt = [0] * (len(d) + 2)
        for k, c in enumerate(d):
            nxt[k] -= c
            nxt[k + 2] -= c
        p = nxt
    while len(p) > 1 and p[-1] == 0:
        p.pop()
    return tuple(reversed(p))


def _reflected_polygamma(xp: Any, n: int, x: Any, positive: Callable[[Any], Any]) -> Any:
    """psi^(n)(x) from `positive` (psi^(n) for x > 0) with, below 0, the reflection formula
    psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n + 1) P_n(cot(pi x))."""
    below = x <= 0
    direct = positive(xp.where(below, 1.0 - x, x))
    r = _near_integer(xp, x)
    cot = _cot_pi(xp, r)
    coefficients = [float(c) for c in _cot_derivative(n)]
    poly = _polevl(xp, cot, tuple(coefficients))
    reflected = direct * float((-1) ** n) - poly * math.pi ** (n + 1)
    return xp.where(below, reflected, direct)


def _mend_polygamma(xp: Any, n: int, x: Any, out: Any) -> Any:
    """SciPy's values at the edges: (-1)^(n+1) inf at the poles and -inf, (-1)^(n+1) 0 at +inf."""
    sign = float((-1) ** (n + 1))
    pole = xp.logical_or(xp.logical_and(x <= 0, x == xp.round(x)), x == -math.inf)
    out = xp.where(pole, sign * math.inf, out)
    return xp.where(x == math.inf, sign * 0.0, out)


def _polygamma(xp: Any, n: int, x: Any) -> Any:
    scale = float((-1) ** (n + 1) * math.factorial(n))
    out = _reflected_polygamma(xp, n, x, lambda t: _hurwitz_zeta(xp, n + 1, t) * scale)
    return _mend_polygamma(xp, n, x, out)


# the Bessel functions: Cephes' Chebyshev expansions of exp(-x) I(x) on [0, 8] and of exp(-x) sqrt(x) I(x) above
_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)
_I1_A = (2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
         -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
         3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
         -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
         9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
         -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
         4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
         -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
         2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
         -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1_B = (7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
         -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
         -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
         4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
         -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
         3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
         -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
         -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
         7.78576235018280120474E-1)


def _bessel_scaled(xp: Any, x: Any, order: int) -> Any:
    """exp(-|x|) I_order(x) (i0e, i1e), odd in x for order 1."""
    a = xp.abs(x)
    inside = a <= 8.0
    low = _chbevl(xp, a * 0.5 - 2.0, _I0_A if order == 0 else _I1_A)
    high = _chbevl(xp, 32.0 / xp.where(inside, 8.0, a) - 2.0, _I0_B if order == 0 else _I1_B) / xp.sqrt(a)
    if order:
        low = low * a
    out = xp.where(inside, low, high)
    return xp.where(x < 0, -out, out) if order else out


def _bessel(xp: Any, x: Any, order: int) -> Any:
    """I_order(x) = exp(|x|) times the scaled function (inf * 0 is NaN at +-inf, as Cephes)."""
    return xp.exp(xp.abs(x)) * _bessel_scaled(xp, x, order)


_PORTABLE: dict[str, Callable[[Any, Any], Any]] = {
    "gammaln": _gammaln,
    "digamma": _digamma,
    "i0": lambda xp, x: _bessel(xp, x, 0),
    "i0e": lambda xp, x: _bessel_scaled(xp, x, 0),
    "i1": lambda xp, x: _bessel(xp, x, 1),
    "i1e": lambda xp, x: _bessel_scaled(xp, x, 1),
}
