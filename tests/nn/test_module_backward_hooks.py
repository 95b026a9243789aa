"""Module full backward hooks (and pre-hooks) as PyTorch's: grad_input and grad_output values, order,
replacements flowing on, once per backward, and the errors for a wrong replacement.

Each scenario is written once against a library (`torch` or `torchlight`) on the same weights and
inputs, and run on both; what the hooks saw and the resulting gradients must agree.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import torchlight as tl


def torch_or_skip():
    return pytest.importorskip("torch", reason="PyTorch is the reference for the backward hooks")


def libraries():
    torch = torch_or_skip()
    return {"torch": (torch, lambda a, rg=False: torch.tensor(a, dtype=torch.float64, requires_grad=rg)),
            "torchlight": (tl, lambda a, rg=False: tl.tensor(a, dtype="float64", requires_grad=rg))}


def arrays(values):
    """Tensors (or None) as nested lists, for comparing the two libraries' logs."""
    if values is None:
        return None
    if isinstance(values, (tuple, list)):
        return [arrays(v) for v in values]
    return np.asarray(values.detach().numpy()).round(12).tolist()


X = [[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]
W = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
B = [0.1, -0.2]


def linear(lib, make):
    layer = lib.nn.Linear(3, 2) if lib is tl else lib.nn.Linear(3, 2, dtype=lib.float64)
    if lib is tl:
        layer.weight.data[...] = np.array(W)
        layer.bias.data[...] = np.array(B)
        return layer
    with lib.no_grad():
        layer.weight.copy_(make(W))
        layer.bias.copy_(make(B))
    return layer


def linear_scenario(lib, make):
    log = []
    layer = linear(lib, make)
    layer.register_full_backward_pre_hook(lambda m, go: log.append(("pre", arrays(go))))
    layer.register_full_backward_hook(lambda m, gi, go: log.append(("hook", arrays(gi), arrays(go))))
    x = make(X, True)
    y = layer(x)
    (y * y).sum().backward()
    log.append(("x.grad", arrays(x.grad)))
    log.append(("weight.grad", arrays(layer.weight.grad)))
    return log


def test_a_linear_layers_grad_input_and_grad_output_are_pytorchs():
    logs = {name: linear_scenario(*lib) for name, lib in libraries().items()}
    assert logs["torchlight"] == logs["torch"]
    assert [entry[0] for entry in logs["torch"]] == ["pre", "hook", "x.grad", "weight.grad"]


class TwoInputs:
    """forward(a, k, b, c): a non-Tensor k, a Tensor c that does not require grad, two outputs."""

    @staticmethod
    def make(lib):
        class Module(lib.nn.Module):
            def forward(self, a, k, b, c):
                return a * b * k + c, (a * 0.0).sum()

        return Module()


def two_input_scenario(lib, make, replace=False):
    log = []
    module = TwoInputs.make(lib)

    def hook(m, gi, go):
        log.append(("hook", arrays(gi), arrays(go)))
        if replace:
            return (gi[0] * 10.0, None, None, None)
        return None

    module.register_full_backward_hook(hook)
    a, b, c = make([1.0, 2.0], True), make([3.0, -4.0], True), make([0.5, 0.5])
    y, unused = module(a, 2.0, b, c)
    (y ** 2).sum().backward()
    log.append(("a.grad", arrays(a.grad)))
    log.append(("b.grad", None if b.grad is None else arrays(b.grad)))
    return log


def test_a_two_input_module_gets_pytorchs_grad_input_zeros_and_nones_included():
    logs = {name: two_input_scenario(*lib) for name, lib in libraries().items()}
    assert logs["torchlight"] == logs["torch"]
    (_, grad_input, grad_output) = logs["torch"][0]
    assert grad_input[1] is None and grad_input[3] == [0.0, 0.0]  # the number: None; no grad wanted: zeros
    assert grad_output[1] is None  # an output that got no gradient


def test_a_replaced_grad_input_flows_on_to_the_inputs_as_in_pytorch():
    logs = {name: two_input_scenario(*lib, replace=True) for name, lib in libraries().items()}
    assert logs["torchlight"] == logs["torch"]
    assert logs["torch"][-1] == ("b.grad", None)  # a None replacement passes nothing on


def order_scenario(lib, make):
    log = []
    layer = linear(lib, make)
    layer.register_full_backward_pre_hook(lambda m, go: log.append("pre"))
    layer.register_full_backward_hook(lambda m, gi, go: log.append("hook 1"))
    layer.register_full_backward_hook(lambda m, gi, go: log.append("hook 0 (prepended)"), prepend=True)
    removed = layer.register_full_backward_hook(lambda m, gi, go: log.append("removed"))
    removed.remove()
    handle = lib.nn.modules.module.register_module_full_backward_hook(lambda m, gi, go: log.append("global"))
    try:
        y = layer(make(X, True)).sum()
        y.backward(retain_graph=True)
        log.append("second backward")
        y.backward()
    finally:
        handle.remove()
    return log


def test_the_order_is_pytorchs_and_the_hooks_run_once_per_backward():
    logs = {name: order_scenario(*lib) for name, lib in libraries().items()}
    assert logs["torchlight"] == logs["torch"]
    assert logs["torch"].count("hook 1") == 2


def pre_hook_scenario(lib, make):
    layer = linear(lib, make)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 3.0,))
    x = make(X, True)
    layer(x).sum().backward()
    return [arrays(x.grad), arrays(layer.weight.grad)]


def test_a_pre_hooks_replaced_grad_output_reaches_the_weights_and_inputs():
    logs = {name: pre_hook_scenario(*lib) for name, lib in libraries().items()}
    assert logs["torchlight"] == logs["torch"]


def no_input_grad_scenario(lib, make):
    log = []
    layer = linear(lib, make)
    layer.register_full_backward_hook(lambda m, gi, go: log.append((arrays(gi), arrays(go))))
    layer(make(X)).sum().backward()
    return log


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")  # (PyTorch's note; torchlight says nothing)
def test_when_no_input_requires_grad_the_hook_sees_none_for_every_input():
    logs = {name: no_input_grad_scenario(*lib) for name, lib in libraries().items()}
    assert logs["torchlight"] == logs["torch"]
    assert logs["torch"][0][0] == [None]


def named_hook_of_wrong_shape(module, grad_input, grad_output):
    return (tl.ones(5),)


def test_a_replacement_of_the_wrong_shape_names_the_hook_the_module_and_the_shapes():
    layer = tl.nn.Linear(3, 2)
    layer.register_full_backward_hook(named_hook_of_wrong_shape)
    x = tl.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"backward hook 'named_hook_of_wrong_shape' of Linear returned a gradient "
                                           r"of shape \(5,\) as grad_input\[0\]; expected shape \(2, 3\)"):
        layer(x).sum().backward()
    assert x.grad is None and layer.weight.grad is None  # raised before any .grad changed


def test_a_replacement_with_the_wrong_count_or_backend_or_type_is_refused():
    x = tl.ones(2, 3, requires_grad=True)
    for hook, error, message in [
        (lambda m, gi, go: (gi[0], gi[0]), RuntimeError, "invalid number of grad_input: got 2, but expected 1"),
        (lambda m, gi, go: (tl.ones(2, 3, backend="array_api_strict"),), RuntimeError,
         "on backend 'array_api_strict' as grad_input\\[0\\]; expected backend 'numpy'"),
        (lambda m, gi, go: (np.ones((2, 3)),), TypeError, "returned a ndarray as grad_input\\[0\\]"),
    ]:
        layer = tl.nn.Linear(3, 2)
        layer.register_full_backward_hook(hook)
        with pytest.raises(error, match=message):
            layer(x).sum().backward()
    layer = tl.nn.Linear(3, 2)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0][:1],))
    with pytest.raises(RuntimeError, match=r"backward pre-hook '<lambda>' of Linear returned a gradient of shape "
                                           r"\(1, 2\) as grad_output\[0\]; expected shape \(2, 2\)"):
        layer(x).sum().backward()


def test_a_hook_may_not_return_gradients_when_no_input_requires_grad():
    layer = tl.nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (tl.ones(2, 3),))
    with pytest.raises(RuntimeError, match="none of the module's inputs requires grad, so the hook must return None"):
        layer(tl.ones(2, 3)).sum().backward()


def test_the_hooks_keep_no_activation_alive_after_backward():
    seen = []
    layer = tl.nn.Linear(3, 3)
    layer.register_full_backward_hook(lambda m, gi, go: seen.append(1))
    x = tl.ones(2, 3, requires_grad=True)
    h = layer(x).exp()  # an input of the hooked module computed before it
    kept = weakref.ref(h)
    loss = layer(h).sum()
    del h
    loss.backward()
    gc.collect()
    assert kept() is None and seen == [1, 1]  # (while `loss` and its graph are still alive)
