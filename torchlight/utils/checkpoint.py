"""Gradient checkpointing: keep a function's inputs, recompute its inside in backward.

`checkpoint(fn, *args)` runs `fn` and keeps only its tensor arguments (and
its result); whatever `fn` computed inside is freed as it would be under
`no_grad`. The backward runs `fn` again with gradients on, from the saved
arguments and with the random streams put back as they were, so a dropout
inside draws the same mask, and backpropagates through that second run.
Memory goes down from every activation of `fn` to its inputs, at the price
of a second forward. `checkpoint_sequential(functions, segments, input)`
does this for each of `segments` runs of layers of a Sequential.

The gradients are those of the plain run, for the arguments and for every
parameter `fn` uses (a Module's weights: leaves that `fn` reaches without
being given them), also through `torchlight.autograd.grad` (nothing then
lands in `.grad`) and `create_graph=True`. As in PyTorch's non-reentrant
variant; how (docs/decisions.md, "Checkpointing"):

1. `fn` runs once with gradients recorded, on detached copies of its
   tensor arguments, noting every graph node it makes (an observation
   point, `torchlight.engine.observe`). The nodes' inputs that it did not
   make are its boundary: the copies, and the leaves it closes over.
2. Those leaves join the arguments as the inputs of one graph node,
   `Checkpoint`, whose result is `fn`'s (the recorded graph is dropped:
   only the arguments are saved). The engine routes gradients to every
   input of that node as to any other's, so nothing is counted twice and
   nothing is accumulated behind the engine's back.
3. `Checkpoint.backward` runs `fn` again with gradients on, and asks the
   engine for the gradient reaching each input (`run_backward(...,
   capture=)`, what `autograd.grad` does), returning them.

A tensor that requires grad and was computed outside `fn` without being
passed to it (a non-leaf in a closure) is refused: pass it as an argument.

Example:
    >>> import torchlight as tl
    >>> from torchlight.utils.checkpoint import checkpoint
    >>> tl.manual_seed(0)
    >>> layer = tl.nn.Sequential(tl.nn.Linear(3, 3), tl.nn.Tanh(), tl.nn.Dropout(0.5))
    >>> x = tl.randn(2, 3, requires_grad=True)
    >>> y = checkpoint(layer, x, use_reentrant=False)
    >>> y.history.last_fn.__name__       # one node: the inside is recomputed in backward
    'Checkpoint'
    >>> y.sum().backward()
    >>> x.grad.shape, layer[0].weight.grad.shape
    ((2, 3), (3, 3))
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from torchlight import backends, grad_mode
from torchlight.engine import Context, Function, run_backward
from torchlight.engine.observe import Observer, observation_point, observing
from torchlight.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True, context_fn: Any = None, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, **kwargs: Any) -> Any:
    """`function(*args, **kwargs)`, keeping only its tensor arguments; recomputed in backward.

    As `torch.utils.checkpoint.checkpoint` (its non-reentrant variant,
    which is the only one here: `use_reentrant` is accepted and changes
    nothing but that, as PyTorch's reentrant variant, `use_reentrant=True`
    refuses keyword arguments for `function`). `function` returns a Tensor
    (a non-Tensor result is a TypeError). `preserve_rng_state=False`
    leaves the random streams alone: the recomputation then draws new
    numbers. `determinism_check="default"` checks that the recomputation
    gives a result of the same shape and dtype ("none": no check).
    `context_fn` and `debug` are PyTorch's hooks into its own recomputation
    and are not supported (NotImplementedError); `early_stop` changes
    nothing (the recomputation always runs whole).

    Outside grad mode (or when nothing needs a gradient) this is
    `function(*args, **kwargs)`.

    Example:
        >>> import torchlight as tl
        >>> w = tl.tensor([2.0], requires_grad=True)
        >>> x = tl.tensor([3.0], requires_grad=True)
        >>> y = checkpoint(lambda a, power: (a * w) ** power, x, 2)
        >>> y.backward(tl.ones(1))
        >>> x.grad.tolist(), w.grad.tolist()       # 2 (a w) w and 2 (a w) a
        ([24.0], [36.0])
    """
    op = "checkpoint"
    if not callable(function):
        raise TypeError(f"{op}: the function must be callable, not {type(function).__name__}")
    if use_reentrant not in (None, True, False):
        raise TypeError(f"{op}: use_reentrant must be None, True or False, not {use_reentrant!r}")
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if context_fn is not None or debug:
        raise NotImplementedError(f"{op}: context_fn and debug are PyTorch's hooks into its own recomputation; "
                                  "they are not supported here")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"{op}: determinism_check must be 'default' or 'none', not {determinism_check!r}")
    if not grad_mode.is_grad_enabled():
        result = function(*args, **kwargs)
        _checked_results(result)
        return result
    streams = _random_streams(args, kwargs) if preserve_rng_state else None
    slots, tensors = _tensor_slots(args, kwargs)
    copies = [t.detach().requires_grad_(True) if t.requires_grad else t for t in tensors]
    seen = _NodesMade()
    new_args, new_kwargs = _fill(args, kwargs, slots, copies)
    with observing(seen):
        result = function(*new_args, **new_kwargs)
    outs = _checked_results(result)
    if not any(o.requires_grad for o in outs):  # nothing inside needs a gradient: nothing to recompute
        return result
    captured = _captured_leaves(outs, seen.nodes, copies)
    seen.nodes.clear()
    # the plan keeps the arguments without their Tensors (the node's saved tensors fill them in): it
    # stays among the node's inputs as long as the graph lives, the saved tensors only until backward
    bare_args, bare_kwargs = _fill(args, kwargs, slots, [None] * len(slots))
    plan = _Plan(function, tuple(bare_args), bare_kwargs, slots, streams, determinism_check == "default", outs,
                 isinstance(result, tuple), len(tensors))
    del result, outs  # the recorded inside: freed here (only the results' arrays are kept, for `Checkpoint.forward`)
    return Checkpoint.apply(plan, *tensors, *captured)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """Run `functions` (a Sequential or a list of callables) in `segments` runs, checkpointing all but the last.

    As `torch.utils.checkpoint.checkpoint_sequential`.

    Each checkpointed run keeps only its input; the last runs normally.
    `len(functions) // segments` layers make a run (the last takes the
    remainder). `preserve_rng_state=` is the only keyword taken.

    Example:
        >>> import torchlight as tl
        >>> model = tl.nn.Sequential(*[tl.nn.Linear(4, 4) for _ in range(6)])
        >>> x = tl.ones(2, 4, requires_grad=True)
        >>> y = checkpoint_sequential(model, 3, x, use_reentrant=False)
        >>> y.history.last_fn.__name__, y.sum().backward()
        ('Linear', None)
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if not isinstance(segments, int) or isinstance(segments, bool) or segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be a positive int, not {segments!r}")
    children = getattr(functions, "children", None)
    layers = list(children()) if callable(children) else list(functions)
    size = len(layers) // segments

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for layer in layers[start:end + 1]:
                x = layer(x)
            return x

        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(layers) - 1)(input)


class Checkpoint(Function):
    """The node a checkpointed call leaves in the graph: inputs are the call's tensor arguments and
    the leaves it closes over; backward recomputes the call and backpropagates through it."""

    @staticmethod
    def forward(ctx: Context, plan: _Plan, *inputs: Tensor) -> Any:
        ctx.plan = plan
        ctx.save_for_backward(*inputs[:plan.n_arguments])
        plan.captured = inputs[plan.n_arguments:]
        outs, plan.outputs = plan.outputs, None
        if outs is None:  # (a plan is made for one call of apply)
            raise RuntimeError("Checkpoint.apply: this plan's forward result was already used")
        if not plan.several:
            return outs[0].data
        ctx.set_materialize_grads(False)  # (an output that got no gradient needs no recomputed backward)
        ctx.mark_non_differentiable(*(o.data for o in outs if not o.requires_grad))
        return tuple(o.data for o in outs)

    @staticmethod
    def backward(ctx: Context, *grad_outputs: Any) -> tuple:
        plan: _Plan = ctx.plan
        arguments = ctx.saved_tensors
        captured = plan.captured
        for leaf in captured:  # (a weight stepped by an optimizer since: the recomputation would use the new one)
            if getattr(leaf, "_replaced_at", 0) > ctx._stamp:
                raise RuntimeError("checkpoint: a parameter the checkpointed function uses (shape "
                                   f"{tuple(leaf.shape)}) was replaced since its forward ran; the recomputation "
                                   "would use the new values. Run backward before updating.")
        create_graph = grad_mode.is_grad_enabled()  # (the walk's grad mode is its create_graph)
        with _streams_put_back(plan.streams), grad_mode.enable_grad():
            # the arguments as the recomputation sees them: with create_graph, through an identity node
            # on each (its gradients then carry their history back to the arguments), else detached
            copies = [(_Boundary.apply(t) if create_graph else t.detach().requires_grad_(True))
                      if t.requires_grad else t for t in arguments]
            args, kwargs = _fill(plan.args, plan.kwargs, plan.slots, copies)
            outs = _checked_results(plan.function(*args, **kwargs))
        metas = [(o.shape, o.dtype) for o in outs]
        if plan.check and metas != plan.metas:
            raise RuntimeError(f"checkpoint: the recomputation of {_name(plan.function)} gave results of (shape, "
                               f"dtype) {_shown(metas)}, the forward {_shown(plan.metas)}: the function must compute "
                               "the same thing again")
        wanted = [c for c, t in zip(copies, arguments) if t.requires_grad] + list(captured)
        roots = [(o, g) for o, g in zip(outs, grad_outputs) if g is not None and o.requires_grad]
        grads: list[Any] = []
        if roots and wanted:
            found = run_backward([o for o, _ in roots], [g for _, g in roots], retain_graph=create_graph,
                                 create_graph=create_graph, capture=wanted)
            grads = list(found or ())
        grads += [None] * (len(wanted) - len(grads))
        it = iter(grads)
        per_argument = [next(it) if t.requires_grad else None for t in arguments]
        return (None, *per_argument, *it)


class _Boundary(Function):
    """The identity: where a recomputation under create_graph starts from an argument."""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return a.data

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Tensor:
        return g


class _Plan:
    """What a Checkpoint node needs to run its function again."""

    def __init__(self, function: Callable[..., Any], args: tuple, kwargs: dict, slots: list[tuple[bool, Any]],
                 streams: Any, check: bool, outputs: tuple[Tensor, ...], several: bool, n_arguments: int) -> None:
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.slots = slots
        self.streams = streams
        self.check = check
        self.outputs: tuple[Tensor, ...] | None = outputs  # until the node's forward has taken their arrays
        self.several = several  # the function returned a tuple
        self.metas = [(o.shape, o.dtype) for o in outputs]
        self.n_arguments = n_arguments
        self.captured: tuple = ()  # the leaves the function closes over (the node's inputs after the arguments)


class _NodesMade(Observer):
    """The graph nodes made while observing (the checkpointed function's inside)."""

    def __init__(self) -> None:
        self.nodes: set[Any] = set()

    def node_made(self, node: Any) -> None:
        self.nodes.add(node)


def _captured_leaves(outs: tuple[Tensor, ...], made: set[Any], copies: list[Tensor]) -> list[Tensor]:
    """The leaves requiring grad that the graph of `outs` reaches past the nodes in `made` (the
    function's closures: its Modules' weights), in the order first met; the arguments' copies are
    not among them. A node outside `made` that is not a leaf is a tensor computed outside the
    function and not passed to it: refused."""
    own = {id(c) for c in copies}
    found: dict[int, Tensor] = {}
    stack = [o.graph_node for o in reversed(outs) if o.requires_grad]
    seen = {id(node) for node in stack}
    while stack:
        node = stack.pop()
        if node.is_leaf:
            if id(node) not in own:
                found.setdefault(id(node), node)
            continue
        if node not in made:
            raise RuntimeError(
                f"checkpoint: the function uses a tensor computed outside it that requires grad (shape "
                f"{tuple(node.shape)}, made by {_name(node.last_fn)}) without it being passed in: pass it as an "
                "argument of checkpoint(fn, ...), so that its gradient flows through the recomputation")
        for parent in reversed(node.parents):
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return list(found.values())


def _checked_results(result: Any) -> tuple[Tensor, ...]:
    """The function's results as a tuple: a Tensor, or a non-empty tuple of Tensors; a TypeError otherwise."""
    outs = result if isinstance(result, tuple) else (result,)
    for out in outs:
        if not isinstance(out, Tensor):
            within = " within the tuple it returned" if isinstance(result, tuple) else ""
            raise TypeError(f"checkpoint: the checkpointed function returned a {type(out).__name__}{within}; it "
                            "must return a Tensor or a tuple of Tensors")
    if not outs:
        raise TypeError("checkpoint: the checkpointed function returned an empty tuple; it must return a Tensor or "
                        "a tuple of Tensors")
    return outs


def _shown(metas: list[tuple[Any, Any]]) -> str:
    return ", ".join(f"({shape}, {dtype})" for shape, dtype in metas)


def _tensor_slots(args: tuple, kwargs: dict) -> tuple[list[tuple[bool, Any]], list[Tensor]]:
    """Where the Tensors among `args` and `kwargs`' values are (positional: (False, index); keyword:
    (True, name)), and those Tensors."""
    slots: list[tuple[bool, Any]] = []
    tensors: list[Tensor] = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            slots.append((False, i))
            tensors.append(a)
    for name, v in kwargs.items():
        if isinstance(v, Tensor):
            slots.append((True, name))
            tensors.append(v)
    return slots, tensors


def _fill(args: tuple, kwargs: dict, slots: list[tuple[bool, Any]], tensors: Sequence[Any]) -> tuple[list, dict]:
    """`args` and `kwargs` with the Tensors at `slots` replaced by `tensors`."""
    new_args, new_kwargs = list(args), dict(kwargs)
    for (keyword, where), t in zip(slots, tensors):
        if keyword:
            new_kwargs[where] = t
        else:
            new_args[where] = t
    return new_args, new_kwargs


def _random_streams(args: tuple, kwargs: dict) -> list[tuple[Any, Any]]:
    """The state of every random stream the function may draw from: each backend's own, and each
    NumPy Generator among its arguments."""
    streams: list[tuple[Any, Any]] = [(b, b.random_state()) for b in backends.instances()]
    streams += [(g, g.bit_generator.state) for g in (*args, *kwargs.values()) if isinstance(g, np.random.Generator)]
    return streams


def _set_stream(stream: Any, state: Any) -> None:
    if isinstance(stream, np.random.Generator):
        stream.bit_generator.state = state
    else:
        stream.set_random_state(state)


@contextlib.contextmanager
def _streams_put_back(streams: list[tuple[Any, Any]] | None) -> Iterator[None]:
    """The streams as `streams` saw them for the block; as they were before it afterwards (the
    recomputation does not advance them: PyTorch's fork of the random state)."""
    if streams is None:
        yield
        return
    now = [(s, s.bit_generator.state if isinstance(s, np.random.Generator) else s.random_state()) for s, _ in streams]
    for stream, state in streams:
        _set_stream(stream, state)
    try:
        yield
    finally:
        for stream, state in now:
            _set_stream(stream, state)


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


# a recording (tl.compile) refuses a checkpoint: its backward runs the function again, which a replay would not
observation_point(_Plan, "__init__", "refused", "checkpointed a function (its backward runs that function again, in "
                  "Python)")
