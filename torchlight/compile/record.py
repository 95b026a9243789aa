"""Recording one call of `fn`, and the backward of its graph, for `build` to turn into a program.

`record(fn, args)` runs `fn` once on traced copies of its Tensor arguments
with the graph recorded, walks that graph's backward as the engine would
(each node's backward recorded, as `create_graph=True` does) and returns
the `Recording`: the forward and backward Histories in order, the tensors
from outside `fn`, and which nodes must run as in eager mode (opaque).

Recording has to see what `fn` does that leaves no trace in the graph (a
tensor made by no recorded op, a conversion to a Python value, an in-place
write, a backward, the Modules it calls): `Watch` is the engine's `Observer`
of those (`torchlight.engine.observe`), whose observation points Tensor,
History and Module declare where those methods are defined.
"""

from __future__ import annotations

import contextlib
import numbers
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, final

import numpy as np

from torchlight import backends, grad_mode
from torchlight.compile.program import LOCK, Replay
from torchlight.engine import History
from torchlight.engine.graph import feeding_nodes, sort_nodes
from torchlight.engine.observe import Observer, observing
from torchlight.nn.module import Module
from torchlight.tensor import Tensor, is_number_constant

__all__ = ["CompileError", "OpaqueBackward", "Recording", "Watch", "record"]


class CompileError(RuntimeError):
    """`fn` does something a replay of its recorded ops could not reproduce."""

    __module__ = "torchlight"  # its public name, tl.CompileError (as tracebacks show it)


class Watch(Observer):
    """What recording sees while `fn` runs (through the engine's observation points): every Tensor
    and graph node made (a replay cannot remake one made outside the recorded ops), the Modules
    called, what a replay would not redo, and every conversion of a traced tensor to Python."""

    def __init__(self) -> None:
        self.born: dict[int, Any] = {}  # id -> weak reference (a WeakSet would compare Tensors with ==)
        self.traced: set[int] = set()   # ids of the recording's own argument tensors
        self.modules: dict[Module, None] = {}  # the Modules called: a program is for their training modes
        self.histories: dict[int, Any] = {}  # the Histories made while fn runs (id -> weak reference)
        self.refusal: str | None = None  # what fn did that no replay does (a write, a backward), if it did

    def is_born(self, t: Tensor) -> bool:
        ref = self.born.get(id(t))
        return ref is not None and ref() is t

    def made_here(self, h: History) -> bool:
        ref = self.histories.get(id(h))
        return ref is not None and ref() is h

    def tensor_made(self, t: Any) -> None:
        self.born[id(t)] = weakref.ref(t)

    def node_made(self, node: Any) -> None:
        self.histories[id(node)] = weakref.ref(node)

    def module_called(self, module: Any) -> None:
        self.modules[module] = None

    def refused(self, what: str) -> None:
        if self.refusal is None:  # what fn did first is the cause
            self.refusal = what

    def conversion(self, t: Any, name: str) -> None:
        if id(t) in self.traced or (self.is_born(t) and not is_number_constant(t)):
            raise CompileError(
                f"compile: fn converts a traced tensor to a Python value (Tensor.{name}): a replay "
                f"would reuse the value of the first call. Keep that computation in tensor ops, or "
                f"call the function without compile"
            )


@final  # never subclassed: `type(entry) is OpaqueBackward` tells it from a History
class OpaqueBackward(NamedTuple):
    """In a recorded backward, the backward of a node that runs as in eager mode (`Recording._opaque`)."""

    node: History  # the forward node, replayed with a Context of its own on each call
    grad: Tensor  # the gradient of its result that it is given


def _holds_array(value: Any) -> bool:
    """Whether a non-Tensor argument of an op holds an array (data that a replay would reuse)."""
    if isinstance(value, (tuple, list)):
        return any(_holds_array(v) for v in value)
    if isinstance(value, np.generic):  # a NumPy scalar: most often read out of a tensor (x[x.argmax()])
        return True
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, numbers.Number)


def record(fn: Callable[..., Tensor], args: tuple) -> Recording:
    """Run `fn` with its graph (and its backward's) recorded.

    The random streams are put back as they were (the backends' own, and a
    NumPy Generator among the arguments): the replay that follows draws the
    call's numbers, as an uncompiled call would.
    """
    with LOCK, _random_streams_kept(args):
        return Recording().record(fn, args)


@contextlib.contextmanager
def _random_streams_kept(args: tuple) -> Iterator[None]:
    made = backends.instances()
    states = [b.random_state() for b in made]
    generators = [(a, a.bit_generator.state) for a in args if isinstance(a, np.random.Generator)]
    try:
        yield
    finally:
        for backend, state in zip(made, states):
            backend.set_random_state(state)
        for generator, state in generators:
            generator.bit_generator.state = state


class Recording:
    """One call of `fn` and its backward, recorded (`build` turns it into steps).

    Every value is keyed by what stands for it in the graph: a History for
    an op's result, the Tensor itself for a leaf. `known` holds the keys that
    become registers; any other leaf an op reads is a tensor from outside,
    read afresh on every call (a parameter, a constant), unless it was made
    while `fn` ran, which a replay could not do again.
    """

    def __init__(self) -> None:
        self.watch = Watch()
        self.known: set[Any] = set()
        self.forward: list[History] = []
        self.backward: list[History | OpaqueBackward] = []  # in order; an opaque node's backward as one
        self.opaque: dict[History, list] = {}    # a forward node replayed as a call -> (position, register key)
        self.params: list[Tensor] = []
        self.outside: dict[Tensor, None] = {}    # the leaves from outside fn, in order
        self.results: dict[Tensor, Tensor] = {}  # each gradient target -> the recorded gradient
        self.out: Tensor | None = None           # fn's result
        self.inputs: list[Tensor] = []           # the traced copies of fn's Tensor arguments
        self.wants: list[bool] = []              # per input: whether the caller's requires grad
        self.seed: Tensor | None = None          # the backward's seed (None: no backward recorded)

    def record(self, fn: Callable[..., Tensor], args: tuple) -> Recording:
        """Run `fn` on traced copies of its Tensor arguments, then its backward; `self`, filled in."""
        watch, traced_args, inputs, wants = self.watch, [], [], []
        for a in args:
            if isinstance(a, Tensor):
                t = Tensor(a.data, a.backend)
                t.requires_grad = a.backend.is_floating(a.data.dtype)  # so that every op on it is recorded
                watch.traced.add(id(t))
                self.known.add(t)
                inputs.append(t)
                wants.append(a.requires_grad)
                traced_args.append(t)
            else:
                traced_args.append(a)
        with observing(watch), grad_mode.enable_grad():
            try:
                out = fn(*traced_args)
            except Exception:
                if watch.refusal is not None:  # what fn did first is the cause, not what failed after it
                    raise CompileError(f"compile: fn {watch.refusal}: a replay would not do it again") from None
                raise
            if watch.refusal is not None:
                raise CompileError(f"compile: fn {watch.refusal}: a replay would not do it again")
            if not isinstance(out, Tensor):
                raise CompileError(f"compile: fn must return one Tensor, not {type(out).__name__}")
            if out.history is None and out not in self.known and not watch.is_born(out):
                raise CompileError("compile: fn returns a tensor it did not compute from its arguments (one "
                                   "from outside, or made without recorded ops); there is nothing to replay")
            self._collect([out], self.forward, "forward")
            targets = [t for t, w in zip(inputs, wants) if w] + self.params
            seed = self._record_backward(out, targets) if targets and out.requires_grad else None
        self.out, self.inputs, self.wants, self.seed = out, inputs, wants, seed
        return self

    def _collect(self, roots: list[Tensor], into: list[Any], phase: str) -> bool:
        """Append the unknown Histories feeding `roots` to `into`, leaves first.

        False (nothing appended) if one of them reads what a replay could not
        remake; in the forward that is a CompileError.
        """
        new: list[History] = []
        seen: set[Any] = set()
        emit = object()
        stack = [r.graph_node for r in roots]
        while stack:
            node = stack.pop()
            if node is emit:
                new.append(stack.pop())
                continue
            if node in seen or node in self.known:
                continue
            seen.add(node)
            if type(node) is not History:
                if not self._outside(node, phase):
                    return False
                continue
            if not self.watch.made_here(node):
                return _refuse(phase, "a tensor computed before the call, with a graph of its own (as w2 = w * 2 "
                                      "outside fn): a replay would compute it again from what it was made of. Compute "
                                      "it inside fn, or pass it as an argument")
            if getattr(node.last_fn, "_user_function", None) is not None:
                return _refuse(phase, f"a Function with several outputs ({node.last_fn.__name__}): a compiled "
                                      "program replays ops of one output. Call the function without compile")
            stack += (node, emit)
            for e in reversed(node.edges):
                if isinstance(e, (History, Tensor)):
                    stack.append(e)
                elif _holds_array(e):
                    return _refuse(phase, f"an op ({node.last_fn.__name__}) that takes an array as an argument "
                                          f"(an integer or boolean index, embedding, nll_loss, cross_entropy with "
                                          f"weights or ignored labels); a replay would reuse the first call's. "
                                          f"Call the function without compile")
        into.extend(new)
        self.known.update(new)
        return True

    def _outside(self, t: Tensor, phase: str) -> bool:
        """A leaf from outside `fn`: read afresh each call. One made while `fn` ran is refused."""
        if self.watch.is_born(t) and not is_number_constant(t):
            return _refuse(phase, "a tensor made while it ran that no recorded op made: a comparison, argmax, "
                                  "astype to an integer, detach(), an op under no_grad, a factory such as tl.ones, "
                                  "a tensor made from a traced value, or an op on constants only. Make such a "
                                  "tensor before the call and pass it as an argument, or call fn without compile")
        if t not in self.outside and not is_number_constant(t):
            self.outside[t] = None
            if t.requires_grad and phase == "forward":
                self.params.append(t)
        return True

    def _record_backward(self, out: Tensor, targets: list[Tensor]) -> Tensor:
        """Walk the graph as the engine does, each node's backward recorded (create_graph)."""
        seed = Tensor(out.backend.xp.ones_like(out.data), out.backend)
        seed.requires_grad = True  # so that every op on the gradient is recorded
        self.known.add(seed)
        root = out.graph_node
        captured = set(targets)
        order = sort_nodes([root])
        feeding = feeding_nodes(order, captured)
        grads: dict[Any, Tensor] = {root: seed}
        while order:
            node = order.pop()
            d = grads.pop(node, None)
            if d is None:
                continue
            if type(node) is not History:
                if node in captured:
                    self.results[node] = d
                continue
            if node not in feeding:
                continue
            if node.last_fn is Replay:  # a compiled function inside: its backward records nothing
                with grad_mode.no_grad():
                    pairs = node.chain_rule(d, retain_graph=True)
            else:
                pairs = node.chain_rule(d, retain_graph=True)
            pairs = [(p, g) for p, g in pairs if p in feeding or p in captured]
            if node.last_fn is Replay or not self._collect([g for _, g in pairs], self.backward, "backward"):
                pairs = self._opaque(node, d, pairs)
            for parent, g in pairs:
                total = grads.get(parent)
                if total is not None:
                    g = total + g
                    self._collect([g], self.backward, "backward")
                grads[parent] = g
        return seed

    def _opaque(self, node: History, d: Tensor, pairs: list) -> list:
        """Keep `node`'s backward as a call: a register leaf stands for each gradient it gives."""
        out = []
        positions, start = [], 0
        assert node.ctx is not None, f"compile: a recorded node of {node.last_fn} without a Context"
        needs = node.ctx.needs_input_grad
        for parent, g in pairs:
            i = start
            while not (needs[i] and node.edges[i] is parent):
                i += 1
            positions.append(i)
            start = i + 1
            r = Tensor(g.data, g.backend)
            r.requires_grad = True
            self.known.add(r)
            out.append((parent, r))
        self.opaque[node] = [(i, r) for i, (_, r) in zip(positions, out)]
        self.backward.append(OpaqueBackward(node, d))
        return out


def _refuse(phase: str, what: str) -> bool:
    if phase == "forward":
        raise CompileError(f"compile: fn uses {what}")
    return False


