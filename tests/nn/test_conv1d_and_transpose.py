"""Conv1d and ConvTranspose2d (and F.conv1d / F.conv_transpose2d), with PyTorch's options and layouts.

Against PyTorch float64 where it is installed (state dicts loaded, the
forward and the gradients of input, weight and bias); without it, against a
NumPy loop (conv1d), the adjoint identity <conv2d(x), y> = <x,
conv_transpose2d(y)>, and central differences on every backend of the fixture.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.nn import functional as F


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="the reference values come from PyTorch (not installed)")


def against_torch(torch, ours, theirs, x):
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    mine, ref = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, want = ours(mine), theirs(ref)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), atol=1e-12, rtol=1e-10)
    weight = np.random.default_rng(9).standard_normal(out.shape)
    (out * tl.tensor(weight)).sum().backward()
    (want * torch.tensor(weight)).sum().backward()
    np.testing.assert_allclose(mine.grad.numpy(), ref.grad.numpy(), atol=1e-12, rtol=1e-10)
    theirs_params = dict(theirs.named_parameters())
    assert [n for n, _ in ours.named_parameters()] == list(theirs_params)
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), theirs_params[name].grad.numpy(), atol=1e-12, rtol=1e-10,
                                   err_msg=name)


@pytest.mark.parametrize("options, shape", [
    (dict(stride=2, padding=2, dilation=2, groups=2), (2, 4, 11)),
    (dict(padding="same", dilation=3, bias=False), (2, 4, 9)),
    (dict(padding="valid", stride=3), (4, 10)),  # unbatched (C, L)
])
def test_conv1d_against_torch(torch, options, shape):
    theirs = torch.nn.Conv1d(4, 6, 3, dtype=torch.float64, **options)
    ours = nn.Conv1d(4, 6, 3, **options)
    against_torch(torch, ours, theirs, np.random.default_rng(0).standard_normal(shape))


@pytest.mark.parametrize("options, shape", [
    (dict(stride=(2, 3), padding=(1, 1), output_padding=(1, 0), groups=2, dilation=(1, 2)), (2, 4, 5, 4)),
    (dict(), (1, 4, 3, 3)),
    (dict(stride=2, padding=1, output_padding=1, bias=False), (2, 4, 4, 5)),
    (dict(dilation=2, output_padding=1, groups=4), (4, 3, 3)),  # unbatched; output_padding < dilation
])
def test_conv_transpose2d_against_torch(torch, options, shape):
    groups = options.get("groups", 1)
    theirs = torch.nn.ConvTranspose2d(4, 2 * groups, (3, 2), dtype=torch.float64, **options)
    ours = nn.ConvTranspose2d(4, 2 * groups, (3, 2), **options)
    against_torch(torch, ours, theirs, np.random.default_rng(1).standard_normal(shape))


def test_conv_transpose2d_output_size_against_torch(torch):
    theirs = torch.nn.ConvTranspose2d(2, 3, 3, stride=(2, 3), padding=1, dtype=torch.float64)
    ours = nn.ConvTranspose2d(2, 3, 3, stride=(2, 3), padding=1)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(5).standard_normal((1, 2, 4, 4))
    for size in ((7, 10), (8, 12), (1, 3, 8, 11)):
        want = theirs(torch.tensor(x), output_size=size).detach().numpy()
        np.testing.assert_allclose(ours(tl.tensor(x), output_size=size).numpy(), want, atol=1e-12)
    with pytest.raises(ValueError, match=r"valid sizes range from \(7, 10\) to \(8, 12\)"):
        ours(tl.tensor(x), output_size=(9, 10))


# ------------------------------------------------------------ without PyTorch
def numpy_conv1d(x, w, b, stride, padding, dilation, groups):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    n, c, length = x.shape
    o, per, k = w.shape
    out_len = (length - dilation * (k - 1) - 1) // stride + 1
    out = np.zeros((n, o, out_len))
    for j in range(o):
        g = j // (o // groups)
        for t in range(out_len):
            window = x[:, g * per:(g + 1) * per, t * stride:t * stride + dilation * (k - 1) + 1:dilation]
            out[:, j, t] = (window * w[j]).sum((1, 2)) + b[j]
    return out


def test_conv1d_against_numpy_and_by_central_differences(backend):
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, 3)), rng.standard_normal(6)
    xt, wt, bt = (tl.tensor(a, backend=backend, requires_grad=True) for a in (x, w, b))
    out = F.conv1d(xt, wt, bt, stride=2, padding=1, dilation=2, groups=2)
    np.testing.assert_allclose(out.numpy(), numpy_conv1d(x, w, b, 2, 1, 2, 2), atol=1e-12)
    assert gradcheck(lambda a, c, d: F.conv1d(a, c, d, stride=2, padding=1, dilation=2, groups=2), xt, wt, bt)


def test_conv_transpose2d_is_the_adjoint_of_conv2d(backend):
    rng = np.random.default_rng(3)
    stride, padding, dilation, groups = (2, 3), (1, 2), (2, 1), 2
    w = tl.tensor(rng.standard_normal((4, 3, 3, 2)), backend=backend)  # conv2d: 4 out, 6 in; transposed: 4 in, 6 out
    x = tl.tensor(rng.standard_normal((2, 6, 9, 10)), backend=backend)
    y = F.conv2d(x, w, stride=stride, padding=padding, dilation=dilation, groups=groups)
    g = tl.tensor(rng.standard_normal(y.shape), backend=backend)
    # conv2d drops rows the last window does not reach: output_padding gives them back
    full = [(o - 1) * s - 2 * p + d * (k - 1) + 1 for o, s, p, d, k in zip(y.shape[2:], stride, padding, dilation,
                                                                          (3, 2))]
    extra = tuple(n - f for n, f in zip(x.shape[2:], full))
    back = F.conv_transpose2d(g, w, stride=stride, padding=padding, output_padding=extra, groups=groups,
                              dilation=dilation)
    assert back.shape == x.shape
    assert math.isclose((y * g).sum().item(), (x * back).sum().item(), rel_tol=1e-12)


def test_conv_transpose2d_by_central_differences(backend):
    rng = np.random.default_rng(4)
    x, w, b = (tl.tensor(rng.standard_normal(s), backend=backend, requires_grad=True)
               for s in ((1, 2, 3, 3), (2, 2, 2, 3), (4,)))

    def fn(a, c, d):
        return F.conv_transpose2d(a, c, d, stride=(2, 1), padding=(0, 1), output_padding=(1, 0), groups=2)

    assert gradcheck(fn, x, w, b)
    assert gradgradcheck(lambda a, c: F.conv_transpose2d(a, c, stride=2), x, w)


def test_shapes_init_and_repr_as_pytorch():
    up = nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2)
    assert up.weight.shape == (4, 3, 3, 3) and up.bias.shape == (6,)
    bound = 1 / math.sqrt(3 * 9)  # fan_in = out_channels / groups * kh * kw, as PyTorch's
    assert np.abs(up.weight.numpy()).max() <= bound and np.abs(up.bias.numpy()).max() <= bound
    assert up.weight.numpy().std() > bound / 3
    assert nn.Conv1d(4, 6, 5, groups=2).weight.shape == (6, 2, 5)
    assert repr(nn.Conv1d(4, 6, 3, stride=2, padding=1)) == "Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,))"
    assert repr(nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1, bias=False)) == (
        "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), bias=False)")
    assert nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)(tl.zeros(1, 4, 5, 5)).shape == (
        1, 2, 10, 10)


def test_bad_input_names_expected_and_got():
    conv = nn.Conv1d(4, 6, 3)
    with pytest.raises(ValueError, match=r"shape \(2, 3, 8\) has 3 channels, .* expects 4"):
        conv(tl.zeros(2, 3, 8))
    with pytest.raises(ValueError, match=r"needs an input \(N, C, L\) or \(C, L\)"):
        conv(tl.zeros(2, 4, 8, 8))
    with pytest.raises(ValueError, match="larger than the padded input of length 2"):
        conv(tl.zeros(1, 4, 2))
    with pytest.raises(ValueError, match="groups=3 must divide"):
        nn.Conv1d(4, 6, 3, groups=3)
    with pytest.raises(ValueError, match="output_padding .* must be smaller than either stride"):
        nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=2)
    with pytest.raises(ValueError, match="no 'same'"):
        nn.ConvTranspose2d(4, 6, 3, padding="same")
    up = nn.ConvTranspose2d(4, 6, 3)
    with pytest.raises(ValueError, match=r"the input has 5 channels .* expects 4"):
        up(tl.zeros(1, 5, 3, 3))
    with pytest.raises(ValueError, match="padding .* leaves no output"):
        F.conv_transpose2d(tl.zeros(1, 4, 1, 1), up.weight, padding=2)
