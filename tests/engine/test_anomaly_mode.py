"""Anomaly mode: a NaN or infinite gradient raises naming the op and the user's forward line."""

from __future__ import annotations

import pytest

import torchlight as tl
from torchlight.engine import anomaly


def test_a_nan_gradient_names_the_function_and_the_forward_line():
    x = tl.tensor([0.0, 1.0], requires_grad=True)
    with tl.autograd.detect_anomaly():
        y = (x * 0.0).sqrt()  # the line the message must name
        loss = (y * 0.0).sum()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
    message = str(info.value)
    assert "Sqrt.backward returned nan values" in message
    assert __file__ in message and "y = (x * 0.0).sqrt()  # the line the message must name" in message
    assert x.grad is None  # raised before any .grad changed


def test_pytorch_names_the_same_op():
    torch = pytest.importorskip("torch", reason="torch is not installed: its anomaly message is not compared")
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    with pytest.warns(UserWarning), torch.autograd.detect_anomaly():
        y = ((x * 0.0).sqrt() * 0.0).sum()
        with pytest.raises(RuntimeError, match="SqrtBackward0.*returned nan"):
            y.backward()


def test_a_forward_nan_is_caught_with_check_forward():
    x = tl.tensor([-1.0, 1.0], requires_grad=True)
    with tl.autograd.detect_anomaly(check_forward=True), pytest.raises(RuntimeError, match="Log made nan"):
        x.log()
    with tl.autograd.detect_anomaly(), pytest.warns(RuntimeWarning):
        x.log()  # (without check_forward the forward is not checked: NumPy's warning is all there is)


def test_anomaly_mode_is_off_outside_the_block_and_costs_no_record_wrapper():
    from torchlight.engine import function

    assert not tl.autograd.is_anomaly_enabled()
    assert function._record is function._record_plain
    with tl.autograd.detect_anomaly():
        assert tl.autograd.is_anomaly_enabled() and tl.autograd.is_anomaly_check_nan_enabled()
        assert function._record is not function._record_plain
    assert function._record is function._record_plain


def test_set_detect_anomaly_sets_the_mode_and_restores_it_as_a_context_manager():
    tl.autograd.set_detect_anomaly(True)
    try:
        assert tl.autograd.is_anomaly_enabled()
    finally:
        tl.autograd.set_detect_anomaly(False)
    assert not tl.autograd.is_anomaly_enabled()
    with tl.autograd.set_detect_anomaly(True, check_nan=False):
        assert tl.autograd.is_anomaly_enabled() and not tl.autograd.is_anomaly_check_nan_enabled()
    assert not tl.autograd.is_anomaly_enabled()
    with pytest.raises(TypeError, match="bool"):
        tl.autograd.set_detect_anomaly("yes")


def test_an_op_recorded_before_the_mode_is_named_without_a_line():
    x = tl.tensor([0.0], requires_grad=True)
    y = x.sqrt()
    with tl.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="before anomaly mode was on"):
        y.sum().backward()


def test_finite_gradients_pass_and_match_the_plain_run():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with tl.autograd.detect_anomaly():
        (x.exp() * x).sum().backward()
    expected = ((x.detach().exp()) * (x.detach() + 1.0)).tolist()
    assert x.grad.tolist() == pytest.approx(expected)


def test_the_state_is_restored_after_an_error_in_the_block():
    with pytest.raises(ValueError), tl.autograd.detect_anomaly():
        raise ValueError("inside")
    assert anomaly.ENABLED == [False, True, False]
