"""The PyTorch options of the classification losses and of conv2d, against closed forms.

cross_entropy / nll_loss with `weight`, `ignore_index` and `label_smoothing`
(and class-probability targets), `nn.CrossEntropyLoss` / `nn.NLLLoss`, and
conv2d / `nn.Conv2d` with `dilation` and `groups`, `max_pool2d` with
`dilation`. The values are worked out by hand for tiny inputs (logits
whose softmax is 1/2 or 3/4, an arange image); the conformance suite
(conformance/ops/nn.py) checks the same options against float64 NumPy
references and central differences on every backend.
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.autograd import functions as AF
from torchlight.autograd import gradgradcheck
from torchlight.nn import functional as F

LN2, LN3 = math.log(2.0), math.log(3.0)


def floats(backend, values, requires_grad=False):
    return tl.tensor(np.asarray(values, dtype=np.float64), backend=backend, requires_grad=requires_grad)


def ints(backend, values):
    return tl.tensor(np.asarray(values, dtype=np.int64), backend=backend)


def half_and_three_quarters(backend):
    """Logits whose softmax rows are (1/2, 1/2) and (3/4, 1/4)."""
    return floats(backend, [[0.0, 0.0], [LN3, 0.0]], requires_grad=True)


# ------------------------------------------------------------ cross_entropy
def test_weight_and_ignore_index_closed_form(backend):
    z = half_and_three_quarters(backend)
    w = floats(backend, [1.0, 3.0])
    # -log p: row 0 label 0 -> ln 2 (weight 1); row 1 label 1 -> ln 4 (weight 3): (ln 2 + 3 ln 4) / 4
    loss = F.cross_entropy(z, ints(backend, [0, 1]), weight=w)
    assert loss.item() == pytest.approx(7 * LN2 / 4, rel=1e-12)
    loss.backward()
    softmax = np.array([[0.5, 0.5], [0.75, 0.25]])
    one_hot = np.eye(2)
    want = (softmax - one_hot) * np.array([[1.0], [3.0]]) / 4  # w[y_i] (p_i - e_y) / sum w[y]
    np.testing.assert_allclose(z.grad.numpy(), want, rtol=1e-12)
    z.grad = None
    loss = F.cross_entropy(z, ints(backend, [0, -100]), weight=w)  # row 1 ignored: ln 2 / 1
    assert loss.item() == pytest.approx(LN2, rel=1e-12)
    loss.backward()
    np.testing.assert_allclose(z.grad.numpy(), [[-0.5, 0.5], [0.0, 0.0]], atol=1e-15)
    per_label = F.cross_entropy(z, ints(backend, [0, 1]), weight=w, ignore_index=0, reduction="none")
    np.testing.assert_allclose(per_label.numpy(), [0.0, 3 * 2 * LN2], rtol=1e-12)


def test_label_smoothing_closed_form(backend):
    z = half_and_three_quarters(backend)
    e = 0.5
    # (1 - e) * (-log p_y) + e * mean_c(-log p_c)
    row0 = (1 - e) * LN2 + e * LN2
    row1 = (1 - e) * 2 * LN2 + e * (math.log(4 / 3) + 2 * LN2) / 2
    loss = F.cross_entropy(z, ints(backend, [0, 1]), label_smoothing=e, reduction="none")
    np.testing.assert_allclose(loss.numpy(), [row0, row1], rtol=1e-12)
    # with weights (1, 3): the smoothing term weighs each class, the mean divides by sum w[y] = 4
    w = floats(backend, [1.0, 3.0])
    weighted = F.cross_entropy(z, ints(backend, [0, 1]), weight=w, label_smoothing=e)
    smooth0, smooth1 = (LN2 + 3 * LN2) / 2, (math.log(4 / 3) + 3 * 2 * LN2) / 2
    want = ((1 - e) * LN2 + e * smooth0 + (1 - e) * 3 * 2 * LN2 + e * smooth1) / 4
    assert weighted.item() == pytest.approx(want, rel=1e-12)
    # e = 1: only the uniform part is left
    only_uniform = F.cross_entropy(z, ints(backend, [1, 1]), label_smoothing=1.0, reduction="sum")
    assert only_uniform.item() == pytest.approx(LN2 + (math.log(4 / 3) + 2 * LN2) / 2, rel=1e-12)


def test_all_ignored_mean_is_nan_with_a_zero_gradient_as_pytorch(backend):
    z = half_and_three_quarters(backend)
    nothing = ints(backend, [-100, -100])
    for loss_fn in (F.cross_entropy, F.nll_loss):
        loss = loss_fn(z, nothing)
        assert math.isnan(loss.item())
        loss.backward()
        np.testing.assert_array_equal(z.grad.numpy(), np.zeros((2, 2)))
        z.grad = None
        assert loss_fn(z, nothing, reduction="sum").item() == 0.0
        np.testing.assert_array_equal(loss_fn(z, nothing, reduction="none").numpy(), [0.0, 0.0])
    assert math.isnan(F.cross_entropy(z, nothing, label_smoothing=0.3).item())


def test_probability_targets_closed_form(backend):
    z = half_and_three_quarters(backend)
    t = floats(backend, [[1.0, 0.0], [0.5, 0.5]], requires_grad=True)
    loss = F.cross_entropy(z, t, reduction="none")
    np.testing.assert_allclose(loss.numpy(), [LN2, (math.log(4 / 3) + 2 * LN2) / 2], rtol=1e-12)
    smoothed = F.cross_entropy(z, t, weight=floats(backend, [1.0, 3.0]), label_smoothing=0.5)
    # t -> (0.75, 0.25), (0.5, 0.5); the mean is over the 2 samples, not the weights
    want = (0.75 * LN2 + 0.25 * 3 * LN2 + 0.5 * math.log(4 / 3) + 0.5 * 3 * 2 * LN2) / 2
    assert smoothed.item() == pytest.approx(want, rel=1e-12)
    smoothed.backward()
    assert t.grad is not None  # the probabilities get a gradient, as in PyTorch


def test_the_plain_call_stays_one_fused_node(backend):
    z = half_and_three_quarters(backend)
    y = ints(backend, [0, 1])
    assert F.cross_entropy(z, y).history.last_fn is AF.CrossEntropy
    assert F.cross_entropy(z, y, ignore_index=3).history.last_fn is AF.CrossEntropy  # nothing ignored
    assert F.cross_entropy(z, y, weight=floats(backend, [1.0, 1.0])).history.last_fn is not AF.CrossEntropy


def test_options_are_twice_differentiable(backend):
    rng = np.random.default_rng(5)
    w = floats(backend, rng.uniform(0.5, 2.0, 3))
    y = ints(backend, [0, -100, 2, 1])

    def loss(z):
        return F.cross_entropy(z, y, weight=w, label_smoothing=0.2)

    gradgradcheck(loss, floats(backend, rng.standard_normal((4, 3)), requires_grad=True))


def test_a_weight_that_requires_grad_is_a_constant(backend):
    """PyTorch raises for a weight with requires_grad; torchlight takes its value and gives it no gradient."""
    z = half_and_three_quarters(backend)
    w = floats(backend, [1.0, 3.0], requires_grad=True)
    F.cross_entropy(z, ints(backend, [0, 1]), weight=w, label_smoothing=0.1).backward()
    assert z.grad is not None and w.grad is None


def test_dtypes_mix_as_the_logits_say(backend):
    z = tl.tensor(np.zeros((2, 3), dtype=np.float32), backend=backend)
    w = floats(backend, [1.0, 2.0, 3.0])
    loss = F.cross_entropy(z, tl.tensor(np.array([0, 2], dtype=np.uint8), backend=backend), weight=w)
    assert loss.dtype == z.dtype
    assert loss.item() == pytest.approx(math.log(3.0), rel=1e-6)


def test_bad_options_raise_clear_errors(backend):
    z = half_and_three_quarters(backend)
    y = ints(backend, [0, 1])
    with pytest.raises(ValueError, match=r"cross_entropy: weight must have shape \(2,\), one per class"):
        F.cross_entropy(z, y, weight=floats(backend, [1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"nll_loss: weight must have shape \(2,\)"):
        F.nll_loss(z, y, weight=floats(backend, [[1.0, 2.0]]))
    with pytest.raises(TypeError, match="weight must have a floating-point dtype"):
        F.cross_entropy(z, y, weight=ints(backend, [1, 2]))
    for bad in (-0.1, 1.5, True, "0.1"):
        with pytest.raises(ValueError, match=r"label_smoothing must be a number in \[0, 1\]"):
            F.cross_entropy(z, y, label_smoothing=bad)
    with pytest.raises(ValueError, match=r"labels \[-1, 2\] out of range for 2 classes \(labels must be in "
                                         r"\[0, 1\] or equal ignore_index=-100\)"):
        F.cross_entropy(z, ints(backend, [2, -1]))
    with pytest.raises(ValueError, match=r"labels \[-100\] out of range"):  # ignore_index moved: -100 is a label
        F.nll_loss(z, ints(backend, [-100, 0]), ignore_index=-1)
    with pytest.raises(TypeError, match="ignore_index must be an int"):
        F.cross_entropy(z, y, ignore_index=0.5)
    with pytest.raises(ValueError, match="ignore_index needs integer labels"):
        F.cross_entropy(z, floats(backend, np.eye(2)), ignore_index=0)
    with pytest.raises(TypeError, match=r"class labels need an integer dtype"):
        F.cross_entropy(z, floats(backend, [0.0, 1.0]))
    other = "numpy" if backend.name != "numpy" else "array_api_strict"
    with pytest.raises(tl.BackendError, match="two backends"):
        F.cross_entropy(z, y, weight=tl.tensor([1.0, 1.0], backend=other))


# ------------------------------------------------------------ loss modules
def test_loss_modules_take_the_functional_arguments(backend):
    z = half_and_three_quarters(backend)
    y = ints(backend, [0, 1])
    w = floats(backend, [1.0, 3.0])
    module = nn.CrossEntropyLoss(weight=w, ignore_index=0, reduction="sum", label_smoothing=0.25)
    want = F.cross_entropy(z, y, w, ignore_index=0, reduction="sum", label_smoothing=0.25).item()
    assert module(z, y).item() == want
    assert repr(module) == "CrossEntropyLoss(weight=(2,), ignore_index=0, reduction='sum', label_smoothing=0.25)"
    nll = nn.NLLLoss(weight=w, reduction="none")
    np.testing.assert_array_equal(nll(z.log_softmax(1), y).numpy(),
                                  F.nll_loss(z.log_softmax(1), y, w, reduction="none").numpy())
    assert set(module.state_dict()) == {"weight"}  # a buffer, as PyTorch's
    assert list(module.parameters()) == []
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    with pytest.raises(ValueError, match=r"CrossEntropyLoss: label_smoothing must be a number in \[0, 1\]"):
        nn.CrossEntropyLoss(label_smoothing=2.0)
    with pytest.raises(ValueError, match="NLLLoss: reduction must be one of"):
        nn.NLLLoss(reduction="avg")


def test_loss_module_docstring_examples():
    import torchlight.nn.loss

    result = doctest.testmod(torchlight.nn.loss, verbose=False)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------------ conv2d
def test_dilated_conv_of_an_arange_image_closed_form(backend):
    x = floats(backend, np.arange(25.0).reshape(1, 1, 5, 5))  # x[r, s] = 5 r + s
    out = F.conv2d(x, floats(backend, np.ones((1, 1, 2, 2))), dilation=2)
    # x[r, s] + x[r, s + 2] + x[r + 2, s] + x[r + 2, s + 2] = 20 r + 4 s + 24
    r, s = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(out.numpy()[0, 0], 20 * r + 4 * s + 24)
    strided = F.conv2d(x, floats(backend, np.ones((1, 1, 2, 2))), stride=2, dilation=(2, 1), padding=(0, 1))
    r, s = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    # rows 2r and 2r + 2, columns 2s - 1 and 2s (column -1 is padding: 0)
    want = sum(np.where((cols >= 0) & (cols < 5), 5 * rows + cols, 0)
               for rows in (2 * r, 2 * r + 2) for cols in (2 * s - 1, 2 * s))
    np.testing.assert_array_equal(strided.numpy()[0, 0], want)


def test_groups_keep_channels_apart(backend):
    x = floats(backend, np.arange(1.0, 4.0).reshape(1, 3, 1, 1) * np.ones((1, 3, 2, 2)), requires_grad=True)
    scales = floats(backend, np.arange(1.0, 7.0).reshape(6, 1, 1, 1), requires_grad=True)
    out = F.conv2d(x, scales, floats(backend, np.full(6, 0.5)), groups=3)  # depthwise, 2 filters per channel
    channel = np.repeat([1.0, 2.0, 3.0], 2)  # output channel k reads input channel k // 2
    np.testing.assert_array_equal(out.numpy()[0, :, 0, 0], channel * np.arange(1.0, 7.0) + 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0, :, 0, 0], [1 + 2, 3 + 4, 5 + 6])
    np.testing.assert_array_equal(scales.grad.numpy().reshape(6), 4 * channel)  # 4 pixels each
    two = F.conv2d(floats(backend, np.ones((1, 4, 3, 3))), floats(backend, np.ones((2, 2, 3, 3))), groups=2)
    np.testing.assert_array_equal(two.numpy().reshape(2), [18.0, 18.0])


def test_conv_errors(backend):
    x = floats(backend, np.zeros((1, 4, 5, 5)))
    with pytest.raises(ValueError, match="groups=3 must divide both the input's 4 channels"):
        F.conv2d(x, floats(backend, np.zeros((3, 1, 3, 3))), groups=3)
    with pytest.raises(ValueError, match="groups=2 must divide both .* weight's 3 output channels"):
        F.conv2d(x, floats(backend, np.zeros((3, 2, 3, 3))), groups=2)
    with pytest.raises(ValueError, match=r"expects 4 per group x 2 groups = 8"):
        F.conv2d(x, floats(backend, np.zeros((2, 4, 3, 3))), groups=2)
    with pytest.raises(ValueError, match="groups must be an int >= 1, not 0"):
        F.conv2d(x, floats(backend, np.zeros((2, 4, 3, 3))), groups=0)
    with pytest.raises(ValueError, match="dilation must be an int >= 1"):
        F.conv2d(x, floats(backend, np.zeros((2, 4, 3, 3))), dilation=0)
    with pytest.raises(ValueError, match=r"dilated by \(3, 3\): spans \(7, 7\)\) is larger than the padded"):
        F.conv2d(x, floats(backend, np.zeros((2, 4, 3, 3))), dilation=3)
    with pytest.raises(ValueError, match=r"spans \(5, 5\)\) is larger than the padded input"):
        F.max_pool2d(floats(backend, np.zeros((1, 1, 4, 4))), 3, dilation=2)


def test_conv_and_pool_modules_take_dilation_and_groups(backend):
    tl.manual_seed(0)
    conv = nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2).to(backend=backend)
    assert conv.weight.shape == (6, 2, 3, 3)
    assert np.abs(conv.weight.numpy()).max() <= 1 / math.sqrt(2 * 9)  # fan_in = in_channels / groups * kh * kw
    assert repr(conv) == "Conv2d(4, 6, kernel_size=(3, 3), stride=(1, 1), padding=(2, 2), dilation=(2, 2), groups=2)"
    x = floats(backend, np.random.default_rng(0).standard_normal((2, 4, 5, 5)))
    np.testing.assert_array_equal(conv(x).numpy(), F.conv2d(x, conv.weight, conv.bias, 1, 2, 2, 2).numpy())
    pool = nn.MaxPool2d(2, stride=1, dilation=2)
    assert repr(pool) == "MaxPool2d(kernel_size=2, stride=1, padding=0, dilation=2)"
    np.testing.assert_array_equal(pool(x).numpy(), F.max_pool2d(x, 2, 1, 0, 2).numpy())
    with pytest.raises(ValueError, match="Conv2d: groups=4 must divide both in_channels=6 and out_channels=8"):
        nn.Conv2d(6, 8, 3, groups=4)


def test_conv2d_same_padding_keeps_the_size_and_pads_the_odd_one_after(backend):
    """padding="same" on an even kernel: the extra row and column of zeros go at the bottom and right (PyTorch)."""
    x = floats(backend, np.arange(16.0).reshape(1, 1, 4, 4))
    w = floats(backend, np.array([[[[1.0, 0.0], [0.0, 0.0]]]]))  # picks each window's top-left tap
    np.testing.assert_array_equal(F.conv2d(x, w, padding="same").numpy(), x.numpy())  # no shift: nothing before
    w = floats(backend, np.array([[[[0.0, 0.0], [0.0, 1.0]]]]))  # the bottom-right tap: shifted by one, zeros after
    expected = np.zeros((1, 1, 4, 4))
    expected[..., :3, :3] = np.arange(16.0).reshape(4, 4)[1:, 1:]
    np.testing.assert_array_equal(F.conv2d(x, w, padding="same").numpy(), expected)
    assert F.conv2d(x, floats(backend, np.ones((2, 1, 3, 3))), padding="valid").shape == (1, 2, 2, 2)


def test_conv2d_module_takes_same_and_valid_and_refuses_same_with_a_stride(backend):
    tl.manual_seed(0)
    conv = nn.Conv2d(2, 3, (2, 3), padding="same", dilation=(2, 1)).to(backend=backend)
    assert repr(conv) == "Conv2d(2, 3, kernel_size=(2, 3), stride=(1, 1), padding=same, dilation=(2, 1))"
    x = floats(backend, np.random.default_rng(1).standard_normal((2, 2, 5, 6)))
    assert conv(x).shape == (2, 3, 5, 6)
    np.testing.assert_array_equal(conv(x).numpy(), F.conv2d(x, conv.weight, conv.bias, 1, "same", (2, 1)).numpy())
    assert nn.Conv2d(2, 3, 3, stride=2, padding="valid").to(backend=backend)(x).shape == (2, 3, 2, 2)
    with pytest.raises(ValueError, match=r"Conv2d: padding='same' needs stride 1 \(as in PyTorch\), not stride="):
        nn.Conv2d(2, 3, 3, stride=(2, 1), padding="same")
    with pytest.raises(ValueError, match="padding must be 'valid', 'same', an int >= 0"):
        nn.Conv2d(2, 3, 3, padding="full")
