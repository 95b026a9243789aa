"""`torchlight.autograd.grad`: gradients returned instead of accumulated.

`grad(outputs, inputs)` runs the same engine as `backward()`, but hands the
gradient reaching each input back to the caller and leaves every `.grad`
untouched. It is what `torchlight.func` is built on.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor(3.0, requires_grad=True)
    >>> (dx,) = tl.autograd.grad(x ** 3, [x], create_graph=True)
    >>> (d2x,) = tl.autograd.grad(dx, [x])
    >>> dx.item(), d2x.item()
    (27.0, 18.0)
    >>> x.grad is None
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchlight import grad_mode
from torchlight.engine import run_backward, sort_nodes
from torchlight.ops.copies import Clone
from torchlight.tensor import Tensor


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, *, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False, materialize_grads: bool = False) -> tuple:
    """d(outputs)/d(inputs) as a tuple, one entry per input, as PyTorch's.

    - `outputs`, `inputs`: a Tensor or a sequence of Tensors. Every output
      and every input must require grad; inputs may be non-leaves.
    - `grad_outputs`: one seed per output (a Tensor, an array or a number);
      None, or a None entry, seeds ones, whatever the output's shape (the
      same decision as `Tensor.backward()`, where PyTorch demands a scalar).
    - An input that does not influence the outputs raises `RuntimeError`,
      unless `allow_unused=True` (then its entry is None) or
      `materialize_grads=True` (then it is zeros of the input's shape).
    - `retain_graph` defaults to `create_graph`; with `create_graph=True`
      the results carry history, so they can be differentiated again.

    Nothing is accumulated into `.grad`. Each result is its own array: a
    gradient the engine passed on unchanged to two inputs, or a seed that
    reaches an input as it is, is copied rather than shared.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> w = tl.tensor([3.0, 4.0], requires_grad=True)
        >>> tl.autograd.grad((x * w).sum(), [x, w])
        (tensor([3., 4.]), tensor([1., 2.]))
        >>> tl.autograd.grad(x * 2, x, grad_outputs=tl.tensor([1.0, 10.0]))  # a vector-Jacobian product
        (tensor([ 2., 20.]),)
        >>> tl.autograd.grad((x * x).sum(), [x, w], allow_unused=True)  # w does not reach it
        (tensor([2., 4.]), None)
        >>> x.grad is None and w.grad is None
        True
    """
    outputs = _tensors("outputs", outputs)
    inputs = _tensors("inputs", inputs)
    grad_outputs = _seeds(grad_outputs, len(outputs))
    _check(outputs, inputs, grad_outputs)
    allow_unused = allow_unused or materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    seeds = [o.seed_derivative(1.0 if g is None else g) for o, g in zip(outputs, grad_outputs)]
    grads = run_backward(outputs, seeds, retain_graph=retain_graph, create_graph=create_graph, capture=inputs)
    assert grads is not None  # (with capture=, one gradient or None per input)
    for i, g in enumerate(grads):
        if g is None and not allow_unused:
            raise RuntimeError(_unused(i, inputs[i], outputs))
    handed = {id(s.data) for s in seeds}
    results = []
    for x, g in zip(inputs, grads):
        if g is None:
            results.append(_zeros_like(x) if materialize_grads else None)
            continue
        results.append(_own(g, x, handed, create_graph))
    return tuple(results)


def _unused(i: int, x: Any, outputs: Sequence[Any]) -> str:
    """The error for input `i`, which got no gradient: not in the graph, or reached only
    through ops whose backward gives it no gradient (a Function returning None for it, say)."""
    node = x.graph_node
    reached = any(n is node for n in sort_nodes([o for o in outputs if o.requires_grad]))
    why = ("is in the outputs' graph, but no gradient reaches it: every path to it goes through "
           "an op whose backward returns None for it"
           if reached else "does not influence the outputs")
    return (f"grad: input {i} (shape {x.shape}) {why}; pass allow_unused=True to get None for it "
            "(or materialize_grads=True for zeros)")


def _tensors(what: str, value: Any) -> list[Any]:
    """A Tensor or a sequence of Tensors as a list (a TypeError otherwise)."""
    items = [value] if isinstance(value, Tensor) else list(value) if isinstance(value, (list, tuple)) else None
    if items is None or not all(isinstance(t, Tensor) for t in items):
        raise TypeError(f"grad: {what} must be a Tensor or a sequence of Tensors, got {type(value).__name__}")
    if not items:
        raise ValueError(f"grad: {what} is empty")
    return items


def _seeds(grad_outputs: Any, n: int) -> list[Any]:
    if grad_outputs is None:
        return [None] * n
    if isinstance(grad_outputs, (list, tuple)):
        return list(grad_outputs)
    return [grad_outputs]


def _check(outputs: Sequence[Any], inputs: Sequence[Any], grad_outputs: Sequence[Any]) -> None:
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"grad: {len(grad_outputs)} grad_outputs for {len(outputs)} outputs")
    for i, o in enumerate(outputs):
        if not o.requires_grad:
            raise RuntimeError(f"grad: output {i} does not require grad and has no history")
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError(f"grad: input {i} does not require grad")


def _own(g: Any, x: Any, handed: set[int], create_graph: bool) -> Any:
    """`g` as a Tensor no other result (nor a seed) shares an array with.

    A gradient that requires grad (made with `create_graph`, or a seed that
    requires grad reaching an input unchanged, as through `+` or `clone`)
    stays differentiable under `create_graph`: a shared one is cloned in the
    graph, not copied out of it (else d/du of `grad(x, x, u)` would be lost,
    and `func.jvp` of `a + 1` would be 0). Without `create_graph` it is
    returned detached, as every other result.
    """
    if g.requires_grad:
        if create_graph:
            if id(g.data) in handed:
                with grad_mode.enable_grad():
                    g = Clone.apply(g)
            handed.add(id(g.data))
            return g
        g = g.detach()
    if id(g.data) in handed or not x.backend.owns_fresh_memory(g.data):
        g = type(g)._wrap(x.backend.copy(g.data), x.backend)
    else:
        g = type(g)._wrap(g.data, x.backend)
    handed.add(id(g.data))
    return g


def _zeros_like(x: Any) -> Any:
    return type(x)._wrap(x.backend.xp.zeros_like(x.data), x.backend)
