"""Copying and pickling tensors and models (as PyTorch).

`copy.deepcopy(model)` (the best model so far, a target network, an
average of weights) and pickling (multiprocessing, caches) are everyday
uses; both used to fail on the backend's module object.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn


def _leaf_with_grad(backend) -> tl.Tensor:
    x = tl.tensor([1.0, -2.0, 3.0], backend=backend, requires_grad=True)
    (x * x).sum().backward()
    return x


def test_deepcopy_of_a_leaf_copies_its_array_and_its_grad(backend):
    x = _leaf_with_grad(backend)
    y = copy.deepcopy(x)
    assert type(y) is tl.Tensor and y.backend is backend and y.is_leaf and y.requires_grad
    np.testing.assert_array_equal(y.numpy(), [1.0, -2.0, 3.0])
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, -4.0, 6.0])
    assert y.data is not x.data and y.grad.data is not x.grad.data
    (y * 3.0).sum().backward()  # the copy's gradient accumulates apart from the original's
    np.testing.assert_array_equal(y.grad.numpy(), [5.0, -1.0, 9.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, -4.0, 6.0])


def test_deepcopy_of_a_numpy_tensor_owns_its_memory():
    x = tl.tensor([1.0, 2.0])
    assert not np.shares_memory(copy.deepcopy(x).data, x.data)


def test_deepcopy_of_a_tensor_with_history_refuses_and_names_the_way_out():
    y = tl.tensor([1.0], requires_grad=True) * 2.0
    with pytest.raises(RuntimeError, match="detach"):
        copy.deepcopy(y)
    np.testing.assert_array_equal(copy.deepcopy(y.detach()).numpy(), [2.0])


def test_pickle_keeps_values_dtype_and_requires_grad_and_drops_history_and_grad(backend):
    x = _leaf_with_grad(backend)
    for t, wants in ((x, True), (x * 2.0, True), (x.detach(), False)):
        back = pickle.loads(pickle.dumps(t))
        assert back.is_leaf and back.grad is None and back.requires_grad is wants
        assert back.backend is backend and back.dtype == t.dtype
        np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_copy_copy_shares_the_array_as_a_new_leaf():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2.0
    y = copy.copy(h)
    assert y.data is h.data and y.is_leaf and y.requires_grad and not h.is_leaf
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])


def test_a_parameter_stays_a_parameter():
    p = nn.Parameter(tl.ones(2))
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is nn.Parameter and q.requires_grad


def test_a_backend_copies_and_pickles_as_itself(backend):
    assert copy.deepcopy(backend) is backend and copy.copy(backend) is backend
    assert pickle.loads(pickle.dumps(backend)) is tl.backends.get(backend.name)


class Tied(nn.Module):
    """Two layers sharing one weight: a copy must keep them tied."""

    def __init__(self):
        super().__init__()
        self.first = nn.Linear(3, 3)
        self.second = nn.Linear(3, 3)
        self.second.weight = self.first.weight

    def forward(self, x):
        return self.second(self.first(x).tanh())


def test_deepcopy_of_a_model_trains_apart_from_the_original_and_keeps_ties():
    tl.manual_seed(0)
    model = Tied()
    twin = copy.deepcopy(model)
    x = tl.tensor(np.linspace(-1.0, 1.0, 6).reshape(2, 3))
    np.testing.assert_array_equal(twin(x).numpy(), model(x).numpy())
    assert twin.second.weight is twin.first.weight and twin.first.weight is not model.first.weight
    before = model.first.weight.numpy().copy()
    optimizer = tl.optim.SGD(twin.parameters(), lr=0.5)
    twin(x).sum().backward()
    optimizer.step()
    np.testing.assert_array_equal(model.first.weight.numpy(), before)
    assert not np.array_equal(twin.first.weight.numpy(), before)


def test_a_pickled_model_computes_the_same_outputs():
    tl.manual_seed(1)
    model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
    back = pickle.loads(pickle.dumps(model))
    x = tl.tensor(np.arange(8.0).reshape(2, 4) / 8.0)
    np.testing.assert_array_equal(back(x).numpy(), model(x).numpy())
    assert [n for n, _ in back.named_parameters()] == [n for n, _ in model.named_parameters()]


def test_tl_tensor_of_a_tensor_that_requires_grad_refuses_as_of_a_list_of_them():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"tl.tensor\(x\) of a tensor that requires grad.*x.detach\(\)"):
        tl.tensor(x)
    assert tl.tensor(x.detach()).tolist() == [1.0, 2.0]


def test_a_module_moved_where_it_already_is_keeps_a_pending_backward():
    model = nn.Linear(2, 1)
    loss = model(tl.ones(3, 2)).sum()
    model.to()
    model.to(backend="numpy")
    loss.backward()
    assert model.weight.grad.tolist() == [[3.0, 3.0]]


def test_load_state_dict_takes_another_models_parameters():
    source, target = nn.Linear(2, 1), nn.Linear(2, 1)
    target.load_state_dict(dict(source.named_parameters()))
    np.testing.assert_array_equal(target.weight.numpy(), source.weight.numpy())
    assert target.weight.data is not source.weight.data
