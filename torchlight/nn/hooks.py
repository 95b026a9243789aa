"""The machinery of a Module's full backward hooks: `BackwardHookFunction` and `BackwardHooks`.

Registering a hook returns the engine's `RemovableHandle` (the one
`Tensor.register_hook` returns, re-exported here): `remove()` takes the
hook off, and does nothing the second time; `with handle:` removes it when
the block ends.

Example:
    >>> import torchlight as tl
    >>> layer = tl.nn.Linear(2, 1)
    >>> seen = []
    >>> with layer.register_full_backward_hook(lambda m, grad_input, grad_output: seen.append(len(grad_input))):
    ...     layer(tl.ones(3, 2, requires_grad=True)).sum().backward()
    >>> layer(tl.ones(3, 2, requires_grad=True)).sum().backward()   # (removed)
    >>> seen
    [1]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from torchlight import grad_mode
from torchlight.engine import Context, Function
from torchlight.engine.hooks import RemovableHandle
from torchlight.tensor import Tensor

__all__ = ["BackwardHookFunction", "BackwardHooks", "RemovableHandle"]


class BackwardHookFunction(Function):
    """The identity over a module's tensor inputs (or outputs), whose backward hands the gradients
    of all of them at once to `callback` and passes on what it returns: where a Module's full
    backward hooks (and pre-hooks) run, as PyTorch's `BackwardHookFunction`.

    `apply(callback, materialize, *tensors)`: with `materialize` False, an output that got no
    gradient gives `callback` a None (PyTorch's output side); True, zeros (its input side).
    """

    @staticmethod
    def forward(ctx: Context, callback: Callable[[tuple], tuple], materialize: bool, *tensors: Tensor) -> Any:
        ctx.callback = callback
        if len(tensors) == 1:
            return tensors[0].data
        ctx.set_materialize_grads(materialize)
        return tuple(t.data for t in tensors)

    @staticmethod
    def backward(ctx: Context, *grads: Any) -> tuple:
        return (None, None, *ctx.callback(grads))


class BackwardHooks:
    """One call of a Module with full backward hooks: the identity nodes over its positional tensor
    inputs and its outputs, and the hooks they run (PyTorch's `torch.utils.hooks.BackwardHook`).

    When the gradients of the outputs arrive (all of them: one node), the pre-hooks run and may
    replace them, and they are kept; when those of the inputs are complete (one node too), the
    hooks run with `(module, grad_input, grad_output)` and may replace `grad_input`. A module none
    of whose inputs requires grad runs its hooks when the outputs' gradients arrive, with
    `grad_input` all None (the hooks must then return None).
    """

    def __init__(self, module: Any, hooks: list[Callable], pre_hooks: list[Callable]) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple | None = None
        # per positional argument (and per output): None for a non-Tensor, else its shape, dtype, backend
        # and device, what the checks of a hook's gradients and the zeros of an input without a gradient
        # need; never the Tensor itself (this object stays in the graph as long as it lives)
        self.inputs: tuple = ()
        self.input_index: list[int] | None = None  # positions of the inputs that require grad
        self.outputs: tuple = ()
        self.output_index: list[int] | None = None

    # ------------------------------------------------------------ forward
    def setup_input_hook(self, args: tuple) -> tuple:
        """`args` with each Tensor that requires grad passed through the input identity."""
        self.inputs = tuple(_meta(a) for a in args)
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not index or not grad_mode.is_grad_enabled():
            return args
        self.input_index = index
        return _replaced(args, index, BackwardHookFunction.apply(self._input_grads, True, *(args[i] for i in index)))

    def setup_output_hook(self, result: Any) -> Any:
        """`result` (a Tensor or a tuple) with each Tensor that requires grad passed through the
        output identity."""
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        if single and not isinstance(result, Tensor):
            warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                          f"Tensors but received {type(result)}", stacklevel=3)
        self.outputs = tuple(_meta(a) for a in outputs)
        index = [i for i, a in enumerate(outputs) if isinstance(a, Tensor) and a.requires_grad]
        if not index or not grad_mode.is_grad_enabled():
            return result
        self.output_index = index
        new = _replaced(outputs, index, BackwardHookFunction.apply(self._output_grads, False,
                                                                   *(outputs[i] for i in index)))
        return new[0] if single else new

    # ----------------------------------------------------------- backward
    def _output_grads(self, grads: tuple) -> tuple:
        assert self.output_index is not None
        grad_outputs = _packed(self.output_index, grads, len(self.outputs))
        for hook in self.pre_hooks:
            replaced = hook(self.module, grad_outputs)
            if replaced is not None:
                grad_outputs = self._checked(hook, "backward pre-hook", replaced, self.outputs, "grad_output")
        self.grad_outputs = grad_outputs
        if self.input_index is None:  # no input wants a gradient: the hooks run now, with no grad_input
            grad_inputs = (None,) * len(self.inputs)
            for hook in self.hooks:
                replaced = hook(self.module, grad_inputs, grad_outputs)
                if replaced is not None and not (isinstance(replaced, tuple) and all(r is None for r in replaced)):
                    raise RuntimeError(f"backward hook {_hook_name(hook)} of {type(self.module).__name__}: none "
                                       "of the module's inputs requires grad, so the hook must return None (or "
                                       "None for every gradient)")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_index)

    def _input_grads(self, grads: tuple) -> tuple:
        assert self.input_index is not None
        if self.grad_outputs is None:  # a gradient that reached the inputs without passing the outputs
            return grads
        grad_inputs = _packed(self.input_index, grads, len(self.inputs))
        # (PyTorch's: a Tensor input that does not require grad gets zeros, a non-Tensor None)
        grad_inputs = tuple(_zeros(m) if g is None and m is not None and i not in self.input_index else g
                            for i, (m, g) in enumerate(zip(self.inputs, grad_inputs)))
        for hook in self.hooks:
            replaced = hook(self.module, grad_inputs, self.grad_outputs)
            if replaced is not None:
                grad_inputs = self._checked(hook, "backward hook", replaced, self.inputs, "grad_input")
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.input_index)

    def _checked(self, hook: Callable, kind: str, replaced: Any, like: tuple, what: str) -> tuple:
        """A hook's replacement gradients: one per entry of `like`, each None or a Tensor of that
        entry's shape and backend; a RuntimeError naming the hook, the module and the shapes otherwise."""
        where = f"{kind} {_hook_name(hook)} of {type(self.module).__name__}"
        if isinstance(replaced, Tensor):
            replaced = (replaced,)
        if not isinstance(replaced, (tuple, list)):
            raise TypeError(f"{where} returned a {type(replaced).__name__}; it must return None or a tuple of "
                            f"{len(like)} gradient(s) ({what})")
        if len(replaced) != len(like):
            raise RuntimeError(f"{where} returned an invalid number of {what}: got {len(replaced)}, but expected "
                               f"{len(like)}")
        for i, (g, a) in enumerate(zip(replaced, like)):
            if g is None:
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"{where} returned a {type(g).__name__} as {what}[{i}]; a Tensor or None is "
                                "expected")
            if a is None:
                raise RuntimeError(f"{where} returned a gradient as {what}[{i}], where the module's {what[5:]} "
                                   "is not a Tensor: None is expected there")
            shape, _, backend, _ = a
            if g.shape != shape:
                raise RuntimeError(f"{where} returned a gradient of shape {g.shape} as {what}[{i}]; expected "
                                   f"shape {shape}")
            if g.backend is not backend:
                raise RuntimeError(f"{where} returned a gradient on backend {g.backend.name!r} as {what}[{i}]; "
                                   f"expected backend {backend.name!r}")
        return tuple(replaced)


def _hook_name(hook: Any) -> str:
    """A hook as an error names it: its qualified name, or its repr."""
    return repr(getattr(hook, "__name__", None) or repr(hook))


def _meta(a: Any) -> tuple | None:
    return (a.shape, a.dtype, a.backend, a._device) if isinstance(a, Tensor) else None


def _zeros(meta: tuple) -> Tensor:
    shape, dtype, backend, device = meta
    return Tensor(backend.xp.zeros(shape, dtype=dtype, device=device), backend)


def _packed(index: list[int], values: tuple, size: int) -> tuple:
    out: list[Any] = [None] * size
    for i, v in zip(index, values):
        out[i] = v
    return tuple(out)


def _replaced(values: tuple, index: list[int], new: Any) -> tuple:
    new = new if isinstance(new, tuple) else (new,)
    out = list(values)
    for i, v in zip(index, new):
        out[i] = v
    return tuple(out)
