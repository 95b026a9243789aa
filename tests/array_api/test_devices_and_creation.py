"""Devices name their backend: creation functions land on a Tensor's `.device` (numpy,
array_api_strict's device1, torch where installed), `*_like` follow their argument, and without
`device=` arrays are made on the default backend; and the inspection namespace."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
import torchlight.array_api as xp
from torchlight import backends


def _places():
    places = [("numpy", None), ("array_api_strict", "device1")]
    try:
        backends.get("torch")
    except Exception:  # not installed here
        pass
    else:
        places.append(("torch", "cpu"))
    return places


@pytest.mark.parametrize("name,raw", _places(), ids=[n for n, _ in _places()])
def test_creation_functions_land_on_the_device_they_are_given(name, raw):
    x = tl.tensor([1.0, 2.0], backend=name, device=raw)
    d = x.device
    made = [xp.asarray([1.0, 2.0], device=d), xp.zeros(3, device=d), xp.ones((2, 1), device=d),
            xp.empty(2, device=d), xp.full(2, 7, device=d), xp.arange(3, device=d), xp.eye(2, 3, k=1, device=d),
            xp.linspace(0, 1, 5, device=d), xp.empty_like(x), xp.zeros_like(x), xp.ones_like(x),
            xp.full_like(x, 3.0), xp.asarray(np.arange(3.0), device=d)]
    for t in made:
        assert t.backend is x.backend and t.device == d, t
    assert xp.full(2, 7, device=d).dtype == xp.int64 and xp.full(2, True, device=d).dtype == xp.bool
    assert xp.eye(2, 3, k=1, device=d).tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert xp.linspace(0, 1, 4, endpoint=False, device=d).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert xp.asarray(x, device=d) is x


def test_without_a_device_arrays_land_on_the_default_backend():
    assert xp.zeros(2).backend.name == tl.get_default_backend() == "numpy"
    tl.set_default_backend("array_api_strict")
    try:
        for t in (xp.zeros(2), xp.asarray([1, 2]), xp.arange(3), xp.full((1,), 2.0)):
            assert t.backend.name == "array_api_strict"
        assert xp.asarray(np.ones(2)).backend.name == "numpy"   # an array keeps its own library
        info = xp.__array_namespace_info__()
        assert info.default_device().backend.name == "array_api_strict"
        assert "array_api_strict:device1" in [str(d) for d in info.devices()]
    finally:
        tl.set_default_backend("numpy")


def test_to_device_moves_between_backends_and_keeps_the_gradient():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    other = tl.tensor([0.0], backend="array_api_strict", device="device1").device
    y = x.to_device(other)
    assert y.device == other and y.backend.name == "array_api_strict"
    (y * y).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    assert xp.asarray(x, device=other).device == other


def test_the_inspection_namespace():
    info = xp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] and caps["data-dependent shapes"] and caps["max dimensions"] >= 32
    assert info.default_device() == "cpu" and info.devices() == [info.default_device()]
    defaults = info.default_dtypes()
    assert (defaults["real floating"], defaults["integral"], defaults["indexing"]) == (xp.float64, xp.int64, xp.int64)
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert "float64" not in info.dtypes(device=tl.tensor([0.0], backend="array_api_strict", dtype="float32",
                                                         device="no_float64").device)
    assert info.dtypes(kind="bool") == {"bool": xp.bool}


def test_capabilities_follow_a_lazy_default_backend():
    pytest.importorskip("dask")
    tl.set_default_backend("dask")
    try:
        caps = xp.__array_namespace_info__().capabilities()
        assert not caps["boolean indexing"] and not caps["data-dependent shapes"]
    finally:
        tl.set_default_backend("numpy")


def test_asarray_infers_the_standards_dtypes_and_copies_on_request():
    assert xp.asarray(True).dtype == xp.bool and xp.asarray([1, 2]).dtype == xp.int64
    assert xp.asarray(1.5).dtype == xp.float64 and xp.asarray([1j, 2]).dtype == xp.complex128
    a = np.arange(3.0)
    assert np.shares_memory(xp.asarray(a).data, a) and not np.shares_memory(xp.asarray(a, copy=True).data, a)
    assert xp.asarray(memoryview(b"\x01\x02")).tolist() == [1, 2]
    assert xp.from_dlpack(np.arange(2.0)).tolist() == [0.0, 1.0]
