"""`compile(fn)`: record a function of Tensors once, then replay it as a flat program.

An eager op pays for its bookkeeping on every call: a Tensor, a Context and a
History in forward, a graph walk and a backward formula written in Tensor ops
in backward. When a function does the same ops every time (the usual training
step), that work can be done once. `compile(fn)` runs `fn` on its first call
for each signature (the shapes, dtypes, backends and devices of its Tensor
arguments, which of them require grad, and its other arguments), with the
graph recorded, then records the backward of that graph too (as
`create_graph=True` does). Both become one list of steps, each a Function's
`forward` on arrays, and later calls replay the list: no graph to build, no
walk, each array freed as soon as its last step has run. The result is one
node of the caller's graph, so `loss.backward()`, `.grad` accumulation,
optimizers and the first-order transforms of `torchlight.func` (`grad`,
`vjp`, `jacobian`) work as with `fn` itself; a backward with `create_graph`
through it (`hessian`, `hvp`, `jvp`) raises, since the replayed backward
records nothing.

What is replayed is what was recorded, as with `jax.jit`: Python control flow
is fixed by the first call, and so are values read out of tensors. Anything a
replay could not reproduce is refused while recording, with a CompileError:
a tensor made while `fn` runs but by no recorded op (a comparison, `argmax`,
`.detach()`, `no_grad`, a new tensor from `.numpy()`), a tensor computed
before the call with a graph of its own, a conversion of a traced tensor
to a Python value (`.item()`, `float()`, `if x > 0:`), an array among an
op's arguments (an index), an in-place update (an optimizer step, which has
then happened once) or a backward inside `fn`. A
backward formula that computes part of its gradient outside the recorded ops
(a mask from the saved values, as `maximum` does) is kept as it is: its node
is run as in eager mode, with a Context of its own, on each call.

Example:
    >>> import torchlight as tl
    >>> w = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> @tl.compile
    ... def loss(x):
    ...     return ((x * w).tanh() * 2.0).sum()
    >>> x = tl.tensor([0.5, -0.5])
    >>> for _ in range(3):
    ...     loss(x).backward()
    >>> import math
    >>> abs(w.grad.tolist()[0] - 3 * 2 * 0.5 * (1 - math.tanh(0.5) ** 2)) < 1e-12
    True
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers
import sys
import threading
import weakref
from collections.abc import Callable, Iterator, Set
from typing import Any

import numpy as np

from torchlight import backends as _backends
from torchlight import grad_mode
from torchlight.autograd import functions as F
from torchlight.blocking import Blocked, plan
from torchlight.engine import Context, Function, History
from torchlight.engine import function as _function
from torchlight.engine.graph import _feeding, topological_sort
from torchlight.nn.module import Module
from torchlight.tensor import _NUMBERS, Tensor

__all__ = ["CompileError", "Compiled", "compile"]

_LOCK = threading.RLock()  # recording patches the Tensor class; replays share their registers

CREATE_GRAPH = (
    "backward(create_graph=True) through a compiled function: its backward is replayed on arrays and "
    "records nothing, so second derivatives would be wrong. Call the function without compile for that."
)


# How many signatures a compiled function keeps programs for (a float argument that changes on
# every call, a learning rate say, would otherwise record and keep one program per call).
MAX_SIGNATURES = 64


class CompileError(RuntimeError):
    """`fn` does something a replay of its recorded ops could not reproduce."""


def compile(fn: Callable[..., Tensor]) -> Compiled:  # noqa: A001 (torch.compile's name, on purpose)
    """`fn`, recorded on its first call per signature and replayed after.

    `fn` takes Tensors (and any hashable constants) and returns one Tensor.
    Tensors it reads from its closure (a model's parameters) are read afresh
    on every call and get their gradients as usual. See the module docstring
    for what cannot be compiled.

    Example:
        >>> import torchlight as tl
        >>> f = tl.compile(lambda x: (x * x).sum())
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> f(x).backward(); x.grad.tolist()
        [2.0, 4.0]
    """
    return Compiled(fn)


class Compiled:
    """A compiled function: one recorded `Program` per call signature."""

    def __init__(self, fn: Callable[..., Tensor]) -> None:
        self.fn = fn
        # per signature, the programs recorded (more than one when the tensors from outside or
        # the Modules' training modes differed: a model switched between train() and eval())
        self.programs: dict[Any, list[Program]] = {}
        functools.update_wrapper(self, fn, updated=())  # (a Module's attributes are not the wrapper's)

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        key, tensors = _signature(args, kwargs)
        programs = self.programs.get(key)
        if programs is not None:
            for program in programs:
                if program.current():
                    return program(tensors)
        fn = functools.partial(self.fn, **kwargs) if kwargs else self.fn
        program = _record(fn, args)
        if key not in self.programs and len(self.programs) >= MAX_SIGNATURES:
            del self.programs[next(iter(self.programs))]  # the oldest signature's programs go
        self.programs.setdefault(key, []).append(program)
        return program(tensors)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """On a class, a method: `self` is one more argument (of the signature)."""
        return self if instance is None else functools.partial(self, instance)

    def __repr__(self) -> str:
        count = sum(len(programs) for programs in self.programs.values())
        return f"compile({getattr(self.fn, '__name__', self.fn)!r}, {count} program(s))"


def _outside_signature(tensors: list[Tensor], modules: list[Module]) -> tuple:
    return (tuple((t.data.shape, t.data.dtype, t.requires_grad) for t in tensors),
            tuple(m.training for m in modules))


def _signature(args: tuple, kwargs: dict[str, Any]) -> tuple[Any, list[Tensor]]:
    """The cache key of a call, and its Tensor arguments in order (keyword arguments are constants)."""
    key, tensors = [], []
    for name, value in kwargs.items():
        if isinstance(value, Tensor):
            raise TypeError(f"compile: pass the Tensor {name}= by position (keyword arguments are constants)")
        key.append((name, type(value), value))
    for a in args:
        if isinstance(a, Tensor):
            data = a.data
            key.append((a.backend, a.backend.device_of(data), data.dtype, data.shape, a.requires_grad))
            tensors.append(a)
        else:
            key.append((type(a), a))
    try:
        key = tuple(key)
        hash(key)
    except TypeError:
        raise TypeError("compile: every argument that is not a Tensor must be hashable (it is part of the "
                        "signature a program is recorded for)") from None
    return key, tensors


# ------------------------------------------------------------------ replay
class Replay(Function):
    """A compiled program as one node of the caller's graph."""

    @staticmethod
    def forward(ctx: Context, program: Program, *tensors: Tensor) -> Any:
        if ctx.no_grad:
            return program.run_forward(tensors, train=False)[0]
        out, saved = program.run_forward(tensors, train=True)
        ctx.save_for_backward(program, saved, *tensors)  # the tensors: a backward after they change raises
        return out

    @staticmethod
    def backward(ctx: Context, g: Any) -> tuple:
        if grad_mode.is_grad_enabled():
            raise RuntimeError(CREATE_GRAPH)
        program, saved = ctx.saved_tensors[:2]
        return (None, *program.run_backward(saved, g.data, keep=grad_mode._state.retain_graph))


class Program:
    """The steps of one recorded signature: forward (twice: for inference, and
    keeping what backward needs) and backward, each step `out.data = forward(ctx, *args)`."""

    def __init__(self) -> None:
        self.inputs: list[Tensor] = []      # the registers of fn's Tensor arguments
        self.params: list[Tensor] = []      # closure tensors that require grad: gradients go to them too
        self.outside: list[Tensor] = []     # every tensor from outside fn that an op reads
        self.modules: list[Module] = []    # the Modules fn called
        self.outside_signature: tuple = ()  # their shapes, dtypes and requires_grad, the modes, when recorded
        self.backend: Any = None
        # each list of steps, or its Blocked replay where its ops are all elementwise on big arrays
        self.infer: list[tuple] | Blocked = []     # forward steps for a call that needs no gradient
        self.train: list[tuple] | Blocked = []     # forward steps that keep opaque nodes' contexts
        self.backward: list[tuple] | Blocked = []
        self.backward_one: list[tuple] | Blocked | None = None  # for a 0-d seed of 1 (`_seeded_by_one`)
        self.saved_one: tuple[bool, ...] = ()       # which saved registers that one reads
        self.output: Tensor | None = None   # the register of fn's result
        self.saved: tuple[Tensor, ...] = ()  # forward registers that backward reads
        self.seed: Tensor | None = None
        self.grads: tuple[Tensor | None, ...] = ()  # per input and param: the register of its gradient
        self.wants_grad = False
        self.opaque: list[Any] = []         # per call: the Histories of opaque nodes, for their backward
        self.sink: Tensor | None = None     # where a step that writes its own registers puts its None
        self.registers: tuple[Tensor, ...] = ()

    def current(self) -> bool:
        """Whether the tensors from outside fn still have the shapes, dtypes and requires_grad recorded,
        and the Modules it called their training modes (`model.eval()` makes a new program)."""
        return _outside_signature(self.outside, self.modules) == self.outside_signature

    def __call__(self, tensors: list[Tensor]) -> Tensor:
        if self.wants_grad or any(t.requires_grad for t in tensors):
            return Replay.apply(self, *tensors, *self.params)
        return Tensor._wrap(Replay.forward(_function._quiet_context(), self, *tensors), self.backend)

    def run_forward(self, tensors: tuple, train: bool) -> tuple[Any, Any]:
        with _LOCK:
            try:
                for reg, t in zip(self.inputs, tensors):
                    reg.data = t.data
                self.opaque = opaque = []
                _run(self.train if train else self.infer)
                out = self.output.data
                saved = [[r.data for r in self.saved], opaque] if train else None
            finally:
                self._clear()
        return out, saved

    def _clear(self) -> None:
        """Every register let go of (after a replay, and after one that raised part-way)."""
        for reg in self.registers:
            reg.data = None
        self.opaque = []

    def run_backward(self, saved: list, g: Any, keep: bool) -> list[Any]:
        """The gradients for `saved` (what a forward kept); without `keep` they are let go of as
        the steps finish with them (the saved list is emptied), as an eager backward frees its nodes."""
        arrays, self_opaque = saved
        if not keep:
            saved[:] = [(), ()]
        steps, loads = self.backward, None
        if self.backward_one is not None and not self.backend.lazy and g.shape == () and bool(g == 1):
            steps, loads = self.backward_one, self.saved_one
        with _LOCK:
            for k, (reg, a) in enumerate(zip(self.saved, arrays)):
                if loads is None or loads[k]:
                    reg.data = a
            self.seed.data = g
            self.opaque = self_opaque
            arrays = self_opaque = g = None  # the registers hold them now, and let go after their last step
            try:
                _run(steps, reuse=not keep)
                grads = [None if reg is None else reg.data for reg in self.grads]
            finally:
                self._clear()
        return grads


def _run(steps: list[tuple] | Blocked, reuse: bool = False) -> None:
    """The replay loop: each step writes its register and lets go of the ones it used last
    (a block at a time for a `Blocked` list, whose results may take arrays a backward is done with
    where `reuse`)."""
    if type(steps) is Blocked:
        steps.run(_run, reuse)
        return
    for forward, ctx, args, out, frees in steps:
        data = forward(ctx, *args)
        out.data = data.data if type(data) is Tensor else data
        data = None  # the register alone holds it: the next step may overwrite it (`_try_into`)
        for reg in frees:
            reg.data = None


# ----------------------------------------------------------------- recording
_CONVERSIONS = ("item", "tolist", "numpy", "__array__", "__bool__", "__float__", "__int__", "__index__",
                "__format__")


class _Watch:
    """What recording must see while `fn` runs: every Tensor made (a replay cannot
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
    def patched(self) -> Iterator[None]:
        """Tensor's constructors and conversions, watched (and restored after)."""
        originals = {name: Tensor.__dict__[name] for name in ("_wrap", "__init__", "_replace_data", "backward",
                                                              *_CONVERSIONS)}
        call, modules, history_init = Module.__dict__["__call__"], self.modules, History.__dict__["__init__"]
        wrap, init, born, thread = originals["_wrap"].__func__, originals["__init__"], self.born, self.thread

        def watched_wrap(cls: type, out: Any, backend: Any) -> Tensor:
            t = wrap(cls, out, backend)
            if threading.get_ident() == thread:
                born[id(t)] = weakref.ref(t)
            return t

        def watched_init(t: Tensor, *args: Any, **kwargs: Any) -> None:
            init(t, *args, **kwargs)
            if threading.get_ident() == thread:
                born[id(t)] = weakref.ref(t)

        def watched_call(module: Module, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == thread:
                modules[module] = None
            return call(module, *args, **kwargs)

        def watched_history(h: History, *args: Any, **kwargs: Any) -> None:
            history_init(h, *args, **kwargs)
            if threading.get_ident() == thread:
                self.histories[id(h)] = weakref.ref(h)

        def refused(what: str, original: Any) -> Any:
            def call_refused(t: Tensor, *args: Any, **kwargs: Any) -> Any:
                if threading.get_ident() == thread and self.refused is None:
                    self.refused = what
                return original(t, *args, **kwargs)
            return call_refused

        Tensor._wrap = classmethod(watched_wrap)
        Module.__call__ = watched_call
        History.__init__ = watched_history
        Tensor.__init__ = watched_init
        Tensor._replace_data = refused("replaced a tensor's values in place (an optimizer step, w -= ..., "
                                       "zero_grad_, a running statistic)", originals["_replace_data"])
        Tensor.backward = refused("ran a backward (loss.backward() belongs after the call)", originals["backward"])
        for name in _CONVERSIONS:
            setattr(Tensor, name, self._refusing(name, originals[name]))
        try:
            yield
        finally:
            for name, value in originals.items():
                setattr(Tensor, name, value)
            Module.__call__ = call
            History.__init__ = history_init

    def _refusing(self, name: str, original: Any) -> Any:
        watch = self

        @functools.wraps(original)
        def refusing(t: Tensor, *args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == watch.thread and (
                    id(t) in watch.traced or (watch.is_born(t) and not _is_number_constant(t))):
                raise CompileError(
                    f"compile: fn converts a traced tensor to a Python value (Tensor.{name}): a replay "
                    f"would reuse the value of the first call. Keep that computation in tensor ops, or "
                    f"call the function without compile"
                )
            return original(t, *args, **kwargs)

        return refusing


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


def _record(fn: Callable[..., Tensor], args: tuple) -> Program:
    """Run `fn` with its graph (and its backward's) recorded, and make the Program.

    The random streams are put back as they were (the backends' own, and a
    NumPy Generator among the arguments): the replay that follows draws the
    call's numbers, as an uncompiled call would.
    """
    with _LOCK, _random_streams_kept(args):
        return _Recorder().record(fn, args)


@contextlib.contextmanager
def _random_streams_kept(args: tuple) -> Iterator[None]:
    backends = list(_backends._instances.values())
    states = [b.random_state() for b in backends]
    generators = [(a, a.bit_generator.state) for a in args if isinstance(a, np.random.Generator)]
    try:
        yield
    finally:
        for backend, state in zip(backends, states):
            backend.set_random_state(state)
        for generator, state in generators:
            generator.bit_generator.state = state


class _Recorder:
    """Records one call of `fn` and its backward, and turns them into steps.

    Every value is keyed by what stands for it in the graph: a History for
    an op's result, the Tensor itself for a leaf. `known` holds the keys that
    become registers; any other leaf an op reads is a tensor from outside,
    read afresh on every call (a parameter, a constant), unless it was made
    while `fn` ran, which a replay could not do again.
    """

    def __init__(self) -> None:
        self.watch = _Watch()
        self.known: set[Any] = set()
        self.forward: list[History] = []
        self.backward: list[Any] = []            # backward Histories, and ("opaque", node, d) entries
        self.opaque: dict[History, list] = {}    # a forward node replayed as a call -> (position, register key)
        self.params: list[Tensor] = []
        self.outside: dict[Tensor, None] = {}    # the leaves from outside fn, in order
        self.results: dict[Tensor, Tensor] = {}  # each gradient target -> the recorded gradient

    def record(self, fn: Callable[..., Tensor], args: tuple) -> Program:
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
        with watch.patched(), grad_mode.enable_grad():
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
        return _build(self, out, inputs, wants, seed)

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
        self.backward.append(("opaque", node, d))
        return out


def _refuse(phase: str, what: str) -> bool:
    if phase == "forward":
        raise CompileError(f"compile: fn uses {what}")
    return False


# ------------------------------------------------------------------ building
def _build(rec: _Recorder, out: Tensor, inputs: list[Tensor], wants: list[bool], seed: Tensor | None) -> Program:
    """The Program of a recording: registers for its values, steps, and when to free each register.

    While building, a step is (Function or None, forward, ctx, args, the registers it writes,
    the register its result goes to);
    the Program's steps are (forward, ctx, args, register, the registers to free after it).
    """
    p = Program()
    p.backend = out.backend
    regs: dict[Any, Tensor] = {}
    meta: dict[Tensor, tuple] = {}  # a register -> the shape and dtype it holds

    def reg(key: Any) -> Tensor:
        r = regs.get(key)
        if r is None:
            r = regs[key] = Tensor._wrap(None, p.backend)
            meta[r] = (key.shape, key.dtype) if type(key) is History else (key.data.shape, key.data.dtype)
        return r

    def arg(e: Any) -> Any:
        return reg(e) if type(e) is History or (isinstance(e, Tensor) and e in rec.known) else e

    def step(h: History) -> tuple:
        quiet = Context(True)
        quiet.needs_input_grad = h.ctx.needs_input_grad
        return (h.last_fn, h.last_fn.forward, quiet, tuple(arg(e) for e in h.inputs), (reg(h),), reg(h))

    p.inputs = [reg(t) for t in inputs]
    p.params = list(rec.params)
    p.outside = list(rec.outside)
    p.modules = list(rec.watch.modules)
    p.outside_signature = _outside_signature(p.outside, p.modules)
    p.wants_grad = bool(rec.params)
    p.output = reg(out.graph_node)
    p.sink = Tensor._wrap(None, p.backend)
    infer, train, backward = [], [], []
    opaque_index: dict[History, int] = {}
    for h in rec.forward:
        infer.append(step(h))
        if h in rec.opaque:
            opaque_index[h] = len(opaque_index)
            call = _opaque_forward(p, h.last_fn, h.ctx.needs_input_grad)
            train.append((None, call, None, infer[-1][3], (reg(h),), reg(h)))
        else:
            train.append(infer[-1])
    for entry in rec.backward:
        if type(entry) is tuple:  # ("opaque", node, d)
            _, node, d = entry
            outs = tuple((i, reg(r)) for i, r in rec.opaque[node])
            call = _opaque_backward(p, node.last_fn.__name__, opaque_index[node], outs)
            backward.append((None, call, None, (reg(d.graph_node),), tuple(r for _, r in outs), p.sink))
        else:
            backward.append(step(entry))
    if seed is not None:
        p.seed = reg(seed)
    targets = [t for t, w in zip(inputs, wants) if w] + rec.params
    grad_regs = [reg(rec.results[t].graph_node) if t in rec.results else None for t in targets]
    per_target = iter(grad_regs)
    p.grads = tuple(next(per_target) if w else None for w in wants) + tuple(per_target)
    registers = set(regs.values())
    p.registers = (*regs.values(), p.sink)
    needed = {r for r in grad_regs if r is not None}
    backward = _live(_fold_negations(backward, needed), needed, registers)
    made_before = {r for s in train for r in s[4]} | set(p.inputs)
    p.saved = tuple(r for r in _reads(backward, registers) if r in made_before)
    mine = registers.difference(p.inputs, [p.output], needed)  # what a step may overwrite
    # saved values that elementwise ops made (new arrays, never an input's): a backward may reuse them
    spare = {s[5] for s in train if getattr(s[0], "elementwise", False)}.intersection(p.saved, mine)
    p.infer = _finished(p, infer, registers, {p.output}, mine, meta)
    p.train = _finished(p, train, registers, {p.output, *p.saved}, mine, meta)
    p.backward = _finished(p, backward, registers, needed, mine, meta, spare)
    if seed is not None and meta[p.seed][0] == ():
        unit = _seeded_by_one(backward, p.seed, needed, registers, meta)
        reads = set(_reads(unit, registers))
        p.backward_one = _finished(p, unit, registers, needed, mine, meta, spare)
        p.saved_one = tuple(r in reads for r in p.saved)
    return p


def _finished(p: Program, steps: list[tuple], registers: set[Tensor], keep: set[Tensor], mine: set[Tensor],
              meta: dict[Tensor, tuple], spare: Set[Tensor] = frozenset()) -> list[tuple] | Blocked:
    """The steps as the program runs them (`_finish`), a block at a time where they qualify
    (`plan`; `spare`: the saved values a blocked backward may write its gradients over)."""
    done = _finish(steps, registers, keep, mine, meta)
    return plan(steps, done, registers, keep, spare, meta, p.backend) or done


def _seeded_by_one(steps: list[tuple], seed: Tensor, needed: set[Tensor], registers: set[Tensor],
                   meta: dict[Tensor, tuple]) -> list[tuple]:
    """The backward steps for a seed of exactly 1 (what `loss.backward()` gives a 0-d loss).

    A product with the seed, broadcast or reshaped, is the other operand
    itself, to the bit: renamed rather than computed (W3 multiplies three
    full arrays by a broadcast 1 otherwise, where code written by hand does
    not). A result that is a gradient handed out is still computed, so that
    no gradient is another value's array.
    """
    ones, rename, out = {seed}, {}, []
    for fn, forward, ctx, args, writes, target in steps:
        args = tuple(rename.get(a, a) if type(a) is Tensor else a for a in args)
        if fn in (F.BroadcastView, F.Reshape) and args[0] in ones:
            ones.add(target)
        elif fn is F.Mul and target not in needed:
            a, b = args
            other = b if a in ones else a if b in ones else None
            if other is not None and meta.get(other) == meta[target]:
                rename[target] = other
                continue
        out.append((fn, forward, ctx, args, writes, target))
    return _live(out, needed, registers)


def _fold_negations(steps: list[tuple], needed: set[Tensor]) -> list[tuple]:
    """`a + (-b)` as `a - b`: one pass over the arrays fewer, and the same to the bit (IEEE
    defines a - b as a + (-b)). A backward sums a Neg's gradient (`-g`) into another this way.
    The Neg's result must be read by that Add alone; the Neg is then dead and dropped by `_live`."""
    reads: dict[Tensor, int] = {}
    for step in steps:
        for a in step[3]:
            if type(a) is Tensor:
                reads[a] = reads.get(a, 0) + 1
    negated = {s[5]: s[3][0] for s in steps if s[0] is F.Neg and reads.get(s[5]) == 1 and s[5] not in needed}
    out = []
    for fn, forward, ctx, args, writes, target in steps:
        if fn is F.Add and all(type(a) is Tensor for a in args) and (args[0] in negated) != (args[1] in negated):
            a, b = (args[1], negated[args[0]]) if args[0] in negated else (args[0], negated[args[1]])
            fn, forward, args = F.Sub, F.Sub.forward, (a, b)
        out.append((fn, forward, ctx, args, writes, target))
    return out


def _reads(steps: list[tuple], registers: set[Tensor]) -> list[Tensor]:
    """The registers the steps read, in order of first read (each once)."""
    seen: dict[Tensor, None] = {}
    for step in steps:
        for a in step[3]:
            if type(a) is Tensor and a in registers:
                seen.setdefault(a)
    return list(seen)


def _live(steps: list[tuple], needed: set[Tensor], registers: set[Tensor]) -> list[tuple]:
    """The steps whose results something needs, walking back from `needed` (dead code dropped)."""
    needed = set(needed)
    kept = []
    for step in reversed(steps):
        if any(w in needed for w in step[4]):
            kept.append(step)
            needed.update(a for a in step[3] if type(a) is Tensor and a in registers)
    kept.reverse()
    return kept


def _finish(steps: list[tuple], registers: set[Tensor], keep: set[Tensor], mine: set[Tensor],
            meta: dict[Tensor, tuple]) -> list[tuple]:
    """The Program's steps: each frees the registers (not in `keep`) read for the last time there,
    and one whose Function has `forward_into` tries it where the registers it would overwrite
    are among those."""
    last: dict[Tensor, int] = {}
    for k, step in enumerate(steps):
        for a in step[3]:
            if type(a) is Tensor and a in registers:
                last[a] = k
    frees: list[list[Tensor]] = [[] for _ in steps]
    for r, k in last.items():
        if r not in keep:
            frees[k].append(r)
    out = []
    for (fn, forward, ctx, args, _, target), free in zip(steps, frees):
        into = getattr(fn, "forward_into", None)
        if into is not None and _may_overwrite(fn.overwrites, args, target, free, mine, meta):
            forward = _try_into(forward, into, tuple(args[i] for i in fn.overwrites))
        elif into is not None and fn in _COMMUTATIVE and _may_overwrite((1,), args, target, free, mine, meta):
            forward = _try_into(forward, _swapped(into), (args[1],))
        out.append((forward, ctx, args, target, tuple(free)))
    return out


def _swapped(into: Any) -> Callable[..., Any]:
    """`into` of a commutative op with its operands swapped: writes into the second."""
    return lambda ctx, a, b: into(ctx, b, a)


def _may_overwrite(positions: tuple[int, ...], args: tuple, out: Tensor, frees: list[Tensor],
                   mine: set[Tensor], meta: dict[Tensor, tuple]) -> bool:
    """Whether each input to overwrite is this program's own register, read for the last time
    here, not also another argument, and of the result's shape and dtype."""
    if not positions or out not in meta or math.prod(meta[out][0]) < _OVERWRITE_SIZE:
        return False
    for i in positions:
        a = args[i]
        if not (type(a) is Tensor and a in mine and any(a is f for f in frees) and meta.get(a) == meta[out]):
            return False
        if sum(b is a for b in args) != 1:
            return False
    return True


_COMMUTATIVE = (F.Add, F.Mul)  # a + b and b + a are the same to the last bit (IEEE), so either may be written
# Below this many elements a new array costs less than proving an old one may be overwritten.
_OVERWRITE_SIZE = 1 << 14
_REFS = 3  # the references to an array its register alone holds, as counted in `into` below


def _try_into(forward: Any, into: Any, targets: tuple[Tensor, ...]) -> Callable[..., Any]:
    """`into` when every target's array is fresh, mutable and held by its register alone, else `forward`."""
    backend = targets[0].backend
    count = getattr(sys, "getrefcount", None)

    def step(ctx: Any, *args: Any) -> Any:
        if count is None or backend.immutable:
            return forward(ctx, *args)
        for t in targets:
            x = t.data
            if count(x) > _REFS or not backend.owns_fresh_memory(x):
                return forward(ctx, *args)
        x = None
        return into(ctx, *args)

    return step


def _opaque_forward(p: Program, fn: type[Function], needs: tuple[bool, ...]) -> Callable[..., Any]:
    """The forward of a node whose backward is a call: with its own Context and History, kept per call."""

    def forward(_: Any, *args: Any) -> Any:
        ins = tuple(Tensor._wrap(a.data, a.backend) if isinstance(a, Tensor) else a for a in args)
        ctx = Context()
        ctx.needs_input_grad = needs
        out = fn.forward(ctx, *ins)
        data = out.data if type(out) is Tensor else out
        node = History(fn, ctx, ins, (), data.shape, data.dtype, p.backend)
        if fn._keeps_output:
            ctx._output_data = data
            ctx._history_ref = weakref.ref(node)
            ctx._maker = Tensor
        p.opaque.append(node)
        return data

    return forward


def _opaque_backward(p: Program, name: str, index: int, outs: tuple) -> Callable[..., None]:
    """The backward of such a node: its History's chain_rule, each gradient into its register."""
    wanted = dict(outs)

    def backward(_: Any, d: Tensor) -> None:
        node = p.opaque[index]
        for inp, g in node.chain_rule(Tensor._wrap(d.data, p.backend), grad_mode._state.retain_graph):
            reg = wanted.get(next(i for i, e in enumerate(node.inputs) if e is inp))
            if reg is not None:
                reg.data = g.data
        missing = [i for i, reg in outs if reg.data is None]
        if missing:
            raise RuntimeError(f"compile: {name}.backward gave no gradient for input(s) {missing} "
                               f"on this call, where it gave one when recorded")

    return backward
