"""Hooks on graph nodes: functions a backward calls with the gradient reaching a tensor.

`Tensor.register_hook(fn)` and `Tensor.register_post_accumulate_grad_hook(fn)`
(PyTorch's names and semantics) put `fn` here, keyed by the tensor's graph
node (the leaf itself, or the History of a non-leaf). The walk looks a node
up only while some hook is registered anywhere (`TENSOR_HOOKS` non-empty),
so a backward without hooks pays one test of an empty dict per walk.

A table maps `id(node)` to the node (weakly: a hook never keeps a graph
alive) and its hooks in registration order; an entry goes when its node
does, or when its last hook is removed.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> handle = x.register_hook(lambda g: g * 10.0)
    >>> (x * x).sum().backward()
    >>> x.grad.tolist()
    [20.0, 40.0]
    >>> handle.remove(); handle.remove()  # a second remove does nothing
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["POST_ACCUMULATE_HOOKS", "TENSOR_HOOKS", "RemovableHandle", "add_hook", "run_tensor_hooks"]

Table = dict[int, tuple[Any, dict[int, Callable[..., Any]]]]

#: hooks that see (and may replace) the gradient reaching a node, before it is used
TENSOR_HOOKS: Table = {}
#: hooks called with a leaf tensor once its `.grad` has been updated
POST_ACCUMULATE_HOOKS: Table = {}

_ids = itertools.count()


class RemovableHandle:
    """What registering a hook returns: `remove()` takes the hook away (again: harmless); as a
    context manager, the hook is removed when the block ends.

    Example:
        >>> from torchlight.engine.hooks import RemovableHandle
        >>> hooks = {}
        >>> handle = RemovableHandle(hooks)
        >>> hooks[handle.id] = print
        >>> with handle:
        ...     len(hooks)
        1
        >>> len(hooks)
        0
    """

    def __init__(self, hooks: dict[int, Any], *extra: dict[int, Any], on_empty: Callable[[], None] | None = None
                 ) -> None:
        self.id = next(_ids)
        self._tables = (hooks, *extra)  # (small dicts of functions: held as long as the handle is)
        self._on_empty = on_empty

    def remove(self) -> None:
        """Remove the hook; removing it again does nothing."""
        for table in self._tables:
            if table.pop(self.id, None) is not None and not table and self._on_empty is not None:
                self._on_empty()

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def add_hook(table: Table, node: Any, fn: Callable[..., Any]) -> RemovableHandle:
    """Register `fn` on `node` in `table`; the handle removes it."""
    if not callable(fn):
        raise TypeError(f"register_hook: the hook must be callable, got {type(fn).__name__}")
    key = id(node)
    entry = table.get(key)
    if entry is None or entry[0]() is not node:
        def gone(_: Any) -> None:  # the node died: its hooks go with it
            table.pop(key, None)

        entry = table[key] = (weakref.ref(node, gone), {})
    hooks = entry[1]

    def forget() -> None:
        current = table.get(key)
        if current is not None and current[1] is hooks:
            del table[key]

    handle = RemovableHandle(hooks, on_empty=forget)
    hooks[handle.id] = fn
    return handle


def hooks_of(table: Table, node: Any) -> list[Callable[..., Any]]:
    """The hooks registered on `node` in `table`, in order (none: an empty list)."""
    entry = table.get(id(node))
    if entry is None or entry[0]() is not node:
        return []
    return list(entry[1].values())


def run_tensor_hooks(node: Any, d: Any) -> Any:
    """`d` after each hook of `node` in turn: a hook returning None keeps it, one returning a
    gradient replaces it (of the node's shape and backend, else a RuntimeError naming the hook)."""
    for fn in hooks_of(TENSOR_HOOKS, node):
        out = fn(d)
        if out is None:
            continue
        d = _checked(fn, node, d, out)
    return d


def _checked(fn: Any, node: Any, d: Any, out: Any) -> Any:
    """The gradient `out` a hook returned in place of `d`, if it can stand for it."""
    name = getattr(fn, "__qualname__", None) or repr(fn)
    if not hasattr(out, "data") or not hasattr(out, "backend"):  # not a Tensor: an array of d's library?
        if getattr(out, "shape", None) is None:
            raise TypeError(f"hook {name} returned a {type(out).__name__} where a gradient (a Tensor) or None "
                            "is expected")
        out = d._wrap(d.backend.asarray(out, device=d.backend.device_of(d.data)), d.backend)
    if out.backend is not d.backend:
        raise RuntimeError(f"hook {name} returned a gradient of backend {out.backend.name} for a tensor of "
                           f"backend {d.backend.name}")
    expected, given = tuple(d.data.shape), tuple(out.data.shape)
    if given != expected:
        raise RuntimeError(f"hook {name} returned a gradient of shape {given} for a tensor of shape {expected}")
    if out.data.dtype != d.data.dtype:
        out = out.astype(d.data.dtype)
    return out
