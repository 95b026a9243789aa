"""`Backend.map/zip/reduce`: scalar functions of `torchlight.scalar` over arrays.

A known scalar function (one that carries `array_fn`) runs as the namespace's
vectorised function; any other Python callable on numbers still works, one
element at a time on the host, correctly if slowly. Given a Tensor, the
Tensor maps itself (`_map_scalar`, `_zip_scalar`, `_reduce_scalar`: the
`Map`/`Zip` Functions of `torchlight.ops.scalar_map`), so the result has a
gradient; this module holds arrays only and never imports Tensor.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from numbers import Integral
from typing import Any

import numpy as np


def map_array(backend: Any, fn: Callable, x: Any) -> Any:
    """`fn` applied elementwise to the array `x`."""
    array_fn = getattr(fn, "array_fn", None)
    if array_fn is not None:
        return array_fn(backend.xp, x)
    return _on_host(backend, np.frompyfunc(fn, 1, 1), x)


def zip_array(backend: Any, fn: Callable, x: Any, y: Any) -> Any:
    """`fn` applied elementwise to the broadcast pair of arrays `x`, `y`."""
    array_fn = getattr(fn, "array_fn", None)
    if array_fn is not None:
        return array_fn(backend.xp, x, y)
    return _on_host(backend, np.frompyfunc(fn, 2, 1), x, y)


def _on_host(backend: Any, ufunc: Any, *arrays: Any) -> Any:
    """Run a per-element Python function through NumPy, then move back.

    The result has the dtype the namespace promotes the arrays to (a number
    beside them takes theirs), as a known function's would, on their device;
    where that dtype cannot hold what the function returned (floats from
    integers, integers from booleans) it is the device's default float or
    integer instead of truncated values.
    """
    typed = [a for a in arrays if hasattr(a, "dtype")]
    if backend.lazy and typed:
        return _on_chunks(backend, ufunc, arrays, typed)
    host = [backend.to_numpy(a) if hasattr(a, "dtype") else a for a in arrays]
    raw = np.asarray(ufunc(*host), dtype=object)
    if not typed:
        return backend.xp.asarray(np.asarray(raw, dtype=np.float64))
    device = backend.device_of(typed[0])
    dtype = backend.xp.result_type(*typed) if len(typed) > 1 else typed[0].dtype
    if not backend.is_floating(dtype):
        values = raw.ravel().tolist()
        if not all(isinstance(v, (Integral, np.bool_)) for v in values):
            dtype = backend.default_float(device)
        elif backend.xp.isdtype(dtype, "bool") and not all(isinstance(v, (bool, np.bool_)) for v in values):
            dtype = backend.default_int(device)
    # cast on the host: the device may have no float64
    return backend.xp.asarray(np.asarray(raw, dtype=backend.numpy_dtype(dtype)), device=device)


def _on_chunks(backend: Any, ufunc: Any, arrays: tuple, typed: list) -> Any:
    """`_on_host` for a lazy library: the function runs on each chunk when it is computed.

    The result's dtype must be known before then, so it is the promoted
    floating (or complex) dtype of the arrays; over integers or booleans,
    where `_on_host` picks the dtype from the values returned, it raises.
    """
    dtype = backend.xp.result_type(*typed) if len(typed) > 1 else typed[0].dtype
    if not (backend.is_floating(dtype) or backend.is_complex(dtype)):
        raise TypeError(f"map: a Python function over {dtype} arrays of the lazy backend {backend.name!r} gives "
                        f"values whose dtype is known only once they are computed; cast the tensors to a "
                        f"floating dtype first")
    shaped = iter(backend.xp.broadcast_arrays(*typed))
    args = [next(shaped) if hasattr(a, "dtype") else a for a in arrays]
    return backend.map_chunks(functools.partial(_ufunc_chunk, ufunc, backend.numpy_dtype(dtype)), *args, dtype=dtype)


def _ufunc_chunk(ufunc: Any, dtype: Any, *chunks: Any) -> np.ndarray:
    """The Python function over one chunk of each array, as an array of `dtype`."""
    return np.asarray(np.asarray(ufunc(*chunks), dtype=object), dtype=dtype)


def _check_arity(helper: str, fn: Callable, arity: int) -> None:
    """A scalar function of the wrong arity is a TypeError naming both (a lambda's would not say why)."""
    known = getattr(fn, "arity", arity)
    if known != arity:
        other = {1: "map", 2: "zip or reduce"}.get(known, "none of map, zip, reduce")
        raise TypeError(f"{helper} needs a function of {arity} argument(s); {getattr(fn, '__name__', fn)} "
                        f"takes {known} (use {other})")


def mapper(backend: Any, fn: Callable) -> Callable:
    """The function returned by `Backend.map(fn)`."""
    _check_arity("map", fn, 1)

    def mapped(x: Any) -> Any:
        if hasattr(x, "_map_scalar"):  # a Tensor maps itself, recording the op
            return x._map_scalar(fn)
        return map_array(backend, fn, x)

    mapped.__name__ = f"map_{getattr(fn, '__name__', 'fn')}"
    return mapped


def zipper(backend: Any, fn: Callable) -> Callable:
    """The function returned by `Backend.zip(fn)`."""
    _check_arity("zip", fn, 2)

    def zipped(x: Any, y: Any) -> Any:
        if hasattr(x, "_zip_scalar"):  # a Tensor on either side zips itself with the other
            return x._zip_scalar(y, fn)
        if hasattr(y, "_zip_scalar"):
            return y._zip_scalar(x, fn, reverse=True)
        return zip_array(backend, fn, x, y)

    zipped.__name__ = f"zip_{getattr(fn, '__name__', 'fn')}"
    return zipped


def reducer(backend: Any, fn: Callable, start: float) -> Callable:
    """The function returned by `Backend.reduce(fn, start)`.

    Known reductions (`scalar.add` -> sum, `scalar.mul` -> prod, `scalar.max`
    -> max) use the namespace; any other function is folded along `dim`.
    """
    _check_arity("reduce", fn, 2)

    def reduced(x: Any, dim: int | None = None) -> Any:
        if hasattr(x, "_reduce_scalar"):  # a Tensor folds itself, differentiably
            return x._reduce_scalar(fn, start, dim)
        return _reduce_array(backend, fn, start, x, dim)

    return reduced


# the `start` at which a namespace reduction's own result is the fold's
_IDENTITY = {"sum": 0.0, "prod": 1.0, "max": -float("inf")}


def _reduce_array(backend: Any, fn: Callable, start: float, x: Any, dim: int | None) -> Any:
    """The fold of `fn` from `start` along `dim`, as `_reduce_tensor` computes it.

    A known reduction runs as the namespace's, then takes in `start` with one
    more `fn` unless `start` is its identity; an empty one (which `max` would
    refuse) is `start`, as the fold is.
    """
    name = getattr(fn, "reduce_name", None)
    xp = backend.xp
    if dim is None:
        x, dim = xp.reshape(x, (-1,)), 0
    reduced = None
    if name is not None and x.shape[dim] != 0:
        reduced = getattr(xp, name)(x, axis=dim)
        if start == _IDENTITY.get(name):
            return reduced
    dtype, device = x.dtype, backend.device_of(x)
    if not backend.is_floating(dtype) and not float(start).is_integer():  # (0.5 or -inf: no integer holds it)
        dtype = backend.default_float(device)
    acc = xp.full(tuple(n for k, n in enumerate(x.shape) if k != dim % x.ndim), start, dtype=dtype, device=device)
    if reduced is not None:
        return zip_array(backend, fn, acc, reduced)
    for i in range(x.shape[dim]):
        acc = zip_array(backend, fn, acc, x[(slice(None),) * (dim % x.ndim) + (i,)])
    return acc
