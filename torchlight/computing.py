"""Computing lazy tensors together: `compute` and `persist` (Dask).

A lazy backend (Dask) builds a task graph and computes nothing until asked.
`compute(*tensors)` computes all the tensors it is given in one pass, so the
forward that a loss and its gradients share runs once, not once per
`.item()` or `.numpy()`; `persist(*tensors)` does the same but keeps the
values where they were computed (on a cluster's workers: in their memory),
which is what parameters need between training steps so that each step's
graph starts from values rather than from every step before it.

Both keep every tensor on its backend: a computed Dask tensor is still a
Dask tensor, over chunks already in memory, so it combines with the other
Dask tensors (docs/decisions.md, "tl.compute and tl.persist"). On an eager
backend (NumPy, CuPy, torch, ...) both return the tensors they are given.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> loss = (x ** 2).sum()
    >>> loss.backward()
    >>> value, grad = tl.compute(loss, x.grad)      # eager: the same tensors
    >>> value is loss, grad.tolist()
    (True, [2.0, 4.0])
"""

from __future__ import annotations

from typing import Any

from torchlight.tensor import Tensor

__all__ = ["compute", "persist"]


def compute(*tensors: Tensor | None, scheduler: Any = None) -> tuple[Tensor | None, ...]:
    """The tensors' values, computed together: one `dask.compute` over all the lazy ones.

    Returns a tuple in the order given. A lazy tensor comes back as a new
    tensor without history (`requires_grad=False`) on the same backend,
    whose array holds the computed chunks in this process's memory: its
    `.item()`, `.numpy()` and `.tolist()` compute nothing more. The
    tensors given are not changed. Eager tensors and None (a `.grad` not
    yet set) are returned as they are. `scheduler` is passed to Dask
    ("threads", "processes", "synchronous", a `distributed.Client`); by
    default Dask's own choice (an active `Client` where there is one).

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([3.0], requires_grad=True)
        >>> (y,) = tl.compute(x * 2)
        >>> y.tolist()
        [6.0]
    """
    out = list(tensors)
    for i, t, value in _in_one_pass("compute", tensors, scheduler):
        out[i] = Tensor._wrap(_in_memory(t.data, value), t.backend)
    return tuple(out)


def persist(*tensors: Tensor | None, scheduler: Any = None) -> tuple[Tensor | None, ...]:
    """The tensors with their values computed and kept where they were computed (`dask.persist`).

    All lazy tensors are persisted in one pass. A leaf (a parameter, a
    `.grad`, any tensor without history) is persisted in place: its array
    is replaced by the persisted one, and the same tensor, with its
    `requires_grad` and `.grad`, is returned, so that
    `tl.persist(*model.parameters())` needs no assignment. A tensor with a
    history comes back as a new tensor without one (its values, not how
    they were made). On the threaded scheduler the values are held in this
    process; on a `distributed` cluster, by the workers. Eager tensors and
    None are returned as they are; `scheduler` as in `compute`.

    Example:
        >>> import torchlight as tl
        >>> w = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> (same,) = tl.persist(w)
        >>> same is w
        True
    """
    out = list(tensors)
    for i, t, array in _in_one_pass("persist", tensors, scheduler):
        if t.history is None:
            t.data = array  # the same values: not a write (a backward that saved `t` still may run)
        else:
            out[i] = Tensor._wrap(array, t.backend)
    return tuple(out)


def _in_one_pass(fn: str, tensors: tuple[Tensor | None, ...], scheduler: Any) -> list[tuple[int, Tensor, Any]]:
    """(position, tensor, result) for each lazy tensor, Dask's `fn` ("compute" or "persist") run once
    over all their arrays; nothing (and no Dask import) when none is lazy."""
    lazy = _lazy_positions(fn, tensors)
    if not lazy:
        return []
    import dask

    chosen = [t for t in (tensors[i] for i in lazy) if t is not None]
    results = getattr(dask, fn)(*(t.data for t in chosen), scheduler=scheduler)
    return list(zip(lazy, chosen, results))


def _lazy_positions(fn: str, tensors: tuple[Any, ...]) -> list[int]:
    """The positions of the lazy tensors among `tensors`; TypeError naming one that is no Tensor."""
    lazy = []
    for position, t in enumerate(tensors):
        if t is None:
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument 'tensors' (position {position + 1}) must be a Tensor or None, "
                            f"not {type(t).__name__}")
        if t.backend.lazy:
            lazy.append(position)
    return lazy


def _in_memory(like: Any, value: Any) -> Any:
    """The computed `value` of the Dask array `like` as a Dask array over it, with `like`'s chunks.

    The name is derived from `like`'s (its values are `like`'s), so nothing
    hashes the values.
    """
    import dask.array as da
    import numpy as np

    if not hasattr(value, "shape"):
        value = np.asarray(value)
    return da.from_array(value, chunks=like.chunks, name="computed-" + like.name, asarray=False)
