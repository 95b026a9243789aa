"""`RemovableHandle`: what registering a hook gives back, to take it off again.

As PyTorch's `torch.utils.hooks.RemovableHandle`: each handle has a unique
`id`, the key of its hook in the table it was registered in (and in the
tables of that hook's options); `remove()` deletes those keys, and does
nothing the second time. The tables are held weakly, so a handle kept after
its module is gone keeps nothing alive. A handle is also a context manager
that removes its hook on exit.

Example:
    >>> from collections import OrderedDict
    >>> hooks = OrderedDict()
    >>> handle = RemovableHandle(hooks)
    >>> hooks[handle.id] = print
    >>> with handle:
    ...     len(hooks)
    1
    >>> len(hooks), handle.remove()   # (removing twice is harmless)
    (0, None)
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import MutableMapping
from typing import Any

__all__ = ["RemovableHandle"]

_ids = itertools.count()  # one sequence for every table: an id names one hook anywhere


class RemovableHandle:
    """A hook's key in `hooks_dict` (and in each of `extra_dict`, its options' tables)."""

    id: int

    def __init__(self, hooks_dict: MutableMapping[int, Any], *,
                 extra_dict: MutableMapping[int, Any] | list[MutableMapping[int, Any]] | None = None) -> None:
        self.id = next(_ids)
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        extras = [] if extra_dict is None else extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(table) for table in extras)

    def remove(self) -> None:
        """Take the hook off (and its options); harmless when it is already off."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            table = ref()
            if table is not None:
                table.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        table = self.hooks_dict_ref()
        state = "registered" if table is not None and self.id in table else "removed"
        return f"RemovableHandle(id={self.id}, {state})"
