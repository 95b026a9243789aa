"""`torchlight.scalar` at the edges a differential hunt found wrong (against `math`, closed forms
and central differences): powers that overflow, max beside a NaN, `backend.reduce`'s `start`,
deep copies and pickles of a graph, and the error for a Value made from a Value.

Each test failed before its fix. References are float64 `math` values or closed forms; no
other library is needed at test time.
"""

from __future__ import annotations

import copy
import functools
import math
import pickle
import warnings

import numpy as np
import pytest

import torchlight as tl
from torchlight import scalar
from torchlight.autograd import central_difference
from torchlight.scalar import variable


def grads(fn, *xs):
    """fn's value and the gradient in each argument, by the scalar engine."""
    leaves = [variable(x) for x in xs]
    out = fn(*leaves)
    out.backward()
    return out.data, [v.grad for v in leaves]


def host(t) -> list[float]:
    return np.asarray(t.backend.to_numpy(t.data), dtype=np.float64).tolist()


# ------------------------------------------------------------ pow at overflow
@pytest.mark.parametrize("make", [float, variable], ids=["number", "Value"])
@pytest.mark.parametrize("base, exponent", [(-1e200, 2.5), (-1e-200, -2.5), (-1e300, 1.5)])
def test_a_negative_base_to_a_fractional_power_raises_even_where_it_overflows(make, base, exponent):
    # math.pow says the same (ValueError); `a ** b` overflowed first and gave +inf
    with pytest.raises(ValueError, match="math domain error"):
        math.pow(base, exponent)
    with pytest.raises(ValueError, match="fractional power"):
        scalar.pow(make(base), exponent)


@pytest.mark.parametrize("base, exponent", [(-1e200, 3.0), (-1e-200, -3.0), (-1e200, 2.0), (1e200, 3.0)])
def test_an_integer_power_that_overflows_has_the_sign_of_the_power(base, exponent):
    sign = -1.0 if base < 0 and exponent % 2 == 1 else 1.0
    assert scalar.pow(base, exponent) == sign * math.inf
    assert scalar.pow(variable(base), exponent).data == sign * math.inf


@pytest.mark.parametrize("base, exponent", [(-1e-200, -2.0), (1e-200, -2.0), (-1e200, 3.0), (-1e-200, -4.0),
                                            (-1e120, 4.0)])
def test_a_derivative_that_overflows_has_the_sign_of_the_closed_form(base, exponent):
    # d/dx x^p = p x^(p-1): an odd p - 1 keeps the base's sign (it was always +inf)
    _, (g,) = grads(lambda x: x ** exponent, base)
    closed_sign = math.copysign(1.0, exponent) * (math.copysign(1.0, base) if (exponent - 1) % 2 == 1 else 1.0)
    assert g == closed_sign * math.inf
    # where the slope is finite, the same rule agrees with central differences
    x = base / abs(base) * 0.7
    _, (g,) = grads(lambda v: v ** exponent, x)
    assert g == pytest.approx(central_difference(lambda v: v ** exponent, x), rel=1e-6)


# ---------------------------------------------------------------- max and NaN
@pytest.mark.parametrize("a, b, expected", [(math.nan, 1.0, [1.0, 0.0]), (1.0, math.nan, [0.0, 1.0]),
                                            (math.nan, math.nan, [1.0, 0.0]), (2.0, 2.0, [1.0, 0.0])])
def test_max_sends_the_gradient_to_the_argument_it_returns(a, b, expected):
    out, g = grads(scalar.max, a, b)
    returned = scalar.max(a, b)
    assert math.isnan(out) == math.isnan(returned) and (math.isnan(out) or out == returned)
    assert g == expected


def test_max_over_tensors_sends_the_gradient_where_the_scalar_engine_does(backend, device):
    a_s, b_s = [math.nan, 1.0, math.nan, 3.0, -1.0], [1.0, math.nan, math.nan, 3.0, 2.0]
    a = tl.tensor(a_s, backend=backend, device=device, dtype="float64", requires_grad=True)
    b = tl.tensor(b_s, backend=backend, device=device, dtype="float64", requires_grad=True)
    backend.zip(scalar.max)(a, b).sum().backward()
    expected = [grads(scalar.max, x, y)[1] for x, y in zip(a_s, b_s)]
    assert host(a.grad) == [g[0] for g in expected] == [1.0, 0.0, 1.0, 1.0, 0.0]
    assert host(b.grad) == [g[1] for g in expected]


# ------------------------------------------------------------ reduce's start
@pytest.mark.parametrize("fn, start", [(scalar.add, 10.0), (scalar.mul, -2.0), (scalar.max, 100.0),
                                       (scalar.max, -math.inf), (scalar.add, 0.0)])
def test_reduce_on_arrays_folds_from_start_as_on_tensors(backend, device, fn, start):
    rows = [[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]]
    x = tl.tensor(rows, backend=backend, device=device, dtype="float64")
    for dim in (None, 0, 1):
        if dim is None:
            expected = functools.reduce(fn, [v for row in rows for v in row], start)
        elif dim == 0:
            expected = [functools.reduce(fn, col, start) for col in zip(*rows)]
        else:
            expected = [functools.reduce(fn, row, start) for row in rows]
        array = backend.to_numpy(backend.reduce(fn, start)(x.data, dim)).tolist()
        assert array == pytest.approx(expected, rel=1e-15)
        assert host(backend.reduce(fn, start)(x, dim)) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("fn, start", [(scalar.add, 10.0), (scalar.max, -math.inf), (scalar.mul, 1.0)])
def test_reduce_of_an_empty_array_is_start(backend, device, fn, start):
    empty = tl.zeros((0,), backend=backend, device=device, dtype="float64")
    assert float(backend.to_numpy(backend.reduce(fn, start)(empty.data))) == start
    assert float(backend.reduce(fn, start)(empty).item()) == start


# ------------------------------------------------------ copying and pickling
def chain(n: int):
    """x + x + ... + x with n additions, and its leaf x."""
    x = variable(1.5)
    y = x
    for _ in range(n):
        y = y + x
    return y, x


def test_deepcopy_copies_a_deep_graph_without_recursion_and_keeps_shared_leaves():
    y, x = chain(20_000)  # the default recursive deepcopy stopped near 200 nodes
    y2, x2 = copy.deepcopy([y, x])
    assert y2 is not y and x2 is not x and y2.data == y.data == 1.5 * 20_001
    y2.backward()
    assert x2.grad == 20_001.0 and x.grad == 0.0  # the copy's leaf is the one its graph feeds
    assert y2.history.last_fn is scalar.add  # scalar functions are copied as themselves
    assert copy.deepcopy(scalar.mul) is scalar.mul and copy.copy(scalar.mul) is scalar.mul


def test_pickle_keeps_the_graph_data_grad_and_requires_grad():
    x, c = variable(0.3), scalar.constant(2.0)
    y = (x * c).exp() - x.tanh() + scalar.max(x, 1.0) ** 2.0 + x.sigmoid() / c
    y.backward()
    y2, x2, c2 = pickle.loads(pickle.dumps([y, x, c]))  # a PicklingError (a lambda) before
    assert (y2.data, y2.grad, x2.grad, c2.requires_grad) == (y.data, 1.0, x.grad, False)
    sig = 1.0 / (1.0 + math.exp(-0.3))
    closed = 2.0 * math.exp(0.6) - (1.0 - math.tanh(0.3) ** 2) + 0.0 + sig * (1.0 - sig) / 2.0
    x2.grad = 0.0
    y2.backward()
    assert x2.grad == pytest.approx(closed, rel=1e-12) and x.grad == x2.grad
    assert pickle.loads(pickle.dumps(scalar.log)) is scalar.ln


def test_a_value_made_from_a_value_names_the_mistake():
    for make in (variable, scalar.constant, scalar.Value):
        with pytest.raises(TypeError, match=r"must be a number, got Value.*\.data"):
            make(variable(2.0))
        with pytest.raises(TypeError, match=r"must be a number, got str \('2'\)$"):  # (it said "or a Value")
            make("2")


# ----------------------------------- zip(div) where b * b overflows or underflows
@pytest.mark.parametrize("a, b", [(1e300, 1e300), (math.inf, 1e300), (-1e200, 1e250), (1e-300, 1e-300)])
def test_zip_div_gives_the_denominator_the_gradient_the_scalar_engine_gives(backend, device, a, b):
    # d/db a/b = -a/b^2, computed as -(a/b)/b: b * b overflowed or underflowed (inf/inf was NaN,
    # 1/inf -0.0, 1/0 a warning)
    _, (_, gb) = grads(scalar.div, a, b)
    assert gb == -(a / b) / b
    x = tl.tensor([a], backend=backend, device=device, dtype="float64")
    y = tl.tensor([b], backend=backend, device=device, dtype="float64", requires_grad=True)
    backend.zip(scalar.div)(x, y).sum().backward()
    assert host(y.grad) == [gb]


# ------------------------------------------------------ zip(pow) at base 0
POW_CONVENTIONS = [  # (a, b, d/da, d/db): d/da is 0 where b == 0, d/db 0 where a == 0, NaN where a < 0
    (0.0, 0.0, 0.0, 0.0), (0.0, 2.0, 0.0, 0.0), (0.0, 3.0, 0.0, 0.0), (-0.0, 1.0, 1.0, 0.0),
    (math.nan, 0.0, 0.0, math.nan), (-2.0, 2.0, -4.0, math.nan), (2.0, 0.0, 0.0, math.log(2.0)),
    (2.0, 3.0, 12.0, 8.0 * math.log(2.0)),
]


def same(x: float, y: float) -> bool:
    return x == pytest.approx(y, rel=1e-15) or math.isnan(x) and math.isnan(y)


@pytest.mark.parametrize("a, b, da, db", POW_CONVENTIONS)
def test_zip_pow_follows_the_scalar_engines_conventions_at_zero(backend, device, a, b, da, db):
    _, (ga, gb) = grads(scalar.pow, a, b)
    assert same(ga, da) and same(gb, db)
    x = tl.tensor([a], backend=backend, device=device, dtype="float64", requires_grad=True)
    y = tl.tensor([b], backend=backend, device=device, dtype="float64", requires_grad=True)
    backend.zip(scalar.pow)(x, y).sum().backward()  # was NaN for d/da at b == 0, -inf/NaN for d/db at a == 0
    assert same(host(x.grad)[0], da) and same(host(y.grad)[0], db)


# ------------------------------------------------------- pow of NumPy scalars
@pytest.mark.parametrize("kind", [np.float64, np.float32])
def test_pow_of_numpy_scalars_follows_the_rules_for_python_floats(kind):
    # NumPy's own ** gave NaN (and a RuntimeWarning) where math.pow and a Python float raise
    with pytest.raises(ValueError, match="fractional power"):
        scalar.pow(kind(-8.0), kind(0.5))
    assert scalar.pow(kind(10.0), 400) == math.inf  # no overflow warning
    assert scalar.pow(kind(2.0), kind(-2.0)) == math.pow(2.0, -2.0)
    assert scalar.pow(np.int64(2), np.int64(-1)) == math.pow(2.0, -1.0)  # NumPy refuses int ** negative int


# --------------------------------------- map/zip of a plain Python function: dtype and device
def test_a_plain_function_over_an_integer_tensor_keeps_its_float_results(backend, device):
    ints = tl.tensor([1, 2, 3], backend=backend, device=device)
    roots = backend.map(math.sqrt)(ints)  # was cast back to int64: [1, 1, 1]
    assert host(roots) == [math.sqrt(v) for v in (1, 2, 3)] and backend.is_floating(roots.dtype)
    assert host(backend.map(lambda a: a / 2)(ints)) == [0.5, 1.0, 1.5]
    doubled = backend.map(lambda a: a * 2)(ints)  # integer results stay in the integer dtype
    assert host(doubled) == [2, 4, 6] and doubled.dtype == ints.dtype
    bools = tl.tensor([True, False], backend=backend, device=device)
    assert host(backend.map(lambda a: a + 1)(bools)) == [2, 1]  # was cast back to bool: [True, True]
    assert backend.map(lambda a: not a)(bools).dtype == bools.dtype


def test_a_plain_function_promotes_and_places_its_result_as_a_known_one(backend, device):
    # it took the first argument's dtype, and a number first gave float64 on the default device
    f32 = tl.tensor([1.5, 2.0], backend=backend, device=device, dtype="float32")
    f64 = tl.tensor([2.0, 4.0], backend=backend, device=device, dtype="float64")
    for x, y in ((f32.data, f64.data), (3.0, f32.data), (f32, f64)):
        plain, known = backend.zip(lambda a, b: a * b)(x, y), backend.zip(scalar.mul)(x, y)
        if isinstance(x, tl.Tensor):  # Tensors in, Tensors out
            plain, known = plain.data, known.data
        assert plain.dtype == known.dtype and backend.device_of(plain) == backend.device_of(known) == device
        assert backend.to_numpy(plain).tolist() == backend.to_numpy(known).tolist()


def test_a_plain_function_the_scalar_engine_cannot_follow_says_so_in_backward(backend, device):
    x = tl.tensor([0.5, -2.0], backend=backend, device=device, dtype="float64", requires_grad=True)
    out = backend.map(math.sin)(x)  # the forward runs on numbers
    assert host(out) == [math.sin(0.5), math.sin(-2.0)]
    with pytest.raises(TypeError, match="'sin' returned float, not a Value"):  # was AttributeError: 'float'
        out.sum().backward()  # object has no attribute 'backward'
    assert x.grad is None


def test_a_scalar_function_of_the_wrong_arity_is_named(backend):
    # each raised from inside a lambda: "<lambda>() missing 1 required positional argument: 'b'"
    with pytest.raises(TypeError, match=r"map needs a function of 1 argument\(s\); add takes 2 \(use zip"):
        backend.map(scalar.add)
    with pytest.raises(TypeError, match=r"zip needs a function of 2 argument\(s\); exp takes 1 \(use map\)"):
        backend.zip(scalar.exp)
    with pytest.raises(TypeError, match=r"reduce needs a function of 2 argument\(s\); exp takes 1"):
        backend.reduce(scalar.exp, 0.0)


def test_sqrt_at_signed_zero_has_the_slope_the_tensor_op_has(backend, device):
    # sqrt(-0.0) is -0.0 (IEEE, math.sqrt) and 0.5 / -0.0 is -inf: the Value engine said +inf
    assert math.copysign(1.0, scalar.sqrt(-0.0)) == -1.0
    for z in (0.0, -0.0):
        _, (g,) = grads(scalar.sqrt, z)
        x = tl.tensor([z], backend=backend, device=device, dtype="float64", requires_grad=True)
        # the warning filter, not np.errstate, which is per thread: Dask computes on its own threads
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            x.sqrt().sum().backward()
            assert g == host(x.grad)[0] == math.copysign(math.inf, z)


def test_reduce_of_integers_from_a_start_no_integer_holds(backend, device):
    # the start was cast to the integers' dtype: -inf gave a RuntimeWarning (an error here) and garbage
    empty = tl.zeros((0,), backend=backend, device=device, dtype="int64")
    assert float(backend.to_numpy(backend.reduce(scalar.max, -math.inf)(empty.data))) == -math.inf
    assert backend.reduce(scalar.max, -math.inf)(empty).item() == -math.inf
    numpy = tl.backends.get("numpy")  # (array_api_strict refuses to add floats to integers at all)
    ints = tl.tensor([1, 2, 3], backend="numpy")
    assert float(numpy.reduce(scalar.add, 0.5)(ints.data)) == 6.5 == numpy.reduce(scalar.add, 0.5)(ints).item()


@pytest.mark.parametrize("fn", [scalar.pow_da, scalar.pow_db], ids=["pow_da", "pow_db"])
@pytest.mark.parametrize("a, b", [(2.0, 3.0), (1.5, 0.0), (0.7, -1.5), (3.0, 1.0)])
def test_pow_partials_differentiate_on_values_as_central_differences(fn, a, b):
    x, y = variable(a), variable(b)
    fn(x, y).backward()
    for arg, got in enumerate((x.grad, y.grad)):
        assert got == pytest.approx(central_difference(fn, a, b, arg=arg), rel=1e-6, abs=1e-8)


def test_pow_partials_on_values_at_base_zero_follow_the_conventions_instead_of_raising():
    # pow_da(0, 1) = 1 * 0 ** 0 = 1; its plain partial b (b - 1) a^(b - 2) computed 0 ** -1.0
    x, y = variable(0.0), variable(1.0)
    scalar.pow_da(x, y).backward()
    assert (x.grad, y.grad) == (0.0, 1.0)
    x, y = variable(0.0), variable(2.5)
    scalar.pow_db(x, y).backward()  # pow_db is 0 along a == 0 (the convention): constant in b
    assert y.grad == 0.0 and math.isnan(x.grad)


# ----------------------------------- the conventions the Tensor ops follow
def test_scalar_pow_exponent_gradient_is_zero_at_base_zero():
    # the Tensor engine's (and PyTorch's) convention: d(a ** b)/db = 0 where a == 0, b == 0 included
    for b0 in (0.0, 2.0):
        a, b = scalar.variable(0.0), scalar.variable(b0)
        (a ** b).backward()
        assert b.grad == 0.0
        x, p = tl.tensor(0.0, requires_grad=True), tl.tensor(b0, requires_grad=True)
        (x ** p).backward()
        assert p.grad.item() == b.grad


def test_scalar_relu_of_nan_is_nan_in_every_form():
    # as the Tensor op (and PyTorch): a NaN is carried forward, never hidden as 0
    nan = float("nan")
    assert np.isnan(scalar.relu(nan))
    assert np.isnan(scalar.variable(nan).relu().data)
    t = tl.tensor([nan, -1.0, 2.0])
    np.testing.assert_array_equal(t.backend.map(scalar.relu)(t).data, t.relu().data)


def test_scalar_max_carries_a_nan_from_either_side():
    # as its own vectorised form (the namespace's maximum) and PyTorch's maximum
    nan = float("nan")
    assert np.isnan(scalar.max(nan, 1.0)) and np.isnan(scalar.max(1.0, nan))
    assert np.isnan(scalar.max(scalar.variable(nan), 1.0).data)
    assert scalar.max(2.0, 1.0) == 2.0 and scalar.max(1.0, 2.0) == 2.0
