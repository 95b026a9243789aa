"""The `torchlight.nn.functional` ops of the database (one entry per public function).

Each entry calls the function on Tensors and compares it with a float64
NumPy definition written out here (loops for conv and pooling); integer
arguments (class labels, embedding indices) come as NumPy arrays in the case
kwargs and are moved to the input's backend and device by the call. The
`function` field names "nn.functional.<name>" (the coverage test looks for
it) and the Functions of `torchlight.autograd.functions` the op is built on.
`Fold`, which only appears in backward passes, has an entry of its own.
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
    return tl.tensor(np.asarray(array, dtype=np.int64), backend=like.backend, device=like.device)


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


def ref_nll(logp: np.ndarray, target: np.ndarray, reduction: str = "mean") -> np.ndarray:
    axis = 0 if logp.ndim == 1 else 1
    picked = np.take_along_axis(logp, np.expand_dims(target, axis), axis=axis)
    return ref_reduce(-np.squeeze(picked, axis), reduction)


def ref_pad(x: np.ndarray, padding: tuple[int, int], value: float) -> np.ndarray:
    ph, pw = padding
    out = np.full(x.shape[:-2] + (x.shape[-2] + 2 * ph, x.shape[-1] + 2 * pw), value)
    out[..., ph:ph + x.shape[-2], pw:pw + x.shape[-1]] = x
    return out


def ref_windows(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int]) -> np.ndarray:
    """(N, C, Ho, Wo, kh, kw) by explicit loops over the output pixels."""
    (kh, kw), (sh, sw) = kernel, stride
    ho, wo = (x.shape[-2] - kh) // sh + 1, (x.shape[-1] - kw) // sw + 1
    out = np.zeros(x.shape[:-2] + (ho, wo, kh, kw))
    for r in range(ho):
        for s in range(wo):
            out[..., r, s, :, :] = x[..., r * sh:r * sh + kh, s * sw:s * sw + kw]
    return out


def _pair(v: Any) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def ref_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride: Any = 1,
               padding: Any = 0) -> np.ndarray:
    windows = ref_windows(ref_pad(x, _pair(padding), 0.0), w.shape[-2:], _pair(stride))
    out = np.einsum("ncrsij,ocij->nors", windows, w)
    return out if b is None else out + b[:, None, None]


def ref_pool(x: np.ndarray, kernel_size: Any, stride: Any = None, padding: Any = 0, *, reduce: Any,
             fill: float) -> np.ndarray:
    kernel = _pair(kernel_size)
    windows = ref_windows(ref_pad(x, _pair(padding), fill), kernel, kernel if stride is None else _pair(stride))
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
    UNARY + (Case("large", ((3,),), domain=D.fixed([-50.0, 0.0, 50.0])),), ("Softplus",))
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
add("cross_entropy",
    lambda x, target, reduction="mean": nnF.cross_entropy(x, _ints(target, x), reduction),
    lambda x, target, reduction="mean": ref_nll(ref_log_softmax(x, 0 if x.ndim == 1 else 1), target, reduction),
    (Case("mean", ((4, 5),), kwargs={"target": LABELS}),
     Case("sum", ((4, 5),), kwargs={"target": LABELS, "reduction": "sum"}),
     Case("none", ((4, 5),), kwargs={"target": LABELS, "reduction": "none"}),
     Case("spatial", ((2, 3, 2, 2),), kwargs={"target": np.array([[[0, 2], [1, 1]], [[2, 2], [0, 1]]])}),
     Case("unbatched", ((5,),), kwargs={"target": np.array(4)}),
     Case("large", ((2, 2),), kwargs={"target": np.array([1, 0])},
          domain=D.fixed([[1000.0, 0.0], [-1000.0, 0.0]]), double_backward=False,
          note="no overflow at |x| = 1000"),
     Case("label_out_of_range", ((4, 3),), kwargs={"target": LABELS}, raises=ValueError,
          match="cross_entropy: labels [3] out of range for 3 classes")),
    ("CrossEntropy", "Softmax"))
add("nll_loss",
    lambda x, target, reduction="mean": nnF.nll_loss(x, _ints(target, x), reduction),
    ref_nll,
    (Case("mean", ((4, 5),), kwargs={"target": LABELS}),
     Case("none", ((4, 5),), kwargs={"target": LABELS, "reduction": "none"}),
     Case("unbatched", ((5,),), kwargs={"target": np.array(4)}),
     Case("bad_reduction", ((4, 5),), kwargs={"target": LABELS, "reduction": "avg"}, raises=ValueError,
          match="reduction must be one of")),
    ("TakeAlongAxis",))
add("mse_loss", lambda x, t, reduction="mean": nnF.mse_loss(x, t, reduction),
    lambda x, t, reduction="mean": ref_reduce((x - t) ** 2, reduction),
    (Case("mean", ((3, 4), (3, 4))), Case("none", ((3, 4), (3, 4)), kwargs={"reduction": "none"}),
     Case("target_fixed", ((5,), (5,)), grad=(True, False)),
     Case("shape_mismatch", ((3, 4), (4,)), raises=ValueError, match="mse_loss: input shape (3, 4) and target")))
add("binary_cross_entropy", lambda p, t, reduction="mean": nnF.binary_cross_entropy(p, t, reduction),
    lambda p, t, reduction="mean": ref_reduce(-(t * np.log(p) + (1 - t) * np.log(1 - p)), reduction),
    (Case("mean", ((3, 4), (3, 4))), Case("sum", ((6,), (6,)), kwargs={"reduction": "sum"}),
     Case("not_probabilities", ((3,), (3,)), domain=(D.fixed([0.5, 1.5, 0.2]), probability), raises=ValueError,
          match="probability in [0, 1]")),
    ("Where", "Log"), domain=(probability, probability))
add("binary_cross_entropy_with_logits",
    lambda x, t, reduction="mean": nnF.binary_cross_entropy_with_logits(x, t, reduction),
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
add("conv2d", lambda x, w, b=None, stride=1, padding=0: nnF.conv2d(x, w, b, stride, padding), ref_conv2d,
    (Case("plain", ((2, 2, 4, 5), (3, 2, 2, 3), (3,))),
     Case("stride_padding", ((1, 2, 5, 5), (2, 2, 3, 3), (2,)), kwargs={"stride": 2, "padding": 1}),
     Case("uneven", ((2, 1, 4, 6), (2, 1, 3, 2)), kwargs={"stride": (1, 2), "padding": (2, 0)}),
     Case("wrong_channels", ((1, 3, 4, 4), (2, 1, 3, 3)), raises=ValueError, match="input has 3 channels")),
    ("Pad", "Unfold", "Linear"))
add("max_pool2d", lambda x, kernel_size, stride=None, padding=0: nnF.max_pool2d(x, kernel_size, stride, padding),
    lambda x, **k: ref_pool(x, **k, reduce=np.max, fill=-np.inf),
    (Case("2x2", ((2, 2, 4, 4),), kwargs={"kernel_size": 2}),
     Case("overlap_padding", ((1, 2, 5, 4),), kwargs={"kernel_size": (3, 2), "stride": 1, "padding": 1}),
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
    ("Mul",), skips={})


# ------------------------------------------------- Fold (backward-only Function)
def ref_fold(g: np.ndarray, *, shape: tuple[int, ...], kernel: tuple[int, int],
             stride: tuple[int, int], window_axis: int = -1) -> np.ndarray:
    (kh, kw), (sh, sw) = kernel, stride
    g = np.moveaxis(g, 0, -1) if window_axis == 0 else g
    out = np.zeros(shape)
    for r in range(g.shape[-3]):
        for s in range(g.shape[-2]):
            out[..., r * sh:r * sh + kh, s * sw:s * sw + kw] += g[..., r, s, :].reshape(g.shape[:-3] + (kh, kw))
    return out


OPS.append(OpInfo(
    "Fold", lambda g, shape, kernel, stride, window_axis=-1: AF.Fold.apply(g, shape, kernel, stride, window_axis),
    ref_fold,
    (Case("overlapping", ((1, 2, 3, 3, 4),), kwargs={"shape": (1, 2, 4, 4), "kernel": (2, 2), "stride": (1, 1)}),
     Case("strided", ((2, 1, 2, 2, 6),), kwargs={"shape": (2, 1, 5, 6), "kernel": (2, 3), "stride": (2, 3)}),
     Case("windows_first", ((6, 2, 1, 2, 2),),
          kwargs={"shape": (2, 1, 5, 6), "kernel": (2, 3), "stride": (2, 3), "window_axis": 0})),
    function="Fold", area="nn"))
