"""The `torchlight.nn.functional` ops of the database (one entry per public function).

Each entry calls the function on Tensors and compares it with a float64
NumPy definition written out here (loops for conv and pooling); integer
arguments (class labels, embedding indices) come as NumPy arrays in the case
kwargs and are moved to the input's backend and device by the call. The
`function` field names "nn.functional.<name>" (the coverage test looks for
it) and the Functions of `torchlight.autograd.functions` the op is built on.
`Fold`, which only appears in backward passes, has an entry of its own.

Example:
    >>> from conformance.ops.nn import OPS
    >>> [op.name for op in OPS if op.function == "Fold"], all(op.area == "nn" for op in OPS)
    (['Fold'], True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo, Tol
from torchlight.autograd import functions as AF
from torchlight.nn import functional as nnF

OPS: list[OpInfo] = []


def _ints(array: np.ndarray, like: Any) -> Any:
    """An integer NumPy array as a Tensor on `like`'s backend and device."""
    return tl.tensor(np.asarray(array, dtype=np.int64), backend=like.backend, device=like._device)


def probability(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Uniform on [0.1, 0.9]: binary cross-entropy's input, clear of the log clamp."""
    return rng.uniform(0.1, 0.9, shape)


def add(name: str, call: Any, reference: Any, cases: tuple[Case, ...], functions: tuple[str, ...] = (),
        **extra: Any) -> None:
    OPS.append(OpInfo(f"nn.functional.{name}", call, reference, cases,
                      function=(f"nn.functional.{name}", *functions), area="nn", **extra))


# --------------------------------------------------------------- references
def ref_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def ref_reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    return {"mean": np.mean, "sum": np.sum, "none": np.asarray}[reduction](loss)


def ref_nll(logp: np.ndarray, w: np.ndarray | None = None, *, target: np.ndarray, ignore_index: int = -100,
            reduction: str = "mean", label_smoothing: float = 0.0) -> np.ndarray:
    """PyTorch's documented nll / cross-entropy of class labels, one sample at a time.

    Sample i with label y (not ignore_index): (1 - e) * w[y] * (-logp[i, y])
    + e / C * sum_c w[c] * (-logp[i, c]); an ignored sample gives 0. The mean
    divides by the sum of w[y] over the samples kept (NaN when that is 0).
    """
    axis = 0 if logp.ndim == 1 else 1
    classes = logp.shape[axis]
    rows = np.moveaxis(logp, axis, -1).reshape(-1, classes)
    labels = np.asarray(target).reshape(-1)
    w = np.ones(classes) if w is None else w
    losses, kept = np.zeros(len(labels)), 0.0
    for i, y in enumerate(labels):
        if y == ignore_index:
            continue
        smooth = sum(-w[c] * rows[i, c] for c in range(classes)) / classes
        losses[i] = (1 - label_smoothing) * -w[y] * rows[i, y] + label_smoothing * smooth
        kept += w[y]
    if reduction == "none":
        return losses.reshape(np.shape(target))
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / kept if kept else np.nan


def ref_cross_entropy(x: np.ndarray, *tensors: np.ndarray, target: np.ndarray | None = None,
                      label_smoothing: float = 0.0, reduction: str = "mean", **options: Any) -> np.ndarray:
    """Labels in `target`: ref_nll of log_softmax; else the first of `tensors` holds class probabilities."""
    axis = 0 if x.ndim == 1 else 1
    logp = ref_log_softmax(x, axis)
    if target is not None:
        return ref_nll(logp, *tensors, target=target, label_smoothing=label_smoothing, reduction=reduction,
                       **options)
    probs, *weight = tensors
    classes = x.shape[axis]
    smoothed = probs * (1 - label_smoothing) + label_smoothing / classes
    w = np.ones(classes) if not weight else weight[0]
    w = w.reshape((classes,) + (1,) * (x.ndim - axis - 1))
    return ref_reduce(-(w * smoothed * logp).sum(axis=axis), reduction)


def ref_pad(x: np.ndarray, padding: tuple[int, int], value: float, extra: tuple[int, int] = (0, 0)) -> np.ndarray:
    """`padding` on every side of the last two axes, and `extra` more after them (bottom, right)."""
    (ph, pw), (eh, ew) = padding, extra
    out = np.full(x.shape[:-2] + (x.shape[-2] + 2 * ph + eh, x.shape[-1] + 2 * pw + ew), value)
    out[..., ph:ph + x.shape[-2], pw:pw + x.shape[-1]] = x
    return out


def ref_windows(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int],
                dilation: tuple[int, int] = (1, 1)) -> np.ndarray:
    """(N, C, Ho, Wo, kh, kw) by explicit loops over the output pixels and the kernel's taps."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = (x.shape[-2] - dh * (kh - 1) - 1) // sh + 1, (x.shape[-1] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros(x.shape[:-2] + (ho, wo, kh, kw))
    for r in range(ho):
        for s in range(wo):
            for i in range(kh):
                for j in range(kw):
                    out[..., r, s, i, j] = x[..., r * sh + i * dh, s * sw + j * dw]
    return out


def _pair(v: Any) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def ref_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride: Any = 1,
               padding: Any = 0, dilation: Any = 1, groups: int = 1) -> np.ndarray:
    """Each group of input channels convolved with its own slice of the output channels.

    padding="same": the output keeps the input's size, so the padding in all
    is the kernel's dilated span less one, the odd one after (PyTorch's choice).
    """
    extra = (0, 0)
    if padding == "valid":
        padding = 0
    elif padding == "same":
        spans = [d * (k - 1) for k, d in zip(w.shape[-2:], _pair(dilation))]
        padding, extra = tuple(t // 2 for t in spans), tuple(t % 2 for t in spans)
    windows = ref_windows(ref_pad(x, _pair(padding), 0.0, extra), w.shape[-2:], _pair(stride), _pair(dilation))
    cin, cout = x.shape[1] // groups, w.shape[0] // groups
    out = np.concatenate([np.einsum("ncrsij,ocij->nors", windows[:, g * cin:(g + 1) * cin], w[g * cout:(g + 1) * cout])
                          for g in range(groups)], axis=1)
    return out if b is None else out + b[:, None, None]


def ref_pool(x: np.ndarray, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1, *,
             reduce: Any, fill: float) -> np.ndarray:
    kernel = _pair(kernel_size)
    windows = ref_windows(ref_pad(x, _pair(padding), fill), kernel, kernel if stride is None else _pair(stride),
                          _pair(dilation))
    return reduce(windows, axis=(-2, -1))


def ref_layer_norm(x: np.ndarray, w: np.ndarray | None = None, b: np.ndarray | None = None, *,
                   normalized_shape: Any, eps: float = 1e-5) -> np.ndarray:
    dims = tuple(range(x.ndim - len(_shape(normalized_shape)), x.ndim))
    out = (x - x.mean(dims, keepdims=True)) / np.sqrt(x.var(dims, keepdims=True) + eps)
    return out * (1.0 if w is None else w) + (0.0 if b is None else b)


def _shape(s: Any) -> tuple[int, ...]:
    return (s,) if isinstance(s, int) else tuple(s)


def ref_dropout(x: np.ndarray, *, p: float, seed: int) -> np.ndarray:
    keep = np.random.default_rng(seed).random(x.shape) >= p
    return x * keep / (1.0 - p)


# -------------------------------------------------------------- activations
UNARY = (Case("1d", ((5,),)), Case("2d", ((3, 4),)), Case("batched", ((2, 3, 4),)))

add("relu", nnF.relu, lambda x: np.maximum(x, 0.0), UNARY, ("ReLU",), domain=D.away_from_zero)
add("sigmoid", nnF.sigmoid, lambda x: 1.0 / (1.0 + np.exp(-x)), UNARY, ("Sigmoid",))
add("tanh", nnF.tanh, np.tanh, UNARY, ("Tanh",))
add("softplus", nnF.softplus, lambda x: np.logaddexp(0.0, x),
    UNARY + (Case("large", ((3,),), domain=D.fixed([-50.0, 0.0, 50.0])),), ("Softplus", "SelectAbove"))
add("softmax", lambda x, dim=-1: nnF.softmax(x, dim), lambda x, dim=-1: np.exp(ref_log_softmax(x, dim)),
    (Case("rows", ((3, 4),)), Case("dim0", ((3, 4),), kwargs={"dim": 0})), ("Softmax",))
add("log_softmax", lambda x, dim=-1: nnF.log_softmax(x, dim), lambda x, dim=-1: ref_log_softmax(x, dim),
    (Case("rows", ((3, 4),)), Case("dim0", ((3, 4),), kwargs={"dim": 0}),
     Case("large", ((2, 2),), domain=D.fixed([[1000.0, 0.0], [-1000.0, 0.0]]), double_backward=False,
          note="no overflow at |x| = 1000")),
    ("LogSoftmax",))
add("logsumexp", lambda x, dim=None, keepdim=False: nnF.logsumexp(x, dim, keepdim),
    lambda x, dim=None, keepdim=False: np.log(np.sum(np.exp(x), axis=dim, keepdims=keepdim)),
    (Case("all", ((3, 4),)), Case("rows", ((3, 4),), kwargs={"dim": 1}),
     Case("keepdim", ((2, 3, 4),), kwargs={"dim": (0, 2), "keepdim": True}),
     Case("large", ((2,),), domain=D.fixed([700.0, 700.0]), dtypes=("float64",),
          tol={"forward": Tol("exp(700) is near float64's limit; the reference still fits", rtol=1e-12)})),
    ("LogSumExp",))

# ------------------------------------------------------------------- losses
LABELS = np.array([2, 0, 3, 3])
IGNORED = np.array([2, -100, 3, -100])
WEIGHTED = (D.normal, D.positive)  # logits, then a class weight in [0.5, 2]
ALL_IGNORED = {"grad_reference": lambda x, *_, **k: (np.zeros(x.shape),), "double_backward": False,
               "note": "every label ignored: the mean is 0 / 0, NaN, with a zero gradient (PyTorch)"}


def call_cross_entropy(x: Any, *tensors: Any, target: Any = None, **options: Any) -> Any:
    """Labels as `target` (a NumPy array, moved to x's backend) and an optional weight as the next
    Tensor; without `target`, the next Tensor holds class probabilities (then the weight)."""
    if target is not None:
        return nnF.cross_entropy(x, _ints(target, x), *tensors, **options)
    probs, *weight = tensors
    return nnF.cross_entropy(x, probs, *weight, **options)


add("cross_entropy", call_cross_entropy, ref_cross_entropy,
    (Case("mean", ((4, 5),), kwargs={"target": LABELS}),
     Case("sum", ((4, 5),), kwargs={"target": LABELS, "reduction": "sum"}),
     Case("none", ((4, 5),), kwargs={"target": LABELS, "reduction": "none"}),
     Case("spatial", ((2, 3, 2, 2),), kwargs={"target": np.array([[[0, 2], [1, 1]], [[2, 2], [0, 1]]])}),
     Case("unbatched", ((5,),), kwargs={"target": np.array(4)}),
     Case("large", ((2, 2),), kwargs={"target": np.array([1, 0])},
          domain=D.fixed([[1000.0, 0.0], [-1000.0, 0.0]]), double_backward=False,
          note="no overflow at |x| = 1000"),
     Case("label_out_of_range", ((4, 3),), kwargs={"target": LABELS}, raises=ValueError,
          match="cross_entropy: labels [3] out of range for 3 classes"),
     Case("weight", ((4, 5), (5,)), kwargs={"target": LABELS}, grad=(True, False), domain=WEIGHTED),
     Case("weight_sum", ((4, 5), (5,)), kwargs={"target": LABELS, "reduction": "sum"}, grad=(True, False),
          domain=WEIGHTED),
     Case("ignore_index", ((4, 5),), kwargs={"target": IGNORED}),
     Case("ignore_index_none", ((4, 5),), kwargs={"target": IGNORED, "reduction": "none"}),
     Case("ignore_in_range", ((4, 5),), kwargs={"target": LABELS, "ignore_index": 3},
          note="an ignore_index that is a class: those labels leave the loss"),
     Case("all_ignored", ((4, 5),), kwargs={"target": np.full(4, -100)}, **ALL_IGNORED),
     Case("all_ignored_sum", ((4, 5),), kwargs={"target": np.full(4, -100), "reduction": "sum"}),
     Case("label_smoothing", ((4, 5),), kwargs={"target": LABELS, "label_smoothing": 0.2}),
     Case("smoothing_one", ((4, 5),), kwargs={"target": LABELS, "label_smoothing": 1.0}),
     Case("combined", ((4, 5), (5,)), kwargs={"target": IGNORED, "label_smoothing": 0.3}, grad=(True, False),
          domain=WEIGHTED, note="weight, ignore_index and label_smoothing at once"),
     Case("combined_spatial", ((2, 3, 2, 2), (3,)), grad=(True, False), domain=WEIGHTED,
          kwargs={"target": np.array([[[0, -100], [1, 1]], [[2, 2], [-100, 1]]]), "label_smoothing": 0.1,
                  "reduction": "none"}),
     Case("combined_unbatched", ((5,), (5,)), kwargs={"target": np.array(1), "label_smoothing": 0.4},
          grad=(True, False), domain=WEIGHTED),
     Case("probabilities", ((4, 5), (4, 5)), domain=(D.normal, D.positive),
          note="class probabilities (unnormalised here: the loss is linear in them)"),
     Case("probabilities_options", ((2, 3, 2), (2, 3, 2), (3,)), grad=(True, True, False),
          domain=(D.normal, D.positive, D.positive), kwargs={"label_smoothing": 0.25, "reduction": "sum"}),
     Case("weight_shape", ((4, 5), (4,)), kwargs={"target": LABELS}, raises=ValueError,
          match="cross_entropy: weight must have shape (5,)"),
     Case("smoothing_range", ((4, 5),), kwargs={"target": LABELS, "label_smoothing": 1.5}, raises=ValueError,
          match="label_smoothing must be a number in [0, 1]"),
     Case("label_out_of_range_ignoring", ((4, 5),), kwargs={"target": np.array([0, -100, 5, -1])},
          raises=ValueError, match="labels [-1, 5] out of range for 5 classes"),
     Case("ignore_index_with_probabilities", ((4, 5), (4, 5)), kwargs={"ignore_index": 0}, raises=ValueError,
          match="ignore_index needs integer labels")),
    ("CrossEntropy", "Softmax", "LogSoftmax", "TakeAlongAxis"))
add("nll_loss",
    lambda x, *weight, target, **options: nnF.nll_loss(x, _ints(target, x), *weight, **options),
    ref_nll,
    (Case("mean", ((4, 5),), kwargs={"target": LABELS}),
     Case("none", ((4, 5),), kwargs={"target": LABELS, "reduction": "none"}),
     Case("unbatched", ((5,),), kwargs={"target": np.array(4)}),
     Case("bad_reduction", ((4, 5),), kwargs={"target": LABELS, "reduction": "avg"}, raises=ValueError,
          match="reduction must be one of"),
     Case("weight", ((4, 5), (5,)), kwargs={"target": LABELS}, grad=(True, False), domain=WEIGHTED),
     Case("ignore_index", ((4, 5), (5,)), kwargs={"target": IGNORED}, grad=(True, False), domain=WEIGHTED),
     Case("all_ignored", ((4, 5),), kwargs={"target": np.full(4, -100)}, **ALL_IGNORED),
     Case("all_ignored_none", ((4, 5),), kwargs={"target": np.full(4, -100), "reduction": "none"}),
     Case("weight_shape", ((4, 5), (5, 1)), kwargs={"target": LABELS}, raises=ValueError,
          match="nll_loss: weight must have shape (5,)")),
    ("TakeAlongAxis",))
add("mse_loss", lambda x, t, reduction="mean": nnF.mse_loss(x, t, reduction=reduction),
    lambda x, t, reduction="mean": ref_reduce((x - t) ** 2, reduction),
    (Case("mean", ((3, 4), (3, 4))), Case("none", ((3, 4), (3, 4)), kwargs={"reduction": "none"}),
     Case("target_fixed", ((5,), (5,)), grad=(True, False)),
     Case("shape_mismatch", ((3, 4), (4,)), raises=ValueError, match="mse_loss: input shape (3, 4) and target")))
add("binary_cross_entropy", lambda p, t, reduction="mean": nnF.binary_cross_entropy(p, t, reduction=reduction),
    lambda p, t, reduction="mean": ref_reduce(-(t * np.log(p) + (1 - t) * np.log(1 - p)), reduction),
    (Case("mean", ((3, 4), (3, 4))), Case("sum", ((6,), (6,)), kwargs={"reduction": "sum"}),
     Case("not_probabilities", ((3,), (3,)), domain=(D.fixed([0.5, 1.5, 0.2]), probability), raises=ValueError,
          match="probability in [0, 1]")),
    ("BinaryCrossEntropyLog",), domain=(probability, probability))
add("binary_cross_entropy_with_logits",
    lambda x, t, reduction="mean": nnF.binary_cross_entropy_with_logits(x, t, reduction=reduction),
    lambda x, t, reduction="mean": ref_reduce(np.logaddexp(0.0, x) - t * x, reduction),
    (Case("mean", ((3, 4), (3, 4))), Case("none", ((5,), (5,)), kwargs={"reduction": "none"}),
     Case("large", ((3,), (3,)), domain=(D.fixed([-60.0, 0.0, 60.0]), probability))),
    ("Softplus",), domain=(D.normal, probability))

# ------------------------------------------------------------------- layers
add("linear", nnF.linear, lambda x, w, b=None: x @ w.T + (0.0 if b is None else b),
    (Case("bias", ((3, 4), (2, 4), (2,))), Case("no_bias", ((5, 3), (4, 3))),
     Case("batched", ((2, 3, 4), (2, 4), (2,))),
     Case("unbatched", ((4,), (3, 4), (3,))),
     Case("batched_no_bias", ((2, 2, 3), (4, 3))),
     Case("wrong_width", ((3, 5), (2, 4)), raises=ValueError, match="in_features=4")),
    ("Linear",))
add("conv2d", nnF.conv2d, ref_conv2d,
    (Case("plain", ((2, 2, 4, 5), (3, 2, 2, 3), (3,))),
     Case("stride_padding", ((1, 2, 5, 5), (2, 2, 3, 3), (2,)), kwargs={"stride": 2, "padding": 1}),
     Case("uneven", ((2, 1, 4, 6), (2, 1, 3, 2)), kwargs={"stride": (1, 2), "padding": (2, 0)}),
     Case("wrong_channels", ((1, 3, 4, 4), (2, 1, 3, 3)), raises=ValueError, match="input has 3 channels"),
     Case("dilation", ((1, 2, 6, 7), (2, 2, 2, 3), (2,)), kwargs={"dilation": 2}),
     Case("groups", ((2, 4, 4, 4), (6, 2, 2, 2), (6,)), kwargs={"groups": 2}),
     Case("depthwise", ((1, 3, 4, 5), (6, 1, 3, 3)), kwargs={"groups": 3, "padding": 1},
          note="groups == channels, two filters per channel"),
     Case("stride_dilation_padding", ((1, 2, 7, 6), (4, 1, 3, 2), (4,)),
          kwargs={"stride": (2, 1), "dilation": (2, 3), "padding": (1, 2), "groups": 2}),
     Case("groups_indivisible", ((1, 3, 4, 4), (2, 1, 3, 3)), kwargs={"groups": 2}, raises=ValueError,
          match="groups=2 must divide both the input's 3 channels"),
     Case("groups_wrong_weight", ((1, 4, 4, 4), (2, 1, 3, 3)), kwargs={"groups": 2}, raises=ValueError,
          match="expects 1 per group x 2 groups = 2"),
     Case("dilated_too_large", ((1, 1, 4, 4), (1, 1, 3, 3)), kwargs={"dilation": 2}, raises=ValueError,
          match="spans (5, 5)) is larger than the padded input"),
     Case("same_even_kernel", ((2, 2, 5, 6), (3, 2, 2, 4), (3,)), kwargs={"padding": "same"},
          note="the odd padding goes after, as PyTorch: the output is 5 x 6"),
     Case("same_dilated", ((1, 2, 7, 6), (2, 1, 3, 2)), kwargs={"padding": "same", "dilation": (2, 3), "groups": 2}),
     Case("valid", ((1, 2, 5, 5), (2, 2, 3, 3), (2,)), kwargs={"padding": "valid", "stride": 2}),
     Case("same_strided", ((1, 1, 5, 5), (1, 1, 3, 3)), kwargs={"padding": "same", "stride": 2},
          raises=ValueError, match="padding='same' needs stride 1")),
    ("Pad", "Unfold", "Linear", "MatMul"))
add("max_pool2d", nnF.max_pool2d, lambda x, **k: ref_pool(x, **k, reduce=np.max, fill=-np.inf),
    (Case("2x2", ((2, 2, 4, 4),), kwargs={"kernel_size": 2}),
     Case("overlap_padding", ((1, 2, 5, 4),), kwargs={"kernel_size": (3, 2), "stride": 1, "padding": 1}),
     Case("dilation", ((1, 2, 7, 7),), kwargs={"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2}),
     Case("tie", ((1, 1, 2, 2),), domain=D.fixed(1.0), kwargs={"kernel_size": 2}, double_backward=False,
          grad_reference=lambda x, **k: (np.full(x.shape, 0.25),), note="ties share the gradient evenly")),
    ("Unfold", "Max"), domain=D.distinct)
add("avg_pool2d", lambda x, kernel_size, stride=None, padding=0: nnF.avg_pool2d(x, kernel_size, stride, padding),
    lambda x, **k: ref_pool(x, **k, reduce=np.mean, fill=0.0),
    (Case("2x2", ((2, 2, 4, 4),), kwargs={"kernel_size": 2}),
     Case("overlap_padding", ((1, 2, 5, 4),), kwargs={"kernel_size": 3, "stride": (2, 1), "padding": 1})),
    ("Unfold", "Sum"))
add("layer_norm",
    lambda x, w=None, b=None, normalized_shape=4, eps=1e-5: nnF.layer_norm(x, normalized_shape, w, b, eps),
    ref_layer_norm,
    (Case("affine", ((3, 4), (4,), (4,)), kwargs={"normalized_shape": 4}),
     Case("plain_2d", ((2, 3, 4),), kwargs={"normalized_shape": (3, 4)}),
     Case("wrong_shape", ((3, 5),), kwargs={"normalized_shape": 4}, raises=ValueError,
          match="does not end in normalized_shape")),
    ("Sqrt", "Div"))
add("embedding", lambda w, indices: nnF.embedding(_ints(indices, w), w), lambda w, indices: w[indices],
    (Case("2d_indices", ((5, 3),), kwargs={"indices": np.array([[0, 4], [4, 2]])}),
     Case("repeated", ((4, 2),), kwargs={"indices": np.array([1, 1, 1, 3])}),
     Case("out_of_range", ((4, 2),), kwargs={"indices": np.array([4])}, raises=ValueError,
          match="indices [4] out of range for 4 embeddings")),
    ("Gather",))
add("dropout", lambda x, p, seed: nnF.dropout(x, p, True, np.random.default_rng(seed)), ref_dropout,
    (Case("half", ((4, 5),), kwargs={"p": 0.5, "seed": 3}), Case("light", ((20,),), kwargs={"p": 0.1, "seed": 4}),
     Case("bad_p", ((3,),), kwargs={"p": 1.5, "seed": 0}, raises=ValueError, match="p must be in [0, 1]")),
    ("Dropout",), skips={})


# ------------------------------------------------- Fold (backward-only Function)
def ref_fold(g: np.ndarray, *, shape: tuple[int, ...], kernel: tuple[int, int],
             stride: tuple[int, int], window_axis: int = -1, dilation: tuple[int, int] = (1, 1)) -> np.ndarray:
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    g = np.moveaxis(g, 0, -1) if window_axis == 0 else g
    out = np.zeros(shape)
    for r in range(g.shape[-3]):
        for s in range(g.shape[-2]):
            taps = g[..., r, s, :].reshape(g.shape[:-3] + (kh, kw))
            out[..., r * sh:r * sh + dh * (kh - 1) + 1:dh, s * sw:s * sw + dw * (kw - 1) + 1:dw] += taps
    return out


OPS.append(OpInfo(
    "Fold", lambda g, shape, kernel, stride, window_axis=-1, dilation=(1, 1):
        AF.Fold.apply(g, shape, kernel, stride, window_axis, dilation),
    ref_fold,
    (Case("overlapping", ((1, 2, 3, 3, 4),), kwargs={"shape": (1, 2, 4, 4), "kernel": (2, 2), "stride": (1, 1)}),
     Case("strided", ((2, 1, 2, 2, 6),), kwargs={"shape": (2, 1, 5, 6), "kernel": (2, 3), "stride": (2, 3)}),
     Case("windows_first", ((6, 2, 1, 2, 2),),
          kwargs={"shape": (2, 1, 5, 6), "kernel": (2, 3), "stride": (2, 3), "window_axis": 0}),
     Case("dilated", ((1, 2, 2, 3, 4),),
          kwargs={"shape": (1, 2, 5, 6), "kernel": (2, 2), "stride": (2, 1), "dilation": (2, 3)})),
    function="Fold", area="nn"))


# -------------------------------------------------------------- GELU (appended with torchlight.special)
def ref_gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))
    import scipy.special  # (a test dependency, imported when the reference first runs)

    return x * scipy.special.ndtr(x)


add("gelu", lambda x, approximate="none": nnF.gelu(x, approximate), ref_gelu,
    UNARY + (Case("tanh", ((3, 4),), kwargs={"approximate": "tanh"}, note="PyTorch's tanh approximation"),
             Case("tails", ((4,),), domain=D.fixed([-30.0, -8.0, 8.0, 30.0]), note="x Phi(x) far below 0: ndtr"),
             Case("bad_approximate", ((3,),), kwargs={"approximate": "erf"}, raises=ValueError,
                  match="gelu: approximate must be 'none' or 'tanh'")),
    ("Ndtr", "Tanh"))


# ------------------------------------ conv1d, conv_transpose2d, attention (appended with torchlight.nn.recurrent)
def ref_conv1d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride: int = 1, padding: Any = 0,
               dilation: int = 1, groups: int = 1) -> np.ndarray:
    """conv2d over a height of 1."""
    pad = padding if isinstance(padding, str) else (0, padding)
    out = ref_conv2d(x[:, :, None, :], w[:, :, None, :], b, (1, stride), pad, (1, dilation), groups)
    return out[:, :, 0, :]


def ref_conv_transpose2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride: Any = 1,
                         padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> np.ndarray:
    """Each input pixel scatters w[c] * x[c] into the output, strides apart, taps dilation apart; then the
    padding is cut off each side (output_padding rows and columns at the end, zero past the last tap)."""
    (sh, sw), (ph, pw), (oh, ow), (dh, dw) = _pair(stride), _pair(padding), _pair(output_padding), _pair(dilation)
    n, cin, h, wd = x.shape
    _, per_out, kh, kw = w.shape
    per_in = cin // groups
    full = ((h - 1) * sh + dh * (kh - 1) + 1 + oh, (wd - 1) * sw + dw * (kw - 1) + 1 + ow)
    out = np.zeros((n, per_out * groups) + full)
    for g in range(groups):
        xs, ws = x[:, g * per_in:(g + 1) * per_in], w[g * per_in:(g + 1) * per_in]
        for i in range(kh):
            for j in range(kw):
                out[:, g * per_out:(g + 1) * per_out, i * dh:i * dh + sh * (h - 1) + 1:sh,
                    j * dw:j * dw + sw * (wd - 1) + 1:sw] += np.einsum("nchw,co->nohw", xs, ws[:, :, i, j])
    out = out[:, :, ph:full[0] - ph, pw:full[1] - pw]
    return out if b is None else out + b[:, None, None]


def ref_sdpa(q: np.ndarray, k: np.ndarray, v: np.ndarray, attn_mask: Any = None, is_causal: bool = False,
             scale: float | None = None) -> np.ndarray:
    """softmax(q k^T scale + mask) v; a boolean mask keeps its True keys; a query with no key gets 0."""
    scores = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        attn_mask = np.tril(np.ones(scores.shape[-2:], bool))
    if attn_mask is not None and attn_mask.dtype == bool:
        scores = np.where(attn_mask, scores, -np.inf)
    elif attn_mask is not None:
        scores = scores + attn_mask
    top = scores.max(-1, keepdims=True)
    e = np.exp(scores - np.where(np.isneginf(top), 0.0, top))
    total = e.sum(-1, keepdims=True)
    return e / np.where(total == 0, 1.0, total) @ v


add("conv1d", nnF.conv1d, ref_conv1d,
    (Case("plain", ((2, 2, 7), (3, 2, 3), (3,))),
     Case("strided_dilated_groups", ((1, 4, 9), (4, 2, 2), (4,)),
          kwargs={"stride": 2, "padding": 1, "dilation": 2, "groups": 2}),
     Case("same", ((2, 2, 6), (3, 2, 4)), kwargs={"padding": "same"}),
     Case("wrong_channels", ((1, 3, 5), (2, 2, 3)), raises=ValueError, match="conv1d: the input of shape (1, 3, 5)")),
    ("Pad", "Unfold", "Linear", "MatMul"))
add("conv_transpose2d", nnF.conv_transpose2d, ref_conv_transpose2d,
    (Case("plain", ((2, 2, 3, 3), (2, 3, 2, 2), (3,))),
     Case("strided_padded", ((1, 2, 3, 4), (2, 2, 3, 3), (2,)),
          kwargs={"stride": (2, 3), "padding": 1, "output_padding": (1, 2)}),
     Case("groups_dilation", ((1, 4, 3, 3), (4, 1, 2, 3)), kwargs={"groups": 2, "dilation": (2, 1), "stride": 2}),
     Case("past_the_last_tap", ((1, 1, 2, 2), (1, 1, 2, 2)), kwargs={"stride": 3, "output_padding": 2},
          note="output_padding beyond the padding: zero rows and columns at the end"),
     Case("bad_output_padding", ((1, 1, 2, 2), (1, 1, 2, 2)), kwargs={"stride": 2, "output_padding": 2},
          raises=ValueError, match="output_padding (2, 2) must be smaller than either stride")),
    ("MatMul", "Fold", "Gather", "Pad"))
CAUSAL_KEEP = np.array([[True, False, True, False], [False, False, False, False], [True, True, False, True]])
add("scaled_dot_product_attention", nnF.scaled_dot_product_attention, ref_sdpa,
    (Case("plain", ((2, 3, 4), (2, 4, 4), (2, 4, 2))),
     Case("causal_scaled", ((2, 3, 2), (2, 3, 2), (2, 3, 3)), kwargs={"is_causal": True, "scale": 0.5}),
     Case("bool_mask", ((3, 2), (4, 2), (4, 3)), kwargs={"attn_mask": CAUSAL_KEEP},
          note="the second query sees no key: zero weights, as PyTorch's"),
     Case("float_mask", ((2, 3, 2), (2, 4, 2), (2, 4, 2), (3, 4))),
     Case("mask_and_causal", ((3, 2), (3, 2), (3, 2)), kwargs={"attn_mask": np.ones((3, 3), bool),
                                                               "is_causal": True},
          raises=ValueError, match="either attn_mask or is_causal")),
    ("MatMul", "Softmax", "SafeSoftmax", "MaskScores"))
# ------------------------------------------------- issue 24: activations, losses, normalisation
def kink_free(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Normal draws kept clear of the kinks at 0 and +-1 (hardtanh's edges), for central differences."""
    x = rng.uniform(0.15, 0.85, shape) * rng.choice([-1.0, 1.0], shape)
    return x + np.sign(x) * rng.choice([0.0, 1.3], shape)


add("leaky_relu", lambda x, negative_slope=0.01: nnF.leaky_relu(x, negative_slope),
    lambda x, negative_slope=0.01: np.where(x > 0, x, negative_slope * x),
    UNARY + (Case("slope", ((3, 4),), kwargs={"negative_slope": 0.2}),), ("SelectAbove",), domain=kink_free,
    double_backward=False, double_backward_reason="piecewise linear: the second derivative is 0")
add("silu", nnF.silu, lambda x: x / (1.0 + np.exp(-x)), UNARY, ("Sigmoid",))
add("elu", lambda x, alpha=1.0: nnF.elu(x, alpha), lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x)),
    UNARY + (Case("alpha", ((3, 4),), kwargs={"alpha": 0.5}),), ("SelectAbove", "Expm1"), domain=kink_free)
add("mish", nnF.mish, lambda x: x * np.tanh(np.logaddexp(0.0, x)), UNARY, ("Softplus", "Tanh"))
add("hardtanh", lambda x, min_val=-1.0, max_val=1.0: nnF.hardtanh(x, min_val, max_val),
    lambda x, min_val=-1.0, max_val=1.0: np.clip(x, min_val, max_val),
    UNARY + (Case("range", ((3, 4),), kwargs={"min_val": -0.5, "max_val": 2.0}),
             Case("bad_range", ((3,),), kwargs={"min_val": 1.0, "max_val": 0.0}, raises=ValueError,
                  match="hardtanh: min_val")),
    ("Hardtanh",), domain=kink_free, double_backward=False,
    double_backward_reason="piecewise linear: the second derivative is 0")


def ref_huber(x: np.ndarray, t: np.ndarray, reduction: str = "mean", delta: float = 1.0) -> np.ndarray:
    d = np.abs(x - t)
    return ref_reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def ref_kl_div(x: np.ndarray, t: np.ndarray, reduction: str = "mean", log_target: bool = False) -> np.ndarray:
    loss = np.exp(t) * (t - x) if log_target else t * (np.log(t) - x)
    if reduction == "batchmean":
        return loss.sum() / x.shape[0]
    return ref_reduce(loss, reduction)


add("l1_loss", lambda x, t, reduction="mean": nnF.l1_loss(x, t, reduction=reduction),
    lambda x, t, reduction="mean": ref_reduce(np.abs(x - t), reduction),
    (Case("mean", ((3, 4), (3, 4))), Case("sum", ((5,), (5,)), kwargs={"reduction": "sum"}),
     Case("shape_mismatch", ((3, 4), (4,)), raises=ValueError, match="l1_loss: input shape (3, 4) and target")),
    ("Abs",), domain=(D.normal, D.normal), double_backward=False,
    double_backward_reason="piecewise linear: the second derivative is 0")
add("huber_loss", lambda x, t, reduction="mean", delta=1.0: nnF.huber_loss(x, t, reduction, delta), ref_huber,
    (Case("mean", ((3, 4), (3, 4)), kwargs={"delta": 10.0}, note="every element in the squared part"),
     Case("linear", ((5,), (5,)), domain=(D.fixed([3.0, -4.0, 2.5, 6.0, -2.0]), D.fixed(np.zeros(5))),
          kwargs={"reduction": "sum", "delta": 1.0}, double_backward=False),
     Case("bad_delta", ((3,), (3,)), kwargs={"delta": 0.0}, raises=ValueError, match="delta must be a number > 0")),
    ("SelectAbove",))
add("smooth_l1_loss", lambda x, t, reduction="mean", beta=1.0: nnF.smooth_l1_loss(x, t, reduction=reduction,
                                                                                 beta=beta),
    lambda x, t, reduction="mean", beta=1.0: ref_huber(x, t, reduction, beta) / beta,
    (Case("squared", ((3, 4), (3, 4)), kwargs={"beta": 10.0}),
     Case("linear", ((5,), (5,)), domain=(D.fixed([3.0, -4.0, 2.5, 6.0, -2.0]), D.fixed(np.zeros(5))),
          kwargs={"reduction": "none", "beta": 0.5}, double_backward=False),
     Case("bad_beta", ((3,), (3,)), kwargs={"beta": -1.0}, raises=ValueError, match="beta must be a number >= 0")),
    ("SelectAbove",))
add("kl_div", lambda x, t, reduction="mean", log_target=False: nnF.kl_div(x, t, reduction=reduction,
                                                                         log_target=log_target),
    ref_kl_div,
    (Case("mean", ((3, 4), (3, 4))), Case("batchmean", ((3, 4), (3, 4)), kwargs={"reduction": "batchmean"}),
     Case("log_target", ((3, 4), (3, 4)), domain=(D.normal, D.normal), kwargs={"log_target": True}),
     Case("bad_reduction", ((3,), (3,)), kwargs={"reduction": "avg"}, raises=ValueError, match="kl_div: reduction")),
    ("SelectAbove", "Log"), domain=(D.normal, probability))


def ref_batch_norm(x: np.ndarray, w: np.ndarray | None = None, b: np.ndarray | None = None,
                   eps: float = 1e-5) -> np.ndarray:
    dims = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    out = (x - x.mean(dims, keepdims=True)) / np.sqrt(x.var(dims, keepdims=True) + eps)
    return out * (1.0 if w is None else w.reshape(shape)) + (0.0 if b is None else b.reshape(shape))


def ref_group_norm(x: np.ndarray, w: np.ndarray | None = None, b: np.ndarray | None = None, *, num_groups: int,
                   eps: float = 1e-5) -> np.ndarray:
    g = x.reshape(x.shape[0], num_groups, -1)
    out = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return out * (1.0 if w is None else w.reshape(shape)) + (0.0 if b is None else b.reshape(shape))


add("batch_norm", lambda x, w=None, b=None, eps=1e-5: nnF.batch_norm(x, None, None, w, b, True, 0.1, eps),
    ref_batch_norm,
    (Case("affine", ((4, 3), (3,), (3,))), Case("spatial", ((2, 3, 2, 2), (3,), (3,))),
     Case("plain", ((3, 2, 4),)),
     Case("one_value", ((1, 3),), raises=ValueError, match="more than 1 value per channel")),
    ("Sqrt",))  # (training statistics; the running ones: tests/nn/test_batch_and_group_norm.py)
add("group_norm", lambda x, w=None, b=None, num_groups=1, eps=1e-5: nnF.group_norm(x, num_groups, w, b, eps),
    ref_group_norm,
    (Case("affine", ((2, 4, 3), (4,), (4,)), kwargs={"num_groups": 2}),
     Case("spatial", ((2, 6, 2, 2),), kwargs={"num_groups": 3}),
     Case("not_divisible", ((2, 3),), kwargs={"num_groups": 2}, raises=ValueError, match="divisible by num_groups")),
    ("Sqrt",))


def _negative_values(xp: Any, x: Any) -> bool:
    return bool(xp.any(x < 0))


def _judge_no_negative_values(parts: list[bool]) -> None:
    if any(parts):
        raise ValueError("checked: a negative value")


# The value check a lazy backend folds into the graph (binary_cross_entropy's on Dask): x unchanged, its
# gradient passed through, the check's error raised (at the call eagerly; when computed on Dask)
OPS.append(OpInfo(
    "CheckedValues", lambda x: AF.CheckedValues.apply(x, (), _negative_values, _judge_no_negative_values),
    lambda x: x, (
        Case("passes", ((3, 4),), domain=D.positive),
        Case("empty", ((0, 3),)),
        Case("negative", ((3,),), domain=D.fixed([1.0, -2.0, 3.0]), raises=ValueError,
             match="checked: a negative value",
             skips={"dask": "on Dask the check raises when the value is computed (tests/backends/"
                            "test_dask_laziness.py runs it so)"}),
    ), function="CheckedValues", area="nn"))
