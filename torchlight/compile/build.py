"""Turning a `Recording` into a `Program`: registers, step lists, their rewrites, and buffer reuse.

`build` gives every value of the recording a register and each recorded
node a step, then makes each list the program runs: dead steps dropped
(`_live`), `a + (-b)` folded into `a - b` (`_fold_negations`), a second
backward for a 0-d seed of exactly 1 with the products by it renamed away
(`_seeded_by_one`), each register freed after its last read, and an op
allowed to write its result over an input that nothing reads after it
(`_finish`, `_try_into`). A list of elementwise steps on big arrays is
replayed a block at a time instead (`blocking.plan`), and a run of elementwise steps
becomes one fused kernel where the backend has one (`fusion.fuse`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sys
from collections.abc import Callable, Set
from typing import TYPE_CHECKING, Any

from torchlight.compile import derive, straight
from torchlight.compile.blocking import Blocked, plan
from torchlight.compile.fusion import fuse, split_sigmoids, sum_in_kernels
from torchlight.compile.program import Program, opaque_backward, opaque_forward, outside_signature
from torchlight.compile.record import OpaqueBackward
from torchlight.compile.small_kernels import find_runs, kernel_replays
from torchlight.compile.steps import BuildStep, Step
from torchlight.compile.straight import Steps, array_kernel
from torchlight.engine import Context, History
from torchlight.ops.activations import Sigmoid
from torchlight.ops.arithmetic import Add, Mul, Neg, Sub
from torchlight.ops.reductions import Sum
from torchlight.ops.shapes import BroadcastView, Reshape
from torchlight.tensor import Tensor

if TYPE_CHECKING:
    from torchlight.compile.record import Recording

__all__ = ["build"]


def build(rec: Recording, kernels: bool | None = None) -> Program:
    """The Program of a recording: registers for its values, steps, and when to free each register
    (`kernels`: when its small-array kernels are made, as `compile` says).

    While building, each list is of `BuildStep`s; the Program's lists are of `Step`s (or `Blocked`).
    """
    out, inputs, wants, seed = rec.out, rec.inputs, rec.wants, rec.seed
    assert out is not None, "build: a Recording that `record` finished (it sets outs)"
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

    def step(h: Any) -> BuildStep:
        if type(h) is not History:  # a tensor a call made without History (a mask, an index): the call again
            made, template, edges = rec.derived[h]
            return BuildStep(None, derive.replayer(made, template, h.data.shape), None, tuple(arg(e) for e in edges),
                             (reg(h),), reg(h))
        quiet = Context(True)
        quiet.needs_input_grad = _ctx(h).needs_input_grad
        args = tuple(arg(e) for e in h.edges)
        forward = h.last_fn.forward
        arrays = rec.edge_arrays.get(h)
        if arrays:  # index arrays of this call's values: registers, put into the key by the step
            args, forward = _with_arrays(forward, args, [(i, t, [reg(k) for k in keys]) for i, t, keys in arrays])
        return BuildStep(h.last_fn, forward, quiet, args, (reg(h),), reg(h))

    p.inputs = [reg(t) for t in inputs]
    p.params = list(rec.params)
    p.outside = list(rec.outside)
    p.modules = list(rec.watch.modules)
    p.outside_signature = outside_signature(p.outside, p.modules)
    p.wants_grad = bool(rec.params)
    p.outputs = tuple(reg(o.graph_node) for o in rec.outs)
    p.output = p.outputs[0]
    p.structure = rec.structure
    p.differentiable = tuple(rec.differentiable)
    p.seeds = tuple(None if s is None else reg(s) for s in rec.seeds)
    p.output_meta = tuple((o.data.shape, o.data.dtype) for o in rec.outs)
    p.sink = Tensor._wrap(None, p.backend)
    infer: list[BuildStep] = []
    train: list[BuildStep] = []
    backward: list[BuildStep] = []
    opaque_index: dict[History, int] = {}
    for h in rec.forward:
        infer.append(step(h))
        if type(h) is History and h in rec.opaque:
            opaque_index[h] = len(opaque_index)
            call = opaque_forward(p, h.last_fn, _ctx(h).needs_input_grad)
            arrays = rec.edge_arrays.get(h)
            if arrays:  # (the same index registers as the step's, put into the key before the call)
                _, call = _with_arrays(call, tuple(arg(e) for e in h.edges),
                                       [(i, t, [reg(k) for k in keys]) for i, t, keys in arrays])
            train.append(BuildStep(None, call, None, infer[-1].args, (reg(h),), reg(h)))
        else:
            train.append(infer[-1])
    for entry in rec.backward:
        if type(entry) is OpaqueBackward:
            node = entry.node
            outs = tuple((i, reg(r)) for i, r in rec.opaque[node])
            call = opaque_backward(p, node.last_fn.__name__, opaque_index[node], outs)
            backward.append(BuildStep(None, call, None, (reg(entry.grad.graph_node),), tuple(r for _, r in outs),
                                      p.sink))
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
    made_before = {r for s in train for r in s.writes} | set(p.inputs)
    p.saved = tuple(r for r in _reads(backward, registers) if r in made_before)
    whole = backward  # (before values are computed again: a forward run with it has them all)
    backward, p.saved = _recompute_cheap(train, backward, p.saved, set(p.outputs), meta)
    mine = registers.difference(p.inputs, p.outputs, needed)  # what a step may overwrite
    # saved values that elementwise ops made (new arrays, never an input's): a backward may reuse them
    spare = {s.out for s in train if getattr(s.fn, "elementwise", False)}.intersection(p.saved, mine)
    lists = functools.partial(_finished, p, registers=registers, mine=mine, meta=meta, kernels=kernels)
    p.infer = lists(infer, keep=set(p.outputs))
    p.train = lists(train, keep={*p.outputs, *p.saved})
    p.backward = lists(backward, keep=needed, spare=spare)
    if p.seed is not None and meta[p.seed][0] == ():  # (p.seed: the register of seed)
        unit = _seeded_by_one(backward, p.seed, needed, registers, meta)
        reads = set(_reads(unit, registers))
        p.backward_one = lists(unit, keep=needed, spare=spare)
        p.saved_one = tuple(r in reads for r in p.saved)
        p.train_and_backward = _with_backward(p, train, _seeded_by_one(whole, p.seed, needed, registers, meta),
                                              needed, lists)
    return p


def _with_backward(p: Program, train: list[BuildStep], unit: list[BuildStep], needed: set[Tensor],
                   lists: Callable[..., list[Step] | Blocked]) -> Blocked | None:
    """The forward and the backward for a seed of 1 as one blocked list, or None where that does
    not apply: a forward whose values the backward reads a block at a time, while the block is in
    the cache, writing none of them out (`Program.run_forward`: the gradients are computed with the
    loss, for the `loss.backward()` that follows). Only for one 0-d result on a backend that blocks
    (NumPy), a forward without opaque nodes, and a list that `plan` blocks; the sum that makes the
    loss (and what reads it) goes last, since the backward for a seed of 1 reads none of it."""
    if p.structure is not None or any(s.fn is None for s in train):
        return None
    steps = _last_what_reads_a_sum([*train, *unit])
    if steps is None:
        return None
    done = lists(steps, keep={*p.outputs, *needed}, kernels=False)  # (unblocked, it is dropped: no runs)
    return done if type(done) is Blocked else None


def _last_what_reads_a_sum(steps: list[BuildStep]) -> list[BuildStep] | None:
    """`steps` with the full sums and every step that reads one (through any steps) moved to the
    end, in order; None where there is no sum."""
    late: set[Tensor] = set()
    first, last = [], []
    for step in steps:
        if step.fn is Sum or any(type(a) is Tensor and a in late for a in step.args):
            late.update(step.writes)
            last.append(step)
        else:
            first.append(step)
    return [*first, *last] if last else None


# Ops a backward computes again from saved values rather than keep their result from the forward:
# one op on one array (W3's -x, for (-x) * x's backward, and sigmoid(x): 32 MB not kept, for about
# what writing and reading back one of them costs; docs/performance.md)
_CHEAP = (Neg, Sigmoid)


def _recompute_cheap(train: list[BuildStep], backward: list[BuildStep], saved: tuple[Tensor, ...],
                     outputs: set[Tensor], meta: dict[Tensor, tuple]) -> tuple[list[BuildStep], tuple[Tensor, ...]]:
    """The backward and the saved registers with each saved value that a `_CHEAP` op made from other
    saved values (not a result handed out) computed again at the backward's start instead of kept
    (PyTorch's compiler rematerialises such values too): the same op on the same arrays, so the same
    bits, and an array fewer held between forward and backward. Only big arrays (`_OVERWRITE_SIZE`
    elements): on small ones the op's call costs more than the memory it frees is worth."""
    made = {s.out: s for s in train}
    kept = set(saved)
    redo = []
    for r in saved:
        step = made.get(r)
        if step is None or step.fn not in _CHEAP or r in outputs or step.writes != (r,):
            continue
        if r not in meta or math.prod(meta[r][0]) < _OVERWRITE_SIZE:
            continue
        tensors = [a for a in step.args if type(a) is Tensor]
        if tensors and all(a in kept and a is not r for a in tensors):
            redo.append(step)
            kept.discard(r)
    if not redo:
        return backward, saved
    return [*redo, *backward], tuple(r for r in saved if r in kept)


def _with_arrays(forward: Callable[..., Any], args: tuple,
                 arrays: list[tuple[int, Any, list[Tensor]]]) -> tuple[tuple, Callable[..., Any]]:
    """A step whose arguments hold index arrays of this call's values: the registers of those come
    after its own arguments (so that each is kept until this step has read it), and the step puts
    their arrays into the key (`derive.SLOT`) before calling `forward`."""
    n = len(args)
    own = list(args)
    extra: list[Tensor] = []
    places = []
    for i, template, regs in arrays:
        own[i] = None  # (not the first call's array)
        places.append((i, template, len(regs)))
        extra += regs

    def run(ctx: Any, *given: Any) -> Any:
        real = list(given[:n])
        values = iter([r.data for r in given[n:]])
        for i, template, _ in places:
            real[i] = derive.fill(template, values)
        return forward(ctx, *real)

    return (*own, *extra), run


def _ctx(h: History) -> Context:
    """A recorded node's Context (every node that an op made has one)."""
    assert h.ctx is not None, f"build: a recorded node of {h.last_fn} without a Context"
    return h.ctx


def _finished(p: Program, steps: list[BuildStep], registers: set[Tensor], keep: set[Tensor], mine: set[Tensor],
              meta: dict[Tensor, tuple], spare: Set[Tensor] = frozenset(),
              kernels: bool | None = None) -> list[Step] | Blocked:
    """The steps as the program runs them (`_finish`), a block at a time where they qualify
    (`plan`; `spare`: the saved values a blocked backward may write its gradients over), each
    elementwise run fused into one kernel first where the backend has a kernel maker (`fuse`),
    and otherwise with the runs of small arrays that may become kernels (`find_runs`; `kernels`:
    when, as `compile` says)."""
    steps = fuse(split_sigmoids(steps, meta, p.backend, functools.partial(_new_register, p, registers, mine, meta)),
                 keep, meta, p.backend)
    done = _finish(steps, registers, keep, mine, meta)
    blocked = plan(steps, done, registers, keep, spare, meta, p.backend)
    if blocked is not None:
        return blocked
    reduced = sum_in_kernels(steps, keep, meta)  # (a blocked list sums in its kernels a block at a time)
    if reduced is not steps:
        steps, done = reduced, _finish(reduced, registers, keep, mine, meta)
    if kernels is not False and len(done) <= 2 * straight.CHUNK:  # (a longer one is generated a chunk per replay)
        handed = keep & {*p.outputs, *(g for g in p.grads if g is not None)}
        done.runs = find_runs(steps, done, keep, handed, meta, p.backend, straight.CHUNK) or None
        done.kernel_replays = 0 if kernels else kernel_replays(done, done.runs or ())
    return done


def _new_register(p: Program, registers: set[Tensor], mine: set[Tensor], meta: dict[Tensor, tuple],
                  shape_and_dtype: tuple) -> Tensor:
    """A register of the program's own made after the recording (`fusion.split_sigmoids`)."""
    r = Tensor._wrap(None, p.backend)
    meta[r] = shape_and_dtype
    registers.add(r)
    mine.add(r)
    p.registers = (*p.registers, r)
    return r


def _seeded_by_one(steps: list[BuildStep], seed: Tensor, needed: set[Tensor], registers: set[Tensor],
                   meta: dict[Tensor, tuple]) -> list[BuildStep]:
    """The backward steps for a seed of exactly 1 (what `loss.backward()` gives a 0-d loss).

    A product with the seed, broadcast or reshaped, is the other operand
    itself, to the bit: renamed rather than computed (W3 multiplies three
    full arrays by a broadcast 1 otherwise, where code written by hand does
    not). A result that is a gradient handed out is still computed, so that
    no gradient is another value's array.
    """
    ones: set[Tensor] = {seed}
    rename: dict[Tensor, Tensor] = {}
    out: list[BuildStep] = []
    for step in steps:
        args = tuple(rename.get(a, a) if type(a) is Tensor else a for a in step.args)
        renamed = any(a is not b for a, b in zip(args, step.args))  # (not ==: a Tensor's == is an op)
        if step.fn in (BroadcastView, Reshape) and args[0] in ones:
            ones.add(step.out)
        elif step.fn is Mul and step.out not in needed:
            a, b = args
            other = b if a in ones else a if b in ones else None
            if other is not None and meta.get(other) == meta[step.out]:
                rename[step.out] = other
                continue
        out.append(dataclasses.replace(step, args=args) if renamed else step)
    return _live(out, needed, registers)


def _fold_negations(steps: list[BuildStep], needed: set[Tensor]) -> list[BuildStep]:
    """`a + (-b)` as `a - b`: one pass over the arrays fewer, and the same to the bit (IEEE
    defines a - b as a + (-b)). A backward sums a Neg's gradient (`-g`) into another this way.
    The Neg's result must be read by that Add alone; the Neg is then dead and dropped by `_live`."""
    reads: dict[Tensor, int] = {}
    for step in steps:
        for a in step.args:
            if type(a) is Tensor:
                reads[a] = reads.get(a, 0) + 1
    negated = {s.out: s.args[0] for s in steps if s.fn is Neg and reads.get(s.out) == 1 and s.out not in needed}
    out = []
    for step in steps:
        args = step.args
        if (step.fn is Add and all(type(a) is Tensor for a in args)
                and (args[0] in negated) != (args[1] in negated)):
            a, b = (args[1], negated[args[0]]) if args[0] in negated else (args[0], negated[args[1]])
            step = dataclasses.replace(step, fn=Sub, forward=Sub.forward, args=(a, b))
        out.append(step)
    return out


def _reads(steps: list[BuildStep], registers: set[Tensor]) -> list[Tensor]:
    """The registers the steps read, in order of first read (each once)."""
    seen: dict[Tensor, None] = {}
    for step in steps:
        for a in step.args:
            if type(a) is Tensor and a in registers:
                seen.setdefault(a)
    return list(seen)


def _live(steps: list[BuildStep], needed: set[Tensor], registers: set[Tensor]) -> list[BuildStep]:
    """The steps whose results something needs, walking back from `needed` (dead code dropped)."""
    needed = set(needed)
    kept = []
    for step in reversed(steps):
        if any(w in needed for w in step.writes):
            kept.append(step)
            needed.update(a for a in step.args if type(a) is Tensor and a in registers)
    kept.reverse()
    return kept


def _finish(steps: list[BuildStep], registers: set[Tensor], keep: set[Tensor], mine: set[Tensor],
            meta: dict[Tensor, tuple]) -> Steps:
    """The Program's steps: each frees the registers (not in `keep`) read for the last time there,
    and one whose Function has `forward_into` tries it where the registers it would overwrite
    are among those; a step that runs its op's own forward names its array kernel, for the
    straight-line replay (`straight`)."""
    last: dict[Tensor, int] = {}
    for k, step in enumerate(steps):
        for a in step.args:
            if type(a) is Tensor and a in registers:
                last[a] = k
    frees: list[list[Tensor]] = [[] for _ in steps]
    for r, k in last.items():
        if r not in keep:
            frees[k].append(r)
    out = Steps()
    for step, free in zip(steps, frees):
        fn, forward, args = step.fn, step.forward, step.args
        into = getattr(fn, "forward_into", None)
        if fn is not None and into is not None and _may_overwrite(fn.overwrites, args, step.out, free, mine, meta):
            forward = _try_into(forward, into, tuple(args[i] for i in fn.overwrites))
        elif into is not None and fn in _COMMUTATIVE and _may_overwrite((1,), args, step.out, free, mine, meta):
            forward = _try_into(forward, _swapped(into), (args[1],))
        out.append(Step(forward, step.ctx, args, step.out, tuple(free), array_kernel(fn, forward, args)))
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


_COMMUTATIVE = (Add, Mul)  # a + b and b + a are the same to the last bit (IEEE), so either may be written
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
