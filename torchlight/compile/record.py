"""Recording one call of `fn`, and the backward of its graph, for `build` to turn into a program.

`record(fn, args)` runs `fn` once on traced copies of its Tensor arguments
with the graph recorded, walks that graph's backward as the engine would
(each node's backward recorded, as `create_graph=True` does) and returns
the `Recording`: the forward and backward Histories in order, the tensors
from outside `fn`, and which nodes must run as in eager mode (opaque).

Recording has to see what `fn` does that leaves no trace in the graph (a
tensor made by no recorded op, a conversion to a Python value, an in-place
write, a backward, the Modules it calls). The engine declares no hook for
that yet, so `watching` patches methods of Tensor, Module and History while
`fn` runs: that context manager is the one place that does, and `PATCHED`
lists every name it patches and why. The three private names of the engine
that recording reads are imported at the top, each marked `private`.
"""

from __future__ import annotations

import contextlib
import functools
import numbers
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, final

import numpy as np

from torchlight import backends as _backends  # private: _backends._instances, every backend made
from torchlight import grad_mode
from torchlight.compile.program import LOCK, Replay
from torchlight.engine import History
from torchlight.engine.graph import _feeding, topological_sort  # private: the engine's walk of a backward
from torchlight.nn.module import Module
from torchlight.tensor import _NUMBERS, Tensor  # private: _NUMBERS, the constants Python numbers in ops become

__all__ = ["PATCHED", "CompileError", "OpaqueBackward", "Recording", "record", "watching"]


class CompileError(RuntimeError):
    """`fn` does something a replay of its recorded ops could not reproduce."""

    __module__ = "torchlight"  # its public name, tl.CompileError (as tracebacks show it)


_CONVERSIONS = ("item", "tolist", "numpy", "__array__", "__bool__", "__float__", "__int__", "__index__",
                "__format__")

#: Every (class, name) that `watching` replaces while `fn` runs, and why.
PATCHED: dict[tuple[type, str], str] = {
    (Tensor, "_wrap"): "a Tensor made while fn runs (the engine's constructor of results): a replay remakes "
                       "only those recorded ops make",
    (Tensor, "__init__"): "the same for a Tensor made directly (a factory, tl.tensor)",
    (History, "__init__"): "the graph nodes made while fn runs: one made before has a graph a replay would "
                           "compute again",
    (Module, "__call__"): "the Modules fn calls: a program is for their training modes",
    (Tensor, "_replace_data"): "an in-place write (an optimizer step): done once, a replay would not redo it",
    (Tensor, "backward"): "a backward inside fn: the same",
    **{(Tensor, name): "a traced tensor converted to a Python value: a replay would reuse the first call's"
       for name in _CONVERSIONS},
}


class Watch:
    """What recording sees while `fn` runs (through `watching`): every Tensor made (a replay cannot
    remake one made outside the recorded ops) and every conversion to Python."""

    def __init__(self) -> None:
        self.born: dict[int, Any] = {}  # id -> weak reference (a WeakSet would compare Tensors with ==)
        self.traced: set[int] = set()   # ids of the recording's own argument tensors
        self.thread = threading.get_ident()  # the recording thread: other threads' tensors are not watched
        self.modules: dict[Module, None] = {}  # the Modules called: a program is for their training modes
        self.histories: dict[int, Any] = {}  # the Histories made while fn runs (id -> weak reference)
        self.refused: str | None = None  # what fn did that no replay does (a write, a backward), if it did

    def is_born(self, t: Tensor) -> bool:
        ref = self.born.get(id(t))
        return ref is not None and ref() is t

    def made_here(self, h: History) -> bool:
        ref = self.histories.get(id(h))
        return ref is not None and ref() is h


@contextlib.contextmanager
def watching(watch: Watch) -> Iterator[None]:
    """Each name of `PATCHED` replaced by one that tells `watch` (on the recording thread), and restored after."""
    originals = {(cls, name): cls.__dict__[name] for cls, name in PATCHED}
    wrap, init = originals[Tensor, "_wrap"].__func__, originals[Tensor, "__init__"]
    call, history_init = originals[Module, "__call__"], originals[History, "__init__"]
    born, thread = watch.born, watch.thread

    def watched_wrap(cls: type, out: Any, backend: Any) -> Tensor:
        t = wrap(cls, out, backend)
        if threading.get_ident() == thread:
            born[id(t)] = weakref.ref(t)
        return t

    def watched_init(t: Tensor, *args: Any, **kwargs: Any) -> None:
        init(t, *args, **kwargs)
        if threading.get_ident() == thread:
            born[id(t)] = weakref.ref(t)

    def watched_history(h: History, *args: Any, **kwargs: Any) -> None:
        history_init(h, *args, **kwargs)
        if threading.get_ident() == thread:
            watch.histories[id(h)] = weakref.ref(h)

    def watched_call(module: Module, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == thread:
            watch.modules[module] = None
        return call(module, *args, **kwargs)

    def refused(what: str, original: Any) -> Any:
        def call_refused(t: Tensor, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == thread and watch.refused is None:
                watch.refused = what
            return original(t, *args, **kwargs)
        return call_refused

    def refusing(name: str, original: Any) -> Any:
        @functools.wraps(original)
        def conversion(t: Tensor, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == thread and (
                    id(t) in watch.traced or (watch.is_born(t) and not _is_number_constant(t))):
                raise CompileError(
                    f"compile: fn converts a traced tensor to a Python value (Tensor.{name}): a replay "
                    f"would reuse the value of the first call. Keep that computation in tensor ops, or "
                    f"call the function without compile"
                )
            return original(t, *args, **kwargs)
        return conversion

    patches: dict[tuple[type, str], Any] = {
        (Tensor, "_wrap"): classmethod(watched_wrap),
        (Tensor, "__init__"): watched_init,
        (History, "__init__"): watched_history,
        (Module, "__call__"): watched_call,
        (Tensor, "_replace_data"): refused("replaced a tensor's values in place (an optimizer step, w -= ..., "
                                           "zero_grad_, a running statistic)", originals[Tensor, "_replace_data"]),
        (Tensor, "backward"): refused("ran a backward (loss.backward() belongs after the call)",
                                      originals[Tensor, "backward"]),
        **{(Tensor, name): refusing(name, originals[Tensor, name]) for name in _CONVERSIONS},
    }
    assert patches.keys() == PATCHED.keys()
    for (cls, name), value in patches.items():
        setattr(cls, name, value)
    try:
        yield
    finally:
        for (cls, name), value in originals.items():
            setattr(cls, name, value)


@final  # never subclassed: `type(entry) is OpaqueBackward` tells it from a History
class OpaqueBackward(NamedTuple):
    """In a recorded backward, the backward of a node that runs as in eager mode (`Recording._opaque`)."""

    node: History  # the forward node, replayed with a Context of its own on each call
    grad: Tensor  # the gradient of its result that it is given


def _is_number_constant(t: Tensor) -> bool:
    """One of the cached constants a Python number in an op is lifted to (made from the number alone)."""
    return any(c is t for c in _NUMBERS.values())


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
    backends = list(_backends._instances.values())  # (private)
    states = [b.random_state() for b in backends]
    generators = [(a, a.bit_generator.state) for a in args if isinstance(a, np.random.Generator)]
    try:
        yield
    finally:
        for backend, state in zip(backends, states):
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
        with watching(watch), grad_mode.enable_grad():
            try:
                out = fn(*traced_args)
            except Exception:
                if watch.refused is not None:  # what fn did first is the cause, not what failed after it
                    raise CompileError(f"compile: fn {watch.refused}: a replay would not do it again") from None
                raise
            if watch.refused is not None:
                raise CompileError(f"compile: fn {watch.refused}: a replay would not do it again")
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
            stack += (node, emit)
            for e in reversed(node.inputs):
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
        if self.watch.is_born(t) and not _is_number_constant(t):
            return _refuse(phase, "a tensor made while it ran that no recorded op made: a comparison, argmax, "
                                  "astype to an integer, detach(), an op under no_grad, a factory such as tl.ones, "
                                  "a tensor made from a traced value, or an op on constants only. Make such a "
                                  "tensor before the call and pass it as an argument, or call fn without compile")
        if t not in self.outside and not _is_number_constant(t):
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
        order = topological_sort([root])
        feeding = _feeding(order, captured)
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
            while not (needs[i] and node.inputs[i] is parent):
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


