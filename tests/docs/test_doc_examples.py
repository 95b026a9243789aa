"""Every example of the project's documentation pages (../shared/seeds/) and of DESIGN.md, and the
docstring examples of the core modules, run and give the mathematically correct result.

Where a page's own comment is wrong, the test asserts the correct value and says so:
`b = a * 2; b.backward()` gives a.grad == [2.0, 2.0] (the tutorial says [2.0, 4.0]), and for
`c = b * a` with `b = a + a` the derivative is 4a (the tutorial's [4.0, 8.0] is right, its formula not).
"""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

import torchlight as tl
from torchlight import scalar

CORE_MODULES = [
    "torchlight", "torchlight.tensor", "torchlight.creation", "torchlight.grad_mode", "torchlight.autograd",
    "torchlight.engine", "torchlight.engine.function", "torchlight.engine.graph", "torchlight.engine.variable",
    "torchlight.engine.observe", "torchlight.engine.hooks", "torchlight.engine.anomaly",
    "torchlight.autograd.functions", "torchlight.array_functions", "torchlight.nn.ops", "torchlight.backends.checks",
    "torchlight.backends.writes",
    *(f"torchlight.ops.{category}" for category in ("common", "arithmetic", "linear_algebra", "elementwise",
                                                   "activations", "trigonometric", "reductions", "shapes",
                                                   "indexing", "copies", "comparisons", "scalar_map", "logical",
                                                   "bitwise", "writes", "sorting", "searching", "sets",
                                                   "complex_numbers", "decompositions", "norms", "fft",
                                                   "einsum", "special", "special_gamma")),
    "torchlight.linalg", "torchlight.fft", "torchlight.special", "torchlight.array_api.linalg",
    "torchlight.array_api.fft", "torchlight.array_api.special",
    "torchlight.autograd.gradcheck", "torchlight.autograd.functional", "torchlight.autograd.graph",
    "torchlight.compile", "torchlight.compile.api", "torchlight.compile.blocking", "torchlight.computing",
]


@pytest.mark.parametrize("name", CORE_MODULES)
def test_docstring_examples_of_the_core(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------- DESIGN.md, the public API
def test_design_first_example():
    x = tl.tensor([2.0, 3.0], requires_grad=True)
    y = (x ** 2).sum()
    y.backward()
    assert isinstance(x.grad, tl.Tensor) and x.grad.tolist() == [4.0, 6.0]


def test_design_wrapping_and_gradients_in_the_arrays_own_library(backend, device):
    host = np.array([1.0, -2.0])
    own = backend.asarray(host, device=device)
    t = tl.tensor(own, requires_grad=True)
    assert t.data is own and t.backend is backend and t.device == device
    (t * t).sum().backward()
    assert type(t.grad.data) is type(own) and t.grad.device == device and t.grad.dtype == own.dtype
    assert t.grad.tolist() == [2.0, -4.0]


# ------------------------------------------------------ Tutorial 2: Autograd
def test_tutorial_how_gradients_work():
    x = tl.tensor([2.0, 3.0], requires_grad=True)
    y = (x ** 2).sum()   # y = x1^2 + x2^2
    y.backward()         # seed gradient = 1.0
    assert x.grad.tolist() == [4.0, 6.0]


def test_tutorial_the_computation_graph():
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = a + a
    assert b.history.last_fn.__name__ == "Add" and b.history.inputs == (a, a)
    c = b * a
    assert c.history.last_fn.__name__ == "Mul" and c.history.inputs[1] is a
    assert c.history.inputs[0] is b  # the parent tensors themselves
    node = c.history.edges[0]  # the non-leaf parent b, as the graph records it: its History (no array)
    assert node is b.graph_node and node is b.history
    c.backward()
    assert a.grad.tolist() == [4.0, 8.0]  # c = 2a^2, dc/da = 4a


def test_tutorial_backward_on_a_model_loss():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    w = tl.tensor([[0.5], [-0.5]], requires_grad=True)
    b = tl.tensor([0.1], requires_grad=True)
    target = tl.tensor([[0.0], [1.0]])

    def model(inputs):
        return inputs @ w + b

    loss = model(x).mse_loss(target)
    loss.backward()  # populates .grad on every leaf with requires_grad=True
    pred = x.numpy() @ w.numpy() + b.numpy()
    resid = pred - target.numpy()
    np.testing.assert_allclose(w.grad.numpy(), x.numpy().T @ resid, rtol=1e-12)  # mean over 2: 2/2 * X^T r
    np.testing.assert_allclose(b.grad.numpy(), [resid.sum()], rtol=1e-12)


def test_tutorial_leaf_vs_intermediate():
    a = tl.tensor([1.0, 2.0], requires_grad=True)  # leaf
    b = a * 2                                       # intermediate
    b.backward()
    assert a.grad.tolist() == [2.0, 2.0]  # the page's comment says [2.0, 4.0]: db/da = 2 for each entry
    with pytest.raises(AttributeError, match="leaf"):
        _ = b.grad
    c = a.detach()  # shares storage, no grad
    assert np.shares_memory(c.data, a.data) and not c.requires_grad


def test_tutorial_detach_zero_grad_cloning():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.zero_grad_()                                  # in-place: sets grad to zeros
    assert x.grad.tolist() == [0.0, 0.0]
    detached = x.detach()                           # new tensor, same data, no graph
    assert detached is not x and np.shares_memory(detached.data, x.data) and detached.history is None
    cloned = x.clone()                              # fresh copy in the graph
    assert not np.shares_memory(cloned.data, x.data) and cloned.history is not None


def test_tutorial_checking_gradients_manually():
    from torchlight.autograd import central_difference

    def f(x):
        return (x ** 2).sum()

    x_val = [3.0, 4.0]
    got = [central_difference(lambda *xs: f(tl.tensor(xs)), *x_val, arg=i) for i in range(len(x_val))]
    assert got == pytest.approx([6.0, 8.0], abs=1e-5)  # true grad = [6.0, 8.0]


def test_tutorial_autograd_internals():
    from torchlight.autograd import backpropagate, topological_sort

    a = tl.tensor([1.0, 2.0], requires_grad=True)
    root = (a * a).sum()
    order = topological_sort(root)
    assert order[0] is a and order[-1] is root
    backpropagate(root, 1.0)
    assert a.grad.tolist() == [2.0, 4.0]


# ------------------------------------------------ API Reference: autograd
def test_reference_imports_and_signatures():
    from torchlight.autograd import (  # noqa: F401  (the page's two import lines)
        Context,
        Function,
        History,
        backpropagate,
        central_difference,
        topological_sort,
    )

    ctx = Context(no_grad=False, saved_values=())
    ctx.save_for_backward(1.0)
    assert ctx.saved_tensors == (1.0,)
    h = History(last_fn=None, ctx=None, inputs=())
    assert (h.last_fn, h.ctx, h.inputs) == (None, None, ())
    assert central_difference(lambda v: v * v, 3.0, arg=0, epsilon=1e-6) == pytest.approx(6.0)


def test_reference_square_function(backend, device):
    from conformance.hypothesis import (
        Square,  # the reference page's custom Function, verbatim (the op table runs it too)
    )

    x = tl.tensor([3.0, -1.5], backend=backend, device=device, requires_grad=True)
    y = Square.apply(x)
    assert y.tolist() == [9.0, 2.25] and y.history.last_fn is Square
    y.sum().backward()
    assert x.grad.tolist() == [6.0, -3.0]


def test_reference_add_apply_and_the_built_in_ops():
    from torchlight.autograd import functions

    names = ["Add", "Mul", "Sub", "Div", "Pow", "MatMul", "Sum", "Map", "Log", "Exp", "Sigmoid", "ReLU",
             "ReluBack", "LogBack", "Inv", "InvBack", "Sqrt", "Abs", "Tanh", "Permute", "BroadcastView",
             "Gather", "Max"]
    assert all(issubclass(getattr(functions, n), tl.autograd.Function) for n in names)
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([3.0, 4.0], requires_grad=True)
    out = functions.Add.apply(a, b)
    assert out.tolist() == [4.0, 6.0] and out.history.last_fn is functions.Add


# -------------------------------------- the scalar autodiff reference (004)
def test_scalar_reference_example():
    x = scalar.variable(2.0)
    y = scalar.variable(3.0)
    loss = x.mul(y).add(x.pow(2.0)).add(1.0)
    loss.backward()
    assert (loss.data, x.grad, y.grad) == (11.0, 7.0, 2.0)


def test_scalar_reference_one_line_examples():
    v, c = scalar.variable, scalar.constant
    assert v(3.0).data == 3 and c(5.0).data == 5 and scalar.value(2.0).data == 2
    assert v(2.0).add(v(3.0)).data == 5 and v(3.0).mul(v(4.0)).data == 12 and v(10.0).div(v(4.0)).data == 2.5
    assert v(3.0).pow(2.0).data == 9 and v(0.0 - 5.0).relu().data == 0 and v(0.0).tanh().data == 0
    assert v(0.0).exp().data == 1 and v(1.0).ln().data == 0 and v(9.0).sqrt().data == 3
    leaf = v(3.0)
    leaf.backward()
    assert leaf.grad == 1.0
