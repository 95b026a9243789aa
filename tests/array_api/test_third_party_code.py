"""Existing array-API code from scipy, array-api-extra and scikit-learn, run on Tensors, with gradients.

Each case runs a library's own function on float64 Tensors that require grad
(the function finds `torchlight.array_api` through `__array_namespace__`),
compares the forward with the same function on plain NumPy arrays, and checks
the backward (and, where the function is smooth, the double backward) against
central differences. The libraries are in the `test` extra; each case skips
with the reason when its library is missing or too old.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import torchlight as tl
import torchlight.array_api as xp
from torchlight.autograd import gradcheck, gradgradcheck

# scipy reads this once, at its first import (tests/conftest.py sets it before any test runs)
os.environ.setdefault("SCIPY_ARRAY_API", "1")


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as error:  # pragma: no cover - the test extra installs them
        pytest.skip(f"{name} is not installed ({error}); it is in torchlight's test extra")


def _sklearn_pairwise() -> Any:
    sklearn = _module("sklearn")
    pairwise = _module("sklearn.metrics.pairwise")
    return sklearn, pairwise


@dataclass(frozen=True)
class Case:
    """One function of another library: how to call it on arrays, and what to feed it."""

    name: str
    library: str
    call: Callable[..., Any]  # (module, *arrays) -> array
    shapes: tuple[tuple[int, ...], ...]
    positive: bool = False  # inputs drawn in (0.5, 2) (a log or a root in the function)
    second_order: bool = True
    extra: dict = field(default_factory=dict)


def _scipy_special(name: str) -> Callable[..., Any]:
    return lambda *a, **k: getattr(_module("scipy.special"), name)(*a, **k)


def _scipy_stats(name: str) -> Callable[..., Any]:
    return lambda *a, **k: getattr(_module("scipy.stats"), name)(*a, **k)


def _xpx(name: str) -> Callable[..., Any]:
    return lambda *a, **k: getattr(_module("array_api_extra"), name)(*a, **k)


def _sklearn(name: str) -> Callable[..., Any]:
    def call(*arrays: Any, **kwargs: Any) -> Any:
        sklearn, pairwise = _sklearn_pairwise()
        with sklearn.config_context(array_api_dispatch=True):
            return getattr(pairwise, name)(*arrays, **kwargs)
    return call


CASES = [
    # scipy.special
    Case("logsumexp", "scipy", lambda x: _scipy_special("logsumexp")(x), ((5,),)),
    Case("logsumexp(axis, b=w)", "scipy", lambda x, w: _scipy_special("logsumexp")(x, axis=1, b=w),
         ((3, 4), (3, 4)), positive=True),
    Case("softmax", "scipy", lambda x: _scipy_special("softmax")(x, axis=-1), ((3, 4),)),
    Case("log_softmax", "scipy", lambda x: _scipy_special("log_softmax")(x, axis=0), ((4, 3),)),
    Case("xlogy", "scipy", lambda x, y: _scipy_special("xlogy")(x, y), ((4,), (4,)), positive=True),
    Case("rel_entr", "scipy", lambda x, y: _scipy_special("rel_entr")(x, y), ((5,), (5,)), positive=True),
    # scipy.special's elementwise functions, which scipy finds on torchlight.array_api.special
    Case("erf", "scipy", lambda x: _scipy_special("erf")(x), ((5,),)),
    Case("erfc", "scipy", lambda x: _scipy_special("erfc")(x), ((5,),)),
    Case("erfinv", "scipy", lambda x: _scipy_special("erfinv")(x * 0.4), ((5,),)),
    Case("ndtr", "scipy", lambda x: _scipy_special("ndtr")(x), ((5,),)),
    Case("ndtri", "scipy", lambda x: _scipy_special("ndtri")(x * 0.4), ((5,),), positive=True),
    Case("log_ndtr", "scipy", lambda x: _scipy_special("log_ndtr")(x * 10.0), ((5,),)),
    Case("expit", "scipy", lambda x: _scipy_special("expit")(x), ((5,),)),
    Case("logit", "scipy", lambda x: _scipy_special("logit")(x * 0.4), ((5,),), positive=True),
    Case("entr", "scipy", lambda x: _scipy_special("entr")(x), ((5,),), positive=True),
    Case("xlog1py", "scipy", lambda x, y: _scipy_special("xlog1py")(x, y), ((4,), (4,)), positive=True),
    Case("gammaln", "scipy", lambda x: _scipy_special("gammaln")(x), ((5,),), positive=True),
    Case("psi", "scipy", lambda x: _scipy_special("psi")(x), ((5,),), positive=True),
    Case("polygamma", "scipy", lambda x: _scipy_special("polygamma")(2, x), ((5,),), positive=True),
    Case("multigammaln", "scipy", lambda x: _scipy_special("multigammaln")(x + 1.0, 3), ((4,),), positive=True),
    Case("i0e", "scipy", lambda x: _scipy_special("i0e")(x), ((5,),), positive=True),
    Case("i1", "scipy", lambda x: _scipy_special("i1")(x), ((5,),)),
    # scipy.stats
    Case("skew", "scipy", lambda x: _scipy_stats("skew")(x), ((7,),)),
    Case("kurtosis", "scipy", lambda x: _scipy_stats("kurtosis")(x, axis=0), ((8, 2),)),
    Case("moment", "scipy", lambda x: _scipy_stats("moment")(x, order=3), ((6,),)),
    Case("zscore", "scipy", lambda x: _scipy_stats("zscore")(x, axis=1), ((2, 5),)),
    Case("gmean", "scipy", lambda x: _scipy_stats("gmean")(x), ((5,),), positive=True),
    Case("hmean", "scipy", lambda x: _scipy_stats("hmean")(x), ((5,),), positive=True),
    Case("pmean", "scipy", lambda x: _scipy_stats("pmean")(x, 1.5), ((5,),), positive=True),
    Case("variation", "scipy", lambda x: _scipy_stats("variation")(x), ((6,),), positive=True),
    Case("sem", "scipy", lambda x: _scipy_stats("sem")(x), ((6,),)),
    Case("whiten", "scipy", lambda x: _module("scipy.cluster.vq").whiten(x), ((6, 3),)),
    # array-api-extra
    Case("cov", "array_api_extra", lambda x: _xpx("cov")(x), ((3, 6),)),
    Case("sinc", "array_api_extra", lambda x: _xpx("sinc")(x), ((5,),)),
    Case("pad", "array_api_extra", lambda x: _xpx("pad")(x, 2), ((3, 2),)),
    Case("at(x, idx).set(v)", "array_api_extra",
         lambda x, v: _xpx("at")(x * 1.0, (slice(1, 3),)).set(v), ((5,), (2,))),
    Case("at(x, idx).multiply(v)", "array_api_extra",
         lambda x, v: _xpx("at")(x * 1.0, (slice(0, 2),)).multiply(v), ((4,), (2,))),
    Case("atleast_nd", "array_api_extra", lambda x: _xpx("atleast_nd")(x, ndim=3), ((4,),)),
    Case("kron", "array_api_extra", lambda x, y: _xpx("kron")(x, y), ((2, 2), (2, 3))),
    Case("nan_to_num", "array_api_extra", lambda x: _xpx("nan_to_num")(x), ((5,),)),
    # scikit-learn
    Case("rbf_kernel", "sklearn", lambda x, y: _sklearn("rbf_kernel")(x, y, gamma=0.3), ((4, 3), (5, 3))),
    Case("euclidean_distances", "sklearn", lambda x, y: _sklearn("euclidean_distances")(x, y), ((4, 3), (2, 3))),
    Case("polynomial_kernel", "sklearn", lambda x, y: _sklearn("polynomial_kernel")(x, y, degree=2),
         ((3, 2), (4, 2))),
    Case("cosine_similarity", "sklearn", lambda x, y: _sklearn("cosine_similarity")(x, y), ((3, 4), (2, 4)),
         positive=True),
    Case("linear_kernel", "sklearn", lambda x, y: _sklearn("linear_kernel")(x, y), ((3, 2), (4, 2))),
    Case("sigmoid_kernel", "sklearn", lambda x, y: _sklearn("sigmoid_kernel")(x, y, gamma=0.2),
         ((3, 2), (4, 2))),
]


def _inputs(case: Case, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if case.positive:
        return [rng.uniform(0.5, 2.0, size=s) for s in case.shapes]
    return [rng.normal(size=s) for s in case.shapes]


def _scalar(out: Any) -> Any:
    """A real 0-d loss from a function's result (a Tensor, or a tuple whose first part is one)."""
    if isinstance(out, tuple):
        out = out[0]
    weights = np.linspace(0.5, 1.5, num=max(out.size, 1)).reshape(out.shape)
    return (out * tl.tensor(weights)).sum()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_forward_matches_the_function_on_numpy(case: Case) -> None:
    hosts = _inputs(case)
    expected = case.call(*[h.copy() for h in hosts])
    tensors = [tl.tensor(h, requires_grad=True) for h in hosts]
    got = case.call(*tensors)
    if isinstance(got, tuple):
        got, expected = got[0], expected[0]
    assert isinstance(got, tl.Tensor), f"{case.name} returned a {type(got).__name__}, not a Tensor"
    assert got.requires_grad, f"{case.name}: the result lost the graph"
    np.testing.assert_allclose(got.detach().numpy(), np.asarray(expected), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gradient_matches_central_differences(case: Case) -> None:
    tensors = [tl.tensor(h, requires_grad=True) for h in _inputs(case, seed=1)]
    assert gradcheck(lambda *xs: _scalar(case.call(*xs)), *tensors)


@pytest.mark.parametrize("case", [c for c in CASES if c.second_order], ids=[c.name for c in CASES if c.second_order])
def test_second_derivative_matches_central_differences(case: Case) -> None:
    tensors = [tl.tensor(h, requires_grad=True) for h in _inputs(case, seed=2)]
    assert gradgradcheck(lambda *xs: _scalar(case.call(*xs)), *tensors)


def test_logsumexp_gradient_is_the_softmax() -> None:
    logsumexp = _scipy_special("logsumexp")
    x = tl.tensor([0.5, -1.0, 2.0], requires_grad=True)
    logsumexp(x).backward()
    host = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(host) / np.exp(host).sum(), rtol=1e-12)


def test_array_namespace_of_a_tensor_is_torchlight_array_api() -> None:
    compat = _module("array_api_compat")
    assert compat.array_namespace(tl.tensor([1.0])) is xp


def test_scipy_serves_entr_erf_gammaln_from_torchlight_with_their_gradients() -> None:
    """scipy looks up `xp.special.<name>` on a Tensor's namespace first: `entr`, `erf` and `gammaln`
    come from torchlight.array_api.special, so a Tensor that requires grad keeps its graph (scipy
    used to send them through NumPy, which such a Tensor refuses)."""
    special = _module("scipy.special")
    x = tl.tensor([0.5, 1.5], requires_grad=True)
    out = special.entr(x).sum() + special.erf(x).sum() + special.gammaln(x).sum()
    host = np.array([0.5, 1.5])
    np.testing.assert_allclose(out.item(), (special.entr(host) + special.erf(host) + special.gammaln(host)).sum(),
                               rtol=1e-14)
    out.backward()
    expected = -(np.log(host) + 1.0) + 2.0 / np.sqrt(np.pi) * np.exp(-host**2) + special.psi(host)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-14)


def test_a_function_scipy_sends_to_numpy_refuses_a_tensor_that_requires_grad() -> None:
    """scipy runs `erfcx`, which torchlight.array_api.special does not serve, through NumPy: the
    gradient would be lost, so the Tensor refuses the conversion rather than silently giving a result
    without one; detached, it converts."""
    erfcx = _scipy_special("erfcx")
    x = tl.tensor([0.5, 1.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="implicit conversion to a NumPy array"):
        erfcx(x)
    np.testing.assert_allclose(np.asarray(erfcx(x.detach())), erfcx(np.array([0.5, 1.5])))
