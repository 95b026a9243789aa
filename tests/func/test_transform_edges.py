"""torchlight.func, autograd.grad/gradcheck and the shape methods: what a differential hunt
against torch.func and torch.autograd (torch 2.13, CPU, float64) found.

Each test pins one disagreement that was a bug here, or one edge the hunt
checked that nothing else pinned. Expected values are closed forms, NumPy
or central differences (gradcheck), never PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.autograd import Function, GradcheckError, gradcheck, gradgradcheck


# ------------------------------------------------ jacobian of an empty argument
def test_jacobian_by_columns_of_an_empty_argument_is_an_empty_block():
    # 3 outputs > 0 inputs + 2, so it goes by columns: zero columns to stack (it raised IndexError)
    c = tl.tensor(np.array([1.0, 2.0, 3.0]))
    jac = func.jacobian(lambda a: a.sum() * c)(np.zeros(0))
    assert jac.shape == (3, 0)
    c4 = tl.tensor(np.array([1.0, 2.0, 3.0, 4.0]))  # 4 > 0 + 1 + 2: by columns again
    a, b = func.jacobian(lambda a, b: (a.sum() + b) * c4, argnums=(0, 1))(np.zeros((0, 2)), np.array(2.0))
    assert a.shape == (4, 0, 2)
    np.testing.assert_allclose(b, [1.0, 2.0, 3.0, 4.0])


# ------------------------------------------------ gradcheck's inputs and outputs
class _ScaledSin(Function):
    """sin(a) * k for a number k."""

    @staticmethod
    def forward(ctx, a, k):
        ctx.save_for_backward(a)
        ctx.k = k
        return a.backend.xp.sin(a.data) * k

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return a.cos() * g * ctx.k, None


class _ForgetfulScaledSin(_ScaledSin):
    """A wrong gradient to catch: the backward forgets k."""

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return a.cos() * g, None


def test_gradcheck_holds_a_non_tensor_input_fixed():
    # torch.autograd.gradcheck passes numbers and tuples through; here they raised AttributeError
    x = tl.tensor([0.5, 2.0], requires_grad=True)
    assert gradcheck(lambda a, n: a ** n, x, 3)
    assert gradgradcheck(lambda a, n: a ** n, x, 3)
    assert gradcheck(lambda a, shape: a.reshape(shape).exp(), x, (2, 1))
    assert gradcheck(_ScaledSin.apply, x, 3.0)
    with pytest.raises(GradcheckError):
        gradcheck(_ForgetfulScaledSin.apply, x, 3.0)


def test_gradcheck_of_a_function_returning_a_tuple_checks_every_output():
    x = tl.tensor([0.5, -1.0, 2.0], requires_grad=True)
    two = lambda a: (a.sin(), (a * a).sum())  # noqa: E731
    assert gradcheck(two, x)
    assert gradgradcheck(two, x)
    assert gradcheck(lambda a: (a.exp(), a.argmax()), x)  # an integer output has no gradient to check
    with pytest.raises(GradcheckError):
        gradcheck(lambda a: (a.sin(), _ForgetfulScaledSin.apply(a, 3.0)), x)


def test_gradgradcheck_of_a_constant_output_passes_as_gradcheck_does():
    # the gradient is 0 and so is its derivative (it raised: autograd.grad of an output without history)
    x = tl.tensor([0.5, 2.0], requires_grad=True)
    assert gradcheck(lambda a: tl.tensor([1.0, 2.0]), x)
    assert gradgradcheck(lambda a: tl.tensor([1.0, 2.0]), x)


# ------------------------------------------------ ops along one dimension
@pytest.mark.parametrize("op", [lambda x, d: x.softmax(d), lambda x, d: x.log_softmax(d), lambda x, d: x.cumsum(d),
                                lambda x, d: x.transpose(d, 0), lambda x, d: x.flatten(d), lambda x, d: x.split(1, d)])
@pytest.mark.parametrize("dim", [(0, 1), (1,), ()])
def test_an_op_along_one_dim_refuses_a_sequence_of_dims(op, dim):
    # softmax((0, 1)) normalized over dim 0 alone and cumsum(()) copied x, silently (PyTorch: TypeError)
    x = tl.tensor(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="one int"):
        op(x, dim)


def test_an_op_along_one_dim_still_takes_numpy_integers_and_0_d_tensors_dim_0_and_minus_1():
    x = tl.tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(x.cumsum(np.int64(-1)).numpy(), np.cumsum(x.numpy(), axis=-1))
    s = tl.tensor(2.0)
    assert s.softmax(-1).item() == 1.0 and s.log_softmax(0).item() == 0.0 and s.cumsum(0).item() == 2.0


# ------------------------------------------------ clamp's number bounds promote as the operators do
def test_clamp_of_an_integer_tensor_by_a_float_bound_promotes_as_x_times_a_float_does():
    # it clipped with the bound cast to int32 (2.5 -> 2) and stayed int32; NumPy and PyTorch give floats
    n = np.array([1, 2, 3, 4, 5, 6], dtype=np.int32)
    t = tl.tensor(n)
    for got, want in [(t.clamp(2.5, 4), np.clip(n, 2.5, 4)), (t.clamp(max=3.7), np.clip(n, None, 3.7)),
                      (t.clamp(min=-0.5, max=4), np.clip(n, -0.5, 4)), (t.clamp(2, 4), np.clip(n, 2, 4))]:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    mask = np.array([True, False])
    got, want = tl.tensor(mask).clamp(2, 4), np.clip(mask, 2, 4)  # the default integer, as mask + 2
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_reshape_refuses_a_float_size():
    # int() truncated it: reshape(2.9, 12) of 24 elements was (2, 12); NumPy and PyTorch raise TypeError
    x = tl.tensor(np.arange(24.0))
    for shape in [(2.5, -1), (2.9, 12), (2.0, 12)]:
        with pytest.raises(TypeError):
            x.reshape(*shape)
    assert x.reshape(np.int64(2), -1).shape == (2, 12)
    assert x.view((np.int32(4), 6)).shape == (4, 6)


# ------------------------------------------------ edges checked against closed forms
def test_hessian_with_negative_argnums_counts_from_the_end():
    # f(a, b) = sum(sin(a) b^2): H_aa = diag(-sin(a) b^2), H_ab = diag(2 b cos a), H_bb = diag(2 sin a)
    # (torch.func.hessian(f, argnums=-1) gives zeros in torch 2.13; this pins the closed form)
    a, b = np.array([0.3, -1.1, 2.0]), np.array([1.5, 0.4, -0.7])
    f = lambda a, b: (a.sin() * b ** 2).sum()  # noqa: E731
    np.testing.assert_allclose(func.hessian(f, argnums=-1)(a, b), np.diag(2 * np.sin(a)))
    (haa, hab), (hba, hbb) = func.hessian(f, argnums=(0, -1))(a, b)
    np.testing.assert_allclose(haa, np.diag(-np.sin(a) * b ** 2))
    np.testing.assert_allclose(hab, np.diag(2 * b * np.cos(a)))
    np.testing.assert_allclose(hba, np.diag(2 * b * np.cos(a)))
    np.testing.assert_allclose(hbb, np.diag(2 * np.sin(a)))
    mixed = func.jacobian(func.grad(f, argnums=-1), argnums=-2)(a, b)
    assert isinstance(mixed, np.ndarray)
    np.testing.assert_allclose(mixed, np.diag(2 * b * np.cos(a)))


_B = np.array([1.5, 0.4, -0.7])
_F = lambda a, b: (a.sin() * b ** 2).sum()  # noqa: E731
_NESTED = {  # an outer transform of `a` around an inner one at the array _B; closed forms of d/da of the inner result
    "grad of grad in another argument": (lambda a: func.grad(_F, argnums=1)(a, _B).sum(),
                                         lambda a: 2 * _B * np.cos(a)),
    "grad of grad of a closure": (lambda a: func.grad(lambda b: (a.sin() * b ** 2).sum())(_B).sum(),
                                  lambda a: 2 * _B * np.cos(a)),
    "grad of jvp": (lambda a: func.jvp(lambda b: (a * b * b).sum(), (_B,), (_B,))[1], lambda a: 2 * _B ** 2),
    "grad of hvp": (lambda a: func.hvp(lambda b: (a * b ** 3).sum(), _B, _B)[1].sum(), lambda a: 6 * _B ** 2),
    "grad of vjp": (lambda a: func.vjp(lambda b: a * b * b, _B)[1](_B)[0].sum(), lambda a: 2 * _B ** 2),
    "grad of jacobian": (lambda a: func.jacobian(lambda b: (a * b * b).sum())(_B).sum(), lambda a: 2 * _B),
    "grad of jacobian by columns": (lambda a: func.jacobian(lambda b: a[:, None] * b[None, :] ** 2)(_B).sum(),
                                    lambda a: np.full(3, 2 * _B.sum())),
}


@pytest.mark.parametrize("name", sorted(_NESTED))
def test_a_transform_of_arrays_around_one_at_an_array_returns_arrays(name):
    # the inner transform's own new leaf (made for _B) counted as a Tensor of an enclosing computation:
    # the outer result came back as a Tensor requiring grad (np.asarray of it raised), its graph kept alive
    outer, closed_form = _NESTED[name]
    a = np.array([0.3, -1.1, 2.0])
    g = func.grad(outer)(a)
    assert isinstance(g, np.ndarray), type(g)
    np.testing.assert_allclose(g, closed_form(a))


def test_autograd_grad_leaves_a_retained_non_leaf_grad_alone():
    # PyTorch 2.13 fills y.grad here; torchlight's autograd.grad accumulates into no .grad (docs/decisions.md)
    x = tl.tensor([0.5, -1.2], requires_grad=True)
    y = (x * 2.0).retain_grad()
    (gx,) = tl.autograd.grad((y ** 2).sum(), x)
    np.testing.assert_allclose(gx.numpy(), 8 * x.numpy())
    assert y.grad is None and x.grad is None


@pytest.mark.parametrize("reduce", [lambda x: x.sum(()), lambda x: x.mean(()), lambda x: x.max(()),
                                    lambda x: x.prod(()), lambda x: x.var((), correction=0)])
def test_reducing_over_no_dims_reduces_nothing_as_numpy(reduce):
    # np.sum(x, axis=()) is x; PyTorch's x.sum(()) sums everything (docs/decisions.md)
    n = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    x = tl.tensor(n, requires_grad=True)
    out = reduce(x)
    assert out.shape == n.shape
    assert gradcheck(reduce, x)


# ------------------------------------------------ .grad across backward calls
def test_a_plain_backward_keeps_the_history_of_a_grad_made_with_create_graph():
    # the sum was made with grad mode off, so x.grad lost the graph of its 3 x^2 part (PyTorch keeps it)
    n = np.array([0.5, -1.2, 2.0])
    x = tl.tensor(n, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    (x ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * n ** 2 + 2 * n)
    (h,) = tl.autograd.grad(x.grad.sum(), x)  # d/dx of 3 x^2; the plain 2 x is a constant
    np.testing.assert_allclose(h.numpy(), 6 * n)


def test_transpose_without_dims_reverses_them_all_as_numpy():
    # it swapped the last two (x.transpose() of a (2, 3, 4) was (2, 4, 3)); NumPy's is (4, 3, 2), PyTorch needs dims
    n = np.arange(24.0).reshape(2, 3, 4)
    x = tl.tensor(n, requires_grad=True)
    np.testing.assert_array_equal(x.transpose().numpy(), n.transpose())
    np.testing.assert_array_equal(x.transpose(0, -1).numpy(), np.swapaxes(n, 0, -1))
    assert gradcheck(lambda t: t.transpose() * t.transpose().exp(), x)
    with pytest.raises(TypeError, match="two dims"):
        x.transpose(1)


# ------------------------------------------------ jacobian by columns needs a backward differentiable in g
class _ArraySin(Function):
    """sin with a backward written on arrays, as user Functions often are: right, but not
    differentiable in its incoming gradient (so the columns' u -> J^T u comes back unconnected)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.backend.xp.sin(a.data)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return tl.tensor(np.cos(a.data) * g.data)


def test_jacobian_through_a_backward_written_on_arrays_is_right_by_columns_too():
    # 6 outputs > 2 inputs + 2 sends it by columns, which gave zeros silently (by rows it was right)
    x = np.array([0.3, -1.1])
    jac = func.jacobian(lambda a: _ArraySin.apply(tl.stack([a, a * 2.0, a * 3.0])))(x)
    np.testing.assert_allclose(jac, np.stack([np.diag(k * np.cos(k * x)) for k in (1.0, 2.0, 3.0)]))
    np.testing.assert_allclose(func.jacobian(lambda a: tl.stack([a, a, a]).floor())(x), np.zeros((3, 2, 2)))


# ------------------------------------------------ nested tuples of outputs
def _diag3(d):
    """The (n, n, n) array with d on its diagonal i == j == k."""
    n = len(d)
    out = np.zeros((n, n, n))
    out[np.arange(n), np.arange(n), np.arange(n)] = d
    return out


def test_hessian_of_a_tuple_valued_function_of_two_arguments():
    # jacobian(jacobian(f, (0, 1)), (0, 1)): the inner result nests a tuple over inputs in a tuple over
    # outputs, which the outer jacobian refused (TypeError); torch.func.hessian gives these blocks
    u, v = np.array([0.3, -1.1, 2.0]), np.array([1.5, 0.4, -0.7])
    of_s, of_w = func.hessian(lambda u, v: ((u * v ** 3).sum(), u.sin() * v), argnums=(0, 1))(u, v)
    (s_uu, s_uv), (s_vu, s_vv) = of_s
    np.testing.assert_allclose(s_uu, np.zeros((3, 3)))
    np.testing.assert_allclose(s_uv, np.diag(3 * v ** 2))
    np.testing.assert_allclose(s_vu, np.diag(3 * v ** 2))
    np.testing.assert_allclose(s_vv, np.diag(6 * u * v))
    (w_uu, w_uv), (w_vu, w_vv) = of_w
    np.testing.assert_allclose(w_uu, _diag3(-np.sin(u) * v))
    np.testing.assert_allclose(w_uv, _diag3(np.cos(u)))
    np.testing.assert_allclose(w_vu, _diag3(np.cos(u)))
    np.testing.assert_allclose(w_vv, np.zeros((3, 3, 3)))


def test_jacobian_jvp_and_vjp_of_nested_tuples_of_outputs():
    x, t = np.array([0.3, -1.1]), np.array([2.0, 5.0])
    f = lambda a: ((a, [a * 2.0]), a.sum())  # noqa: E731
    jac = func.jacobian(f)(x)
    assert type(jac) is tuple and type(jac[0]) is tuple and type(jac[0][1]) is list  # (unpacking takes any kind)
    (j_a, [j_2a]), j_sum = jac
    np.testing.assert_allclose(j_a, np.eye(2))
    np.testing.assert_allclose(j_2a, 2 * np.eye(2))
    np.testing.assert_allclose(j_sum, np.ones(2))
    value, tangent_out = func.jvp(f, (x,), (t,))
    assert type(value[0][1]) is list and type(tangent_out[0][1]) is list
    (p_a, [p_2a]), p_sum = tangent_out
    np.testing.assert_allclose(value[0][1][0], 2 * x)
    np.testing.assert_allclose(p_a, t)
    np.testing.assert_allclose(p_2a, 2 * t)
    np.testing.assert_allclose(p_sum, t.sum())
    _, vjp_fn = func.vjp(f, x)
    (g,) = vjp_fn(((t, [t]), np.array(3.0)))
    np.testing.assert_allclose(g, t + 2 * t + 3.0)
    with pytest.raises(ValueError, match="3 outputs"):
        vjp_fn((t, t))
