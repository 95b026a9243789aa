"""Cases found by a differential hunt of creation, dtype rules, reductions and
comparisons against NumPy 2.4 and PyTorch 2.13 (a discovery tool only): each
test pins torchlight's answer against NumPy, a closed form or central
differences, never against torch.

Covered: dtype spellings on every backend (`np.float32`, `"f4"`, `int`),
`rand`/`randn` with an integer dtype, `arange` with NumPy scalar arguments,
`full` with a NumPy integer size, `var`/`std` of integer tensors, `clamp`
with a NumPy float bound, `prod`'s gradient with inf or NaN in the slice,
`maximum`/`minimum` with a NaN operand, argmax/argmin of an empty dim,
Python ints beyond a small integer dtype (compared by value, an
OverflowError in arithmetic, NumPy's clip in clamp), matmul's batch shape
error; and pins of what the hunt confirmed or docs/decisions.md records
(matmul's 1-d and batched shapes with gradients, NumPy's dtypes for
reductions of ints and bools, empty reductions, float32 kept through ops
and two derivatives, sign, abs and relu at NaN, integer tensors in float
ops).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck


def leaf(values, backend="numpy", device=None, dtype=None):
    return tl.tensor(np.asarray(values, dtype=dtype), backend=backend, device=device, requires_grad=True)


def host(x):
    return np.asarray(x.numpy())


# ----------------------------------------------------------- dtype spellings
@pytest.mark.parametrize("spelling", ["float32", "f4", np.float32, np.dtype("float32")])
def test_a_dtype_is_spelled_as_in_numpy_on_every_backend(spelling, backend, device):
    # np.float32 raised on torch and array_api_strict, "f4" everywhere (AttributeError)
    expected = backend.resolve_dtype("float32")
    for made in (tl.zeros(2, backend=backend, device=device, dtype=spelling),
                 tl.tensor([1, 2], backend=backend, device=device, dtype=spelling),
                 tl.rand(2, backend=backend, device=device, dtype=spelling),
                 tl.arange(3, backend=backend, device=device, dtype=spelling),
                 tl.ones(2, backend=backend, device=device).astype(spelling)):
        assert made.dtype == expected


@pytest.mark.parametrize(("python_type", "name"), [(int, "int64"), (bool, "bool"), (float, "float64")])
def test_python_types_name_numpys_dtypes_on_every_backend(python_type, name, backend, device):
    # int and bool raised on array_api_strict; NumPy reads them as int64 and bool
    made = tl.full((2,), 1, backend=backend, device=device, dtype=python_type)
    assert made.dtype == backend.resolve_dtype(name)
    assert host(made).dtype == np.dtype(name)


@pytest.mark.parametrize("name", ["exp", "float128x", "bfloat16", "pi", "linalg"])
def test_a_name_that_is_no_dtype_of_the_backend_raises_a_type_error(name, backend):
    if name == "bfloat16" and hasattr(backend.xp, "bfloat16"):
        pytest.skip("this backend has bfloat16")
    with pytest.raises(TypeError, match=f"dtype '{name}': backend '{backend.name}' has no such dtype"):
        tl.zeros(2, backend=backend, dtype=name)


# ------------------------------------------------------------- random numbers
@pytest.mark.parametrize("kind", ["rand", "randn"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_random_samples_refuse_an_integer_dtype(kind, dtype, backend, device):
    # array_api_strict and dask drew floats and cast them: rand(3, dtype="int64") was all zeros
    with pytest.raises(TypeError, match=f"{kind}: samples need a floating dtype"):
        getattr(tl, kind)(3, backend=backend, device=device, dtype=dtype)


def test_manual_seed_repeats_the_samples_in_the_asked_dtype(backend, device):
    tl.manual_seed(7)
    first = [host(tl.rand(3, backend=backend, device=device)), host(tl.randn(2, 2, backend=backend, device=device))]
    tl.manual_seed(7)
    again = [host(tl.rand(3, backend=backend, device=device)), host(tl.randn(2, 2, backend=backend, device=device))]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert first[0].min() >= 0 and first[0].max() < 1
    assert tl.randn(2, backend=backend, device=device, dtype=np.float32).dtype == backend.resolve_dtype("float32")


# --------------------------------------------------------------------- arange
@pytest.mark.parametrize("args", [
    (0, 1, np.float32(0.25)), (np.float32(0.0), 1, 0.25), (1, 0, np.float64(-0.25)), (np.int32(5),),
    (np.int64(10), 2, -3), (0, 1, 0.1), (1, 0, -0.3), (2.5,),
])
def test_arange_reads_numpy_scalars_as_the_numbers_they_hold(args, backend, device):
    # a np.float32 step gave int64 zeros on array_api_strict and float32 on torch
    got = tl.arange(*args, backend=backend, device=device)
    expected = np.arange(*(a.item() if isinstance(a, np.generic) else a for a in args))
    assert host(got).dtype == expected.dtype
    np.testing.assert_allclose(host(got), expected, rtol=0, atol=1e-15)


# ------------------------------------------------------------------- prod
def _others(values):
    """The product of every element but the i-th, in float64, for each i (the exact reference)."""
    with np.errstate(invalid="ignore"):
        return np.array([np.prod(np.delete(np.asarray(values, dtype=np.float64), i)) for i in range(len(values))])


@pytest.mark.parametrize("values", [
    [np.inf, 2.0, 3.0], [np.nan, 2.0, 3.0], [np.inf, 0.0, 2.0], [np.nan, 0.0, 2.0], [np.inf, 0.0, 0.0, 2.0],
    [-np.inf, -np.inf, 2.0], [-np.inf, 0.5, -4.0], [0.0, 0.0, 3.0], [2.0, -0.5, 4.0],
])
def test_prod_gradient_is_the_product_of_the_others_with_inf_and_nan(values, backend, device):
    # the first-order backward divided the whole product: [inf, 2, 3] gave inf / inf = NaN (with a
    # RuntimeWarning) for the inf, whose others' product is 6; [inf, 0, 2] gave 2 the gradient 0,
    # not inf * 0 = NaN. The create_graph backward (masked products) was right all along.
    expected = _others(values)
    for create_graph in (False, True):
        x = leaf(values, backend, device)
        with np.errstate(invalid="ignore"):  # the forward's own inf * 0 (and create_graph's products)
            y = x.prod()
            if create_graph:  # (Dask computes only in host)
                (g,) = tl.autograd.grad(y, [x], create_graph=True)
                got = host(g.detach())
        if not create_graph:  # the first-order backward warns of nothing
            (g,) = tl.autograd.grad(y, [x])
            got = host(g)
        np.testing.assert_array_equal(got, expected)


def test_prod_gradient_along_a_dim_with_inf_matches_the_others_product(backend, device):
    rows = np.array([[np.inf, 2.0, 3.0], [0.0, np.inf, -1.0], [1.5, 2.0, 4.0]])
    x = leaf(rows, backend, device)
    with np.errstate(invalid="ignore"):
        y = x.prod(1)
    (g,) = tl.autograd.grad(y.sum(), [x])
    np.testing.assert_array_equal(host(g), np.stack([_others(r) for r in rows]))


# --------------------------------------------------------- maximum and minimum
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_a_nan_operand_of_maximum_and_minimum_gets_the_gradient_on_either_side(name, backend, device):
    # the NaN is the result; its gradient went to the other side when the NaN was the first argument,
    # so maximum(a, b) and maximum(b, a) differed (PyTorch 2.13 gives 1 to both sides)
    a_values, b_values = [np.nan, 1.0, np.nan, 2.0, 3.0], [1.0, np.nan, np.nan, 2.0, -3.0]
    ties = getattr(np, name)(a_values, b_values)
    won = np.array([1.0, 0.0, 0.5, 0.5, 1.0 if name == "maximum" else 0.0])
    for first, second, share in ((a_values, b_values, won), (b_values, a_values, 1.0 - won)):
        a, b = leaf(first, backend, device), leaf(second, backend, device)
        out = getattr(tl, name)(a, b)
        np.testing.assert_array_equal(host(out.detach()), ties)
        ga, gb = tl.autograd.grad(out.sum(), [a, b])
        np.testing.assert_array_equal(host(ga), share)
        np.testing.assert_array_equal(host(gb), 1.0 - share)


# --------------------------------------------------------------------- matmul
@pytest.mark.parametrize(("shape_a", "shape_b"), [
    ((3,), (3,)), ((3,), (3, 4)), ((3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2)), ((5, 4, 2), (2, 1, 2, 3)),
    ((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((1, 3, 4), (2, 4, 5)),
])
def test_matmul_follows_numpys_shape_rules_with_gradients(shape_a, shape_b, backend, device):
    rng = np.random.default_rng(3)
    a_values, b_values = rng.standard_normal(shape_a), rng.standard_normal(shape_b)
    a, b = leaf(a_values, backend, device), leaf(b_values, backend, device)
    out = a @ b
    expected = a_values @ b_values
    assert out.shape == expected.shape
    np.testing.assert_allclose(host(out.detach()), expected, rtol=1e-12, atol=1e-12)
    gradcheck(lambda p, q: p @ q, a, b)
    gradgradcheck(lambda p, q: p @ q, a, b)


def test_matmul_of_batches_that_do_not_broadcast_names_both_shapes():
    # the message named only the batch dimensions, "(2,) and (3,)"
    with pytest.raises(ValueError, match=r"MatMul: shapes \(2, 2, 3\) and \(3, 3, 4\): batch dimensions"):
        tl.zeros(2, 2, 3) @ tl.zeros(3, 3, 4)


# ------------------------------------------------ integer tensors in float ops
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize(("dim", "correction"), [(None, 1), (0, 0), (1, 1)])
def test_var_and_std_of_an_integer_tensor_are_floats_as_its_mean(dtype, dim, correction, backend, device):
    # NumPy gives float64; array_api_strict and torch raised (their var refuses integers), while mean
    # already cast to the default float
    values = np.array([[1, 0, 3], [4, 1, 1]]).astype(dtype)
    x = tl.tensor(values, backend=backend, device=device)
    floats = values.astype(np.float64)
    for name, reference in (("var", np.var), ("std", np.std)):
        got = getattr(x, name)(dim, correction=correction)
        assert got.dtype == backend.default_float(device)
        np.testing.assert_allclose(host(got), reference(floats, axis=dim, ddof=correction), rtol=1e-14)
    np.testing.assert_allclose(host(x.mean(dim)), np.mean(floats, axis=dim), rtol=1e-14)


# --------------------------------------------------------------------- clamp
@pytest.mark.parametrize("bounds", [(np.float64(-0.5), 0.5), (-0.5, np.float64(0.5)), (np.float64(-0.5), None)])
def test_clamp_reads_a_numpy_float_bound_as_a_number(bounds, backend, device):
    # np.float64 (a float) went to the namespace's clip as it was: on NumPy the float32 result became
    # float64, array_api_strict and torch raised a TypeError about a memoryview
    values = np.array([-1.0, -0.5, 0.25, 0.5, 2.0], dtype=np.float32)
    x = leaf(values, backend, device)
    out = x.clamp(*bounds)
    assert out.dtype == x.dtype
    lo, hi = (None if b is None else float(b) for b in bounds)
    np.testing.assert_array_equal(host(out.detach()), np.clip(values, lo, hi))
    (g,) = tl.autograd.grad(out.sum(), [x])
    inside = (values >= (-np.inf if lo is None else lo)) & (values <= (np.inf if hi is None else hi))
    np.testing.assert_array_equal(host(g), inside.astype(np.float32))


# ------------------------------------------------------ conventions at NaN
def test_sign_abs_and_relu_at_nan_follow_numpy_and_their_own_rules(backend, device):
    # docs/decisions.md: sign(nan) is NaN (NumPy, the standard; PyTorch 0), abs' at NaN is NaN
    # (PyTorch 0), relu' at NaN is 0 (PyTorch 1)
    values = np.array([np.nan, -2.0, 0.0, 3.0])
    with np.errstate(invalid="ignore"):
        expected_sign = np.sign(values)
    for name, value, grad in (("sign", expected_sign, [0.0, 0.0, 0.0, 0.0]),
                              ("abs", np.abs(values), [np.nan, -1.0, 0.0, 1.0]),
                              ("relu", np.maximum(values, 0.0), [0.0, 0.0, 0.0, 1.0])):
        x = leaf(values, backend, device)
        out = getattr(x, name)()
        np.testing.assert_array_equal(host(out.detach()), value)
        (g,) = tl.autograd.grad(out.sum(), [x])
        np.testing.assert_array_equal(host(g), grad)


def test_the_sign_of_a_complex_zero_is_zero_without_a_warning(backend, device):
    # z / |z| away from 0 (the standard); at 0 it is 0, computed without the 0/0 that warns
    values = np.array([0j, 3 + 4j, -2j, 0j])
    out = tl.tensor(backend.asarray(values, device=device)).sign()  # (warnings are errors here)
    np.testing.assert_allclose(host(out), [0j, 0.6 + 0.8j, -1j, 0j])


@pytest.mark.parametrize(("dtype", "expected"), [("int32", "float64"), ("int64", "float64"), ("uint8", "float16")])
def test_an_integer_tensor_in_a_float_op_gets_numpys_dtype_on_numpy(dtype, expected):
    # docs/decisions.md: the library's own answer (array_api_strict raises, torch gives float32)
    values = np.array([1, 2, 4], dtype=dtype)
    x = tl.tensor(values)
    for name in ("exp", "sqrt", "log", "sin", "tanh"):
        got = getattr(x, name)()
        assert got.dtype == np.dtype(expected)
        np.testing.assert_allclose(host(got), getattr(np, name)(values), rtol=1e-3 if expected == "float16" else 1e-15)
    assert (x / 2).dtype == np.float64
    with pytest.raises(TypeError):
        tl.tensor(values, backend="array_api_strict").exp()


@pytest.mark.parametrize("op", [
    lambda x: x + 1.5, lambda x: 2.0 * x, lambda x: x / 3, lambda x: (x + 3.0) ** 0.5, lambda x: x ** 2,
    lambda x: x * np.float64(0.5), lambda x: x.exp().log1p(), lambda x: x.sigmoid() * x.tanh(),
    lambda x: x.var(1) + x.std(0).sum(), lambda x: x.prod(1) + x.norm(3), lambda x: x.logsumexp(0),
    lambda x: x.softmax(1), lambda x: x @ x.T, lambda x: tl.maximum(x, 0.25) - tl.minimum(x, x * 0.5),
    lambda x: x.clamp(-0.5, 0.5) + x.abs(), lambda x: tl.where(x > 0, x, 0.5), lambda x: x.cumsum(1),
    lambda x: x.max(0).values + x.amin(1).sum(), lambda x: x.mean() + x.square().sum(),
])
def test_float32_stays_float32_through_an_op_its_gradient_and_its_second_gradient(op, backend, device):
    values = np.array([[0.3, -0.7, 1.2], [0.5, 0.25, -0.1]], dtype=np.float32)
    x = leaf(values, backend, device)
    out = op(x)
    float32 = backend.resolve_dtype("float32")
    assert out.dtype == float32
    (g,) = tl.autograd.grad(out.sum(), [x], create_graph=True)
    assert g.dtype == float32
    if g.requires_grad:
        (h,) = tl.autograd.grad((g * g).sum(), [x], allow_unused=True)
        assert h is None or h.dtype == float32


# ----------------------------------------------------------------- reductions
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint8", "float32"])
def test_reductions_of_integers_and_booleans_take_numpys_dtypes(dtype):
    values = np.array([[1, 0, 1], [1, 1, 0]]).astype(dtype)
    x = tl.tensor(values)
    for got, expected in ((x.sum(), np.sum(values)), (x.sum(0), np.sum(values, 0)), (x.prod(1), np.prod(values, 1)),
                          (x.cumsum(1), np.cumsum(values, 1)), (x.mean(), np.mean(values)),
                          (x.max(1).values, np.max(values, 1)), (x.argmax(1), np.argmax(values, 1))):
        assert host(got).dtype == expected.dtype
        np.testing.assert_array_equal(host(got), expected)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "var", "std", "argmax", "cumsum"])
@pytest.mark.parametrize(("shape", "dim"), [((2, 0), 0), ((2, 0), 1), ((2, 0), None), ((0,), 0)])
def test_reductions_of_empty_tensors_match_numpy(name, shape, dim, backend, device):
    values = np.zeros(shape)
    reference = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "var": lambda v, axis: np.var(v, axis=axis, ddof=1),
                 "std": lambda v, axis: np.std(v, axis=axis, ddof=1), "argmax": np.argmax, "cumsum": np.cumsum}[name]
    if name == "cumsum" and dim is None:
        pytest.skip("cumsum needs its dim")
    x = tl.tensor(values, backend=backend, device=device)
    with warnings.catch_warnings():  # NumPy's own "mean of empty slice" and "degrees of freedom"
        warnings.simplefilter("ignore")
        try:
            expected = reference(values, axis=dim)
        except ValueError:  # argmax of an empty axis
            with pytest.raises(ValueError):
                getattr(x, name)(dim)
            return
    got = getattr(x, name)(dim)
    assert got.shape == np.shape(expected)
    np.testing.assert_array_equal(host(got), expected)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_and_argmin_of_an_empty_dimension_raise_as_max_does(name, backend, device):
    # NumPy raised its own ValueError, torch an IndexError and Dask nothing until computed
    x = tl.zeros(2, 0, backend=backend, device=device)
    assert getattr(x, name)(0).shape == np.argmax(np.zeros((2, 0)), axis=0).shape == (0,)
    for dim in (1, None):
        with pytest.raises(ValueError, match=f"{name}: the tensor of shape \\(2, 0\\) is empty along dim 1"):
            getattr(x, name)(dim)


# ----------------------------------------- Python ints beyond a small integer dtype
@pytest.mark.parametrize(("dtype", "number"), [("uint8", -1), ("uint8", 300), ("int8", 200), ("int8", -129),
                                               ("int64", 2**63), ("uint8", 2**70)])
def test_a_number_beyond_the_dtype_compares_by_value_as_numpy(dtype, number, backend, device):
    # NumPy 2 compares by value (uint8 > -1 is all True); torchlight raised OverflowError on NumPy and
    # array_api_strict, and torch wrapped the number silently (uint8 < 300 compared with 44)
    values = np.array([3, 120], dtype=dtype)
    x = tl.tensor(values, backend=backend, device=device)
    for name in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        expected = getattr(values, name)(number)
        got = getattr(x, name)(number)
        assert got.shape == expected.shape and host(got).dtype == np.bool_
        np.testing.assert_array_equal(host(got), expected)
    np.testing.assert_array_equal(host(number < x), number < values)


@pytest.mark.parametrize(("dtype", "number"), [("uint8", -1), ("uint8", 300), ("int8", 200)])
def test_arithmetic_with_a_number_beyond_the_dtype_raises_as_numpy(dtype, number, backend, device):
    # NumPy 2 raises OverflowError; torch wrapped the number silently (uint8 + -1 subtracted 1 mod 256)
    x = tl.tensor(np.array([3, 120], dtype=dtype), backend=backend, device=device)
    for op in (lambda: x + number, lambda: number * x, lambda: x - number):
        with pytest.raises(OverflowError, match=f"Python integer {number} out of bounds"):
            op()
    np.testing.assert_array_equal(host(x + 1), np.array([4, 121], dtype=dtype))


@pytest.mark.parametrize(("dtype", "lo", "hi"), [("uint8", -1, 5), ("uint8", -5, 300), ("uint8", 2, 300),
                                                 ("uint8", None, 300), ("int8", -200, 50), ("int8", -129, None)])
def test_clamp_by_a_number_beyond_the_dtype_that_clips_nothing_is_numpys_clip(dtype, lo, hi, backend, device):
    # np.clip takes a lower bound below the dtype (or an upper one above it): it clips nothing there.
    # 1dc4a58 lifted every number bound, so uint8_x.clamp(-1, 5) raised OverflowError (torch wraps -1: [5, 5])
    values = np.array([3, 120], dtype=dtype)
    got = tl.tensor(values, backend=backend, device=device).clamp(lo, hi)
    expected = np.clip(values, lo, hi)
    assert host(got).dtype == expected.dtype
    np.testing.assert_array_equal(host(got), expected)


@pytest.mark.parametrize(("lo", "hi"), [(300, None), (None, -1), (2, -1), (300, 5)])
def test_clamp_by_a_number_beyond_the_dtype_on_the_clipping_side_raises_as_numpy(lo, hi, backend, device):
    x = tl.tensor(np.array([3, 120], dtype=np.uint8), backend=backend, device=device)
    with pytest.raises(OverflowError, match="out of bounds for"):
        x.clamp(lo, hi)
    with pytest.raises(OverflowError):
        np.clip(np.array([3, 120], dtype=np.uint8), lo, hi)


@pytest.mark.parametrize("size", [np.int64(3), np.int32(3), 3])
def test_full_takes_a_numpy_integer_size_as_numpy(size, backend, device):
    # full(np.int64(3), 1.5) raised "object of type 'numpy.int64' has no len()" (np.full takes it)
    made = tl.full(size, 1.5, backend=backend, device=device)
    np.testing.assert_array_equal(host(made), np.full(size, 1.5))
    assert tl.zeros(size, 2, backend=backend, device=device).shape == np.zeros((size, 2)).shape
    assert tl.full(tl.tensor(3), 0.0, backend=backend, device=device).shape == (3,)


def test_full_still_takes_a_1d_array_of_sizes_as_numpy():
    # a 1-d array has __index__ too (it raises TypeError): taken for one size, it broke what worked before
    sizes = np.array([2, 3])
    assert tl.full(sizes, 1.5).shape == np.full(sizes, 1.5).shape == (2, 3)
    assert tl.full(tl.tensor(sizes), 1.5).shape == (2, 3)
