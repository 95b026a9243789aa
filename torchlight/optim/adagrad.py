"""Adagrad (Duchi, Hazan and Singer, 2011), as PyTorch's `torch.optim.Adagrad`.

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
    >>> opt = tl.optim.Adagrad([w], lr=0.5)
    >>> (w * w).sum().backward(); opt.step()
    >>> [round(v, 6) for v in w.tolist()]   # the first step is lr * g / (|g| + eps): about lr * sign(g)
    [0.5, -1.5]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from torchlight.optim.optimizer import Optimizer, _check

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, as PyTorch's `torch.optim.Adagrad` (dense gradients; maximize, foreach, fused not offered).

    g = grad + weight_decay * w; clr = lr / (1 + (step - 1) * lr_decay); sum += g**2;
    w -= clr * g / (sqrt(sum) + eps). As PyTorch, every parameter's state (`step` 0, `sum` filled
    with initial_accumulator_value) exists from construction on.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([1.0]))
        >>> opt = tl.optim.Adagrad([w], initial_accumulator_value=0.1)
        >>> opt.state[w]["step"], opt.state[w]["sum"].tolist()
        (0, [0.1])
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10) -> None:
        _check("lr", lr, 0.0)
        _check("lr_decay", lr_decay, 0.0)
        _check("weight_decay", weight_decay, 0.0)
        _check("initial_accumulator_value", initial_accumulator_value, 0.0)
        _check("eps", eps, 0.0)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value})
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = {"step": 0, "sum": p.backend.xp.full_like(p.data, initial_accumulator_value)}

    def _update(self, xp: Any, w: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> Any:
        if "sum" not in state:  # a parameter of a group added after construction
            state.update(step=0, sum=xp.full_like(w, group["initial_accumulator_value"]))
        step = state["step"] + 1
        if group["weight_decay"]:
            g = g + group["weight_decay"] * w
        clr = group["lr"] / (1.0 + (step - 1) * group["lr_decay"])
        total = state["sum"] + g * g
        state.update(step=step, sum=total)
        return w - clr * (g / (xp.sqrt(total) + group["eps"]))
