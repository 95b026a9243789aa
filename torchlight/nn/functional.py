"""`torchlight.nn.functional`: activations, losses and layers as functions.

Every function takes Tensors and returns a Tensor that backward can go
through; each is built from the ops of `torchlight.autograd.functions`
(array API only), so it runs on every backend and its gradient can be
differentiated again. Bad input raises a ValueError or TypeError naming the
function and what was wrong, before anything is computed.

Example:
    >>> import torchlight as tl
    >>> import torchlight.nn.functional as F
    >>> logits = tl.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], requires_grad=True)
    >>> loss = F.cross_entropy(logits, tl.tensor([0, 2]))
    >>> round(loss.item(), 4)     # mean of 0.2413 and 0.1096
    0.1755
    >>> loss.backward()
    >>> logits.grad.shape
    (2, 3)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from torchlight.autograd import functions as fn
from torchlight.nn import ops as nn_ops  # the Functions only nn.functional uses
from torchlight.ops import indexing, special
from torchlight.tensor import Tensor, check_same_backend

__all__ = [
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "gelu",
    "group_norm",
    "hardtanh",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "logsumexp",
    "max_pool2d",
    "mish",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softplus",
    "tanh",
    "conv1d",
    "conv_transpose2d",
    "scaled_dot_product_attention",
]

REDUCTIONS = ("mean", "sum", "none")


# ----------------------------------------------------------------- helpers
def _lift(x: Any, like: Tensor) -> Tensor:
    """A target given as a list or array, as a Tensor on `like`'s backend."""
    if isinstance(x, Tensor):
        return x
    return like._lift(x)


def _reduce(loss: Tensor, reduction: str, op: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{op}: reduction must be one of {', '.join(map(repr, REDUCTIONS))}, not {reduction!r}")


def _check_reduction(reduction: str, op: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {', '.join(map(repr, REDUCTIONS))}, not {reduction!r}")


def _pair(value: int | Sequence[int], name: str, op: str, minimum: int) -> tuple[int, int]:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and v >= minimum for v in pair):
        raise ValueError(f"{op}: {name} must be an int >= {minimum} or a pair of them, not {value!r}")
    return pair


def _check_float(x: Tensor, op: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: the input must be a Tensor, not {type(x).__name__}")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: the input must have a floating-point dtype, not {x.dtype}")


def _elementwise_target(input: Tensor, target: Any, reduction: str, op: str) -> Tensor:
    """Check the arguments of an elementwise loss; the target as a Tensor of input's shape."""
    _check_float(input, op)
    _check_reduction(reduction, op)
    target = _lift(target, input)
    if target.shape != input.shape:
        raise ValueError(f"{op}: input shape {input.shape} and target shape {target.shape} differ")
    return target


def _class_labels(target: Any, like: Tensor, classes: int, op: str, what: str = "labels",
                  of: str = "classes", ignore_index: int | None = None) -> tuple[Tensor, Any]:
    """`target` as an integer Tensor of `like`'s backend, and where it equals `ignore_index`.

    Every other entry must lie in [0, classes) (a ValueError names the first
    few that do not). The mask is None when no entry is ignored, so the
    common case, every label in range and `ignore_index` outside it, costs
    one check on the device. On a lazy backend (Dask) the check is folded
    into the labels and raises when they are computed, and the mask is
    always made, since whether any label is ignored is not known yet.
    """
    target = _lift(target, like)
    if not target.backend.xp.isdtype(target.dtype, "integral"):
        raise TypeError(f"{op}: {what} must have an integer dtype, not {target.dtype}")
    xp, info = target.backend.xp, target.backend.xp.iinfo(target.dtype)
    ignorable = ignore_index is not None and info.min <= ignore_index <= info.max
    spared = ignore_index if ignorable else None
    if target.backend.lazy:
        return _lazily_checked_labels(target, classes, spared, (op, what, of, classes, ignore_index))
    bad = target.data < 0
    if classes <= info.max:  # (uint8 labels of 300 classes: 300 is no uint8 to compare with)
        bad = bad | (target.data >= classes)
    if not target.size or not bool(xp.any(bad)):
        if not (ignorable and 0 <= ignore_index < classes and target.size):  # type: ignore[operator]  # ignorable: an int
            return target, None
        ignored = target.data == ignore_index
        return target, ignored if bool(xp.any(ignored)) else None
    ignored = target.data == ignore_index if ignorable else None
    if ignored is None or bool(xp.any(bad & ~ignored)):
        labels = target.backend.to_numpy(target.data)  # (not Tensor.numpy, which tl.compile's recording refuses)
        _judge_labels([_wrong_labels(np, labels, classes, spared)], (op, what, of, classes, ignore_index))
    return target, ignored


def _lazily_checked_labels(target: Tensor, classes: int, spared: int | None, names: tuple) -> tuple[Tensor, Any]:
    """The labels with their range check inside the graph (a lazy backend), and the mask of `spared`."""
    summarise = functools.partial(_wrong_labels, classes=classes, spared=spared)
    data = target.backend.checked_by_parts((target.data,), summarise, functools.partial(_judge_labels, names=names))
    ignored = None if spared is None or not target.size else data == spared
    return Tensor._wrap(data, target.backend), ignored


def _wrong_labels(xp: Any, labels: Any, classes: int, spared: int | None) -> list[int]:
    """The (at most five) smallest distinct labels outside [0, classes), `spared` aside (None: none is)."""
    bad = labels < 0
    if classes <= xp.iinfo(labels.dtype).max:
        bad = bad | (labels >= classes)
    if spared is not None:
        bad = bad & (labels != spared)
    return sorted({int(v) for v in xp.reshape(labels, (-1,))[xp.reshape(bad, (-1,))].tolist()})[:5]


def _judge_labels(parts: list[list[int]], names: tuple[str, str, str, int, int | None]) -> None:
    """Raise the ValueError naming the first few wrong labels of all `parts`, if there are any.

    `names`: the op, what the labels are called and what they count (as in
    "labels [3] out of range for 3 classes"), the number of classes and
    `ignore_index` (None where the op has none).
    """
    wrong = sorted(set().union(*parts))[:5]
    if not wrong:
        return
    op, what, of, classes, ignore_index = names
    allowed = f"[0, {classes - 1}]" + ("" if ignore_index is None else f" or equal ignore_index={ignore_index}")
    raise ValueError(f"{op}: {what} {wrong} out of range for {classes} {of} ({what} must be in {allowed})")


# ------------------------------------------------------------- activations
def relu(x: Tensor) -> Tensor:
    """max(x, 0); relu'(0) = 0, as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> x = tl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        >>> y = F.relu(x)
        >>> y.sum().backward()
        >>> y.tolist(), x.grad.tolist()
        ([0.0, 0.0, 2.0], [0.0, 0.0, 1.0])
    """
    return x.relu()


def sigmoid(x: Tensor) -> Tensor:
    """1 / (1 + exp(-x)), without overflow.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> F.sigmoid(tl.tensor([-1000.0, 0.0, 1000.0])).tolist()
        [0.0, 0.5, 1.0]
    """
    return x.sigmoid()


def tanh(x: Tensor) -> Tensor:
    """The hyperbolic tangent; its gradient 1 - tanh(x)**2 is computed from the output.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> x = tl.tensor([0.0, 1.0], requires_grad=True)
        >>> y = F.tanh(x)
        >>> y.sum().backward()
        >>> [round(v, 4) for v in y.tolist()], [round(v, 4) for v in x.grad.tolist()]
        ([0.0, 0.7616], [1.0, 0.42])
    """
    return x.tanh()


def softplus(x: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta, stable for large |x|; its derivative is sigmoid(beta x).

    Where beta x > threshold it is x itself (PyTorch's switch to the linear function).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> [round(v, 6) for v in F.softplus(tl.tensor([-1.0, 0.0, 30.0]), beta=2.0).tolist()]
        [0.063464, 0.346574, 30.0]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"softplus: the input must be a Tensor, not {type(x).__name__}")
    smooth = nn_ops.Softplus.apply(x) if beta == 1.0 else nn_ops.Softplus.apply(x * beta) / beta
    if x.backend.xp.isdtype(x.dtype, "complex floating"):  # (no threshold: complex numbers have no order)
        return smooth
    return nn_ops.SelectAbove.apply(x, smooth, threshold, x * beta)


def leaky_relu(x: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope * x (the slope at 0, as PyTorch).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.functional.leaky_relu(tl.tensor([-2.0, 3.0]), 0.1).tolist()
        [-0.2, 3.0]
    """
    _check_float(x, "leaky_relu")
    _check_no_inplace(inplace, "leaky_relu")
    return nn_ops.SelectAbove.apply(x, x * negative_slope, 0.0)


def silu(x: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (the swish).

    Example:
        >>> import torchlight as tl
        >>> round(tl.nn.functional.silu(tl.tensor([1.0])).item(), 6)
        0.731059
    """
    _check_float(x, "silu")
    _check_no_inplace(inplace, "silu")
    return x * x.sigmoid()


def elu(x: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else alpha * (exp(x) - 1).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 6) for v in tl.nn.functional.elu(tl.tensor([-1.0, 2.0])).tolist()]
        [-0.632121, 2.0]
    """
    _check_float(x, "elu")
    _check_no_inplace(inplace, "elu")
    negative = x.clamp(max=0.0).expm1() * alpha  # (clamped: exp of a large x would overflow in the unused branch)
    return nn_ops.SelectAbove.apply(x, negative, 0.0)


def mish(x: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x)).

    Example:
        >>> import torchlight as tl
        >>> round(tl.nn.functional.mish(tl.tensor([1.0])).item(), 6)
        0.865098
    """
    _check_float(x, "mish")
    _check_no_inplace(inplace, "mish")
    return x * nn_ops.Softplus.apply(x).tanh()


def hardtanh(x: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """x clamped to `[min_val, max_val]`; the gradient is 1 strictly inside and 0 elsewhere.

    That is PyTorch's convention, also at the two edges.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.functional.hardtanh(tl.tensor([-3.0, 0.5, 3.0])).tolist()
        [-1.0, 0.5, 1.0]
    """
    _check_float(x, "hardtanh")
    _check_no_inplace(inplace, "hardtanh")
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val={min_val} must be at most max_val={max_val}")
    return nn_ops.Hardtanh.apply(x, min_val, max_val)


def _check_no_inplace(inplace: Any, op: str) -> None:
    """`inplace=True` computes the same values out of place (no op here writes into its input)."""
    if not isinstance(inplace, bool):
        raise TypeError(f"{op}: inplace must be a bool, not {inplace!r}")


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x), Phi the standard normal CDF (PyTorch's GELU).

    `approximate="tanh"` is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3))). The exact one is x * ndtr(x), so that
    the negative tail keeps its digits (PyTorch's 0.5 x (1 + erf(x / sqrt 2)) cancels there).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> x = tl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        >>> [round(v, 6) for v in F.gelu(x).tolist()]
        [-0.158655, 0.0, 1.9545]
        >>> F.gelu(x).sum().backward()
        >>> [round(v, 6) for v in x.grad.tolist()]
        [-0.083315, 0.5, 1.085232]
    """
    if approximate == "none":
        return x * special.ndtr(x)
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)
        return x * 0.5 * (inner.tanh() + 1.0)
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', not {approximate!r}")


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim` (shifted by the max: no overflow).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> [round(v, 4) for v in F.softmax(tl.tensor([1000.0, 1001.0]), dim=0).tolist()]
        [0.2689, 0.7311]
    """
    return x.softmax(dim)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """x - logsumexp(x, dim), stable for large |x|.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> [round(v, 4) for v in F.log_softmax(tl.tensor([1000.0, 1001.0]), dim=0).tolist()]
        [-1.3133, -0.3133]
    """
    return x.log_softmax(dim)


def logsumexp(x: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over `dim` (all axes when None), shifted by the max: `x.logsumexp(dim, keepdim)`.

    Example:
        >>> import torchlight as tl
        >>> round(logsumexp(tl.tensor([1000.0, 1000.0])).item(), 4)    # 1000 + log 2, no overflow
        1000.6931
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"logsumexp: the input must be a Tensor, not {type(x).__name__}")
    return x.logsumexp(dim, keepdim)


# ------------------------------------------------------------------ losses
def nll_loss(input: Tensor, target: Any, weight: Tensor | None = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """-weight[t] * log_probs[i, t] for each label t = target[i], reduced: the negative log-likelihood.

    `input`, the log-probabilities, is (N, C) or (N, C, d1, ...) (classes on axis 1) or (C,);
    `target` holds integer labels of shape (N,) / (N, d1, ...) / (). A label
    outside [0, C) raises ValueError, unless it equals `ignore_index`: such
    a label contributes 0 and leaves the mean's denominator. `weight` (C,)
    weighs each class; the mean is then sum(weight[t] * loss) / sum(weight[t])
    over the labels kept (NaN when none is kept, as PyTorch). The weight is
    treated as a constant: no gradient reaches it.

    Example:
        >>> import torchlight as tl
        >>> logp = tl.tensor([[-0.5, -1.0], [-2.0, -0.25], [-1.0, -1.0]])
        >>> nll_loss(logp, tl.tensor([0, 1, -100]), weight=tl.tensor([1.0, 3.0])).item()  # (0.5 + 0.75) / 4
        0.3125
    """
    op = "nll_loss"
    log_probs = input
    reduction = _legacy_reduction(size_average, reduce, reduction, op)  # (PyTorch's positional order)
    labels = _class_targets(log_probs, target, ignore_index, reduction, op)
    weight = _class_weight(weight, log_probs, op)
    if weight is None and labels.ignored is None:
        picked = indexing.TakeAlongAxis.apply(log_probs, labels.index, labels.axis)
        return _reduce(-picked.reshape(labels.shape), reduction, op)
    return _weighted_nll(log_probs, labels, weight, reduction, 0.0)


class _Labels:
    """Checked class labels: `index` (int64, with a size-1 class `axis`, ignored labels set to 0),
    the labels' `shape`, and `ignored` (a boolean array of that shape, or None when none is)."""

    __slots__ = ("index", "axis", "shape", "ignored")

    def __init__(self, index: Any, axis: int, shape: tuple[int, ...], ignored: Any) -> None:
        self.index, self.axis, self.shape, self.ignored = index, axis, shape, ignored


def _class_axis(scores: Tensor, reduction: str, op: str) -> int:
    _check_float(scores, op)
    _check_reduction(reduction, op)
    if scores.ndim == 0:
        raise ValueError(f"{op}: the input must have a class axis, not shape {scores.shape}")
    return 0 if scores.ndim == 1 else 1


def _class_targets(scores: Tensor, target: Any, ignore_index: int, reduction: str, op: str) -> _Labels:
    """The labels checked against the scores' classes (axis 1, or 0 when unbatched) and `ignore_index`."""
    axis = _class_axis(scores, reduction, op)
    if not isinstance(ignore_index, int) or isinstance(ignore_index, bool):
        raise TypeError(f"{op}: ignore_index must be an int, not {ignore_index!r}")
    target, ignored = _class_labels(target, scores, scores.shape[axis], op, ignore_index=ignore_index)
    expected = scores.shape[:axis] + scores.shape[axis + 1:]
    if target.shape != expected:
        raise ValueError(f"{op}: input of shape {scores.shape} needs labels of shape {expected}, "
                         f"got {target.shape}")
    xp = target.backend.xp
    labels = target.data
    if ignored is not None:
        labels = xp.where(ignored, xp.zeros_like(labels), labels)
    index = xp.expand_dims(labels, axis=axis)
    if index.dtype != xp.int64:  # any integer labels: torch's take_along_dim takes int64 indices only
        index = xp.astype(index, xp.int64)
    return _Labels(index, axis, expected, ignored)


def _class_weight(weight: Any, scores: Tensor, op: str) -> Tensor | None:
    """The per-class weight as a constant of the scores' dtype, checked to be (C,)."""
    if weight is None:
        return None
    weight = _lift(weight, scores)
    check_same_backend(op, scores, weight)
    classes = scores.shape[0 if scores.ndim == 1 else 1]
    if not weight.backend.is_floating(weight.dtype):
        raise TypeError(f"{op}: weight must have a floating-point dtype, not {weight.dtype}")
    if weight.shape != (classes,):
        raise ValueError(f"{op}: weight must have shape ({classes},), one per class of the input of shape "
                         f"{scores.shape}, not {weight.shape}")
    weight = weight.detach()
    return weight if weight.dtype == scores.dtype else weight.astype(scores.dtype)


def _weighted_nll(log_probs: Tensor, labels: _Labels, weight: Tensor | None, reduction: str,
                  smoothing: float) -> Tensor:
    """The nll of `labels`, with class weights, ignored labels and label smoothing as PyTorch has them.

    Each kept label i has the weight w_i = weight[t_i] (1 without weights), an
    ignored one w_i = 0. The loss is (1 - e) * w_i * (-log_probs[i, t_i])
    + (e / C) * sum_c weight[c] * (-log_probs[i, c]) (the second sum over kept
    labels only); the mean divides by sum_i w_i.
    """
    xp, backend, axis = log_probs.backend.xp, log_probs.backend, labels.axis
    picked = indexing.TakeAlongAxis.apply(log_probs, labels.index, axis).reshape(labels.shape)
    kept = None if labels.ignored is None else xp.astype(~labels.ignored, log_probs.dtype)
    per_label = kept
    if weight is not None:
        flat = xp.take(weight.data, xp.reshape(labels.index, (-1,)), axis=0)
        per_label = xp.reshape(flat, labels.shape) if kept is None else xp.reshape(flat, labels.shape) * kept
    loss = -picked if per_label is None else -(picked * Tensor._wrap(per_label, backend))
    if smoothing:
        classes = log_probs.shape[axis]
        by_class = log_probs
        if weight is not None:
            by_class = by_class * weight.reshape((classes,) + (1,) * (log_probs.ndim - axis - 1))
        smooth = -by_class.sum(axis)
        if kept is not None:
            smooth = smooth * Tensor._wrap(kept, backend)
        loss = loss * (1.0 - smoothing) + smooth * (smoothing / classes)
    if reduction != "mean" or per_label is None:
        return _reduce(loss, reduction, "nll_loss")
    return _mean_or_nan(loss.sum(), xp.sum(per_label))


def _mean_or_nan(total: Tensor, count: Any) -> Tensor:
    """total / count, NaN with a zero gradient when count is 0 (every label ignored), as PyTorch.

    Written with `where` on the arrays (no bool(): Dask's count stays lazy)
    and without dividing by 0 (NumPy would warn).
    """
    xp, backend = total.backend.xp, total.backend
    nonzero = count != 0
    one, zero = xp.ones_like(count), xp.zeros_like(count)
    scale = xp.where(nonzero, one / xp.where(nonzero, count, one), zero)
    nan = xp.where(nonzero, zero, xp.full_like(count, math.nan))
    return total * Tensor._wrap(scale, backend) + Tensor._wrap(nan, backend)


def cross_entropy(input: Tensor, target: Any, weight: Tensor | None = None, size_average: bool | None = None,
                  ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """nll_loss(log_softmax(input, class axis), target): softmax cross-entropy, with PyTorch's options.

    `input` is the logits. The arguments come in PyTorch's order, its deprecated `size_average` /
    `reduce` flags included (read as PyTorch reads them; pass the rest by name).

    `target` is integer labels (as `nll_loss`: `weight` per class,
    `ignore_index` left out of the loss and of the mean's denominator) or
    class probabilities of the logits' shape (a float target; then the mean
    is over the N (x d1 ...) samples and `ignore_index` cannot be used).
    `label_smoothing` e in [0, 1] mixes the target with the uniform
    distribution: (1 - e) * nll + e * the mean over classes of -log p.

    Plain integer labels (no weight, no smoothing, no label ignored) take one
    graph node (`CrossEntropy`, the reduction included) whose gradient is
    softmax(logits) minus the one-hot labels, rather than the chain
    log_softmax, gather, negate, reduce; the options are composed of those ops.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.nn import functional as F
        >>> logits = tl.tensor([[2.0, 0.0], [0.0, 0.0]], requires_grad=True)
        >>> loss = F.cross_entropy(logits, tl.tensor([0, 1]))
        >>> round(loss.item(), 4)
        0.41
        >>> loss.backward(); logits.grad.numpy().round(4).tolist()
        [[-0.0596, 0.0596], [0.25, -0.25]]
        >>> round(F.cross_entropy(logits, tl.tensor([0, -100])).item(), 4)     # the second label ignored
        0.1269
    """
    op = "cross_entropy"
    logits = input
    reduction = _legacy_reduction(size_average, reduce, reduction, op)
    _check_label_smoothing(label_smoothing, op)
    _check_float(logits, op)
    target = _lift(target, logits)
    if target.backend.is_floating(target.dtype):
        return _cross_entropy_probabilities(logits, target, weight, ignore_index, reduction, label_smoothing)
    labels = _class_targets(logits, target, ignore_index, reduction, op)
    weight = _class_weight(weight, logits, op)
    if weight is None and labels.ignored is None and not label_smoothing:
        return nn_ops.CrossEntropy.apply(logits, target, labels.axis, reduction, ignore_index)
    return _weighted_nll(logits.log_softmax(labels.axis), labels, weight, reduction, float(label_smoothing))


def _check_label_smoothing(label_smoothing: Any, op: str) -> None:
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float)) \
            or not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{op}: label_smoothing must be a number in [0, 1], not {label_smoothing!r}")


def _cross_entropy_probabilities(logits: Tensor, target: Tensor, weight: Any, ignore_index: int,
                                 reduction: str, smoothing: float) -> Tensor:
    """-sum_c weight[c] * t_c * log_softmax(logits)_c per sample, t smoothed to (1 - e) t + e / C."""
    op = "cross_entropy"
    axis = _class_axis(logits, reduction, op)
    if ignore_index != -100:
        raise ValueError(f"{op}: ignore_index needs integer labels; the target of dtype {target.dtype} "
                         f"holds class probabilities")
    if target.shape != logits.shape:
        labels_shape = logits.shape[:axis] + logits.shape[axis + 1:]
        error = TypeError if target.shape == labels_shape else ValueError  # float labels, or a wrong shape
        raise error(f"{op}: a float target holds class probabilities, of the input's shape {logits.shape}, "
                    f"not {target.shape}; class labels need an integer dtype, not {target.dtype}")
    weight = _class_weight(weight, logits, op)
    classes = logits.shape[axis]
    if smoothing:
        target = target * (1.0 - smoothing) + smoothing / classes
    by_class = logits.log_softmax(axis) * target
    if weight is not None:
        by_class = by_class * weight.reshape((classes,) + (1,) * (logits.ndim - axis - 1))
    return _reduce(-by_class.sum(axis), reduction, op)


def _legacy_reduction(size_average: Any, reduce: Any, reduction: str, op: str) -> str:
    """`reduction`, or PyTorch's reading of its deprecated `size_average` / `reduce` flags where given."""
    for name, flag in (("size_average", size_average), ("reduce", reduce)):
        if flag is not None and not isinstance(flag, bool):
            what = f"the ignored label as ignore_index={flag!r}" if isinstance(flag, int) else \
                f"the reduction as reduction={flag!r}"
            raise TypeError(f"{op}: {name} (PyTorch's deprecated flag) must be a bool or None, not {flag!r}; "
                            f"pass {what}")
    if size_average is None and reduce is None:
        _check_reduction(reduction, op)
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def _broadcast_weight(weight: Any, loss: Tensor, op: str, name: str = "weight") -> Tensor:
    """`weight` as a Tensor of the loss's backend, checked to broadcast to the loss's shape (as PyTorch)."""
    weight = _lift(weight, loss)
    check_same_backend(op, loss, weight)
    try:
        shape = fn.broadcast_shapes(op, loss.shape, weight.shape)
    except ValueError:
        shape = None
    if shape != loss.shape:
        raise ValueError(f"{op}: {name} of shape {weight.shape} must broadcast to the input's shape {loss.shape}")
    return weight


def _weighted(loss: Tensor, weight: Any, op: str) -> Tensor:
    """loss * weight, the weight a constant (no gradient reaches it: PyTorch refuses one that requires
    grad) broadcast to the loss's shape."""
    return loss if weight is None else loss * _broadcast_weight(weight, loss, op).detach()


def mse_loss(input: Tensor, target: Any, size_average: bool | None = None, reduce: bool | None = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """(input - target)**2 (times `weight`, broadcast, where given), reduced (by mean by default).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.functional.mse_loss(tl.tensor([1.0, 2.0]), tl.tensor([0.0, 0.0])).item()
        2.5
    """
    reduction = _legacy_reduction(size_average, reduce, reduction, "mse_loss")
    target = _elementwise_target(input, target, reduction, "mse_loss")
    diff = input - target
    return _reduce(_weighted(diff * diff, weight, "mse_loss"), reduction, "mse_loss")


def l1_loss(input: Tensor, target: Any, size_average: bool | None = None, reduce: bool | None = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """|input - target| (times `weight`, broadcast, where given), reduced.

    The gradient at a tie is 0 (sign(0), as PyTorch).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.functional.l1_loss(tl.tensor([1.0, -2.0]), tl.tensor([0.0, 0.0])).item()
        1.5
    """
    reduction = _legacy_reduction(size_average, reduce, reduction, "l1_loss")
    target = _elementwise_target(input, target, reduction, "l1_loss")
    return _reduce(_weighted((input - target).abs(), weight, "l1_loss"), reduction, "l1_loss")


def huber_loss(input: Tensor, target: Any, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target, reduced.

    `weight` (PyTorch 2.6's) multiplies each element's loss before the reduction.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.functional.huber_loss(tl.tensor([0.5, 3.0]), tl.tensor([0.0, 0.0]), reduction="none").tolist()
        [0.125, 2.5]
    """
    op = "huber_loss"
    target = _elementwise_target(input, target, reduction, op)
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not delta > 0:
        raise ValueError(f"{op}: delta must be a number > 0, not {delta!r}")
    diff = input - target
    size = diff.abs()
    loss = nn_ops.SelectAbove.apply((size - 0.5 * delta) * delta, diff * diff * 0.5, delta, size)
    return _reduce(_weighted(loss, weight, op), reduction, op)


def smooth_l1_loss(input: Tensor, target: Any, size_average: bool | None = None, reduce: bool | None = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta (huber_loss / beta); beta = 0 is l1_loss.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.functional.smooth_l1_loss(tl.tensor([0.5, 3.0]), tl.tensor([0.0, 0.0]), reduction="none",
        ...                                 beta=2.0).tolist()
        [0.0625, 2.0]
    """
    op = "smooth_l1_loss"
    reduction = _legacy_reduction(size_average, reduce, reduction, op)
    target = _elementwise_target(input, target, reduction, op)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
        raise ValueError(f"{op}: beta must be a number >= 0, not {beta!r}")
    diff = input - target
    size = diff.abs()
    if beta == 0:
        return _reduce(size, reduction, op)
    loss = nn_ops.SelectAbove.apply(size - 0.5 * beta, diff * diff * (0.5 / beta), beta, size)
    return _reduce(loss, reduction, op)


def kl_div(input: Tensor, target: Any, size_average: bool | None = None, reduce: bool | None = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence of `target` from exp(`input`), pointwise t (log t - input).

    `input` holds log-probabilities; `target` probabilities (0 contributes
    0), or log-probabilities with `log_target=True` (then exp(t) (t - input)).
    `reduction="batchmean"` divides the sum by the batch size input.shape[0]
    (the KL divergence's definition); "mean" divides by the number of
    elements, as PyTorch (which warns that it is not the divergence).
    Where a target entry is exactly 0 its own gradient is -input there
    (PyTorch's is NaN; the true one-sided derivative is -inf).

    Example:
        >>> import torchlight as tl
        >>> p = tl.tensor([[0.5, 0.5]])
        >>> round(tl.nn.functional.kl_div(tl.tensor([[0.9, 0.1]]).log(), p, reduction="batchmean").item(), 6)
        0.510826
    """
    op = "kl_div"
    if reduction == "batchmean" and size_average is None and reduce is None:
        target = _elementwise_target(input, target, "sum", op)
    else:
        reduction = _legacy_reduction(size_average, reduce, reduction, op)
        target = _elementwise_target(input, target, reduction, op)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        safe = nn_ops.SelectAbove.apply(target, target * 0.0 + 1.0, 0.0)  # 0 log 0 = 0: log 1 there,
        loss = target * safe.log() - target * input  # so no 0 / 0 in the target's gradient
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, reduction, op)


def binary_cross_entropy(input: Tensor, target: Any, weight: Tensor | None = None, size_average: bool | None = None,
                         reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """-w (t log p + (1 - t) log(1 - p)) for probabilities p in [0, 1] (w = `weight`, broadcast; 1 without).

    As PyTorch, each log is clamped at -100 so that p = 0 or 1 gives a
    finite loss, and the gradient is PyTorch's (p - t) / max(p (1 - p), 1e-12)
    (`BinaryCrossEntropyLog`): the exact one inside, and finite with the right
    sign at p = 0 or 1. An input or target outside [0, 1], or NaN, raises
    ValueError, as in PyTorch.

    Example:
        >>> import torchlight as tl
        >>> p = tl.tensor([0.9, 0.2])
        >>> [round(v, 6) for v in tl.nn.functional.binary_cross_entropy(p, tl.tensor([1.0, 0.0]),
        ...                                                             reduction="none").tolist()]
        [0.105361, 0.223144]
    """
    op = "binary_cross_entropy"
    _check_reduction_argument(weight, op)
    reduction = _legacy_reduction(size_average, reduce, reduction, op)
    target = _elementwise_target(input, target, reduction, op)
    xp = input.backend.xp
    if input.backend.lazy:  # the check inside the graph: it raises when the loss or a gradient is computed
        input = nn_ops.CheckedValues.apply(input, (target.data,), _probabilities_outside, _judge_probabilities)
    elif input.size and not bool(xp.all(_probabilities(input.data) & _probabilities(target.data))):  # one check
        _judge_probabilities([_probabilities_outside(xp, input.data, target.data)])
    log = nn_ops.BinaryCrossEntropyLog.apply
    loss = -(target * log(input) + (1.0 - target) * log(1.0 - input))
    return _reduce(_weighted(loss, weight, op), reduction, op)


def _probabilities(data: Any) -> Any:
    """Where `data` lies in [0, 1] (not "< 0 or > 1": NaN, which each clamped log would make -100, is outside)."""
    return (data >= 0) & (data <= 1)


def _probabilities_outside(xp: Any, input: Any, target: Any) -> tuple[bool, bool]:
    """Whether some input, and whether some target, of binary_cross_entropy is outside [0, 1]."""
    return not bool(xp.all(_probabilities(input))), not bool(xp.all(_probabilities(target)))


def _judge_probabilities(parts: list[tuple[bool, bool]]) -> None:
    """binary_cross_entropy's ValueError for a bad input, else for a bad target, in any part."""
    if any(bad_input for bad_input, _ in parts):
        raise ValueError("binary_cross_entropy: every input must be a probability in [0, 1] (for logits use "
                         "binary_cross_entropy_with_logits)")
    if any(bad_target for _, bad_target in parts):
        raise ValueError("binary_cross_entropy: every target must be in [0, 1] (as PyTorch requires); the loss is "
                         "unbounded below outside it")


def binary_cross_entropy_with_logits(input: Tensor, target: Any, weight: Tensor | None = None,
                                     size_average: bool | None = None, reduce: bool | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """binary_cross_entropy(sigmoid(x), t) in one expression, stable for any x.

    It is computed as (1 - t) x + (1 + (pos_weight - 1) t) softplus(-x).

    `pos_weight` (broadcast along the last axis: one per class) weighs the
    positive term, `weight` each element, as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> F = tl.nn.functional
        >>> x, t = tl.tensor([[800.0, -1.0]]), tl.tensor([[0.0, 1.0]])
        >>> [round(v, 6) for v in F.binary_cross_entropy_with_logits(x, t, reduction="none",
        ...                                                          pos_weight=tl.tensor([1.0, 3.0])).tolist()[0]]
        [800.0, 3.939785]
    """
    op = "binary_cross_entropy_with_logits"
    _check_reduction_argument(weight, op)
    reduction = _legacy_reduction(size_average, reduce, reduction, op)
    target = _elementwise_target(input, target, reduction, op)
    if pos_weight is None:
        loss = nn_ops.Softplus.apply(input) - target * input
    else:
        scale = (_broadcast_weight(pos_weight, input, op, "pos_weight").detach() - 1.0) * target + 1.0
        loss = (1.0 - target) * input + scale * nn_ops.Softplus.apply(-input)
    return _reduce(_weighted(loss, weight, op), reduction, op)


def _check_reduction_argument(weight: Any, op: str) -> None:
    """A reduction name where the weight goes: a call written for the old (input, target, reduction) order."""
    if isinstance(weight, str):
        raise TypeError(f"{op}: the third argument is weight= (PyTorch's order), not the reduction: "
                        f"pass reduction={weight!r}")


# ------------------------------------------------------------------ layers
def dropout(x: Tensor, p: float = 0.5, training: bool = True, generator: Any = None) -> Tensor:
    """Zero each element with probability p and scale the rest by 1 / (1 - p).

    Identity when `training` is False or p == 0; the mask is drawn from the
    backend's generator (`tl.manual_seed`) unless `generator=` is given.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> _ = tl.manual_seed(0)
        >>> sorted(set(F.dropout(tl.ones(8), p=0.5).tolist()))
        [0.0, 2.0]
        >>> F.dropout(tl.ones(3), p=0.5, training=False).tolist()
        [1.0, 1.0, 1.0]
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], not {p!r}")
    if isinstance(generator, bool):  # F.dropout(x, p, training, False) ported from PyTorch
        raise TypeError("dropout: the fourth argument is generator=, not PyTorch's inplace= (no op here writes "
                        "in place)")
    _check_float(x, "dropout")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    return nn_ops.Dropout.apply(x, p, generator)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weight.T + bias, for weight of shape (out_features, in_features).

    One graph node (`Linear`), with the bias added in place into the product
    (as PyTorch's addmm), unless the bias would add axes to the result.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.nn import functional as F
        >>> x = tl.tensor([[1.0, 2.0]], requires_grad=True)
        >>> w = tl.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]], requires_grad=True)
        >>> y = F.linear(x, w, tl.tensor([0.5, 0.5, 0.5], requires_grad=True))
        >>> y.tolist(), y.history.last_fn.__name__
        ([[1.5, 3.5, 4.5]], 'Linear')
        >>> y.sum().backward(); x.grad.tolist(), w.grad.tolist()
        ([[2.0, 3.0]], [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    """
    _check_float(x, "linear")
    weight = _lift(weight, x)  # a number, list or array: a Tensor of x's backend (as `x @ w + b` lifted them)
    if bias is not None:
        bias = _lift(bias, x)
    if weight.ndim != 2:
        raise ValueError(f"linear: the weight must be 2-d (out_features, in_features), not of shape {weight.shape}")
    _check_same_dtype("linear", x, weight)
    if x.ndim == 0 or x.shape[-1] != weight.shape[-1]:
        raise ValueError(f"linear: the input of shape {x.shape} has width {x.shape[-1] if x.ndim else None}, "
                         f"but the weight of shape {weight.shape} expects in_features={weight.shape[-1]}")
    product = x.shape[:-1] + weight.shape[:1]
    if bias is not None and fn.broadcast_shapes("linear", product, bias.shape) != product:
        return x @ weight.mT + bias  # a bias that adds axes to the result: not one node
    if type(x)._by_parts or type(weight)._by_parts or bias is not None and type(bias)._by_parts:
        return x @ weight.mT if bias is None else x @ weight.mT + bias  # (vmap's samples: the ops it batches)
    return nn_ops.Linear.apply(x, weight, bias)


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | Sequence[int] = 1,
           padding: int | Sequence[int] | str = 0, dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """2-d cross-correlation (what deep learning calls convolution), with PyTorch's arguments.

    `x` is (N, C, H, W) (or (C, H, W)), `weight` (O, C / groups, kh, kw),
    `bias` (O,). The input is zero-padded, its windows gathered by strided
    slices and stacked (`Unfold`; `dilation` spaces a window's taps apart),
    and all of them meet the weight in one `Linear` (a matmul with the bias
    added in place). With `groups` > 1 the channels split into that many
    groups, each convolved with its own O / groups filters: one batched
    matmul over the groups (groups == C is a depthwise convolution).
    Output: (N, O, Ho, Wo), Ho = (H + 2 ph - dh (kh - 1) - 1) // sh + 1.
    `padding="valid"` is no padding; `padding="same"` (stride 1 only) pads
    dh (kh - 1) in all, half before and the odd one after, as PyTorch, so
    that the output has the input's height and width.

    Example:
        >>> import torchlight as tl
        >>> x = tl.ones(1, 4, 5, 5)
        >>> conv2d(x, tl.ones(4, 2, 3, 3), dilation=2, groups=2).tolist()[0][0]   # 2 channels x 9 taps
        [[18.0]]
    """
    op = "conv2d"
    _check_float(x, op)
    stride = _pair(stride, "stride", op, 1)
    dilation = _pair(dilation, "dilation", op, 1)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{op}: groups must be an int >= 1, not {groups!r}")
    if x.ndim == 3:
        out = conv2d(x.reshape((1,) + x.shape), weight, bias, stride, padding, dilation, groups)
        return out.reshape(out.shape[1:])
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"{op}: needs an input (N, C, H, W) and a weight (O, C / groups, kh, kw), "
                         f"got shapes {x.shape} and {weight.shape}")
    _check_conv_shapes(x, weight, bias, groups)
    _check_same_dtype(op, x, weight)
    n, channels = x.shape[:2]
    out_channels, _, kh, kw = weight.shape
    pads = conv_pads(padding, (kh, kw), stride, dilation, op)
    ho, wo = _conv_out(x, weight, stride, pads, dilation)
    patches = nn_ops.Unfold.apply(_pad2d(x, pads, 0.0), (kh, kw), stride, -1, dilation)  # (N, C, Ho, Wo, kh*kw)
    if groups == 1:
        columns = patches.permute(0, 2, 3, 1, 4).reshape(n, ho, wo, channels * kh * kw)
        out = nn_ops.Linear.apply(columns, weight.reshape(out_channels, channels * kh * kw), bias)  # (N, Ho, Wo, O)
        return out.permute(0, 3, 1, 2)
    per_group, outs = channels // groups, out_channels // groups
    columns = patches.reshape(n, groups, per_group, ho, wo, kh * kw).permute(1, 0, 3, 4, 2, 5)
    columns = columns.reshape(groups, n * ho * wo, per_group * kh * kw)
    out = columns @ weight.reshape(groups, outs, per_group * kh * kw).mT  # (groups, N*Ho*Wo, O / groups)
    out = out.reshape(groups, n, ho, wo, outs).permute(1, 0, 4, 2, 3).reshape(n, out_channels, ho, wo)
    return out if bias is None else out + bias.reshape(out_channels, 1, 1)


def _check_conv_shapes(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int) -> None:
    channels, (out_channels, weight_channels) = x.shape[1], weight.shape[:2]
    if channels % groups or out_channels % groups:
        raise ValueError(f"conv2d: groups={groups} must divide both the input's {channels} channels "
                         f"and the weight's {out_channels} output channels")
    if channels != weight_channels * groups:
        expects = (f"{weight_channels}" if groups == 1
                   else f"{weight_channels} per group x {groups} groups = {weight_channels * groups}")
        raise ValueError(f"conv2d: the input has {channels} channels (shape {x.shape}) but the weight "
                         f"of shape {weight.shape} expects {expects}")
    if bias is not None and bias.shape != (out_channels,):
        raise ValueError(f"conv2d: the bias must have shape ({out_channels},), not {bias.shape}")


def conv_pads(padding: int | Sequence[int] | str, kernel: tuple[int, ...], stride: tuple[int, ...],
              dilation: tuple[int, ...], op: str) -> tuple[tuple[int, int], ...]:
    """((top, bottom), (left, right)): `padding` as a number, a pair, "valid" or "same".

    "same" pads dilation * (k - 1) per axis, the odd one at the end (as
    PyTorch), and needs stride 1: a strided output cannot keep the size.
    """
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0), (0, 0)
        if padding != "same":
            raise ValueError(f"{op}: padding must be 'valid', 'same', an int >= 0 or a pair of them, "
                             f"not {padding!r}")
        if stride != (1, 1):
            raise ValueError(f"{op}: padding='same' needs stride 1 (as in PyTorch), not stride={stride}")
        totals = (d * (k - 1) for k, d in zip(kernel, dilation))
        return tuple((t // 2, t - t // 2) for t in totals)
    ph, pw = _pair(padding, "padding", op, 0)
    return (ph, ph), (pw, pw)


def _conv_out(x: Tensor, weight: Tensor, stride: tuple[int, int], pads: tuple[tuple[int, int], ...],
              dilation: tuple[int, int]) -> tuple[int, ...]:
    sizes = []
    for size, k, s, (before, after), d in zip(x.shape[-2:], weight.shape[-2:], stride, pads, dilation):
        if size + before + after < d * (k - 1) + 1:
            span = "" if dilation == (1, 1) else f" (dilated by {dilation}: spans {_span(weight.shape[-2:], dilation)})"
            raise ValueError(f"conv2d: the kernel {tuple(weight.shape[-2:])}{span} is larger than the padded input "
                             f"{tuple(n + b + a for n, (b, a) in zip(x.shape[-2:], pads))}")
        sizes.append(fn.window_count(size + before + after, k, s, d))
    return tuple(sizes)


def _span(kernel: Sequence[int], dilation: tuple[int, int]) -> tuple[int, ...]:
    """How far a dilated kernel reaches: d (k - 1) + 1 per axis."""
    return tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))


def _pad2d(x: Tensor, pads: tuple[tuple[int, int], ...], value: float) -> Tensor:
    """`x` padded with `value` by ((top, bottom), (left, right))."""
    if pads == ((0, 0), (0, 0)):
        return x
    return nn_ops.Pad.apply(x, pads, value)


def _pool_windows(x: Tensor, kernel_size: Any, stride: Any, padding: Any, value: float, op: str,
                  dilation: Any = 1) -> Tensor:
    """(kh*kw, N, C, Ho, Wo): the pooling windows of a padded (N, C, H, W) or (C, H, W) input."""
    _check_float(x, op)
    if x.ndim not in (3, 4):
        raise ValueError(f"{op}: needs an input (N, C, H, W) or (C, H, W), got shape {x.shape}")
    kernel = _pair(kernel_size, "kernel_size", op, 1)
    stride = kernel if stride is None else _pair(stride, "stride", op, 1)
    padding = _pair(padding, "padding", op, 0)
    dilation = _pair(dilation, "dilation", op, 1)
    if any(2 * p > k for p, k in zip(padding, kernel)):  # (the kernel, not its dilated span: as PyTorch)
        raise ValueError(f"{op}: padding {padding} must be at most half the kernel size {kernel}")
    span = _span(kernel, dilation)
    if any(n + 2 * p < k for n, p, k in zip(x.shape[-2:], padding, span)):
        dilated = "" if dilation == (1, 1) else f" (dilated by {dilation}: spans {span})"
        raise ValueError(f"{op}: the kernel {kernel}{dilated} is larger than the padded input of shape {x.shape}")
    return nn_ops.Unfold.apply(_pad2d(x, tuple((p, p) for p in padding), value), kernel, stride, 0, dilation)


def max_pool2d(x: Tensor, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
               padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1) -> Tensor:
    """The maximum of each window (stride defaults to the kernel size; padding is -inf).

    `dilation` spaces a window's taps apart, as in `conv2d`. Tied maxima
    share the gradient evenly (the convention of `Tensor.max`).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> x = tl.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.max_pool2d(x, 2).tolist()
        [[[[5.0, 7.0], [13.0, 15.0]]]]
        >>> F.max_pool2d(x, 3, stride=1, padding=1).shape
        (1, 1, 4, 4)
    """
    windows = _pool_windows(x, kernel_size, stride, padding, -math.inf, "max_pool2d", dilation)
    return windows.amax(0)


def avg_pool2d(x: Tensor, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
               padding: int | Sequence[int] = 0) -> Tensor:
    """The mean of each window (zero padding counted in the mean, as PyTorch's default).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> x = tl.ones(1, 1, 2, 2)
        >>> F.avg_pool2d(x, 2).tolist()
        [[[[1.0]]]]
        >>> F.avg_pool2d(x, 2, stride=1, padding=1)[0, 0].tolist()  # the zero padding counts
        [[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]]
    """
    return _pool_windows(x, kernel_size, stride, padding, 0.0, "avg_pool2d").mean(0)


def layer_norm(x: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """(x - mean) / sqrt(var + eps) over the last dims, then * weight + bias (biased variance).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> x = tl.tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
        >>> [[round(v, 4) for v in row] for row in F.layer_norm(x, 3).tolist()]
        [[-1.2247, 0.0, 1.2247], [0.0, 0.0, 0.0]]
    """
    _check_float(x, "layer_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:  # () would normalise each element by itself: zeros everywhere (PyTorch raises too)
        raise ValueError("layer_norm: normalized_shape must name at least one dimension, not ()")
    if x.shape[x.ndim - len(shape):] != shape or len(shape) > x.ndim:
        raise ValueError(f"layer_norm: the input of shape {x.shape} does not end in normalized_shape {shape}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None:
            _check_same_dtype("layer_norm", x, param)
        if param is not None and tuple(param.shape) != shape:  # (it would broadcast: a (1,) weight, silently)
            raise ValueError(f"layer_norm: the {name} of shape {tuple(param.shape)} must have the "
                             f"normalized_shape {shape}")
    dims = tuple(range(x.ndim - len(shape), x.ndim))
    centred = x - x.mean(dims, keepdim=True)
    out = centred / ((centred * centred).mean(dims, keepdim=True) + eps).sqrt()
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def _check_channel_vector(value: Any, name: str, channels: int, x: Tensor, op: str) -> None:
    if value is not None and tuple(getattr(value, "shape", ())) != (channels,):
        raise ValueError(f"{op}: {name} must have shape ({channels},), one per channel of the input of shape "
                         f"{x.shape}, not {tuple(getattr(value, 'shape', ()))}")


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """out * weight + bias, both (C,) along axis 1."""
    shape = (out.shape[1],) + (1,) * (out.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    return out if bias is None else out + bias.reshape(shape)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (axis 1), as PyTorch's batch norm.

    With `training`, mean and (biased) var are the batch's, over every axis
    but 1, and the running statistics given are updated in place (without a
    gradient): r = (1 - momentum) r + momentum s, the variance's s unbiased
    (n / (n - 1) times the batch's), as PyTorch. Otherwise the running
    statistics normalise, as constants. (On a lazy backend, `momentum` may
    be a 0-d tensor: BatchNorm's cumulative average, 1 / (batches + 1),
    whose count is not computed.)

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[1.0, 10.0], [3.0, 30.0]])
        >>> mean, var = tl.zeros(2), tl.ones(2)
        >>> [round(v, 4) for v in batch_norm(x, mean, var, training=True).tolist()[0]]
        [-1.0, -1.0]
        >>> mean.tolist(), var.tolist()     # 0.9 * old + 0.1 * batch (the variance unbiased)
        ([0.2, 2.0], [1.1, 20.9])
    """
    op = "batch_norm"
    _check_float(input, op)
    if input.ndim < 2:
        raise ValueError(f"{op}: expected an input (N, C, ...) of at least 2 dimensions, got shape {input.shape}")
    channels = input.shape[1]
    for name, value in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                        ("bias", bias)):
        _check_channel_vector(value, name, channels, input, op)
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{op}: running_mean and running_var must both be given or both be None")
    shape = (1, channels) + (1,) * (input.ndim - 2)
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError(f"{op}: training=False normalises by the running statistics: running_mean and "
                             f"running_var must be given")
        mean = running_mean.detach().reshape(shape)
        std = (running_var.detach().reshape(shape) + eps).sqrt()
        return _affine((input - mean) / std, weight, bias)
    lazy_factor = isinstance(momentum, Tensor) and momentum.ndim == 0 and momentum.backend.lazy
    if not lazy_factor and (isinstance(momentum, bool) or not isinstance(momentum, (int, float))):
        raise TypeError(f"{op}: momentum must be a number, not {momentum!r}")
    dims = (0,) + tuple(range(2, input.ndim))
    count = math.prod(input.shape[d] for d in dims)
    if count <= 1:
        raise ValueError(f"{op}: expected more than 1 value per channel when training, got input of shape "
                         f"{input.shape}")
    mean = input.mean(dims, keepdim=True)
    centred = input - mean
    var = (centred * centred).mean(dims, keepdim=True)
    if running_mean is not None and running_var is not None:
        xp = input.backend.xp
        batch_mean = xp.astype(xp.reshape(mean.data, (channels,)), running_mean.dtype)
        batch_var = xp.astype(xp.reshape(var.data, (channels,)), running_var.dtype) * (count / (count - 1))
        m = xp.astype(momentum.data, running_mean.dtype) if lazy_factor else momentum  # type: ignore[attr-defined]
        running_mean._replace_data(running_mean.data * (1.0 - m) + batch_mean * m)
        running_var._replace_data(running_var.data * (1.0 - m) + batch_var * m)
    return _affine(centred / (var + eps).sqrt(), weight, bias)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each sample over each group of channels and the other axes, then * weight + bias.

    The channels (axis 1) are split into `num_groups`; weight and bias are per channel; the variance is biased, as
    PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> y = group_norm(tl.tensor([[[1.0], [3.0], [5.0], [9.0]]]), 2)
        >>> [round(v, 4) for v in y.reshape(-1).tolist()]
        [-1.0, 1.0, -1.0, 1.0]
    """
    op = "group_norm"
    _check_float(input, op)
    if input.ndim < 2:
        raise ValueError(f"{op}: expected an input (N, C, ...) of at least 2 dimensions, got shape {input.shape}")
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups < 1:
        raise ValueError(f"{op}: num_groups must be an int >= 1, not {num_groups!r}")
    channels = input.shape[1]
    if channels % num_groups:
        raise ValueError(f"{op}: expected the number of channels of the input to be divisible by num_groups, "
                         f"but got input of shape {input.shape} and num_groups={num_groups}")
    _check_channel_vector(weight, "weight", channels, input, op)
    _check_channel_vector(bias, "bias", channels, input, op)
    grouped = input.reshape((input.shape[0], num_groups, math.prod(input.shape[1:]) // num_groups))
    centred = grouped - grouped.mean(-1, keepdim=True)
    out = centred / ((centred * centred).mean(-1, keepdim=True) + eps).sqrt()
    return _affine(out.reshape(input.shape), weight, bias)


def embedding(indices: Any, weight: Tensor) -> Tensor:
    """The rows of `weight` (num_embeddings, dim) picked by integer `indices` (any shape).

    Example:
        >>> import torchlight as tl
        >>> import torchlight.nn.functional as F
        >>> weight = tl.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 4.0]])
        >>> F.embedding(tl.tensor([[2, 0], [1, 1]]), weight).tolist()
        [[[2.0, 4.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]]]
    """
    if getattr(weight, "ndim", None) != 2:  # weight[indices] would pick entries of a vector, planes of a cube
        raise ValueError(f"embedding: the weight must be 2-d (num_embeddings, embedding_dim), "
                         f"not of shape {getattr(weight, 'shape', None)}")
    indices, _ = _class_labels(indices, weight, weight.shape[0], "embedding", "indices", "embeddings")
    return weight[indices]



# ------------------------------------------- conv1d, conv_transpose2d, attention
def _single(value: Any, name: str, op: str, minimum: int) -> int:
    one = value[0] if isinstance(value, (tuple, list)) and len(value) == 1 else value
    if isinstance(one, bool) or not isinstance(one, int) or one < minimum:
        raise ValueError(f"{op}: {name} must be an int >= {minimum} (or a 1-tuple of one), not {value!r}")
    return one


def conv1d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | Sequence[int] = 1,
           padding: int | Sequence[int] | str = 0, dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """1-d cross-correlation: `x` (N, C, L) or (C, L), `weight` (O, C / groups, k), `bias` (O,).

    Computed as `conv2d` over a height of 1 (so its options, gradients and
    second derivatives are conv2d's). Output length
    (L + 2 p - d (k - 1) - 1) // s + 1; `padding` "valid" or "same" as conv2d.

    Example:
        >>> import torchlight as tl
        >>> conv1d(tl.ones(1, 2, 5), tl.ones(3, 2, 3), padding=1).tolist()[0][0]
        [4.0, 6.0, 6.0, 6.0, 4.0]
    """
    op = "conv1d"
    _check_float(x, op)
    s, d = _single(stride, "stride", op, 1), _single(dilation, "dilation", op, 1)
    pad: Any = padding if isinstance(padding, str) else (0, _single(padding, "padding", op, 0))
    if x.ndim not in (2, 3) or getattr(weight, "ndim", None) != 3:
        raise ValueError(f"{op}: needs an input (N, C, L) or (C, L) and a weight (O, C / groups, k), "
                         f"got shapes {x.shape} and {getattr(weight, 'shape', None)}")
    if x.ndim == 3 and x.shape[1] != weight.shape[1] * groups or x.ndim == 2 and x.shape[0] != weight.shape[1] * groups:
        raise ValueError(f"{op}: the input of shape {x.shape} has {x.shape[-2]} channels, but the weight of shape "
                         f"{weight.shape} with groups={groups} expects {weight.shape[1] * groups}")
    if x.shape[-1] + (0 if isinstance(pad, str) else 2 * pad[1]) < d * (weight.shape[-1] - 1) + 1 and pad != "same":
        raise ValueError(f"{op}: the kernel of size {weight.shape[-1]} (dilation {d}) is larger than the padded "
                         f"input of length {x.shape[-1]}")
    lifted = x.reshape(x.shape[:-1] + (1, x.shape[-1]))
    out = conv2d(lifted, weight.reshape(weight.shape[:2] + (1, weight.shape[2])), bias, (1, s), pad, (1, d), groups)
    return out.reshape(out.shape[:-2] + (out.shape[-1],))


def conv_transpose2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | Sequence[int] = 1,
                     padding: int | Sequence[int] = 0, output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1) -> Tensor:
    """The transposed 2-d convolution (the gradient of `conv2d` with respect to its input), PyTorch's arguments.

    `x` (N, C_in, H, W) or (C_in, H, W), `weight` (C_in, C_out / groups, kh, kw),
    `bias` (C_out,). Each input pixel's channels meet the weight in one matmul
    (a batched one over the groups), giving a (C_out, kh, kw) patch per pixel;
    the patches are added into place (`Fold`: strides apart, taps `dilation`
    apart), then `padding` is cut off each side. Output height
    (H - 1) s - 2 p + d (kh - 1) + output_padding + 1; `output_padding`
    (< stride or < dilation, as PyTorch) adds rows at the bottom, columns at the right.

    Example:
        >>> import torchlight as tl
        >>> conv_transpose2d(tl.ones(1, 1, 2, 2), tl.ones(1, 1, 2, 2), stride=1).tolist()[0][0]
        [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    op = "conv_transpose2d"
    _check_float(x, op)
    stride = _pair(stride, "stride", op, 1)
    padding = _pair(padding, "padding", op, 0)
    output_padding = _pair(output_padding, "output_padding", op, 0)
    dilation = _pair(dilation, "dilation", op, 1)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{op}: groups must be an int >= 1, not {groups!r}")
    if x.ndim == 3:
        out = conv_transpose2d(x.reshape((1,) + x.shape), weight, bias, stride, padding, output_padding, groups,
                               dilation)
        return out.reshape(out.shape[1:])
    if x.ndim != 4 or getattr(weight, "ndim", None) != 4:
        raise ValueError(f"{op}: needs an input (N, C_in, H, W) and a weight (C_in, C_out / groups, kh, kw), "
                         f"got shapes {x.shape} and {getattr(weight, 'shape', None)}")
    n, channels, h, w = x.shape
    _, outs, kh, kw = weight.shape
    if channels != weight.shape[0] or channels % groups:
        raise ValueError(f"{op}: the input has {channels} channels (shape {x.shape}) but the weight of shape "
                         f"{weight.shape} expects {weight.shape[0]}, divisible by groups={groups}")
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(f"{op}: output_padding {output_padding} must be smaller than either stride {stride} "
                         f"or dilation {dilation}")
    out_channels = outs * groups
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise ValueError(f"{op}: the bias must have shape ({out_channels},), not {tuple(bias.shape)}")
    full = tuple((size - 1) * s + dd * (k - 1) + 1 for size, s, dd, k in zip((h, w), stride, dilation, (kh, kw)))
    ends = tuple(f + o - p for f, o, p in zip(full, output_padding, padding))  # where the output stops in `full`
    if any(e - p <= 0 for e, p in zip(ends, padding)):
        raise ValueError(f"{op}: padding {padding} leaves no output of the input of shape {x.shape} "
                         f"(the unpadded output would be {tuple(e + p for e, p in zip(ends, padding))})")
    per_group = channels // groups
    rows = x.reshape(n, groups, per_group, h * w).permute(1, 0, 3, 2).reshape(groups, n * h * w, per_group)
    patches = rows @ weight.reshape(groups, per_group, outs * kh * kw)  # (groups, N*H*W, outs*kh*kw)
    patches = patches.reshape(groups, n, h, w, outs, kh * kw).permute(1, 0, 4, 2, 3, 5)
    patches = patches.reshape(n, out_channels, h, w, kh * kw)
    out = nn_ops.Fold.apply(patches, (n, out_channels) + full, (kh, kw), stride, -1, dilation)
    if padding != (0, 0) or ends != full:  # cut `padding` off; output_padding past the last window adds zeros
        out = out[:, :, padding[0]:min(ends[0], full[0]), padding[1]:min(ends[1], full[1])]
        out = _pad2d(out, tuple((0, max(e - f, 0)) for e, f in zip(ends, full)), 0.0)
    return out if bias is None else out + bias.reshape(out_channels, 1, 1)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 generator: Any = None) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value, PyTorch's arguments (its reference formula).

    `query` (..., L, E), `key` (..., S, E), `value` (..., S, Ev); `scale`
    defaults to 1 / sqrt(E). `attn_mask` broadcasts to (..., L, S): a boolean
    mask says which keys each query may attend to (True: it takes part, as
    PyTorch's), a float mask is added to the scores. `is_causal` masks the
    upper triangle (query i sees keys 0 ... i) and excludes `attn_mask`.
    `dropout_p` drops attention weights (pass 0.0 outside training: the
    function does not know the mode). A query that may attend to no key (its
    scores all -inf) gets zero weights, hence a zero output and gradient, as
    PyTorch's own function (its documented reference formula would give NaN).

    Example:
        >>> import torchlight as tl
        >>> q = k = v = tl.tensor([[[1.0, 0.0], [0.0, 1.0]]])
        >>> out = scaled_dot_product_attention(q, k, v, is_causal=True)
        >>> out.tolist()[0][0]        # the first query sees only the first key
        [1.0, 0.0]
    """
    op = "scaled_dot_product_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        _check_float(t, op)
        if t.ndim < 2:
            raise ValueError(f"{op}: {name} must have at least 2 dimensions (..., length, features), "
                             f"got shape {t.shape}")
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(f"{op}: query of shape {query.shape} and key of shape {key.shape} must have the same "
                         f"last dimension")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(f"{op}: key of shape {key.shape} and value of shape {value.shape} must have the same "
                         f"length (dimension -2)")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{op}: dropout_p must be in [0, 1], not {dropout_p!r}")
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    scores = (query * factor) @ key.mT
    if is_causal:
        if attn_mask is not None:
            raise ValueError(f"{op}: pass either attn_mask or is_causal=True, not both (as PyTorch)")
        scores = nn_ops.MaskScores.apply(scores, None, True, None, True)
    elif attn_mask is not None:
        scores = masked_scores(attn_mask, scores, op)
    weights = scores.softmax(-1) if attn_mask is None and not is_causal else safe_softmax(scores)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True, generator)
    return weights @ value


def _check_mask_shape(shape: tuple[int, ...], scores: Tensor, op: str) -> None:
    try:
        fits = fn.broadcast_shapes(op, scores.shape, shape) == scores.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{op}: the mask of shape {shape} does not broadcast to the attention scores of "
                         f"shape {scores.shape}")


def masked_scores(mask: Any, scores: Tensor, op: str, allowed: bool = True,
                  shape: tuple[int, ...] | None = None) -> Tensor:
    """The scores with a mask applied: a boolean mask sets -inf where a key is left out, a float one is added.

    `allowed`: whether True marks the keys that take part (scaled_dot_product_attention)
    or those left out (MultiheadAttention's masks).
    """
    mask = _lift(mask, scores)
    check_same_backend(op, scores, mask)
    _check_mask_shape(mask.shape if shape is None else shape, scores, op)
    if scores.backend.xp.isdtype(mask.dtype, "bool"):
        return nn_ops.MaskScores.apply(scores, mask, allowed, shape)
    if not mask.backend.is_floating(mask.dtype):
        raise TypeError(f"{op}: the mask must be boolean or floating-point, not {mask.dtype}")
    mask = mask if shape is None else mask.reshape(shape)
    return scores + (mask if mask.dtype == scores.dtype else mask.astype(scores.dtype))


def safe_softmax(scores: Tensor, dim: int = -1) -> Tensor:
    """softmax over `dim`, with 0 (not NaN) for a slice whose scores are all -inf (PyTorch's
    `_safe_softmax`): one node, `Softmax`'s values and gradient elsewhere."""
    return nn_ops.SafeSoftmax.apply(scores, dim)


def _check_same_dtype(op: str, x: Tensor, weight: Any) -> None:
    """A TypeError when a layer's input and weight differ in dtype (PyTorch raises too: a float32
    batch into a float64 layer would otherwise run silently in float64)."""
    dtype = getattr(weight, "dtype", None)
    if dtype is not None and getattr(weight, "_is_tensor", False) and x.dtype != dtype:
        raise TypeError(f"{op}: the input is {x.dtype} but the weight is {dtype}: cast the input "
                        f"(x.to(dtype=...)) or the layer (layer.to(dtype=...), .float(), .double())")
