"""Pytrees: nested tuples, lists, dicts and namedtuples, flattened to their leaves and rebuilt.

The semantics are `torch.utils._pytree`'s: a tuple, a list, a dict (keys kept
in their insertion order) and a namedtuple (its type kept) are nodes;
anything else, `None` included, is a leaf. (JAX reads `None` as an empty
node; torchlight's transforms pass a `None` leaf through and give it a `None`
gradient, which is what JAX's reading gives too.)

Example:
    >>> from torchlight.func import tree_flatten, tree_unflatten, tree_map
    >>> leaves, spec = tree_flatten({"w": [1, 2], "b": (3,)})
    >>> leaves
    [1, 2, 3]
    >>> tree_unflatten([10, 20, 30], spec)
    {'w': [10, 20], 'b': (30,)}
    >>> tree_map(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)])
    [11, (22, 33)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["TreeSpec", "tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten"]


class TreeSpec:
    """The structure of a pytree: its node type, context (dict keys, namedtuple type) and children.

    A leaf's spec has `type` None and no children. Two specs are equal when
    the structures are (same node types, same keys in the same order).

    Example:
        >>> from torchlight.func import tree_flatten, tree_structure, tree_unflatten
        >>> leaves, spec = tree_flatten({"w": [1, 2], "b": 3})
        >>> spec
        TreeSpec(dict, ['w', 'b'], [TreeSpec(list, [*, *]), *])
        >>> spec.num_leaves, spec == tree_structure({"w": [0, 0], "b": 0})
        (3, True)
        >>> spec == tree_structure({"b": 0, "w": [0, 0]})  # the same keys in another order
        False
        >>> tree_unflatten(["x", "y", "z"], spec)
        {'w': ['x', 'y'], 'b': 'z'}
    """

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, type: type | None, context: Any = None, children: list[TreeSpec] | None = None) -> None:
        self.type = type
        self.context = context
        self.children = children or []
        self.num_leaves: int = 1 if type is None else sum(c.num_leaves for c in self.children)

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self.type is None:
            return "*"
        name = "namedtuple" if _is_namedtuple_type(self.type) else self.type.__name__
        context = f", {self.context!r}" if self.context is not None else ""
        return f"TreeSpec({name}{context}, [{', '.join(map(repr, self.children))}])"

    def unflatten(self, leaves: Iterator[Any]) -> Any:
        if self.type is None:
            return next(leaves)
        children = [c.unflatten(leaves) for c in self.children]
        if self.type is dict:
            return dict(zip(self.context, children))
        if _is_namedtuple_type(self.type):
            return self.type(*children)
        return self.type(children)


LEAF = TreeSpec(None)


def _is_namedtuple_type(kind: type) -> bool:
    return issubclass(kind, tuple) and hasattr(kind, "_fields")


def _node(tree: Any) -> tuple[type, Any, list[Any]] | None:
    """(node type, context, children) of a node; None for a leaf."""
    kind = type(tree)
    if kind is tuple or kind is list:
        return kind, None, list(tree)
    if kind is dict:
        return dict, list(tree), list(tree.values())
    if isinstance(tree, tuple) and hasattr(kind, "_fields"):
        return kind, None, list(tree)
    return None


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """The leaves of `tree` (depth first, left to right) and its structure.

    Example:
        >>> tree_flatten((1, [2, None]))[0]
        [1, 2, None]
    """
    leaves: list[Any] = []
    return leaves, _flatten_into(tree, leaves)


def _flatten_into(tree: Any, leaves: list[Any]) -> TreeSpec:
    node = _node(tree)
    if node is None:
        leaves.append(tree)
        return LEAF
    kind, context, children = node
    return TreeSpec(kind, context, [_flatten_into(c, leaves) for c in children])


def tree_unflatten(leaves: Any, spec: TreeSpec) -> Any:
    """The pytree of structure `spec` holding `leaves` (the inverse of `tree_flatten`).

    Example:
        >>> _, spec = tree_flatten([0, {"a": 0}])
        >>> tree_unflatten(["x", "y"], spec)
        ['x', {'a': 'y'}]
    """
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"tree_unflatten: {len(leaves)} leaves for a structure of {spec.num_leaves}")
    return spec.unflatten(iter(leaves))


def tree_leaves(tree: Any) -> list[Any]:
    """The leaves of `tree`.

    Example:
        >>> tree_leaves({"a": 1, "b": (2, 3)})
        [1, 2, 3]
    """
    return tree_flatten(tree)[0]


def tree_structure(tree: Any) -> TreeSpec:
    """The structure of `tree`.

    Example:
        >>> tree_structure([1, 2])
        TreeSpec(list, [*, *])
    """
    return tree_flatten(tree)[1]


def tree_map(fn: Callable[..., Any], tree: Any, *rests: Any) -> Any:
    """`tree` with each leaf `x` replaced by `fn(x, *same leaves of rests)`; `rests` share its structure.

    Example:
        >>> tree_map(lambda x: x * 2, {"a": 1, "b": [2]})
        {'a': 2, 'b': [4]}
    """
    leaves, spec = tree_flatten(tree)
    others = []
    for i, rest in enumerate(rests):
        rest_leaves, rest_spec = tree_flatten(rest)
        if rest_spec != spec:
            raise ValueError(f"tree_map: tree {i + 1} has structure {rest_spec}, not {spec}")
        others.append(rest_leaves)
    return spec.unflatten(iter([fn(*xs) for xs in zip(leaves, *others)]))


# ------------------------------------------------------------ for the transforms
def leaves_with_paths(tree: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(path, leaf) pairs, the path written as Python indexing: `[0]['W']`."""
    node = _node(tree)
    if node is None:
        return [(prefix, tree)]
    kind, context, children = node
    keys = context if kind is dict else range(len(children))
    out: list[tuple[str, Any]] = []
    for key, child in zip(keys, children):
        out += leaves_with_paths(child, f"{prefix}[{key!r}]")
    return out


def broadcast_prefix(name: str, what: str, prefix: Any, tree: Any, path: str = "") -> list[Any]:
    """One entry of `prefix` per leaf of `tree`: `prefix` is a pytree whose leaves stand for whole
    subtrees of `tree` (as vmap's in_dims and out_dims); a ValueError names where they differ."""
    node = _node(prefix)
    if node is None:
        return [prefix] * tree_structure(tree).num_leaves
    tree_node = _node(tree)
    kind, context, children = node
    if tree_node is None or tree_node[0] is not kind or tree_node[1] != context or len(tree_node[2]) != len(children):
        size = "" if tree_node is None else f" of {len(tree_node[2])}"
        raise ValueError(f"{name}: {what} {prefix!r} does not match the structure of the value at "
                         f"{path or 'the top'} (a {type(tree).__name__}{size}); "
                         "give one entry per element, or a single int/None for all")
    keys = context if kind is dict else range(len(children))
    out: list[Any] = []
    for key, p, t in zip(keys, children, tree_node[2]):
        out += broadcast_prefix(name, what, p, t, f"{path}[{key!r}]")
    return out
