"""A compiled program and its replay: the registers of one recorded call, and its step lists run on arrays.

A `Program` is what `build` makes of one recording. Its registers are
Tensors that hold one array each while a replay runs (and none between
calls); each of its step lists (`infer`, `train`, `backward`,
`backward_one`) is run by `run_steps`, a step at a time, or a block of
elements at a time where it is `Blocked`. `Replay` makes a call of it one
node of the caller's graph.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from torchlight import grad_mode
from torchlight.compile.blocking import Blocked
from torchlight.compile.flat import unflatten
from torchlight.compile.steps import Step
from torchlight.compile.straight import Steps, run_each
from torchlight.engine import Context, Function, History
from torchlight.engine import function as _function
from torchlight.nn.module import Module
from torchlight.tensor import Tensor

__all__ = ["LOCK", "Precomputed", "Program", "Replay", "opaque_backward", "opaque_forward", "outside_signature",
           "run_steps"]

LOCK = threading.RLock()  # recording observes the Tensor class (one at a time); replays share their registers

CREATE_GRAPH = (
    "backward(create_graph=True) through a compiled function: its backward is replayed on arrays and "
    "records nothing, so second derivatives would be wrong. Call the function without compile for that."
)


def outside_signature(tensors: list[Tensor], modules: list[Module]) -> tuple:
    """What a program is recorded for beyond its call signature: the tensors from outside fn
    (shapes, dtypes, requires_grad) and the training modes of the Modules it called."""
    return (tuple((t.data.shape, t.data.dtype, t.requires_grad) for t in tensors),
            tuple(m.training for m in modules))


class Replay(Function):
    """A compiled program as one node of the caller's graph.

    `complex_grad`: the program replays the backward of the ops it recorded, each of which refused a
    complex input that requires grad when it was recorded unless its own gradient is right for it.
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, program: Program, *tensors: Tensor) -> Any:
        if ctx.no_grad:
            return program.run_forward(tensors, train=False)[0]
        out, saved = program.run_forward(tensors, train=True)
        ctx.save_for_backward(program, saved, *tensors)  # the tensors: a backward after they change raises
        if program.structure is not None:  # several results: those without a gradient are marked so
            ctx.set_materialize_grads(False)
            ctx.mark_non_differentiable(*(o for o, d in zip(out, program.differentiable) if not d))
        return out

    @staticmethod
    def backward(ctx: Context, *gs: Any) -> tuple:
        if grad_mode.is_grad_enabled():
            raise RuntimeError(CREATE_GRAPH)
        program, saved, *tensors = ctx.saved_tensors
        data = [None if g is None else g.data for g in gs]
        return (None, *program.run_backward(saved, data, keep=grad_mode._state.retain_graph, tensors=tensors))


class Program:
    """The steps of one recorded signature: forward (twice: for inference, and
    keeping what backward needs) and backward, each a list of `Step`s (`out.data = forward(ctx, *args)`)."""

    def __init__(self) -> None:
        self.inputs: list[Tensor] = []      # the registers of fn's Tensor arguments
        self.params: list[Tensor] = []      # closure tensors that require grad: gradients go to them too
        self.outside: list[Tensor] = []     # every tensor from outside fn that an op reads
        self.modules: list[Module] = []    # the Modules fn called
        self.outside_signature: tuple = ()  # their shapes, dtypes and requires_grad, the modes, when recorded
        self.backend: Any = None
        # each list of steps, or its Blocked replay where its ops are all elementwise on big arrays
        self.infer: list[Step] | Blocked = []     # forward steps for a call that needs no gradient
        self.train: list[Step] | Blocked = []     # forward steps that keep opaque nodes' contexts
        self.backward: list[Step] | Blocked = []
        self.backward_one: list[Step] | Blocked | None = None  # for a 0-d seed of 1 (`seeded_by_one`)
        # the forward and backward_one as one blocked list, where they make one (`build._with_backward`):
        # what a forward in grad mode runs, the gradients kept for the backward instead of saved values
        self.train_and_backward: Blocked | None = None
        self.saved_one: tuple[bool, ...] = ()       # which saved registers that one reads
        self.output: Tensor | None = None   # the register of fn's (first) result
        self.outputs: tuple[Tensor, ...] = ()  # the registers of fn's results (`record.flatten`)
        self.structure: Any = None          # how they make fn's result (None: one Tensor)
        self.differentiable: tuple[bool, ...] = ()  # per result: whether it has a gradient
        self.seeds: tuple[Tensor | None, ...] = ()  # per result: the register of its gradient's seed
        self.output_meta: tuple[tuple, ...] = ()  # per result: its shape and dtype
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
        return outside_signature(self.outside, self.modules) == self.outside_signature

    def __call__(self, tensors: list[Tensor]) -> Any:
        if self.structure is None:
            if self.differentiable[0]:  # (for this signature: an argument or a parameter requires grad)
                return Replay.apply(self, *tensors, *self.params)
            return Tensor._wrap(Replay.forward(_function._quiet_context(), self, *tensors), self.backend)
        if any(self.differentiable) and grad_mode.is_grad_enabled():
            outs = Replay.apply(self, *tensors, *self.params)
        else:
            arrays = Replay.forward(_function._quiet_context(), self, *tensors)
            outs = tuple(Tensor._wrap(a, self.backend) for a in arrays)
        return unflatten(self.structure, iter(outs))

    def run_forward(self, tensors: tuple, train: bool, with_backward: bool = True) -> tuple[Any, Any]:
        """The result(s) and, with `train`, what the backward reads: the saved values, or the
        gradients computed with the result (`train_and_backward`, unless `with_backward` is False)."""
        if train and with_backward and self.train_and_backward is not None:
            return self._run_with_backward(tensors)
        with LOCK:
            try:
                for reg, t in zip(self.inputs, tensors):
                    reg.data = t.data
                opaque: list[Any]
                self.opaque = opaque = []
                run_steps(self.train if train else self.infer)
                if self.structure is None:
                    out = self.output.data  # type: ignore[union-attr]  # build sets output on every Program
                else:
                    out = tuple(r.data for r in self.outputs)
                saved = [[r.data for r in self.saved], opaque] if train else None
            finally:
                self._clear()
        return out, saved

    def _run_with_backward(self, tensors: tuple) -> tuple[Any, Any]:
        """The forward and its backward for a seed of 1 in one blocked pass (`train_and_backward`):
        the result, and the gradients in place of the saved values (`Precomputed`)."""
        seed = self.seed
        assert seed is not None and self.train_and_backward is not None  # (build makes it with a seed only)
        with LOCK:
            try:
                for reg, t in zip(self.inputs, tensors):
                    reg.data = t.data
                dtype = self.output_meta[0][1]  # (the seed `loss.backward()` gives: 1, of the loss's dtype)
                seed.data = self.backend.xp.asarray(1, dtype=dtype, device=self.backend.device_of(tensors[0].data))
                run_steps(self.train_and_backward)
                out = self.output.data  # type: ignore[union-attr]  # build sets output on every Program
                grads = [None if reg is None else reg.data for reg in self.grads]
            finally:
                self._clear()
        return out, [Precomputed(grads), []]

    def _clear(self) -> None:
        """Every register let go of (after a replay, and after one that raised part-way)."""
        for reg in self.registers:
            reg.data = None
        self.opaque = []

    def run_backward(self, saved: list, gs: list[Any], keep: bool, tensors: Any = ()) -> list[Any]:
        """The gradients for `saved` (what a forward kept), given the gradient of each result (None
        for one that got none); without `keep` they are let go of as the steps finish with them (the
        saved list is emptied), as an eager backward frees its nodes. Where the forward computed the
        gradients for a seed of 1 (`Precomputed`) and the seed is another, the forward runs again on
        `tensors` (its arguments, as the Replay node saved them), keeping its values this time."""
        arrays, self_opaque = saved
        if type(arrays) is Precomputed:
            g = gs[0]
            if g is None or bool(g == 1):
                grads = arrays.handed(keep, saved)
                return [None] * len(grads) if g is None else grads
            saved = list(self.run_forward(tuple(tensors), train=True, with_backward=False)[1])
            arrays, self_opaque = saved
        if not keep:
            saved[:] = [(), ()]
        steps, loads = self.backward, None
        seeds = [(reg, g) for reg, g in zip(self.seeds, gs) if reg is not None]
        if len(seeds) == 1:
            g = seeds[0][1]
            if g is None:  # (its one result with a gradient got none: no gradient to give)
                return [None] * len(self.grads)
            if self.backward_one is not None and not self.backend.lazy and g.shape == () and bool(g == 1):
                steps, loads = self.backward_one, self.saved_one
        else:  # a result that got no gradient is given zeros (as the engine gives a Function's several)
            like = next((g for g in gs if g is not None), None)
            if like is None:  # (no result got one: no gradient to give)
                return [None] * len(self.grads)
            xp, device = self.backend.xp, self.backend.device_of(like)
            seeds = [(reg, xp.zeros(shape, dtype=dtype, device=device) if g is None else g)
                     for (reg, g), (shape, dtype) in zip(seeds, [m for m, r in zip(self.output_meta, self.seeds)
                                                                  if r is not None])]
        g = like = None
        with LOCK:
            for k, (reg, a) in enumerate(zip(self.saved, arrays)):
                if loads is None or loads[k]:
                    reg.data = a
            for reg, g in seeds:
                reg.data = g
            self.opaque = self_opaque
            arrays = self_opaque = g = None  # the registers hold them now, and let go after their last step
            seeds.clear()
            gs.clear()
            try:
                run_steps(steps, reuse=not keep)
                grads = [None if reg is None else reg.data for reg in self.grads]
            finally:
                self._clear()
        return grads


class Precomputed:
    """The gradients a forward computed with its result, for a seed of 1 (`train_and_backward`)."""

    __slots__ = ("grads",)

    def __init__(self, grads: list[Any]) -> None:
        self.grads = grads

    def handed(self, keep: bool, saved: list) -> list[Any]:
        """The gradients, let go of here (`saved` emptied); with `keep` (a retained graph) copies, so
        that no backward hands out an array that the next hands out again."""
        if not keep:
            saved[:] = [(), ()]
            return self.grads
        return [None if a is None else a.copy() for a in self.grads]


def run_steps(steps: list[Step] | Blocked, reuse: bool = False) -> None:
    """The replay loop: each step writes its register and lets go of the ones it used last
    (a block at a time for a `Blocked` list, whose results may take arrays a backward is done with
    where `reuse`)."""
    if type(steps) is Blocked:
        steps.run(run_steps, reuse)
        return
    if type(steps) is Steps:  # (what `build` makes: generated straight-line code once warm, `straight`)
        steps.run()
    else:
        run_each(steps)


# ------------------------------------------------- opaque nodes: run as in eager mode, on each call
def opaque_forward(p: Program, fn: type[Function], needs: tuple[bool, ...]) -> Callable[..., Any]:
    """The forward of a node whose backward is a call: with its own Context and History, kept per call."""

    def forward(_: Any, *args: Any) -> Any:
        ins = tuple(Tensor._wrap(a.data, a.backend) if isinstance(a, Tensor) else a for a in args)
        ctx = Context()
        ctx.needs_input_grad = needs
        out = fn.forward(ctx, *ins)
        data = out.data if type(out) is Tensor else out
        node = History(fn, ctx, ins, (), data.shape, data.dtype, p.backend)
        if fn.saves_output:
            ctx.keep_output(data, node, Tensor)
        p.opaque.append(node)
        return data

    return forward


def opaque_backward(p: Program, name: str, index: int, outs: tuple) -> Callable[..., None]:
    """The backward of such a node: its History's chain_rule, each gradient into its register."""
    wanted = dict(outs)

    def backward(_: Any, d: Tensor) -> None:
        node = p.opaque[index]
        for inp, g in node.chain_rule(Tensor._wrap(d.data, p.backend), grad_mode._state.retain_graph):
            reg = wanted.get(next(i for i, e in enumerate(node.edges) if e is inp))
            if reg is not None:
                reg.data = g.data
        missing = [i for i, reg in outs if reg.data is None]
        if missing:
            raise RuntimeError(f"compile: {name}.backward gave no gradient for input(s) {missing} "
                               f"on this call, where it gave one when recorded")

    return backward
