"""Special functions on raw arrays: each backend's own library where it has one, a portable formula otherwise.

`evaluate(backend, name, *arrays)` computes the special function `name`
(one of `NAMES`) of arrays of `backend`'s library: through `scipy.special`
for NumPy (SciPy imported lazily; without it, the portable formula), a
`map_blocks` of it for Dask, `cupyx.scipy.special` for CuPy,
`torch.special` for torch and `jax.scipy.special` for JAX, and the
portable formulas below (array-API functions only) for array_api_strict,
any other array-API library, and a function a library lacks (torch has
no `erfcinv`). Each result keeps its input's floating dtype.

The portable formulas are accurate to float64 round-off, not a textbook
1e-7: `erf`/`erfc` are W. J. Cody's rational Chebyshev approximations
(Math. Comp. 23, 1969: three intervals, the last one an asymptotic form
in 1/x**2, and exp(-x**2) formed from a 1/16-rounded x so that the
square's rounding does not grow in the tail); `ndtri` is Cephes'
rational approximation in sqrt(-2 log p); `erfinv` and `erfcinv` start
from it and take two Halley steps on erf, or Newton steps on log(erfc)
in the tail, whose residuals are formed without cancellation (1 - |x| is
exact where it is used); `log_ndtr` is log(ndtr) in the middle,
log1p(-ndtr(-x)) above 0 and -x**2/2 + log of erfc's scaled tail below
-4 sqrt(2), so it never underflows. Out of their domains they give
SciPy's values (NaN, or +-inf at the ends), never an error.

Example:
    >>> import numpy as np
    >>> from torchlight import backends
    >>> from torchlight.backends.special_formulas import portable
    >>> xp = backends.get("array_api_strict").xp
    >>> x = xp.asarray([-1.0, 0.0, 0.5])
    >>> [round(float(v), 12) for v in portable("erf", xp, x)]
    [-0.84270079295, 0.0, 0.520499877813]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

#: the functions this module computes, with their number of array arguments
NAMES: dict[str, int] = {"erf": 1, "erfc": 1, "erfinv": 1, "erfcinv": 1, "ndtr": 1, "ndtri": 1, "log_ndtr": 1,
                         "logit": 1, "expit": 1, "entr": 1, "sinc": 1, "xlogy": 2, "xlog1py": 2}

#: where each library keeps its special functions (imported on first use), and the names it lacks there
_LIBRARIES: dict[str, tuple[str, frozenset[str]]] = {
    "numpy": ("scipy.special", frozenset({"sinc"})),  # (scipy's sinc is recent: NumPy's own is the same formula)
    "dask": ("scipy.special", frozenset({"sinc"})),
    "cupy": ("cupyx.scipy.special", frozenset({"sinc"})),
    "torch": ("torch.special", frozenset({"erfcinv"})),
    "jax": ("jax.scipy.special", frozenset({"erfcinv", "sinc"})),
}
#: functions a library has in its main namespace instead
_MAIN: dict[str, tuple[str, frozenset[str]]] = {
    "numpy": ("numpy", frozenset({"sinc"})),
    "dask": ("numpy", frozenset({"sinc"})),
    "cupy": ("cupy", frozenset({"sinc"})),
    "jax": ("jax.numpy", frozenset({"sinc"})),
}

_found: dict[tuple[str, str], Callable[..., Any] | None] = {}


def native(backend_name: str, name: str) -> Callable[..., Any] | None:
    """The library function for `name` on the backend called `backend_name` (None: none, or the
    library is not installed, so the portable formula serves)."""
    key = (backend_name, name)
    if key in _found:
        return _found[key]
    fn = None
    for table in (_MAIN, _LIBRARIES):
        module_name, names = table.get(backend_name, ("", frozenset()))
        wanted = name in names if table is _MAIN else name not in names
        if module_name and wanted:
            try:
                module = __import__(module_name, fromlist=["_"])
            except ImportError:  # SciPy (or cupyx) missing: the portable formula
                module = None
            fn = getattr(module, name, None)
            if fn is not None:
                break
    _found[key] = fn
    return fn


def evaluate(backend: Any, name: str, *arrays: Any) -> Any:
    """`name` of `arrays` (of `backend`'s library), by the library where it has the function."""
    xp = backend.xp
    fn = native(backend.name, name)
    if fn is None:
        return portable(name, xp, *arrays)
    dtype = _result_dtype(xp, arrays)
    if backend.lazy:  # Dask: the NumPy function block by block, lazily (an elementwise function)
        import dask.array as da

        parts = xp.broadcast_arrays(*arrays) if len(arrays) > 1 else arrays
        return da.map_blocks(_cast_block(fn), *parts, dtype=dtype, meta=np.empty((0,) * parts[0].ndim, dtype))
    out = fn(*arrays)
    if getattr(out, "dtype", dtype) != dtype:  # (SciPy's loops for float32 are not all float32)
        out = xp.astype(xp.asarray(out), dtype)
    return out


def _cast_block(fn: Callable[..., Any]) -> Callable[..., Any]:
    def block(*parts: Any) -> Any:
        out = np.asarray(fn(*parts))
        dtype = np.result_type(*parts)
        return out if out.dtype == dtype else out.astype(dtype)
    return block


def _result_dtype(xp: Any, arrays: tuple) -> Any:
    return arrays[0].dtype if len(arrays) == 1 else xp.result_type(*arrays)


def portable(name: str, xp: Any, *arrays: Any) -> Any:
    """`name` of `arrays` by the portable formula (array-API functions of `xp` only)."""
    return _PORTABLE[name](xp, *arrays)


# ------------------------------------------------------------------ helpers
def _poly(t: Any, coefficients: tuple[float, ...]) -> Any:
    """sum(c * t**k), the coefficients highest degree first (Horner)."""
    out = t * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        out = out * t + c
    return out


def _nan(xp: Any, like: Any) -> Any:
    """NaNs like `like` (`where` takes one Python scalar, not two)."""
    return xp.full_like(like, math.nan)


def _cap(xp: Any, x: Any) -> float:
    """A large argument whose square (and 1 / square) stays finite and normal in `x`'s dtype."""
    return 1e150 if x.dtype == xp.float64 else 1e18


_SQRT_PI = math.sqrt(math.pi)
_SQRT2 = math.sqrt(2.0)
_THRESH = 0.46875  # Cody's first interval: |x| <= 0.46875

# Cody's coefficients (Math. Comp. 1969; his 1990 CALERF), highest degree first
_ERF_NUM = (0.185777706184603153, 3.16112374387056560, 113.864154151050156, 377.485237685302021,
            3209.37758913846947)
_ERF_DEN = (1.0, 23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062)
_ERFC_MID_NUM = (2.15311535474403846e-8, 0.564188496988670089, 8.88314979438837594, 66.1191906371416295,
                 298.635138197400131, 881.952221241769090, 1712.04761263407058, 2051.07837782607147,
                 1230.33935479799725)
_ERFC_MID_DEN = (1.0, 15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019,
                 3290.79923573345963, 4362.61909014324716, 3439.36767414372164, 1230.33935480374942)
_ERFC_BIG_NUM = (0.0163153871373020978, 0.305326634961232344, 0.360344899949804439, 0.125781726111229246,
                 0.0160837851487422766, 6.58749161529837803e-4)
_ERFC_BIG_DEN = (1.0, 2.56852019228982242, 1.87295284992346047, 0.527905102951428412,
                 0.0605183413124413191, 0.00233520497626869185)


def _erf_small(y: Any) -> Any:
    """erf(y) for |y| <= 0.46875 (odd)."""
    t = y * y
    return y * _poly(t, _ERF_NUM) / _poly(t, _ERF_DEN)


def _erfc_scaled(xp: Any, y: Any) -> Any:
    """exp(y**2) erfc(y) for y > 0.46875 (y clipped there: the caller selects)."""
    mid = xp.clip(y, _THRESH, 4.0)
    at_mid = _poly(mid, _ERFC_MID_NUM) / _poly(mid, _ERFC_MID_DEN)
    big = xp.clip(y, 4.0, _cap(xp, y))  # (1 / big**2 neither overflows nor underflows to nonsense)
    s = 1.0 / (big * big)
    at_big = (1.0 / _SQRT_PI - s * _poly(s, _ERFC_BIG_NUM) / _poly(s, _ERFC_BIG_DEN)) / big
    return xp.where(y <= 4.0, at_mid, at_big)


def _exp_minus_square(xp: Any, y: Any) -> Any:
    """exp(-y**2) for y >= 0, with y**2 split at y rounded down to 1/16 (exact square) plus the rest,
    so that the square's rounding does not grow exp's relative error by y**2 (Cody)."""
    y = xp.clip(y, 0.0, 30.0)  # (exp(-900) is 0 already; no overflow of the square)
    head = xp.floor(y * 16.0) / 16.0
    return xp.exp(-(head * head)) * xp.exp(-((y - head) * (y + head)))


def _erfc_of_abs(xp: Any, y: Any) -> Any:
    """erfc(y) for y = |x| > 0.46875 (clipped; the caller selects)."""
    return _exp_minus_square(xp, y) * _erfc_scaled(xp, y)


def _erf(xp: Any, x: Any) -> Any:
    y = xp.abs(x)
    small = _erf_small(xp.clip(y, 0.0, _THRESH))
    out = xp.where(y <= _THRESH, small, 1.0 - _erfc_of_abs(xp, y))
    return xp.copysign(out, x)  # (odd; erf(-0.0) is -0.0; NaN stays NaN)


def _erfc(xp: Any, x: Any) -> Any:
    y = xp.abs(x)
    small = 1.0 - xp.copysign(_erf_small(xp.clip(y, 0.0, _THRESH)), x)
    tail = _erfc_of_abs(xp, y)
    return xp.where(y <= _THRESH, small, xp.where(x < 0.0, 2.0 - tail, tail))


def _ndtr(xp: Any, x: Any) -> Any:
    """(1 + erf(x / sqrt 2)) / 2 near 0, erfc(-x / sqrt 2) / 2 below and 1 - erfc(x / sqrt 2) / 2 above,
    with exp(-x**2 / 2) formed from x itself (its split square, as erfc's)."""
    z = x * (1.0 / _SQRT2)
    y = xp.abs(z)
    near = 0.5 + 0.5 * _erf_small(xp.clip(z, -_THRESH, _THRESH))
    ax = xp.clip(xp.abs(x), 0.0, 40.0)
    head = xp.floor(ax * 16.0) / 16.0
    gauss = xp.exp(-0.5 * (head * head)) * xp.exp(-0.5 * ((ax - head) * (ax + head)))
    lower = 0.5 * gauss * _erfc_scaled(xp, y)  # ndtr(-|x|)
    return xp.where(y <= _THRESH, near, xp.where(x < 0.0, lower, 1.0 - lower))


def _log_ndtr(xp: Any, x: Any) -> Any:
    lower = _ndtr(xp, -xp.abs(x))  # ndtr(-|x|), accurate in the tail
    in_middle = xp.logical_and(x <= 0.0, x >= -4.0 * _SQRT2)
    middle = xp.log(xp.where(in_middle, lower, 1.0))  # (the masked side is never used: no log of 0 there)
    upper = xp.log1p(-xp.where(x > 0.0, lower, 0.0))
    # below -4 sqrt 2: log(erfc(t) / 2) = -t**2 + log(exp(t**2) erfc(t) / 2), t = -x / sqrt 2: no underflow
    limit = math.sqrt(float(xp.finfo(x.dtype).max)) * 1.4142  # (beyond it, -x**2/2 rounds to -inf)
    ax = xp.clip(xp.abs(x), 4.0 * _SQRT2, limit)
    tail = -(0.5 * ax) * ax + xp.log(0.5 * _erfc_scaled(xp, ax * (1.0 / _SQRT2)))
    tail = xp.where(xp.abs(x) >= limit, -math.inf, tail)
    out = xp.where(x < -4.0 * _SQRT2, tail, xp.where(x <= 0.0, middle, upper))
    return xp.where(xp.isnan(x), x, out)


# Cephes' ndtri (Moshier): w + w**3 P0(w**2)/Q0(w**2) around 1/2; z - log(z)/z - P(1/z)/(z Q(1/z)) in the tails
_NDTRI_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
             1.39312609387279679503e1, -1.23916583867381258016e0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
             -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
             1.59056225126211695515e1, -1.18331621121330003142e0)
_NDTRI_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
             4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
             -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
             1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
             -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_NDTRI_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
             1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
             3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
             2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
             2.89247864745380683936e-6, 6.79019408009981274425e-9)
_EXP_M2 = math.exp(-2.0)


def _ndtri_lower(xp: Any, p: Any) -> Any:
    """Cephes' ndtri for 0 < p <= 1/2 (sanitised by the caller): a starting value for the refinements."""
    q = xp.clip(p, float(xp.finfo(p.dtype).smallest_normal), 0.5)
    w = q - 0.5
    ww = w * w
    centre = -(w + w * ww * (_poly(ww, _NDTRI_P0) / _poly(ww, _NDTRI_Q0))) * math.sqrt(2.0 * math.pi)
    z = xp.sqrt(-2.0 * xp.log(q))
    r = 1.0 / z
    head = z - xp.log(z) / z
    far = head - _poly(r, _NDTRI_P2) / _poly(r, _NDTRI_Q2) / z
    near = head - _poly(r, _NDTRI_P1) / _poly(r, _NDTRI_Q1) / z
    return xp.where(q > _EXP_M2, -centre, -xp.where(z >= 8.0, far, near))  # (negative: p <= 1/2)


def _erfc_inverse_tail(xp: Any, y: Any) -> Any:
    """erfcinv(y) for 0 < y < 1/2 (clipped by the caller): Cephes' start, then Newton steps on
    log(erfc(z)) = log(y), whose every term is formed without underflow."""
    z = -_ndtri_lower(xp, 0.5 * y) * (1.0 / _SQRT2)
    log_y = xp.log(y)
    for _ in range(3):
        z = xp.clip(z, _THRESH, _cap(xp, z))
        scaled = _erfc_scaled(xp, z)
        residual = -(z * z) + xp.log(scaled) - log_y  # log(erfc(z)) - log(y)
        z = z + residual * scaled * (_SQRT_PI / 2.0)  # d/dz log erfc(z) = -2 / (sqrt(pi) exp(z**2) erfc(z))
    return z


def _erfinv_abs(xp: Any, a: Any) -> Any:
    """erfinv(a) for 0 <= a < 1 (sanitised by the caller): Cephes' start on (1 - a) / 2, then two Halley
    steps on erf(y) = a, the residual taken as (1 - a) - erfc(y) where a >= 1/2 (1 - a exact there)."""
    y = -_ndtri_lower(xp, 0.5 * (1.0 - a)) * (1.0 / _SQRT2)
    big = a >= 0.5
    rest = 1.0 - a
    for _ in range(2):
        y = xp.clip(y, 0.0, 30.0)
        e = xp.abs(y)
        residual = xp.where(big, rest - _erfc(xp, e), _erf(xp, e) - a)
        slope = (2.0 / _SQRT_PI) * _exp_minus_square(xp, e)
        u = residual / slope
        y = y - u / (1.0 + y * u)  # Halley: erf'' = -2 y erf'
    return y


def _erfinv(xp: Any, x: Any) -> Any:
    a = xp.abs(x)
    inside = a < 1.0
    y = _erfinv_abs(xp, xp.where(inside, a, 0.0))
    out = xp.where(inside, y, xp.where(a == 1.0, math.inf, _nan(xp, a)))
    return xp.copysign(out, x)  # (NaN: a NaN's sign does not matter)


def _erfcinv(xp: Any, y: Any) -> Any:
    """erfinv(1 - y) for y >= 1/2 (1 - y exact there), the log-Newton tail below."""
    inside = xp.logical_and(y > 0.0, y < 2.0)
    safe = xp.where(inside, y, 1.0)
    body = xp.where(safe >= 0.5, _erfinv(xp, 1.0 - safe), _erfc_inverse_tail(xp, xp.clip(safe, 0.0, 0.5)))
    edges = xp.where(y == 0.0, math.inf, xp.where(y == 2.0, -math.inf, _nan(xp, y)))
    return xp.where(inside, body, edges)


def _ndtri(xp: Any, p: Any) -> Any:
    """-sqrt(2) erfcinv(2 p) (2 p exact)."""
    return -_SQRT2 * _erfcinv(xp, 2.0 * p)


def _expit(xp: Any, x: Any) -> Any:
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


def _logit(xp: Any, p: Any) -> Any:
    """2 atanh(2p - 1) near 1/2 (2p - 1 exact there), log(p / (1 - p)) elsewhere; NaN outside [0, 1]."""
    inside = xp.logical_and(p > 0.0, p < 1.0)
    safe = xp.where(inside, p, 0.5)
    centre = 2.0 * xp.atanh(2.0 * xp.clip(safe, 0.3, 0.65) - 1.0)
    out = xp.where(xp.logical_and(safe > 0.3, safe < 0.65), centre, xp.log(safe / (1.0 - safe)))
    edges = xp.where(p == 0.0, -math.inf, xp.where(p == 1.0, math.inf, _nan(xp, p)))
    return xp.where(inside, out, edges)


def _entr(xp: Any, x: Any) -> Any:
    """-x log x for x > 0, 0 at 0, -inf below, NaN for NaN (SciPy's)."""
    safe = xp.where(x > 0.0, x, 1.0)
    out = xp.where(x > 0.0, -safe * xp.log(safe), xp.where(x == 0.0, 0.0, xp.full_like(x, -math.inf)))
    return xp.where(xp.isnan(x), x, out)


def _sinc(xp: Any, x: Any) -> Any:
    """sin(pi x) / (pi x), 1 at 0 (NumPy's and torch's normalised sinc)."""
    t = math.pi * xp.where(x == 0.0, 1.0, x)
    return xp.where(x == 0.0, 1.0, xp.sin(t) / t)


def _x_log(log: str) -> Callable[[Any, Any, Any], Any]:
    pole = 0.0 if log == "log" else -1.0  # where log(y) (log1p(y)) is -inf; NaN below

    def function(xp: Any, x: Any, y: Any) -> Any:
        """x log(y) (x log1p(y)); 0 where x == 0 and y is not NaN (SciPy's)."""
        x, y = xp.broadcast_arrays(x, y)
        dtype = xp.result_type(x, y)
        x, y = xp.astype(x, dtype), xp.astype(y, dtype)
        inside = y > pole
        logy = getattr(xp, log)(xp.where(inside, y, 1.0))
        logy = xp.where(inside, logy, xp.where(y == pole, -math.inf, _nan(xp, y)))
        zero = xp.logical_and(x == 0.0, xp.logical_not(xp.isnan(y)))
        return xp.where(zero, 0.0, xp.where(zero, 1.0, x) * logy)  # (no 0 * -inf where the 0 is the answer)
    return function


_PORTABLE: dict[str, Callable[..., Any]] = {
    "erf": _erf, "erfc": _erfc, "erfinv": _erfinv, "erfcinv": _erfcinv, "ndtr": _ndtr, "ndtri": _ndtri,
    "log_ndtr": _log_ndtr, "expit": _expit, "logit": _logit, "entr": _entr, "sinc": _sinc,
    "xlogy": _x_log("log"), "xlog1py": _x_log("log1p"),
}
