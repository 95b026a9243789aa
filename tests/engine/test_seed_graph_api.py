"""The graph API exactly as the seed pages document it (../shared/seeds/000_*, "API Reference: autograd").

- "History ... `inputs`: parent tensors"; the tutorial's `c = b * a  # History: Mul, parents=(b, a)`;
- "topological_sort(variable) -> List[Variable]", "the non-constant graph nodes from leaves to root";
- "History(last_fn=None, ctx=None, inputs=())" and "Context(no_grad=False, saved_values=())" are
  public constructors: a graph built with them passes gradients;
- the scalar functions take numbers, and a 0-d Tensor's `.data` (a 0-d array) is one.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import torchlight as tl
from torchlight import scalar
from torchlight.autograd import Context, Function, History, topological_sort
from torchlight.engine import GraphVariable, Variable


class Both(Function):
    """A Function of two inputs whose backward gives each the incoming gradient."""

    @staticmethod
    def forward(ctx, a, b):
        return a.data + b.data

    @staticmethod
    def backward(ctx, d):
        return d, d


def test_history_inputs_are_the_parent_tensors_themselves():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = a + a
    c = b * a  # History: Mul, parents=(b, a)
    assert c.history.last_fn.__name__ == "Mul"
    inputs = c.history.inputs
    assert len(inputs) == 2 and inputs[0] is b and inputs[1] is a
    assert all(x is y for x, y in zip(c.parents, (b, a)))
    assert b.history.inputs[0] is a and b.history.inputs[1] is a


def test_history_inputs_keep_the_constants_given_to_apply():
    x = tl.tensor([1.0], requires_grad=True)
    y = x * 3.0
    first, second = y.history.inputs
    assert first is x and isinstance(second, tl.Tensor) and not second.requires_grad
    assert second.item() == 3.0


def test_a_dropped_parent_is_a_variable_with_its_history_shape_and_dtype():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2.0).exp()  # nobody holds x * 2.0
    parent = y.history.inputs[0]
    assert isinstance(parent, Variable) and isinstance(parent, GraphVariable)
    assert parent.shape == (2,) and parent.dtype == x.dtype and parent.history.last_fn.__name__ == "Mul"
    assert parent.history.inputs[0] is x and parent.data is None and not parent.is_leaf
    assert y.history.inputs[0] is parent  # one stand-in per node while it is held


def test_the_graph_still_keeps_no_activation_nobody_saved():
    x = tl.tensor(np.ones(1000), requires_grad=True)
    middle = x + 1.0  # Add saves nothing
    ref = weakref.ref(middle.data)
    y = middle + 2.0
    del middle
    gc.collect()
    assert ref() is None  # the array is gone, although y's History can still name its parent
    assert isinstance(y.history.inputs[0], GraphVariable)


def test_a_tensor_written_in_place_is_the_input_of_the_ops_after_the_write():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    y[0] = 5.0
    z = y * 2.0
    assert z.history.inputs[0] is y


def test_topological_sort_returns_variables_leaves_first_root_last():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = a + a
    c = b * a
    order = topological_sort(c)
    assert len(order) == 3 and order[0] is a and order[1] is b and order[2] is c
    assert all(isinstance(v, Variable) for v in order)
    for v in order:  # every node's tensor fields can be read
        assert v.shape == (2,) and v.dtype == a.dtype


def test_topological_sort_stands_in_for_the_nodes_the_user_dropped():
    x = tl.tensor([1.0], requires_grad=True)
    y = ((x * 2.0).exp() + 1.0).log()
    order = topological_sort(y)
    assert order[0] is x and order[-1] is y and len(order) == 5
    assert [v.history.last_fn.__name__ for v in order[1:]] == ["Mul", "Exp", "Add", "Log"]
    assert isinstance(order[1], GraphVariable)  # x * 2.0: nobody holds it, nor saved it (Exp saves its result)
    assert isinstance(order[3], tl.Tensor)  # Log's backward saved its input: that tensor is alive


def test_topological_sort_of_two_roots_lists_a_shared_node_once():
    x = tl.tensor([1.0], requires_grad=True)
    y = x * 2.0
    z = y + 1.0
    order = topological_sort([y, z])
    assert len(order) == 3 and order[0] is x and order[1] is y and order[2] is z


def test_topological_sort_of_values_returns_values():
    x = scalar.variable(2.0)
    y = x * x + 1.0
    order = topological_sort(y)
    assert [v.data for v in order] == [2.0, 4.0, 5.0] and order[0] is x and order[-1] is y


def test_a_hand_built_history_passes_a_gradient_to_every_input():
    x = tl.tensor(0.0, requires_grad=True)
    h = History(Both, Context(), [x, x])
    pairs = h.chain_rule(tl.tensor(5.0))
    assert len(pairs) == 2 and all(inp is x and g.item() == 5.0 for inp, g in pairs)
    assert h.inputs[0] is x and h.parents == (x, x)


def test_a_hand_built_history_attached_to_a_tensor_backpropagates():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    w = tl.tensor([3.0, 4.0], requires_grad=True)
    b = x * 2.0  # a non-leaf input of the hand-built node
    y = tl.tensor(Both.forward(None, b, w))
    y.requires_grad = True
    y.history = History(Both, Context(), (b, w))
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and w.grad.tolist() == [1.0, 1.0]


def test_a_hand_built_context_says_every_input_wants_a_gradient_once_run():
    x = tl.tensor(1.0, requires_grad=True)
    c = tl.tensor(2.0)
    ctx = Context()
    History(Both, ctx, [x, c]).chain_rule(tl.tensor(1.0))
    assert ctx.needs_input_grad == (True, False)


def test_the_documented_constructors_take_their_documented_defaults():
    h = History()
    assert h.last_fn is None and h.ctx is None and h.inputs == ()
    ctx = Context(no_grad=False, saved_values=(1,))
    assert ctx.saved_tensors == (1,)


@pytest.mark.parametrize("name", ["sigmoid", "exp", "relu", "neg", "log"])
def test_scalar_functions_take_a_zero_d_numpy_array_as_a_number(name):
    fn = getattr(scalar, name)
    assert fn(np.array(0.5)) == fn(0.5)
    assert fn(np.float64(0.5)) == fn(0.5)


def test_scalar_functions_take_a_zero_d_tensors_data_of_any_backend():
    for backend in ("numpy", "array_api_strict"):
        t = tl.tensor(2.0, backend=backend)
        assert scalar.mul(t.data, 3.0) == 6.0 and scalar.add(t.data, t.data) == 4.0
    torch = pytest.importorskip("torch", reason="torch is not installed: its 0-d tensors are not checked")
    assert scalar.sigmoid(torch.tensor(0.0)) == 0.5
    assert scalar.variable(np.array(3.0)).data == 3.0


def test_scalar_functions_still_refuse_what_is_not_a_real_number():
    for bad in (np.array([1.0]), np.array(True), np.array(1j), "1"):
        with pytest.raises(TypeError, match="sigmoid"):
            scalar.sigmoid(bad)
