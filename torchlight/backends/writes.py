"""`array[key] = values` as a new array, in standard functions: the writes never touch `array`.

A Tensor's array may be shared (with the user's own NumPy array, which
`tl.tensor` wraps without a copy; with a context that saved it; with an
op's kept output), so a write makes a new array: a copy written into where
the library writes (`Backend.set_key`), else the functional form here,
which needs no `__setitem__` and so serves JAX and Dask too.

Duplicate integer indices: the last write wins (what NumPy does for a 1-d
integer array, made a rule here on every backend), found by a stable sort
of the flat positions the key selects (`last_writes`).

Example:
    >>> import array_api_strict as xp
    >>> from torchlight.backends.writes import set_flat
    >>> a = xp.asarray([1.0, 2.0, 3.0])
    >>> set_flat(xp, a, xp.asarray([0, 2, 0]), xp.asarray([7.0, 8.0, 9.0]), lambda arr, k: arr[k])
    Array([9., 2., 8.], dtype=array_api_strict.float64)
    >>> a
    Array([1., 2., 3.], dtype=array_api_strict.float64)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from torchlight.backends.indexing import _REFUSED, _is_array


def has_integer_array(key: Any) -> bool:
    """Whether `key` holds an integer index array (where one position may be written twice)."""
    for k in key if isinstance(key, tuple) else (key,):
        if _is_array(k) and "bool" not in str(k.dtype):
            return True
    return False


def native_key(key: Any) -> bool:
    """Whether a library's own `__setitem__` may be tried with `key`: no integer array (duplicates
    would be left to the library's order) and no backwards slice (torch refuses it, Dask misreads
    one that starts before its axis)."""
    for k in key if isinstance(key, tuple) else (key,):
        if type(k) is slice and k.step is not None and k.step < 0:
            return False
        if _is_array(k) and "bool" not in str(k.dtype):
            return False
    return True


def positions(xp: Any, shape: tuple[int, ...], key: Any, take: Callable[[Any, Any], Any], device: Any) -> Any:
    """The flat positions `x[key]` selects of an array of `shape`, in `x[key]`'s shape."""
    size = math.prod(shape)
    return take(xp.reshape(xp.arange(size, device=device), shape), key)


def set_flat(xp: Any, array: Any, key: Any, values: Any, take: Callable[[Any, Any], Any]) -> Any:
    """A new array: `array` with `values` (broadcastable to `array[key]`, of its dtype) at `key`,
    the last of duplicate positions winning; made with `where` over the flat positions (a stable
    sort, a search and a take), so it is lazy where the library is and needs no `__setitem__`."""
    device = _device(array)
    shape = tuple(array.shape)
    where = positions(xp, shape, key, take, device)
    flat_values = xp.reshape(xp.broadcast_to(values, tuple(where.shape)), (-1,))
    where = xp.reshape(where, (-1,))
    if where.shape[0] == 0:
        return array
    order = xp.argsort(where, stable=True)
    sorted_positions = xp.take(where, order)
    sorted_values = xp.take(flat_values, order)
    targets = xp.arange(math.prod(shape), dtype=sorted_positions.dtype, device=device)
    after = xp.searchsorted(sorted_positions, targets, side="right")  # one past the last write of each target
    last = xp.clip(after - 1, 0, None) if hasattr(xp, "clip") else xp.where(after > 0, after - 1, 0)
    written = (after > 0) & (xp.take(sorted_positions, last) == targets)
    return xp.reshape(xp.where(written, xp.take(sorted_values, last), xp.reshape(array, (-1,))), shape)


def last_writes(xp: Any, shape: tuple[int, ...], key: Any, take: Callable[[Any, Any], Any], device: Any) -> Any:
    """A boolean array of `x[key]`'s shape: True where that entry of the key is the last to write
    its position (every entry, unless the key's integer arrays repeat a position)."""
    where = positions(xp, shape, key, take, device)
    flat = xp.reshape(where, (-1,))
    n = flat.shape[0]
    if n == 0:
        return xp.astype(where, xp.bool)
    order = xp.argsort(flat, stable=True)
    ordered = xp.take(flat, order)
    last_sorted = xp.concat([ordered[:-1] != ordered[1:], xp.ones((1,), dtype=xp.bool, device=device)])
    inverse = xp.argsort(order, stable=True)
    return xp.reshape(xp.take(last_sorted, inverse), tuple(where.shape))


def copy_set(copy: Callable[[Any], Any], array: Any, key: Any, values: Any) -> Any | None:
    """`copy(array)` with `values` written at `key` by the library's `__setitem__`, or None where
    the library refuses the key (the caller falls back to `set_flat`)."""
    out = copy(array)
    try:
        out[key] = values
    except (*_REFUSED, AttributeError):  # (Dask's own assignment fails so on a None in the key)
        return None
    return out


def _device(array: Any) -> Any:
    import array_api_compat

    return array_api_compat.device(array)
