"""BatchNorm1d / BatchNorm2d and GroupNorm against PyTorch float64: parameters copied in, several train
steps (running statistics, num_batches_tracked, momentum and momentum=None), then eval, every gradient
(input included); PyTorch's whole state dict loads; gradcheck and NumPy references without PyTorch;
PyTorch's initialisation; bad input naming expected and got."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import torchlight as tl
import torchlight.nn.functional as F
from torchlight.autograd import gradcheck

RNG = np.random.default_rng(1)

BATCH_NORMS = [
    ("BatchNorm1d", (5, 3), {}),
    ("BatchNorm1d", (4, 3, 6), {"momentum": None}),
    ("BatchNorm1d", (4, 3, 6), {"affine": False}),
    ("BatchNorm1d", (4, 3), {"track_running_stats": False}),
    ("BatchNorm2d", (2, 3, 4, 5), {}),
    ("BatchNorm2d", (2, 3, 4, 5), {"momentum": 0.3, "eps": 1e-3}),
    ("BatchNorm2d", (2, 3, 4, 5), {"momentum": None, "bias": False}),
]


def _copy_parameters_in(ours: tl.nn.Module, theirs: Any) -> None:
    state = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)


def _grads(ours_params: dict[str, Any], theirs_params: dict[str, Any]) -> None:
    assert list(ours_params) == list(theirs_params)
    for name, param in theirs_params.items():
        np.testing.assert_allclose(ours_params[name].grad.numpy(), param.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize(("name", "shape", "kwargs"), BATCH_NORMS,
                         ids=[f"{n}-{len(s)}d-{k}" for n, s, k in BATCH_NORMS])
def test_batch_norm_train_steps_then_eval_match_pytorch(name: str, shape: tuple, kwargs: dict) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for its batch norm where it is installed")
    channels = shape[1]
    theirs = getattr(torch.nn, name)(channels, dtype=torch.float64, **kwargs)
    ours = getattr(tl.nn, name)(channels, **kwargs)
    assert ours.state_dict().keys() == theirs.state_dict().keys()
    assert repr(ours) == repr(theirs)
    with torch.no_grad():  # parameters other than PyTorch's 1 and 0, copied in
        for param in theirs.parameters():
            param.copy_(torch.tensor(RNG.normal(size=param.shape)))
    _copy_parameters_in(ours, theirs)
    for step in range(4):
        x = RNG.normal(size=shape) * (1 + step) + step
        ox, tx = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out, expected = ours(ox), theirs(tx)
        np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
        seed = RNG.normal(size=shape)
        (out * tl.tensor(seed)).sum().backward()
        (expected * torch.tensor(seed)).sum().backward()
        np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        _grads(dict(ours.named_parameters()), dict(theirs.named_parameters()))
        ours.zero_grad()
        theirs.zero_grad()
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(), rtol=1e-12, err_msg=key)
    ours.eval()
    theirs.eval()
    x = RNG.normal(size=shape)
    ox, tx = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, expected = ours(ox), theirs(tx)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    if kwargs.get("track_running_stats", True):
        assert int(ours.num_batches_tracked.item()) == 4


def test_batch_norm_loads_pytorch_whole_state_dict_and_evaluates_alike() -> None:
    torch = pytest.importorskip("torch", reason="a PyTorch state dict is what is loaded")
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU()).double()
    for _ in range(3):
        theirs(torch.randn(8, 3, dtype=torch.float64))
    theirs.eval()
    ours = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.BatchNorm1d(4), tl.nn.ReLU()).eval()
    missing, unexpected = ours.load_state_dict(theirs.state_dict())  # torch tensors, num_batches_tracked included
    assert (missing, unexpected) == ([], [])
    assert int(ours[1].num_batches_tracked.item()) == 3
    x = RNG.normal(size=(5, 3))
    np.testing.assert_allclose(ours(tl.tensor(x)).numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize(("groups", "shape", "affine"), [(2, (3, 4, 5), True), (1, (2, 6, 2, 3), True),
                                                          (6, (2, 6, 2, 3), False), (3, (2, 6), True)])
def test_group_norm_matches_pytorch(groups: int, shape: tuple, affine: bool) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for its group norm where it is installed")
    theirs = torch.nn.GroupNorm(groups, shape[1], affine=affine, dtype=torch.float64)
    ours = tl.nn.GroupNorm(groups, shape[1], affine=affine)
    assert repr(ours) == repr(theirs)
    with torch.no_grad():
        for param in theirs.parameters():
            param.copy_(torch.tensor(RNG.normal(size=param.shape)))
    ours.load_state_dict(theirs.state_dict())
    x = RNG.normal(size=shape) * 3 + 1
    ox, tx = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, expected = ours(ox), theirs(tx)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    seed = RNG.normal(size=shape)
    (out * tl.tensor(seed)).sum().backward()
    (expected * torch.tensor(seed)).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    _grads(dict(ours.named_parameters()), dict(theirs.named_parameters()))


def test_batch_norm_running_statistics_on_numpy(backend: Any) -> None:
    x = RNG.normal(size=(6, 2, 3))
    norm = tl.nn.BatchNorm1d(2, momentum=None, backend=backend)
    norm(tl.tensor(x, backend=backend))
    norm(tl.tensor(2 * x, backend=backend))
    mean = (x.mean((0, 2)) + (2 * x).mean((0, 2))) / 2  # momentum=None: the plain average of the batches
    var = (x.var((0, 2), ddof=1) + (2 * x).var((0, 2), ddof=1)) / 2
    np.testing.assert_allclose(norm.running_mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(norm.running_var.numpy(), var, rtol=1e-12)
    y = norm.eval()(tl.tensor(x, backend=backend)).numpy()
    np.testing.assert_allclose(y, (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-5), rtol=1e-12)


def test_normalisation_gradients_match_central_differences(backend: Any) -> None:
    x = tl.tensor(RNG.normal(size=(3, 4, 2)), backend=backend, requires_grad=True)
    w = tl.tensor(RNG.normal(size=4), backend=backend, requires_grad=True)
    b = tl.tensor(RNG.normal(size=4), backend=backend, requires_grad=True)
    assert gradcheck(lambda a, c, d: F.batch_norm(a, None, None, c, d, training=True), x, w, b)
    assert gradcheck(lambda a, c, d: F.group_norm(a, 2, c, d), x, w, b)
    mean = tl.tensor(RNG.normal(size=4), backend=backend)
    var = tl.tensor(RNG.uniform(0.5, 2, size=4), backend=backend)
    assert gradcheck(lambda a, c, d: F.batch_norm(a, mean, var, c, d, training=False), x, w, b)


def test_group_norm_on_numpy(backend: Any) -> None:
    x = RNG.normal(size=(2, 6, 3))
    got = F.group_norm(tl.tensor(x, backend=backend), 3).numpy()
    grouped = x.reshape(2, 3, 6)
    want = ((grouped - grouped.mean(-1, keepdims=True)) / np.sqrt(grouped.var(-1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(got, want.reshape(x.shape), rtol=1e-12)


def test_normalisation_initialisation_is_pytorch_s() -> None:
    norm = tl.nn.BatchNorm2d(3)
    assert norm.weight.tolist() == [1.0] * 3 and norm.bias.tolist() == [0.0] * 3
    assert norm.running_mean.tolist() == [0.0] * 3 and norm.running_var.tolist() == [1.0] * 3
    assert norm.num_batches_tracked.shape == () and "int64" in str(norm.num_batches_tracked.dtype)
    group = tl.nn.GroupNorm(2, 4)
    assert group.weight.tolist() == [1.0] * 4 and group.bias.tolist() == [0.0] * 4
    assert [n for n, _ in tl.nn.BatchNorm1d(2, affine=False).named_parameters()] == []
    assert list(tl.nn.BatchNorm1d(2, track_running_stats=False).state_dict()) == ["weight", "bias"]
    norm(tl.ones(2, 3, 1, 1) * tl.tensor([1.0, 2.0]).reshape(2, 1, 1, 1))
    norm.reset_parameters()
    assert norm.running_mean.tolist() == [0.0] * 3 and int(norm.num_batches_tracked.item()) == 0


def test_normalisation_bad_input_names_expected_and_got() -> None:
    with pytest.raises(ValueError, match=r"BatchNorm1d: expected 2D or 3D input, got 4D input of shape \(1, 2, 3, 4\)"):
        tl.nn.BatchNorm1d(2)(tl.zeros(1, 2, 3, 4))
    with pytest.raises(ValueError, match="BatchNorm2d: expected 4D input, got 3D input"):
        tl.nn.BatchNorm2d(2)(tl.zeros(2, 2, 3))
    with pytest.raises(ValueError, match=r"BatchNorm2d: expected an input with 3 features .* with 2"):
        tl.nn.BatchNorm2d(3)(tl.zeros(2, 2, 3, 3))
    with pytest.raises(TypeError, match="BatchNorm1d: expected an input of dtype float64 .*, got float32"):
        tl.nn.BatchNorm1d(2)(tl.zeros(3, 2).astype(tl.float32))
    norm = tl.nn.BatchNorm1d(2)
    with pytest.raises(ValueError, match="expected more than 1 value per channel when training"):
        norm(tl.zeros(1, 2))
    assert int(norm.num_batches_tracked.item()) == 0  # a refused batch changes no state
    norm.eval()(tl.zeros(1, 2))  # (in eval one sample is fine)
    with pytest.raises(ValueError, match="GroupNorm: num_channels=5 must be divisible by num_groups=2"):
        tl.nn.GroupNorm(2, 5)
    with pytest.raises(ValueError, match=r"GroupNorm: expected an input \(N, 4, \*\), got shape \(2, 3\)"):
        tl.nn.GroupNorm(2, 4)(tl.zeros(2, 3))
    with pytest.raises(ValueError, match="group_norm: expected the number of channels of the input to be divisible"):
        F.group_norm(tl.zeros(2, 3), 2)
    with pytest.raises(ValueError, match=r"batch_norm: running_mean must have shape \(3,\)"):
        F.batch_norm(tl.zeros(2, 3), tl.zeros(2), tl.ones(2))
    with pytest.raises(TypeError, match="BatchNorm1d: momentum must be a number or None"):
        tl.nn.BatchNorm1d(2, momentum="0.1")
