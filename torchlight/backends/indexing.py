"""`x[key]` for libraries that accept less than NumPy does, in standard functions.

NumPy-style keys that some array-API libraries refuse, and how they are
rewritten here:

- fewer entries than dimensions (`x[0]` on a matrix): array_api_strict wants
  the trailing `...` spelled out;
- a negative step (`x[::-1]`): torch refuses it, so the axis is flipped with
  `xp.flip` and the slice rewritten with a positive step;
- slice bounds past an axis's ends (`x[2:99]`, `x[-10:]`): array_api_strict
  refuses them (the standard leaves them unspecified), so each slice is
  clipped into its axis as NumPy and PyTorch clip it;
- one integer array mixed with slices or integers (`x[1:, idx]`):
  array_api_strict only takes integer arrays alone, so the basic part of the
  key is applied first and the array part with `xp.take` along its axis;
  Dask also refuses a multi-dimensional integer array (with an
  AssertionError), which the same rewrite takes flat and reshapes.

Example:
    >>> import array_api_strict as xp
    >>> from torchlight.backends.indexing import take
    >>> x = xp.reshape(xp.arange(6), (2, 3))
    >>> take(xp, x, (0, slice(None, None, -1)))
    Array([2, 1, 0], dtype=array_api_strict.int64)
"""

from __future__ import annotations

from typing import Any

#: how the libraries refuse a key they do not take (Dask: AssertionError, NotImplementedError)
_REFUSED = (IndexError, TypeError, ValueError, AssertionError, NotImplementedError)


def take(xp: Any, array: Any, key: Any) -> Any:
    """`array[key]` with NumPy's meaning, through the rewrites above."""
    try:
        return array[key]
    except _REFUSED as exc:
        first_error = exc
    parts = expand(key, array.ndim)
    if parts is None:
        raise _unsupported(key, array, first_error)
    array, parts = _rewrite_slices(xp, array, parts)
    try:
        return array[parts]
    except _REFUSED:
        pass
    arrays = [i for i, k in enumerate(parts) if _is_array(k)]
    if len(arrays) != 1 or parts[arrays[0]].dtype == xp.bool:
        raise _unsupported(key, array, first_error)
    position = arrays[0]
    index = parts[position]
    basic = parts[:position] + (slice(None),) + parts[position + 1:]
    selected = array[basic]
    axis = array_axis(parts, position)
    return unflatten(xp, xp.take(selected, xp.reshape(index, (-1,)), axis=axis), axis, index.shape)


def array_axis(parts: tuple, position: int) -> int:
    """The axis of `array[parts]` that the index array `parts[position]` (the key's only one) makes."""
    return sum(1 for k in parts[:position] if not _is_int(k))


def unflatten(xp: Any, flat: Any, axis: int, shape: tuple) -> Any:
    """`flat` with its `axis` (one entry per element of a flattened index) given the index's `shape`."""
    return xp.reshape(flat, tuple(flat.shape[:axis]) + tuple(shape) + tuple(flat.shape[axis + 1:]))


def expand(key: Any, ndim: int) -> tuple | None:
    """`key` as a tuple with the Ellipsis (explicit or implied) written out as
    full slices; None when it names more dimensions than `ndim`."""
    key = key if isinstance(key, tuple) else (key,)
    used = sum(_consumes(k) for k in key if k is not Ellipsis)
    missing = ndim - used
    if missing < 0 or sum(1 for k in key if k is Ellipsis) > 1:
        return None
    fill = (slice(None),) * missing
    if not any(k is Ellipsis for k in key):
        return key + fill
    at = next(i for i, k in enumerate(key) if k is Ellipsis)
    return key[:at] + fill + key[at + 1:]


def _rewrite_slices(xp: Any, array: Any, parts: tuple) -> tuple[Any, tuple]:
    """Flip each axis sliced with a negative step and rewrite its slice forwards;
    clip the bounds of every other slice into its axis."""
    axis = 0
    out = []
    for k in parts:
        if isinstance(k, slice) and k.step is not None and k.step < 0:
            n = array.shape[axis]
            picked = range(n)[k]
            array = xp.flip(array, axis=axis)
            if len(picked) == 0:
                k = slice(0, 0)
            else:
                k = slice(n - 1 - picked[0], n - picked[-1], -k.step)
        elif isinstance(k, slice) and k != slice(None):
            picked = range(array.shape[axis])[k]
            k = slice(picked.start, picked.stop, picked.step)
        out.append(k)
        axis += _consumes(k)
    return array, tuple(out)


def check_bounds(xp: Any, array: Any, key: Any) -> None:
    """Raise IndexError for an integer (or integer-array entry) outside its axis,
    as NumPy does, for libraries that clamp instead (JAX). Reads the index
    arrays' extremes, so only for eager libraries."""
    parts = expand(key, array.ndim)
    if parts is None:
        return
    axis = 0
    for k in parts:
        if k is not None and axis < array.ndim:
            n = array.shape[axis]
            if _is_int(k) and not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            if _is_array(k) and "int" in str(k.dtype) and k.size:
                low, high = int(xp.min(k)), int(xp.max(k))
                if low < -n or high >= n:
                    raise IndexError(f"index {high if high >= n else low} is out of bounds for axis {axis} "
                                     f"with size {n}")
        axis += _consumes(k)


def _consumes(k: Any) -> int:
    """How many input dimensions one key entry indexes."""
    if k is None:
        return 0
    if _is_array(k) and "bool" in str(k.dtype):
        return k.ndim
    return 1


def _is_array(k: Any) -> bool:
    return hasattr(k, "shape") and hasattr(k, "dtype")


def _is_int(k: Any) -> bool:
    return isinstance(k, int) and not isinstance(k, bool)


def _unsupported(key: Any, array: Any, exc: Exception) -> IndexError:
    return IndexError(f"Gather: index {key!r} is not supported for shape {tuple(array.shape)}: {exc}")
