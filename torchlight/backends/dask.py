"""The Dask backend: lazy arrays, through `array_api_compat.dask.array`.

Dask is imported when this backend is first asked for, never by
`import torchlight` (this module's `dask` is the library: imports are
absolute). Nothing here computes a Dask array: checks run inside the graph
(`map_blocks`), and a key whose result shape is only known by computing
(a boolean mask) is refused with a way out, since routing gradients needs
known shapes.

Example (where Dask is installed):
    >>> import torchlight as tl                                       # doctest: +SKIP
    >>> be = tl.backends.get("dask")                                  # doctest: +SKIP
    >>> be.lazy, type(be.asarray([1.0])).__name__                     # doctest: +SKIP
    (True, 'Array')
"""

from __future__ import annotations

import math
import types
from typing import Any

import numpy as np

from torchlight.backends import indexing
from torchlight.backends.generic import ArrayAPIBackend


class DaskBackend(ArrayAPIBackend):
    """Dask arrays: lazy, so nothing here computes them, and a result's
    shape must be known without computing (see `take_key`)."""

    library = "dask.array"
    install_hint = "run `pip install 'dask[array]'`"
    lazy = True

    def __init__(self, name: str = "dask") -> None:
        super().__init__(name)
        self.xp = _namespace_with_any_reshape(self.xp)

    @classmethod
    def recognises(cls, array: Any) -> bool:
        """A Dask array (never imports Dask)."""
        import array_api_compat

        return array_api_compat.is_dask_array(array)

    def checked(self, array: Any, bad: Any, error: Exception) -> Any:
        return array.map_blocks(_checked_block, bad, error, dtype=array.dtype)  # raises when computed

    def checked_by_parts(self, arrays: tuple[Any, ...], summarise: Any, judge: Any) -> Any:
        """`arrays[0]` with the check inside its graph: each chunk summarised, all judged, when computed
        (the other arrays are rechunked as the first; nothing is computed here)."""
        import dask
        import dask.array as da

        first = arrays[0]
        aligned = [first] + [a.rechunk(first.chunks) for a in arrays[1:]]
        chunks = zip(*(a.to_delayed().ravel() for a in aligned))
        parts = [dask.delayed(_summarised)(summarise, *blocks) for blocks in chunks]
        verdict = da.from_delayed(dask.delayed(_judged)(judge, parts), shape=(), dtype=bool)
        return da.map_blocks(_after_verdict, first, verdict, dtype=first.dtype)

    def map_chunks(self, fn: Any, *arrays: Any, dtype: Any) -> Any:
        import dask.array as da

        return da.map_blocks(fn, *arrays, dtype=dtype)

    def scatter_add(self, shape: tuple[int, ...], key: Any, values: Any) -> Any:
        """The portable segment sum; complex values as their real and imaginary parts, each summed
        on its own (Dask's take with an integer array casts a complex placeholder to a real one,
        with NumPy's ComplexWarning, though the values come out right)."""
        if not self.is_complex(values.dtype):
            return super().scatter_add(shape, key, values)
        xp = self.xp
        re, im = (xp.astype(super(DaskBackend, self).scatter_add(shape, key, part), values.dtype)
                  for part in (xp.real(values), xp.imag(values)))
        return re + im * 1j

    def take_key(self, array: Any, key: Any) -> Any:
        indexing.check_kinds(self.xp, key)
        if any(isinstance(k, bool) for k in (key if isinstance(key, tuple) else (key,))):
            raise IndexError(f"Gather: on Dask, the key {key!r} holds a Python bool, which Dask reads as the "
                             "index 0 or 1 (NumPy: a new axis of length 1 or 0); write None or x[None][:0] instead")
        key = self._bounds_checked(array, key)
        out = self._take_single(array, key)
        if out is None:
            out = super().take_key(array, key)
        if any(math.isnan(n) for n in out.shape):
            raise IndexError(
                f"Gather: on Dask, the key {key!r} selects a number of elements that is unknown until the "
                "mask is computed (a shape of nan), and torchlight needs known shapes to route gradients; "
                "compute the mask first, or keep the shape with tl.where(mask, x, 0.0) instead"
            )
        return out

    def _bounds_checked(self, array: Any, key: Any) -> Any:
        """`key` with each integer index array checked against its axis when computed.

        Dask takes an out-of-range entry of a lazy index array without a word
        (x[:, [0, 3]] of 3 columns gave column 0 twice); NumPy raises IndexError.
        The check is a `map_blocks` on the index, so nothing is computed here.
        """
        parts = indexing.expand(key, array.ndim)
        if parts is None or not any(isinstance(k, self._module.Array) for k in parts):
            return key
        checked, axis = [], 0
        for k in parts:
            if isinstance(k, self._module.Array) and k.dtype != self.xp.bool:
                k = k.map_blocks(_in_bounds, array.shape[axis], axis, dtype=k.dtype)
            checked.append(k)
            axis += indexing._consumes(k)
        return tuple(checked)

    def _take_single(self, array: Any, key: Any) -> Any:
        """`array[key]` for a key whose one index array is a Dask array of one element, else None.

        Dask gives such an index the size of the axis it indexes (its values
        are right, its shape is not, and the mismatch breaks later on
        compute), so the element is taken twice and one copy sliced off.
        """
        xp = self.xp
        parts = indexing.expand(key, array.ndim)
        if parts is None:
            return None
        lazy = [i for i, k in enumerate(parts) if isinstance(k, self._module.Array) and k.dtype != xp.bool]
        if len(lazy) != 1 or math.prod(parts[lazy[0]].shape) != 1:
            return None
        position = lazy[0]
        index = parts[position]
        twice = xp.concat([xp.reshape(index, (1,))] * 2)
        out = super().take_key(array, parts[:position] + (twice,) + parts[position + 1:])
        axis = 0 if indexing.apart(parts, array.ndim) else indexing.array_axis(parts, position)
        return indexing.unflatten(xp, out[(slice(None),) * axis + (slice(0, 1),)], axis, index.shape)


def _namespace_with_any_reshape(xp: Any) -> Any:
    """A copy of the namespace `xp` whose `reshape` takes any chunking (and which names float16).

    Dask reshapes only by merging or splitting whole chunks (a (3, 4) array in
    2x2 chunks cannot become (12,)), and raises NotImplementedError
    otherwise; the standard's reshape has no such limit. Where Dask refuses,
    the axes from the first one the reshape changes on are made one chunk
    each, the leading axes keeping theirs, and where it still refuses the
    whole array is made one chunk.
    """
    namespace = types.ModuleType(xp.__name__, xp.__doc__)
    namespace.__dict__.update(vars(xp))
    standard = xp.reshape

    def reshape(x: Any, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Any:
        try:
            return standard(x, shape, copy=copy)
        except NotImplementedError:
            same = 0
            while same < min(x.ndim, len(shape)) and x.shape[same] == shape[same]:
                same += 1
            try:
                return standard(x.rechunk({axis: -1 for axis in range(same, x.ndim)}), shape, copy=copy)
            except NotImplementedError:  # (Dask's algorithm still refuses some: (3, 4, 4) in (2, 1) rows
                return standard(x.rechunk(-1), shape, copy=copy)  # to (3, 2, 8)): one chunk always goes

    # and Dask arrays hold NumPy's dtypes, float16 among them, which the compat namespace does not name
    namespace.__dict__.update(reshape=reshape, float16=getattr(xp, "float16", np.dtype(np.float16)))
    return namespace


def _checked_block(block: np.ndarray, bad: Any, error: Exception) -> np.ndarray:
    """`block` of a Dask array, or `error` raised if `bad(block)` holds anywhere in it."""
    if block.size and bool(np.any(bad(block))):
        raise error
    return block


def _summarised(summarise: Any, *blocks: Any) -> Any:
    """`summarise(xp, *blocks)` with the namespace of the blocks' library (NumPy's, or CuPy's chunks)."""
    import array_api_compat

    return summarise(array_api_compat.array_namespace(*blocks), *blocks)


def _judged(judge: Any, parts: list[Any]) -> np.bool_:
    judge(parts)  # raises on a bad value
    return np.bool_(True)


def _after_verdict(block: Any, verdict: Any) -> Any:
    """`block`, once the check it waits on (`verdict`, a task of the same graph) has passed."""
    return block


def _in_bounds(block: np.ndarray, n: int, axis: int) -> np.ndarray:
    """`block` of a Dask index array, or NumPy's IndexError if an entry is outside an axis of `n`."""
    if block.size:
        low, high = block.min(), block.max()
        if low < -n or high >= n:
            raise IndexError(f"index {high if high >= n else low} is out of bounds for axis {axis} with size {n}")
    return block
