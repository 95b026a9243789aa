"""Straight-line replay: a compiled step list run as one generated Python function.

A list replayed a step at a time (`run_each`) reads each step's fields,
calls the op's `forward` on register Tensors (a Python frame that reads each
argument's `.data`, and asks a quiet context to save nothing), stores the
result and walks the registers to free. On small arrays that bookkeeping
costs more than NumPy's own call (W1: about 1 us a step, against 0.5 us for
the kernel). A `Steps` list (what `build` makes), once it has been replayed
`WARM` times, generates the function its steps amount to, one line per step:

    O3.data = K3(A3_0.data, A3_1.data)     # a step whose op has an array kernel
    d = F4(C4, A4_0); O4.data = ...; d = None   # any other step: its forward, as before
    R2.data = None                          # a register read for the last time

Each name is one of the step's fields, bound in the function's globals. A
step calls its op's array kernel (`ARRAY_FORWARDS`: the op's forward as a
function of the arrays, the same calls in the same order, so results are
the same to the bit; a test holds every entry to its op's forward) where
the step runs the op's own forward; a step whose forward is something else
(a fused kernel, a write into an input's array, an opaque node, a derived
tensor's replay) calls it as the loop does. A long list is cut into
functions of `CHUNK` steps (CPython compiles one huge function slowly), run
one after another, and generated one per replay.

Example:
    >>> import numpy as np, torchlight as tl
    >>> from torchlight.compile.straight import source
    >>> x = tl.tensor(np.array([0.5, 1.0]), requires_grad=True)
    >>> f = tl.compile(lambda x: (x.tanh() * x).sum())
    >>> f(x).backward()
    >>> program = f.programs[next(iter(f.programs))][0]
    >>> print(source(program.infer).splitlines()[1])
        O0.data = K0(A0_0.data)
    >>> bool(np.allclose(x.grad.numpy(), np.tanh([0.5, 1.0]) + np.array([0.5, 1.0]) / np.cosh([0.5, 1.0]) ** 2))
    True
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from torchlight.compile.steps import Step
from torchlight.ops.activations import ReLU, Sigmoid, SigmoidBack, _sigmoid, _sigmoid_back
from torchlight.ops.arithmetic import Add, Div, Mul, Neg, Sub
from torchlight.ops.elementwise import Abs, Exp, Log, Sqrt
from torchlight.ops.linear_algebra import MatMul
from torchlight.ops.reductions import Sum
from torchlight.ops.shapes import BroadcastView, Reshape
from torchlight.ops.trigonometric import Tanh, TanhBack, _tanh_back
from torchlight.tensor import Tensor

if TYPE_CHECKING:
    from torchlight.compile.small_kernels import Run
    from torchlight.engine import Function

__all__ = ["ARRAY_FORWARDS", "CHUNK", "WARM", "WARM_LONG", "Steps", "array_kernel", "run_each", "source"]

# Each op's forward as a function of its arguments' arrays (a Tensor argument's array, any other
# argument as it is), given the array namespace and the backend: the calls its `forward` makes, in
# its order. (The ops made by `ops.common.unary_op`, sin to erf, need no row: `array_name` says it.)
ARRAY_FORWARDS: dict[type, Callable[[Any, Any], Callable[..., Any]]] = {
    Add: lambda xp, backend: operator.add,
    Sub: lambda xp, backend: operator.sub,
    Mul: lambda xp, backend: operator.mul,
    Div: lambda xp, backend: operator.truediv,
    Neg: lambda xp, backend: operator.neg,
    MatMul: lambda xp, backend: operator.matmul,
    Exp: lambda xp, backend: xp.exp,
    Log: lambda xp, backend: xp.log,
    Sqrt: lambda xp, backend: xp.sqrt,
    Abs: lambda xp, backend: xp.abs,
    Tanh: lambda xp, backend: xp.tanh,
    ReLU: lambda xp, backend: lambda x: xp.maximum(x, 0),
    Sigmoid: lambda xp, backend: lambda x: _sigmoid(xp, x),
    TanhBack: lambda xp, backend: functools.partial(_tanh_back, backend=backend),
    SigmoidBack: lambda xp, backend: _sigmoid_back,
    Sum: lambda xp, backend: lambda x, dims, keepdim: xp.sum(x, axis=dims, keepdims=keepdim),
    Reshape: lambda xp, backend: xp.reshape,
    BroadcastView: lambda xp, backend: lambda x, shape: xp.broadcast_to(x, tuple(shape)),
}
#: the most steps one generated function holds (a longer list is several, called in turn)
CHUNK = 2000
#: how many replays of a list run a step at a time before its code is generated; a list longer
#: than two chunks waits longer (its generating costs about 60 ms a chunk, paid a chunk per replay)
WARM = 8
WARM_LONG = 64


def array_kernel(fn: type[Function] | None, forward: Any, args: tuple) -> Callable[..., Any] | None:
    """The array kernel of a step that runs `fn.forward` on `args`, or None (not in the table, or
    a step whose forward is another function, or one without a Tensor argument to name its namespace)."""
    # (fn None: an opaque node's call; a fused kernel's class has no forward)
    if fn is None or forward is not getattr(fn, "forward", None):
        return None
    make = ARRAY_FORWARDS.get(fn)
    name = fn.__dict__.get("array_name")
    first = next((a for a in args if isinstance(a, Tensor)), None)
    if first is None:
        return None
    xp = first.backend.xp
    if make is not None:
        return make(xp, first.backend)
    return None if name is None else getattr(xp, name)


class Steps(list):
    """A step list that replays as generated straight-line code once it has run `WARM` times a
    step at a time (the list is not to change after its first run).

    Generating costs about 30 us a step (CPython's compiler, mostly), some fifty times what a
    replay saves per step, so a function called a few times never pays it, and one called in a
    training loop pays it once, early. A list of more than two chunks waits `WARM_LONG`
    replays, and then each replay generates one chunk of `CHUNK` steps, running the chunks
    made so far and the rest a step at a time, so that a long list (W5's 100,000 steps:
    about 3 s of generating) never stalls one call, and a program called a few dozen times
    never pays seconds for it.
    """

    __slots__ = ("_run", "_runs", "_parts", "runs", "kernel_replays", "kernels")

    def __init__(self, steps: Iterable[Step] = ()) -> None:
        super().__init__(steps)
        self._run: Callable[[], None] | None = None
        self._runs = 0  # the replays so far (counted until the code is generated and the kernels made)
        self._parts: list[Callable[[], None]] = []  # the generated functions of the first chunks
        # the elementwise runs that become kernels (`small_kernels`) at the `kernel_replays`-th
        # replay (a count, not a time, so that every run of a program switches at the same call)
        self.runs: list[Run] | None = None
        self.kernel_replays = 0
        self.kernels: list[Run] = []  # the runs whose kernels it replays

    def run(self) -> None:
        """Every step in order: what `program.run_steps` does with a plain list."""
        run = self._run
        if run is not None and self.runs is None:  # (warm, and nothing left to make)
            run()
            return
        self._runs += 1
        if run is not None:
            run()
        else:
            self._warm_up()
        if self.runs is not None and self._run is not None and self._runs >= self.kernel_replays:
            self.make_kernels()

    def make_kernels(self) -> None:
        """The list's code generated again with each run's kernel in place of its steps (a run whose
        loop cannot be made keeps its steps); the list then replays so, and counts nothing."""
        runs, self.runs = self.runs or [], None
        made = {r.start: r for r in runs if r.make_loop()}
        self.kernels = list(made.values())
        if made:
            parts = [_generate(self, start, made) for start in range(0, len(self), CHUNK)]
            self._parts, self._run = parts, parts[0] if len(parts) == 1 else _in_turn(parts)

    def _warm_up(self) -> None:
        """A replay before the code is generated: a step at a time for the first replays, then the
        generating, a chunk per replay."""
        if self._runs <= (WARM if len(self) <= 2 * CHUNK else WARM_LONG):
            run_each(self)
            return
        parts = self._parts
        parts.append(_generate(self, len(parts) * CHUNK))
        done = len(parts) * CHUNK
        if done >= len(self):
            run = self._run = parts[0] if len(parts) == 1 else _in_turn(parts)
            run()
            return
        for part in parts:
            part()
        run_each(self[done:])


def run_each(steps: list[Step]) -> None:
    """The steps one at a time: each writes its register and lets go of the ones it used last."""
    for step in steps:
        data = step.forward(step.ctx, *step.args)
        step.out.data = data.data if type(data) is Tensor else data
        data = None  # the register alone holds it: the next step may overwrite it (`build._try_into`)
        for reg in step.frees:
            reg.data = None


def source(steps: list[Step], start: int = 0, runs: dict[int, Run] | None = None) -> str:
    """The generated function of `steps` (named `run`), its names numbered from `start`; `runs`: the
    kernels made, by the index of their first step (`Steps.make_kernels`)."""
    return _source(steps, start, runs or {})[0]


def _source(steps: list[Step], start: int, runs: dict[int, Run]) -> tuple[str, dict[str, Any]]:
    """The source of one function and the values of the names it reads."""
    names: dict[str, Any] = {"Tensor": Tensor}
    lines = ["def run():"]
    inside = 0  # the steps of a kernel's run still to skip
    for k, step in enumerate(steps, start):
        if inside:
            inside -= 1
            continue
        kernel_run = runs.get(k)
        if kernel_run is not None:
            lines.extend(kernel_run.lines(k, names))
            inside = kernel_run.stop - kernel_run.start - 1
            continue
        kernel = step.kernel
        args = []
        for j, a in enumerate(step.args):
            names[f"A{k}_{j}"] = a
            args.append(f"A{k}_{j}.data" if kernel is not None and isinstance(a, Tensor) else f"A{k}_{j}")
        names[f"O{k}"] = step.out
        if kernel is not None:
            names[f"K{k}"] = kernel
            lines.append(f"    O{k}.data = K{k}({', '.join(args)})")
        else:
            names[f"F{k}"], names[f"C{k}"] = step.forward, step.ctx
            lines.append(f"    d = F{k}({', '.join([f'C{k}', *args])})")
            lines.append(f"    O{k}.data = d.data if type(d) is Tensor else d")
            lines.append("    d = None  # (the register alone holds it: the next step may write into it)")
        for j, reg in enumerate(step.frees):
            names[f"R{k}_{j}"] = reg
            lines.append(f"    R{k}_{j}.data = None")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines) + "\n", names


def _generate(steps: list[Step], start: int, runs: dict[int, Run] | None = None) -> Callable[[], None]:
    """The generated function running the chunk of `steps` from `start` (`CHUNK` steps at most)."""
    text, names = _source(steps[start:start + CHUNK], start, runs or {})
    exec(compile(text, "<torchlight compiled steps>", "exec"), names)  # noqa: S102 (our own source)
    return names["run"]


def _in_turn(parts: list[Callable[[], None]]) -> Callable[[], None]:
    """One function calling each chunk's in turn."""
    def run() -> None:
        for part in parts:
            part()

    return run
