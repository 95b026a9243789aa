"""Module forward hooks as PyTorch's: order, replaced arguments and outputs, kwargs, always_call, handles.

Each scenario is written once against a library (`torch` or `torchlight`)
and run on both; their event logs must be equal.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import RemovableHandle


def torch_or_skip():
    return pytest.importorskip("torch", reason="PyTorch is the reference for the hooks' order and arguments")


def libraries():
    torch = torch_or_skip()
    return [("torch", torch, torch.tensor), ("torchlight", tl, tl.tensor)]


def values(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t).tolist()


def order_scenario(lib, make):
    """Global and module hooks, prepend, a pre-hook that replaces the input with a single value."""
    log = []
    layer = lib.nn.Linear(2, 2)
    globals_ = lib.nn.modules.module
    handles = [
        globals_.register_module_forward_pre_hook(lambda m, args: log.append(("global pre", type(m).__name__))),
        globals_.register_module_forward_hook(lambda m, args, out: log.append(("global post", type(m).__name__))),
        layer.register_forward_pre_hook(lambda m, args: log.append(("pre 1", len(args)))),
        layer.register_forward_pre_hook(lambda m, args: log.append(("pre 0 (prepended)",)), prepend=True),
        layer.register_forward_pre_hook(lambda m, args: args[0] * 0.0),  # a single value: becomes (value,)
        layer.register_forward_pre_hook(lambda m, args: log.append(("pre sees", type(args).__name__,
                                                                    values(args[0])))),
        layer.register_forward_hook(lambda m, args, out: log.append(("post 1", values(args[0])))),
        layer.register_forward_hook(lambda m, args, out: log.append(("post 0 (prepended)",)), prepend=True),
    ]
    try:
        out = layer(make([[1.0, 2.0]]))
        log.append(("result is the bias", values(out) == [values(layer.bias)]))
    finally:
        for handle in handles:
            handle.remove()
    layer(make([[1.0, 2.0]]))
    log.append(("after remove",))
    return log


def test_the_hooks_run_in_pytorchs_order_global_first_prepend_first():
    logs = {name: order_scenario(lib, make) for name, lib, make in libraries()}
    assert logs["torchlight"] == logs["torch"]
    assert logs["torch"][0] == ("global pre", "Linear") and logs["torch"][-1] == ("after remove",)


def replace_scenario(lib, make):
    """A forward hook's result replaces the output for the next hooks and the caller; with_kwargs
    hooks see and replace keyword arguments."""
    log = []

    class Scale(lib.nn.Module):
        def forward(self, x, *, factor=1.0):
            return x * factor

    module = Scale()
    module.register_forward_pre_hook(lambda m, args, kwargs: (args, {"factor": kwargs["factor"] * 10}),
                                     with_kwargs=True)
    module.register_forward_hook(lambda m, args, kwargs, out: log.append(("kwargs", kwargs["factor"])),
                                 with_kwargs=True)
    module.register_forward_hook(lambda m, args, out: out + 1.0)
    module.register_forward_hook(lambda m, args, out: log.append(("sees replaced", values(out))))
    log.append(("result", values(module(make([1.0, 2.0]), factor=2.0))))
    return log


def test_replaced_arguments_kwargs_and_outputs_are_what_pytorch_passes_on():
    logs = {name: replace_scenario(lib, make) for name, lib, make in libraries()}
    assert logs["torchlight"] == logs["torch"]
    assert logs["torch"][-1] == ("result", [21.0, 41.0])


def always_call_scenario(lib, make):
    log = []

    class Broken(lib.nn.Module):
        def forward(self, x):
            raise ValueError("broken forward")

    module = Broken()
    module.register_forward_hook(lambda m, args, out: log.append(("plain", out)))
    module.register_forward_hook(lambda m, args, out: log.append(("always", out)), always_call=True)
    with pytest.raises(ValueError, match="broken forward"):
        module(make([1.0]))
    return log


def test_an_always_call_hook_runs_when_forward_raises_and_the_error_propagates():
    logs = {name: always_call_scenario(lib, make) for name, lib, make in libraries()}
    assert logs["torchlight"] == logs["torch"] == [("always", None)]


def test_a_with_kwargs_pre_hook_must_return_args_and_kwargs():
    layer = tl.nn.Identity()
    layer.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"forward pre-hook must return None or a tuple of \(new_args, new_kwargs\)"):
        layer(tl.ones(1))


def test_remove_twice_is_harmless_and_a_handle_is_a_context_manager():
    layer = tl.nn.ReLU()
    seen = []
    with layer.register_forward_hook(lambda m, args, out: seen.append(1)) as handle:
        layer(tl.ones(1))
    assert isinstance(handle, RemovableHandle)  # (the one Tensor.register_hook returns)
    handle.remove()
    handle.remove()
    layer(tl.ones(1))
    assert seen == [1] and not layer._forward_hooks and not layer._hook_ids


def test_handles_have_distinct_ids_and_removing_one_keeps_the_others():
    layer = tl.nn.ReLU()
    seen = []
    first = layer.register_forward_hook(lambda m, args, out: seen.append("first"))
    layer.register_forward_hook(lambda m, args, out: seen.append("second"))
    assert first.id != layer.register_forward_pre_hook(lambda m, args: None).id
    first.remove()
    layer(tl.ones(1))
    assert seen == ["second"]


def test_a_hook_that_is_not_callable_is_refused_before_anything_is_registered():
    layer = tl.nn.ReLU()
    with pytest.raises(TypeError, match="register_forward_hook: the hook must be callable, not int"):
        layer.register_forward_hook(3)
    assert not layer._forward_hooks and not layer._hook_ids


def test_a_module_without_hooks_calls_forward_directly(monkeypatch):
    def hooked_path(self, args, kwargs):
        raise AssertionError("the hooks' path was taken")

    monkeypatch.setattr(tl.nn.Module, "_call_with_hooks", hooked_path)
    layer = tl.nn.ReLU()
    assert layer(tl.ones(1)).tolist() == [1.0]
    handle = layer.register_forward_hook(lambda m, args, out: None)
    with pytest.raises(AssertionError, match="hooks' path"):
        layer(tl.ones(1))
    handle.remove()
    assert layer(tl.ones(1)).tolist() == [1.0]  # (removed: the direct call again)


def test_a_module_whose_init_never_ran_can_be_called_but_not_hooked():
    class NoInit(tl.nn.Module):
        def __init__(self):
            pass

        def forward(self, x):
            return x + 1

    module = NoInit()
    assert module(1) == 2
    with pytest.raises(AttributeError, match=r"Module.__init__\(\) has not run"):
        module.register_forward_hook(lambda m, args, out: None)


def test_a_compiled_function_calling_a_hooked_module_is_refused_a_replay_would_skip_the_hooks():
    layer = tl.nn.Linear(2, 2)
    compiled = tl.compile(lambda x: layer(x).sum())
    assert compiled(tl.ones(1, 2)).item() == layer(tl.ones(1, 2)).sum().item()  # (no hooks: compiled as before)
    handle = layer.register_forward_hook(lambda m, args, out: None)
    with pytest.raises(tl.CompileError, match="called a module with hooks"):
        tl.compile(lambda x: layer(x).sum())(tl.ones(1, 2))
    handle.remove()
