"""The backend registry and the Backend helpers: get, of, available, defaults,
errors, seeding, scatter-add and the NumPy-style indexing rewrites."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import torchlight as tl
from torchlight import backends, scalar
from torchlight.backends import indexing
from torchlight.backends.base import Backend


def host(array, backend):
    return np.asarray(backend.to_numpy(array), dtype=np.float64)


def on(backend, device, values):
    """`values` as an array of `backend` on `device`, floats in the device's default float."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        values = values.astype(backend.numpy_dtype(backend.default_float(device)))
    return backend.asarray(values, device=device)


def tolerance(array):
    return 1e-12 if "64" in str(array.dtype) else 1e-5


# ---------------------------------------------------------------- registry
def test_get_by_name_is_cached_and_named(backend):
    assert backends.get(backend.name) is backend
    assert backends.get(backend) is backend
    assert backend.name in repr(backend)


def test_of_finds_the_backend_of_an_existing_array(backend, device):
    array = backend.asarray([1.0, 2.0], device=device)
    assert backends.of(array) is backend
    assert tl.tensor(array).backend is backend


def test_of_rejects_a_non_array():
    with pytest.raises(tl.BackendError, match="no backend for an object of type list"):
        backends.of([1.0])


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(tl.BackendError) as info:
        tl.tensor([1.0], backend="tensorflow")
    message = str(info.value)
    assert "unknown backend 'tensorflow'" in message
    for name in ("numpy", "cupy", "array_api_strict", "torch", "jax"):
        assert name in message


def test_available_lists_every_backend_with_a_reason():
    table = backends.available()
    assert {"numpy", "cupy", "array_api_strict", "torch", "jax", "dask"} <= set(table)
    assert table["numpy"] == (True, "")
    assert table["array_api_strict"] == (True, "")
    for name, (usable, reason) in table.items():
        assert isinstance(usable, bool)
        assert (reason == "") == usable, name
        if not usable:
            assert "install" in reason or "device" in reason, reason


def test_register_a_custom_backend():
    import array_api_compat.numpy as xp

    custom = Backend("mine", xp, "cpu")
    backends.register("mine", custom)
    try:
        assert backends.get("mine") is custom
        assert "mine" in backends.available()
        t = tl.zeros(2, backend="mine")
        assert t.backend is custom and t.tolist() == [0.0, 0.0]
    finally:
        backends._factories.pop("mine")
        backends._instances.pop("mine", None)


def test_default_backend_is_numpy_and_can_be_changed():
    assert tl.get_default_backend() == "numpy"
    tl.set_default_backend("array_api_strict")
    try:
        assert tl.get_default_backend() == "array_api_strict"
        assert tl.tensor([1.0]).backend.name == "array_api_strict"
        assert tl.zeros(2).backend.name == "array_api_strict"
    finally:
        tl.set_default_backend("numpy")
    assert tl.tensor([1.0]).backend.name == "numpy"


def test_set_default_backend_refuses_an_unknown_name():
    with pytest.raises(tl.BackendError, match="known backends"):
        tl.set_default_backend("nope")
    assert tl.get_default_backend() == "numpy"


# -------------------------------------------------------------------- CuPy
def _cupy_reason() -> str | None:
    from torchlight.backends.cupy import unusable_reason

    return unusable_reason()


@pytest.mark.skipif(_cupy_reason() is None, reason="CuPy is usable here: the error path cannot be seen")
def test_cupy_unusable_raises_one_clear_error():
    with pytest.raises(tl.BackendUnavailableError) as info:
        tl.tensor([1.0], backend="cupy")
    message = str(info.value)
    assert "backend 'cupy' is not usable" in message
    if "not installed" in message:
        assert "torchlight[cuda12]" in message and "torchlight[cuda13]" in message
    else:
        assert "no CUDA device is visible" in message
    usable, reason = backends.available()["cupy"]
    assert not usable and reason == message


def test_importing_torchlight_never_imports_an_array_library():
    """Nor does asking `of` about NumPy and strict arrays, which imports every backend module
    (`torchlight.backends.torch` and the others import their library only when made)."""
    code = ("import sys, numpy as np, torchlight as tl; tl.tensor([1.0]).sum(); "
            "strict = tl.backends.get('array_api_strict'); tl.backends.of(strict.asarray([1.0])); "
            "tl.backends.of(np.zeros(1)); tl.backends.available.__doc__; "
            "print(*(m in sys.modules for m in ('cupy', 'cupyx', 'torch', 'jax', 'dask')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"] * 5


# -------------------------------------------------------------- randomness
@pytest.mark.parametrize("factory", [tl.rand, tl.randn])
def test_manual_seed_repeats_the_same_numbers(backend, device, factory):
    tl.manual_seed(1234)
    first = factory(3, 4, backend=backend, device=device)
    second = factory(3, 4, backend=backend, device=device)
    tl.manual_seed(1234)
    again = factory(3, 4, backend=backend, device=device)
    tl.manual_seed(4321)
    other = factory(3, 4, backend=backend, device=device)
    assert first.backend is backend and first.device == device
    assert first.dtype == backend.default_float(device)
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    assert not np.array_equal(first.numpy(), second.numpy())
    assert not np.array_equal(first.numpy(), other.numpy())


def test_rand_is_uniform_and_randn_is_normal(backend, device):
    tl.manual_seed(0)
    u = tl.rand(20000, backend=backend, device=device).numpy()
    n = tl.randn(20000, backend=backend, device=device).numpy()
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.02
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1.0) < 0.03


def test_random_factories_take_dtype_and_requires_grad(backend, device):
    t = tl.randn(2, 3, backend=backend, device=device, dtype="float32", requires_grad=True)
    assert t.dtype == backend.resolve_dtype("float32") and t.requires_grad and t.shape == (2, 3)


# ------------------------------------------------------------- scatter-add
SCATTER_KEYS = [
    ("duplicates", (5,), lambda be, d: be.asarray(np.array([0, 3, 0, 0, 4]), device=d)),
    ("rows", (4, 3), lambda be, d: be.asarray(np.array([2, 2, 0]), device=d)),
    ("column array", (3, 4), lambda be, d: (slice(None), be.asarray(np.array([1, 1, 3]), device=d))),
    ("slice", (6,), lambda be, d: slice(1, None, 2)),
    ("negative step", (3, 4), lambda be, d: (slice(None), slice(None, None, -2))),
    ("integer", (3, 4), lambda be, d: 1),
    ("mask", (2, 3), lambda be, d: be.asarray(np.array([[True, False, True], [False, True, True]]), device=d)),
]


@pytest.mark.parametrize("name, shape, make_key", SCATTER_KEYS, ids=[k[0] for k in SCATTER_KEYS])
def test_scatter_add_sums_repeated_indices(backend, device, name, shape, make_key):
    if name == "mask" and backend.name == "dask":
        pytest.skip("Dask: a lazy mask's count is unknown until computed "
                    "(tests/ops/test_ops.py::test_a_lazy_dask_mask_is_refused_with_a_way_out)")
    key = make_key(backend, device)
    zeros = backend.xp.zeros(shape, dtype=backend.default_float(device), device=device)
    selected_shape = backend.take_key(zeros, key).shape
    values = on(backend, device, np.random.default_rng(0).standard_normal(tuple(selected_shape)))
    values_host = host(values, backend)
    out = backend.scatter_add(shape, key, values)
    expected = np.zeros(shape)
    np.add.at(expected, _host_key(key, backend), values_host)
    assert out.shape == shape and out.dtype == values.dtype and backend.device_of(out) == device
    tol = tolerance(values)
    np.testing.assert_allclose(host(out, backend), expected, rtol=tol, atol=tol)
    portable = Backend.scatter_add(backend, shape, key, values)
    np.testing.assert_allclose(host(portable, backend), expected, rtol=tol, atol=tol)


def _host_key(key, backend):
    if isinstance(key, tuple):
        return tuple(_host_key(k, backend) for k in key)
    if hasattr(key, "shape"):
        return backend.to_numpy(key)
    return key


def test_portable_scatter_add_accumulates_float32_in_float64():
    be = backends.get("array_api_strict")
    xp = be.xp
    values = xp.asarray(np.full(10001, 0.1, dtype=np.float32))
    key = xp.zeros(10001, dtype=xp.int64)
    out = be.scatter_add((2,), key, values)
    assert out.dtype == xp.float32
    exact = np.float32(10001 * 0.1)
    assert abs(float(out[0]) - exact) <= 1e-6 * exact
    assert float(out[1]) == 0.0


# ---------------------------------------------------------------- indexing
INDEX_KEYS = [
    (0,), (slice(None, None, -1),), (1, slice(None, None, -1)), (slice(None), [2, 0, 2]),
    (slice(1, None), [0, 3]), (1, [0, 0]), (Ellipsis, 1), (None, slice(None), 1), (slice(3, 0, -2), 2),
    (slice(None, None, -5),), (slice(0, 0, -1),),
]


@pytest.mark.parametrize("key", INDEX_KEYS, ids=[repr(k) for k in INDEX_KEYS])
def test_take_key_means_what_numpy_means(backend, device, key):
    base = np.arange(12.0).reshape(3, 4)
    be_key = tuple(backend.asarray(np.array(k), device=device) if isinstance(k, list) else k for k in key)
    np_key = tuple(np.array(k) if isinstance(k, list) else k for k in key)
    got = backend.take_key(on(backend, device, base), be_key)
    np.testing.assert_array_equal(host(got, backend), base[np_key])


def test_expand_writes_out_the_ellipsis():
    assert indexing.expand(0, 3) == (0, slice(None), slice(None))
    assert indexing.expand((Ellipsis, 1), 2) == (slice(None), 1)
    assert indexing.expand((None, 0), 1) == (None, 0)
    assert indexing.expand((0, 0, 0), 2) is None


def test_take_key_reports_an_unsupported_key():
    be = backends.get("array_api_strict")
    x = be.asarray(np.zeros((3, 4)))
    with pytest.raises(IndexError, match=r"Gather: index .* shape \(3, 4\)"):
        be.take_key(x, (0, 0, 0))


# ------------------------------------------------------- map / zip / reduce
def test_map_zip_reduce_over_arrays_and_tensors(backend, device):
    x_host = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
    x = tl.tensor(on(backend, device, x_host), requires_grad=True)
    tol = tolerance(x)
    np.testing.assert_allclose(host(backend.map(scalar.exp)(x.data), backend), np.exp(x_host), rtol=tol)
    np.testing.assert_allclose(host(backend.zip(scalar.mul)(x.data, x.data), backend), x_host**2, rtol=tol)
    np.testing.assert_allclose(host(backend.reduce(scalar.add, 0.0)(x.data, 1), backend), x_host.sum(1), rtol=tol)
    out = backend.reduce(scalar.mul, 1.0)(backend.zip(scalar.add)(backend.map(scalar.exp)(x), 1.0), 1)
    assert out.backend is backend and out.device == device
    out.sum().backward()
    expected = np.prod(np.exp(x_host) + 1, axis=1, keepdims=True) / (np.exp(x_host) + 1) * np.exp(x_host)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=max(tol, 1e-10))


def test_map_of_a_plain_python_function_runs_on_the_host(backend, device):
    def cube(v):
        return v * v * v

    x = tl.tensor([1.0, -2.0], backend=backend, device=device, requires_grad=True)
    y = backend.map(cube)(x)
    assert y.device == device and y.dtype == x.dtype
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])


# -------------------------------------------------------------- factories
FACTORIES = {
    "tensor": lambda **kw: tl.tensor([[1.0, 2.0], [3.0, 4.0]], **kw),
    "zeros": lambda **kw: tl.zeros(2, 2, **kw),
    "ones": lambda **kw: tl.ones((2, 2), **kw),
    "full": lambda **kw: tl.full((2, 2), 0.5, **kw),
    "arange": lambda **kw: tl.arange(0.0, 4.0, **kw),
    "rand": lambda **kw: tl.rand(2, 2, **kw),
    "randn": lambda **kw: tl.randn(2, 2, **kw),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_every_factory_takes_backend_and_device(backend, device, name):
    t = FACTORIES[name](backend=backend.name, device=device, requires_grad=True)
    assert t.backend is backend and t.device == device and t.requires_grad
    assert type(t.data).__module__.split(".")[0] == type(backend.asarray([0.0])).__module__.split(".")[0]
    like = tl.zeros_like(t), tl.ones_like(t)
    assert all(x.backend is backend and x.device == device and x.dtype == t.dtype for x in like)


def test_a_numpy_generator_works_on_every_backend(backend, device):
    draw = [tl.randn(4, backend=backend, device=device, generator=np.random.default_rng(3)) for _ in range(2)]
    assert draw[0].tolist() == draw[1].tolist() and draw[0].device == device
    expected = np.random.default_rng(3).standard_normal(4).astype(backend.numpy_dtype(draw[0].dtype))
    np.testing.assert_array_equal(draw[0].numpy(), expected)


def test_python_floats_get_the_same_default_float_on_every_backend(backend, device):
    """float64 wherever the device has it (torch's own default is float32)."""
    floats = backend.xp.__array_namespace_info__().dtypes(device=device, kind="real floating")
    want = floats.get("float64", floats["float32"])
    for t in (tl.tensor([0.1, 2.0], backend=backend, device=device), tl.tensor(0.1, backend=backend, device=device),
              tl.zeros(2, backend=backend, device=device), tl.rand(2, backend=backend, device=device)):
        assert t.dtype == want
    if want == backend.xp.float64:
        assert tl.tensor(0.1, backend=backend, device=device).item() == 0.1
    assert tl.tensor([1, 2], backend=backend, device=device).dtype == backend.xp.asarray([1, 2]).dtype


def test_check_bounds_raises_like_numpy_for_clamping_libraries():
    """JAX clamps x[5] on a length-3 axis; the backend checks bounds first, as NumPy would raise."""
    import numpy as np

    from torchlight.backends import indexing

    x = np.zeros((3, 4))
    indexing.check_bounds(np, x, (2, slice(None)))
    indexing.check_bounds(np, x, (slice(None), np.array([0, 3, -4])))
    for bad in [5, -4, (slice(None), 4), (slice(None), np.array([0, 4]))]:
        with pytest.raises(IndexError, match="out of bounds"):
            indexing.check_bounds(np, x, bad)
        with pytest.raises(IndexError):
            x[bad]  # the behaviour it mirrors


def test_jax_index_out_of_range_raises():
    pytest.importorskip("jax")
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], backend="jax")
    with pytest.raises(IndexError, match="out of bounds"):
        x[5]


class _WithoutTakeAlongAxis:
    """A namespace like `xp` but without `take_along_axis` (as Dask's)."""

    def __init__(self, xp):
        self._xp = xp

    def __getattr__(self, name):
        if name == "take_along_axis":
            raise AttributeError(name)
        return getattr(self._xp, name)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_take_along_axis_fallback_matches_numpy(backend, device, axis):
    """The arange-mask fallback picks what `np.take_along_axis` picks, inf and nan elsewhere left out."""
    rng = np.random.default_rng(axis + 1)
    values = rng.standard_normal((3, 5, 4))
    values[0, 0, 0], values[2, 4, 3] = np.inf, np.nan
    index = rng.integers(0, values.shape[axis], (3, 5, 4))
    index = np.take(index, [0, 2], axis=axis)  # two picks along `axis`, of five or three or four
    expected = np.take_along_axis(values, index, axis=axis)
    bare = Backend(backend.name, _WithoutTakeAlongAxis(backend.xp), backend.device)
    out = bare.take_along_axis(on(backend, device, values), backend.asarray(index, device=device), axis)
    np.testing.assert_array_equal(host(out, backend), expected)
    np.testing.assert_array_equal(host(backend.take_along_axis(on(backend, device, values), backend.asarray(
        index, device=device), axis), backend), expected)


def test_take_along_axis_fallback_widens_small_labels(backend, device):
    """uint8 labels among 300 classes: the mask's arange must not be made in uint8 (it would wrap)."""
    values = np.random.default_rng(5).standard_normal((2, 300))
    labels = np.array([[255, 5], [200, 0]], dtype=np.uint8)
    bare = Backend(backend.name, _WithoutTakeAlongAxis(backend.xp), backend.device)
    out = bare.take_along_axis(on(backend, device, values), backend.asarray(labels, device=device), 1)
    np.testing.assert_array_equal(host(out, backend), np.take_along_axis(values, labels.astype(np.int64), axis=1))


@pytest.mark.parametrize("key", [
    np.array([0]), np.array([[0]]), (slice(None), np.array([0])), (1, np.array([0])), np.array([2]),
    np.array([0, 2, 0]),
], ids=["zero", "zero_2d", "zero_axis1", "int_and_zero", "two", "three"])
def test_dask_index_arrays_give_the_right_shape(key):
    """Dask misreports x[i] for the one-element Dask index i = [0] (as if it broadcast); the
    Dask backend's result has NumPy's shape."""
    pytest.importorskip("dask.array")
    values = np.arange(12.0).reshape(3, 4)
    x = tl.tensor(values, backend="dask", requires_grad=True)
    lazy = tuple(tl.tensor(k, backend="dask") if isinstance(k, np.ndarray) else k for k in key) \
        if isinstance(key, tuple) else tl.tensor(key, backend="dask")
    y = x[lazy]
    assert y.shape == values[key].shape
    np.testing.assert_array_equal(y.numpy(), values[key])
    y.sum().backward()
    expected = np.zeros_like(values)
    np.add.at(expected, key, 1.0)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


# ------------------------------------------------- one module per library
#: backend -> (module, class, multi_device default, immutable, lazy, blocks_elementwise, library_repr,
#: named_in_repr); multi_device is the class's, an instance says it from its devices
CLASSES = {
    "numpy": ("numpy", "NumpyBackend", False, False, False, True, False, False),
    "cupy": ("cupy", "CupyBackend", True, False, False, False, True, True),
    "array_api_strict": ("strict", "StrictBackend", False, False, False, False, False, True),
    "torch": ("torch", "TorchBackend", False, False, False, False, False, True),
    "jax": ("jax", "JaxBackend", False, True, False, False, False, True),
    "dask": ("dask", "DaskBackend", False, False, True, False, False, True),
}
FLAGS = ("multi_device", "immutable", "lazy", "blocks_elementwise", "library_repr", "named_in_repr")


@pytest.mark.parametrize("name", list(CLASSES))
def test_each_library_has_its_own_module_and_capability_flags(name):
    """Read from the class, so that they are checked where the library is not installed too."""
    module, cls_name, *flags = CLASSES[name]
    cls = backends.backend_class(name)
    assert cls.__module__ == f"torchlight.backends.{module}" and cls.__name__ == cls_name
    assert issubclass(cls, Backend)
    assert {flag: getattr(cls, flag) for flag in FLAGS} == dict(zip(FLAGS, flags))


def test_capability_flags_default_to_the_portable_answer():
    assert {flag: getattr(Backend, flag) for flag in FLAGS} == {
        "multi_device": False, "immutable": False, "lazy": False, "blocks_elementwise": False,
        "library_repr": False, "named_in_repr": True}


def test_a_library_module_holds_the_library_itself(backend):
    """`torchlight/backends/torch.py` (and jax.py, dask.py) import the library of that name,
    not themselves: its arrays are the library's."""
    library = getattr(backend, "library", None)
    if library is None:
        pytest.skip(f"{backend.name} names no library module")
    assert backend._module is sys.modules[library] and not backend._module.__name__.startswith("torchlight")
    assert not type(backend.asarray([1.0])).__module__.startswith("torchlight")


def test_each_class_recognises_only_its_own_arrays(backend, device):
    array = backend.asarray([1.0], device=device)
    claims = [name for name in CLASSES if backends.backend_class(name).recognises(array)]
    assert claims == [backend.name]
    assert not any(backends.backend_class(name).recognises([1.0]) for name in CLASSES)


def test_the_generic_backend_serves_any_array_api_library():
    """`ArrayAPIBackend` over a library torchlight has no module for (here NumPy itself,
    seen through array-api-compat only): the portable paths, gradients included."""
    from torchlight.backends.generic import ArrayAPIBackend

    generic = ArrayAPIBackend("generic_numpy", library="numpy")
    assert generic.device == "cpu" and generic.resolve_device("cpu") == "cpu"
    with pytest.raises(tl.BackendError, match="has no device 'gpu'"):
        generic.resolve_device("gpu")
    backends.register("generic_numpy", generic)
    try:
        x = tl.tensor([1.0, 2.0, 3.0], backend="generic_numpy", requires_grad=True)
        (x[np.array([0, 0, 2])] * x[np.array([0, 0, 2])]).sum().backward()
        assert x.backend is generic and x.grad.tolist() == [4.0, 0.0, 6.0]
    finally:
        backends._factories.pop("generic_numpy")
        backends._instances.pop("generic_numpy", None)


def test_a_missing_library_is_unavailable_with_what_to_install():
    from torchlight.backends.generic import ArrayAPIBackend

    with pytest.raises(tl.BackendUnavailableError, match="not_a_library is not installed.*pip install it"):
        ArrayAPIBackend("nope", library="not_a_library", install_hint="pip install it")


@pytest.mark.parametrize("module", ["torchlight.backends", "torchlight.backends.base", "torchlight.backends.generic",
                                    "torchlight.backends.numpy", "torchlight.backends.strict",
                                    "torchlight.backends.indexing", "torchlight.backends.transfer"])
def test_docstring_examples_of_the_backends(module, registry_restored):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_no_library_name_is_checked_in_the_library():
    """What a backend's library can do is a capability flag or a method, never `backend.name == "..."`
    (anywhere in torchlight/: the Tensor's repr asks `library_repr` and `named_in_repr`)."""
    import pathlib
    import re

    root = pathlib.Path(backends.__file__).parent.parent
    pattern = re.compile(r"backend\.name\s*(==|!=|in\b|not in\b)|\bself\.name\s*(==|!=)|__module__\.startswith")
    found = [f"{path.relative_to(root)}:{n}: {line.strip()}" for path in sorted(root.rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []


def test_a_new_backend_knows_which_floating_dtypes_are_complex(backend):
    """`Backend.complex_of` is filled from the start, keyed as the arrays' `.dtype` is: the ops'
    backwards read it with `.get` (no call), so even a dtype's first backward takes their array
    formulas, not the Tensor-op ones."""
    fresh = Backend("fresh", backend.xp)  # (made now: nothing has asked it about a dtype yet)
    xp = backend.xp
    for value, complex_ in ((1.0, False), (1j, True)):
        for dtype in (xp.float32, xp.float64) if not complex_ else (xp.complex64, xp.complex128):
            assert fresh.complex_of.get(xp.asarray([value], dtype=dtype).dtype) is complex_
