"""The number protocols of 0-d tensors (an index, a formatted number) and the in-place operators
(x op= y) on parameters: a manual SGD step updates the parameter itself, and a backward through values
replaced since its forward raises (as PyTorch). Writes in the graph: tests/tensor/test_writes.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn


def test_a_0d_integer_tensor_is_an_index(backend):
    i = tl.tensor(np.array(2, dtype=np.int64), backend=backend)
    assert ["a", "b", "c"][i] == "c" and list(range(i)) == [0, 1]
    x = tl.tensor(np.arange(6.0).reshape(2, 3), backend=backend)
    assert x.sum(dim=tl.tensor(np.array(1), backend=backend)).tolist() == [3.0, 12.0]


@pytest.mark.parametrize("value", [2.0, [2], True])
def test_only_a_0d_integer_tensor_is_an_index(value):
    with pytest.raises(TypeError, match="0-d integer"):
        ["a", "b", "c"][tl.tensor(value)]


def test_a_0d_tensor_formats_as_its_number(backend):
    loss = tl.tensor(2.0 / 3.0, backend=backend)
    assert f"{loss:.3f}" == "0.667" and f"{loss}" == str(2.0 / 3.0)
    v = tl.tensor([1.0, 2.0], backend=backend)
    assert f"{v}" == str(v)
    with pytest.raises(TypeError):
        f"{v:.3f}"


# ------------------------------------------------- x op= y, the manual SGD step
def test_a_manual_sgd_step_under_no_grad_updates_the_parameter_itself(backend):
    w = tl.tensor([1.0, -2.0], backend=backend, requires_grad=True)
    model_view = [w]  # what a model or an optimizer holds: the same object
    for _ in range(3):
        w.grad = None
        (w * w).sum().backward()
        with tl.no_grad():
            w -= 0.25 * w.grad  # w <- w - 0.25 * 2w = w / 2
    assert model_view[0] is w and w.is_leaf and w.requires_grad
    np.testing.assert_allclose(w.numpy(), [0.125, -0.25])


def test_each_in_place_operator_updates_a_parameter_and_keeps_its_dtype():
    p = nn.Parameter(tl.tensor(np.array([2.0, 4.0], dtype=np.float32)))
    with tl.no_grad():
        p += tl.tensor([1.0, 1.0])  # a float64 operand: the parameter stays float32, as PyTorch
        p *= 2.0
        p /= 3.0
        p -= 1.0
    assert type(p) is nn.Parameter and p.dtype == np.float32
    np.testing.assert_allclose(p.numpy(), [1.0, 7.0 / 3.0], rtol=1e-6)


def test_a_backward_through_values_replaced_since_the_forward_raises_as_pytorch():
    w = tl.tensor([3.0], requires_grad=True)
    x = tl.tensor([2.0], requires_grad=True)
    y = (w * x).sum()  # saves w for x's gradient
    with tl.no_grad():
        w -= 1.0
    with pytest.raises(RuntimeError, match="replaced since the forward"):
        y.backward()  # x's gradient would be 2.0, from the new w, not 3.0
    (w * x).sum().backward()  # a forward run after the update is fine
    assert x.grad.tolist() == [2.0] and w.tolist() == [2.0]


def test_an_optimizer_step_between_forward_and_backward_raises_instead_of_a_wrong_gradient():
    model = nn.Linear(2, 1)
    optimizer = tl.optim.SGD(model.parameters(), lr=0.1)
    x = tl.tensor([[1.0, 2.0]], requires_grad=True)
    first = model(x).sum()
    model(x).sum().backward()
    optimizer.step()
    with pytest.raises(RuntimeError, match="optimizer's step"):
        first.backward()


def test_updating_a_parameter_in_place_with_grad_mode_on_raises():
    w = tl.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="no_grad"):
        w -= 0.1
    assert w.is_leaf and w.tolist() == [1.0]


def test_an_in_place_update_cannot_change_a_parameters_shape():
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    with tl.no_grad(), pytest.raises(ValueError, match=r"\(2,\)"):
        w += tl.ones(3, 2)


def test_on_any_other_tensor_an_in_place_operator_writes_that_tensor():
    """`x op= y` used to rebind any tensor but a parameter; it writes the tensor itself now (a recorded
    write in the graph, a replacement of a constant), as NumPy and PyTorch do."""
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2.0
    kept = h
    h += 1.0  # recorded: h moves to the Add node
    assert h is kept and h.tolist() == [3.0, 5.0] and h.history.last_fn.__name__ == "Add"
    h.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    array = np.array([1.0])
    c = tl.tensor(array)  # wraps the array without a copy
    alias = c
    c += 1.0
    assert alias.tolist() == [2.0] and array.tolist() == [1.0]  # the user's array is never written


@pytest.mark.parametrize("replace", [
    lambda w, x: (x * 3.0).sum().backward(),  # x.grad accumulates 3s: its array is replaced
    lambda w, x: x.zero_grad_(),
    lambda w, x: nn.init.zeros_(w),
], ids=["grad accumulates", "zero_grad_", "init"])
def test_every_in_place_replacement_is_caught_by_a_backward_that_saved_the_tensor(replace):
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    (x * 2.0).sum().backward()
    w = tl.tensor([1.0, 1.0], requires_grad=True)
    y = (w * x.grad).sum() + (w * w).sum()  # saves x.grad (for w's gradient) and w
    replace(w, x)
    with pytest.raises(RuntimeError, match="replaced since the forward"):
        y.backward()
