"""Cache blocking: a compiled list of elementwise steps, replayed a block of elements at a time.

NumPy runs each op over whole arrays: a chain of twenty elementwise ops on
4,000,000 values streams some forty arrays of 16 MB through memory, and the
arithmetic waits for it. The same chain run on slices of a few hundred
kilobytes keeps every intermediate in the CPU's cache; only what outlives
the steps (what backward reads, the gradients, the result) is written out,
block by block, into arrays of full size. Each element goes through the same
ops in the same order, so every value is the same to the bit but one: a full
sum is the sum of the blocks' sums, which rounds differently from one sum
over the whole array (as a sum computed with another number of threads does).
A result made last by a fused kernel or by a one-ufunc op (`_WRITES_INTO`) is
written by it straight into its block of the full array, not made in the
cache and copied out (the copy was about a seventh of a compiled W3).

`plan` says whether a step list qualifies: its backend says that blocking pays
(`Backend.blocks_elementwise`: NumPy; not a GPU, whose kernels have no such
cache to keep, nor a lazy or an immutable library), every value it touches is
real floating and has one shape (of at least `MIN_BLOCKS` blocks) or none,
and every step is an elementwise Function (`Function.elementwise`), a
broadcast of a 0-d value to that shape (a backward's seed), or one sum of a
whole array, after which only 0-d steps follow (a loss's last arithmetic).

Example:
    >>> import numpy as np, torchlight as tl
    >>> x = tl.tensor(np.linspace(-2.0, 2.0, 1_000_000), requires_grad=True)
    >>> f = tl.compile(lambda x: (x.tanh() * x).sum())
    >>> f(x).backward()
    >>> program = f.programs[next(iter(f.programs))][0]
    >>> type(program.backward_one).__name__
    'Blocked'
    >>> bool(np.allclose(x.grad.numpy(), np.tanh(x.numpy()) + x.numpy() / np.cosh(x.numpy()) ** 2))
    True
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Set
from typing import Any, final

from torchlight.compile.steps import BuildStep, Step
from torchlight.compile.straight import Steps
from torchlight.ops.arithmetic import Add, Div, Mul, Neg, Sub
from torchlight.ops.elementwise import Exp, Log, Sqrt
from torchlight.ops.reductions import Sum
from torchlight.ops.shapes import BroadcastView
from torchlight.ops.trigonometric import Tanh
from torchlight.tensor import Tensor

# The bytes of one array's block: the few arrays a step list holds at once stay in a core's cache.
BLOCK_BYTES = 1 << 20
# Below this many blocks, the steps' Python work per block outweighs what the cache saves.
MIN_BLOCKS = 4


@final  # never subclassed: `type(steps) is Blocked` tells the two kinds of step list apart
class Blocked:
    """The steps of a list that qualifies, and what to slice and to gather around them."""

    __slots__ = ("loop", "after", "reads", "results", "reusable", "total", "sums", "sum_dtype", "shape",
                 "block", "backend", "length", "outside", "destinations", "kernel_sums")

    def __init__(self) -> None:
        self.loop: list[Step] = Steps()   # the steps run on each block
        self.after: list[Step] = Steps()  # the sum (of the blocks' sums) and the 0-d steps after it
        self.reads: list[Tensor] = []     # registers read before the steps write them: sliced, or 0-d
        self.results: list[tuple[Tensor, Any]] = []  # registers of the full shape that outlive the steps, dtypes
        self.reusable: set[Tensor] = set()  # reads that are the program's own: a result may take one's array
        self.total: Tensor | None = None  # the register the sum reads, if the list sums
        self.sums: Tensor | None = None   # the register of the blocks' sums, which the sum step reads
        self.sum_dtype: Any = None
        self.shape: tuple[int, ...] = ()
        self.block = 0
        self.backend: Any = None
        self.length: tuple[int] = (0,)    # the current block's shape (a broadcast seed takes it)
        self.outside: list[tuple[Tensor, Tensor]] = []  # (register, tensor from outside fn) it reads
        # per result, the block of its full array that the step making it writes into
        # (`_write_results_in_place`), or None: that step makes a new array, copied into the full one
        self.destinations: list[Any] = []
        self.kernel_sums = False  # whether the kernel making `total` sums its block itself (`_sum_in_kernel`)

    def run(self, run_steps: Callable[[list[Step]], None], reuse: bool) -> None:
        """The steps, block by block. With `reuse`, a result may be written over a read array
        that nothing reads after these steps (a saved value, in a backward that keeps nothing)."""
        for reg, t in self.outside:
            reg.data = t.data
        outer = [(reg, reg.data) for reg in self.reads]
        try:
            spare = [data for reg, data in outer if reuse and reg in self.reusable]
            outs = [(reg, *self._storage(dtype, spare)) for reg, dtype in self.results]
            partials = self._run_blocks(run_steps, outer, outs)
        finally:  # every register read holds its whole array again; no tensor from outside is kept
            for reg, data in outer:
                reg.data = data
            for reg, _ in self.outside:
                reg.data = None
            self.destinations[:] = [None] * len(self.destinations)  # (no block of this call kept)
        for reg, full, _, _ in outs:
            reg.data = full
        if partials is not None:  # (only where the list sums: then `sums` and `total` are set)
            self.sums.data = partials  # type: ignore[union-attr]  # sums is set where partials is
            try:
                run_steps(self.after)
            finally:
                self.sums.data = None  # type: ignore[union-attr]

    def _run_blocks(self, run_steps: Callable[[list[Step]], None], outer: list[tuple],
                    outs: list[tuple]) -> Any:
        """The loop's steps on each block in turn, each result's block copied out; the blocks'
        sums (None if the steps do not end in a sum)."""
        xp, shape, block = self.backend.xp, self.shape, self.block
        size = math.prod(shape)
        sliced = [(reg, xp.reshape(data, (-1,)) if data.shape == shape else None, data) for reg, data in outer]
        partials = None if self.total is None else xp.empty((-(-size // block),), dtype=self.sum_dtype)
        destinations = self.destinations
        for k, start in enumerate(range(0, size, block)):
            stop = min(start + block, size)
            self.length = (stop - start,)
            for reg, flat, data in sliced:
                reg.data = data if flat is None else flat[start:stop]
            for i, (_, _, flat, fresh) in enumerate(outs):
                destinations[i] = flat[start:stop] if fresh else None
            run_steps(self.loop)
            for i, (reg, _, flat, _) in enumerate(outs):
                if reg.data is not destinations[i]:  # (None too: a kernel that made its own array)
                    flat[start:stop] = reg.data
            if partials is not None:  # (total is set where partials is)
                data = self.total.data  # type: ignore[union-attr]
                partials[k] = data if self.kernel_sums else xp.sum(data)
        return partials

    def _storage(self, dtype: Any, spare: list[Any]) -> tuple[Any, Any, bool]:
        """A full array for a result of `dtype`, its flat view, and whether it is new: a spare read
        array of that dtype (which the block's steps still read: written once they are done), or a
        new one (which the kernel making the result may write each block into)."""
        xp = self.backend.xp
        for k, data in enumerate(spare):
            if data.dtype == dtype and self.backend.owns_fresh_memory(data):
                flat = _flat_view(xp, data)
                if flat is not None:
                    del spare[k]
                    return data, flat, False
        full = xp.empty(self.shape, dtype=dtype)
        return full, xp.reshape(full, (-1,)), True

    def broadcast(self, ctx: Any, a: Tensor, shape: tuple[int, ...]) -> Any:
        """BroadcastView's forward in a block: the 0-d value broadcast to the block (a view,
        which no step overwrites)."""
        return self.backend.xp.broadcast_to(a.data, self.length)


def _flat_view(xp: Any, data: Any) -> Any:
    try:
        return xp.reshape(data, (-1,), copy=False)
    except ValueError:  # not contiguous: a reshape would copy
        return None


def plan(steps: list[BuildStep], finished: list[Step], registers: set[Tensor], keep: set[Tensor],
         spare: Set[Tensor], meta: dict[Tensor, tuple], backend: Any) -> Blocked | None:
    """The blocked replay of a step list, or None where it does not qualify (see the module).

    `steps` are the list as built; `finished` the same steps as the program runs them;
    `keep` the registers that outlive the list; `spare` those whose arrays the program made
    itself and nothing reads after the list (a backward's saved values, which a backward
    that keeps nothing may write its gradients over).
    """
    if not steps or not backend.blocks_elementwise:
        return None
    if not all(s.fn in (Sum, BroadcastView) or getattr(s.fn, "elementwise", False) for s in steps):
        return None
    # a tensor from outside fn (a parameter, a constant) is read through a register of the plan's own
    outside = {a: Tensor._wrap(None, backend) for s in steps for a in s.args
               if isinstance(a, Tensor) and a not in registers}
    meta = {**meta, **{t: (tuple(t.shape), t.dtype) for t in outside}}
    used = _used(steps)
    shape = _one_shape(used, meta)
    if shape is None or not all(backend.xp.isdtype(meta[r][1], "real floating") for r in used):
        return None
    block = max(BLOCK_BYTES // max(backend.xp.finfo(meta[r][1]).bits // 8 for r in used), 1)
    if math.prod(shape) < MIN_BLOCKS * block:
        return None
    total = _sum_step(steps, meta, shape)
    if total is False:
        return None
    b = Blocked()
    b.shape, b.block, b.backend = shape, block, backend
    end = len(steps) if total is None else total
    b.outside = [(proxy, t) for t, proxy in outside.items()]
    for built, step in zip(steps[:end], finished[:end]):
        args = tuple(outside.get(a, a) if isinstance(a, Tensor) else a for a in step.args)
        if built.fn is BroadcastView:  # (to the block's length: the op's own kernel would broadcast to the whole)
            b.loop.append(dataclasses.replace(step, forward=b.broadcast, args=args, kernel=None))
        else:
            b.loop.append(dataclasses.replace(step, args=args))
    if total is not None:
        step = finished[total]
        summed = step.args[0]
        b.total, b.sums = outside.get(summed, summed), Tensor._wrap(None, backend)  # (the summed may be saved too)
        b.sum_dtype = meta[summed][1]
        b.after = Steps([dataclasses.replace(step, args=(b.sums, (0,), False)), *finished[total + 1:]])
    reads, written = _reads_and_writes(steps[:end + 1], outside)  # (with the sum: what it reads is sliced)
    b.reads = reads
    b.results = [(r, meta[r][1]) for r in written if meta[r][0] == shape and r in keep]
    b.reusable = {r for r in reads if r in spare and meta[r][0] == shape}
    _write_results_in_place(b, steps[:end], meta)
    if b.total is not None:
        _sum_in_kernel(b)
    return b


def _sum_in_kernel(b: Blocked) -> None:
    """Where a fused kernel of the loop makes the summed value and nothing but the sum reads it (no
    other step, no result, no later step), that kernel sums its block itself (`forward.summing`: a
    float32 kernel's, added in float64), so that the value never reaches memory: one block written
    and read back, and NumPy's sum of it, fewer per block."""
    total = b.total
    makers = [i for i, step in enumerate(b.loop) if step.out is total]
    if len(makers) != 1:
        return
    step = b.loop[makers[0]]
    summing = getattr(step.forward, "summing", None)
    read = any(a is total for s in b.loop for a in s.args) or any(a is total for s in b.after[1:] for a in s.args)
    if summing is None or read or any(r is total for r, _ in b.results):
        return
    b.loop[makers[0]] = dataclasses.replace(step, forward=summing, kernel=None)
    b.kernel_sums = True


#: the ops whose forward is one call of the namespace's function of this name (an out= ufunc on
#: NumPy), on Tensors of one dtype: a result they make can be written into its block as it is made
_WRITES_INTO = {Add: "add", Sub: "subtract", Mul: "multiply", Div: "divide", Neg: "negative", Exp: "exp",
                Log: "log", Sqrt: "sqrt", Tanh: "tanh"}


def _write_results_in_place(b: Blocked, steps: list[BuildStep], meta: dict[Tensor, tuple]) -> None:
    """Each result made last by a fused kernel or by one of `_WRITES_INTO` is written straight into
    its block of the full array (`Blocked.destinations`), not into a new array then copied there:
    one pass over the result's memory fewer, the same bits (the same kernel)."""
    b.destinations = [None] * len(b.results)
    for slot, (reg, dtype) in enumerate(b.results):
        last = max((i for i, step in enumerate(b.loop) if step.out is reg), default=None)
        if last is None:
            continue
        into = getattr(b.loop[last].forward, "into", None)
        if into is None:
            into = _ufunc_into(steps[last], dtype, meta, b.backend)
        if into is None:
            continue

        def forward(ctx: Any, *tensors: Tensor, into: Any = into, slot: int = slot) -> Any:
            return into(b.destinations[slot], *tensors)

        fused = getattr(b.loop[last].forward, "fused", None)
        if fused is not None:  # (a fused kernel stays one: `fusion.fused_steps` counts it)
            forward.fused = fused  # type: ignore[attr-defined]
        forward.writes_result = reg  # type: ignore[attr-defined]  # (what the tests read)
        b.loop[last] = dataclasses.replace(b.loop[last], forward=forward, kernel=None)


def _ufunc_into(step: BuildStep, dtype: Any, meta: dict[Tensor, tuple], backend: Any) -> Any:
    """`into(out, *tensors)` for a step of `_WRITES_INTO` whose arguments are all Tensors of the
    result's dtype (no promotion for `out` to cast), else None."""
    name = _WRITES_INTO.get(step.fn)  # type: ignore[arg-type]  # (fn None: an opaque node)
    if name is None or not all(type(a) is Tensor and meta.get(a, (None, None))[1] == dtype for a in step.args):
        return None
    ufunc, call_into = getattr(backend.xp, name), backend.call_into

    def into(out: Any, *tensors: Tensor) -> Any:
        arrays = [t.data for t in tensors]
        # (a library that cannot write into `out` returns a new array: `_run_blocks` copies it)
        return ufunc(*arrays) if out is None else call_into(out, ufunc, *arrays)

    return into


def _reads_and_writes(steps: list[BuildStep], outside: dict[Tensor, Tensor]) -> tuple[list[Tensor], list[Tensor]]:
    """The registers the steps read before writing them (a tensor from outside: its register), in
    order of first read, and the registers they write."""
    written: dict[Tensor, None] = {}
    reads: dict[Tensor, None] = {}
    for step in steps:
        for a in step.args:
            if isinstance(a, Tensor) and a not in written:
                reads.setdefault(outside.get(a, a))
        written.setdefault(step.out)
    return list(reads), list(written)


def _used(steps: list[BuildStep]) -> set[Tensor]:
    """The tensors the steps read or write: registers, and tensors from outside fn."""
    return {s.out for s in steps} | {a for s in steps for a in s.args if isinstance(a, Tensor)}


def _one_shape(used: set[Tensor], meta: dict[Tensor, tuple]) -> tuple[int, ...] | None:
    """The one shape other than () of the registers the steps touch (None if there are several, or none)."""
    shapes = {meta[r][0] for r in used} - {()}
    return next(iter(shapes)) if len(shapes) == 1 else None


def _sum_step(steps: list[BuildStep], meta: dict[Tensor, tuple], shape: tuple[int, ...]) -> int | None | bool:
    """The position of the one full sum (None if there is none), or False if a step does not qualify."""
    total = None
    for k, step in enumerate(steps):
        fn, args, out = step.fn, step.args, meta[step.out][0]
        if len(step.writes) != 1 or step.writes[0] is not step.out or (total is not None and out != ()):
            return False
        if fn is Sum:
            summed, dims, keepdim = args
            if total is not None or keepdim or tuple(dims) != tuple(range(len(shape))) or meta[summed][0] != shape:
                return False
            total = k
        elif fn is BroadcastView:
            if not (isinstance(args[0], Tensor) and meta[args[0]][0] == () and out == shape):
                return False
        else:  # elementwise: Tensors (every one a register by now) and numbers
            if not all(isinstance(a, (Tensor, bool, int, float)) for a in args):
                return False
            tensors = [a for a in args if isinstance(a, Tensor)]
            if out != (shape if any(meta[a][0] == shape for a in tensors) else ()):
                return False
    return total
