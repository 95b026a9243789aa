"""The Tensor API of DESIGN.md: construction, factories, attributes, host interop, moves, operators."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl


def test_tensor_from_numbers_lists_and_tuples(backend, device):
    t = tl.tensor([[1.0, 2.0], (3.0, 4.0)], backend=backend, device=device)
    assert t.shape == (2, 2) and t.ndim == 2 and t.size == 4
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert t.backend is backend and t.device == device
    assert t.dtype == backend.default_float(device)  # float64 on NumPy, float32 where the library says so
    s = tl.tensor(2.5, backend=backend, device=device)
    assert s.shape == () and s.item() == 2.5 and float(s) == 2.5
    assert tl.tensor((1.0, 2.0), backend=backend, device=device, dtype="float32").dtype == backend.xp.float32
    assert tl.tensor([1, 2], backend=backend, device=device).dtype == backend.xp.int64


def test_tensor_of_a_list_of_tensors_stacks_them(backend, device):
    """As torch.tensor([t0, t1]): the parts' dtype is kept and, with no backend asked, theirs is used."""
    a, b = (tl.tensor(v, backend=backend, device=device) for v in (1.0, 2.0))
    row = tl.tensor([0.5, 1.5], backend=backend, device=device, dtype="float32")
    t = tl.tensor([a, b])
    assert t.backend is backend and t.device == device and t.tolist() == [1.0, 2.0] and t.dtype == a.dtype
    pair = tl.tensor((row, row))
    assert pair.shape == (2, 2) and pair.dtype == backend.xp.float32
    assert tl.tensor([[a, b], [b, a]]).tolist() == [[1.0, 2.0], [2.0, 1.0]]
    assert tl.tensor([a, 3.0]).tolist() == [1.0, 3.0]  # mixed with numbers: the tensor's value
    assert tl.tensor([a, b], backend="numpy", dtype="float32").dtype == np.float32
    with pytest.raises(RuntimeError, match="tl.stack for a list of tensors"):
        tl.tensor([a, tl.tensor(2.0, requires_grad=True, backend=backend, device=device)])


def test_tensor_of_a_list_of_tensors_keeps_their_device_and_takes_foreign_arrays():
    """array_api_strict has two devices and promotes no int with float: the parts are moved and cast first."""
    b1 = tl.tensor([1.0, 2.0], backend="array_api_strict", device="device1")
    cpu = tl.tensor([5.0, 6.0], backend="array_api_strict", device="CPU_DEVICE")
    for made in (tl.tensor([b1, b1]), tl.tensor([b1, [3.0, 4.0]]), tl.tensor([b1[0], 3.0]), tl.tensor([b1, cpu])):
        assert made.backend is b1.backend and made.device == b1.device
    assert tl.tensor([b1, cpu], device="CPU_DEVICE").tolist() == [[1.0, 2.0], [5.0, 6.0]]
    mixed = tl.tensor([np.array([3.0, 4.0]), b1])  # a NumPy array among them joins their backend
    assert mixed.backend is b1.backend and mixed.tolist() == [[3.0, 4.0], [1.0, 2.0]]
    ints = tl.tensor([1, 2], backend="array_api_strict")
    made = tl.tensor([ints, cpu], dtype="float64")
    assert made.tolist() == [[1.0, 2.0], [5.0, 6.0]] and made.dtype == made.backend.xp.float64


@pytest.mark.parametrize("name", ["torch", "jax", "dask"])
def test_tensor_of_a_list_of_tensors_on_libraries_that_cannot_read_one(name):
    """torch.asarray cannot take a list of its own 1-d tensors (nor a 0-d one through len()): stacked instead."""
    pytest.importorskip(name)
    be = tl.backends.get(name)
    row = tl.tensor([0.5, 1.5], backend=be)
    for made in (tl.tensor([row, row]), tl.tensor([row, row], backend=name)):
        assert made.backend is be and made.tolist() == [[0.5, 1.5], [0.5, 1.5]]
    assert tl.tensor([row[0], row[1]], backend=name).tolist() == [0.5, 1.5]


def test_the_default_backend_is_numpy():
    assert tl.get_default_backend() == "numpy"
    t = tl.tensor([1.0])
    assert t.backend.name == "numpy" and isinstance(t.data, np.ndarray)


def test_an_existing_array_is_wrapped_without_a_copy():
    a = np.arange(6.0).reshape(2, 3).T  # a non-contiguous view
    t = tl.tensor(a, requires_grad=True)
    assert t.data is a and np.shares_memory(t.data, a)
    xp = tl.backends.get("array_api_strict").xp
    s = xp.asarray([1.0, 2.0])
    ts = tl.tensor(s)
    assert ts.data is s and ts.backend.name == "array_api_strict"


def test_asking_for_another_backend_or_dtype_copies():
    a = np.arange(3.0)
    t = tl.tensor(a, backend="array_api_strict")
    assert t.backend.name == "array_api_strict" and t.tolist() == [0.0, 1.0, 2.0]
    f = tl.tensor(a, dtype="float32")
    assert f.dtype == np.float32 and not np.shares_memory(f.data, a)


def test_attributes_of_a_leaf_and_a_result(backend, device):
    x = tl.tensor([1.0, 2.0], backend=backend, device=device, requires_grad=True)
    assert x.is_leaf and x.requires_grad and x.history is None and x.grad is None
    y = x * 2
    assert not y.is_leaf and y.requires_grad and y.history.last_fn.__name__ == "Mul"
    assert y.history.inputs[0] is x
    assert "grad_fn=<Mul>" in repr(y) and "requires_grad=True" in repr(x)


def test_host_interop(backend, device):
    t = tl.tensor([[1.0, 2.0], [3.0, 4.0]], backend=backend, device=device)
    host = t.numpy()
    assert isinstance(host, np.ndarray) and host.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    if backend.is_host(t.data):
        assert np.asarray(t).tolist() == host.tolist()
        assert np.asarray(t, dtype=np.float32).dtype == np.float32
    else:  # implicit conversion only on the host; .numpy() is the explicit copy
        with pytest.raises(TypeError, match=r"\.numpy\(\)"):
            np.asarray(t)
    assert len(t) == 2 and [row.tolist() for row in t] == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(TypeError, match="0-d"):
        len(tl.tensor(1.0, backend=backend, device=device))
    assert bool(tl.tensor(1.0, backend=backend, device=device)) and int(tl.tensor(3.0)) == 3


def test_numpy_is_no_copy_on_the_numpy_backend():
    a = np.ones(3)
    assert tl.tensor(a).numpy() is a


def test_dlpack_round_trip():
    t = tl.tensor([1.0, 2.0])
    back = np.from_dlpack(t)
    assert np.shares_memory(back, t.data)
    assert t.__dlpack_device__() == t.data.__dlpack_device__()
    loss = (t * t).sum() * 1.0  # a 0-d result (NumPy makes it a scalar)
    assert np.from_dlpack(loss).tolist() == 5.0


def test_numpy_functions_refuse_a_tensor_that_requires_grad():
    """`np.exp(x)` would hand back a plain array: the gradient through it silently lost."""
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    for leave in (np.exp, np.asarray, np.from_dlpack, lambda t: np.add(np.ones(2), t)):
        with pytest.raises(RuntimeError, match="requires grad: the result would carry no gradient"):
            leave(x)
    y = x * 2.0  # a non-leaf too, and inside torchlight.func.grad
    with pytest.raises(RuntimeError, match="requires grad"):
        np.tanh(y)
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.func.grad(lambda t: (np.exp(t) * t).sum())(np.array([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="tl.stack for a list of tensors"):
        tl.tensor([x[0], x[1]])  # (it used to detach them)
    assert tl.stack([x[0], x[1]]).history is not None
    assert np.exp(x.detach()).tolist() == np.exp([1.0, 2.0]).tolist()  # on purpose: allowed
    assert x.numpy().tolist() == [1.0, 2.0] and np.from_dlpack(x.detach()).tolist() == [1.0, 2.0]
    assert (np.array([3.0, 4.0]) * x).history is not None  # NumPy defers to the Tensor's operator


def test_item_assignment_writes_the_tensor_and_keeps_the_gradient_path():
    """It used to be refused; it is a recorded write now (tests/tensor/test_writes.py has the rules)."""
    x = tl.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2.0
    y[y < 0] = 0.0
    assert y.tolist() == [2.0, 0.0, 6.0]
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0]


def test_to_moves_between_backends_and_devices_and_keeps_the_gradient_path():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    assert x.to() is x and x.to(backend="numpy") is x
    s = x.to(backend="array_api_strict")
    assert s.backend.name == "array_api_strict" and s.tolist() == [1.0, 2.0] and s.requires_grad
    (s * 3.0).sum().backward()
    assert x.grad.backend.name == "numpy" and x.grad.tolist() == [3.0, 3.0]
    strict = tl.backends.get("array_api_strict")
    d = s.to(device=strict.xp.Device("device1"))
    assert d.device == strict.xp.Device("device1") and d.backend is strict


# --------------------------------------------------------------- factories
@pytest.mark.parametrize("dtype", [None, "float32"])
def test_factories(backend, device, dtype):
    expected = backend.default_float(device) if dtype is None else backend.xp.float32
    kw = dict(backend=backend, device=device, dtype=dtype)
    for t, values in [(tl.zeros(2, 3, **kw), np.zeros((2, 3))), (tl.ones((2,), **kw), np.ones(2)),
                      (tl.full((2, 2), 7.0, **kw), np.full((2, 2), 7.0)),
                      (tl.arange(0.0, 3.0, 1.0, **kw), np.arange(3.0))]:
        assert t.dtype == expected and t.backend is backend and t.device == device
        np.testing.assert_array_equal(t.numpy(), values)
    z = tl.zeros(2, requires_grad=True, **kw)
    assert z.requires_grad and z.is_leaf
    like = tl.ones_like(z)
    assert like.shape == (2,) and like.dtype == z.dtype and like.tolist() == [1.0, 1.0] and not like.requires_grad
    assert tl.zeros_like(z, requires_grad=True).requires_grad
    assert tl.arange(4, backend=backend, device=device).tolist() == [0, 1, 2, 3]


def test_random_factories_are_seedable(backend, device):
    tl.manual_seed(7)
    a = tl.rand(3, 2, backend=backend, device=device)
    b = tl.randn(4, backend=backend, device=device, dtype="float32")
    tl.manual_seed(7)
    assert tl.rand(3, 2, backend=backend, device=device).tolist() == a.tolist()
    assert tl.randn(4, backend=backend, device=device, dtype="float32").tolist() == b.tolist()
    assert a.shape == (3, 2) and b.dtype == backend.xp.float32
    assert np.all((a.numpy() >= 0) & (a.numpy() < 1))
    if backend.name in ("numpy", "array_api_strict"):  # a NumPy Generator (other libraries take their own)
        g1, g2 = np.random.default_rng(3), np.random.default_rng(3)
        assert tl.randn(5, backend=backend, device=device, generator=g1).tolist() == \
            tl.randn(5, backend=backend, device=device, generator=g2).tolist()
    assert tl.rand(2, backend=backend, device=device, requires_grad=True).requires_grad


# --------------------------------------------------------------- operators
def test_python_numbers_mix_in_on_either_side_and_keep_the_dtype(backend, device):
    x = tl.tensor([1.0, 2.0], backend=backend, device=device, dtype="float32", requires_grad=True)
    for y in [x + 1, 1 + x, x - 1.5, 1.5 - x, x * 2, 2 * x, x / 2, 2 / x, x ** 2, 2 ** x, -x, +x]:
        assert y.dtype == backend.xp.float32 and y.requires_grad
    assert (2 - x).tolist() == [1.0, 0.0] and (2 / x).tolist() == [2.0, 1.0] and (2 ** x).tolist() == [2.0, 4.0]
    assert +x is x


def test_shape_methods_and_aliases(backend, device):
    x = tl.tensor(np.arange(6.0).reshape(2, 3), backend=backend, device=device, requires_grad=True)
    assert x.T.shape == (3, 2) and x.mT.shape == (3, 2) and x.transpose(0, 1).shape == (3, 2)
    assert x.permute(1, 0).tolist() == x.T.tolist() and x.permute((1, 0)).shape == (3, 2)
    assert x.reshape(3, 2).shape == (3, 2) and x.reshape((-1,)).shape == (6,) and x.view(-1, 2).shape == (3, 2)
    assert x.expand(4, 2, 3).shape == (4, 2, 3) and x.broadcast_to((1, 2, 3)).shape == (1, 2, 3)
    assert x[:, :1].expand(-1, 4).shape == (2, 4)
    s = tl.tensor(3.0, backend=backend, device=device)
    assert s.T.shape == () and s.reshape(1, 1).shape == (1, 1)
    with pytest.raises(IndexError, match=r"mT: a batch of matrices needs 2 or more dimensions.*\(3,\)"):
        _ = tl.tensor([1.0, 2.0, 3.0], backend=backend, device=device).mT


def test_reductions_with_dims_and_keepdim(backend, device):
    x = tl.tensor([[1.0, 5.0], [3.0, 2.0]], backend=backend, device=device)
    assert x.sum().item() == 11.0 and x.sum(0).tolist() == [4.0, 7.0]
    assert x.sum(1, keepdim=True).tolist() == [[6.0], [5.0]]
    assert x.mean().item() == 2.75 and x.mean(-1).tolist() == [3.0, 2.5]
    assert x.max().item() == 5.0 and x.max(0).values.tolist() == [3.0, 5.0]
    assert x.max(1, keepdim=True).values.shape == (2, 1)
    assert x.sum((0, 1)).item() == 11.0


def test_mean_of_an_integer_tensor_is_a_float(backend, device):
    m = tl.tensor([1, 2], backend=backend, device=device).mean()
    assert m.item() == 1.5 and backend.is_floating(m.dtype)
