"""The losses as Modules, with PyTorch's arguments: `CrossEntropyLoss`, `NLLLoss`, `MSELoss`, `L1Loss`,
`BCELoss`, `BCEWithLogitsLoss`, `HuberLoss`, `SmoothL1Loss`, `KLDivLoss`.

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
    """`F.nll_loss(log_probs, target, weight, ignore_index=, reduction=)`; `weight` is kept as a buffer.

    The buffer moves with `.to()` and is saved in the state dict, as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> log_probs = tl.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 3.0]]).log_softmax(1)
        >>> round(tl.nn.NLLLoss()(log_probs, tl.tensor([0, 2])).item(), 6)
        0.167234
        >>> loss = tl.nn.NLLLoss(weight=tl.tensor([1.0, 1.0, 3.0]))
        >>> list(loss.state_dict())
        ['weight']
    """

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__()
        F._check_reduction(reduction, type(self).__name__)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, log_probs: Tensor, target: Any) -> Tensor:
        return F.nll_loss(log_probs, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)

    def extra_repr(self) -> str:
        parts = [] if self.weight is None else [f"weight={self.weight.shape}"]
        if self.ignore_index != -100:
            parts.append(f"ignore_index={self.ignore_index}")
        if self.reduction != "mean":
            parts.append(f"reduction={self.reduction!r}")
        return ", ".join(parts)


class CrossEntropyLoss(NLLLoss):
    """`F.cross_entropy(logits, target, weight, ignore_index=, reduction=, label_smoothing=)`.

    Example:
        >>> import torchlight as tl
        >>> logits = tl.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 3.0]])
        >>> target = tl.tensor([0, 2])
        >>> round(tl.nn.CrossEntropyLoss()(logits, target).item(), 6)
        0.167234
        >>> [round(v, 6) for v in tl.nn.CrossEntropyLoss(reduction="none")(logits, target).tolist()]
        [0.239545, 0.094923]
    """

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(weight, ignore_index, reduction)
        F._check_label_smoothing(label_smoothing, type(self).__name__)
        self.label_smoothing = label_smoothing

    def forward(self, logits: Tensor, target: Any) -> Tensor:
        return F.cross_entropy(logits, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        if self.label_smoothing:
            text += (", " if text else "") + f"label_smoothing={self.label_smoothing}"
        return text


class _Loss(Module):
    """A loss with PyTorch's `reduction` (its deprecated `size_average` / `reduce` flags read as PyTorch)."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__()
        if reduction == "batchmean" and type(self).__name__ == "KLDivLoss" and size_average is None \
                and reduce is None:
            self.reduction = reduction
        else:
            self.reduction = F._legacy_reduction(size_average, reduce, reduction, type(self).__name__)

    def extra_repr(self) -> str:
        return "" if self.reduction == "mean" else f"reduction={self.reduction!r}"


class MSELoss(_Loss):
    """`F.mse_loss(input, target, reduction=)`: the mean squared error.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.MSELoss(reduction="sum")(tl.tensor([1.0, 2.0]), tl.tensor([0.0, 0.0])).item()
        5.0
    """

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """`F.l1_loss(input, target, reduction=)`: the mean absolute error.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.L1Loss()(tl.tensor([1.0, -2.0]), tl.tensor([0.0, 0.0])).item()
        1.5
    """

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class BCELoss(_Loss):
    """`F.binary_cross_entropy(input, target, weight, reduction=)`; `weight` is a buffer, as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> round(tl.nn.BCELoss()(tl.tensor([0.8, 0.4]), tl.tensor([1.0, 0.0])).item(), 6)
        0.366985
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """`F.binary_cross_entropy_with_logits(input, target, weight, reduction=, pos_weight=)` as a module.

    Sigmoid and binary cross-entropy in one stable expression; `weight` and `pos_weight` are buffers, as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> loss_fn = tl.nn.BCEWithLogitsLoss(pos_weight=tl.tensor([2.0]))
        >>> round(loss_fn(tl.tensor([[0.0], [0.0]]), tl.tensor([[1.0], [0.0]])).item(), 6)   # (2 + 1) log 2 / 2
        1.039721
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class HuberLoss(_Loss):
    """`F.huber_loss(input, target, reduction, delta)`: squared below `delta`, linear above.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.HuberLoss(reduction="none")(tl.tensor([0.5, 3.0]), tl.tensor([0.0, 0.0])).tolist()
        [0.125, 2.5]
        >>> tl.nn.HuberLoss()(tl.tensor([0.5, 3.0]), tl.tensor([0.0, 0.0])).item()
        1.3125
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not delta > 0:
            raise ValueError(f"HuberLoss: delta must be a number > 0, not {delta!r}")
        self.delta = delta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """`F.smooth_l1_loss(input, target, reduction=, beta=)`: huber_loss / beta (l1_loss at beta 0).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.SmoothL1Loss(reduction="none", beta=2.0)(tl.tensor([0.5, 3.0]), tl.tensor([0.0, 0.0])).tolist()
        [0.0625, 2.0]
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
            raise ValueError(f"SmoothL1Loss: beta must be a number >= 0, not {beta!r}")
        self.beta = beta

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class KLDivLoss(_Loss):
    """`F.kl_div(input, target, reduction=, log_target=)`: `input` holds log-probabilities.

    Use `reduction="batchmean"` for the divergence itself (the sum over a batch divided by its size).

    Example:
        >>> import torchlight as tl
        >>> loss_fn = tl.nn.KLDivLoss(reduction="batchmean", log_target=True)
        >>> p = tl.tensor([[0.25, 0.75]]).log()
        >>> loss_fn(p, p).item()
        0.0
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
