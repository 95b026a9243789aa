"""torchlight.func's transforms at their edges: empty arguments, negative argnums, transforms nested
around arrays, backwards written on arrays, nested tuples of outputs, keyword arguments.

Found by a differential hunt against torch.func and torch.autograd (torch 2.13, CPU, float64).

Each test pins one disagreement that was a bug here, or one edge the hunt
checked that nothing else pinned. Expected values are closed forms, NumPy
or central differences (gradcheck), never PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.autograd import Function


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


# ------------------------------------------------------- keyword arguments
def test_transformed_functions_pass_keyword_arguments_through_undifferentiated():
    # as torch.func.grad and jax.grad: keywords go to f as they are (arrays as constant Tensors)
    def f(a, *, scale=1.0, shift=None):
        return ((a * a).sum() + (a * shift).sum()) * scale

    x, shift = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    np.testing.assert_allclose(func.grad(f)(x, scale=3.0, shift=shift), 3.0 * (2 * x + shift))
    value, g = func.value_and_grad(f)(x, scale=2.0, shift=shift)
    np.testing.assert_allclose([value, *g], [2.0 * (5.0 - 1.5), *(2.0 * (2 * x + shift))])
    np.testing.assert_allclose(func.hessian(f)(x, scale=3.0, shift=shift), 6.0 * np.eye(2))
    np.testing.assert_allclose(func.jacobian(lambda a, *, k: a * k)(x, k=shift), np.diag(shift))
