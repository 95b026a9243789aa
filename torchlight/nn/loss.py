"""`CrossEntropyLoss` and `NLLLoss`: the classification losses as Modules, with PyTorch's arguments.

Example:
    >>> import torchlight as tl
    >>> loss_fn = tl.nn.CrossEntropyLoss(weight=tl.tensor([1.0, 2.0]), label_smoothing=0.1)
    >>> loss_fn
    CrossEntropyLoss(weight=(2,), label_smoothing=0.1)
    >>> round(loss_fn(tl.tensor([[2.0, 0.0], [0.0, 0.0]]), tl.tensor([0, 1])).item(), 4)
    0.5616
"""

from __future__ import annotations

from typing import Any

from torchlight.nn import functional as F
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class NLLLoss(Module):
    """`F.nll_loss(log_probs, target, weight, ignore_index, reduction)`; `weight` is kept as a buffer
    (it moves with `.to()` and is saved in the state dict, as PyTorch's)."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__()
        F._check_reduction(reduction, type(self).__name__)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, log_probs: Tensor, target: Any) -> Tensor:
        return F.nll_loss(log_probs, target, self.weight, self.ignore_index, self.reduction)

    def extra_repr(self) -> str:
        parts = [] if self.weight is None else [f"weight={self.weight.shape}"]
        if self.ignore_index != -100:
            parts.append(f"ignore_index={self.ignore_index}")
        if self.reduction != "mean":
            parts.append(f"reduction={self.reduction!r}")
        return ", ".join(parts)


class CrossEntropyLoss(NLLLoss):
    """`F.cross_entropy(logits, target, weight, ignore_index, reduction, label_smoothing)`."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(weight, ignore_index, reduction)
        F._check_label_smoothing(label_smoothing, type(self).__name__)
        self.label_smoothing = label_smoothing

    def forward(self, logits: Tensor, target: Any) -> Tensor:
        return F.cross_entropy(logits, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        if self.label_smoothing:
            text += (", " if text else "") + f"label_smoothing={self.label_smoothing}"
        return text
