"""The array ops user code reaches for: where, stack, cat/concat, clamp/clip,
min/argmin, squeeze/unsqueeze/flatten.

The conformance database checks their values and gradients on every
backend; these tests pin what it does not: aliases, `Tensor.where`, how
numbers and conditions are lifted, the error messages, PyTorch's
conventions (against PyTorch itself where it is installed), and that
`func.jacobian` still stacks through the generalized `Stack`.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.autograd import functions as F
from torchlight.autograd import gradcheck, gradgradcheck


def t(backend, values, requires_grad=False, dtype=np.float64):
    return tl.tensor(backend.asarray(np.asarray(values, dtype=dtype)), requires_grad=requires_grad)


def host(x):
    return np.asarray(x.numpy(), dtype=np.float64)


# ------------------------------------------------------------------ names
def test_free_functions_are_exported_and_concat_is_cat():
    assert {"where", "stack", "cat", "concat"} <= set(tl.__all__)
    assert tl.concat is tl.cat
    assert tl.Tensor.clip is tl.Tensor.clamp


# ------------------------------------------------------------------ where
def test_tensor_where_is_tl_where_with_self_as_input(backend):
    x = t(backend, [[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
    y = t(backend, [10.0, 20.0], requires_grad=True)
    cond = x > 0.0
    method = x.where(cond, y)
    free = tl.where(cond, x, y)
    assert host(method).tolist() == host(free).tolist() == [[1.0, 20.0], [10.0, 4.0]]
    (method * 2.0).sum().backward()
    assert host(x.grad).tolist() == [[2.0, 0.0], [0.0, 2.0]]
    assert host(y.grad).tolist() == [2.0, 2.0]  # summed back over the broadcast rows


def test_where_lifts_numbers_to_the_tensors_dtype(backend):
    x = t(backend, [1.0, -1.0], dtype=np.float32)
    out = tl.where(x > 0.0, x, 0)
    assert out.dtype == x.dtype
    assert host(out).tolist() == [1.0, 0.0]
    left = tl.where(x > 0.0, 5.0, x)
    assert left.dtype == x.dtype and host(left).tolist() == [5.0, -1.0]


def test_where_with_two_numbers_takes_the_condition_backend(backend):
    cond = tl.tensor(backend.asarray(np.array([True, False, True])))
    out = tl.where(cond, 1.0, 0)
    assert out.backend is backend
    assert backend.xp.isdtype(out.dtype, "real floating")
    assert host(out).tolist() == [1.0, 0.0, 1.0]


def test_where_accepts_a_list_or_array_condition():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert tl.where([True, False, True], x, -x).tolist() == [1.0, -2.0, 3.0]
    assert x.where(np.array([False, True, False]), 0.0).tolist() == [0.0, 2.0, 0.0]


def test_where_condition_must_be_boolean():
    x = tl.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="where: the condition must be boolean, not float64"):
        tl.where(x, x, 0.0)


def test_where_shape_error_names_all_three_shapes():
    x = tl.tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"condition \(4,\), input \(2, 3\) and other \(\)"):
        tl.where(np.ones(4, dtype=bool), x, 0.0)


def test_where_second_derivative(backend):
    cond = backend.asarray(np.array([True, False, True]))
    a = t(backend, [0.5, -1.0, 2.0], requires_grad=True)
    b = t(backend, [1.5, 0.3, -0.7], requires_grad=True)
    assert gradgradcheck(lambda p, q: tl.where(cond, p * p * q, q.tanh()), a, b)


# ------------------------------------------------------------ stack and cat
def test_stack_and_cat_grads_against_closed_forms(backend):
    a = t(backend, [[1.0, 2.0]], requires_grad=True)
    b = t(backend, [[3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    out = tl.cat([a, b * b], dim=0)
    np.testing.assert_array_equal(host(out), [[1.0, 2.0], [9.0, 16.0], [25.0, 36.0]])
    weights = t(backend, [[1.0, -1.0], [2.0, 0.5], [3.0, 1.0]])
    (out * weights).sum().backward()
    np.testing.assert_array_equal(host(a.grad), [[1.0, -1.0]])
    np.testing.assert_array_equal(host(b.grad), [[12.0, 4.0], [30.0, 12.0]])

    c = t(backend, [1.0, 2.0, 3.0], requires_grad=True)
    s = tl.stack([c, c * 10.0], dim=-1)
    assert s.shape == (3, 2)
    (s * t(backend, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    np.testing.assert_array_equal(host(c.grad), [21.0, 43.0, 65.0])


def test_cat_accepts_any_iterable_and_a_single_part():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    assert tl.cat(p for p in (x, x)).tolist() == [1.0, 2.0, 1.0, 2.0]
    assert tl.stack((x,)).shape == (1, 2)


@pytest.mark.parametrize("op", [tl.stack, tl.cat], ids=["stack", "cat"])
def test_join_errors_name_the_op(op):
    name = op.__name__
    x = tl.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match=f"{name}: expects a non-empty sequence"):
        op([])
    with pytest.raises(TypeError, match=f"{name}: expects a sequence of Tensors, not one Tensor"):
        op(x)
    with pytest.raises(TypeError, match=f"{name}: element 1 is a list, not a Tensor"):
        op([x, [1.0, 2.0]])
    with pytest.raises(ValueError, match=rf"{name}: shapes \(2, 1\) and \(2, 3\) \(tensors 0 and 1\)"):
        op([x.reshape(2, 1), tl.zeros(2, 3)])
    other = tl.tensor(x.numpy(), backend="array_api_strict")
    with pytest.raises(tl.BackendError, match=f"{name}: tensors on two backends, 'numpy' and 'array_api_strict'"):
        op([x, other])


def test_stack_and_concat_functions_take_the_axis_last(backend):
    p = t(backend, [[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]], requires_grad=True)
    q = t(backend, [[2.0, 0.3, 1.0], [-0.4, 0.6, 1.2]], requires_grad=True)
    np.testing.assert_array_equal(host(F.Stack.apply(p, q, 0)), np.stack([host(p), host(q)]))
    np.testing.assert_array_equal(host(F.Stack.apply(p, q, 2)), np.stack([host(p), host(q)], axis=2))
    assert gradcheck(lambda a, b: F.Stack.apply(a, b * b, 1), p, q)
    assert gradgradcheck(lambda a, b: F.Stack.apply(a.tanh(), b * a, 2), p, q)
    assert gradgradcheck(lambda a, b: F.Concat.apply(a * b, b.tanh(), 1), p, q)


def test_jacobian_still_stacks_rows_through_stack(backend):
    x0 = np.array([0.5, -1.0, 2.0])
    x = backend.asarray(x0)
    jac = func.jacobian(lambda v: tl.cat([v * v, tl.stack([v.sum(), v.max()])]))(x)
    expected = np.vstack([np.diag(2 * x0), np.ones(3), [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(np.asarray(backend.to_numpy(jac)), expected, rtol=1e-12)
    nested = func.jacobian(func.jacobian(lambda v: v ** 3))(x)  # rows with history: Stack.apply(*rows, 0)
    assert np.asarray(backend.to_numpy(nested))[2, 2, 2] == pytest.approx(12.0)


# ------------------------------------------------------------- clamp / clip
def test_clamp_passes_the_gradient_at_the_bounds(backend):
    x = t(backend, [-2.0, -1.0, 0.0, 1.0, 2.0], requires_grad=True)
    out = x.clamp(-1.0, 1.0)
    assert host(out).tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0]
    out.sum().backward()
    assert host(x.grad).tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_clamp_with_min_above_max_gives_max_and_no_gradient(backend):
    x = t(backend, [-2.0, 0.5, 3.0], requires_grad=True)
    out = x.clip(1.0, 0.0)
    assert host(out).tolist() == [0.0, 0.0, 0.0]
    out.sum().backward()
    assert host(x.grad).tolist() == [0.0, 0.0, 0.0]


def test_clamp_tensor_bounds_get_the_gradient_where_they_are_the_result(backend):
    x = t(backend, [[-2.0, 0.5, 3.0]], requires_grad=True)
    lo = t(backend, [[-1.0], [1.0]], requires_grad=True)
    hi = t(backend, 2.0, requires_grad=True)
    out = x.clamp(lo, hi)
    np.testing.assert_array_equal(host(out), [[-1.0, 0.5, 2.0], [1.0, 1.0, 2.0]])
    out.sum().backward()
    assert host(x.grad).tolist() == [[0.0, 1.0, 0.0]]
    assert host(lo.grad).tolist() == [[1.0], [2.0]]
    assert host(hi.grad).tolist() == 2.0


def test_clamp_needs_a_bound():
    with pytest.raises(ValueError, match="clamp: give at least one of min and max"):
        tl.tensor([1.0]).clamp()


def test_clamp_second_derivative_is_zero_inside():
    x = tl.tensor([-2.0, 0.3, 2.0], requires_grad=True)
    (g,) = tl.autograd.grad((x * x).clamp(max=1.0).sum(), [x], create_graph=True)
    assert g.tolist() == [0.0, 0.6, 0.0]
    g.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0]


# ------------------------------------------------------------- min, argmin
def test_min_ties_share_the_gradient_and_min_along_a_dim_returns_values_and_indices(backend):
    x = t(backend, [[1.0, -3.0, -3.0], [2.0, 0.0, 5.0]], requires_grad=True)
    values, indices = x.min(dim=1)
    assert host(indices).tolist() == [1, 1]
    assert isinstance(values, tl.Tensor) and host(values).tolist() == [-3.0, 0.0]
    values.sum().backward()
    assert host(x.grad).tolist() == [[0.0, 0.5, 0.5], [0.0, 1.0, 0.0]]
    assert host(x.argmin(dim=1)).tolist() == [1, 1]
    assert host(x.argmin()).tolist() == 1


def test_min_of_an_empty_tensor_raises():
    with pytest.raises(ValueError, match=r"min: the tensor of shape \(0,\) is empty"):
        tl.tensor(np.zeros(0)).min()


# --------------------------------------------------- squeeze, unsqueeze, flatten
def test_squeeze_of_a_dim_that_is_not_one_is_a_no_op():
    x = tl.tensor(np.zeros((2, 1, 3)), requires_grad=True)
    assert x.squeeze(0).shape == (2, 1, 3)
    assert x.squeeze((0, 1)).shape == (2, 3)
    assert x.squeeze().shape == (2, 3)
    assert x.squeeze(0).history is not None  # still a node of the graph, as in PyTorch


def test_shape_method_errors():
    x = tl.tensor(np.zeros((2, 3)))
    with pytest.raises(IndexError, match=r"unsqueeze: dim -4 is out of range for a tensor of shape \(2, 3\)"):
        x.unsqueeze(-4)
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        x.squeeze(2)
    with pytest.raises(ValueError, match="flatten: start_dim 1 comes after end_dim 0"):
        x.flatten(1, 0)


def test_flatten_and_unsqueeze_shapes():
    x = tl.tensor(np.arange(24.0).reshape(2, 3, 4))
    assert x.flatten().shape == (24,)
    assert x.flatten(1).shape == (2, 12)
    assert x.flatten(0, 1).shape == (6, 4)
    assert tl.tensor(2.0).flatten().shape == (1,)
    assert tl.tensor(2.0).unsqueeze(-1).shape == (1,)
    assert x.unsqueeze(3).shape == (2, 3, 4, 1)


# ------------------------------------------------------ PyTorch agreement
def test_conventions_match_pytorch():
    torch = pytest.importorskip("torch")
    values = np.array([[-2.0, -1.0, 0.0], [1.0, 0.5, 2.0]])  # the bounds, and no ties (torch min(dim) picks one)
    for method, args in (("clamp", (-1.0, 1.0)), ("clamp", (1.0, -1.0)), ("clamp", (None, 1.0)),
                         ("min", ()), ("min", (1,)), ("squeeze", (0,)), ("flatten", ()), ("unsqueeze", (1,))):
        ours = tl.tensor(values.copy(), requires_grad=True)
        theirs = torch.tensor(values.copy(), requires_grad=True)
        out_ours, out_theirs = getattr(ours, method)(*args), getattr(theirs, method)(*args)
        if isinstance(out_theirs, tuple):  # min(dim) returns (values, indices), in both
            assert out_ours.indices.tolist() == out_theirs.indices.tolist()
            out_ours, out_theirs = out_ours.values, out_theirs.values
        np.testing.assert_array_equal(out_ours.numpy(), out_theirs.detach().numpy(), err_msg=f"{method}{args}")
        weights = np.arange(1.0, 1.0 + out_ours.size).reshape(out_ours.shape)
        (out_ours * weights).sum().backward()
        (out_theirs * torch.tensor(weights)).sum().backward()
        np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy(), err_msg=f"{method}{args}")


def test_join_dim_may_be_a_numpy_integer():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    assert tl.stack([x, x], dim=np.int64(1)).shape == (2, 2)
    assert tl.cat([x.reshape(1, 2), x.reshape(1, 2)], dim=np.int64(-1)).shape == (1, 4)
    with pytest.raises(TypeError):
        tl.stack([x, x], dim=1.0)
