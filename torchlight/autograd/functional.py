"""`torchlight.autograd.grad`: gradients returned instead of accumulated.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor(3.0, requires_grad=True)
    >>> (dx,) = tl.autograd.grad(x ** 3, [x], create_graph=True)
    >>> (d2x,) = tl.autograd.grad(dx, [x])
    >>> dx.item(), d2x.item()
    (27.0, 18.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchlight.autograd.engine import run_backward


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, *, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool = False) -> tuple:
    """d(outputs)/d(inputs) as a tuple, one entry per input, as PyTorch's.

    `grad_outputs` seeds each output (ones when None). An input that does
    not influence the outputs raises unless `allow_unused=True` (then None).
    `retain_graph` defaults to `create_graph`.
    """
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    single = not isinstance(inputs, (list, tuple))
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None:
        grad_outputs = [1.0] * len(outputs)
    elif not isinstance(grad_outputs, (list, tuple)):
        grad_outputs = [grad_outputs]
    _check(outputs, inputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    seeds = [o.seed_derivative(g) for o, g in zip(outputs, grad_outputs)]
    grads = run_backward(outputs, seeds, retain_graph=retain_graph, create_graph=create_graph, capture=inputs)
    for i, g in enumerate(grads):
        if g is None and not allow_unused:
            raise RuntimeError(
                f"grad: input {i} (shape {inputs[i].shape}) does not influence the outputs; "
                "pass allow_unused=True to get None for it"
            )
    return tuple(grads)


def _check(outputs: Sequence[Any], inputs: Sequence[Any], grad_outputs: Sequence[Any]) -> None:
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"grad: {len(grad_outputs)} grad_outputs for {len(outputs)} outputs")
    for o in outputs:
        if not o.requires_grad:
            raise RuntimeError("grad: an output does not require grad and has no history")
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError(f"grad: input {i} does not require grad")
