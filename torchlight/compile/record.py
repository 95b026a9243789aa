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
History and Module declare where those methods are defined. How a tensor
without History was made (a comparison, `argmax`, a factory) is seen by
`derive.intercepting`: such a tensor that an op reads becomes a step of its
own, and an index array an op takes (`x[i]` for a tensor `i`) a register.

`fn` may return one Tensor, or a tuple, list or dict of them (nested too):
each is one output of the program, and the backward recorded is that of
the sum of every output that can have a gradient, each seeded on its own.
"""

from __future__ import annotations

import contextlib
import numbers
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, final

import numpy as np

from torchlight import backends, grad_mode
from torchlight.compile import derive
from torchlight.compile.flat import flatten
from torchlight.compile.program import LOCK, Replay
from torchlight.engine import History
from torchlight.engine.graph import feeding_nodes, sort_nodes
from torchlight.engine.observe import Observer, observing
from torchlight.nn.module import Module
from torchlight.tensor import Tensor, is_number_constant

__all__ = ["CompileError", "OpaqueBackward", "Recording", "Watch", "record"]


class CompileError(RuntimeError):
    """`fn` does something a replay of its recorded ops could not reproduce.

    Example:
        >>> import torchlight as tl
        >>> @tl.compile
        ... def f(x):
        ...     return x * 2 if x.sum().item() > 0 else x  # a branch on a value: not replayable
        >>> f(tl.tensor([1.0]))
        Traceback (most recent call last):
        ...
        torchlight.CompileError: compile: fn converts a traced tensor to a Python value (Tensor.item): ...
    """

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
        self.order: dict[int, int] = {}  # when each History was made (id -> a count), for the forward's order
        self.derived: dict[int, Any] = {}  # tensors made with no History (id -> (the Tensor, Derived))
        self.arrays: dict[int, Any] = {}  # id of an array -> the traced or derived Tensor of it (held)
        self.generators: dict[int, Any] = {}  # the generators made while fn runs (id -> weak reference)
        self.drawn: dict[Any, Any] = {}  # the generators from outside that a factory drew from -> state before
        self.refusal: str | None = None  # what fn did that no replay does (a write, a backward), if it did
        self.count = 0  # graph nodes and derived tensors made so far

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
        self.count += 1
        self.order[id(node)] = self.count

    def derived_call(self, call: Any, args: tuple, kwargs: dict[str, Any], out: Any) -> None:
        """An op method or a factory returned `out`: note each Tensor of it made without a History
        (not one of the call's own arguments, given back)."""
        self.count += 1
        if type(out) is Tensor and out.history is not None:  # (the usual op: recorded in the graph)
            return
        given = [a for a in args if isinstance(a, Tensor)]
        derive.note(self.derived, call, args, kwargs, out,
                    lambda t: self.is_born(t) and id(t) not in self.traced and not any(t is a for a in given),
                    self.count)
        for t in out if isinstance(out, tuple) else (out,):
            if isinstance(t, Tensor) and self.derived_of(t) is not None:
                self.arrays[id(t.data)] = t

    def checked(self, call: Any, args: tuple, kwargs: dict[str, Any], alias: Tensor, item: Any) -> None:
        """A check (`derive._CHECKS`) gave `alias`, its index array: the check is what made it."""
        self.count += 1
        self.derived[id(alias)] = (alias, derive.Derived(call, args, kwargs, item, self.count))
        self.arrays[id(alias.data)] = alias

    def generator_made(self, generator: Any) -> None:
        self.generators[id(generator)] = weakref.ref(generator)

    def generator_used(self, generator: Any) -> None:
        """A factory is about to draw from `generator`: its state now, for the recording to put back."""
        if not self.is_generator_made_here(generator) and generator not in self.drawn:
            self.drawn[generator] = generator.bit_generator.state

    def is_generator_made_here(self, g: Any) -> bool:
        ref = self.generators.get(id(g))
        return ref is not None and ref() is g

    def derived_of(self, t: Tensor) -> derive.Derived | None:
        """How `t` was made, if a call noted it, else None."""
        entry = self.derived.get(id(t))
        return entry[1] if entry is not None and entry[0] is t else None

    def owner_of(self, array: Any) -> Tensor | None:
        """The traced or derived Tensor whose data `array` is, if any."""
        t = self.arrays.get(id(array))
        return t if t is not None and t.data is array else None

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


def record(fn: Callable[..., Any], args: tuple) -> Recording:
    """Run `fn` with its graph (and its backward's) recorded.

    The random streams are put back as they were (the backends' own, a
    NumPy Generator among the arguments, and one a factory inside `fn` drew
    from): the replay that follows draws the call's numbers, as an
    uncompiled call would.
    """
    rec = Recording()
    with LOCK, _random_streams_kept(args, rec.watch.drawn):
        return rec.record(fn, args)


@contextlib.contextmanager
def _random_streams_kept(args: tuple, drawn: dict[Any, Any]) -> Iterator[None]:
    made = backends.instances()
    states = [b.random_state() for b in made]
    generators = [(a, a.bit_generator.state) for a in args if isinstance(a, np.random.Generator)]
    try:
        yield
    finally:
        for backend, state in zip(made, states):
            backend.set_random_state(state)
        for generator, state in [*generators, *drawn.items()]:
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
        self.outs: list[Tensor] = []             # fn's results (its leaves, `flatten`)
        self.structure: Any = None               # how they make fn's result (None: one Tensor)
        self.differentiable: list[bool] = []     # per result: whether it has a gradient (as eager)
        self.seeds: list[Tensor | None] = []     # per result: the seed of its gradient (None: none)
        self.derived: dict[Tensor, tuple] = {}   # a derived tensor read -> (Derived, template, edges)
        self.edge_arrays: dict[History, list] = {}  # a node -> [(position, template, keys)] of its index arrays
        self.inputs: list[Tensor] = []           # the traced copies of fn's Tensor arguments
        self.wants: list[bool] = []              # per input: whether the caller's requires grad
        self.seed: Tensor | None = None          # the backward's seed, if one alone (None: none or several)

    @property
    def out(self) -> Tensor | None:
        """fn's first result."""
        return self.outs[0] if self.outs else None

    def record(self, fn: Callable[..., Any], args: tuple) -> Recording:
        """Run `fn` on traced copies of its Tensor arguments, then its backward; `self`, filled in."""
        watch, traced_args, inputs, wants = self.watch, [], [], []
        for a in args:
            if isinstance(a, Tensor):
                t = Tensor(a.data, a.backend)
                t.requires_grad = a.backend.is_floating(a.data.dtype)  # so that every op on it is recorded
                watch.traced.add(id(t))
                watch.arrays[id(a.data)] = t
                self.known.add(t)
                inputs.append(t)
                wants.append(a.requires_grad)
                traced_args.append(t)
            else:
                traced_args.append(a)
        with observing(watch), derive.intercepting(watch), grad_mode.enable_grad():
            try:
                out = fn(*traced_args)
            except Exception:
                if watch.refusal is not None:  # what fn did first is the cause, not what failed after it
                    raise CompileError(f"compile: fn {watch.refusal}: a replay would not do it again") from None
                raise
            if watch.refusal is not None:
                raise CompileError(f"compile: fn {watch.refusal}: a replay would not do it again")
            outs, self.structure = flatten(out)
            for o in outs:
                if not isinstance(o, Tensor):
                    what = "one Tensor, or a tuple, list or dict of Tensors"
                    raise CompileError(f"compile: fn must return {what}, not {type(out).__name__}"
                                       + ("" if o is out else f" holding a {type(o).__name__}"))
                if o.history is None and o not in self.known and not watch.is_born(o):
                    raise CompileError("compile: fn returns a tensor it did not compute from its arguments (one "
                                       "from outside, or made without recorded ops); there is nothing to replay")
            self._collect(outs, self.forward, "forward")
            self.forward.sort(key=self._made_at)
            targets = [t for t, w in zip(inputs, wants) if w] + self.params
            self.outs, self.inputs, self.wants = outs, inputs, wants
            self._record_backward(outs, targets)
        live = [s for s in self.seeds if s is not None]
        self.seed = live[0] if len(live) == 1 else None
        return self

    def _made_at(self, node: Any) -> int:
        """When a recorded node or a derived tensor was made: the forward runs in that order (random
        draws come in the order an eager call draws them)."""
        if type(node) is History:
            return self.watch.order.get(id(node), 0)
        return self.derived[node][0].order

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
                derived = self._derived(node, phase)
                if derived is None:
                    if not self._outside(node, phase):
                        return False
                    continue
                if not isinstance(derived, list):  # (False: refused where it may be)
                    return False
                stack += (node, emit)
                stack.extend(reversed(derived))
                continue
            if not self.watch.made_here(node):
                return _refuse(phase, "a tensor computed before the call, with a graph of its own (as w2 = w * 2 "
                                      "outside fn): a replay would compute it again from what it was made of. Compute "
                                      "it inside fn, or pass it as an argument")
            if getattr(node.last_fn, "_user_function", None) is not None:
                return _refuse(phase, f"a Function with several outputs ({node.last_fn.__name__}): a compiled "
                                      "program replays ops of one output. Call the function without compile")
            stack += (node, emit)
            arrays = []
            for i in reversed(range(len(node.edges))):
                e = node.edges[i]
                if isinstance(e, (History, Tensor)):
                    stack.append(e)
                elif _holds_array(e):
                    found = self._index_arrays(node, e, phase)
                    if not isinstance(found, tuple):  # (False: refused where it may be)
                        return False
                    template, keys = found
                    arrays.append((i, template, keys))
                    stack.extend(reversed(keys))
            if arrays:
                self.edge_arrays[node] = arrays[::-1]
        into.extend(new)
        self.known.update(new)
        return True

    def _derived(self, t: Tensor, phase: str) -> list | bool | None:
        """The keys a derived tensor is made from (`t` becomes a step), None if `t` is not one, or
        False where it reads what no replay could (refused in the forward)."""
        if t in self.derived:
            return [e for e in self.derived[t][2] if e is not None]
        d = self.watch.derived_of(t)
        if d is None:
            return None
        name = getattr(d.call, "__name__", "a call")
        if name in derive.VALUE_SHAPED:
            return _refuse(phase, f"{name}, whose result's shape depends on the values: a program's shapes are "
                                  "those of the call it recorded. Call the function without compile")
        template, tensors = derive.split((d.args, d.kwargs))
        for value in _leaves(template):
            if isinstance(value, np.random.Generator):
                if self.watch.is_generator_made_here(value):
                    return _refuse(phase, f"a generator made inside it ({name} "
                                          "draws from one): a replay would go on drawing from the one made when "
                                          "recording, where each eager call makes a new one. Make the generator "
                                          "outside fn (each call then draws on from it, as eager), or pass it "
                                          "as an argument")
            elif _holds_array(value):
                return _refuse(phase, f"a call ({name}) that takes an array as "
                                      "an argument: a replay would reuse the first call's. Pass a Tensor instead")
        edges = tuple(a.graph_node for a in tensors)
        self.derived[t] = (d, template, edges)
        return list(edges)

    def _index_arrays(self, node: History, value: Any, phase: str) -> tuple[Any, list] | bool:
        """An index among an op's arguments (an array, or a key holding some), each array the data of
        a traced or derived tensor: the key with `derive.SLOT` for each, and their keys. False (refused
        in the forward) where an array is not such a tensor's, or is a boolean mask."""
        name = node.last_fn.__name__
        keys: list[Any] = []

        def walk(v: Any) -> Any:
            if isinstance(v, (tuple, list)):
                parts = [walk(x) for x in v]
                return False if any(p is False for p in parts) else type(v)(parts)
            if not _holds_array(v):
                return v
            owner = None if isinstance(v, np.generic) else self.watch.owner_of(v)
            if owner is None or owner.backend.xp.isdtype(owner.dtype, "bool"):
                return False
            keys.append(owner.graph_node)
            return derive.SLOT

        template = walk(value)
        if template is False:
            return _refuse(phase, f"an op ({name}) that takes an array as an argument that is not a tensor "
                                  f"fn computes or is given (a NumPy index, a boolean mask: x[mask], whose "
                                  f"shape depends on the values; a value read from a tensor: x[x.argmax()] "
                                  f"gives one; embedding, nll_loss, cross_entropy with weights or ignored "
                                  f"labels); a replay would reuse the first call's. Use tl.where for a mask, or "
                                  f"call the function without compile")
        return template, keys

    def _outside(self, t: Tensor, phase: str) -> bool:
        """A leaf from outside `fn`: read afresh each call. One made while `fn` ran is refused."""
        if self.watch.is_born(t) and not is_number_constant(t):
            return _refuse(phase, "a tensor made while it ran that no recorded op made (tl.tensor of a "
                                  "traced value, an internal helper of an op, a method bound before the "
                                  "recording). Make such a tensor before the call and pass it as an argument, "
                                  "or call fn without compile")
        if t not in self.outside and not is_number_constant(t):
            self.outside[t] = None
            if t.requires_grad and phase == "forward":
                self.params.append(t)
        return True

    def _record_backward(self, outs: list[Tensor], targets: list[Tensor]) -> None:
        """Walk the graph as the engine does, each node's backward recorded (create_graph), from a
        seed for each result that has a gradient (one that an op that requires grad made from a
        target: an argument that requires grad, or a tensor from outside that does)."""
        captured = set(targets)
        roots = [o.graph_node for o in outs]
        order = sort_nodes([r for r in roots if r.requires_grad]) if captured else []
        feeding = feeding_nodes(order, captured)
        self.differentiable = [bool(captured) and o.requires_grad and (r in feeding or r in captured)
                               for o, r in zip(outs, roots)]
        grads: dict[Any, Tensor] = {}
        self.seeds = []
        for o, root, wanted in zip(outs, roots, self.differentiable):
            if not wanted:
                self.seeds.append(None)
                continue
            seed = Tensor(o.backend.xp.ones_like(o.data), o.backend)
            seed.requires_grad = True  # so that every op on the gradient is recorded
            self.known.add(seed)
            self.seeds.append(seed)
            total = grads.get(root)
            if total is not None:  # the same value twice among the results: its gradients sum
                seed = total + seed
                self._collect([seed], self.backward, "backward")
            grads[root] = seed
        if not grads:
            return
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




def _leaves(value: Any) -> Iterator[Any]:
    """The values in a call's arguments (through tuples, lists and dicts)."""
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value
