"""The CuPy backend: its error paths everywhere, its GPU paths where a CUDA
device is visible (skipped with the reason otherwise, never passed).

The whole unit suite also runs on CuPy with `pytest tests --backend cupy`
(scripts/gpu_check.sh does that on a GPU machine).
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import torchlight as tl
from torchlight import backends
from torchlight.backends import cupy as cupy_backend

REASON = cupy_backend.unusable_reason()
needs_gpu = pytest.mark.skipif(REASON is not None, reason=f"CuPy GPU paths: {REASON}")


@pytest.fixture
def fresh_cupy(monkeypatch):
    """The registry with no cached cupy instance (restored afterwards)."""
    monkeypatch.delitem(backends._instances, "cupy", raising=False)
    yield
    backends._instances.pop("cupy", None)


def _fake_cupy(device_count):
    fake = types.ModuleType("cupy")
    runtime = types.SimpleNamespace(getDeviceCount=device_count)
    fake.cuda = types.SimpleNamespace(runtime=runtime)
    fake.ndarray = type("ndarray", (), {})  # array_api_compat looks for it in sys.modules
    return fake


def test_cupy_installed_without_a_driver_says_no_device_is_visible(monkeypatch, fresh_cupy):
    class CUDARuntimeError(RuntimeError):
        pass

    def no_driver():
        raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(no_driver))
    with pytest.raises(tl.BackendUnavailableError) as info:
        tl.zeros(2, backend="cupy")
    message = str(info.value)
    assert "CuPy is installed but no CUDA device is visible" in message and "cudaErrorNoDevice" in message


def test_cupy_installed_with_zero_devices(monkeypatch, fresh_cupy):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(lambda: 0))
    with pytest.raises(tl.BackendUnavailableError, match=r"no CUDA device is visible \(0 devices\)"):
        backends.get("cupy")


def test_cupy_not_installed_names_both_extras(monkeypatch, fresh_cupy):
    class Blocker:
        """A meta-path finder that makes `import cupy` fail, installed or not."""

        def find_spec(self, name, path=None, target=None):
            if name == "cupy" or name.startswith("cupy."):
                raise ModuleNotFoundError(f"No module named {name!r}")
            return None

    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Blocker(), *sys.meta_path])
    with pytest.raises(tl.BackendUnavailableError) as info:
        tl.tensor([1.0], backend="cupy")
    message = str(info.value)
    assert "CuPy is not installed" in message
    assert "torchlight[cuda12]" in message and "torchlight[cuda13]" in message


def test_the_cupy_fixture_skips_with_the_reason(pytestconfig):
    if REASON is None:
        pytest.skip("CuPy is usable here")
    usable, reason = backends.available()["cupy"]
    assert not usable and REASON in reason


# ------------------------------------------------------------- on a GPU
@needs_gpu
def test_cupy_array_is_wrapped_without_a_copy():
    import cupy

    a = cupy.arange(6.0).reshape(2, 3)
    t = tl.tensor(a, requires_grad=True)
    assert t.backend.name == "cupy" and t.data.data.ptr == a.data.ptr
    ((t * t).sum()).backward()
    assert isinstance(t.grad.data, cupy.ndarray) and t.grad.device == a.device and t.grad.dtype == a.dtype
    np.testing.assert_allclose(t.grad.numpy(), 2 * np.arange(6.0).reshape(2, 3))


@needs_gpu
def test_device_selects_the_gpu():
    import cupy

    last = cupy.cuda.runtime.getDeviceCount() - 1
    for device in (0, "0", f"cuda:{last}"):
        t = tl.ones(3, backend="cupy", device=device, requires_grad=True)
        assert t.device == backends.get("cupy").resolve_device(device)
        (t.exp() * 2.0).sum().backward()
        assert t.grad.device == t.device


@needs_gpu
def test_no_implicit_host_transfer():
    t = tl.tensor([1.0, 2.0], backend="cupy")
    with pytest.raises(TypeError, match=r"\.numpy\(\)"):
        np.asarray(t)
    assert t.tolist() == [1.0, 2.0] and t.sum().item() == 3.0


@needs_gpu
def test_numpy_to_cupy_and_back_is_differentiable():
    x = tl.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    on_gpu = x.to(backend="cupy", device=0)
    assert on_gpu.backend.name == "cupy"
    (on_gpu.tanh() * on_gpu).sum().backward()
    assert isinstance(x.grad.data, np.ndarray)
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(x.grad.data, np.tanh(xs) + xs * (1 - np.tanh(xs) ** 2))


@needs_gpu
def test_cupy_generator_is_seeded_by_manual_seed():
    tl.manual_seed(7)
    a = tl.randn(5, backend="cupy").numpy()
    tl.manual_seed(7)
    b = tl.randn(5, backend="cupy").numpy()
    np.testing.assert_array_equal(a, b)


@needs_gpu
def test_cupy_scatter_add_sums_duplicates():
    import cupy

    be = backends.get("cupy")
    out = be.scatter_add((3,), cupy.asarray([0, 0, 2, 0]), cupy.ones(4))
    assert isinstance(out, cupy.ndarray) and out.tolist() == [3.0, 0.0, 1.0]
