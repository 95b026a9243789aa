"""Gradient clipping, as `torch.nn.utils.clip_grad`: `clip_grad_norm_` (PyTorch's `get_total_norm`
then `clip_grads_with_norm_`) and `clip_grad_value_`.

The gradients are scaled or clamped in place (`Tensor.mul_`, `clamp_`)
without a graph; the total norm is returned as a 0-d Tensor.

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.zeros(2))
    >>> w.grad = tl.tensor([3.0, 4.0])
    >>> clip_grad_norm_([w], max_norm=1.0).item()        # the norm before clipping
    5.0
    >>> [round(v, 4) for v in w.grad.tolist()]
    [0.6, 0.8]
    >>> clip_grad_value_([w], 0.7); [round(v, 4) for v in w.grad.tolist()]
    [0.6, 0.7]
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from torchlight import grad_mode
from torchlight.creation import tensor
from torchlight.ops.shapes import stack
from torchlight.tensor import Tensor, check_same_backend

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]

_ERROR_HINT = ("so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
               "anyway, set `error_if_nonfinite=False`")


def _tensors(values: Any, op: str, what: str = "parameters") -> list[Tensor]:
    """A Tensor or an iterable of them, as a list (each checked)."""
    if isinstance(values, Tensor):
        return [values]
    if not isinstance(values, Iterable) or isinstance(values, str):
        raise TypeError(f"{op}: {what} must be a Tensor or an iterable of Tensors, not {type(values).__name__}")
    tensors = list(values)
    for i, value in enumerate(tensors):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}: {what} entry {i} is a {type(value).__name__}, not a Tensor")
    return tensors


def _number(value: Any, name: str, op: str) -> float:
    if isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be a number, not {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: {name} must be a number, not {value!r}") from None


def _vector_norm(t: Tensor, p: float) -> Tensor:
    """The p-norm of all of `t`'s entries (inf: the largest |entry|, -inf the smallest, 0 the count of
    non-zeros), as torch.linalg.vector_norm; a 0-d Tensor of `t`'s backend, without a graph."""
    xp = t.backend.xp
    size = xp.abs(xp.reshape(t.data, (-1,)))
    if p == math.inf:
        out = xp.max(size)
    elif p == -math.inf:
        out = xp.min(size)
    elif p == 0:
        out = xp.astype(xp.sum(xp.astype(size != 0, xp.int64)), size.dtype)
    elif p == 1:
        out = xp.sum(size)
    elif p == 2:
        out = xp.sqrt(xp.sum(size * size))
    else:
        out = xp.sum(size ** p) ** (1.0 / p)
    return Tensor._wrap(out, t.backend)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the norms of `tensors` (as if all were one vector): PyTorch's `get_total_norm`.

    A 0-d Tensor; 0.0 when there are no tensors. With `error_if_nonfinite`,
    a NaN or infinite total norm raises RuntimeError. `foreach` is accepted
    for PyTorch's signature (there is one way of computing here).

    Example:
        >>> import torchlight as tl
        >>> get_total_norm([tl.tensor([3.0]), tl.tensor([4.0])]).item()
        5.0
        >>> get_total_norm([tl.tensor([3.0]), tl.tensor([-4.0])], norm_type="inf").item()
        4.0
    """
    return _total_norm(tensors, norm_type, error_if_nonfinite, "get_total_norm")


def _total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float, error_if_nonfinite: bool, op: str) -> Tensor:
    """`get_total_norm` with the name of the function the user called in its errors."""
    tensors = _tensors(tensors, op, "tensors")
    p = _number(norm_type, "norm_type", op)
    if not tensors:
        return tensor(0.0)  # (as PyTorch: no gradient at all has norm 0)
    for t in tensors[1:]:
        check_same_backend(op, tensors[0], t)
    norms = [_vector_norm(t, p) for t in tensors]
    dtype = norms[0].backend.xp.result_type(*[n.dtype for n in norms]) if len(norms) > 1 else norms[0].dtype
    with grad_mode.no_grad():
        total = _vector_norm(stack([n if n.dtype == dtype else n.astype(dtype) for n in norms]), p)
    if error_if_nonfinite:  # (a lazy backend's check waits in the norm, and in the gradients clipped by it)
        error = RuntimeError(f"{op}: the total norm of order {p} for gradients from `parameters` is non-finite, "
                             f"{_ERROR_HINT}")
        total._replace_data(total.backend.checked(total.data, _non_finite, error))
    return total


def _non_finite(norm: Any) -> Any:
    """Where `norm` is infinite or NaN (operators only: a Dask chunk is checked as a NumPy block)."""
    return ~(abs(norm) < math.inf)


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every gradient by min(1, max_norm / (total_norm + 1e-6)), in place (PyTorch's).

    The factor is applied even where it is 1, as there; `total_norm` is what `get_total_norm` gives.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([3.0, 4.0]))
        >>> w.grad = tl.tensor([3.0, 4.0])
        >>> total = tl.nn.utils.get_total_norm([w.grad])
        >>> total.item()
        5.0
        >>> tl.nn.utils.clip_grads_with_norm_([w], max_norm=1.0, total_norm=total)
        >>> [round(v, 4) for v in w.grad.tolist()]
        [0.6, 0.8]
    """
    op = "clip_grads_with_norm_"
    grads = [p.grad for p in _tensors(parameters, op) if p.grad is not None]
    max_norm = _number(max_norm, "max_norm", op)
    if not grads:
        return
    if not isinstance(total_norm, Tensor):
        total_norm = grads[0]._lift(total_norm)
    with grad_mode.no_grad():
        coefficient = (max_norm / (total_norm.detach() + 1e-6)).clamp(max=1.0)
        for grad in grads:
            grad.mul_(coefficient if coefficient.dtype == grad.dtype else coefficient.astype(grad.dtype))


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale the gradients in place so that their total `norm_type`-norm is at most `max_norm`.

    Returns the total norm of the gradients of `parameters` from before (a 0-d Tensor), as PyTorch.

    `norm_type` may be `math.inf` or "inf" (the largest |gradient entry|).
    Parameters without a gradient are skipped. A non-finite total norm
    raises RuntimeError with `error_if_nonfinite=True` (before any gradient
    changes); otherwise the gradients are scaled by it (NaN), as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.zeros(2))
        >>> w.grad = tl.tensor([0.0, -8.0])
        >>> clip_grad_norm_(w, 2.0, norm_type=float("inf")).item(), [round(v, 4) for v in w.grad.tolist()]
        (8.0, [0.0, -2.0])
    """
    op = "clip_grad_norm_"
    parameters = _tensors(parameters, op)
    _number(max_norm, "max_norm", op)
    _number(norm_type, "norm_type", op)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = _total_norm(grads, norm_type, error_if_nonfinite, op)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient of `parameters` to [-clip_value, clip_value], in place, as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.zeros(3))
        >>> w.grad = tl.tensor([-5.0, 0.5, 5.0])
        >>> clip_grad_value_(w, 1.0); w.grad.tolist()
        [-1.0, 0.5, 1.0]
    """
    op = "clip_grad_value_"
    parameters = _tensors(parameters, op)
    value = _number(clip_value, "clip_value", op)
    with grad_mode.no_grad():
        for param in parameters:
            if param.grad is not None:
                param.grad.clamp_(-value, value)
