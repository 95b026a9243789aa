"""The namespace itself: every 2024.12 name is there with the standard's signature, a Tensor hands
it out (`__array_namespace__`, `array_api_compat.array_namespace`), and its calls differentiate."""

from __future__ import annotations

import inspect
import math
import pathlib
import sys

import array_api_compat
import numpy as np
import pytest

import torchlight as tl
import torchlight.array_api as xp

STUBS = pathlib.Path(__file__).parents[3] / "shared" / "array-api-tests" / "suite" / "array-api" / "src"
CATEGORIES = ["creation_functions", "data_type_functions", "elementwise_functions", "indexing_functions",
              "manipulation_functions", "searching_functions", "set_functions", "sorting_functions",
              "statistical_functions", "utility_functions", "linear_algebra_functions"]


def _stub_functions(categories=CATEGORIES):
    """(name, stub function) of the 2024.12 main namespace (or of the extension modules named in
    `categories`), from the standard's own stubs (beside the repository, where the standard's test
    suite is checked out)."""
    if not STUBS.is_dir():
        return []
    sys.path.insert(0, str(STUBS))
    try:
        import importlib

        out = []
        for category in categories:
            module = importlib.import_module(f"array_api_stubs._2024_12.{category}")
            out += [(name, getattr(module, name)) for name in module.__all__]
        return out
    finally:
        sys.path.remove(str(STUBS))


STUB_FUNCTIONS = _stub_functions()
FFT_STUB_FUNCTIONS = _stub_functions(["fft"])


@pytest.mark.skipif(not STUB_FUNCTIONS, reason="the standard's stubs (../shared/array-api-tests) are not here")
@pytest.mark.parametrize("name,stub", STUB_FUNCTIONS, ids=[n for n, _ in STUB_FUNCTIONS])
def test_each_function_has_the_standards_parameters_and_kinds(name, stub):
    ours = inspect.signature(getattr(xp, name)).parameters
    theirs = inspect.signature(stub).parameters
    assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()]
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


@pytest.mark.skipif(not FFT_STUB_FUNCTIONS, reason="the standard's stubs (../shared/array-api-tests) are not here")
@pytest.mark.parametrize("name,stub", FFT_STUB_FUNCTIONS, ids=[n for n, _ in FFT_STUB_FUNCTIONS])
def test_each_fft_function_has_the_standards_parameters_and_kinds(name, stub):
    ours = inspect.signature(getattr(xp.fft, name)).parameters
    theirs = inspect.signature(stub).parameters
    assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()]
    assert [p.default for p in ours.values()] == [p.default for p in theirs.values()]


def test_the_fft_extension_exports_the_standards_14_functions():
    names = {n for n, _ in FFT_STUB_FUNCTIONS} if FFT_STUB_FUNCTIONS else set(xp.fft.__all__)
    assert set(xp.fft.__all__) == names and len(names) == 14
    assert all(callable(getattr(xp.fft, n)) for n in names)


def test_every_name_of_the_2024_12_namespace_is_exported():
    names = {n for n, _ in STUB_FUNCTIONS} | {"e", "inf", "nan", "newaxis", "pi", "__array_namespace_info__"}
    names |= {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
              "float64", "complex64", "complex128"}
    assert names - set(xp.__all__) == set() if STUB_FUNCTIONS else len(xp.__all__) > 150
    assert all(hasattr(xp, n) for n in xp.__all__)
    assert xp.__array_api_version__ == "2024.12"
    assert (xp.e, xp.pi, xp.newaxis) == (math.e, math.pi, None) and math.isinf(xp.inf) and math.isnan(xp.nan)


def test_a_tensor_gives_the_namespace_and_refuses_other_versions():
    t = tl.tensor([1.0])
    assert t.__array_namespace__() is xp
    assert t.__array_namespace__(api_version="2023.12") is xp
    assert t.__array_namespace__(api_version="2024.12") is xp
    with pytest.raises(ValueError, match="2021.12"):
        t.__array_namespace__(api_version="2021.12")
    assert array_api_compat.array_namespace(t) is xp
    assert array_api_compat.array_namespace(t, tl.tensor([2.0])) is xp


def test_gradients_flow_through_namespace_calls():
    t = tl.tensor([[0.0, 1.0], [2.0, -1.0]], requires_grad=True)
    xp.sum(xp.exp(t)).backward()
    assert np.allclose(t.grad.numpy(), np.exp(t.numpy()))
    t.grad = None
    y = xp.mean(xp.max(t, axis=1) ** 2) + xp.sum(xp.concat([t, t], axis=None)) + xp.sum(xp.where(t > 0, t, 0.0))
    y.backward()
    assert np.allclose(t.grad.numpy(), [[2.0, 4.0], [5.0, 2.0]])  # max: m; concat: 2; where: 1 where t > 0


def test_asarray_of_a_tensor_keeps_it_and_its_graph():
    t = tl.tensor([1.0, 2.0], requires_grad=True)
    assert xp.asarray(t) is t and xp.asarray(t, dtype=t.dtype, device=t.device) is t
    copied = xp.asarray(t, copy=True)
    assert copied is not t and copied.requires_grad
    xp.sum(copied * xp.asarray(t, dtype=xp.float32)).backward()
    assert t.grad.tolist() == [2.0, 4.0]
    with pytest.raises(ValueError, match="asarray: copy=False"):
        xp.asarray(t, dtype=xp.float32, copy=False)


def test_the_array_object_parts_the_standard_lists():
    t = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert complex(xp.asarray(2.5)) == 2.5 + 0j
    assert t.mT.tolist() == [[1.0, 3.0], [2.0, 4.0]] and (+t).tolist() == t.tolist()
    assert abs(-t).tolist() == t.tolist() and (t @ t).shape == (2, 2)
    assert "stream" in inspect.signature(tl.Tensor.__dlpack__).parameters
    assert np.from_dlpack(t).tolist() == t.tolist()


def test_namespace_functions_follow_the_standard_where_the_pytorch_face_differs():
    x = xp.asarray([[1.0, 2.0], [3.0, 5.0]])
    assert xp.var(x).item() == pytest.approx(np.var(x.numpy()))          # correction 0, not PyTorch's 1
    assert xp.std(x, axis=0, correction=1).tolist() == pytest.approx(np.std(x.numpy(), axis=0, ddof=1).tolist())
    assert xp.repeat(x, 2, axis=0).tolist() == np.repeat(x.numpy(), 2, axis=0).tolist()   # NumPy's repeat
    assert xp.repeat(x, xp.asarray([0, 2]), axis=1).tolist() == [[2.0, 2.0], [5.0, 5.0]]
    assert xp.max(x, axis=0).tolist() == [3.0, 5.0]                                       # values only
    assert xp.sum(xp.asarray([1, 2], dtype=xp.int8), dtype=xp.int16).dtype == xp.int16
    assert xp.squeeze(xp.ones((1, 2)), axis=0).shape == (2,)
    assert xp.broadcast_arrays(xp.ones((2, 1)), xp.ones(3))[1].shape == (2, 3)
    assert xp.clip(xp.asarray([-2.0, 3.0]), max=1.0).tolist() == [-2.0, 1.0]


@pytest.mark.parametrize("call,error,words", [
    (lambda: xp.exp([1.0]), TypeError, ["exp", "x"]),
    (lambda: xp.add(1.0, 2.0), TypeError, ["add", "x1 and x2"]),
    (lambda: xp.sum(xp.ones(2), dtype="nope"), TypeError, ["sum", "dtype"]),
    (lambda: xp.flip(xp.ones(2), axis=3), IndexError, ["flip", "axis 3"]),
    (lambda: xp.squeeze(xp.ones(2), axis=0), ValueError, ["squeeze", "axis 0"]),
    (lambda: xp.zeros(-1), ValueError, ["zeros", "negative"]),
    (lambda: xp.zeros(2, device="device1"), ValueError, ["zeros", "device", "numpy"]),
    (lambda: xp.isdtype(xp.int8, "floaty"), ValueError, ["isdtype", "floaty"]),
    (lambda: xp.result_type(xp.int8, xp.float32), TypeError, ["result_type", "int8", "float32"]),
    (lambda: xp.finfo(xp.int8), TypeError, ["finfo", "int8"]),
    (lambda: xp.cumulative_sum(xp.ones((2, 2))), ValueError, ["cumulative_sum", "axis"]),
    (lambda: xp.concat(xp.ones(2)), TypeError, ["concat", "arrays"]),
])
def test_bad_input_raises_the_standards_exception_naming_function_and_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert all(w in str(info.value) for w in words), str(info.value)


def test_mixing_backends_names_both():
    a = xp.ones(2)
    b = xp.ones(2, device=tl.tensor([1.0], backend="array_api_strict").device)
    with pytest.raises(Exception) as info:
        xp.add(a, b)
    assert "numpy" in str(info.value) and "array_api_strict" in str(info.value)
