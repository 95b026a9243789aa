"""`torchlight.func` on every backend: closed forms and central differences.

Second derivatives are checked against closed forms and against float64
central differences of the first derivative (itself computed by reverse
mode); jvp against central differences of f; third derivatives of a
polynomial against its closed form.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.autograd import functions as F
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.func import _transforms

EPS = 1e-6


def arr(backend, values, dtype=np.float64):
    return backend.asarray(np.asarray(values, dtype=dtype))


def host(a):
    if isinstance(a, tl.Tensor):
        return np.asarray(a.numpy(), dtype=np.float64)
    return np.asarray(tl.backends.of(a).to_numpy(a), dtype=np.float64)


def assert_array_of(result, backend, dtype=None):
    """`result` is a plain array of `backend` (not a Tensor), of `dtype` if given."""
    assert not isinstance(result, tl.Tensor)
    assert tl.backends.of(result) is backend
    if dtype is not None:
        assert result.dtype == dtype


def numeric_jacobian(g, x, backend):
    """Central differences of the array function g (R^n -> R^m) at host point x, in float64."""
    cols = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step.reshape(-1)[j] = EPS
        up, down = host(g(arr(backend, x + step))), host(g(arr(backend, x - step)))
        cols.append(((up - down) / (2 * EPS)).reshape(-1))
    return np.stack(cols, axis=-1)


def rng_matrix(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


# ----------------------------------------------------------- Hessians
def test_hessian_of_a_quadratic_is_a_plus_a_transpose(backend):
    A = rng_matrix(0, (4, 4))
    x0 = rng_matrix(1, 4)
    At = tl.tensor(arr(backend, A))
    f = lambda x: x @ At @ x  # noqa: E731
    g = func.grad(f)(arr(backend, x0))
    assert_array_of(g, backend, arr(backend, x0).dtype)
    np.testing.assert_allclose(host(g), (A + A.T) @ x0, rtol=1e-12, atol=1e-12)
    H = func.hessian(f)(arr(backend, x0))
    assert_array_of(H, backend)
    np.testing.assert_allclose(host(H), A + A.T, rtol=1e-12, atol=1e-12)


def test_hessian_of_sum_tanh_cubed(backend):
    x0 = np.array([0.3, -1.2, 0.8, 2.0])
    f = lambda x: (x.tanh() ** 3).sum()  # noqa: E731
    t = np.tanh(x0)
    np.testing.assert_allclose(host(func.grad(f)(arr(backend, x0))), 3 * t ** 2 * (1 - t ** 2), rtol=1e-12)
    H = host(func.hessian(f)(arr(backend, x0)))
    np.testing.assert_allclose(H, np.diag((6 * t - 12 * t ** 3) * (1 - t ** 2)), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(H, numeric_jacobian(func.grad(f), x0, backend), rtol=1e-6, atol=1e-8)


def logistic_problem(backend, n=12, d=3, lam=0.1):
    X = rng_matrix(2, (n, d))
    y = np.where(rng_matrix(3, n) > 0, 1.0, -1.0)
    Xt, yt = tl.tensor(arr(backend, X)), tl.tensor(arr(backend, y))  # constants as Tensors

    def loss(w):
        margins = yt * (Xt @ w)
        return -(margins.sigmoid().log().mean()) + 0.5 * lam * (w * w).sum()

    return X, y, lam, loss


def test_hessian_of_the_logistic_loss(backend):
    X, y, lam, loss = logistic_problem(backend)
    w0 = np.array([0.4, -0.3, 0.2])
    s = 1 / (1 + np.exp(-X @ w0))
    closed = X.T @ (X * (s * (1 - s))[:, None]) / len(y) + lam * np.eye(3)
    H = host(func.hessian(loss)(arr(backend, w0)))
    np.testing.assert_allclose(H, closed, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H, numeric_jacobian(func.grad(loss), w0, backend), rtol=1e-6, atol=1e-8)
    v = np.array([1.0, -2.0, 0.5])
    value, hv = func.hvp(loss, arr(backend, w0), arr(backend, v))
    assert_array_of(hv, backend)
    np.testing.assert_allclose(host(hv), closed @ v, rtol=1e-10)
    margins = y * (X @ w0)
    np.testing.assert_allclose(float(host(value)), np.mean(np.log1p(np.exp(-margins))) + 0.05 * w0 @ w0)


# --------------------------------------------------- higher derivatives
def test_third_derivative_of_a_polynomial(backend):
    p = lambda x: 3 * x ** 5 - 2 * x ** 3 + x  # noqa: E731
    for x0 in (-1.5, 0.7, 2.0):
        d3 = func.grad(func.grad(func.grad(p)))(arr(backend, x0))
        assert_array_of(d3, backend)
        np.testing.assert_allclose(float(host(d3)), 180 * x0 ** 2 - 12, rtol=1e-12)
        d2 = func.grad(func.grad(p))
        numeric = (host(d2(arr(backend, x0 + EPS))) - host(d2(arr(backend, x0 - EPS)))) / (2 * EPS)
        np.testing.assert_allclose(float(host(d3)), numeric, rtol=1e-6)


def test_python_numbers_are_differentiable_arguments():
    d = func.grad(lambda x: x ** 4)(2)
    assert isinstance(d, np.ndarray) and d.shape == () and float(d) == 32.0  # a 0-d array, not a NumPy scalar
    value, _ = func.value_and_grad(lambda x: (x * x).sum())(np.ones(2))
    assert isinstance(value, np.ndarray) and value.shape == ()
    assert float(func.grad(func.grad(lambda x: x ** 4))(2.0)) == 48.0


def test_jacobian_of_a_jacobian_is_differentiable_stacking(backend):
    x0 = np.array([0.5, -1.0, 2.0])
    T = host(func.jacobian(func.jacobian(lambda x: x ** 3))(arr(backend, x0)))
    expected = np.zeros((3, 3, 3))
    for i in range(3):
        expected[i, i, i] = 6 * x0[i]
    np.testing.assert_allclose(T, expected, rtol=1e-12, atol=1e-14)


def test_stack_gradcheck_and_gradgradcheck(backend):
    a = tl.tensor(arr(backend, [0.5, -1.0]), requires_grad=True)
    b = tl.tensor(arr(backend, [2.0, 0.3]), requires_grad=True)
    assert gradcheck(lambda p, q: F.Stack.apply(p, q * q, 0), a, b)
    assert gradgradcheck(lambda p, q: F.Stack.apply(p.tanh(), q * p, 0), a, b)


# ------------------------------------------------------- jvp, vjp, jacobian
def vector_function(backend):
    W = rng_matrix(4, (3, 4))
    Wt = tl.tensor(arr(backend, W))
    return W, lambda x: (Wt @ x).tanh() * x.sum()


def test_jvp_matches_central_differences(backend):
    W, f = vector_function(backend)
    x0, v = rng_matrix(5, 4), rng_matrix(6, 4)
    value, tangent = func.jvp(f, (arr(backend, x0),), (arr(backend, v),))
    assert_array_of(tangent, backend)
    np.testing.assert_allclose(host(value), np.tanh(W @ x0) * x0.sum(), rtol=1e-12)
    numeric = (host(f(tl.tensor(arr(backend, x0 + EPS * v)))) - host(f(tl.tensor(arr(backend, x0 - EPS * v))))) / (
        2 * EPS)
    np.testing.assert_allclose(host(tangent), numeric, rtol=1e-6, atol=1e-8)


def test_jacobian_of_a_vector_function_is_the_closed_form(backend):
    W, f = vector_function(backend)
    x0 = rng_matrix(7, 4)
    J = func.jacobian(f)(arr(backend, x0))
    assert_array_of(J, backend)
    t = np.tanh(W @ x0)
    closed = (1 - t ** 2)[:, None] * W * x0.sum() + t[:, None]
    np.testing.assert_allclose(host(J), closed, rtol=1e-12)
    # J @ v is jvp, v @ J is vjp
    v, u = rng_matrix(8, 4), rng_matrix(9, 3)
    _, jv = func.jvp(f, arr(backend, x0), arr(backend, v))
    _, vjp_fn = func.vjp(f, arr(backend, x0))
    np.testing.assert_allclose(host(jv), closed @ v, rtol=1e-10)
    np.testing.assert_allclose(host(vjp_fn(arr(backend, u))[0]), u @ closed, rtol=1e-10)
    np.testing.assert_allclose(host(vjp_fn(arr(backend, 2 * u))[0]), 2 * u @ closed, rtol=1e-10)  # reusable


def test_a_tall_jacobian_goes_by_columns_and_agrees_with_rows(backend):
    A = rng_matrix(12, (7, 2))
    At = tl.tensor(arr(backend, A))
    f = lambda x: (At @ x).tanh() * x[0]  # noqa: E731  (7 outputs, 2 inputs: by columns)
    x0 = np.array([0.4, -0.9])
    t = np.tanh(A @ x0)
    closed = (1 - t ** 2)[:, None] * A * x0[0] + np.outer(t, [1.0, 0.0])
    np.testing.assert_allclose(host(func.jacobian(f)(arr(backend, x0))), closed, rtol=1e-12, atol=1e-14)
    trace = _transforms._Trace("jacobian", f, (arr(backend, x0),), (0,), False)
    (rows,) = _transforms._jacobian_blocks(trace, trace.outputs[0], by="rows")
    (columns,) = _transforms._jacobian_blocks(trace, trace.outputs[0], by="columns")
    np.testing.assert_allclose(host(columns), host(rows), rtol=1e-12, atol=1e-14)
    # second derivatives through the columns: d2 f_i / dx_j dx_k
    T = host(func.jacobian(func.jacobian(f))(arr(backend, x0)))
    assert T.shape == (7, 2, 2)
    numeric = numeric_jacobian(func.jacobian(f), x0, backend).reshape(7, 2, 2)
    np.testing.assert_allclose(T, numeric, rtol=1e-6, atol=1e-8)


class _CubeOnce(tl.autograd.Function):
    """x**3 whose backward refuses to be recorded: the Jacobian must go by rows."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.data ** 3

    @staticmethod
    def backward(ctx, g):
        if tl.is_grad_enabled():
            raise NotImplementedError("no second derivative")
        (x,) = ctx.saved_tensors
        return g * x * x * 3.0


@pytest.mark.parametrize("cube", ["plain map", "once-differentiable Function"])
def test_a_tall_jacobian_of_a_once_differentiable_op(backend, cube):
    """A plain map's backward is linear in the seed (columns work); a backward that refuses recording goes by rows."""
    if cube == "plain map":
        op = lambda x: x.backend.map(lambda v: v * v * v)(x)  # noqa: E731  (map knows no second derivative)
    else:
        op = _CubeOnce.apply
    x0 = np.array([0.5, 2.0])
    f = lambda x: (op(x).reshape(2, 1) * tl.tensor(arr(backend, np.ones((1, 3))))).reshape(6)  # noqa: E731
    J = host(func.jacobian(f)(arr(backend, x0)))
    np.testing.assert_allclose(J, np.repeat(np.diag(3 * x0 ** 2), 3, axis=0), rtol=1e-12)


def test_jacobian_shapes_tuples_and_matrices(backend):
    x0, y0 = rng_matrix(10, (2, 3)), rng_matrix(11, 3)
    f = lambda x, y: (x * y, (x ** 2).sum(1))  # noqa: E731
    (jxx, jxy), (jsx, jsy) = func.jacobian(f, argnums=(0, 1))(arr(backend, x0), arr(backend, y0))
    assert host(jxx).shape == (2, 3, 2, 3) and host(jxy).shape == (2, 3, 3)
    np.testing.assert_allclose(host(jxx), np.einsum("ik,jl,l->ijkl", np.eye(2), np.eye(3), y0))
    np.testing.assert_allclose(host(jxy), np.einsum("jl,ij->ijl", np.eye(3), x0))
    np.testing.assert_allclose(host(jsx), np.einsum("ik,il->ikl", np.eye(2), 2 * x0))
    np.testing.assert_allclose(host(jsy), np.zeros((2, 3)))


def test_vjp_of_a_tuple_output_takes_a_tuple_cotangent(backend):
    x0 = np.array([1.0, 2.0])
    value, vjp_fn = func.vjp(lambda x: (x * x, x.sum()), arr(backend, x0))
    assert isinstance(value, tuple) and len(value) == 2
    (g,) = vjp_fn((arr(backend, [1.0, 1.0]), arr(backend, 3.0)))
    np.testing.assert_allclose(host(g), 2 * x0 + 3.0)
    with pytest.raises(ValueError, match="tuple of as many cotangents"):
        vjp_fn(arr(backend, [1.0, 1.0]))
    with pytest.raises(ValueError, match="cotangent 0 has shape"):
        vjp_fn((arr(backend, [1.0]), arr(backend, 3.0)))


# --------------------------------------------------- argnums, has_aux
def test_argnums_tuples_and_negative_indices(backend):
    x0, y0 = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    f = lambda x, y: (x * y ** 2).sum()  # noqa: E731
    gx, gy = func.grad(f, argnums=(0, 1))(arr(backend, x0), arr(backend, y0))
    np.testing.assert_allclose(host(gx), y0 ** 2)
    np.testing.assert_allclose(host(gy), 2 * x0 * y0)
    np.testing.assert_allclose(host(func.grad(f, argnums=-1)(arr(backend, x0), arr(backend, y0))), 2 * x0 * y0)
    (hxy,) = func.hessian(f, argnums=(0,))(arr(backend, x0), arr(backend, y0))
    np.testing.assert_allclose(host(hxy[0]), np.zeros((2, 2)))
    for bad in (2, (0, 0), ()):
        with pytest.raises(ValueError, match="argnums"):
            func.grad(f, argnums=bad)(arr(backend, x0), arr(backend, y0))


def test_has_aux(backend):
    x0 = np.array([1.0, -2.0])

    def f(x):
        y = x * x
        return y.sum(), {"y": y, "n": 2}

    g, aux = func.grad(f, has_aux=True)(arr(backend, x0))
    np.testing.assert_allclose(host(g), 2 * x0)
    assert_array_of(aux["y"], backend)
    assert aux["n"] == 2
    (value, aux), g = func.value_and_grad(f, has_aux=True)(arr(backend, x0))
    assert float(host(value)) == 5.0 and host(aux["y"]).tolist() == [1.0, 4.0]
    _, vjp_fn, aux = func.vjp(lambda x: f(x), arr(backend, x0), has_aux=True)
    J, aux = func.jacobian(lambda x: (x * x, x.sum()), has_aux=True)(arr(backend, x0))
    np.testing.assert_allclose(host(J), np.diag(2 * x0))
    with pytest.raises(TypeError, match="pair"):
        func.grad(lambda x: x.sum(), has_aux=True)(arr(backend, x0))


# ------------------------------------------------------ kinds in, kinds out
def test_tensors_in_give_tensors_out_and_dtypes_are_kept(backend):
    x32 = arr(backend, [1.0, 2.0], dtype=np.float32)
    g = func.grad(lambda x: (x ** 2).sum())(x32)
    assert_array_of(g, backend, x32.dtype)
    t = tl.tensor(arr(backend, [1.0, 2.0]))
    gt = func.grad(lambda x: (x ** 2).sum())(t)
    assert isinstance(gt, tl.Tensor) and gt.backend is backend and not gt.requires_grad
    value, hv = func.hvp(lambda x: (x ** 3).sum(), (t,), (t,))
    assert isinstance(value, tl.Tensor) and isinstance(hv, tuple) and host(hv[0]).tolist() == [6.0, 24.0]


def test_result_of_a_requires_grad_tensor_stays_in_its_graph(backend):
    x = tl.tensor(arr(backend, [0.5, -0.7]), requires_grad=True)
    g = func.grad(lambda z: (z.tanh() ** 3).sum())(x)
    assert g.requires_grad
    g.sum().backward()  # the row sums of the Hessian
    t = np.tanh([0.5, -0.7])
    np.testing.assert_allclose(host(x.grad), (6 * t - 12 * t ** 3) * (1 - t ** 2), rtol=1e-12)


def test_a_closure_is_held_fixed(backend):
    x = tl.tensor(arr(backend, 3.0), requires_grad=True)
    inner = func.grad(lambda y: x * y)(x)  # d/dy (x y) = x, not 2 x
    np.testing.assert_allclose(host(inner), 3.0)
    # d/dx [x * d/dy (x + y)] = 1 (no perturbation confusion)
    outer = func.grad(lambda u: u * func.grad(lambda y: u + y)(arr(backend, 5.0)))(arr(backend, 2.0))
    assert float(host(outer)) == 1.0
    # d/dx [d/dy (x * y)] at any y = 1: the inner result depends on the outer x
    mixed = func.grad(lambda u: func.grad(lambda y: u * y)(arr(backend, 5.0)))(arr(backend, 2.0))
    assert float(host(mixed)) == 1.0


def test_transforms_work_under_no_grad_and_leave_grad_mode_alone(backend):
    x0 = arr(backend, [1.0, 2.0])
    with tl.no_grad():
        H = func.hessian(lambda x: (x ** 3).sum())(x0)
        assert not tl.is_grad_enabled()
    np.testing.assert_allclose(host(H), np.diag([6.0, 12.0]))


def test_unused_arguments_and_constant_functions_give_zeros(backend):
    x0 = arr(backend, [1.0, 2.0])
    assert host(func.grad(lambda x: tl.tensor(arr(backend, 4.0)))(x0)).tolist() == [0.0, 0.0]
    gx, gy = func.grad(lambda x, y: (x * 2.0).sum(), argnums=(0, 1))(x0, x0)
    assert host(gy).tolist() == [0.0, 0.0]
    assert host(func.hessian(lambda x: (x * 2.0).sum())(x0)).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    _, jv = func.jvp(lambda x: x * 0.0 + 1.0, x0, x0)
    _, hv = func.hvp(lambda x: (x * 2.0).sum(), x0, x0)
    assert host(jv).tolist() == [0.0, 0.0] and host(hv).tolist() == [0.0, 0.0]


def test_errors_name_the_transform(backend):
    x0 = arr(backend, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"grad: f must return a one-element Tensor .* shape \(2,\)"):
        func.grad(lambda x: x * 2.0)(x0)
    with pytest.raises(TypeError, match="dtype"):
        func.grad(lambda x: x.sum())(backend.asarray([1, 2]))
    with pytest.raises(TypeError, match="argument 0 is a str"):
        func.grad(lambda x: x)("a")
    with pytest.raises(ValueError, match="tangent 0 has shape"):
        func.jvp(lambda x: x, (x0,), (arr(backend, [1.0]),))
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        func.jvp(lambda x, y: x, (x0, x0), (x0,))
    with pytest.raises(ValueError, match="vjp: no primals"):
        func.vjp(lambda: tl.tensor(1.0))
    with pytest.raises(ValueError, match="out of range for 0 positional"):
        func.grad(lambda: tl.tensor(1.0))()


def test_results_stay_on_the_arguments_device():
    xp = tl.backends.get("array_api_strict").xp
    device = xp.Device("device1")
    x = xp.asarray([0.5, -1.0], device=device)
    f = lambda z: (z.tanh() ** 3).sum() + 2.0  # noqa: E731
    results = [func.grad(f)(x), func.hessian(f)(x), func.jacobian(lambda z: z * z)(x),
               func.hvp(f, x, x)[1], func.jvp(lambda z: z * z, x, x)[1], func.vjp(lambda z: z * z, x)[1](x)[0],
               func.grad(lambda z: tl.tensor(xp.asarray(1.0, device=device)))(x)]
    assert all(r.device == device for r in results)
