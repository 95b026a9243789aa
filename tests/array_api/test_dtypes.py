"""The dtype objects: one per dtype of the standard, the same on both faces, equal to every
backend's dtype of that name on either side of ==, taken by every backend; and the standard's
data type functions (promotion, casting, limits, kinds)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlight as tl
import torchlight.array_api as xp
from torchlight.backends import dtypes

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
         "complex64", "complex128"]


@pytest.mark.parametrize("name", NAMES)
def test_each_dtype_is_one_object_on_both_faces_and_equals_every_backends_own(name, backend):
    ours = getattr(xp, name)
    assert getattr(tl, name) is ours
    own = backend.resolve_dtype(ours)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert own == ours and ours == own and not own != ours
    other = xp.float64 if name != "float64" else xp.float32
    assert own != other and other != own
    assert str(own).rsplit(".", 1)[-1] in (name, f"dtype('{name}')", f"<class 'numpy.{name}'>")


def test_tensor_dtypes_compare_with_the_namespaces(backend):
    x = tl.tensor([1.0], backend=backend.name, dtype=xp.float32)
    assert x.dtype == xp.float32 and xp.float32 == x.dtype and x.dtype != xp.float64
    assert xp.isdtype(x.dtype, "real floating") and xp.finfo(x).bits == 32


def test_dtypes_find_numpys_entries_in_a_dict_and_pickle():
    import pickle

    assert {np.dtype("float32"): 1}[xp.float32] == 1
    assert pickle.loads(pickle.dumps(xp.int16)) is xp.int16


def test_result_type_follows_the_standards_table_and_python_scalars():
    assert xp.result_type(xp.uint8, xp.int8) == xp.int16
    assert xp.result_type(xp.uint32, xp.int64) == xp.int64
    assert xp.result_type(xp.float32, xp.complex128) == xp.complex128
    assert xp.result_type(xp.float64, xp.complex64) == xp.complex128
    assert xp.result_type(xp.int8, 1) == xp.int8 and xp.result_type(xp.float32, 1, 2.0) == xp.float32
    assert xp.result_type(xp.float64, 1j) == xp.complex128
    assert xp.result_type(xp.asarray([1.0], dtype=xp.float32), xp.float64) == xp.float64
    for bad in [(xp.int64, xp.uint64), (xp.bool, xp.int8), (xp.int8, 1.5), (xp.bool, 1)]:
        with pytest.raises(TypeError, match="result_type"):
            xp.result_type(*bad)
    with pytest.raises(ValueError, match="result_type"):
        xp.result_type(1, 2.0)


def test_can_cast_isdtype_finfo_iinfo():
    assert xp.can_cast(xp.int8, xp.int64) and not xp.can_cast(xp.int64, xp.int8)
    assert not xp.can_cast(xp.bool, xp.int8) and not xp.can_cast(xp.int32, xp.float64)
    assert xp.can_cast(xp.asarray([1], dtype=xp.uint8), xp.int16)
    assert xp.isdtype(xp.uint8, "integral") and xp.isdtype(xp.complex64, "numeric")
    assert xp.isdtype(xp.float32, (xp.float64, "real floating")) and not xp.isdtype(xp.bool, "numeric")
    assert xp.finfo(xp.complex64).dtype == xp.float32 and xp.finfo(xp.float64).eps == np.finfo(np.float64).eps
    assert (xp.iinfo(xp.uint8).max, xp.iinfo(xp.int16).min, xp.iinfo(xp.int64).bits) == (255, -32768, 64)


def test_astype_casts_copies_and_keeps_the_gradient_between_floats():
    x = tl.tensor([1.5, -2.5], requires_grad=True)
    assert xp.astype(x, xp.float64, copy=False) is x and xp.astype(x, xp.float64) is not x
    y = xp.astype(x, xp.float32)
    assert y.dtype == xp.float32
    xp.sum(y * 2.0).backward()
    assert x.grad.tolist() == [2.0, 2.0]
    assert xp.astype(x, xp.int32).tolist() == [1, -2]


def test_python_floats_and_the_reported_default_follow_set_default_dtype():
    # as the other factories do: tl.set_default_dtype(tl.float32) makes xp.asarray([1.0]) float32 too,
    # and the inspection namespace reports it
    info = xp.__array_namespace_info__()
    assert xp.asarray([1.0]).dtype == xp.float64 and info.default_dtypes()["real floating"] == xp.float64
    saved = list(dtypes.DEFAULT_FLOAT)
    tl.set_default_dtype(tl.float32)
    try:
        assert xp.asarray([1.0]).dtype == xp.asarray(2.0).dtype == xp.asarray([[1, 2.5]]).dtype == xp.float32
        assert xp.asarray([1, 2]).dtype == xp.int64 and xp.zeros(2).dtype == xp.float32
        assert info.default_dtypes()["real floating"] == xp.float32
    finally:
        dtypes.DEFAULT_FLOAT[:] = saved  # (unset again, not float64: a device without it keeps its own)
    assert xp.asarray([1.0]).dtype == xp.float64
