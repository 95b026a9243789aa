"""A compiled function's results: one Tensor, or tuples, lists and dicts of them, as a flat list.

Example:
    >>> from torchlight.compile.flat import flatten, unflatten
    >>> leaves, structure = flatten((1, {"a": 2, "b": [3]}))
    >>> leaves, unflatten(structure, iter(leaves))
    ([1, 2, 3], (1, {'a': 2, 'b': [3]}))
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["flatten", "unflatten"]


def flatten(out: Any) -> tuple[list[Any], Any]:
    """fn's result as its leaves, in order, and the structure to rebuild it from them (None for
    one leaf alone): tuples, lists and dicts, nested."""
    if not isinstance(out, (tuple, list, dict)):
        return [out], None
    leaves: list[Any] = []

    def walk(v: Any) -> Any:
        if isinstance(v, dict):
            return (dict, tuple(v), tuple(walk(x) for x in v.values()))
        if isinstance(v, (tuple, list)):
            return (type(v), None, tuple(walk(x) for x in v))
        leaves.append(v)
        return None

    return leaves, walk(out)


def unflatten(structure: Any, leaves: Iterator[Any]) -> Any:
    """The inverse of `flatten`: `leaves` (an iterator) put back in `structure`."""
    if structure is None:
        return next(leaves)
    kind, keys, parts = structure
    items = [unflatten(p, leaves) for p in parts]
    if kind is dict:
        return dict(zip(keys, items))
    return kind(items) if kind in (tuple, list) else kind(*items)  # (a NamedTuple takes its fields)
