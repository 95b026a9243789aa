"""Every bad input of DESIGN.md's list: a clear exception naming the op and the shapes/backends,
raised before any state changes (no result, inputs and gradients untouched, graph still usable)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import torchlight as tl


def leaf(values, backend, device):
    return tl.tensor(values, backend=backend, device=device, requires_grad=True)


def assert_untouched(*tensors):
    """Grad mode restored; every leaf keeps its old data and gradient."""
    assert tl.is_grad_enabled()
    for t, data, grad in tensors:
        assert t.tolist() == data
        assert (t.grad.tolist() if t.grad is not None else None) == grad


# ---------------------------------------------------------- shape mismatch
@pytest.mark.parametrize("name, op", [("Add", operator.add), ("Sub", operator.sub), ("Mul", operator.mul),
                                      ("Div", operator.truediv), ("Pow", operator.pow)])
def test_binary_shape_mismatch_names_the_op_and_both_shapes(name, op, backend, device):
    a = leaf([[1.0, 2.0, 3.0]] * 2, backend, device)
    b = leaf([1.0, 2.0], backend, device)
    a.zero_grad_()
    with pytest.raises(ValueError, match=rf"{name}.*\(2, 3\).*\(2,\)"):
        op(a, b)
    assert_untouched((a, [[1.0, 2.0, 3.0]] * 2, [[0.0] * 3] * 2), (b, [1.0, 2.0], None))


def test_matmul_shape_mismatch(backend, device):
    a = leaf(np.ones((2, 3)), backend, device)
    with pytest.raises(ValueError, match=r"MatMul.*\(2, 3\).*\(2, 3\).*3 and 2"):
        a @ leaf(np.ones((2, 3)), backend, device)
    with pytest.raises(ValueError, match=r"MatMul.*\(2, 3\).*\(\).*0-d"):
        a @ leaf(1.0, backend, device)
    with pytest.raises(ValueError, match=r"MatMul.*\(2,\).*\(3,\)"):
        leaf([1.0, 2.0], backend, device) @ leaf([1.0, 2.0, 3.0], backend, device)
    with pytest.raises(ValueError, match=r"MatMul.*\(2,\).*\(3,\)"):
        tl.tensor(np.ones((2, 2, 3)), backend=backend, device=device) @ tl.tensor(
            np.ones((3, 3, 4)), backend=backend, device=device)


def test_reshape_expand_and_mse_loss_shape_errors(backend, device):
    x = leaf([1.0, 2.0, 3.0, 4.0], backend, device)
    with pytest.raises(ValueError, match=r"[Rr]eshape.*\(4,\).*\(3,\)"):
        x.reshape(3)
    with pytest.raises(ValueError, match=r"[Rr]eshape.*\(4,\).*\(3, -1\)"):
        x.view(3, -1)
    with pytest.raises(ValueError, match=r"(BroadcastView|expand).*\(4,\).*\(2, 3\)"):
        x.expand(2, 3)
    with pytest.raises(ValueError, match=r"(BroadcastView|expand).*\(4,\).*\(\)"):
        x.broadcast_to(())
    with pytest.raises(ValueError, match=r"mse_loss.*\(4,\).*\(2,\)"):
        x.mse_loss(tl.tensor([1.0, 2.0], backend=backend, device=device))
    assert_untouched((x, [1.0, 2.0, 3.0, 4.0], None))


def test_wrong_gradient_shape_for_backward(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    y = x * 3.0
    with pytest.raises(ValueError, match=r"backward.*\(3,\).*\(2,\)"):
        y.backward(tl.tensor([1.0, 1.0, 1.0], backend=backend, device=device))
    with pytest.raises(ValueError, match=r"backward.*\(\).*\(2,\)"):
        y.backward(tl.tensor(1.0, backend=backend, device=device))
    assert_untouched((x, [1.0, 2.0], None))
    y.backward()  # the graph was not released by the failed calls
    assert x.grad.tolist() == [3.0, 3.0]


# ------------------------------------------------------ backends, devices
def test_two_backends_in_one_op_names_both_and_suggests_to():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([1.0, 2.0], backend="array_api_strict", requires_grad=True)
    for op, name in [(operator.add, "Add"), (operator.mul, "Mul"), (operator.matmul, "MatMul"),
                     (operator.lt, "lt"), (lambda u, v: u.mse_loss(v), "")]:
        with pytest.raises(tl.BackendError, match=rf"{name}.*'numpy'.*'array_api_strict'.*\.to\(") as info:
            op(a, b)
        assert "backend" in str(info.value)
    with pytest.raises(tl.BackendError, match=r"backward.*'numpy'.*'array_api_strict'"):
        (a * 2).backward(b)
    assert_untouched((a, [1.0, 2.0], None), (b, [1.0, 2.0], None))


def test_two_devices_in_one_op_names_both():
    strict = tl.backends.get("array_api_strict")
    cpu = strict.xp.Device("CPU_DEVICE")
    other = strict.xp.Device("device1")
    a = tl.tensor([1.0, 2.0], backend="array_api_strict", device=cpu, requires_grad=True)
    b = tl.tensor([1.0, 2.0], backend="array_api_strict", device=other, requires_grad=True)
    for op, name in [(operator.add, "Add"), (operator.mul, "Mul"), (operator.matmul, "MatMul"), (operator.gt, "gt")]:
        with pytest.raises(tl.BackendError, match=rf"{name}.*CPU_DEVICE.*device1.*\.to\(device="):
            op(a, b)
    moved = a.to(device=other)
    assert moved.device == other
    (moved * b).sum().backward()  # after an explicit move the op works, and grads come home
    assert a.grad.device == cpu and b.grad.device == other


# ------------------------------------------------------------------ dtypes
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_requires_grad_on_an_integer_or_boolean_dtype(dtype, backend, device):
    with pytest.raises(TypeError, match=rf"requires_grad.*floating.*{dtype}"):
        tl.tensor([1, 0], dtype=dtype, backend=backend, device=device, requires_grad=True)
    with pytest.raises(TypeError, match=rf"requires_grad.*{dtype}"):
        tl.zeros(2, dtype=dtype, backend=backend, device=device, requires_grad=True)
    t = tl.tensor([1, 0], dtype=dtype, backend=backend, device=device)
    with pytest.raises(TypeError, match=rf"requires_grad.*{dtype}"):
        t.requires_grad_()
    assert not t.requires_grad


# ---------------------------------------------------------------- backends
def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(tl.BackendError, match=r"unknown backend 'nump'.*numpy"):
        tl.tensor([1.0], backend="nump")
    with pytest.raises(tl.BackendError, match="unknown backend"):
        tl.zeros(2, backend="nump")
    assert tl.get_default_backend() == "numpy"


def test_unusable_cupy_says_what_to_install():
    try:
        import cupy  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("CuPy is installed here")
    with pytest.raises(tl.BackendUnavailableError, match=r"cupy.*not usable.*cuda12") as info:
        tl.tensor([1.0], backend="cupy")
    assert "cuda13" in str(info.value)


# ---------------------------------------------------------------- others
def test_backward_of_a_tensor_without_history(backend, device):
    with pytest.raises(RuntimeError, match="does not require grad"):
        tl.tensor([1.0], backend=backend, device=device).backward()


def test_max_of_an_empty_tensor_and_a_bad_dim(backend, device):
    with pytest.raises(ValueError, match=r"max.*\(0,\).*empty"):
        tl.zeros(0, backend=backend, device=device).max()
    x = leaf([1.0, 2.0], backend, device)
    with pytest.raises(IndexError, match="dim 1 is out of range"):
        x.sum(1)


@pytest.mark.parametrize("name, call", [
    ("sum", lambda x: x.sum(2)), ("mean", lambda x: x.mean(dim=-3)), ("prod", lambda x: x.prod(2)),
    ("var", lambda x: x.var(2)), ("std", lambda x: x.std(2)), ("logsumexp", lambda x: x.logsumexp(2)),
    ("max", lambda x: x.max(dim=2)), ("min", lambda x: x.amin(2)), ("argmax", lambda x: x.argmax(2)),
    ("norm", lambda x: x.norm(dim=2)), ("any", lambda x: x.any(2)), ("all", lambda x: x.all(2)),
    ("count_nonzero", lambda x: x.count_nonzero(2)), ("squeeze", lambda x: x.squeeze(2)),
    ("flip", lambda x: x.flip(2)), ("roll", lambda x: x.roll(1, 2)), ("sort", lambda x: x.sort(dim=2)),
    ("cumsum", lambda x: x.cumsum(2)), ("vector_norm", lambda x: tl.linalg.vector_norm(x, dim=2)),
])
def test_an_out_of_range_dim_names_the_function(name, call, backend, device):
    x = leaf(np.ones((2, 3)), backend, device)
    with pytest.raises(IndexError, match=rf"^{name}: dim -?\d is out of range for a tensor with 2 dimension"):
        call(x)


def test_a_dim_named_twice_or_not_an_int_names_the_function(backend, device):
    x = leaf(np.ones((2, 3)), backend, device)
    with pytest.raises(ValueError, match=r"^sum: dim \(0, -2\) names a dimension twice"):
        x.sum((0, -2))
    for call, name in ((lambda: x.sum(1.5), "sum"), (lambda: x.mean((0, "1")), "mean"),
                       (lambda: tl.linalg.vector_norm(x, dim=1.5), "vector_norm")):
        with pytest.raises(TypeError, match=rf"^{name}: dim must be None, an int or a sequence of ints, not "):
            call()


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_dim_out_of_range(name, backend, device):
    """An out-of-range dim raises (it wrapped round: softmax(2) of a matrix ran over dim 0)."""
    x = leaf(np.ones((2, 3)), backend, device)
    for dim in (2, -3):
        with pytest.raises(IndexError, match=f"dim {dim} is out of range for a tensor with 2"):
            getattr(x, name)(dim)
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        getattr(tl.nn.functional, name)(x, 2)
    np.testing.assert_allclose(getattr(x, name)(-2).numpy(), getattr(x, name)(0).numpy())


def test_item_of_a_tensor_with_many_elements(backend, device):
    with pytest.raises(ValueError, match="item: the tensor has 2 elements"):
        tl.tensor([1.0, 2.0], backend=backend, device=device).item()


def test_permute_and_transpose_dims_are_checked(backend, device):
    x = leaf(np.ones((1, 2)), backend, device)
    for dims in [(0,), (0, 0), (0, 2), (1, 0, 2)]:
        with pytest.raises(ValueError, match=r"permute: dims .* shape \(1, 2\)"):
            x.permute(*dims)
    with pytest.raises(IndexError, match="dim 2 is out of range for a tensor with 2"):
        x.transpose(0, 2)
    assert tl.tensor(1.0, backend=backend, device=device).transpose(0, -1).shape == ()


def test_truth_value_of_a_tensor_with_many_elements(backend, device):
    x = tl.tensor([1.0, 2.0], backend=backend, device=device)
    with pytest.raises(ValueError, match="truth value of a tensor with 2 elements is ambiguous"):
        bool(x == x)
    assert bool(tl.tensor([3.0], backend=backend, device=device) > 2.0)


def test_assigning_a_gradient_checks_shape_dtype_and_backend(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    x.grad = [0.5, 0.25]  # host data is made an array of x's backend, dtype and device
    assert x.grad.tolist() == [0.5, 0.25] and x.grad.dtype == x.dtype and x.grad.backend is backend
    with pytest.raises(ValueError, match=r"grad: a gradient of shape \(3,\) for a tensor of shape \(2,\)"):
        x.grad = tl.tensor([1.0, 2.0, 3.0], backend=backend, device=device)
    narrow = "float32" if x.dtype == backend.xp.float64 else "float64"
    with pytest.raises(TypeError, match=f"grad: a gradient of dtype .*{narrow}"):
        x.grad = tl.tensor([1.0, 2.0], backend=backend, device=device, dtype=narrow)
    other = "numpy" if backend.name != "numpy" else "array_api_strict"
    with pytest.raises(tl.BackendError, match="grad: tensors on two backends"):
        x.grad = tl.tensor([1.0, 2.0], backend=other)
    assert x.grad.tolist() == [0.5, 0.25]
    x.grad = None
    assert x.grad is None
