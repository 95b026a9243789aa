"""The elementwise math and statistics ops beyond the conformance database:
free functions against methods, PyTorch's conventions at ties and at zero
deviation (closed forms), `correction`, integer inputs to the step functions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl


def leaf(values, backend="numpy", device=None, dtype=None):
    return tl.tensor(values, backend=backend, device=device, dtype=dtype, requires_grad=True)


# ------------------------------------------------------- maximum, minimum
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_free_function_and_method_agree_in_value_and_gradient(name):
    rng = np.random.default_rng(0)
    a_host, b_host = rng.standard_normal((3, 4)), rng.standard_normal(4)
    grads = []
    for call in (lambda a, b: getattr(tl, name)(a, b), lambda a, b: getattr(a, name)(b)):
        a, b = leaf(a_host), leaf(b_host)
        out = call(a, b)
        np.testing.assert_array_equal(out.numpy(), getattr(np, name)(a_host, b_host))
        (out * out).sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for first, second in zip(*grads):
        np.testing.assert_array_equal(first, second)
    assert grads[0][1].shape == (4,)  # the broadcast side's gradient is summed back


def test_ties_split_the_gradient_half_and_half_as_pytorch(backend, device):
    a = leaf([1.0, 2.0, 3.0], backend, device)
    b = leaf([1.0, 0.0, 5.0], backend, device)
    (tl.maximum(a, b) * 2.0 + tl.minimum(a, b)).sum().backward()
    # maximum: a wins at 1 and ties at 0; minimum: b wins at 1, a at 2, tie at 0
    assert a.grad.tolist() == [1.5, 2.0, 1.0]
    assert b.grad.tolist() == [1.5, 1.0, 2.0]


def test_numbers_on_either_side_take_the_tensors_dtype():
    x = leaf([-1.0, 0.5, 2.0], dtype="float32")
    relu_like = tl.maximum(0.0, x)
    capped = x.minimum(1)
    assert str(relu_like.dtype) == str(capped.dtype) == "float32"
    (relu_like + capped).sum().backward()
    assert relu_like.tolist() == [0.0, 0.5, 2.0]
    assert x.grad.tolist() == [1.0, 2.0, 1.0]


def test_maximum_with_zero_at_zero_gives_half_unlike_relu():
    x = leaf([0.0])
    tl.maximum(x, 0.0).sum().backward()
    assert x.grad.tolist() == [0.5]


def test_maximum_needs_a_tensor_and_matching_shapes():
    with pytest.raises(TypeError, match="maximum: expects at least one Tensor"):
        tl.maximum(1.0, 2.0)
    with pytest.raises(ValueError, match=r"minimum: shapes \(2, 3\) and \(4,\)"):
        tl.minimum(tl.zeros((2, 3)), tl.zeros(4))


# ------------------------------------------------------------ var, std
def test_var_and_std_match_numpy_with_either_correction():
    rng = np.random.default_rng(1)
    host = rng.standard_normal((4, 5))
    x = tl.tensor(host)
    for correction in (0, 1, 2):
        np.testing.assert_allclose(x.var(1, correction=correction).numpy(), host.var(axis=1, ddof=correction))
        np.testing.assert_allclose(x.std(correction=correction).numpy(), host.std(ddof=correction))
    assert x.var(0, keepdim=True).shape == (1, 5)


def test_var_gradient_is_two_deviations_over_the_degrees_of_freedom():
    host = np.array([1.0, 2.0, 4.0, 7.0])
    for correction in (0, 1):
        x = leaf(host)
        x.var(correction=correction).backward()
        np.testing.assert_allclose(x.grad.numpy(), 2.0 * (host - host.mean()) / (4 - correction))


def test_std_at_zero_deviation_has_zero_gradient_and_zero_second_derivative():
    x = leaf([[2.0, 2.0, 2.0], [1.0, 2.0, 6.0]])
    (g,) = tl.autograd.grad(x.std(1).sum(), [x], create_graph=True)
    host = np.array([1.0, 2.0, 6.0])
    expected = (host - host.mean()) / (2 * host.std(ddof=1))
    np.testing.assert_allclose(g.numpy()[0], 0.0)
    np.testing.assert_allclose(g.numpy()[1], expected)
    (h,) = tl.autograd.grad((g * g).sum(), [x])
    assert np.isfinite(h.numpy()).all()
    np.testing.assert_array_equal(h.numpy()[0], 0.0)


def test_no_degrees_of_freedom_give_nan_without_a_warning():
    x = leaf([3.0])
    for out in (x.var(), x.std()):
        assert math.isnan(out.item())
        out.backward()
        assert math.isnan(x.grad.item())
        x.grad = None


def test_keepdim_and_correction_are_keyword_only():
    """PyTorch's positional var(dim, unbiased) must not be read as keepdim."""
    with pytest.raises(TypeError):
        tl.tensor([1.0, 2.0]).var(0, True)


# ------------------------------------------------------------- cumsum
def test_cumsum_gradient_is_the_reversed_running_sum():
    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = leaf(np.zeros((2, 3)))
    (x.cumsum(1) * tl.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.flip(np.cumsum(np.flip(w, 1), axis=1), 1))


# --------------------------------------------------------- step functions
@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign"])
def test_integer_inputs_pass_through_the_step_functions(backend, device, name):
    x = tl.tensor([-3, 0, 4], backend=backend, device=device)
    out = getattr(x, name)()
    assert out.dtype == x.dtype
    assert out.tolist() == getattr(np, name)(np.array([-3, 0, 4])).tolist()


def test_round_takes_halves_to_even():
    assert tl.tensor([0.5, 1.5, 2.5, -0.5, -1.5]).round().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0]


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign"])
def test_step_functions_have_zero_gradient_also_at_the_steps(name):
    x = leaf([-1.0, -0.5, 0.0, 0.5, 2.0])
    getattr(x, name)().sum().backward()
    assert x.grad.tolist() == [0.0] * 5


# -------------------------------------------------------- smooth functions
def test_derivatives_read_from_the_output_have_correct_second_derivatives():
    host = np.array([-0.7, 0.2, 1.1])
    x = leaf(host)
    (g,) = tl.autograd.grad((x.tan() + x.expm1()).sum(), [x], create_graph=True)
    t = np.tan(host)
    np.testing.assert_allclose(g.numpy(), 1.0 + t * t + np.exp(host))
    (h,) = tl.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), 2.0 * t * (1.0 + t * t) + np.exp(host))


def test_log1p_and_expm1_stay_accurate_for_tiny_inputs():
    x = tl.tensor([1e-12, -1e-12])
    np.testing.assert_allclose(x.log1p().numpy(), np.log1p([1e-12, -1e-12]), rtol=1e-15)
    np.testing.assert_allclose(x.expm1().numpy(), np.expm1([1e-12, -1e-12]), rtol=1e-15)


# --------------------------------------------------------------- prod
def test_prod_gradient_with_zeros_is_the_product_of_the_others():
    x = leaf([[2.0, 0.0, 3.0], [0.0, 4.0, 0.0], [1.0, 2.0, 5.0]])
    x.prod(1).sum().backward()
    assert x.grad.tolist() == [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [10.0, 5.0, 2.0]]


def test_prod_second_derivative_between_two_zeros_is_the_product_of_the_rest():
    x = leaf([0.0, 3.0, 0.0, -2.0])
    (g,) = tl.autograd.grad(x.prod(), [x], create_graph=True)
    assert g.tolist() == [0.0, 0.0, 0.0, 0.0]
    (h,) = tl.autograd.grad(g[0], [x])  # d^2 prod / dx0 dxk: the product of all but x0 and xk
    assert h.tolist() == [0.0, 0.0, -6.0, 0.0]


# ------------------------------------------- inverse trigonometric, aliases
@pytest.mark.parametrize("name, alias", [("asin", "arcsin"), ("acos", "arccos"), ("atan", "arctan"),
                                         ("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh")])
def test_numpy_named_aliases_are_the_same_methods(name, alias):
    assert getattr(tl.Tensor, alias) is getattr(tl.Tensor, name)
    host = np.array([1.2, 1.5, 2.0]) if name == "acosh" else np.array([-0.5, 0.1, 0.7])
    np.testing.assert_allclose(getattr(tl.tensor(host), alias)().numpy(), getattr(np, alias)(host), rtol=1e-15)


def test_inverse_functions_have_their_closed_form_second_derivatives():
    host = np.array([-0.6, 0.3, 0.8])
    x = leaf(host)
    (g,) = tl.autograd.grad((x.asin() + x.atanh()).sum(), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), 1 / np.sqrt(1 - host**2) + 1 / (1 - host**2))
    (h,) = tl.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), host / (1 - host**2) ** 1.5 + 2 * host / (1 - host**2) ** 2)


def test_acosh_gradient_stays_accurate_just_above_one():
    """1 / sqrt((x - 1)(x + 1)): x * x - 1 would lose about half the digits at x = 1 + 1e-8."""
    x = leaf([1.0 + 1e-8])
    x.acosh().backward()
    d = x.data[0] - 1.0  # the float64 nearest 1 + 1e-8, minus 1 (exact)
    np.testing.assert_allclose(x.grad.numpy(), 1 / np.sqrt(d * (2.0 + d)), rtol=1e-12)


# ------------------------------------------------------ atan2, logaddexp
@pytest.mark.parametrize("name", ["atan2", "arctan2", "logaddexp"])
def test_binary_free_function_and_method_agree_in_value_and_gradient(name):
    rng = np.random.default_rng(2)
    a_host, b_host = rng.uniform(0.3, 1.5, (3, 4)), rng.standard_normal(4)
    grads = []
    for call in (lambda a, b: getattr(tl, name)(a, b), lambda a, b: getattr(a, name)(b)):
        a, b = leaf(a_host), leaf(b_host)
        out = call(a, b)
        np.testing.assert_allclose(out.numpy(), getattr(np, name)(a_host, b_host), rtol=1e-15)
        (out * out).sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for first, second in zip(*grads):
        np.testing.assert_array_equal(first, second)
    assert grads[0][1].shape == (4,)


def test_atan2_takes_y_first_and_has_zero_gradient_at_the_origin():
    y, x = leaf([1.0, 1.0, -1.0, 0.0]), leaf([1.0, -1.0, -1.0, 0.0])
    out = tl.atan2(y, x)
    np.testing.assert_allclose(out.numpy(), [math.pi / 4, 3 * math.pi / 4, -3 * math.pi / 4, 0.0])
    out.sum().backward()  # d/dy = x / r^2, d/dx = -y / r^2; 0 at the origin (PyTorch)
    assert y.grad.tolist() == [0.5, -0.5, -0.5, 0.0]
    assert x.grad.tolist() == [-0.5, -0.5, 0.5, 0.0]
    assert tl.arctan2 is tl.atan2


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logaddexp_at_large_inputs_neither_overflows_nor_loses_the_small_share(dtype):
    a = leaf([1000.0, -1000.0, 800.0, -30.0], dtype=dtype)
    b = leaf([0.0, 0.0, 800.0, 0.0], dtype=dtype)
    out = tl.logaddexp(a, b)
    np.testing.assert_allclose(out.numpy(), [1000.0, 0.0, 800.0 + math.log(2), math.log1p(math.exp(-30))],
                               rtol=1e-6 if dtype == "float32" else 1e-15)
    out.sum().backward()
    tail = 1 / (1 + math.exp(30))  # sigmoid(-30) = 9.4e-14: 1 - sigmoid(30) would round it to 0 in float32
    np.testing.assert_allclose(a.grad.numpy(), [1.0, 0.0, 0.5, tail], rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [0.0, 1.0, 0.5, 1.0 - tail], rtol=1e-6)
    assert a.grad.numpy()[3] > 0


def test_logaddexp_takes_numbers_on_either_side_and_is_twice_differentiable():
    host = np.array([-1.0, 0.5, 2.0])
    x = leaf(host)
    np.testing.assert_allclose(tl.logaddexp(0.0, x).numpy(), np.logaddexp(0.0, host))
    (g,) = tl.autograd.grad(x.logaddexp(1.0).sum(), [x], create_graph=True)
    s = 1 / (1 + np.exp(1.0 - host))
    np.testing.assert_allclose(g.numpy(), s)
    (h,) = tl.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), s * (1 - s))


# ------------------------------------------------------------- logsumexp
def test_logsumexp_method_is_the_path_of_nn_functional():
    host = np.random.default_rng(3).standard_normal((2, 3, 4))
    x = tl.tensor(host)
    m = host.max(axis=(0, 2), keepdims=True)
    expected = np.log(np.exp(host - m).sum(axis=(0, 2), keepdims=True)) + m
    np.testing.assert_allclose(x.logsumexp((0, 2), keepdim=True).numpy(), expected, rtol=1e-14)
    np.testing.assert_array_equal(x.logsumexp(1).numpy(), tl.nn.functional.logsumexp(x, 1).numpy())
    with pytest.raises(TypeError):
        x.logsumexp()  # dim is required, as in PyTorch
    with pytest.raises(TypeError, match="logsumexp: the input must have a floating-point dtype"):
        tl.tensor([1, 2]).logsumexp(0)


# ------------------------------------------------------------------ norm
@pytest.mark.parametrize("p", [2, "fro", 1, 3, 0.5, math.inf, -math.inf])
def test_norm_matches_the_closed_form_over_dims(p):
    host = np.random.default_rng(4).standard_normal((3, 4))
    q = 2.0 if p == "fro" else p
    if math.isinf(q):
        expected = (np.max if q > 0 else np.min)(np.abs(host), axis=1)
    else:
        expected = (np.abs(host) ** q).sum(axis=1) ** (1 / q)
    np.testing.assert_allclose(tl.tensor(host).norm(p, dim=1).numpy(), expected, rtol=1e-14)
    assert tl.tensor(host).norm(p, 1, keepdim=True).shape == (3, 1)


def test_norm_at_zero_has_zero_gradient_and_zero_second_derivative(backend, device):
    x = leaf([[0.0, 0.0, 0.0], [3.0, 0.0, -4.0]], backend, device)
    (g,) = tl.autograd.grad(x.norm(dim=1).sum(), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), [[0.0, 0.0, 0.0], [0.6, 0.0, -0.8]], rtol=1e-15)
    assert g.tolist()[0] == [0.0, 0.0, 0.0]
    (h,) = tl.autograd.grad(g[0].sum() + g[1, 1], [x])  # d2/dx2 of |x| is (I - u u^T) / |x|; 0 at 0
    np.testing.assert_allclose(h.numpy(), [[0.0, 0.0, 0.0], [0.0, 0.2, 0.0]], atol=1e-15)


@pytest.mark.parametrize("p", [1, 0.5, 1.5, 3])
def test_norm_gradient_is_zero_at_zero_elements_for_every_p(p):
    host = np.array([0.0, 1.5, 0.0, -0.5])
    x = leaf(host)
    x.norm(p).backward()
    y = (np.abs(host) ** p).sum() ** (1 / p)
    nonzero = host != 0
    expected = np.zeros(4)
    expected[nonzero] = np.sign(host[nonzero]) * (np.abs(host[nonzero]) / y) ** (p - 1)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-14)
    x.grad = None
    (x * 0.0).norm(p).backward()
    assert x.grad.tolist() == [0.0] * 4


def test_inf_norm_ties_split_the_gradient_evenly_as_pytorch():
    x = leaf([3.0, -3.0, 1.0, 0.0])
    x.norm(math.inf).backward()
    assert x.grad.tolist() == [0.5, -0.5, 0.0, 0.0]
    y = leaf([1.0, -1.0, 3.0])
    y.norm(-math.inf).backward()
    assert y.grad.tolist() == [0.5, -0.5, 0.0]


@pytest.mark.parametrize("p", [0, -1, -2.5, "nuc", math.nan, True])
def test_norm_refuses_p_that_is_not_a_positive_number(p):
    with pytest.raises(ValueError, match="norm: p must be a positive number"):
        tl.tensor([1.0, 2.0]).norm(p)


def test_norm_needs_a_float_tensor():
    with pytest.raises(TypeError, match="norm: the input must have a floating-point dtype"):
        tl.tensor([3, 4]).norm()
