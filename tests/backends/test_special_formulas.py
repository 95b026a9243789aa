"""The portable special-function formulas (torchlight/backends/special_formulas.py) against scipy.special,
over wide ranges: tails, 0, +-inf, NaN; in float64 to round-off, on NumPy's and array_api_strict's namespaces;
and the routing: SciPy for NumPy, the portable formula where SciPy is missing."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import torchlight as tl
from torchlight.backends import special_formulas
from torchlight.backends.special_formulas import portable

scipy_special = pytest.importorskip("scipy.special", reason="scipy is in the test extra: the reference values")

_rng = np.random.default_rng(0)
_EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan]

#: name -> (inputs, relative tolerance against SciPy, why the tolerance where it is not round-off)
GRIDS: dict[str, tuple[np.ndarray, float, str]] = {
    "erf": (np.r_[_rng.normal(size=400) * 3, np.linspace(-30, 30, 601), 1e-300, 1e-10, 0.46875, 4.0, _EDGES],
            1e-15, ""),
    "erfc": (np.r_[_rng.normal(size=400) * 1.5, np.linspace(-6, 5, 221), 1e-300, 0.46875, 4.0, 30.0, _EDGES],
             2e-15, ""),
    "erfc_tail": (np.linspace(5, 26.5, 216), 2e-13,
                  "SciPy's erfc squares x as it is: the rounding grows by 2 x**2 (ours splits the square, and "
                  "agrees with 30-digit values: test_portable_tails_beyond_scipys_are_right)"),
    "ndtr": (np.r_[_rng.normal(size=400) * 5, np.linspace(-20, 40, 601), _EDGES], 1e-13,
             "SciPy forms x / sqrt 2 first: its rounding grows by x**2 in the tail"),
    "log_ndtr": (np.r_[_rng.normal(size=400) * 5, np.linspace(-60, 8, 681), -np.logspace(0, 150, 151),
                       np.logspace(0, 150, 31), _EDGES], 1e-13, "as erfc: SciPy's is -ndtr(-x) above 5"),
    "erfinv": (np.r_[_rng.uniform(-1, 1, 400), 1 - np.logspace(-16, 0, 100), -1 + np.logspace(-16, 0, 100),
                     np.logspace(-300, 0, 100), -1.0, 1.0, 1.5, -2.0, _EDGES], 2e-15, ""),
    "erfcinv": (np.r_[_rng.uniform(0, 2, 400), np.logspace(-300, 0, 300), 2 - np.logspace(-16, 0, 100),
                      2.0, 2.5, -1.0, _EDGES], 2e-15, ""),
    "ndtri": (np.r_[_rng.uniform(0, 1, 400), np.logspace(-300, 0, 300), 1 - np.logspace(-16, 0, 100),
                    1.0, 1.5, -1.0, _EDGES], 2e-15, ""),
    "logit": (np.r_[_rng.uniform(0, 1, 400), np.logspace(-300, 0, 100), 1 - np.logspace(-16, 0, 100), 0.5,
                    1.0, 1.5, -1.0, _EDGES], 1e-15, ""),
    "expit": (np.r_[_rng.normal(size=400) * 10, -800.0, 800.0, -40.0, 40.0, _EDGES], 1e-15, ""),
    "entr": (np.r_[_rng.uniform(0, 5, 400), np.logspace(-300, 300, 100), -1.0, _EDGES], 1e-15, ""),
}


def _close(got: np.ndarray, expected: np.ndarray, rtol: float) -> None:
    """Equal where both are inf, NaN or zero; else within `rtol` relative (values below 1e-290, where
    SciPy flushes to 0 what is representable, count absolutely)."""
    got, expected = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(expected)], expected[~finite & ~np.isnan(expected)])
    np.testing.assert_allclose(got[finite], expected[finite], rtol=rtol, atol=1e-290)


def _host(array: Any) -> np.ndarray:
    return np.from_dlpack(array) if not isinstance(array, np.ndarray) else array


@pytest.mark.parametrize("namespace", ["numpy", "array_api_strict"])
@pytest.mark.parametrize("name", sorted(GRIDS))
def test_a_portable_formula_matches_scipy(name: str, namespace: str) -> None:
    values, rtol, _ = GRIDS[name]
    function = name.split("_tail")[0]
    xp = tl.backends.get(namespace).xp
    got = _host(portable(function, xp, xp.asarray(values)))
    _close(got, getattr(scipy_special, function)(values), rtol)


def test_the_portable_pairs_match_scipy() -> None:
    xp = tl.backends.get("array_api_strict").xp
    x = np.r_[_rng.normal(size=200), 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 0.0, 3.0]
    y = np.r_[_rng.uniform(-2, 3, 200), 0.0, -1.0, math.nan, 5.0, 0.0, -1.0, -2.0, math.inf, math.inf]
    for name in ("xlogy", "xlog1py"):
        _close(_host(portable(name, xp, xp.asarray(x), xp.asarray(y))), getattr(scipy_special, name)(x, y), 1e-15)


def test_portable_sinc_is_numpys() -> None:
    xp = tl.backends.get("array_api_strict").xp
    x = np.r_[_rng.normal(size=200) * 5, 0.0, 1e-300, 1e-10, 1.0, -3.0, math.nan]
    _close(_host(portable("sinc", xp, xp.asarray(x))), np.sinc(x), 1e-15)


def test_portable_tails_beyond_scipys_are_right() -> None:
    """Where SciPy loses digits (erfc(23.58), ndtr(-34.8)) or a denormal (erfcinv(3.5e-323)), the
    portable formula keeps them: the values from 40-digit arithmetic, to a few ulps (SciPy is off by
    6e-14 and 2e-13 on the first two: NumPy's exp may round its last place either way)."""
    xp = tl.backends.get("numpy").xp
    np.testing.assert_allclose(portable("erfc", xp, np.array([23.58])), [8.010086909896212e-244], rtol=1e-15)
    np.testing.assert_allclose(portable("ndtr", xp, np.array([-34.8])), [1.2161251340967445e-265], rtol=1e-15)
    np.testing.assert_allclose(portable("erfcinv", xp, np.array([3.5e-323])), [27.17754091343556], rtol=1e-15)


@pytest.mark.parametrize("name", ["erf", "erfc", "ndtr", "log_ndtr", "erfinv", "ndtri"])
def test_float32_stays_float32_to_float32_accuracy(name: str) -> None:
    xp = tl.backends.get("array_api_strict").xp
    values = np.linspace(-0.99, 0.99, 199) if name == "erfinv" else (
        np.linspace(0.01, 0.99, 99) if name == "ndtri" else np.linspace(-6, 6, 241))
    out = portable(name, xp, xp.asarray(values.astype(np.float32)))
    assert out.dtype == xp.float32
    np.testing.assert_allclose(_host(out), getattr(scipy_special, name)(values.astype(np.float32).astype(float)),
                               rtol=2e-6, atol=1e-30)


def test_numpy_goes_through_scipy_and_falls_back_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert special_formulas.native("numpy", "erf") is scipy_special.erf
    assert special_formulas.native("array_api_strict", "erf") is None  # the portable formula
    monkeypatch.setitem(special_formulas._found, ("numpy", "erfinv"), None)  # as where SciPy is missing
    x = tl.tensor([0.3, -0.9, 1.0], requires_grad=True)
    out = x.erfinv()
    np.testing.assert_allclose(out.detach().numpy(), scipy_special.erfinv([0.3, -0.9, 1.0]), rtol=2e-15)
