"""Small-array kernels: a warm step list's elementwise runs, each one numba loop with several outputs.

On small arrays a step's cost is NumPy's call, not its arithmetic: W1's
sixteen-element ops cost some 0.4 us each, of which the sixteen values take
a few nanoseconds. A run of consecutive elementwise steps (the ops that
`fusion.EXPRESSIONS` turns into expressions, and sigmoid, on one real
floating dtype and one shape, a 0-d value and a number standing for every
element) is then one loop over the elements, each op a line of it on one
element's scalars:

    def kernel(x0, x1, x2, c0, out):
        for i in range(out.shape[1]):
            a0 = x0[i]
            a1 = x1[i]
            t0 = (a0 * a1)
            t1 = tanh(t0)
            out[0, i] = t1

A value something after the run reads (or that outlives the list) is a row
of the run's one output array (a result or a gradient handed out, an
array of its own); every other value is a local that never
reaches memory, however many ops read it. Unlike `fusion`'s kernels (big
arrays, one result each, no transcendental function), these pay no pass
over memory per value at all; they are made only where the arrays are small
enough that NumPy's calls cost more than numba's scalar transcendental
functions (`worth_it`).

Compiling costs numba about 10 ms an op (`COMPILE_SECONDS`), some ten
thousand of W1's replays, so by default a list makes its kernels at the
replay by which its replays are estimated to have cost as much as
compiling them will (`kernel_replays`; `straight.Steps` counts): a
function called a few hundred times never pays it, and one called in a
long training loop pays it once, at most doubling the time it has run so
far (the ski-rental rule). The estimate is a count, not a clock, so every
run of a program switches at the same call. Arithmetic gives
the bits NumPy gives (the same IEEE operations in the same order, numba
contracting none into a fused multiply-add); a transcendental function may
differ from NumPy's in the last place. The loop is also valid Python on
NumPy scalars (`python_loop`): what the tests run where numba is missing.

Example:
    >>> import numpy as np, torchlight as tl
    >>> from torchlight.compile import small_kernels
    >>> x = tl.tensor(np.array([0.5, 1.0]), requires_grad=True)
    >>> f = tl.compile(lambda x: (x.tanh() * x).sum())
    >>> f(x).backward()
    >>> program = f.programs[next(iter(f.programs))][0]
    >>> run = program.infer.runs[0]
    >>> run.ops, len(run.outputs)  # (tanh and the product: the sum's operand its one output)
    (2, 1)
    >>> print(run.source.splitlines()[4])
            t1 = (t0 * a0)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from torchlight.compile import fusion
from torchlight.compile.steps import BuildStep, Step
from torchlight.ops.activations import Sigmoid, _exp_limit
from torchlight.ops.shapes import BroadcastView
from torchlight.tensor import Tensor

__all__ = ["COMPILE_SECONDS", "LOOP_MAKER", "STEP_SECONDS", "Run", "find_runs", "kernel_replays",
           "numba_loop", "python_loop", "worth_it"]

#: numba's time to compile a kernel, per op in it (about 1 s for W1's hundred ops, 2 s for 200)
COMPILE_SECONDS = 0.01
#: what a replay costs per step on small arrays (W1's: NumPy's call and the replay's own work)
STEP_SECONDS = 1e-6
#: the fewest ops a run has to be worth a kernel
MIN_OPS = 2
# What an op costs on n float64 elements, in ns: NumPy, a call (about 360 ns on 16 elements) plus
# `_NUMPY_NS` an element; a numba loop, `_LOOP_NS` an element (measured on 100,000 elements on this
# project's 2-core AMD EPYC machine: NumPy's vectorised exp, log, tanh and pow against numba's calls
# of the C library). An op not named is arithmetic: `_ARITHMETIC` (NumPy, loop).
_NUMPY_CALL_NS = 400.0
_NUMPY_NS = {"exp": 1.0, "log": 1.1, "tanh": 2.1, "sin": 10.0, "cos": 9.2, "sqrt": 1.2, "pow": 2.7}
_LOOP_NS = {"exp": 5.6, "log": 5.6, "tanh": 18.5, "sin": 10.3, "cos": 9.5, "sqrt": 0.6, "pow": 10.7}
_ARITHMETIC = (0.3, 0.2)


@dataclass(eq=False)
class Run:
    """A run of a step list's steps (`start` to `stop`) as one kernel: its loop's source, what it reads
    (the `inputs`' arrays, a 0-d one as its scalar, then the `constants`) and writes (`outputs`: each
    a row of one array of `(rows, *shape)`, or where `own` says so, a value handed out of the program,
    an array of its own), and the registers let go of after it (`frees`)."""

    start: int
    stop: int
    source: str
    inputs: tuple[Tensor, ...]
    scalars: tuple[bool, ...]  # per input: whether it is 0-d (passed as its scalar)
    constants: tuple           # the numbers, each a scalar of the kernel's dtype
    outputs: tuple[Tensor, ...]
    own: tuple[bool, ...]      # per output: an array of its own (a result or a gradient), not a row
    frees: tuple[Tensor, ...]
    shape: tuple[int, ...]
    dtype: Any
    ops: int
    functions: tuple[str, ...]  # the calls its ops make that cost more than arithmetic (`worth_it`)
    loop: Callable[..., None] | None = field(default=None)  # the compiled loop, once made

    @property
    def compile_seconds(self) -> float:
        """What compiling its loop is estimated to take (`COMPILE_SECONDS` an op)."""
        return COMPILE_SECONDS * self.ops

    def make_loop(self) -> bool:
        """Make the loop (`LOOP_MAKER`); False where it cannot be made (numba is missing, or cannot
        compile it: the run then stays steps)."""
        try:
            self.loop = LOOP_MAKER(self)
        except Exception:  # noqa: BLE001 (numba's typing and lowering errors have no common base)
            return False
        return True

    def lines(self, k: int, names: dict[str, Any]) -> list[str]:
        """The straight-line replay's lines for this run (`straight._source`), its names bound in
        `names` with suffix `k`: a new output array, the loop called on it, its rows into the registers."""
        assert self.loop is not None, "small_kernels: a Run's lines before its loop is made"
        names[f"L{k}"], names[f"E{k}"], names[f"T{k}"] = self.loop, np.empty, self.dtype
        flat = len(self.shape) != 1
        args = []
        for j, (t, scalar) in enumerate(zip(self.inputs, self.scalars)):
            names[f"I{k}_{j}"] = t
            args.append(f"I{k}_{j}.data[()]" if scalar else f"I{k}_{j}.data.reshape(-1)" if flat
                        else f"I{k}_{j}.data")
        for j, c in enumerate(self.constants):
            names[f"N{k}_{j}"] = c
            args.append(f"N{k}_{j}")
        rows = sum(not own for own in self.own)
        n = math.prod(self.shape)
        lines = [f"    b = E{k}({(rows, *self.shape)}, dtype=T{k})"]
        args.append(f"b.reshape({rows}, {n})" if flat else "b")
        unpack = []
        for j, (t, own) in enumerate(zip(self.outputs, self.own)):
            names[f"P{k}_{j}"] = t
            if own:
                lines.append(f"    P{k}_{j}.data = E{k}({self.shape}, dtype=T{k})")
                args.append(f"P{k}_{j}.data.reshape({n})" if flat else f"P{k}_{j}.data")
            else:
                unpack.append(f"P{k}_{j}.data")
        lines.append(f"    L{k}({', '.join(args)})")
        if unpack:
            lines.append(f"    {', '.join(unpack)}, = b")
        lines.append("    b = None")
        for j, t in enumerate(self.frees):
            names[f"Q{k}_{j}"] = t
            lines.append(f"    Q{k}_{j}.data = None")
        return lines


def kernel_replays(steps: list[Step], runs: Iterable[Run]) -> int:
    """The replay of `steps` at which its runs' kernels are made by default: the first by which its
    replays are estimated to have taken as long as compiling the kernels will (`STEP_SECONDS` a
    step, `COMPILE_SECONDS` an op), so that making them at most doubles the time spent so far."""
    return math.ceil(sum(r.compile_seconds for r in runs) / (STEP_SECONDS * max(len(steps), 1)))


def find_runs(build: list[BuildStep], steps: list[Step], keep: set[Tensor], handed: set[Tensor],
              meta: dict[Tensor, tuple], backend: Any, limit: int) -> list[Run]:
    """The runs of `build` (the list `steps` was finished from, step for step) worth a kernel each,
    none crossing a multiple of `limit` steps (the straight-line replay's chunks); `keep`: the
    registers that outlive the list, `handed` those of them handed out of the program (its results
    and gradients: each gets an array of its own, so that none holds the others' memory)."""
    if not fusion.ENABLED or backend.fused_kernels != "cpu":  # (numba is looked for when a loop is made)
        return []
    runs: list[Run] = []
    start = 0
    while start < len(build):
        stop = start
        while stop < len(build) and (stop == start or stop % limit) and _fusable(build[stop], meta, backend):
            if stop > start and meta[build[stop].out] != meta[build[start].out]:
                break
            stop += 1
        if stop - start >= MIN_OPS:
            run = _run(build, steps, start, stop, keep, handed, meta)
            if run is not None and worth_it(run):
                runs.append(run)
        start = max(stop, start + 1)
    return runs


def worth_it(run: Run) -> bool:
    """Whether the run's loop is estimated to cost less than its steps' NumPy calls (`_NUMPY_NS`)."""
    n = math.prod(run.shape)
    arithmetic = run.ops - len(run.functions)
    numpy = run.ops * _NUMPY_CALL_NS + n * (arithmetic * _ARITHMETIC[0] + sum(_NUMPY_NS[f] for f in run.functions))
    loop = n * (arithmetic * _ARITHMETIC[1] + sum(_LOOP_NS[f] for f in run.functions))
    return loop < numpy


def _fusable(s: BuildStep, meta: dict[Tensor, tuple], backend: Any) -> bool:
    """Whether step `s` runs its op's own forward, on small arrays, as an expression (`fusion._tree`)."""
    if s.fn is None or s.forward is not getattr(s.fn, "forward", None) or s.out not in meta:
        return False
    size = math.prod(meta[s.out][0])
    if meta[s.out][0] == () or size == 0 or size >= fusion.MIN_ELEMENTS:
        return False
    return fusion._tree(s, meta, backend, transcendental=True) is not None


def _run(build: list[BuildStep], steps: list[Step], start: int, stop: int, keep: set[Tensor],
         handed: set[Tensor], meta: dict[Tensor, tuple]) -> Run | None:
    """The Run of `build[start:stop]` (steps that `_fusable` took, of one shape and dtype)."""
    shape, dtype = meta[build[start].out]
    part = build[start:stop]
    written = {s.out for s in part}
    later = {a for s in build[stop:] for a in s.args if type(a) is Tensor}
    names: dict[Any, str] = {}  # a Tensor read or written: its local; a constant's key: its parameter
    inputs: list[Tensor] = []
    body: list[str] = []
    functions: list[str] = []
    outputs: list[Tensor] = []
    for k, s in enumerate(part):
        args = s.args[:1] if s.fn is BroadcastView else s.args  # (a broadcast of a 0-d value: the value)
        for a in args:
            if type(a) is Tensor and a not in names:
                if a in written:  # (read before its step writes it: not a list in order)
                    return None
                names[a] = f"a{len(inputs)}"
                inputs.append(a)
        operands = [("var", a) if type(a) is Tensor else ("const", a) for a in args]
        out = names[s.out] = f"t{k}"
        lines, called = _statements(s.fn, operands, out, names, dtype)
        body.extend(lines)
        functions.extend(called)
        if s.out in keep or s.out in later:
            outputs.append(s.out)
    if not outputs:
        return None
    scalars = tuple(fusion._meta(a, meta)[0] == () for a in inputs)
    constants = [k for k in names if type(k) is tuple]
    loads = [f"        a{j} = x{j}" + ("" if scalar else "[i]") for j, scalar in enumerate(scalars)]
    own = tuple(t in handed for t in outputs)
    params = [*(f"x{j}" for j in range(len(inputs))), *(names[k] for k in constants), "out",
              *(f"o{j}" for j, o in enumerate(own) if o)]
    rows = iter(range(len(outputs)))
    stores = [f"        o{j}[i] = {names[t]}" if o else f"        out[{next(rows)}, i] = {names[t]}"
              for j, (t, o) in enumerate(zip(outputs, own))]
    source = "\n".join([f"def kernel({', '.join(params)}):", "    for i in range(out.shape[1]):",
                        *loads, *body, *stores]) + "\n"
    frees = dict.fromkeys(r for s in steps[start:stop] for r in s.frees if r not in written)
    typed = tuple(np.asarray(k[2], dtype=dtype)[()] for k in constants)
    return Run(start, stop, source, tuple(inputs), scalars, typed, tuple(outputs), own, tuple(frees), tuple(shape),
               dtype, len(part), tuple(functions))


_PARTIAL = object()  # the key of a sigmoid's exp in a loop's names: the value its second line divides


def _statements(fn: Any, operands: list[tuple], out: str, names: dict[Any, str],
                dtype: Any) -> tuple[list[str], list[str]]:
    """The loop's lines computing one step of `fn` into local `out`, in the eager op's order of
    operations, and the functions they call that cost more than arithmetic (`_LOOP_NS`); each
    constant gets a parameter in `names`. A sigmoid is the two lines of the steps that
    `fusion.split_sigmoids` makes of it: exp(min(x, limit)), then e / (e + 1)."""
    if fn is Sigmoid:
        limit = ("const", float(_exp_limit(np, dtype)))
        names[_PARTIAL] = out
        trees = [("exp", fusion.EXPRESSIONS[fusion.ClipAbove](operands[0], limit)),
                 fusion.EXPRESSIONS[fusion.SigmoidTail](("var", _PARTIAL))]
    else:
        trees = [fusion.EXPRESSIONS[fn](*operands) if fn in fusion.EXPRESSIONS else operands[0]]
    lines, called = [], []
    for tree in trees:
        for key in _constants_in(tree):
            if key not in names:
                names[key] = f"c{sum(type(k) is tuple for k in names)}"
        lines.append(f"        {out} = {fusion._render(tree, names, lambda a, b: f'({a} ** {b})', {})}")
        called += [f for f in _calls(tree) if f in _LOOP_NS]
    return lines, called


def _constants_in(tree: tuple) -> list[tuple]:
    if tree[0] == "const":
        return [("const", type(tree[1]), tree[1])]
    return [] if tree[0] == "var" else [k for t in tree[1:] for k in _constants_in(t)]


def _calls(tree: tuple) -> list[str]:
    """The functions a tree calls, one entry a call."""
    if tree[0] in ("var", "const"):
        return []
    return [tree[0], *(f for t in tree[1:] for f in _calls(t))]


# ------------------------------------------------------------------------------------------- the loops
_LOOPS: dict[tuple, Callable[..., None]] = {}  # (source, dtype, scalars) -> its compiled loop (one per process)


def numba_loop(run: Run) -> Callable[..., None]:
    """The run's loop compiled by numba, now (its types given, so that a loop numba cannot compile
    raises here, not in a replay): one thread, NumPy's error model (inf and nan, no exception).
    Made once per process for each source and dtype."""
    key = (run.source, run.dtype, run.scalars)  # (the source names the outputs of their own)
    loop = _LOOPS.get(key)
    if loop is None:
        numba = importlib.import_module("numba")
        scalar = numba.from_dtype(run.dtype)
        array = numba.types.Array(scalar, 1, "A", readonly=True)  # (any input: a strided or a read-only view)
        signature = numba.types.void(*(scalar if s else array for s in run.scalars),
                                     *(scalar for _ in run.constants), numba.types.Array(scalar, 2, "C"),
                                     *(numba.types.Array(scalar, 1, "C") for o in run.own if o))
        loop = numba.njit(signature, error_model="numpy", nogil=True)(python_loop(run))
        _LOOPS[key] = loop
    return loop


def python_loop(run: Run) -> Callable[..., None]:
    """The run's loop as a Python function on NumPy scalars: numba's stand-in in the tests."""
    space: dict[str, Any] = {name: getattr(np, name) for name in fusion.LOOP_FUNCTIONS}
    exec(compile(run.source, "<torchlight small kernel>", "exec"), space)  # noqa: S102 (our own source)
    return space["kernel"]


#: what makes a run's loop (`Run.make_loop`): numba's, or the tests' stand-in
LOOP_MAKER: Callable[[Run], Callable[..., None]] = numba_loop
