"""The special functions of torchlight/ops/special.py: gradients (first and second order) on each backend,
values against scipy.special, gradients against torch.special, SciPy's values outside the domains, dtypes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck

scipy_special = pytest.importorskip("scipy.special", reason="scipy is in the test extra: the reference values")

#: name -> (inputs in the domain, away from its edges)
UNARY: dict[str, list[float]] = {
    "erf": [-2.1, -0.3, 0.2, 0.9, 3.5],
    "erfc": [-2.1, -0.3, 0.2, 0.9, 3.5],
    "erfinv": [-0.97, -0.4, 0.05, 0.6, 0.995],
    "erfcinv": [0.003, 0.4, 1.0, 1.6, 1.99],
    "ndtr": [-6.0, -1.2, 0.1, 1.5, 4.0],
    "ndtri": [0.003, 0.1, 0.5, 0.8, 0.999],
    "log_ndtr": [-40.0, -6.0, -0.5, 1.0, 7.0],
    "expit": [-30.0, -1.0, 0.0, 2.0, 30.0],
    "logit": [0.01, 0.3, 0.5, 0.7, 0.99],
    "entr": [1e-3, 0.3, 1.0, 2.0, 7.0],
    "sinc": [-2.3, -1e-3, 0.3, 1.5, 4.2],
}
PAIRS = ("xlogy", "xlog1py")


def _tensor(backend: Any, values: Any, **kw: Any) -> tl.Tensor:
    return tl.tensor(np.asarray(values, dtype=np.float64), backend=backend, **kw)


def _scipy(name: str) -> Any:
    return np.sinc if name == "sinc" else getattr(scipy_special, name)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradients_of_a_unary_function_match_central_differences(backend: Any, name: str) -> None:
    x = _tensor(backend, UNARY[name][::2], requires_grad=True)  # (both ends and the middle)
    fn = getattr(tl.special, name)
    assert gradcheck(fn, x)
    assert gradgradcheck(fn, x)


@pytest.mark.parametrize("name", PAIRS)
def test_gradients_of_a_pair_match_central_differences(backend: Any, name: str) -> None:
    x = _tensor(backend, [[-1.5, 0.3, 2.0]], requires_grad=True)
    y = _tensor(backend, [[0.4], [1.7]], requires_grad=True)  # broadcasting: the engine sums y's back
    fn = getattr(tl.special, name)
    assert gradcheck(fn, x, y)
    assert gradgradcheck(fn, x, y)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_match_scipy(backend: Any, name: str) -> None:
    host = np.asarray(UNARY[name])
    got = getattr(tl.special, name)(_tensor(backend, host)).numpy()
    # (1e-14: SciPy's own ndtr forms x / sqrt 2 first, whose rounding grows by x**2 in the tail)
    np.testing.assert_allclose(got, _scipy(name)(host), rtol=1e-14, atol=0)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float32_stays_float32(backend: Any, name: str) -> None:
    x = tl.tensor(np.asarray(UNARY[name], dtype=np.float32), backend=backend)
    out = getattr(tl.special, name)(x)
    assert out.dtype == x.dtype
    np.testing.assert_allclose(out.numpy(), _scipy(name)(np.asarray(UNARY[name])), rtol=2e-6)


#: (name, inputs, SciPy's values) at and beyond the edges of each domain
EDGES = [
    ("erf", [-math.inf, math.inf, math.nan], [-1.0, 1.0, math.nan]),
    ("erfc", [-math.inf, math.inf, 30.0], [2.0, 0.0, 0.0]),
    ("erfinv", [-1.0, 1.0, 1.5, -2.0, math.nan], [-math.inf, math.inf, math.nan, math.nan, math.nan]),
    ("erfcinv", [0.0, 2.0, -0.5, 2.5], [math.inf, -math.inf, math.nan, math.nan]),
    ("ndtr", [-math.inf, math.inf], [0.0, 1.0]),
    ("ndtri", [0.0, 1.0, -0.1, 1.1], [-math.inf, math.inf, math.nan, math.nan]),
    ("log_ndtr", [-math.inf, math.inf, math.nan], [-math.inf, 0.0, math.nan]),
    ("logit", [0.0, 1.0, -0.5, 1.5], [-math.inf, math.inf, math.nan, math.nan]),
    ("entr", [0.0, -1.0, math.nan], [0.0, -math.inf, math.nan]),
    ("sinc", [0.0, -0.0], [1.0, 1.0]),
]


@pytest.mark.parametrize(("name", "inputs", "expected"), EDGES, ids=[e[0] for e in EDGES])
def test_outside_the_domain_the_value_is_scipys(backend: Any, name: str, inputs: list, expected: list) -> None:
    with np.errstate(all="ignore"):  # (the reference's own NumPy warnings, where SciPy is not the one asked)
        scipy_values = _scipy(name)(np.asarray(inputs))
    np.testing.assert_array_equal(scipy_values, expected)
    got = getattr(tl.special, name)(_tensor(backend, inputs)).numpy()
    np.testing.assert_array_equal(got, expected)


def test_xlogy_at_x_zero_is_zero_with_pytorchs_gradients(backend: Any) -> None:
    x = _tensor(backend, [0.0, 0.0, 0.0, 2.0], requires_grad=True)
    y = _tensor(backend, [0.0, 3.0, math.nan, 0.5], requires_grad=True)
    out = tl.special.xlogy(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), scipy_special.xlogy(x.detach().numpy(), y.detach().numpy()))
    with np.errstate(invalid="ignore"):  # (x / y at x == y == 0 is NaN, as PyTorch's)
        out.sum().backward()
    gx, gy = x.grad.numpy(), y.grad.numpy()
    # in x: log(y), the derivative along x (also at x == 0), but 0 where x == 0 and y <= 0; in y: x / y
    np.testing.assert_array_equal(gx[:3], [0.0, math.log(3.0), math.nan])
    assert gx[3] == pytest.approx(math.log(0.5))
    np.testing.assert_array_equal(gy[:3], [math.nan, 0.0, math.nan])
    assert gy[3] == pytest.approx(4.0)


def test_a_python_number_on_either_side_of_xlogy(backend: Any) -> None:
    y = _tensor(backend, [0.5, 2.0])
    np.testing.assert_allclose(tl.special.xlogy(3.0, y).numpy(), 3.0 * np.log([0.5, 2.0]), rtol=1e-15)
    np.testing.assert_allclose(tl.special.xlog1py(y, 2.0).numpy(), np.array([0.5, 2.0]) * math.log(3.0), rtol=1e-15)


def test_log_ndtr_gradient_stays_finite_far_below_zero(backend: Any) -> None:
    x = _tensor(backend, [-1e3, -60.0, -38.0], requires_grad=True)
    out = tl.special.log_ndtr(x)
    out.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), scipy_special.log_ndtr(x.detach().numpy()), rtol=1e-14)
    # the inverse Mills ratio phi(x) / Phi(x) ~ -x - 1/x for large -x
    host = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), -host - 1.0 / host, rtol=1e-3)


def test_sinc_gradient_at_zero_is_zero_and_exact_nearby(backend: Any) -> None:
    x = _tensor(backend, [0.0, 1e-7, -0.05], requires_grad=True)
    (grad,) = tl.autograd.grad(tl.special.sinc(x).sum(), x, create_graph=True)
    t = math.pi * np.array([1e-7, -0.05])
    exact = math.pi * (t * np.cos(t) - np.sin(t)) / t**2  # (fine in float64 at these t)
    exact[0] = -math.pi * t[0] / 3.0  # (the quotient cancels at 1e-7: its series' first term)
    assert grad.detach().numpy()[0] == 0.0
    np.testing.assert_allclose(grad.detach().numpy()[1:], exact, rtol=1e-9)
    (second,) = tl.autograd.grad(grad[0], x)
    assert second.numpy()[0] == pytest.approx(-math.pi**2 / 3.0, rel=1e-12)  # sinc''(0)


def test_logit_eps_clamps_and_zeroes_the_gradient_outside(backend: Any) -> None:
    x = _tensor(backend, [0.0, 0.05, 0.5, 1.0], requires_grad=True)
    out = x.logit(eps=0.1)
    out.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), scipy_special.logit([0.1, 0.1, 0.5, 0.9]), rtol=1e-15)
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 4.0, 0.0], rtol=1e-15)


def test_an_integer_input_becomes_the_default_float(backend: Any) -> None:
    x = tl.tensor(np.array([0, 1, 2]), backend=backend)
    out = x.erf()
    assert out.dtype == backend.default_float(x._device)
    np.testing.assert_allclose(out.numpy(), scipy_special.erf([0.0, 1.0, 2.0]), rtol=1e-15)


def test_a_complex_input_is_refused_naming_the_function() -> None:
    with pytest.raises(TypeError, match="erfinv: complex inputs are not supported"):
        tl.tensor([1.0 + 1.0j]).erfinv()


def test_methods_and_free_functions_are_the_special_functions() -> None:
    x = tl.tensor([0.25, 0.5])
    for name in ("erf", "erfc", "erfinv", "logit", "sinc"):
        expected = getattr(tl.special, name)(x).numpy()
        np.testing.assert_array_equal(getattr(x, name)().numpy(), expected)
        np.testing.assert_array_equal(getattr(tl, name)(x).numpy(), expected)
    np.testing.assert_array_equal(tl.xlogy(x, x).numpy(), x.xlogy(x).numpy())


def test_softmax_log_softmax_logsumexp_take_torchs_arguments() -> None:
    x = tl.tensor([[1.0, 2.0], [0.5, -1.0]], dtype="float32")
    assert tl.special.softmax(x, 1, dtype="float64").dtype == tl.float64
    np.testing.assert_allclose(tl.special.log_softmax(x, 0).numpy(), scipy_special.log_softmax(x.numpy(), axis=0),
                               rtol=1e-6)
    np.testing.assert_allclose(tl.special.logsumexp(x, 1, keepdim=True).numpy(),
                               scipy_special.logsumexp(x.numpy(), axis=1, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(UNARY) + list(PAIRS))
def test_gradients_match_torch_special(name: str) -> None:
    torch = pytest.importorskip("torch", reason="torch is the gradient oracle where it is installed")
    torch_fn = getattr(torch.special, name, None)
    if torch_fn is None:
        pytest.skip(f"torch.special has no {name}")
    values = [[-1.5, 0.0, 2.0], [0.4, 1.7, 3.0]] if name in PAIRS else [UNARY[name]]
    ours = [tl.tensor(v, requires_grad=True) for v in values]
    theirs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    getattr(tl.special, name)(*ours).sum().backward()
    torch_fn(*theirs).sum().backward()
    for a, b in zip(ours, theirs):
        # (1e-9: torch's sinc' cancels near 0 where ours takes the series, and its expit' rounds 1 - y at 30)
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-15)
