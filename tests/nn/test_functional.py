"""torchlight.nn.functional against float64 NumPy definitions, with gradient checks.

Forward values are compared with direct NumPy formulas (loops for conv and
pooling); gradients with central differences (gradcheck) and, for a few ops,
second derivatives (gradgradcheck). Runs on every backend of the fixture.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.nn import functional as F

RNG = np.random.default_rng(1234)


def make(backend, array, requires_grad=True):
    return tl.tensor(np.asarray(array, dtype=np.float64), backend=backend, requires_grad=requires_grad)


def labels(backend, values):
    return tl.tensor(np.asarray(values, dtype=np.int64), backend=backend)


# ---------------------------------------------------------------- references
def ref_log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def ref_conv2d(x, w, b, stride, padding):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    (sh, sw), (ph, pw) = stride, padding
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    ho, wo = (h + 2 * ph - kh) // sh + 1, (wd + 2 * pw - kw) // sw + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(n):
        for k in range(o):
            for r in range(ho):
                for s in range(wo):
                    window = xp[i, :, r * sh:r * sh + kh, s * sw:s * sw + kw]
                    out[i, k, r, s] = np.sum(window * w[k]) + (b[k] if b is not None else 0.0)
    return out


def ref_pool(x, kernel, stride, padding, reduce, fill):
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    xp = np.full((n, c, h + 2 * ph, w + 2 * pw), fill)
    xp[:, :, ph:ph + h, pw:pw + w] = x
    ho, wo = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    out = np.zeros((n, c, ho, wo))
    for r in range(ho):
        for s in range(wo):
            out[:, :, r, s] = reduce(xp[:, :, r * sh:r * sh + kh, s * sw:s * sw + kw], axis=(2, 3))
    return out


# ------------------------------------------------------------ activations
def test_softmax_family_matches_numpy(backend):
    x = RNG.standard_normal((3, 5)) * 10
    t = make(backend, x)
    np.testing.assert_allclose(F.log_softmax(t, 1).numpy(), ref_log_softmax(x, 1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(F.softmax(t, 0).numpy(), np.exp(ref_log_softmax(x, 0)), rtol=1e-12)
    lse = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
    np.testing.assert_allclose(F.logsumexp(t, 1).numpy(), lse, rtol=1e-12)
    np.testing.assert_allclose(F.logsumexp(t, (0, 1), keepdim=True).numpy(),
                               np.log(np.exp(x).sum(keepdims=True)), rtol=1e-12)
    np.testing.assert_allclose(F.softplus(t).numpy(), np.logaddexp(0.0, x), rtol=1e-12)
    assert gradcheck(lambda a: F.logsumexp(a, 1), t)
    assert gradgradcheck(lambda a: F.logsumexp(a, 1), t)
    assert gradcheck(F.softplus, t)
    assert gradgradcheck(F.softplus, t)


def test_logsumexp_and_softplus_are_stable_for_huge_inputs(backend):
    t = make(backend, [[1000.0, 1000.0], [-1000.0, -1000.0]])
    np.testing.assert_allclose(F.logsumexp(t, 1).numpy(), [1000 + math.log(2), -1000 + math.log(2)])
    np.testing.assert_allclose(F.softplus(make(backend, [800.0, -800.0])).numpy(), [800.0, 0.0])
    everything_masked = make(backend, [-np.inf, -np.inf], requires_grad=False)
    with np.errstate(divide="ignore"):  # log(0), as NumPy: -inf, not NaN
        assert F.logsumexp(everything_masked).item() == -np.inf


# --------------------------------------------------------------- losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_matches_float64_reference(backend, reduction):
    x = RNG.standard_normal((6, 4)) * 3
    y = np.array([0, 3, 1, 1, 2, 3])
    per_sample = -ref_log_softmax(x, 1)[np.arange(6), y]
    expected = {"mean": per_sample.mean(), "sum": per_sample.sum(), "none": per_sample}[reduction]
    t = make(backend, x)
    out = F.cross_entropy(t, labels(backend, y), reduction=reduction)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    assert gradcheck(lambda a: F.cross_entropy(a, labels(backend, y), reduction=reduction), t)


def test_cross_entropy_gradient_is_softmax_minus_one_hot(backend):
    x = RNG.standard_normal((3, 5))
    y = np.array([4, 0, 2])
    t = make(backend, x)
    F.cross_entropy(t, labels(backend, y), reduction="sum").backward()
    expected = np.exp(ref_log_softmax(x, 1)) - np.eye(5)[y]
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-12, atol=1e-15)
    assert gradgradcheck(lambda a: F.cross_entropy(a, labels(backend, y)), t)


def test_cross_entropy_is_one_node_whose_second_derivative_is_the_softmax_jacobian(backend):
    """The loss is one CrossEntropy node; with create_graph its gradient (recomputed with Softmax, not
    the softmax kept by the forward) differentiates to diag(p) - p p^T per row."""
    from torchlight.autograd import functions as AF

    x = RNG.standard_normal((3, 4))
    v = RNG.standard_normal((3, 4))
    y = np.array([1, 3, 0])
    t = make(backend, x)
    loss = F.cross_entropy(t, labels(backend, y), reduction="sum")
    if not backend.lazy:  # (Dask takes the general path: whether a label is ignored is not known yet)
        assert loss.history.last_fn is AF.CrossEntropy  # the reduction included
    (g,) = tl.autograd.grad(loss, t, create_graph=True)
    (g * make(backend, v, requires_grad=False)).sum().backward()
    p = np.exp(ref_log_softmax(x, 1))
    np.testing.assert_allclose(g.detach().numpy(), p - np.eye(4)[y], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(t.grad.numpy(), p * v - p * (p * v).sum(1, keepdims=True), rtol=1e-12, atol=1e-15)


def test_linear_is_one_node_and_falls_back_for_a_bias_that_adds_axes(backend):
    x = RNG.standard_normal((5, 3))
    w = RNG.standard_normal((4, 3))
    b = RNG.standard_normal(4)
    tx, tw, tb = make(backend, x), make(backend, w), make(backend, b)
    y = F.linear(tx, tw, tb)
    assert y.history.last_fn.__name__ == "Linear"
    np.testing.assert_allclose(y.numpy(), x @ w.T + b, rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), np.ones((5, 4)) @ w, rtol=1e-12)
    np.testing.assert_allclose(tw.grad.numpy(), np.ones((5, 4)).T @ x, rtol=1e-12)
    np.testing.assert_allclose(tb.grad.numpy(), np.full(4, 5.0), rtol=1e-12)
    wide = make(backend, RNG.standard_normal((2, 1, 4)))  # (2, 1, 4) + (4,) -> (2, 1, 4): more axes than x @ w.T
    y = F.linear(make(backend, x[0]), tw, wide)
    np.testing.assert_allclose(y.numpy(), x[0] @ w.T + wide.numpy(), rtol=1e-12)
    assert gradcheck(lambda a, c: F.linear(a, tw, c), make(backend, x[0]), wide)
    with pytest.raises(ValueError, match=r"linear: the weight must be 2-d .* \(3,\)"):
        F.linear(tx, make(backend, w[0]))


def test_nll_loss_on_spatial_and_unbatched_inputs(backend):
    x = RNG.standard_normal((2, 3, 2, 2))
    y = RNG.integers(0, 3, size=(2, 2, 2))
    logp = ref_log_softmax(x, 1)
    expected = -np.take_along_axis(logp, y[:, None], axis=1)[:, 0]
    t = make(backend, logp)
    np.testing.assert_allclose(F.nll_loss(t, labels(backend, y), reduction="none").numpy(), expected, rtol=1e-12)
    assert gradcheck(lambda a: F.nll_loss(a, labels(backend, y)), t)
    single = make(backend, x[0, :, 0, 0])
    assert F.cross_entropy(single, labels(backend, 2)).item() == pytest.approx(-ref_log_softmax(x[0, :, 0, 0], 0)[2])


def test_mse_and_binary_cross_entropy(backend):
    p = RNG.uniform(0.05, 0.95, size=(4, 3))
    target = RNG.uniform(0, 1, size=(4, 3))
    logits = RNG.standard_normal((4, 3)) * 4
    tp, tt, tz = make(backend, p), make(backend, target, requires_grad=False), make(backend, logits)
    np.testing.assert_allclose(F.mse_loss(tp, tt).item(), np.mean((p - target) ** 2), rtol=1e-12)
    np.testing.assert_allclose(F.mse_loss(tp, tt, reduction="sum").item(), np.sum((p - target) ** 2), rtol=1e-12)
    bce = -(target * np.log(p) + (1 - target) * np.log(1 - p))
    np.testing.assert_allclose(F.binary_cross_entropy(tp, tt, reduction="none").numpy(), bce, rtol=1e-12)
    sig = 1 / (1 + np.exp(-logits))
    bce_logits = -(target * np.log(sig) + (1 - target) * np.log(1 - sig))
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(tz, tt).item(), bce_logits.mean(), rtol=1e-10)
    assert gradcheck(lambda a: F.binary_cross_entropy(a, tt), tp)
    assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b), tz, make(backend, target))
    assert gradgradcheck(lambda a: F.binary_cross_entropy_with_logits(a, tt), tz)
    assert gradcheck(lambda a, b: F.mse_loss(a, b), tp, make(backend, target))


def test_binary_cross_entropy_clamps_the_log_at_minus_100(backend):
    p = make(backend, [0.0, 1.0])
    loss = F.binary_cross_entropy(p, make(backend, [1.0, 0.0], requires_grad=False), reduction="none")
    assert loss.tolist() == [100.0, 100.0]
    huge = make(backend, [1000.0, -1000.0])
    stable = F.binary_cross_entropy_with_logits(huge, make(backend, [0.0, 1.0], requires_grad=False), reduction="none")
    np.testing.assert_allclose(stable.numpy(), [1000.0, 1000.0])


# --------------------------------------------------------------- layers
@pytest.mark.parametrize("stride,padding", [((1, 1), (0, 0)), ((2, 1), (1, 2)), ((2, 2), (1, 1))])
def test_conv2d_matches_a_direct_loop(backend, stride, padding):
    x = RNG.standard_normal((2, 3, 5, 6))
    w = RNG.standard_normal((4, 3, 3, 2))
    b = RNG.standard_normal(4)
    out = F.conv2d(make(backend, x), make(backend, w), make(backend, b), stride, padding)
    np.testing.assert_allclose(out.numpy(), ref_conv2d(x, w, b, stride, padding), rtol=1e-12, atol=1e-12)


def test_conv2d_gradients(backend):
    x, w, b = (make(backend, RNG.standard_normal(s)) for s in [(2, 2, 4, 5), (3, 2, 2, 3), (3,)])
    assert gradcheck(lambda a, k, c: F.conv2d(a, k, c, stride=(2, 1), padding=1), x, w, b)
    assert gradgradcheck(lambda a, k: F.conv2d(a, k, padding=1) ** 2, x, w)


def test_conv2d_unbatched_input(backend):
    x = RNG.standard_normal((2, 4, 4))
    w = RNG.standard_normal((3, 2, 3, 3))
    out = F.conv2d(make(backend, x), make(backend, w), padding=1)
    np.testing.assert_allclose(out.numpy(), ref_conv2d(x[None], w, None, (1, 1), (1, 1))[0], rtol=1e-12)


@pytest.mark.parametrize("kernel,stride,padding", [((2, 2), (2, 2), (0, 0)), ((3, 2), (1, 2), (1, 1))])
def test_pools_match_a_direct_loop(backend, kernel, stride, padding):
    x = RNG.standard_normal((2, 3, 5, 6))
    t = make(backend, x)
    np.testing.assert_allclose(F.max_pool2d(t, kernel, stride, padding).numpy(),
                               ref_pool(x, kernel, stride, padding, np.max, -np.inf), rtol=1e-12)
    np.testing.assert_allclose(F.avg_pool2d(t, kernel, stride, padding).numpy(),
                               ref_pool(x, kernel, stride, padding, np.mean, 0.0), rtol=1e-12)
    assert gradcheck(lambda a: F.max_pool2d(a, kernel, stride, padding), t)
    assert gradcheck(lambda a: F.avg_pool2d(a, kernel, stride, padding), t)


def test_max_pool_splits_the_gradient_among_ties(backend):
    t = make(backend, np.ones((1, 1, 2, 2)))
    F.max_pool2d(t, 2).sum().backward()
    assert t.grad.tolist() == [[[[0.25, 0.25], [0.25, 0.25]]]]


def test_linear_layer_norm_embedding_dropout(backend):
    x = RNG.standard_normal((3, 4))
    w, b = RNG.standard_normal((2, 4)), RNG.standard_normal(2)
    tx, tw, tb = make(backend, x), make(backend, w), make(backend, b)
    np.testing.assert_allclose(F.linear(tx, tw, tb).numpy(), x @ w.T + b, rtol=1e-12)
    assert gradcheck(F.linear, tx, tw, tb)
    gamma, beta = RNG.standard_normal(4), RNG.standard_normal(4)
    norm = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * gamma + beta
    tg, tbeta = make(backend, gamma), make(backend, beta)
    np.testing.assert_allclose(F.layer_norm(tx, 4, tg, tbeta).numpy(), norm, rtol=1e-10)
    assert gradcheck(lambda a, g, c: F.layer_norm(a, (4,), g, c), tx, tg, tbeta)
    assert gradgradcheck(lambda a: F.layer_norm(a, 4), tx)
    table = RNG.standard_normal((5, 3))
    idx = np.array([[0, 4], [4, 2]])
    tt = make(backend, table)
    np.testing.assert_array_equal(F.embedding(labels(backend, idx), tt).numpy(), table[idx])
    assert gradcheck(lambda a: F.embedding(labels(backend, idx), a), tt)
    ones = make(backend, np.ones((200, 50)), requires_grad=False)
    tl.manual_seed(0)
    dropped = F.dropout(ones, 0.3).numpy()
    assert set(np.unique(dropped)) <= {0.0, 1 / 0.7}
    assert abs((dropped == 0).mean() - 0.3) < 0.02
    assert F.dropout(ones, 0.3, training=False) is ones


# ------------------------------------------------------------ bad inputs
def test_bad_inputs_raise_clear_errors(backend):
    x = make(backend, RNG.standard_normal((2, 3)))
    with pytest.raises(ValueError, match=r"cross_entropy: labels \[3\] out of range for 3 classes"):
        F.cross_entropy(x, labels(backend, [0, 3])).numpy()  # (on Dask: raised when computed)
    with pytest.raises(ValueError, match=r"labels \[-1\] out of range"):
        F.nll_loss(x, labels(backend, [-1, 0])).numpy()  # (on Dask: raised when computed)
    with pytest.raises(TypeError, match="integer dtype"):
        F.cross_entropy(x, make(backend, [0.0, 1.0]))
    with pytest.raises(ValueError, match=r"labels of shape \(2,\), got \(3,\)"):
        F.cross_entropy(x, labels(backend, [0, 1, 2]))
    with pytest.raises(ValueError, match="reduction must be one of"):
        F.cross_entropy(x, labels(backend, [0, 1]), reduction="avg")
    with pytest.raises(ValueError, match=r"mse_loss: input shape \(2, 3\) and target shape \(3,\)"):
        F.mse_loss(x, make(backend, [1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"probability in \[0, 1\]"):
        F.binary_cross_entropy(x, make(backend, np.zeros((2, 3)))).numpy()  # (on Dask: raised when computed)
    with pytest.raises(ValueError, match=r"width 3.*in_features=4"):
        F.linear(x, make(backend, np.zeros((5, 4))))
    with pytest.raises(ValueError, match="input has 3 channels"):
        F.conv2d(make(backend, np.zeros((1, 3, 4, 4))), make(backend, np.zeros((2, 1, 3, 3))))
    with pytest.raises(ValueError, match="larger than the padded input"):
        F.conv2d(make(backend, np.zeros((1, 1, 2, 2))), make(backend, np.zeros((2, 1, 3, 3))))
    with pytest.raises(ValueError, match="stride must be an int >= 1"):
        F.conv2d(make(backend, np.zeros((1, 1, 4, 4))), make(backend, np.zeros((2, 1, 3, 3))), stride=0)
    with pytest.raises(ValueError, match=r"max_pool2d: needs an input \(N, C, H, W\)"):
        F.max_pool2d(x, 2)
    with pytest.raises(ValueError, match="at most half the kernel"):
        F.avg_pool2d(make(backend, np.zeros((1, 1, 4, 4))), 2, padding=2)
    with pytest.raises(ValueError, match="does not end in normalized_shape"):
        F.layer_norm(x, 4)
    with pytest.raises(ValueError, match=r"embedding: indices \[5\] out of range for 5 embeddings"):
        F.embedding(labels(backend, [5]), make(backend, np.zeros((5, 2)))).numpy()  # (on Dask: raised when computed)
    with pytest.raises(ValueError, match=r"dropout: p must be in \[0, 1\]"):
        F.dropout(x, 1.5)
    with pytest.raises(TypeError, match="floating-point dtype"):
        F.logsumexp(labels(backend, [1]))


def test_cross_entropy_gradient_with_uint8_labels_and_more_classes_than_uint8_holds(backend):
    # The one-hot of the backward counted classes in the labels' dtype: arange(300) in
    # uint8 wraps at 256, so class 266 was taken for label 10 and got its gradient too.
    z = RNG.standard_normal((2, 300))
    target = np.array([10, 250], dtype=np.uint8)
    for loss in (F.cross_entropy, lambda x, t: F.nll_loss(x.log_softmax(1), t)):
        x = make(backend, z)
        loss(x, tl.tensor(target, backend=backend)).backward()
        p = np.exp(ref_log_softmax(z, 1))
        expected = (p - np.eye(300)[target.astype(np.int64)]) / 2
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10, atol=1e-14)


def test_linear_lifts_a_number_list_or_array_bias_and_weight_as_before(backend):
    # F.linear used to be `x @ weight.mT + bias`, which lifts what is not a Tensor;
    # the one-node Linear read `bias.shape` and `.data` of whatever it was given.
    xs, ws = RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))
    for bias, b in ((0.5, 0.5), ([1.0, 2.0, 3.0, 4.0], np.arange(1.0, 5.0))):
        x = make(backend, xs)
        y = F.linear(x, ws, bias)
        np.testing.assert_allclose(y.numpy(), xs @ ws.T + b, rtol=1e-12)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 4)) @ ws, rtol=1e-12)
