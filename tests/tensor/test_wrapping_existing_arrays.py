"""Drop-in use on existing arrays: no copy in, gradients of the same library,
device and dtype out, DLPack moves, host interop, and the mixing errors."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import backends


def strict():
    return backends.get("array_api_strict")


def loss(x):
    return ((x * x).tanh() * 3.0 + x.exp()).sum()


def loss_grad(x_host):
    return 3.0 * (1.0 - np.tanh(x_host**2) ** 2) * 2.0 * x_host + np.exp(x_host)


# ------------------------------------------------------------- no copy in
def test_numpy_array_is_wrapped_without_a_copy():
    a = np.arange(6.0).reshape(2, 3)
    t = tl.tensor(a, requires_grad=True)
    assert t.data is a and np.shares_memory(t.data, a)
    assert t.backend.name == "numpy" and t.device == "cpu"


def test_strict_array_is_wrapped_without_a_copy():
    xp = strict().xp
    a = xp.asarray([1.0, 2.0], device=xp.Device("device1"))
    t = tl.tensor(a, requires_grad=True)
    assert t.data is a
    assert t.backend is strict() and t.device == xp.Device("device1")


def test_torch_tensor_is_wrapped_without_a_copy():
    torch = pytest.importorskip("torch")
    a = torch.arange(3.0, dtype=torch.float64)
    t = tl.tensor(a, requires_grad=True)
    assert t.data is a and t.backend.name == "torch" and t.device == torch.device("cpu")


def test_jax_array_is_wrapped_without_a_copy():
    jnp = pytest.importorskip("jax.numpy")
    a = jnp.arange(3.0)
    t = tl.tensor(a, requires_grad=True)
    assert t.data is a and t.backend.name == "jax"


def test_asking_for_another_dtype_or_backend_is_a_copy():
    a = np.arange(3.0)
    as32 = tl.tensor(a, dtype="float32")
    assert as32.dtype == np.float32 and not np.shares_memory(as32.data, a)
    moved = tl.tensor(a, backend="array_api_strict", device="device1")
    assert moved.backend is strict() and moved.device == strict().xp.Device("device1")
    assert moved.tolist() == [0.0, 1.0, 2.0]


# --------------------------------------------- gradients of the same kind out
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grad_is_an_array_of_the_same_library_device_and_dtype(backend, device, dtype):
    if dtype not in str(backend.xp.__array_namespace_info__().dtypes(device=device)):
        pytest.skip(f"{device} has no {dtype}")
    x_host = np.array([[0.5, -1.0, 0.25], [1.5, -0.75, 0.0]])
    array = backend.asarray(x_host.astype(dtype), device=device)
    x = tl.tensor(array, requires_grad=True)
    loss(x).backward()
    grad = x.grad.data
    assert type(grad) is type(array)
    assert backend.device_of(grad) == backend.device_of(array)
    assert grad.dtype == array.dtype and tuple(grad.shape) == tuple(array.shape)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(x.grad.numpy(), loss_grad(x_host), rtol=tol, atol=tol)


def test_grad_of_a_non_default_float_dtype_stays_that_dtype(backend, device):
    array = backend.asarray(np.array([1.0, 2.0], dtype=np.float32), device=device)
    x = tl.tensor(array, requires_grad=True)
    (x * 2.0 + 1.0).mean().backward()
    assert x.grad.dtype == array.dtype
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


# ---------------------------------------------------------------- moves
def _move_pairs():
    pairs = [("numpy", "array_api_strict"), ("array_api_strict", "numpy")]
    for lib in ("torch", "jax"):
        pairs += [("numpy", lib), (lib, "numpy")]
    return pairs


@pytest.mark.parametrize("source, target", _move_pairs())
def test_to_another_backend_is_differentiable(source, target):
    for name in (source, target):
        usable, reason = backends.available()[name]
        if not usable:
            pytest.skip(reason)
    if "jax" in (source, target):
        pytest.importorskip("jax").config.update("jax_enable_x64", True)
    x_host = np.array([0.5, -1.0, 2.0])
    x = tl.tensor(x_host, backend=source, requires_grad=True)
    moved = x.to(backend=target)
    assert moved.backend.name == target and moved.dtype == moved.backend.resolve_dtype("float64")
    np.testing.assert_array_equal(moved.numpy(), x_host)
    loss(moved).backward()
    assert x.grad.backend.name == source and type(x.grad.data) is type(x.data)
    np.testing.assert_allclose(x.grad.numpy(), loss_grad(x_host), rtol=1e-12)


def test_numpy_to_torch_goes_through_dlpack_without_a_copy():
    pytest.importorskip("torch")
    a = np.arange(4.0)
    moved = tl.tensor(a).to(backend="torch")
    assert np.shares_memory(moved.data.numpy(), a)
    back = moved.to(backend="numpy")
    assert np.shares_memory(back.data, a)


def test_numpy_to_strict_goes_through_dlpack_without_a_copy():
    a = np.arange(4.0)
    moved = tl.tensor(a).to(backend="array_api_strict")
    assert np.shares_memory(np.from_dlpack(moved.data), a)


def test_to_another_device_is_differentiable_and_copies():
    xp = strict().xp
    x = tl.tensor(xp.asarray([1.0, -2.0]), requires_grad=True)
    on1 = x.to(device="device1")
    assert on1.device == xp.Device("device1") and on1.data is not x.data
    (on1 * on1).sum().backward()
    assert x.grad.device == xp.Device("CPU_DEVICE")
    assert x.grad.tolist() == [2.0, -4.0]
    assert on1.to(device=on1.device) is on1


def test_to_an_unknown_device_names_the_devices():
    with pytest.raises(tl.BackendError, match="has no device 'gpu7'"):
        tl.tensor([1.0], backend="array_api_strict").to(device="gpu7")
    with pytest.raises(tl.BackendError, match="only the device 'cpu'"):
        tl.tensor([1.0], backend="numpy").to(device="gpu0", backend="numpy")


# --------------------------------------------------------- host interop
def test_array_protocol_on_cpu_backends(backend, device):
    if not backend.is_host(backend.asarray([0.0], device=device)):
        pytest.skip(f"{device} is not host memory")
    t = tl.tensor([1.0, 2.5], backend=backend, device=device)
    out = np.asarray(t)
    assert isinstance(out, np.ndarray) and out.tolist() == [1.0, 2.5]
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    assert not np.shares_memory(np.array(t, copy=True), t.numpy())


def test_array_protocol_refuses_a_non_host_device():
    t = tl.tensor([1.0, 2.0], backend="array_api_strict", device="device1")
    with pytest.raises(TypeError, match=r"call \.numpy\(\)"):
        np.asarray(t)
    assert t.numpy().tolist() == [1.0, 2.0]


def test_dlpack_protocol(backend, device):
    t = tl.tensor([[1.0, 2.0], [3.0, 4.0]], backend=backend, device=device)
    if not hasattr(t.data, "__dlpack_device__"):
        pytest.skip(f"{backend.name} arrays do not speak DLPack (Dask: lazy, no memory to share)")
    assert t.__dlpack_device__() == t.data.__dlpack_device__()
    if t.__dlpack_device__()[0] == 1:  # kDLCPU
        np.testing.assert_array_equal(np.from_dlpack(t), [[1.0, 2.0], [3.0, 4.0]])


def test_dlpack_into_torch():
    torch = pytest.importorskip("torch")
    t = tl.tensor(np.arange(3.0))
    assert torch.from_dlpack(t).tolist() == [0.0, 1.0, 2.0]


def test_item_and_tolist_are_the_only_implicit_host_transfers(backend, device, monkeypatch):
    calls = []
    original = backend.to_numpy

    def counting(array):
        calls.append(1)
        return original(array)

    monkeypatch.setattr(backend, "to_numpy", counting)
    x = tl.tensor([[0.5, -1.0], [2.0, 0.25]], backend=backend, device=device, requires_grad=True)
    y = (x @ x).relu().log_softmax(1)[:, 0].max() + x.sigmoid().mean()
    y.backward(create_graph=True)
    x.grad.sum().backward()
    assert calls == [], "the engine moved data to the host"
    assert isinstance(y.item(), float) and len(calls) == 1
    assert isinstance(x.grad.tolist(), list) and len(calls) == 2


# --------------------------------------------------------------- errors
def test_two_backends_in_one_op_name_both_and_suggest_to():
    a = tl.tensor([1.0, 2.0])
    b = tl.tensor([1.0, 2.0], backend="array_api_strict")
    for op in (lambda: a + b, lambda: a @ b, lambda: a * b):
        with pytest.raises(tl.BackendError) as info:
            op()
        message = str(info.value)
        assert "'numpy'" in message and "'array_api_strict'" in message and ".to(backend=" in message


def test_two_devices_in_one_op_name_both_and_suggest_to():
    a = tl.tensor([1.0, 2.0], backend="array_api_strict", requires_grad=True)
    b = tl.tensor([1.0, 2.0], backend="array_api_strict", device="device1")
    with pytest.raises(tl.BackendError) as info:
        a * b
    message = str(info.value)
    assert "CPU_DEVICE" in message and "device1" in message and ".to(device=" in message
    assert a.grad is None
