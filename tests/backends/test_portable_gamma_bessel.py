"""The portable gamma and Bessel formulas (torchlight/backends/special_gamma.py, what array_api_strict
and any library without its own functions get) against SciPy over wide ranges: negatives, near the
poles, near the roots, large and tiny arguments, 0, +-inf and NaN; against mpmath's high precision
where SciPy itself is off (log Gamma near 1 and 2); in float32; and through array_api_strict, whose
namespace holds nothing but the standard."""

from __future__ import annotations

import numpy as np
import pytest

from torchlight.backends.special_gamma import portable

sc = pytest.importorskip("scipy.special")
xp_numpy = pytest.importorskip("array_api_compat.numpy")


def sample() -> np.ndarray:
    rng = np.random.default_rng(22)
    return np.concatenate([
        rng.uniform(-30.0, 30.0, 400), rng.uniform(0.0, 3.0, 300), rng.uniform(-3.0, 0.0, 300),
        10.0 ** rng.uniform(-300, 300, 200), -(10.0 ** rng.uniform(-5, 3, 100)) + 0.3,
        -np.arange(1, 6) + 1e-6, -np.arange(1, 6) - 1e-6,  # beside the poles
        [0.0, -0.0, -1.0, -2.0, 1.0, 2.0, np.inf, -np.inf, np.nan, 1e-300, 171.6, 1e17, -1e17 - 0.5, 8.0, -8.0],
    ])


REFERENCES = {
    ("gammaln", None): sc.gammaln, ("digamma", None): sc.digamma,
    ("polygamma", 1): lambda x: sc.polygamma(1, x), ("polygamma", 2): lambda x: sc.polygamma(2, x),
    ("polygamma", 5): lambda x: sc.polygamma(5, x),
    ("i0", None): sc.i0, ("i0e", None): sc.i0e, ("i1", None): sc.i1, ("i1e", None): sc.i1e,
}

#: (rtol, atol): near their zeros SciPy's own values and the formulas agree to absolute round-off only
#: (log Gamma near 1 and 2, where SciPy is off by ~1e-12 relative; digamma and polygamma(2) between poles)
TOLERANCE = {"gammaln": (1e-13, 1e-15), "digamma": (1e-13, 5e-15), "polygamma": (1e-13, 1e-14)}


@pytest.mark.parametrize("name, n", sorted(REFERENCES, key=str), ids=str)
def test_portable_formula_matches_scipy(name, n):
    x = sample()
    got = portable(name, xp_numpy, x, n)
    with np.errstate(all="ignore"):
        want = REFERENCES[name, n](x)
    assert got.dtype == np.float64 and got.shape == x.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])  # the signs of the infinities too
    rtol, atol = TOLERANCE.get(name, (1e-14, 0.0))
    finite = np.isfinite(want)
    if name == "digamma":  # SciPy's digamma loses ~1e-11 within 1e-6 of a pole (mpmath's test below)
        with np.errstate(invalid="ignore"):
            finite &= ~((x < 0) & (np.abs(x - np.round(x)) < 1e-3))
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=atol)


def test_log_gamma_near_its_zeros_is_round_off_accurate():
    """SciPy's gammaln loses ~1e-12 relative beside 1 and 2 (where log Gamma is 0); the series there do not."""
    mpmath = pytest.importorskip("mpmath")
    x = np.array([0.9999, 1.0001, 1.19, 1.9998035242065484, 2.0001, 2.15, 0.5, 3.3])
    want = np.array([float(mpmath.loggamma(v).real) for v in x])
    np.testing.assert_allclose(portable("gammaln", xp_numpy, x), want, rtol=4e-16)


def test_digamma_near_its_roots_and_poles_is_round_off_accurate():
    """Taylor series about the roots nearest 0; the reflection beside the poles, where SciPy's digamma
    loses ~1e-7 relative within 1e-9 of -1, -2, ..."""
    mpmath = pytest.importorskip("mpmath")
    x = np.array([1.4616321449683622, 1.46, 1.7, -0.5040830082644554, -0.5, -0.3, -0.7,
                  -1.0 + 1e-9, -2.0 + 1e-9, -3.0 - 1e-9])
    want = np.array([float(mpmath.digamma(v)) for v in x])
    np.testing.assert_allclose(portable("digamma", xp_numpy, x), want, rtol=2e-15, atol=1e-18)


def test_float32_stays_float32_and_is_float32_accurate():
    x = np.array([0.3, 1.5, 4.0, 12.5, -0.6, -2.3, 9.0, -9.5], dtype=np.float32)
    for (name, n), reference in REFERENCES.items():
        got = portable(name, xp_numpy, x, n)
        assert got.dtype == np.float32, name
        np.testing.assert_allclose(got, reference(x.astype(np.float64)), rtol=2e-5, err_msg=f"{name} {n}")


def test_only_the_standard_is_needed():
    """array_api_strict's namespace: the same values (each of its arrays on its device)."""
    strict = pytest.importorskip("array_api_strict")
    x = np.array([0.3, 1.5, 25.0, -0.6, -2.3, 0.0, np.inf, np.nan])
    device = strict.Device("device1")
    for name, n in REFERENCES:
        got = portable(name, strict, strict.asarray(x, device=device), n)
        assert got.device == device
        host = np.asarray(strict.asarray(got, device=strict.Device("CPU_DEVICE"), copy=True))
        np.testing.assert_allclose(host, portable(name, xp_numpy, x, n), rtol=1e-15)
