"""The Functions only `torchlight.nn.functional` uses: linear, softplus, dropout, the losses, pad, unfold/fold.

They sit beside `nn/functional.py`, above Tensor in the layers, and are
re-exported by `torchlight.autograd.functions` with the rest.

Example:
    >>> import torchlight as tl
    >>> from torchlight.nn.ops import Softplus
    >>> round(Softplus.apply(tl.tensor([0.0])).item(), 4)
    0.6931
"""

from __future__ import annotations

import math
from typing import Any

import array_api_compat

from torchlight import grad_mode
from torchlight.engine import Context, Function, Variable
from torchlight.ops.activations import Sigmoid
from torchlight.ops.common import _const, mean_scale
from torchlight.ops.complex_numbers import conj
from torchlight.ops.indexing import Gather, one_hot
from torchlight.ops.reductions import Softmax


def _label_index(labels: Any, axis: int, classes: int, ignore_index: int) -> Any:
    """The labels as `take_along_axis` wants them (int64, a size-1 `axis`), each checked to be a class."""
    xp, data = labels.backend.xp, labels.data
    info = xp.iinfo(data.dtype)

    def bad(d: Any) -> Any:
        out = d < 0
        if classes <= info.max:  # (a label of uint8 is below 300 classes, and 300 no uint8 to compare with)
            out = out | (d >= classes)
        if info.min <= ignore_index <= info.max:
            out = out | (d == ignore_index)
        return out

    error = ValueError(f"cross_entropy: a label outside [0, {classes - 1}] or equal to ignore_index="
                       f"{ignore_index} reached the path for labels that are all classes (a compiled "
                       f"function takes the path of its first call: call it without compile)")
    index = xp.expand_dims(labels.backend.checked(data, bad, error), axis=axis)
    return index if index.dtype == xp.int64 else xp.astype(index, xp.int64)


def _pad_axis(xp: Any, data: Any, axis: int, before: int, after: int, value: float) -> Any:
    """`data` with `before`/`after` entries of `value` concatenated along `axis`."""
    if not before and not after:
        return data
    parts = []
    for n in (before, after):
        shape = list(data.shape)
        shape[axis] = n
        parts.append(xp.full(tuple(shape), value, dtype=data.dtype, device=data.device))
    return xp.concat([parts[0], data, parts[1]], axis=axis)


def _writeable(array: Any) -> bool:
    """Whether `array[key] = ...` works (not on JAX): then padding and folding write into one array."""
    return array_api_compat.is_writeable_array(array)


def _window_slices(kernel: tuple[int, int], stride: tuple[int, int], out: tuple[int, ...],
                   dilation: tuple[int, int] = (1, 1)) -> list:
    """One (rows, cols) slice pair per kernel offset, in row-major order (offset i sits at i * dilation)."""
    (kh, kw), (sh, sw), (ho, wo), (dh, dw) = kernel, stride, out, dilation
    return [(slice(i * dh, i * dh + sh * (ho - 1) + 1, sh), slice(j * dw, j * dw + sw * (wo - 1) + 1, sw))
            for i in range(kh) for j in range(kw)]


def window_count(size: int, kernel: int, stride: int, dilation: int = 1) -> int:
    """How many windows of `kernel` taps, `dilation` apart, fit in `size` at `stride` (PyTorch's formula)."""
    return (size - dilation * (kernel - 1) - 1) // stride + 1


def _dilate(xp: Any, data: Any, axis: int, step: int) -> Any:
    """Insert step - 1 zeros between the entries of `data` along `axis`."""
    if step == 1:
        return data
    n = data.shape[axis]
    zeros = xp.zeros_like(data)
    woven = xp.stack([data] + [zeros] * (step - 1), axis=axis + 1)
    shape = tuple(data.shape[:axis]) + (n * step,) + tuple(data.shape[axis + 1:])
    key = (slice(None),) * axis + (slice(0, (n - 1) * step + 1), Ellipsis)
    return xp.reshape(woven, shape)[key]


class Linear(Function):
    """`x @ weight.mT + bias` as one node, weight (out_features, in_features), bias optional
    and broadcasting to the product's shape (`nn.functional.linear` sees to that).

    The bias is added in place into the product, which the forward has just
    made (one pass and one array fewer than `@` then `+`, as PyTorch's addmm).
    The backward: g @ weight for x, g^T x (over every leading axis) for the
    weight, g for the bias (the engine sums it down to the bias's shape).
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, x: Any, weight: Any, bias: Any) -> Any:
        ctx.save_for_backward(x, weight)
        out = x.data @ x.backend.xp.matrix_transpose(weight.data)  # (CuPy arrays have no .mT)
        if bias is None:
            return out
        if bias.dtype != out.dtype:
            return out + bias.data
        out += bias.data  # the product is this op's own array (the bias fits in it: see nn.functional.linear)
        return out

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        if g.backend.complex_of.get(g.data.dtype) is not False:  # complex: g @ conj(weight), g^T conj(x)
            x, weight = conj(x), conj(weight)
        gw = None
        if need_w:
            rows_g, rows_x = (g, x) if g.ndim == 2 else (g.reshape((-1, g.shape[-1])), x.reshape((-1, x.shape[-1])))
            gw = rows_g.mT @ rows_x
        return (g @ weight if need_x else None), gw, (g if need_b else None)


class Softplus(Function):
    """log(1 + exp(x)) written as max(x, 0) + log1p(exp(-|x|)) (no overflow);
    its derivative is sigmoid(x), exact at 0 as well."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, a: Any) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a)
        return xp.where(a.data > 0, a.data, xp.zeros_like(a.data)) + xp.log1p(xp.exp(-xp.abs(a.data)))

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (a,) = ctx.saved_tensors
        return g * Sigmoid.apply(a)


class Dropout(Function):
    """x * mask / (1 - p), each element of the mask kept with probability 1 - p.

    The mask is drawn in the forward (from `generator`, or the backend's own
    stream), so that a compiled program draws a new one on every call.
    """

    @staticmethod
    def forward(ctx: Context, x: Any, p: float, generator: Any) -> Any:
        xp = x.backend.xp
        noise = x.backend.random("rand", x.shape, None, x._device, generator)  # default float: one stream per seed
        mask = xp.astype(noise >= p, x.dtype) / (1.0 - p)
        ctx.save_for_backward(mask)
        return x.data * mask

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (mask,) = ctx.saved_tensors
        return g * _const(g, mask), None, None


class CrossEntropy(Function):
    """Softmax cross-entropy of class labels along `axis`: logsumexp(z) - z[label], reduced.

    `labels` is the integer Tensor of the labels (the scores' shape without
    `axis`); `reduction` is "none", "sum" or "mean". One node instead
    of log_softmax, a gather, a negation and a reduction, and one backward
    formula, (softmax(z) - one_hot(label)) * g (g / N for the mean). The
    forward keeps the softmax it computes on the way; with `create_graph`
    the backward makes it again with `Softmax`, so that it is differentiable.

    `cross_entropy` takes this path only when every label is in [0, C) and
    none equals `ignore_index`; the forward checks it again (where the library
    is not lazy) because a compiled program replays this node with new labels.
    """

    @staticmethod
    def forward(ctx: Context, z: Any, labels: Any, axis: int, reduction: str, ignore_index: int = -100) -> Any:
        xp = z.backend.xp
        index = _label_index(labels, axis, z.shape[axis], ignore_index)
        shifted = z.data - xp.max(z.data, axis=axis, keepdims=True)
        e = xp.exp(shifted)
        total = xp.sum(e, axis=axis, keepdims=True)
        loss = xp.squeeze(xp.log(total) - z.backend.take_along_axis(shifted, index, axis), axis=axis)
        scale = None if reduction == "none" else 1.0 if reduction == "sum" else mean_scale(math.prod(loss.shape))
        ctx.save_for_backward(z, index, axis, e / total, scale)
        return loss if scale is None else xp.sum(loss) * scale

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        z, index, axis, softmax, scale = ctx.saved_tensors
        p = Softmax.apply(z, axis) if grad_mode.is_grad_enabled() else _const(z, softmax)
        if scale is None:  # one loss per label: g has the labels' shape
            g = g.reshape(g.shape[:axis] + (1,) + g.shape[axis:])
        elif scale != 1.0:
            g = g * scale
        return (p - one_hot(index, z.shape[axis], axis, z)) * g, None, None, None, None


class BinaryCrossEntropyLog(Function):
    """log(q) clamped at -100: each log of `binary_cross_entropy`, with PyTorch's gradient for the loss.

    Its derivative, (1 - q) / max(q (1 - q), 1e-12), is 1 / q wherever
    q (1 - q) >= 1e-12, and makes the gradient of -(t log p + (1 - t) log(1 - p))
    PyTorch's (p - t) / max(p (1 - p), 1e-12): finite and of the right sign at
    p = 0 or 1, where a clamped log has a zero derivative (so a confidently wrong
    p = 0 for t = 1 learnt nothing, and t = 0.5 pushed p = 0 further down).
    """
    elementwise = True

    FLOOR = math.exp(-100.0)

    @staticmethod
    def forward(ctx: Context, q: Any) -> Any:
        xp = q.backend.xp
        ctx.save_for_backward(q)
        keep = q.data > BinaryCrossEntropyLog.FLOOR
        safe = xp.where(keep, q.data, xp.ones_like(q.data))  # log(0) would warn
        return xp.where(keep, xp.log(safe), xp.full_like(q.data, -100.0))

    @staticmethod
    def backward(ctx: Context, g: Any) -> Any:
        (q,) = ctx.saved_tensors
        rest = 1.0 - q
        return g * rest / (q * rest).clamp(min=1e-12)


class CheckedValues(Function):
    """`x` unchanged, with a check of its values (and of `others`, arrays of its shape) inside the graph.

    For a lazy library (Dask): `Backend.checked_by_parts` folds the check into
    the result, so a bad value raises when the loss or a gradient is
    computed, and the forward computes nothing. The gradient passes through.
    (Not marked elementwise: its check needs every value at once, not a block.)
    """

    @staticmethod
    def forward(ctx: Context, x: Any, others: tuple, summarise: Any, judge: Any) -> Any:
        return x.backend.checked_by_parts((x.data, *others), summarise, judge)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        return g, None, None, None


class Pad(Function):
    """Padding with `value` of the last `len(pads)` axes; `pads` is ((before, after), ...).

    The input is written into a `full` array of the padded shape where the
    library's arrays are writeable, else (JAX) built by concatenation; the
    backward slices the padding off again.
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Any, pads: tuple[tuple[int, int], ...], value: float) -> Any:
        xp = a.backend.xp
        data = a.data
        lead = a.ndim - len(pads)
        ctx.save_for_backward(a.shape, pads)
        if _writeable(data):  # (a read-only NumPy view takes the concatenation too: correct, a little slower)
            shape = a.shape[:lead] + tuple(n + b + e for n, (b, e) in zip(a.shape[lead:], pads))
            out = xp.full(shape, value, dtype=data.dtype, device=a._device)
            out[(...,) + tuple(slice(b, b + n) for (b, _), n in zip(pads, a.shape[lead:]))] = data
            return out
        for k, (before, after) in enumerate(pads):
            data = _pad_axis(xp, data, lead + k, before, after, value)
        return data

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, pads = ctx.saved_tensors
        lead = len(shape) - len(pads)
        key = (slice(None),) * lead + tuple(slice(b, b + n) for (b, _), n in zip(pads, shape[lead:]))
        return Gather.apply(g, key), None, None


class Unfold(Function):
    """The sliding (kh, kw) windows of an (N, C, H, W) array, the kh*kw offsets on `window_axis`.

    `window_axis` -1 gives (N, C, Ho, Wo, kh*kw), as a convolution's matmul
    wants it; 0 gives (kh*kw, N, C, Ho, Wo), as pooling wants it (a max or
    mean over a short last axis costs NumPy several times one over a
    leading one). Gathered as kh*kw strided slices stacked on that axis
    (array API only, no copies per output pixel); the backward is Fold.
    `dilation` spaces the taps of a window apart (offset i starts at
    i * dilation): a dilated window is just another set of strided slices.
    """

    @staticmethod
    def forward(ctx: Context, a: Any, kernel: tuple[int, int], stride: tuple[int, int], window_axis: int,
                dilation: tuple[int, int]) -> Any:
        out = tuple(window_count(n, k, s, d) for n, k, s, d in zip(a.shape[-2:], kernel, stride, dilation))
        ctx.save_for_backward(a.shape, kernel, stride, window_axis, dilation)
        patches = [a.data[..., rows, cols] for rows, cols in _window_slices(kernel, stride, out, dilation)]
        return a.backend.xp.stack(patches, axis=window_axis)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        shape, kernel, stride, window_axis, dilation = ctx.saved_tensors
        return Fold.apply(g, shape, kernel, stride, window_axis, dilation), None, None, None, None


class Fold(Function):
    """The transpose of Unfold: every window's values added back at its place
    in an (N, C, H, W) array of `shape` (overlapping windows sum).

    Where the library's arrays are writeable, each offset's values are added
    in place into its strided slice of one zeros array; else (JAX) each is
    dilated by the stride, padded to `shape` and summed. `dilation` as Unfold's.
    """

    @staticmethod
    def forward(ctx: Context, g: Any, shape: tuple[int, ...], kernel: tuple[int, int],
                stride: tuple[int, int], window_axis: int, dilation: tuple[int, int]) -> Any:
        xp = g.backend.xp
        ctx.save_for_backward(kernel, stride, window_axis, dilation)
        spatial = g.ndim - 2 if window_axis == 0 else g.ndim - 3  # the axis of Ho in g
        out = (g.shape[spatial], g.shape[spatial + 1])
        parts = [g.data[k, ...] if window_axis == 0 else g.data[..., k] for k in range(kernel[0] * kernel[1])]
        total = xp.zeros(shape, dtype=g.dtype, device=g._device)
        slices = _window_slices(kernel, stride, out, dilation)
        if _writeable(total):
            for part, (rows, cols) in zip(parts, slices):
                total[..., rows, cols] += part
            return total
        h, w = shape[-2:]
        for part, (rows, cols) in zip(parts, slices):
            part = _dilate(xp, _dilate(xp, part, part.ndim - 2, stride[0]), part.ndim - 1, stride[1])
            part = _pad_axis(xp, part, part.ndim - 2, rows.start, h - rows.start - part.shape[-2], 0.0)
            part = _pad_axis(xp, part, part.ndim - 1, cols.start, w - cols.start - part.shape[-1], 0.0)
            total = total + part
        return total

    @staticmethod
    def backward(ctx: Context, h: Any) -> tuple:
        kernel, stride, window_axis, dilation = ctx.saved_tensors
        return Unfold.apply(h, kernel, stride, window_axis, dilation), None, None, None, None, None


class SafeSoftmax(Function):
    """softmax along `dim`, with zeros (not NaN) for a slice whose entries are all -inf (PyTorch's
    `_safe_softmax`, for a query that may attend to no key); elsewhere exactly `Softmax`'s values
    and backward formula."""
    saves_output = True  # its backward reads ctx.output

    @staticmethod
    def forward(ctx: Context, a: Any, dim: int) -> Any:
        xp = a.backend.xp
        ctx.dim = dim
        if 0 in a.shape:
            return xp.zeros_like(a.data)
        top = xp.max(a.data, axis=dim, keepdims=True)
        e = xp.exp(a.data - xp.where(top == -math.inf, xp.zeros_like(top), top))  # a dead slice: exp(-inf) = 0
        total = xp.sum(e, axis=dim, keepdims=True)
        return e / xp.where(total == 0, xp.ones_like(total), total)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        y = ctx.output
        return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None


class MaskScores(Function):
    """Attention scores with -inf where a query may not attend to a key, as one node.

    `mask` is a boolean Tensor (an input of the node: a compiled call takes
    a new one) broadcasting to the scores, or None with `causal`; `keep` says whether True marks the keys that take part
    (scaled_dot_product_attention) or those left out (MultiheadAttention).
    The gradient passes where the score was kept, 0 elsewhere.
    """
    elementwise = False

    @staticmethod
    def forward(ctx: Context, scores: Any, mask: Any, keep: bool, shape: tuple[int, ...] | None = None,
                causal: bool = False) -> Any:
        xp = scores.backend.xp
        if causal:  # query i sees keys 0 ... i (made here from the shapes: no array argument to replay)
            rows = xp.arange(scores.shape[-2], device=scores._device)
            cols = xp.arange(scores.shape[-1], device=scores._device)
            data = xp.reshape(rows, (-1, 1)) >= xp.reshape(cols, (1, -1))
        else:
            data = mask.data if isinstance(mask, Variable) else mask
        if shape is not None:  # (a key padding mask (N, S) as (N, 1, 1, S))
            data = xp.reshape(data, shape)
        kept = data if keep else xp.logical_not(data)
        ctx.save_for_backward(kept)
        return xp.where(kept, scores.data, xp.full_like(scores.data, -math.inf))

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (kept,) = ctx.saved_tensors
        return g.where(kept, 0.0), None, None, None, None
class SelectAbove(Function):
    """`on` where key > threshold, else `off` (PyTorch's piecewise activations and losses: leaky_relu,
    elu, softplus's linear tail, huber); the key is `on` itself unless given. The key only picks: no
    gradient reaches it through the choice; `on` gets g where it was picked, `off` the rest. The mask
    is made from the key in forward and backward, so a compiled program picks anew on every call (a
    `where` over a comparison would be a tensor made while recording)."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, on: Any, off: Any, threshold: float, key: Any = None) -> Any:
        key = on if key is None else key
        ctx.save_for_backward(key)
        ctx.threshold = threshold
        return key.backend.xp.where(key.data > threshold, on.data, off.data)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (key,) = ctx.saved_tensors
        xp = key.backend.xp
        picked = xp.astype(key.data > ctx.threshold, g.dtype)
        need_on, need_off = ctx.needs_input_grad[:2]
        on = g * _const(g, picked) if need_on else None
        off = g * _const(g, 1 - picked) if need_off else None
        return on, off, None, None


class Hardtanh(Function):
    """x clipped to [lo, hi], with PyTorch's gradient: g strictly inside, 0 at the edges and outside."""
    elementwise = True

    @staticmethod
    def forward(ctx: Context, x: Any, lo: float, hi: float) -> Any:
        ctx.save_for_backward(x)
        ctx.bounds = (lo, hi)
        return x.backend.xp.clip(x.data, lo, hi)

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        (x,) = ctx.saved_tensors
        xp, (lo, hi) = x.backend.xp, ctx.bounds
        inside = xp.astype(xp.logical_and(x.data > lo, x.data < hi), g.dtype)
        return g * _const(g, inside), None, None
