"""torchlight.nn's numerics where a comparison with PyTorch 2.13 (CPU, float64) found them wrong, and
what it found right but no test pinned: conv2d's options together, pools with dilation and padding,
K-dimensional cross-entropy with every option, layer_norm over several dims, dropout's mask, init.

PyTorch was only the discovery tool: every test checks against a float64 NumPy reference, a closed
form or central differences (gradcheck / gradgradcheck).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.nn import functional as F

RNG = np.random.default_rng(2026)


def leaf(array):
    return tl.tensor(np.asarray(array, dtype=np.float64), requires_grad=True)


def pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


# -------------------------------------------------------------- references
def ref_conv2d(x, w, b, stride, pads, dilation, groups):
    """A direct loop: pads ((top, bottom), (left, right)), each output a dot of one dilated window."""
    n, c, h, wd = x.shape
    o, per_group, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    padded = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    ho = (padded.shape[2] - dh * (kh - 1) - 1) // sh + 1
    wo = (padded.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    for k in range(o):
        first = (k // (o // groups)) * per_group
        for r in range(ho):
            for s in range(wo):
                window = padded[:, first:first + per_group, r * sh:r * sh + dh * (kh - 1) + 1:dh,
                                s * sw:s * sw + dw * (kw - 1) + 1:dw]
                out[:, k, r, s] = np.sum(window * w[k], axis=(1, 2, 3)) + (0.0 if b is None else b[k])
    return out


def ref_pool(x, kernel, stride, padding, dilation, reduce, fill):
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    ho = (padded.shape[2] - dh * (kh - 1) - 1) // sh + 1
    wo = (padded.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros(x.shape[:2] + (ho, wo))
    for r in range(ho):
        for s in range(wo):
            window = padded[:, :, r * sh:r * sh + dh * (kh - 1) + 1:dh, s * sw:s * sw + dw * (kw - 1) + 1:dw]
            out[:, :, r, s] = reduce(window, axis=(2, 3))
    return out


def ref_cross_entropy(logits, labels, weight, ignore_index, smoothing):
    """PyTorch's numbers for (N, C, d...) logits: per-element losses and the mean's denominator."""
    classes = logits.shape[1]
    logp = np.moveaxis(logits - np.log(np.exp(logits).sum(1, keepdims=True)), 1, -1)  # (N, d..., C)
    kept = labels != ignore_index
    safe = np.where(kept, labels, 0)
    w_label = weight[safe] * kept
    picked = np.take_along_axis(logp, safe[..., None], -1)[..., 0]
    loss = (1 - smoothing) * -picked * w_label + smoothing / classes * -(logp * weight).sum(-1) * kept
    return loss, w_label.sum()


# ------------------------------------------------------------------ conv2d
@pytest.mark.parametrize("stride, padding, dilation, groups, bias", [
    ((2, 1), (1, 2), (1, 2), 2, True),
    (1, "same", (2, 1), 4, False),
    ((1, 3), 0, 2, 1, True),
    (1, "same", 1, 1, True),     # an even kernel width: the odd column of padding goes after
])
def test_conv2d_options_together_match_a_direct_loop(stride, padding, dilation, groups, bias):
    x = RNG.standard_normal((2, 4, 7, 6))
    w = RNG.standard_normal((4, 4 // groups, 3, 2))
    b = RNG.standard_normal(4) if bias else None
    if padding == "same":
        totals = [d * (k - 1) for k, d in zip((3, 2), pair(dilation))]
        pads = tuple((t // 2, t - t // 2) for t in totals)
    else:
        pads = tuple((p, p) for p in pair(padding))
    out = F.conv2d(leaf(x), leaf(w), None if b is None else leaf(b), stride, padding, dilation, groups)
    expected = ref_conv2d(x, w, b, pair(stride), pads, pair(dilation), groups)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    if padding == "same":
        assert out.shape[-2:] == x.shape[-2:]


def test_conv2d_with_groups_and_dilation_is_twice_differentiable():
    x, w, b = leaf(RNG.standard_normal((1, 4, 5, 5))), leaf(RNG.standard_normal((2, 2, 2, 2))), leaf([0.3, -0.2])

    def conv(x, w, b):
        return F.conv2d(x, w, b, (2, 1), 1, (1, 2), groups=2).tanh()

    assert gradcheck(conv, x, w, b)
    assert gradgradcheck(conv, x, w, b)


# ------------------------------------------------------------------- pools
def test_max_pool_with_dilation_and_padding_matches_a_direct_loop():
    x = RNG.standard_normal((2, 3, 9, 8))
    out = F.max_pool2d(leaf(x), (3, 2), (2, 1), (1, 1), (2, 3))
    np.testing.assert_array_equal(out.numpy(), ref_pool(x, (3, 2), (2, 1), (1, 1), (2, 3), np.max, -np.inf))


def test_avg_pool_counts_the_zero_padding_in_the_mean_as_pytorch_by_default():
    x = RNG.standard_normal((1, 2, 5, 4))
    out = F.avg_pool2d(leaf(x), 3, (2, 1), 1)
    np.testing.assert_allclose(out.numpy(), ref_pool(x, (3, 3), (2, 1), (1, 1), (1, 1), np.mean, 0.0), rtol=1e-12)
    corner = F.avg_pool2d(tl.ones(1, 1, 2, 2), 2, 1, 1).numpy()[0, 0, 0, 0]
    assert corner == 0.25  # one input in the window of 4, the padding counted


# ---------------------------------------------------------------- losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_k_dimensional_cross_entropy_with_weight_ignore_index_and_smoothing(reduction):
    logits = RNG.standard_normal((3, 4, 2, 3)) * 2
    labels = RNG.integers(0, 4, (3, 2, 3))
    labels[0, 0, :2] = 2  # ignore_index inside the class range
    weight = np.array([0.5, 1.0, 3.0, 2.0])
    loss = F.cross_entropy(leaf(logits), tl.tensor(labels), tl.tensor(weight), ignore_index=2,
                           reduction=reduction, label_smoothing=0.2)
    each, denominator = ref_cross_entropy(logits, labels, weight, 2, 0.2)
    expected = {"mean": each.sum() / denominator, "sum": each.sum(), "none": each}[reduction]
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12, atol=1e-14)
    labels_t = tl.tensor(labels)
    assert gradgradcheck(lambda z: F.cross_entropy(z, labels_t, tl.tensor(weight), ignore_index=2,
                                                   reduction=reduction, label_smoothing=0.2), leaf(logits))


def test_binary_cross_entropy_refuses_nan_input():
    # NaN fails both "< 0" and "> 1", and each clamped log turned it into -100: a loss of 100
    with pytest.raises(ValueError, match="probability in"):
        F.binary_cross_entropy(tl.tensor([math.nan, 0.5]), tl.tensor([0.0, 1.0]))


def test_binary_cross_entropy_refuses_targets_outside_0_1():
    p = tl.tensor([0.3, 0.5])
    for bad in ([2.0, 1.0], [-0.5, 0.0], [math.nan, 1.0]):
        with pytest.raises(ValueError, match=r"target.*\[0, 1\]"):
            F.binary_cross_entropy(p, tl.tensor(bad))
    edges = F.binary_cross_entropy(p, tl.tensor([0, 1]), reduction="none")  # 0 and 1 themselves are fine
    np.testing.assert_allclose(edges.numpy(), [-math.log(0.7), -math.log(0.5)], rtol=1e-12)


# ------------------------------------------------------ layer_norm, embedding
def test_layer_norm_over_two_dims_with_eps_weight_and_bias():
    x = RNG.standard_normal((2, 3, 4, 5)) * 3 + 1
    w, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    out = F.layer_norm(leaf(x), (4, 5), leaf(w), leaf(b), eps=0.5)
    mean = x.mean((2, 3), keepdims=True)
    expected = (x - mean) / np.sqrt(x.var((2, 3), keepdims=True) + 0.5) * w + b
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    small = [leaf(RNG.standard_normal((2, 2, 3))), leaf(RNG.standard_normal((2, 3))), leaf(RNG.standard_normal((2, 3)))]
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, (2, 3), w, b, 1e-3), *small)


def test_layer_norm_of_an_empty_normalized_shape_raises():
    # () would normalise each element by itself: zeros everywhere, silently (PyTorch raises)
    with pytest.raises(ValueError, match="normalized_shape"):
        F.layer_norm(tl.ones(4, 5), ())


def test_embedding_needs_a_two_dimensional_weight():
    for weight in (tl.ones(5), tl.tensor(1.0), tl.ones(2, 2, 2)):  # x[indices] would pick entries or planes
        with pytest.raises(ValueError, match="embedding: the weight must be 2-d"):
            F.embedding(tl.tensor([0, 1]), weight)
    table = leaf(RNG.standard_normal((6, 3)))
    picked = F.embedding(tl.tensor([[1, 1], [5, 0]]), table)
    np.testing.assert_array_equal(picked.numpy(), table.numpy()[[[1, 1], [5, 0]]])
    picked.sum().backward()
    np.testing.assert_array_equal(table.grad.numpy()[:, 0], [1, 2, 0, 0, 0, 1])  # a repeated index adds up


# ------------------------------------------------------------------ dropout
def test_dropout_mask_statistics_scaling_and_gradient():
    tl.manual_seed(7)
    x = tl.ones(40000, requires_grad=True)
    for p in (0.1, 0.5, 0.9):
        out = F.dropout(x, p)
        values = out.numpy()
        assert set(np.unique(values)) <= {0.0, 1 / (1 - p)}
        dropped = (values == 0).mean()
        assert abs(dropped - p) < 5 * math.sqrt(p * (1 - p) / x.size)  # 5 binomial standard deviations
        x.grad = None
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), values)  # the gradient is the same mask
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.7, training=False) is x
    none_kept = F.dropout(x, 1.0)
    x.grad = None
    none_kept.sum().backward()
    assert not none_kept.numpy().any() and not x.grad.numpy().any()
    layer = nn.Dropout(0.5)
    assert (layer(x).numpy() == 0).any() and layer.eval()(x) is x


def test_dropout_says_its_fourth_argument_is_no_inplace_flag():
    # PyTorch's F.dropout(x, p, training, inplace): False reached the generator and raised AttributeError
    for inplace in (False, True):
        with pytest.raises(TypeError, match="not PyTorch's inplace="):
            F.dropout(tl.ones(3), 0.5, True, inplace)


# --------------------------------------------------------------------- init
def test_zero_element_weights_initialise_as_a_no_op():
    # kaiming_* divided by sqrt(fan_in) = 0 (ZeroDivisionError): PyTorch leaves such a tensor as it is,
    # so nn.Linear(0, 3) works there and its bias bound 1 / sqrt(0) is taken as 0
    for shape in ((3, 0), (4, 0, 3, 3)):
        w = nn.Parameter(tl.zeros(*shape))
        assert nn.init.kaiming_uniform_(w) is w and nn.init.kaiming_normal_(w) is w and w.shape == shape
    layer = nn.Linear(0, 3)
    assert layer.weight.shape == (3, 0) and layer.bias.tolist() == [0.0, 0.0, 0.0]
    assert layer(tl.ones(2, 0)).tolist() == [[0.0] * 3] * 2
    assert nn.Conv2d(0, 2, 3).weight.shape == (2, 0, 3, 3)


def test_calculate_gain_as_pytorch_for_transposed_convs_and_a_bool_slope():
    for name in ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d"):
        assert nn.init.calculate_gain(name) == 1.0
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    with pytest.raises(ValueError, match="negative_slope"):
        nn.init.calculate_gain("leaky_relu", True)


def test_normal_with_a_negative_std_and_uniform_with_a_above_b_raise():
    w = nn.Parameter(tl.zeros(3, 3))
    with pytest.raises(ValueError, match="std"):
        nn.init.normal_(w, 0.0, -1.0)
    with pytest.raises(ValueError, match="uniform_"):
        nn.init.uniform_(w, 3.0, -2.0)
    assert nn.init.uniform_(w, 1.0, 1.0).tolist() == [[1.0] * 3] * 3  # an empty range is the constant


def test_default_init_bounds_use_fan_in_per_group():
    tl.manual_seed(1)
    conv = nn.Conv2d(12, 30, (3, 2), groups=3)  # fan_in = 12 / 3 * 3 * 2 = 24
    bound = 1 / math.sqrt(24)
    w, b = conv.weight.numpy(), conv.bias.numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert np.abs(b).max() <= bound
    v = nn.Parameter(tl.zeros(300, 40, 2, 2))  # fan_in 160, fan_out 1200
    nn.init.kaiming_uniform_(v, mode="fan_out", nonlinearity="relu")
    assert np.abs(v.numpy()).max() <= math.sqrt(2) * math.sqrt(3 / 1200)
    nn.init.xavier_normal_(v, gain=2.0)
    assert abs(v.numpy().std() - 2.0 * math.sqrt(2 / 1360)) < 0.02 * 2.0 * math.sqrt(2 / 1360)
