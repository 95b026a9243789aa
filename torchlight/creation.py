"""Making tensors: `tensor()` and the factories (zeros, ones, rand, ...).

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> a = np.arange(3.0)
    >>> t = tl.tensor(a, requires_grad=True)
    >>> np.shares_memory(t.data, a)
    True
    >>> tl.zeros((2, 2), dtype="float32").dtype
    dtype('float32')
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from torchlight import backends
from torchlight.backends.devices import Device, has_device, pytorch_device
from torchlight.backends.dtypes import DEFAULT_FLOAT
from torchlight.backends.transfer import move
from torchlight.tensor import LEAVES_GRAPH, Tensor


def _is_array(data: Any) -> bool:
    import array_api_compat

    return array_api_compat.is_array_api_obj(data) and not isinstance(data, (int, float, bool, complex))


def tensor(data: Any, *, requires_grad: bool = False, backend: Any = None, device: Any = None,
           dtype: Any = None) -> Tensor:
    """A leaf Tensor from a number, a (nested) list/tuple or an existing array.

    An existing array is wrapped without a copy, its backend and device
    inferred; asking for another backend, device or dtype makes a copy. A
    list holding tensors takes its backend and device from the first of
    them, unless told otherwise (see `_stacked`). A tensor that requires
    grad is refused, since the result would silently carry no gradient:
    pass `x.detach()` for its values. A `device=x.device` (a `Device`) names
    its backend too.

    Example:
        >>> import numpy as np
        >>> import torchlight as tl
        >>> tl.tensor([[1, 2], [3, 4]]).dtype, tl.tensor(2.5)
        (dtype('int64'), tensor(2.5))
        >>> a = np.arange(3.0)
        >>> tl.tensor(a).data is a, tl.tensor(a, dtype="float32").data is a  # wrapped; a new dtype copies
        (True, False)
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> tl.tensor(x)
        Traceback (most recent call last):
        ...
        RuntimeError: tl.tensor(x) of a tensor that requires grad: the result would carry no gradient. ...
    """
    backend = _backend_of_device(backend, device)
    if isinstance(data, Tensor):
        if data.requires_grad:  # as tl.tensor([x]) (see _stacked); PyTorch copies and warns
            raise RuntimeError(LEAVES_GRAPH.format(what="tl.tensor(x)"))
        data = data.data
    elif isinstance(data, (list, tuple)):
        first = _first_tensor(data)
        if first is not None:
            target = backends.get(backend) if backend is not None else first.backend
            if device is None and target is first.backend:
                device = first._device
            data = _stacked(data, target, target.resolve_device(device), dtype)
            backend = target
    if _is_array(data):
        source = backends.of(data)
        target = source if backend is None else backends.get(backend)
        device = target.resolve_device(device)
        if target is not source or (device is not None and source.device_of(data) != device):
            data = move(data, source, target, device)
        if dtype is not None and data.dtype != target.resolve_dtype(dtype):
            data = target.xp.astype(data, target.resolve_dtype(dtype))
        return Tensor(data, target, requires_grad=requires_grad)
    target = backends.get(backend)
    array = target.asarray(data, dtype=dtype, device=device)
    if dtype is None and DEFAULT_FLOAT[0] is not None and target.is_floating(array.dtype) \
            and not target.is_complex(array.dtype):  # Python floats take tl.set_default_dtype's (as torch's)
        array = target.xp.astype(array, target.default_float(device))
    return Tensor(array, target, requires_grad=requires_grad)


def _backend_of_device(backend: Any, device: Any, home: Any = None) -> Any:
    """`backend`, or the backend a `Device` (or a PyTorch device string, "cpu", "cuda:1") names when
    no backend is given; `home` (None: the default backend) where the device names none, or is
    one of `home`'s own (torch's "cpu" stays torch's)."""
    if backend is None and isinstance(device, Device):
        return device.backend
    mapped = pytorch_device(device) if backend is None else None
    if mapped is None or has_device(backends.get(home), device):
        return home if backend is None else backend
    return mapped[0]


_PLAIN = frozenset((float, int, bool, complex))


def _first_tensor(data: list | tuple) -> Tensor | None:
    """The first Tensor in a nested list/tuple, or None (a list of plain numbers is passed over in C)."""
    if _PLAIN.issuperset(map(type, data)):
        return None
    for item in data:
        if isinstance(item, Tensor):
            return item
        if isinstance(item, (list, tuple)):
            found = _first_tensor(item)
            if found is not None:
                return found
    return None


def _stacked(data: Any, target: Any, device: Any, dtype: Any) -> Any:
    """A nested list/tuple holding Tensors, as one array of `target` or as plain Python values.

    A list of Tensors and arrays only (at any depth) is stacked into one
    array of `target` on `device`: array libraries cannot all read a list of
    their own arrays (torch cannot, of 1-d ones). Each part is moved there
    first, and cast to `dtype` when one is asked (array_api_strict does not
    promote int and float parts); otherwise their dtypes meet by the
    library's rules. In a list that mixes them with numbers, a part becomes
    its Python value (for the caller's `asarray`). A Tensor that requires
    grad is refused: the result could not carry its gradient.
    """
    if isinstance(data, Tensor):
        if data.requires_grad:
            raise RuntimeError(LEAVES_GRAPH.format(what="tl.tensor([...]) of the values"))
        data = data.data
    if _is_array(data):
        array = move(data, backends.of(data), target, device)
        return array if dtype is None else target.xp.astype(array, target.resolve_dtype(dtype))
    if not isinstance(data, (list, tuple)):
        return data
    items = [_stacked(item, target, device, dtype) for item in data]
    if items and all(_is_array(item) for item in items):
        return target.xp.stack(items)
    return [target.to_numpy(item).tolist() if _is_array(item) else item for item in items]


def _shape(shape: Any) -> tuple[int, ...]:
    """`shape` as a tuple: one size (an int, a NumPy integer, a 0-d integer tensor), sizes, or one
    sequence or 1-d array of them (as np.full takes)."""
    # full(np.int64(3), x) as np.full; isinstance(int) missed NumPy integers. A 1-d array has
    # __index__ too (it raises), so only a 0-d one is one size
    if hasattr(shape, "__index__") and getattr(shape, "ndim", 0) == 0:
        return (operator.index(shape),)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _make(fill: str, shape: Any, value: Any, backend: Any, device: Any, dtype: Any,
          requires_grad: bool) -> Tensor:
    be = backends.get(_backend_of_device(backend, device))
    device = be.resolve_device(device)
    xp = be.xp
    if isinstance(value, np.generic):  # a NumPy scalar fills as the Python number it holds (the standard's fill_value)
        value = value.item()
    if dtype is not None:
        dtype = be.resolve_dtype(dtype)
    elif fill == "full" and isinstance(value, bool):
        dtype = xp.bool
    elif fill == "full" and isinstance(value, int):
        dtype = be.default_int(device)
    else:
        dtype = be.default_float(device)
    kwargs = {"dtype": dtype}
    if device is not None:
        kwargs["device"] = device
    if fill == "full":
        array = xp.full(_shape(shape), value, **kwargs)
    else:
        array = getattr(xp, fill)(_shape(shape), **kwargs)
    return Tensor(array, be, requires_grad=requires_grad)


def zeros(*shape: Any, backend: Any = None, device: Any = None, dtype: Any = None,
          requires_grad: bool = False) -> Tensor:
    """A tensor of zeros (default dtype: the backend's default float).

    Example:
        >>> import torchlight as tl
        >>> tl.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
        >>> tl.zeros((2, 3)).shape, tl.zeros(2, dtype=tl.int64).dtype  # sizes, or one tuple of them
        ((2, 3), dtype('int64'))
    """
    return _make("zeros", shape, None, backend, device, dtype, requires_grad)


def ones(*shape: Any, backend: Any = None, device: Any = None, dtype: Any = None,
         requires_grad: bool = False) -> Tensor:
    """A tensor of ones (default dtype: the backend's default float).

    Example:
        >>> import torchlight as tl
        >>> w = tl.ones(3, requires_grad=True)
        >>> w, w.is_leaf
        (tensor([1., 1., 1.], requires_grad=True), True)
    """
    return _make("ones", shape, None, backend, device, dtype, requires_grad)


def full(shape: Any, fill_value: bool | int | float, *, backend: Any = None, device: Any = None,
         dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor filled with `fill_value`; without `dtype`, of the value's kind (as NumPy,
    PyTorch and the standard): bool, the default integer for an int, else the default float.

    Example:
        >>> import torchlight as tl
        >>> str(tl.full((2,), 7).dtype), str(tl.full((2,), 7.0).dtype), tl.full((2,), True).tolist()
        ('int64', 'float64', [True, True])
    """
    return _make("full", shape, fill_value, backend, device, dtype, requires_grad)


def _like(fill: str, t: Tensor, dtype: Any, requires_grad: bool, device: Any = None) -> Tensor:
    array = getattr(t.backend.xp, fill)(t.data, **({} if dtype is None else {"dtype": t.backend.resolve_dtype(dtype)}))
    return _placed(t, array, device, requires_grad)


def _placed(t: Tensor, array: Any, device: Any, requires_grad: bool) -> Tensor:
    """A `*_like` result (`array`, made beside `t`) as a Tensor on `device`, read as the factories
    read it with `t`'s backend for the default (`_backend_of_device`); `t`'s own device without one."""
    if device is None:
        return Tensor(array, t.backend, requires_grad=requires_grad)
    target = backends.get(_backend_of_device(None, device, t.backend))
    return Tensor(move(array, t.backend, target, device), target, requires_grad=requires_grad)


def zeros_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Zeros of `t`'s shape, backend, device and dtype (or `dtype`, on `device`).

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[1, 2], [3, 4]], dtype="float32")
        >>> z = tl.zeros_like(x)
        >>> z.shape, z.dtype, z.tolist()
        ((2, 2), dtype('float32'), [[0.0, 0.0], [0.0, 0.0]])
        >>> s = tl.tensor([1.0, 2.0], backend="array_api_strict")
        >>> tl.zeros_like(s, device="device1").device  # (every `*_like` takes `device=`, as PyTorch's)
        Device(backend='array_api_strict', device='device1')
    """
    return _like("zeros_like", t, dtype, requires_grad, device)


def ones_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Ones of `t`'s shape, backend, device and dtype (or `dtype`).

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[1.5, 2.5]])
        >>> tl.ones_like(x), tl.ones_like(x, dtype="int64")
        (tensor([[1., 1.]]), tensor([[1, 1]]))
    """
    return _like("ones_like", t, dtype, requires_grad, device)


def arange(start: float, stop: float | None = None, step: float = 1, *, backend: Any = None,
           device: Any = None, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Evenly spaced values in `[start, stop)`; a float argument gives the
    backend's default float (float64 where the device has it, on torch too).

    Example:
        >>> import torchlight as tl
        >>> tl.arange(5), tl.arange(1, 2, 0.25)
        (tensor([0, 1, 2, 3, 4]), tensor([1.  , 1.25, 1.5 , 1.75]))
        >>> tl.arange(3.0).dtype  # a float argument: the default float
        dtype('float64')
    """
    be = backends.get(_backend_of_device(backend, device))
    # NumPy scalars count as the Python numbers they hold (np.float32(0.25) is a float step)
    start, stop, step = _plain(start), _plain(stop), _plain(step)
    kwargs: dict[str, Any] = {}
    if device is not None:
        kwargs["device"] = be.resolve_device(device)
    if dtype is not None:
        kwargs["dtype"] = be.resolve_dtype(dtype)
    elif any(isinstance(v, float) for v in (start, stop, step)):
        kwargs["dtype"] = be.default_float(kwargs.get("device"))
    return Tensor(be.xp.arange(start, stop, step, **kwargs), be, requires_grad=requires_grad)


def _plain(v: Any) -> Any:
    """A NumPy scalar as the Python number it holds; anything else as it is."""
    return v.item() if isinstance(v, np.generic) else v


def rand(*shape: Any, backend: Any = None, device: Any = None, dtype: Any = None,
         requires_grad: bool = False, generator: Any = None) -> Tensor:
    """Uniform samples in `[0, 1)` from the backend's generator (see `manual_seed`); a floating dtype only.

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> x = tl.rand(2, 3)
        >>> x.shape, bool(((x >= 0) & (x < 1)).all())
        ((2, 3), True)
        >>> tl.manual_seed(0)
        >>> tl.rand(2, 3).tolist() == x.tolist()  # the same seed, the same samples
        True
    """
    return _random("rand", shape, backend, device, dtype, requires_grad, generator)


def randn(*shape: Any, backend: Any = None, device: Any = None, dtype: Any = None,
          requires_grad: bool = False, generator: Any = None) -> Tensor:
    """Standard normal samples from the backend's generator (see `manual_seed`); a floating dtype only.

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> x = tl.randn(10_000)
        >>> abs(x.mean().item()) < 0.05, abs(x.std().item() - 1) < 0.05
        (True, True)
        >>> tl.randn(2, dtype="int64")
        Traceback (most recent call last):
        ...
        TypeError: randn: samples need a floating dtype, not 'int64' ...
    """
    return _random("randn", shape, backend, device, dtype, requires_grad, generator)


def _random(kind: str, shape: Any, backend: Any, device: Any, dtype: Any, requires_grad: bool,
            generator: Any) -> Tensor:
    """`rand`/`randn`: an integer or boolean `dtype` is a TypeError (as NumPy's and PyTorch's),
    where samples drawn as floats and cast would be all zeros (or all True). A PyTorch device string
    picks the backend as the other factories do ("cuda" is CuPy's GPU)."""
    be = backends.get(_backend_of_device(backend, device))
    if dtype is not None and not be.is_floating(be.resolve_dtype(dtype)):
        raise TypeError(f"{kind}: samples need a floating dtype, not {dtype!r} (draw floats and round, "
                        "or compare them with a threshold, for integers or masks)")
    return Tensor(be.random(kind, _shape(shape), dtype, device, generator), be, requires_grad=requires_grad)


def linspace(start: float, end: float, steps: int, *, backend: Any = None, device: Any = None, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    """`steps` evenly spaced values from `start` to `end`, both included (PyTorch's linspace; the
    backend's default float unless `dtype`).

    Example:
        >>> import torchlight as tl
        >>> tl.linspace(0.0, 1.0, 5).tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"linspace: steps must be a non-negative int, got {steps!r}")
    be = backends.get(_backend_of_device(backend, device))
    device = be.resolve_device(device)
    dtype = be.default_float(device) if dtype is None else be.resolve_dtype(dtype)
    kwargs: dict[str, Any] = {"dtype": dtype} if device is None else {"dtype": dtype, "device": device}
    return Tensor(be.xp.linspace(_plain(start), _plain(end), steps, **kwargs), be, requires_grad=requires_grad)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, backend: Any = None, device: Any = None,
             dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """`base ** linspace(start, end, steps)` (PyTorch's logspace).

    Example:
        >>> import torchlight as tl
        >>> tl.logspace(0.0, 2.0, 3).tolist()
        [1.0, 10.0, 100.0]
    """
    exponents = linspace(start, end, steps, backend=backend, device=device, dtype=dtype)
    out = exponents._wrap(exponents.backend.xp.pow(_plain(base), exponents.data), exponents.backend)
    return out.requires_grad_(True) if requires_grad else out


def eye(n: int, m: int | None = None, *, backend: Any = None, device: Any = None, dtype: Any = None,
        requires_grad: bool = False) -> Tensor:
    """The `n` x `m` (default `n` x `n`) identity matrix (PyTorch's eye).

    Example:
        >>> import torchlight as tl
        >>> tl.eye(2, 3).tolist()
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    for name, v in (("n", n), ("m", m)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise ValueError(f"eye: {name} must be a non-negative int, got {v!r}")
    be = backends.get(_backend_of_device(backend, device))
    device = be.resolve_device(device)
    dtype = be.default_float(device) if dtype is None else be.resolve_dtype(dtype)
    kwargs: dict[str, Any] = {"dtype": dtype} if device is None else {"dtype": dtype, "device": device}
    return Tensor(be.xp.eye(n, m, **kwargs), be, requires_grad=requires_grad)


def empty(*shape: Any, backend: Any = None, device: Any = None, dtype: Any = None,
          requires_grad: bool = False) -> Tensor:
    """A tensor whose values are not to be read before they are set (PyTorch's empty; here zeros,
    so a read by mistake is at least deterministic).

    Example:
        >>> import torchlight as tl
        >>> tl.empty(2, 3).shape
        (2, 3)
    """
    return _make("zeros", shape, None, backend, device, dtype, requires_grad)


def empty_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """`empty` of `t`'s shape, backend, device and dtype (or `dtype`).

    Example:
        >>> import torchlight as tl
        >>> e = tl.empty_like(tl.ones(2, 3, dtype="float32"))
        >>> e.shape, e.dtype
        ((2, 3), dtype('float32'))
    """
    return _like("zeros_like", t, dtype, requires_grad, device)


def full_like(t: Tensor, fill_value: bool | int | float, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """`fill_value` in `t`'s shape, backend, device and dtype (or `dtype`).

    Example:
        >>> import torchlight as tl
        >>> tl.full_like(tl.zeros(2), 7.0).tolist()
        [7.0, 7.0]
    """
    kwargs = {} if dtype is None else {"dtype": t.backend.resolve_dtype(dtype)}
    return _placed(t, t.backend.xp.full_like(t.data, _plain(fill_value), **kwargs), device, requires_grad)


def rand_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """`rand` of `t`'s shape, backend, device and dtype (or `dtype`).

    Example:
        >>> import torchlight as tl
        >>> r = tl.rand_like(tl.zeros(4, dtype="float32"))
        >>> r.shape, r.dtype, bool(((r >= 0) & (r < 1)).all())
        ((4,), dtype('float32'), True)
    """
    drawn = _random("rand", t.shape, t.backend, t._device, t.dtype if dtype is None else dtype, False, None)
    return _placed(t, drawn.data, device, requires_grad)


def randn_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """`randn` of `t`'s shape, backend, device and dtype (or `dtype`).

    Example:
        >>> import torchlight as tl
        >>> r = tl.randn_like(tl.zeros(2, 2))
        >>> r.shape, r.dtype
        ((2, 2), dtype('float64'))
    """
    drawn = _random("randn", t.shape, t.backend, t._device, t.dtype if dtype is None else dtype, False, None)
    return _placed(t, drawn.data, device, requires_grad)


def device(spec: Any, index: int | None = None) -> Device:
    """PyTorch's `torch.device("cpu")` / `torch.device("cuda", 1)` / `"cuda:1"`: the `Device` that
    `device=` takes in the factories and `Tensor.to` ("cpu": the default backend's CPU where it has
    one, else NumPy's; "cuda": CuPy's GPU). A `Device` is given back as it is.

    Example:
        >>> import torchlight as tl
        >>> tl.zeros(2, device=tl.device("cpu")).device.type
        'cpu'
    """
    if isinstance(spec, Device):
        return spec
    text = f"{spec}:{index}" if index is not None else str(spec)
    mapped = pytorch_device(text)
    if mapped is None:
        raise ValueError(f"device: expects 'cpu', 'cuda' or 'cuda:N' (or a Device), got {spec!r}")
    default = backends.get(None)
    if has_device(default, text):
        return default.device_object(default.resolve_device(text))
    target = backends.get(mapped[0])
    return target.device_object(target.resolve_device(mapped[1]))
