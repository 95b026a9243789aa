"""`backward` and `zero_grad` on a graph of Values: the chain rule in place on each node's `grad`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchlight.engine import topological_sort
from torchlight.scalar.functions import _binary_vjp

if TYPE_CHECKING:
    from torchlight.scalar.node import Value


def zero_grad(v: Value) -> None:
    """Reset the gradients of every node of the graph feeding `v`.

    The nodes are the ones `topological_sort(v)` lists (plus `v`), but no
    order is needed to zero them, so a plain depth-first walk does it in
    about two thirds of the time of the sort.
    """
    v.grad = 0.0
    stack = [v]
    seen: set[int] = set()
    push, pop, mark, has = stack.append, stack.pop, seen.add, seen.__contains__
    while stack:
        node = pop()
        node.grad = 0.0
        if node._op is None:
            continue
        for parent in (node._a, node._b):
            if parent is not None and parent.requires_grad and not has(id(parent)):
                mark(id(parent))
                push(parent)


def backward(v: Value) -> None:
    """Clear the graph's old gradients, seed `v.grad = 1.0` and propagate.

    Every non-constant node feeding `v` ends with d v / d node, so calling
    it twice gives the same gradients. The order is the engine's
    `topological_sort`, shared with Tensors; the chain rule runs here, in
    place on each node's `grad`: a Value's gradient is one float, so it
    needs none of the engine's bookkeeping (pending gradients keyed by node,
    (input, gradient) pairs, a commit pass), which costs about as much
    again as the sort. A derivative that raises leaves the graph's
    gradients cleared, never half propagated. The engine's
    `backpropagate(v, 1.0)`, called directly, adds into `grad` as usual.
    """
    if not v.requires_grad:
        v.grad = 0.0
        return
    order = topological_sort(v)  # leaves first, root last
    for node in order:
        node.grad = 0.0
    v.grad = 1.0
    order.reverse()  # root first: a node has all its gradient before it passes it on
    try:
        _propagate(order)
    except BaseException:
        for node in order:
            node.grad = 0.0
        raise


def _propagate(order: list[Value]) -> None:
    """Add each node's `grad` times its local derivatives into its inputs' `grad`."""
    a: Value  # (not None where read: a node with an _op has its input _a, set with it in _binary)
    for node in order:
        op = node._op
        if op is None:
            continue
        d, a, b = node.grad, node._a, node._b  # type: ignore[assignment]
        if b is None:
            if a.requires_grad:
                a.grad += op.vjp(d, node.data, a.data)
            continue
        da, db = _binary_vjp(op, d, node.data, a.data, b.data)
        if a.requires_grad:
            a.grad += da
        if b.requires_grad:
            b.grad += db
