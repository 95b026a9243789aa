"""The loss Modules (MSELoss, L1Loss, BCELoss, BCEWithLogitsLoss, HuberLoss, SmoothL1Loss, KLDivLoss) and
their functions against PyTorch float64 with every option (forward, the gradient of input, target and
weights), NumPy formulas and gradcheck without PyTorch, state dicts, and bad input."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import torchlight as tl
import torchlight.nn.functional as F
from torchlight.autograd import gradcheck

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3)) * 2.0
T = RNG.normal(size=(4, 3))
P = RNG.uniform(0.05, 0.95, size=(4, 3))        # probabilities
Q = RNG.uniform(0.0, 1.0, size=(4, 3))          # binary targets, soft
W = RNG.uniform(0.5, 2.0, size=(4, 3))
POS = np.array([0.5, 1.0, 3.0])
LOGP = np.log(np.full((4, 3), 1 / 3) + RNG.uniform(0, 0.2, size=(4, 3)))
LOGQ = np.log(np.abs(RNG.normal(size=(4, 3))) + 0.1)
Q0 = np.where(Q > 0.7, 0.0, Q)                   # with exact zeros (0 log 0 = 0)

REDUCTIONS = ["mean", "sum", "none"]

# (our Module name / PyTorch's, constructor kwargs, input, target, extra tensors for the constructor)
CASES = [
    ("MSELoss", {}, X, T, {}),
    ("L1Loss", {}, X, T, {}),
    ("HuberLoss", {"delta": 0.7}, X, T, {}),
    ("HuberLoss", {}, X, T, {}),
    ("SmoothL1Loss", {"beta": 0.5}, X, T, {}),
    ("SmoothL1Loss", {"beta": 0.0}, X, T, {}),
    ("BCELoss", {}, P, Q, {}),
    ("BCELoss", {}, P, Q, {"weight": W}),
    ("BCEWithLogitsLoss", {}, X, Q, {}),
    ("BCEWithLogitsLoss", {}, X, Q, {"weight": W[0], "pos_weight": POS}),
    ("BCEWithLogitsLoss", {}, X * 300, Q, {"pos_weight": POS}),   # no overflow for large logits
    ("KLDivLoss", {}, LOGP, Q0, {}),
    ("KLDivLoss", {"log_target": True}, LOGP, LOGQ, {}),
]


def _ids(case: tuple) -> str:
    return case[0] + "".join(f"-{k}={v}" for k, v in case[1].items()) + "".join(f"-{k}" for k in case[4])


@pytest.mark.parametrize(("case", "reduction"), [
    pytest.param(case, reduction, id=f"{_ids(case)}-{reduction}")
    for case in CASES for reduction in REDUCTIONS + (["batchmean"] if case[0] == "KLDivLoss" else [])])
def test_loss_module_matches_pytorch(case: tuple, reduction: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for its loss Modules where it is installed")
    name, kwargs, x, t, extra = case
    ours = getattr(tl.nn, name)(reduction=reduction, **kwargs, **{k: tl.tensor(v) for k, v in extra.items()})
    theirs = getattr(torch.nn, name)(reduction=reduction, **kwargs, **{k: torch.tensor(v) for k, v in extra.items()})
    ox, ot = tl.tensor(x, requires_grad=True), tl.tensor(t, requires_grad=True)
    tx, tt = torch.tensor(x, requires_grad=True), torch.tensor(t, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's KLDivLoss warns that reduction="mean" is not the divergence)
        expected = theirs(tx, tt)
    out = ours(ox, ot)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-14)
    seed = np.linspace(0.5, 1.5, int(np.prod(expected.shape))).reshape(expected.shape)
    (out * tl.tensor(seed)).sum().backward()
    (expected * torch.tensor(seed)).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-11, atol=1e-13)
    kept = t != 0 if name == "KLDivLoss" and not kwargs else np.ones(t.shape, bool)  # (PyTorch: NaN at t = 0)
    assert ot.grad is not None and tt.grad is not None
    np.testing.assert_allclose(ot.grad.numpy()[kept], tt.grad.numpy()[kept], rtol=1e-11, atol=1e-13)
    assert np.isfinite(ot.grad.numpy()).all()
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())


@pytest.mark.parametrize("name", ["MSELoss", "L1Loss", "HuberLoss", "SmoothL1Loss", "KLDivLoss", "BCELoss",
                                  "BCEWithLogitsLoss"])
def test_loss_module_repr_matches_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch's reprs are the model")
    assert repr(getattr(tl.nn, name)()) == repr(getattr(torch.nn, name)())


def test_legacy_size_average_and_reduce_read_as_pytorch() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch reads its deprecated flags")
    for size_average, reduce in ((None, False), (False, None), (True, True), (False, True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = torch.nn.L1Loss(size_average, reduce).reduction
        assert tl.nn.L1Loss(size_average, reduce).reduction == expected


def test_losses_on_numpy_formulas(backend: Any) -> None:
    def make(a: Any, grad: bool = False) -> tl.Tensor:
        return tl.tensor(np.asarray(a), backend=backend, requires_grad=grad)

    d = X - T
    expected = {
        "l1": (F.l1_loss(make(X), make(T), reduction="none"), np.abs(d)),
        "huber": (F.huber_loss(make(X), make(T), "none", 0.7), np.where(np.abs(d) < 0.7, 0.5 * d * d,
                                                                         0.7 * (np.abs(d) - 0.35))),
        "smooth_l1": (F.smooth_l1_loss(make(X), make(T), reduction="none", beta=0.5),
                      np.where(np.abs(d) < 0.5, d * d, np.abs(d) - 0.25)),
        "kl": (F.kl_div(make(LOGP), make(Q0), reduction="none"),
               np.where(Q0 > 0, Q0 * (np.log(np.where(Q0 > 0, Q0, 1.0)) - LOGP), 0.0)),
        "kl_log": (F.kl_div(make(LOGP), make(LOGQ), reduction="none", log_target=True),
                   np.exp(LOGQ) * (LOGQ - LOGP)),
        "bce_w": (F.binary_cross_entropy(make(P), make(Q), make(W), reduction="none"),
                  -W * (Q * np.log(P) + (1 - Q) * np.log(1 - P))),
        "bce_logits_pos": (F.binary_cross_entropy_with_logits(make(X), make(Q), reduction="none",
                                                             pos_weight=make(POS)),
                           -(POS * Q * np.log(1 / (1 + np.exp(-X))) + (1 - Q) * np.log(1 - 1 / (1 + np.exp(-X))))),
        "mse_w": (F.mse_loss(make(X), make(T), reduction="none", weight=make(W)), W * d * d),
    }
    for name, (got, want) in expected.items():
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-14, err_msg=name)
    batchmean = F.kl_div(make(LOGP), make(Q0), reduction="batchmean")
    np.testing.assert_allclose(batchmean.item(), expected["kl"][1].sum() / 4, rtol=1e-12)


@pytest.mark.parametrize("loss", [
    lambda x, t: F.l1_loss(x, t),
    lambda x, t: F.huber_loss(x, t, delta=0.7),
    lambda x, t: F.smooth_l1_loss(x, t, beta=0.5),
    lambda x, t: F.kl_div(x, t.exp(), reduction="batchmean"),
    lambda x, t: F.kl_div(x, t, reduction="sum", log_target=True),
    lambda x, t: F.binary_cross_entropy_with_logits(x, t.sigmoid(), pos_weight=tl.tensor(POS[:2], backend=x.backend)),
], ids=["l1", "huber", "smooth_l1", "kl", "kl_log_target", "bce_logits_pos_weight"])
def test_loss_gradients_match_central_differences(backend: Any, loss: Any) -> None:
    # inputs away from every kink (|x - t| never near delta or beta)
    x = tl.tensor(np.array([[-1.3, 0.05], [0.9, 2.2]]), backend=backend, requires_grad=True)
    t = tl.tensor(np.array([[0.2, -0.1], [-0.4, 0.1]]), backend=backend, requires_grad=True)
    assert gradcheck(loss, x, t)


def test_loss_buffers_and_state_dict() -> None:
    loss = tl.nn.BCEWithLogitsLoss(weight=tl.ones(3), pos_weight=tl.tensor(POS))
    assert list(loss.state_dict()) == ["weight", "pos_weight"]
    assert list(tl.nn.BCEWithLogitsLoss().state_dict()) == []
    assert tl.nn.KLDivLoss(reduction="batchmean").reduction == "batchmean"


def test_loss_bad_input_names_expected_and_got() -> None:
    x = tl.zeros(2, 3)
    with pytest.raises(ValueError, match=r"l1_loss: input shape \(2, 3\) and target shape \(3,\) differ"):
        F.l1_loss(x, tl.zeros(3))
    with pytest.raises(ValueError, match="huber_loss: delta must be a number > 0"):
        F.huber_loss(x, x, delta=0.0)
    with pytest.raises(ValueError, match="HuberLoss: delta"):
        tl.nn.HuberLoss(delta=-1.0)
    with pytest.raises(ValueError, match="SmoothL1Loss: beta must be a number >= 0"):
        tl.nn.SmoothL1Loss(beta=-0.5)
    with pytest.raises(ValueError, match="MSELoss: reduction must be one of"):
        tl.nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="kl_div: reduction must be one of"):
        F.kl_div(x, x, reduction="batch")
    with pytest.raises(ValueError, match="batchmean"):
        tl.nn.L1Loss(reduction="batchmean")
    with pytest.raises(TypeError, match="the third argument is weight="):
        F.binary_cross_entropy_with_logits(x, x, "sum")
    with pytest.raises(TypeError, match="pass the reduction as reduction='sum'"):
        F.l1_loss(x, x, "sum")
    with pytest.raises(ValueError, match=r"pos_weight of shape \(2,\) must broadcast to the input's shape \(2, 3\)"):
        F.binary_cross_entropy_with_logits(x, x, pos_weight=tl.ones(2))
    with pytest.raises(ValueError, match=r"binary_cross_entropy: weight of shape \(4,\) must broadcast"):
        F.binary_cross_entropy(x + 0.5, x, weight=tl.ones(4))
    with pytest.raises(TypeError, match="mse_loss: the input must have a floating-point dtype, not int"):
        F.mse_loss(tl.tensor([1, 2]), tl.tensor([1, 2]))


def test_cross_entropy_and_nll_loss_take_pytorchs_order_and_names():
    """`input=` by name, and the deprecated flags in their places: (input, target, weight,
    size_average, ignore_index, reduce, reduction[, label_smoothing]); an ignored label passed
    where the flag goes (torchlight's old order) is a TypeError that names ignore_index=."""
    z = tl.tensor([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = tl.tensor([0, 1, 1])
    F = tl.nn.functional
    mean = F.cross_entropy(z, y).item()
    assert F.cross_entropy(input=z, target=y).item() == mean
    assert F.cross_entropy(z, y, None, None, -100, None, "sum").item() == pytest.approx(3 * mean)
    assert F.cross_entropy(z, y, None, False).item() == pytest.approx(3 * mean)  # size_average=False: a sum
    assert F.cross_entropy(z, y, reduce=False).shape == (3,)
    assert F.cross_entropy(z, y, None, None, 1).item() == pytest.approx(F.cross_entropy(z[:1], y[:1]).item())
    logp = z.log_softmax(1)
    assert F.nll_loss(input=logp, target=y, reduction="sum").item() == pytest.approx(3 * mean)
    assert F.nll_loss(logp, y, None, None, 0, False).tolist() == pytest.approx(
        [0.0, *F.nll_loss(logp, y, reduction="none").tolist()[1:]])
    for fn, scores in ((F.cross_entropy, z), (F.nll_loss, logp)):
        with pytest.raises(TypeError, match="pass the ignored label as ignore_index=1"):
            fn(scores, y, None, 1)
        with pytest.raises(TypeError, match="pass the reduction as reduction='sum'"):
            fn(scores, y, None, "sum")
