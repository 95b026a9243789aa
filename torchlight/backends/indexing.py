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
  AssertionError), which the same rewrite takes flat and reshapes;
- an integer array and integers apart from it (`x[0, :, idx]`): NumPy
  puts the array's dimensions first, where torch keeps them in place (and
  array_api_strict refuses the key), so such a key always takes the
  rewrite, which moves them first; so does a backwards slice that starts
  before its axis (`x[-99::-1]` selects nothing; Dask reads it as `x[::-1]`).

Example:
    >>> import array_api_strict as xp
    >>> from torchlight.backends.indexing import take
    >>> x = xp.reshape(xp.arange(6), (2, 3))
    >>> take(xp, x, (0, slice(None, None, -1)))
    Array([2, 1, 0], dtype=array_api_strict.int64)
"""

from __future__ import annotations

from typing import Any

#: how the libraries refuse a key they do not take (Dask: AssertionError, NotImplementedError,
#: and KeyError for a string, which it reads as a field name)
_REFUSED = (IndexError, TypeError, ValueError, AssertionError, NotImplementedError, KeyError)


def take(xp: Any, array: Any, key: Any) -> Any:
    """`array[key]` with NumPy's meaning, through the rewrites above."""
    first_error = None
    split = False
    if _maybe_special(key):
        if isinstance(key, tuple) and sum(1 for k in key if k is Ellipsis) > 1:  # (torch takes `x[..., ...]`)
            raise IndexError(f"Gather: index {key!r} has more than one Ellipsis ('...'), as NumPy refuses")
        split = apart(key, array.ndim)
        native = not split and not _starts_before(key, array.shape)
    else:
        native = True
    if native:
        try:
            return array[key]
        except _REFUSED as exc:
            first_error = exc
    parts = expand(key, array.ndim)
    out = None
    if parts is not None:
        try:
            out = _rewritten(xp, array, parts, split)
        except (*_REFUSED, RuntimeError) as exc:  # (torch's index_select raises RuntimeError)
            raise _unsupported(key, array, first_error, exc) from exc
    if out is None:
        raise _unsupported(key, array, first_error)
    return out


def _rewritten(xp: Any, array: Any, parts: tuple, split: bool) -> Any:
    """`array[parts]` (a key expanded to every axis) through the rewrites; None where none applies."""
    array, parts = _rewrite_slices(xp, array, parts)
    if not split:
        try:
            return array[parts]
        except _REFUSED:
            pass
    arrays = [i for i, k in enumerate(parts) if _is_array(k)]
    if len(arrays) != 1 or parts[arrays[0]].dtype == xp.bool:
        return None
    position = arrays[0]
    index = parts[position]
    basic = parts[:position] + (slice(None),) + parts[position + 1:]
    selected = array[basic]
    axis = array_axis(parts, position)
    out = unflatten(xp, xp.take(selected, xp.reshape(index, (-1,)), axis=axis), axis, index.shape)
    if split:  # the index's dimensions first, then the others in order
        rest = [d for d in range(out.ndim) if not axis <= d < axis + index.ndim]
        out = xp.permute_dims(out, tuple(range(axis, axis + index.ndim)) + tuple(rest))
    return out


def _maybe_special(key: Any) -> bool:
    """A quick look for what `apart` and `_starts_before` check (most keys have neither):
    a backwards slice, or integers beside an array; or a second Ellipsis."""
    if type(key) is not tuple:  # one entry (`x[0]`, `x[1:3]`): never integers beside an array
        return type(key) is slice and key.step is not None and key.step < 0
    has_int = has_array = False
    ellipses = 0
    for k in key:
        kind = type(k)
        if kind is int:
            has_int = True
        elif kind is slice:
            if k.step is not None and k.step < 0:
                return True
        elif k is Ellipsis:
            ellipses += 1
        elif k is not None and hasattr(k, "shape"):
            has_array = True
    return (has_int and has_array) or ellipses > 1


def _starts_before(key: Any, shape: tuple) -> bool:
    """Whether a backwards slice of `key` starts before its axis (`x[-99::-1]`, nothing
    in NumPy): Dask reads it as `x[::-1]`, so such a key takes the rewrite."""
    entries = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, slice) and k.step is not None and k.step < 0 for k in entries):
        return False
    axis = 0
    for k in expand(key, len(shape)) or ():
        if isinstance(k, slice) and k.step is not None and k.step < 0 and k.start is not None \
                and k.start < -shape[axis]:
            return True
        axis += _consumes(k)
    return False


def apart(key: Any, ndim: int) -> bool:
    """Whether `key` has one integer array and integers not next to it (a slice,
    None or ... between), where NumPy puts the array's dimensions first."""
    if not isinstance(key, tuple) or not any(_is_int(k) for k in key):
        return False
    arrays = [k for k in key if _is_array(k)]
    if len(arrays) != 1 or "bool" in str(arrays[0].dtype):
        return False
    parts = expand(key, ndim)
    if parts is None:
        return False
    at = [i for i, k in enumerate(parts) if _is_int(k) or _is_array(k)]
    return at[-1] - at[0] + 1 != len(at)


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


def check_kinds(xp: Any, key: Any) -> None:
    """Raise IndexError naming `key` for an entry NumPy refuses, for libraries that take it:
    Dask reads `x[1.0]` as `x[1]` and indexes with a float array."""
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, (float, complex)) or (_is_array(k) and not xp.isdtype(k.dtype, ("integral", "bool"))):
            raise IndexError(f"Gather: index {key!r}: {k!r} is not a valid index entry (integers, slices, "
                             "..., None and integer or boolean arrays are)")


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


def _unsupported(key: Any, array: Any, exc: Exception | None, rewrite_exc: Exception | None = None) -> IndexError:
    """The IndexError for a key: the library's own refusal, then (if any) why the rewrite failed too."""
    reasons = "; rewritten in standard functions: ".join(str(e) for e in (exc, rewrite_exc) if e is not None)
    return IndexError(f"Gather: index {key!r} is not supported for shape {tuple(array.shape)}: {reasons}")
