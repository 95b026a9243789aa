"""The fast paths of the elementwise ops stay exact and never touch their inputs.

Sigmoid computes e / (1 + e) with e = exp(min(x, L)) and updates its own
fresh arrays in place (as TanhBack and SigmoidBack do): these tests pin that
the result keeps its relative accuracy in both tails (subnormals included)
against a float64 or extended-precision reference, that no overflow warning
appears (pytest runs with filterwarnings=error), and that no op writes into
an input, a saved tensor or an incoming gradient; and that + - * /, which call
their array kernel directly when nothing records, give what their Function
gives; and that a product with a sum's gradient of ones (which NumPy's
backend skips, handing the other factor on as a read-only view) gives the
product's bits and never lets a `.grad` share an array. Under a second.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd.functions import SigmoidBack, TanhBack


def _sigmoid_reference(x: np.ndarray) -> np.ndarray:
    """sigmoid in extended precision (long double: 64-bit mantissa on x86, else float64)."""
    big = x.astype(np.longdouble)
    e = np.exp(-np.abs(big))
    return np.where(big >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


@pytest.mark.parametrize("dtype, low, high", [("float32", -110.0, 110.0), ("float64", -760.0, 760.0)])
def test_sigmoid_keeps_relative_accuracy_over_the_whole_range(dtype, low, high):
    x = np.linspace(low, high, 4001).astype(dtype)
    got = tl.tensor(x).sigmoid().numpy()
    ref = _sigmoid_reference(x)
    info = np.finfo(dtype)
    normal = ref >= info.smallest_normal
    rel = np.abs(got[normal] - ref[normal]) / ref[normal]
    assert got.dtype == np.dtype(dtype)
    assert rel.max() <= 4 * info.eps
    # below the normal range only absolute accuracy is possible: a few subnormal steps
    assert np.abs(got[~normal] - ref[~normal]).max() <= 4 * info.smallest_subnormal


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_far_tails_and_special_values(dtype):
    x = np.array([-np.inf, -1e30, -30.0, 0.0, 30.0, 1e30, np.inf, np.nan], dtype=dtype)
    got = tl.tensor(x).sigmoid().numpy()
    np.testing.assert_allclose(got[2], np.exp(np.float64(-30.0)) / (1.0 + np.exp(-30.0)), rtol=8 * np.finfo(dtype).eps)
    assert got[2] > 9e-14  # not flushed to 0 (float32's sigmoid(-30) is 9.36e-14)
    assert got[0] == 0.0 and got[1] == 0.0
    assert got[3] == 0.5 and got[5] == 1.0 and got[6] == 1.0
    np.testing.assert_allclose(got[4], 1.0 / (1.0 + np.exp(-30.0)), rtol=np.finfo(dtype).eps, atol=0)
    assert np.isnan(got[7])


def test_sigmoid_gradient_in_the_tails_is_finite_and_right():
    xs = np.array([-700.0, -30.0, -1.0, 0.0, 2.0, 30.0, 700.0])
    x = tl.tensor(xs, requires_grad=True)
    x.sigmoid().sum().backward()
    y = _sigmoid_reference(xs)
    # relative accuracy in the negative tail; y (1 - y) cancels in the positive one (as PyTorch's)
    np.testing.assert_allclose(x.grad.numpy(), (y * (1.0 - y)).astype(np.float64), rtol=1e-14, atol=1e-16)
    assert x.grad.numpy()[0] > 0.0


def test_an_integer_tensor_still_gets_a_float_sigmoid():
    got = tl.tensor(np.array([1, -2, 500, -500])).sigmoid().numpy()
    np.testing.assert_allclose(got, _sigmoid_reference(np.array([1.0, -2.0, 500.0, -500.0])), rtol=1e-15)


UNARY = {
    "sigmoid": lambda t: t.sigmoid(),
    "tanh": lambda t: t.tanh(),
    "exp": lambda t: t.exp(),
    "neg": lambda t: -t,
    "mul": lambda t: t * t,
    "w3": lambda t: ((t * 0.5).tanh() * t.sigmoid() + (-t * t).exp()),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("create_graph", [False, True])
def test_forward_and_backward_leave_inputs_and_seeds_untouched(name, create_graph):
    rng = np.random.default_rng(7)
    data = rng.standard_normal(64) * 3.0
    seed = rng.standard_normal(64)
    kept_data, kept_seed = data.copy(), seed.copy()
    x = tl.tensor(data, requires_grad=True)
    y = UNARY[name](x)
    y_data = y.numpy().copy()
    (g,) = tl.autograd.grad([y], [x], [tl.tensor(seed)], create_graph=create_graph)
    if create_graph and g.requires_grad:
        (g * g).sum().backward()
    np.testing.assert_array_equal(data, kept_data)
    np.testing.assert_array_equal(seed, kept_seed)
    np.testing.assert_array_equal(y.numpy(), y_data)
    assert not np.shares_memory(g.numpy(), data) and not np.shares_memory(g.numpy(), seed)


@pytest.mark.parametrize("back", [TanhBack, SigmoidBack])
def test_the_backward_ops_write_only_into_their_own_result(back):
    rng = np.random.default_rng(3)
    y_data, g_data = np.tanh(rng.standard_normal(32)), rng.standard_normal(32)
    y, g = tl.tensor(y_data.copy()), tl.tensor(g_data.copy())
    out = back.apply(y, g).numpy()
    np.testing.assert_array_equal(y.numpy(), y_data)
    np.testing.assert_array_equal(g.numpy(), g_data)
    assert not np.shares_memory(out, y.numpy()) and not np.shares_memory(out, g.numpy())
    expected = g_data * (1.0 - y_data**2) if back is TanhBack else g_data * y_data * (1.0 - y_data)
    np.testing.assert_allclose(out, expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_an_operator_that_records_nothing_gives_what_its_function_gives(backend, op):
    """+ - * / call the Function's array kernel directly when nothing is recorded: the same values,
    dtypes (promotion included), broadcasting and shapes as Function.apply, and no History."""
    import operator

    from torchlight.autograd import functions as F

    fn = {"+": F.Add, "-": F.Sub, "*": F.Mul, "/": F.Div}[op]
    apply_op = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}[op]
    rng = np.random.default_rng(7)
    pairs = [(rng.standard_normal((3, 4)), rng.standard_normal((4,)) + 3.0, "float64", "float32"),
             (rng.standard_normal((2, 1)), rng.standard_normal(()) + 3.0, "float32", "float32"),
             (rng.standard_normal(5), np.arange(1, 6), "float64", "int64")]
    for a_np, b_np, da, db in pairs:
        a = tl.tensor(a_np, dtype=da, backend=backend)
        b = tl.tensor(b_np, dtype=db, backend=backend)
        for left, right in [(a, b), (b, a), (a, 2.5), (2.5, a)]:
            lifted = [t if isinstance(t, tl.Tensor) else a._lift(t) for t in (left, right)]
            try:
                with tl.no_grad():
                    reference = fn.apply(*lifted)
            except TypeError:  # array_api_strict promotes no int with float: the operator refuses too
                with pytest.raises(TypeError):
                    apply_op(left, right)
                continue
            quiet = apply_op(left, right)
            assert quiet.history is None and not quiet.requires_grad
            assert quiet.shape == reference.shape and quiet.dtype == reference.dtype
            np.testing.assert_array_equal(quiet.numpy(), reference.numpy())
    leaf = tl.tensor([1.0, 2.0], requires_grad=True, backend=backend)
    with tl.no_grad():
        assert apply_op(leaf, leaf).history is None
    assert apply_op(leaf, leaf).history.last_fn is fn


def test_a_float_constant_is_found_again_without_being_made(monkeypatch):
    """`x * 0.5` looks 0.5 up with _number_tensor's own key: a repeat makes nothing, and values stay apart."""
    import sys

    tensor_module = sys.modules["torchlight.tensor"]  # (tl.tensor is the function)
    x = tl.tensor([1.0, 2.0], dtype="float32")
    first = x._lift(0.5)
    made = []
    real = tensor_module._number_tensor
    monkeypatch.setattr(tensor_module, "_number_tensor", lambda *args: made.append(args) or real(*args))
    assert x._lift(0.5) is first and made == []
    assert (x * 0.5).tolist() == [0.5, 1.0] and made == []
    assert x._lift(-0.0) is not x._lift(0.0)  # zeros go the long way: their sign is in the key
    assert tl.tensor([1, 2])._lift(0.5).dtype == np.float64  # an integer tensor's float takes the default float
    assert first.dtype == np.float32 and x._lift(0.25).item() == 0.25


def test_numpy_skips_only_a_product_with_a_broadcast_one_of_the_same_shape_and_dtype():
    backend = tl.backends.get("numpy")
    a = np.array([1.5, -0.0, np.inf, np.nan], dtype=np.float32)
    ones = np.broadcast_to(np.float32(1.0), a.shape)  # what Sum's backward hands on
    assert backend.is_broadcast_one(ones)
    got = backend.gradient_times(ones, a)
    assert np.shares_memory(got, a) and not got.flags.writeable
    np.testing.assert_array_equal(got, ones * a)
    assert np.signbit(got[1])  # 1 * -0.0 is -0.0: the bits are the product's
    not_ones = {
        "a broadcast 2": np.broadcast_to(np.float32(2.0), a.shape),
        "a broadcast NaN": np.broadcast_to(np.float32(np.nan), a.shape),
        "ones in memory": np.ones(a.shape, np.float32),
        "a view of ones in memory": np.ones((2, 4), np.float32)[0],
        "a 0-d one": np.float32(1.0),
        "an empty broadcast": np.broadcast_to(np.float32(1.0), (0,)),
    }
    for name, g in not_ones.items():
        assert not backend.is_broadcast_one(g), name
    elsewise = {"ones of another dtype": np.broadcast_to(1.0, a.shape),
                "ones of another shape": np.broadcast_to(np.float32(1.0), (3, 4))}
    for name, g in elsewise.items():
        assert backend.is_broadcast_one(g), name
        product = backend.gradient_times(g, a)
        assert not np.shares_memory(product, a), name
        np.testing.assert_array_equal(product, g * a, err_msg=name)
        assert product.dtype == (g * a).dtype and product.shape == (g * a).shape, name
    assert not tl.backends.get("array_api_strict").is_broadcast_one(ones)  # (the portable answer)


def test_gradients_of_a_sum_of_products_are_the_products_bits_in_arrays_of_their_own(backend):
    rng = np.random.default_rng(11)
    x_data, w_data = rng.standard_normal(50), rng.standard_normal(50)
    x = tl.tensor(x_data, requires_grad=True, backend=backend)
    w = tl.tensor(w_data, requires_grad=True, backend=backend)
    y = x.exp()
    ((x * w).sum() + y.sum() + (x[:10] * 3.0).sum()).backward()
    expected_x = w_data + np.exp(x_data)
    expected_x[:10] += 3.0
    np.testing.assert_allclose(x.grad.numpy(), expected_x, rtol=1e-15)  # (three sums, in the walk's order)
    np.testing.assert_array_equal(w.grad.numpy(), x_data)
    if backend.name == "numpy":
        grads = (x.grad.data, w.grad.data)
        assert all(g.flags.writeable for g in grads)
        assert not any(np.shares_memory(g, t) for g in grads for t in (x.data, w.data, y.data))


def test_a_leaf_fed_one_product_gets_a_copy_and_grad_returns_arrays_of_their_own():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = tl.tensor([4.0, 5.0, 6.0], requires_grad=True)
    (x * w).sum().backward()
    x.grad.data[0] = 100.0  # an optimiser's in-place update of .grad
    assert w.tolist() == [4.0, 5.0, 6.0] and w.grad.tolist() == [1.0, 2.0, 3.0]
    gx, gw = tl.autograd.grad([(x * w).sum()], [x, w])
    assert gx.tolist() == [4.0, 5.0, 6.0] and gx.data.flags.writeable
    assert not np.shares_memory(gx.data, w.data) and not np.shares_memory(gw.data, x.data)
