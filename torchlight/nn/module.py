"""`Module`: the base class of layers and models.

A Module finds its Parameters, buffers and sub-modules by attribute
assignment, and gives them back by name (`named_parameters`, `state_dict`).

Example:
    >>> import torchlight as tl
    >>> class TwoLayer(tl.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = tl.nn.Linear(4, 8)
    ...         self.out = tl.nn.Linear(8, 2)
    ...     def forward(self, x):
    ...         return self.out(self.hidden(x).relu())
    >>> model = TwoLayer()
    >>> [name for name, _ in model.named_parameters()]
    ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
    >>> model(tl.zeros(3, 4)).shape
    (3, 2)
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from torchlight import grad_mode
from torchlight.creation import tensor
from torchlight.engine.observe import observation_point
from torchlight.nn.hooks import BackwardHooks, RemovableHandle, _hook_name
from torchlight.nn.parameter import Parameter
from torchlight.tensor import Tensor

__all__ = ["Module", "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook"]

# The hooks common to every module (`register_module_forward_hook`, ...), by handle id, in the
# order they run; `_global_hook_ids` holds every id of all four, so that a call checks one table.
_global_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict[int, bool] = OrderedDict()
_global_forward_hooks_always_called: OrderedDict[int, bool] = OrderedDict()
_global_backward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_backward_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_hook_ids: OrderedDict[int, bool] = OrderedDict()
_NO_HOOKS: Mapping[int, Any] = MappingProxyType({})


def dtype_name(dtype: Any) -> str:
    """A library-neutral dtype name ("float32"), for comparing across backends."""
    if isinstance(dtype, type):  # a NumPy scalar type such as np.float64
        return dtype.__name__
    return str(dtype).split(".")[-1]


class Module:
    """Base class: subclasses set attributes in `__init__` and define `forward`.

    Calling the module calls `forward`. `training` is True until `eval()`.

    Example:
        >>> import torchlight as tl
        >>> class Scale(tl.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.factor = tl.nn.Parameter(tl.tensor([2.0]))
        ...     def forward(self, x):
        ...         return self.factor * x
        >>> model = Scale()
        >>> model(tl.tensor([1.0, 3.0])).tolist()
        [2.0, 6.0]
        >>> [name for name, _ in model.named_parameters()]
        ['factor']
        >>> model.training, model.eval().training
        (True, False)
    """

    training: bool
    # what a module has before `__init__` sets its own (no hooks: a subclass that never called
    # super().__init__() can still be called)
    _forward_pre_hooks: OrderedDict[int, Any] = _NO_HOOKS  # type: ignore[assignment]
    _forward_pre_hooks_with_kwargs: OrderedDict[int, bool] = _NO_HOOKS  # type: ignore[assignment]
    _forward_hooks: OrderedDict[int, Any] = _NO_HOOKS  # type: ignore[assignment]
    _forward_hooks_with_kwargs: OrderedDict[int, bool] = _NO_HOOKS  # type: ignore[assignment]
    _forward_hooks_always_called: OrderedDict[int, bool] = _NO_HOOKS  # type: ignore[assignment]
    _backward_pre_hooks: OrderedDict[int, Any] = _NO_HOOKS  # type: ignore[assignment]
    _backward_hooks: OrderedDict[int, Any] = _NO_HOOKS  # type: ignore[assignment]
    _hook_ids: OrderedDict[int, bool] = _NO_HOOKS  # type: ignore[assignment]

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)
        # hooks by handle id, in calling order, and their options (PyTorch's tables); `_hook_ids`
        # holds the id of every hook of the module, so that a call without hooks checks one table
        for table in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                      "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_backward_pre_hooks",
                      "_backward_hooks", "_hook_ids"):
            object.__setattr__(self, table, OrderedDict())

    # ------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:  # (a plain setting before it is fine, as in PyTorch)
            if not isinstance(value, (Parameter, Module)):
                object.__setattr__(self, name, value)
                return
            raise AttributeError(f"cannot assign {name!r} before Module.__init__() has run (call super().__init__())")
        if isinstance(value, Parameter):
            self._forget(name, keep=self._parameters)
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._forget(name, keep=self._modules)
            self._modules[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} to parameter {name!r}: "
                                f"wrap it in nn.Parameter(...) or assign None")
            self._parameters[name] = None
        elif name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign a {type(value).__name__} to buffer {name!r}: it must be a Tensor")
            self._buffers[name] = value
        elif name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} to sub-module {name!r}: "
                                f"assign a Module or None")
            self._modules[name] = None
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: OrderedDict | None = None) -> None:
        """Drop `name` from every table but `keep`, where a replaced entry keeps its place (as PyTorch:
        re-assigning a weight or a layer of a Sequential changes neither the order nor the forward)."""
        for table in (self._parameters, self._buffers, self._modules):
            if table is not keep:
                table.pop(name, None)
        self.__dict__.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        if name in ("_parameters", "_buffers", "_modules"):  # (register_buffer, repr, ... before super().__init__())
            raise AttributeError(f"{type(self).__name__} has no {name} yet: Module.__init__() has not run "
                                 f"(call super().__init__() first)")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters or name in self._buffers or name in self._modules:
            self._forget(name)
        else:
            object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register `param` (or None, a declared but absent weight) under `name`."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: {name!r} must be a Parameter or None, "
                            f"not {type(param).__name__}")
        self._check_new_name(name, self._parameters, "register_parameter")
        self._forget(name, keep=self._parameters)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None) -> None:
        """Register a Tensor that is state but not a weight (saved in state_dict)."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: {name!r} must be a Tensor or None, not {type(tensor).__name__}")
        self._check_new_name(name, self._buffers, "register_buffer")
        self._forget(name, keep=self._buffers)
        self._buffers[name] = tensor

    def add_module(self, name: str, module: Module | None) -> None:
        """Register a sub-module under `name` (what attribute assignment does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: {name!r} must be a Module, not {type(module).__name__}")
        self._check_new_name(name, self._modules, "add_module")
        self._forget(name, keep=self._modules)
        self._modules[name] = module

    def _check_new_name(self, name: Any, table: OrderedDict, op: str) -> None:
        """A name to register in `table`, checked as PyTorch does (KeyError): a non-empty str without
        a "." (state_dict joins names with dots: "0.weight" would pass for layer 0's weight), and not
        already an attribute of another kind (a parameter would silently turn into a buffer)."""
        if not isinstance(name, str):
            raise TypeError(f"{op}: the name must be a str, not {type(name).__name__}")
        if not name or "." in name:
            raise KeyError(f"{op}: a name must be non-empty and contain no '.', not {name!r}")
        if name not in table and hasattr(self, name):
            raise KeyError(f"{op}: attribute {name!r} already exists")

    # ------------------------------------------------------------- calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._hook_ids or _global_hook_ids:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _run_forward_hook(self, hook_id: int, hook: Callable[..., Any], args: tuple, kwargs: dict[str, Any],
                          result: Any) -> Any:
        """`result` after one forward hook (with the call's kwargs if it was registered with_kwargs)."""
        if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
            replaced = hook(self, args, kwargs, result)
        else:
            replaced = hook(self, args, result)
        return result if replaced is None else replaced

    def _call_with_hooks(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        """`forward` between its hooks, in PyTorch's order: the forward pre-hooks (the global ones
        first, each in registration order), the backward hooks' identity over the inputs, `forward`,
        the forward hooks (global first), the backward hooks' identity over the outputs. A forward
        hook registered with `always_call=True` also runs when `forward` (or a hook) raised."""
        result = None
        called: set[int] = set()
        try:
            for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    replaced = hook(self, args, kwargs)
                    if replaced is not None:
                        if not (isinstance(replaced, tuple) and len(replaced) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {replaced!r}.")
                        args, kwargs = replaced
                else:
                    replaced = hook(self, args)
                    if replaced is not None:
                        args = replaced if isinstance(replaced, tuple) else (replaced,)
            backward = None
            if self._backward_hooks or self._backward_pre_hooks or _global_backward_hooks or \
                    _global_backward_pre_hooks:
                backward = BackwardHooks(self, [*_global_backward_hooks.values(), *self._backward_hooks.values()],
                                         [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()])
                args = backward.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                    called.add(hook_id)
                result = self._run_forward_hook(hook_id, hook, args, kwargs, result)
            if backward is not None:
                result = backward.setup_output_hook(result)
            return result
        except Exception:
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in called or not (hook_id in self._forward_hooks_always_called
                                             or hook_id in _global_forward_hooks_always_called):
                    continue
                try:
                    result = self._run_forward_hook(hook_id, hook, args, kwargs, result)
                except Exception as exc:  # (the first error is the one to see; PyTorch warns of this one)
                    warnings.warn(f"module forward hook {_hook_name(hook)} with always_call=True raised an "
                                  f"exception that was silenced as another error was raised in forward: {exc}",
                                  stacklevel=2)
            raise

    # ---------------------------------------------------------------- hooks
    def _hook_table(self, name: str, op: str) -> OrderedDict:
        table = self.__dict__.get(name)
        if table is None:
            raise AttributeError(f"{op}: {type(self).__name__} has no hook tables yet: Module.__init__() has not "
                                 f"run (call super().__init__() first)")
        return table

    def _add_hook(self, name: str, hook: Any, op: str, prepend: bool, options: tuple[str, ...] = ()) -> RemovableHandle:
        if not callable(hook):
            raise TypeError(f"{op}: the hook must be callable, not {type(hook).__name__}")
        table = self._hook_table(name, op)
        extras = [self._hook_table(option, op) for option in options]
        handle = RemovableHandle(table, *extras, self._hook_ids)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        self._hook_ids[handle.id] = True
        return handle

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Call `hook(module, args)` before each `forward` (`hook(module, args, kwargs)` with
        `with_kwargs=True`), as PyTorch.

        The hook may return replacement arguments: a tuple, or a single value
        (made a 1-tuple); with `with_kwargs`, a pair `(args, kwargs)`. Hooks
        run in registration order (`prepend=True` puts this one first), after
        the global ones (`register_module_forward_pre_hook`). Returns a
        handle whose `remove()` takes the hook off.

        Example:
            >>> import torchlight as tl
            >>> layer = tl.nn.Linear(2, 1)
            >>> handle = layer.register_forward_pre_hook(lambda m, args: args[0] * 0.0)
            >>> layer(tl.ones(1, 2)).tolist() == [[layer.bias.item()]]
            True
            >>> handle.remove()
        """
        options = ("_forward_pre_hooks_with_kwargs",)
        handle = self._add_hook("_forward_pre_hooks", hook, "register_forward_pre_hook", prepend, options)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Call `hook(module, args, output)` after each `forward` (`hook(module, args, kwargs,
        output)` with `with_kwargs=True`), as PyTorch.

        A hook that returns something other than None replaces the output
        (for the next hooks and the caller). `args` are the positional
        arguments `forward` got (after the pre-hooks). Order as
        `register_forward_pre_hook`; with `always_call=True` the hook also
        runs when `forward` raised (an error of the hook itself is then a
        warning, and the first error propagates).

        Example:
            >>> import torchlight as tl
            >>> seen = []
            >>> relu = tl.nn.ReLU()
            >>> with relu.register_forward_hook(lambda m, args, out: seen.append(out.shape)):
            ...     _ = relu(tl.zeros(2, 3))
            >>> _ = relu(tl.zeros(4))      # the hook is off again
            >>> seen
            [(2, 3)]
        """
        options = ("_forward_hooks_with_kwargs", "_forward_hooks_always_called")
        handle = self._add_hook("_forward_hooks", hook, "register_forward_hook", prepend, options)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """Call `hook(module, grad_output)` when the gradients of this module's outputs are known, as
        PyTorch: it may return replacements (a tuple, one per output, or a Tensor for one output)
        that flow on into the module instead.

        `grad_output` has one entry per output (None for a non-Tensor, or an
        output that got no gradient). The module's inputs and outputs pass
        through an identity node (`BackwardHookFunction`) for this. Order as
        `register_forward_pre_hook` (global ones first).

        Example:
            >>> import torchlight as tl
            >>> layer = tl.nn.Linear(2, 1)
            >>> _ = layer.register_full_backward_pre_hook(lambda m, grad_output: (grad_output[0] * 0.0,))
            >>> layer(tl.ones(1, 2)).sum().backward()
            >>> layer.weight.grad.tolist()
            [[0.0, 0.0]]
        """
        return self._add_hook("_backward_pre_hooks", hook, "register_full_backward_pre_hook", prepend)

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """Call `hook(module, grad_input, grad_output)` once per backward through this module, when the
        gradients of its positional Tensor inputs are complete, as PyTorch.

        `grad_input` has one entry per positional argument: the gradient
        reaching it (zeros for a Tensor that does not require grad, as
        PyTorch gives; None for a non-Tensor); `grad_output` one per output.
        The hook may return a replacement `grad_input` (a tuple of the same
        length; None entries pass nothing on), which flows on instead; a
        gradient of the wrong shape or backend, or the wrong number of them,
        is a RuntimeError naming the hook, the module and the shapes. If no
        input requires grad, the hook runs when the outputs' gradients
        arrive, with `grad_input` all None. Keyword arguments get no gradient here.

        Example:
            >>> import torchlight as tl
            >>> layer = tl.nn.Linear(2, 1)
            >>> seen = []
            >>> hook = lambda m, grad_input, grad_output: seen.append((grad_input[0].shape, grad_output[0].shape))
            >>> _ = layer.register_full_backward_hook(hook)
            >>> layer(tl.ones(3, 2, requires_grad=True)).sum().backward()
            >>> seen
            [((3, 2), (3, 1))]
        """
        return self._add_hook("_backward_hooks", hook, "register_full_backward_hook", prepend)

    # ------------------------------------------------------------ traversal
    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, sub-module) pairs; a sub-module registered under two names comes once (as PyTorch)."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, prefix: str = "", remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """This module and every sub-module, pre-order, with dotted names: each once, or with
        `remove_duplicate=False` once under every name it has (as `state_dict` names them, and PyTorch)."""
        seen: set[int] = set()
        stack: list[tuple[str, Module, frozenset[int]]] = [(prefix, self, frozenset())]
        while stack:
            name, module, above = stack.pop()
            if id(module) in seen or id(module) in above:  # (`above`: a module inside itself is no new name)
                continue
            if remove_duplicate:
                seen.add(id(module))
            path = above if remove_duplicate else above | {id(module)}
            children = [(f"{name}.{n}" if name else n, m, path) for n, m in module._modules.items() if m is not None]
            yield name, module
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def _named_members(self, table: str, prefix: str, recurse: bool) -> Iterator[tuple[str, Any]]:
        # (Any: the members are of `table`'s kind, Parameters for _parameters, Tensors for _buffers)
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield (f"{module_name}.{name}" if module_name else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, Parameter) pairs; a Parameter shared by two modules comes once."""
        yield from self._named_members("_parameters", prefix, recurse)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call `fn` on every sub-module, then on this one (e.g. to re-initialise)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---------------------------------------------------------------- modes
    def train(self, mode: bool = True) -> Module:
        """Set training mode (Dropout drops) on this module and all below, each child through its own
        `train()`, so a sub-module that overrides it (to keep a frozen part in eval) has its way."""
        if not isinstance(mode, bool):
            raise ValueError(f"train: the training mode is expected to be boolean, not {mode!r}")
        object.__setattr__(self, "training", mode)
        for module in self.children():  # each child's own train(), so an override (a frozen part) holds, as PyTorch
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode: `train(False)`."""
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (or set it to zeros)."""
        for param in self.parameters():
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.zero_grad_()

    # ---------------------------------------------------------------- state
    def state_dict(self) -> OrderedDict[str, Tensor]:
        """Every parameter and buffer by dotted name, detached (no copy).

        A sub-module registered under two names (tied layers) appears under
        both, as in PyTorch, so checkpoints of tied models load either way.
        """
        state: OrderedDict[str, Tensor] = OrderedDict()
        for module_name, module in self.named_modules(remove_duplicate=False):
            for table in (module._parameters, module._buffers):
                for name, value in table.items():
                    if value is not None:
                        state[f"{module_name}.{name}" if module_name else name] = value.detach()
        return state

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True) -> tuple[list[str], list[str]]:
        """Copy `state_dict`'s values into this module's parameters and buffers.

        Names, shapes and dtypes are all checked before anything changes; a
        mismatch raises ValueError naming every offending entry. With
        `strict=False` missing and unexpected names are allowed. Values move
        to each parameter's own backend and device. Returns (missing, unexpected).
        """
        if not isinstance(state_dict, Mapping):  # (a list of pairs would match no name and, non-strict, load nothing)
            raise TypeError(f"load_state_dict: expected a mapping of names to arrays, not {type(state_dict).__name__}")
        own = self._state_slots()
        missing = [name for name in own if name not in state_dict]
        unexpected = [name for name in state_dict if name not in own]
        problems = []
        if strict and missing:
            problems.append(f"missing entries: {', '.join(missing)}")
        if strict and unexpected:
            problems.append(f"unexpected entries: {', '.join(unexpected)}")
        for name, (module, attr) in own.items():
            if name not in state_dict:
                continue
            target, value = getattr(module, attr), state_dict[name]
            if not (hasattr(value, "shape") and hasattr(value, "dtype")):  # (as PyTorch: no lists or numbers)
                problems.append(f"{name}: a {type(value).__name__} in the state dict, not a Tensor or an array")
                continue
            shape, dtype = tuple(value.shape), dtype_name(value.dtype)
            if shape != target.shape:
                problems.append(f"{name}: shape {shape} in the state dict, {target.shape} in the model")
            elif dtype != dtype_name(target.dtype):
                problems.append(f"{name}: dtype {dtype} in the state dict, {dtype_name(target.dtype)} in the model")
        if problems:
            raise ValueError(f"load_state_dict into {type(self).__name__}: " + "; ".join(problems))
        for name, (module, attr) in own.items():
            if name in state_dict:
                target, value = getattr(module, attr), state_dict[name]
                value = value.data if isinstance(value, Tensor) else value  # (a parameter of another model too)
                data = tensor(value, backend=target.backend, device=target._device).data
                # always a copy, as PyTorch's copy_: an array brought over (a torch tensor through NumPy)
                # may still share the source's memory, and a later write to either would reach the other
                data = target.backend.copy(data)
                target._replace_data(data)
        return missing, unexpected

    def _state_slots(self) -> OrderedDict[str, tuple[Module, str]]:
        slots: OrderedDict[str, tuple[Module, str]] = OrderedDict()
        for module_name, module in self.named_modules(remove_duplicate=False):
            for table in (module._parameters, module._buffers):
                for name, value in table.items():
                    if value is not None:
                        slots[f"{module_name}.{name}" if module_name else name] = (module, name)
        return slots

    # ------------------------------------------------------------ placement
    def to(self, backend: Any = None, device: Any = None, dtype: Any = None) -> Module:
        """Move every parameter, gradient and buffer to `backend`/`device`, and cast the floating ones
        to `dtype` (PyTorch's `model.to(torch.float32)`; integer buffers keep theirs), in place.

        The Parameter objects stay the same (an optimizer made before still
        holds them); their arrays move as `Tensor.to` moves them. A tensor
        already there keeps its array, so a pending backward still runs.

        Example:
            >>> import torchlight as tl
            >>> layer = tl.nn.Linear(2, 3).to(dtype="float32")
            >>> layer.weight.dtype == tl.float32, layer.double().bias.dtype == tl.float64
            (True, True)
        """
        if dtype is not None and not _floating_name(dtype):
            raise TypeError(f"Module.to: dtype must be a floating dtype, not {dtype!r} (PyTorch's rule)")
        with grad_mode.no_grad():
            for tensor in [*self.parameters(), *self.buffers()]:
                moved = tensor.to(backend=backend, device=device)
                cast = dtype is not None and moved.backend.is_floating(moved.dtype)
                if cast:
                    moved = moved.astype(dtype)
                if moved.data is tensor.data:
                    continue
                grad = tensor._grad
                tensor.backend = moved.backend
                tensor._replace_data(moved.data)
                if grad is not None:
                    grad = grad.to(backend=backend, device=device)
                    tensor._grad = grad.astype(dtype) if cast else grad
        return self

    def float(self) -> Module:
        """`to(dtype="float32")`: every floating parameter and buffer as float32."""
        return self.to(dtype="float32")

    def double(self) -> Module:
        """`to(dtype="float64")`."""
        return self.to(dtype="float64")

    def half(self) -> Module:
        """`to(dtype="float16")`, on a backend that has float16."""
        return self.to(dtype="float16")

    # ---------------------------------------------------------------- repr
    def extra_repr(self) -> str:
        """The one-line settings shown inside this module's repr."""
        return ""

    def __repr__(self) -> str:
        """PyTorch's layout: a one-line extra_repr and no sub-modules stay on one line; otherwise
        each line of extra_repr, then each sub-module (None too, as Sequential counts it), indented."""
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + repr(module).replace("\n", "\n  ") for name, module in self._modules.items()]
        head = f"{type(self).__name__}("
        if len(extra_lines) <= 1 and not child_lines:
            return head + extra + ")"
        return head + "\n  " + "\n  ".join(extra_lines + child_lines) + "\n)"


def _add_global_hook(table: OrderedDict, hook: Any, op: str, options: tuple[OrderedDict, ...] = ()) -> RemovableHandle:
    if not callable(hook):
        raise TypeError(f"{op}: the hook must be callable, not {type(hook).__name__}")
    handle = RemovableHandle(table, *options, _global_hook_ids)
    table[handle.id] = hook
    _global_hook_ids[handle.id] = True
    return handle


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A forward pre-hook of every module, run before each module's own (`Module.register_forward_pre_hook`).

    For debugging and profiling, as PyTorch's: it is global state.

    Example:
        >>> import torchlight as tl
        >>> names = []
        >>> with register_module_forward_pre_hook(lambda m, args: names.append(type(m).__name__)):
        ...     _ = tl.nn.Sequential(tl.nn.Linear(2, 2), tl.nn.Tanh())(tl.zeros(1, 2))
        >>> names
        ['Sequential', 'Linear', 'Tanh']
    """
    return _add_global_hook(_global_forward_pre_hooks, hook, "register_module_forward_pre_hook")


def register_module_forward_hook(hook: Callable[..., Any], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook of every module, run before each module's own (`Module.register_forward_hook`).

    Example:
        >>> import torchlight as tl
        >>> shapes = []
        >>> with register_module_forward_hook(lambda m, args, out: shapes.append(out.shape)):
        ...     _ = tl.nn.Sequential(tl.nn.Linear(2, 3), tl.nn.Tanh())(tl.zeros(1, 2))
        >>> shapes     # (the inner modules finish first)
        [(1, 3), (1, 3), (1, 3)]
    """
    handle = _add_global_hook(_global_forward_hooks, hook, "register_module_forward_hook",
                              (_global_forward_hooks_with_kwargs, _global_forward_hooks_always_called))
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A backward pre-hook of every module, run before each module's own
    (`Module.register_full_backward_pre_hook`).

    Example:
        >>> import torchlight as tl
        >>> seen = []
        >>> model = tl.nn.Sequential(tl.nn.Linear(2, 2), tl.nn.Tanh())
        >>> with register_module_full_backward_pre_hook(lambda m, go: seen.append((type(m).__name__, go[0].shape))):
        ...     model(tl.ones(1, 2, requires_grad=True)).sum().backward()
        >>> seen        # (each module's gradient of its output, outermost first)
        [('Sequential', (1, 2)), ('Tanh', (1, 2)), ('Linear', (1, 2))]
    """
    return _add_global_hook(_global_backward_pre_hooks, hook, "register_module_full_backward_pre_hook")


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A full backward hook of every module, run before each module's own
    (`Module.register_full_backward_hook`).

    Example:
        >>> import torchlight as tl
        >>> names = []
        >>> model = tl.nn.Sequential(tl.nn.Linear(2, 2), tl.nn.Tanh())
        >>> with register_module_full_backward_hook(lambda m, gi, go: names.append(type(m).__name__)):
        ...     model(tl.ones(1, 2, requires_grad=True)).sum().backward()
        >>> names       # (the backward meets the outer module's inputs last)
        ['Tanh', 'Linear', 'Sequential']
    """
    return _add_global_hook(_global_backward_hooks, hook, "register_module_full_backward_hook")


# a compiled program is for the training modes of the Modules it calls (`tl.compile` sees them here)
observation_point(Module, "__call__", "module", "called a module")
# hooks are Python a replay of a compiled program would skip: a recording refuses them
observation_point(Module, "_call_with_hooks", "refused", "called a module with hooks (a replay would not run them)")


def _floating_name(dtype: Any) -> bool:
    """Whether `dtype` (a name, a NumPy or torchlight dtype) names a floating dtype."""
    name = str(getattr(dtype, "name", dtype))
    return name.replace("torch.", "") in ("float16", "float32", "float64", "bfloat16", "half", "float", "double")
