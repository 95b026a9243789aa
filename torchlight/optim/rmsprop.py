"""RMSprop (Hinton's lecture notes; Graves 2013 for the centered form), as PyTorch's `torch.optim.RMSprop`.

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
    >>> opt = tl.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward(); opt.step()
    >>> [round(v, 4) for v in w.tolist()]   # the first step moves each weight by lr / sqrt(1 - alpha)
    [0.9, -1.9]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from torchlight.optim.optimizer import Optimizer, _check

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, as PyTorch's `torch.optim.RMSprop` (maximize, foreach and the like are not offered).

    g = grad + weight_decay * w; square_avg = alpha * square_avg + (1 - alpha) * g**2;
    centered: grad_avg = alpha * grad_avg + (1 - alpha) * g and avg = sqrt(square_avg - grad_avg**2) + eps,
    else avg = sqrt(square_avg) + eps; with momentum: buf = momentum * buf + g / avg and w -= lr * buf,
    else w -= lr * g / avg. The state (`step`, `square_avg`, `momentum_buffer`, `grad_avg`) has
    PyTorch's names.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([2.0]))
        >>> opt = tl.optim.RMSprop([w], lr=0.1, momentum=0.9, centered=True)
        >>> (w * w).sum().backward(); opt.step()
        >>> sorted(opt.state[w])
        ['grad_avg', 'momentum_buffer', 'square_avg', 'step']
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False) -> None:
        _check("lr", lr, 0.0)
        _check("alpha", alpha, 0.0)
        _check("eps", eps, 0.0)
        _check("weight_decay", weight_decay, 0.0)
        _check("momentum", momentum, 0.0)
        super().__init__(params, {"lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay,
                                  "momentum": momentum, "centered": centered})

    def _update(self, xp: Any, w: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> Any:
        alpha, eps, decay, momentum = group["alpha"], group["eps"], group["weight_decay"], group["momentum"]
        if decay:
            g = g + decay * w
        zeros = xp.zeros_like(w)
        square_avg = state.get("square_avg", zeros)
        square_avg = alpha * square_avg + (1.0 - alpha) * (g * g)
        state["step"] = state.get("step", 0) + 1
        state["square_avg"] = square_avg
        if group["centered"]:
            grad_avg = state.get("grad_avg", zeros)
            grad_avg = grad_avg + (1.0 - alpha) * (g - grad_avg)  # PyTorch's lerp
            state["grad_avg"] = grad_avg
            avg = xp.sqrt(square_avg - grad_avg * grad_avg) + eps
        else:
            avg = xp.sqrt(square_avg) + eps
        if momentum > 0:
            buf = momentum * state.get("momentum_buffer", zeros) + g / avg
            state["momentum_buffer"] = buf
            return w - group["lr"] * buf
        return w - group["lr"] * (g / avg)
