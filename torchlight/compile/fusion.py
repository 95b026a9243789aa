"""Fused kernels: a compiled step list's elementwise runs, each turned into one step.

A run of elementwise steps, each reading what the one before wrote, costs a
pass over memory and a Python call per step. `fuse` finds such runs in a
step list as built and turns each into one step that evaluates the whole
expression at once, with a kernel made for the program's backend
(`kernel_maker`): numexpr for NumPy arrays, which evaluates an expression
in small blocks in one pass (an optional library: without it nothing is
fused); an elementwise kernel for CuPy arrays. Where the list is also
replayed a block at a time (`blocking.plan`), the fused step runs on each
block, so what it does not write out stays in the cache; where it is not, a
kernel's value that only a full sum reads is summed by the kernel itself
(`sum_in_kernels`: CuPy's reduction kernel, a float32 numba loop).

What fuses: a step of a Function in `EXPRESSIONS`, whose Tensor arguments
and result are of one real floating dtype (float32 or float64) and of one
shape (or 0-d), and whose other arguments are numbers (made arrays of that
dtype, as NumPy's own rule for a Python number does); a broadcast of a 0-d
value inside such a run. A step's result is written out (ends a kernel)
where something outside the run reads it, where it outlives the list, or
where more than one step reads it (so no costly value is computed twice;
but a negation of a value, and a little arithmetic read by a few kernels, is
computed again in each kernel that reads it, where that is cheaper than an
array written and read back: `_worth_recomputing`). Every
other step, and any Function not in the table (a comparison, a `where`, a
sum), stays as it was: a barrier between kernels. A kernel does each
operation in the order the eager op does, so arithmetic gives the same
bits; a transcendental function (`TRANSCENDENTAL`) may differ from NumPy's
in the last place, and numexpr's own are slower than NumPy's vectorised
ones unless numexpr has Intel's VML, so on NumPy they fuse only then.

Example:
    >>> import numpy as np, torchlight as tl
    >>> from torchlight.compile.fusion import fused_steps, kernel_maker
    >>> x = tl.tensor(np.linspace(-1.0, 1.0, 100_000), requires_grad=True)
    >>> f = tl.compile(lambda x: ((x * 2.0 + 1.0) * x).sum())
    >>> f(x).backward()
    >>> program = f.programs[next(iter(f.programs))][0]
    >>> fused_steps(program.infer) == (kernel_maker(x.backend) is not None)  # one kernel, with numba
    True
    >>> bool(np.allclose(x.grad.numpy(), 4.0 * x.numpy() + 1.0))
    True
"""

from __future__ import annotations

import importlib
import math
import threading
from collections.abc import Callable, Set
from typing import Any, cast

from torchlight.compile.blocking import Blocked
from torchlight.compile.steps import BuildStep, Step
from torchlight.engine import Function
from torchlight.ops.activations import Sigmoid, SigmoidBack
from torchlight.ops.arithmetic import Add, Div, Mul, Neg, Pow, Sub
from torchlight.ops.common import _exp_limit
from torchlight.ops.complex_numbers import Conj
from torchlight.ops.elementwise import Abs, Exp, Inv, InvBack, Log, LogBack, Sqrt
from torchlight.ops.reductions import Sum
from torchlight.ops.shapes import BroadcastView
from torchlight.ops.trigonometric import Cos, Sin, Tanh, TanhBack
from torchlight.tensor import Tensor

__all__ = ["ENABLED", "EXPRESSIONS", "LOOP_FUNCTIONS", "TRANSCENDENTAL", "ClipAbove", "Fused", "SigmoidTail",
           "cuda_expression", "cuda_source", "fuse", "fused_steps", "kernel_maker", "numba_source", "numba_sum_source",
           "numexpr_source", "split_sigmoids", "sum_in_kernels"]

class ClipAbove(Function):
    """min(a, limit), NaN kept: the first part of a sigmoid split for the kernels (`split_sigmoids`;
    never recorded, so it has no backward)."""

    elementwise = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, limit: float) -> Any:
        return a.backend.xp.minimum(a.data, limit)


class SigmoidTail(Function):
    """e / (e + 1) of e = exp(min(x, limit)): the last part of a sigmoid split for the kernels."""

    elementwise = True

    @staticmethod
    def forward(ctx: Any, e: Tensor) -> Any:
        data = e.data
        return data / (data + 1.0)  # (as `activations._sigmoid`'s e /= e + 1.0: the same bits)


# An expression is a tree of tuples: ("var", Tensor), ("const", number) or (operation, *operands).
Tree = tuple

# Each fusable Function's result as an expression of its arguments' (in the eager op's order of operations).
EXPRESSIONS: dict[type, Callable[..., Tree]] = {
    Add: lambda a, b: ("+", a, b),
    Sub: lambda a, b: ("-", a, b),
    Mul: lambda a, b: ("*", a, b),
    Div: lambda a, b: ("/", a, b),
    Neg: lambda a: ("neg", a),
    Conj: lambda a: a,  # of a real value (every value a kernel reads or writes is): the value itself
    Pow: lambda a, p: ("*", a, a) if p[0] == "const" and p[1] == 2 else ("pow", a, p),  # NumPy's x ** 2: x * x
    Inv: lambda a: ("/", ("const", 1), a),
    LogBack: lambda a, g: ("/", g, a),
    InvBack: lambda a, g: ("/", ("neg", g), ("*", a, a)),
    TanhBack: lambda y, g: ("*", g, ("-", ("const", 1), ("*", y, y))),  # -((y*y - 1) g), the same bits
    SigmoidBack: lambda y, g: ("*", ("*", ("-", ("const", 1), y), y), g),
    ClipAbove: lambda a, limit: ("min", a, limit),  # (made on NumPy with numba only: see `_render`)
    SigmoidTail: lambda e: ("/", e, ("+", e, ("const", 1.0))),
    Sqrt: lambda a: ("sqrt", a),
    Abs: lambda a: ("abs", a),
    Exp: lambda a: ("exp", a),
    Log: lambda a: ("log", a),
    Tanh: lambda a: ("tanh", a),
    Sin: lambda a: ("sin", a),
    Cos: lambda a: ("cos", a),
    # 1 / (1 + exp(-x)): exp(-x) overflows to inf where x is far below 0, and the result is then 0
    Sigmoid: lambda a: ("/", ("const", 1), ("+", ("const", 1), ("exp", ("neg", a)))),
}
# (pow too: NumPy's vectorised pow rounds otherwise than numba's or numexpr's, and is the faster)
TRANSCENDENTAL = frozenset({"exp", "log", "tanh", "sin", "cos", "pow"})
_BINARY = {"+", "-", "*", "/"}
_ARITHMETIC = _BINARY | {"neg"}
#: the most operations of a value read by several kernels that each computes again (`_worth_recomputing`;
#: 0: none)
RECOMPUTE_OPS = 6
#: the functions a numba loop's source calls by name, each bound to NumPy's (here and `small_kernels`)
LOOP_FUNCTIONS = ("exp", "log", "tanh", "sin", "cos", "sqrt", "abs")
MAX_INPUTS = 24  # the arrays and constants one kernel reads (numexpr takes a few dozen at most)
#: the libraries that may make NumPy's kernels, the first installed one used. numexpr is not among them
#: by default: on one thread its interpreted loops run at 0.4-0.9x NumPy's vectorised ufuncs
#: (docs/performance.md); numba compiles each kernel to a vectorised loop, 2-3x NumPy's speed.
NUMPY_KERNELS: tuple[str, ...] = ("numba",)
#: the fewest elements of a list's arrays that its kernels are made for (compiling one takes numba,
#: or CuPy's compiler, a few tenths of a second, and small arrays gain little)
MIN_ELEMENTS = 1 << 16
#: whether programs recorded from now on fuse (the bench times them with and without)
ENABLED = True
MAX_INT = 1 << 24  # an int argument converts to float32 exactly below this (float64: well beyond)


class Fused:
    """The Function of a fused step, for what reads a step list (`blocking.plan`: it is elementwise)."""

    elementwise = True


def split_sigmoids(steps: list[BuildStep], meta: dict[Tensor, tuple], backend: Any,
                   new_register: Callable[[tuple], Tensor]) -> list[BuildStep]:
    """`steps` with each sigmoid of a big real array split into the three steps its forward makes
    (`activations._sigmoid`): min(x, limit), a NumPy exp, e / (e + 1), so that the arithmetic on
    each side of the exp fuses (NumPy's `minimum` runs at a quarter of a loop's speed), with the
    same bits. Only where numba makes NumPy's kernels (`new_register(meta)`: a register of the
    program's own). Unchanged where nothing would fuse."""
    if not ENABLED or kernel_maker(backend) is not _numba_kernel:
        return steps
    out: list[BuildStep] = []
    for s in steps:
        m = meta.get(s.out)
        if s.fn is not Sigmoid or m is None or math.prod(m[0]) < MIN_ELEMENTS or not _floating(backend, m[1]):
            out.append(s)
            continue
        limit, clipped, exp = _exp_limit(backend.xp, m[1]), new_register(m), new_register(m)
        out += [BuildStep(ClipAbove, ClipAbove.forward, s.ctx, (s.args[0], limit), (clipped,), clipped),
                BuildStep(Exp, Exp.forward, s.ctx, (clipped,), (exp,), exp),
                BuildStep(SigmoidTail, SigmoidTail.forward, s.ctx, (exp,), s.writes, s.out)]
    return out


def fused_steps(steps: list[Step] | Blocked | None) -> int:
    """How many fused kernels a Program's step list runs (a blocked list's too)."""
    if steps is None:
        return 0
    if type(steps) is Blocked:
        steps = steps.loop
    return sum(getattr(s.forward, "fused", None) is not None for s in steps)


# ------------------------------------------------------------------------------------------- the finder
def fuse(steps: list[BuildStep], keep: set[Tensor], meta: dict[Tensor, tuple], backend: Any) -> list[BuildStep]:
    """`steps` with each fusable run of two or more ops one step (see the module); `keep`: the
    registers that outlive the list; `meta`: each register's shape and dtype. Unchanged where
    the backend has no kernel maker (or its library is missing)."""
    if not ENABLED or len(steps) < 2 or not any(math.prod(m[0]) >= MIN_ELEMENTS for m in meta.values()):
        return steps  # (before kernel_maker: a program of small arrays never imports the kernel library)
    make = kernel_maker(backend)
    if make is None:
        return steps
    vml = make is _numexpr_kernel and _numexpr_vml()
    trees: dict[Tensor, Tree] = {}   # per fusable step's register: its expression of its own arguments
    for s in steps:
        tree = _tree(s, meta, backend, transcendental=vml or make not in (_numba_kernel, _numexpr_kernel))
        if tree is not None:
            trees[s.out] = tree
    if not trees:
        return steps
    reads: dict[Tensor, int] = {}
    outside_reads: set[Tensor] = set()  # registers a step that does not fuse reads
    for s in steps:
        for a in s.args:
            if isinstance(a, Tensor):
                reads[a] = reads.get(a, 0) + 1
                if s.out not in trees:
                    outside_reads.add(a)
    # a broadcast of a 0-d value, a Conj of a real one: another name for a value (inlined always)
    broadcasts = {r for r, tree in trees.items() if tree[0] == "var"}
    inline = {r for r in trees if r in broadcasts or (r not in keep and r not in outside_reads and reads.get(r) == 1)}
    for r, tree in trees.items():  # what several kernels read, computed in each where that is cheaper
        if r not in inline and r not in keep and r not in outside_reads and _worth_recomputing(
                tree, _inlined(tree, trees, inline), reads[r]):
            inline.add(r)
    kernels: dict[Tensor, Tree] = {}  # the registers a kernel writes: its expression
    roots = [r for r in trees if r not in inline]
    while roots:
        r = roots.pop()
        expr = _inlined(trees[r], trees, inline)
        full = any(_meta(t, meta)[0] == meta[r][0] for t in _inputs(expr) if isinstance(t, Tensor))
        # (a kernel of 0-d values alone would give a 0-d result; a min alone is a kernel too: it runs
        # at four times NumPy's `minimum`)
        if (_count_ops(expr) >= 2 or expr[0] == "min") and full:
            kernels[r] = expr
        else:  # the step stays as it is, and what it reads is computed apart (a kernel, or a step)
            operands = [trees[r]] if trees[r][0] == "var" else trees[r][1:]  # (a Conj's tree is its operand)
            below = [t[1] for t in operands if t[0] == "var" and t[1] in inline and t[1] not in broadcasts]
            inline.difference_update(below)
            roots.extend(below)
    plain = [s for s in steps if s.out not in kernels and s.out not in inline]
    # a broadcast is inlined as its 0-d value; its own step stays where the whole is read too
    whole = set(keep).union(a for s in plain if s.out not in broadcasts for a in s.args if isinstance(a, Tensor))
    out: list[BuildStep] = []
    for s in steps:
        r = s.out
        if r in kernels:
            names = _inputs(kernels[r])
            if len(names) > MAX_INPUTS:
                return steps
            scalars = {t for t in names if isinstance(t, Tensor) and _meta(t, meta)[0] == ()}
            call = make(kernels[r], names, meta[r][1], backend, scalars)
            fn = cast("type[Function]", Fused)  # (read as a Function's class: by its `elementwise`)
            out.append(BuildStep(fn, call, None, tuple(t for t in names if isinstance(t, Tensor)), (r,), r))
        elif r not in inline or (r in broadcasts and r in whole):
            out.append(s)
    written = {w for s in out for w in s.writes}
    if any(isinstance(a, Tensor) and a in trees and a not in written for s in out for a in s.args):
        return steps  # a value inlined that a step kept as it was reads whole (a kept Conj's operand): no fusion
    return out


def sum_in_kernels(steps: list[BuildStep], keep: Set[Tensor], meta: dict[Tensor, tuple]) -> list[BuildStep]:
    """`steps` (fused, and not replayed a block at a time) with each full sum of a kernel's value
    that nothing else reads (no other step, not `keep`) made by that kernel's reduction instead
    (`forward.reducing`: CuPy's reduction kernel; a float32 numba kernel's sum in float64), so
    the value is never written out: W3's loss `(t * s + e).sum()` reads t, s and e once, and
    writes nothing of the full size. Unchanged where no kernel can sum itself."""
    makers = {s.out: k for k, s in enumerate(steps) if getattr(s.forward, "reducing", None) is not None}
    if not makers:
        return steps
    reads: dict[Tensor, int] = {}
    for s in steps:
        for a in s.args:
            if isinstance(a, Tensor):
                reads[a] = reads.get(a, 0) + 1
    replaced: dict[int, BuildStep] = {}  # a sum's position: the reduction that takes its place
    dropped: set[int] = set()  # the positions of the kernels that reduce instead
    for k, s in enumerate(steps):
        if s.fn is not Sum or not isinstance(s.args[0], Tensor) or s.args[0] not in makers:
            continue
        summed, dims, keepdim = s.args
        if keepdim or summed in keep or reads[summed] != 1 or tuple(dims) != tuple(range(len(meta[summed][0]))):
            continue
        maker = steps[makers[summed]]
        reducing = maker.forward.reducing  # type: ignore[attr-defined]  # (`makers` holds only those)
        replaced[k] = BuildStep(maker.fn, reducing, None, maker.args, s.writes, s.out)
        dropped.add(makers[summed])
    if not replaced:
        return steps
    return [replaced.get(k, s) for k, s in enumerate(steps) if k not in dropped]


def _tree(s: BuildStep, meta: dict[Tensor, tuple], backend: Any, transcendental: bool) -> Tree | None:
    """The expression of one step in its arguments, or None where it does not fuse."""
    if s.fn is None or len(s.writes) != 1 or s.out not in meta:
        return None
    shape, dtype = meta[s.out]
    if not _floating(backend, dtype) or shape == ():
        return None
    if s.fn is BroadcastView:
        a = s.args[0]
        ok = isinstance(a, Tensor) and _meta(a, meta) == ((), dtype) and tuple(s.args[1]) == shape
        return ("var", a) if ok else None
    expression = EXPRESSIONS.get(s.fn)
    if expression is None:
        return None
    operands = []
    for a in s.args:
        if isinstance(a, Tensor):
            if _meta(a, meta) not in ((shape, dtype), ((), dtype)):
                return None
            operands.append(("var", a))
        elif type(a) in (int, float) and not (type(a) is int and abs(a) >= MAX_INT):
            operands.append(("const", a))
        else:  # a bool, a NumPy scalar (which has a dtype of its own), anything else
            return None
    tree = expression(*operands)
    if not transcendental and _functions(tree) & TRANSCENDENTAL:
        return None
    return tree


def _worth_recomputing(tree: Tree, expr: Tree, readers: int) -> bool:
    """Whether each of the `readers` kernels reading a value should compute it again instead of
    reading it: a negation of a value (`tree`, the step's own expression: a sign flip, exact, so
    W3's `-x` fuses into `-x * x` and into x's gradient), or an expression `expr` (what is inlined
    in it already, inlined) of arithmetic alone, `RECOMPUTE_OPS` operations at most, with no more
    array reads in all than writing the value and reading it back take. In W3's blocked step, its
    sigmoid `e / (e + 1)` (read by the loss and both gradients) and `s * (1 - t * t)` (read by
    both gradients) are then never arrays: nine steps a block, not eleven, and its kernels read and
    write 14 block-sized arrays, not 19."""
    if tree[0] == "neg" and tree[1][0] == "var":
        return True
    if expr[0] == "var" or _functions(expr) - _ARITHMETIC or _count_ops(expr) > RECOMPUTE_OPS:
        return False
    arrays = sum(isinstance(t, Tensor) for t in _inputs(expr))
    return arrays * (readers - 1) <= readers + 1  # (readers * arrays, against a write and arrays + readers)


def _meta(t: Tensor, meta: dict[Tensor, tuple]) -> tuple:
    m = meta.get(t)
    return m if m is not None else (tuple(t.shape), t.dtype)  # (a tensor from outside fn)


def _floating(backend: Any, dtype: Any) -> bool:
    """float32 or float64 (NumPy's and CuPy's dtypes: the only backends with kernel makers)."""
    return getattr(dtype, "kind", None) == "f" and getattr(dtype, "itemsize", None) in (4, 8)


def _inlined(tree: Tree, trees: dict[Tensor, Tree], inline: set[Tensor]) -> Tree:
    """`tree` with each variable that is an inlined step's result replaced by its expression."""
    if tree[0] == "var":
        r = tree[1]
        return _inlined(trees[r], trees, inline) if r in inline else tree
    if tree[0] == "const":
        return tree
    return (tree[0], *(_inlined(t, trees, inline) for t in tree[1:]))


def _count_ops(tree: Tree) -> int:
    if tree[0] in ("var", "const"):
        return 0
    return 1 + sum(_count_ops(t) for t in tree[1:])


def _functions(tree: Tree) -> set[str]:
    if tree[0] in ("var", "const"):
        return set()
    return {tree[0]}.union(*(_functions(t) for t in tree[1:]))


def _inputs(tree: Tree, found: dict[Any, None] | None = None) -> list[Any]:
    """The kernel's inputs in order of first use: Tensors (variables), then numbers (constants)."""
    found = {} if found is None else found
    if tree[0] == "var":
        found.setdefault(tree[1])
    elif tree[0] == "const":
        found.setdefault(("const", type(tree[1]), tree[1]))
    else:
        for t in tree[1:]:
            _inputs(t, found)
    keys = list(found)
    return [k for k in keys if isinstance(k, Tensor)] + [k for k in keys if not isinstance(k, Tensor)]


# ------------------------------------------------------------------------------------------ the sources
def _render(tree: Tree, names: dict[Any, str], power: Callable[[str, str], str],
            functions: dict[str, str]) -> str:
    op = tree[0]
    if op == "var":
        return names[tree[1]]
    if op == "const":
        return names[("const", type(tree[1]), tree[1])]
    parts = [_render(t, names, power, functions) for t in tree[1:]]
    if op in _BINARY:
        return f"({parts[0]} {op} {parts[1]})"
    if op == "neg":
        return f"(-{parts[0]})"
    if op == "pow":
        return power(parts[0], parts[1])
    if op == "min":  # (NaN kept, as NumPy's minimum: a numba or Python source's; only numba's has it)
        return f"({parts[0]} if not ({parts[0]} > {parts[1]}) else {parts[1]})"
    return f"{functions.get(op, op)}({parts[0]})"


def _names(inputs: list[Any]) -> dict[Any, str]:
    return {k: f"x{i}" for i, k in enumerate(inputs)}


def numexpr_source(tree: Tree, inputs: list[Any]) -> str:
    """The numexpr expression of `tree`, its inputs named x0, x1, ... in the order of `inputs`."""
    return _render(tree, _names(inputs), lambda a, b: f"({a} ** {b})", {})


def cuda_expression(tree: Tree, inputs: list[Any]) -> str:
    """`tree` as a CUDA expression of inputs x0, x1, ..., every constant an input too (an array of
    the kernel's dtype), so that the source is also valid Python: a reduction kernel's map."""
    return _render(tree, _names(inputs), lambda a, b: f"pow({a}, {b})", {"abs": "fabs"})


def cuda_source(tree: Tree, inputs: list[Any]) -> str:
    """The CUDA operation of an elementwise kernel (`out = ...;`), of `cuda_expression`'s inputs."""
    return f"out = {cuda_expression(tree, inputs)};"


# ------------------------------------------------------------------------------------- the kernel makers
def kernel_maker(backend: Any) -> Callable[..., Callable[..., Any]] | None:
    """What makes a fused kernel for the backend's arrays (`Backend.fused_kernels`), or None: on the
    CPU, numba's if it is installed (`NUMPY_KERNELS` says which libraries, in order of preference);
    CuPy's elementwise kernels."""
    if backend.fused_kernels == "cpu":
        for name in NUMPY_KERNELS:
            if _library(name) is not None:
                return _numba_kernel if name == "numba" else _numexpr_kernel
        return None
    if backend.fused_kernels == "cupy":
        return _cupy_kernel
    return None


def _library(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _numexpr_vml() -> bool:
    return bool(getattr(_library("numexpr"), "use_vml", False))


def _constants(inputs: list[Any], dtype: Any, xp: Any) -> tuple:
    """Each constant as a 0-d array of the kernel's dtype: a Python number takes the array's dtype,
    as in NumPy (and the array API), so the constant is the one the eager op used."""
    return tuple(xp.asarray(k[2], dtype=dtype) for k in inputs if not isinstance(k, Tensor))


def _numexpr_kernel(tree: Tree, inputs: list[Any], dtype: Any, backend: Any,
                    scalars: Set[Tensor] = frozenset()) -> Callable[..., Any]:
    """A numexpr kernel for `tree`: forward(ctx, *tensors) -> array (numexpr's own threads, as set by
    `numexpr.set_num_threads` or NUMEXPR_NUM_THREADS)."""
    numexpr = importlib.import_module("numexpr")
    source = numexpr_source(tree, inputs)
    kind = float if dtype.itemsize == 4 else backend.xp.float64  # numexpr's names of the two
    compiled = numexpr.NumExpr(source, signature=[(f"x{i}", kind) for i in range(len(inputs))])
    constants = _constants(inputs, dtype, backend.xp)
    vml = _numexpr_vml() and bool(_functions(tree) & TRANSCENDENTAL)

    def into(out: Any, *tensors: Tensor) -> Any:
        return compiled(*[t.data for t in tensors], *constants, out=out, ex_uses_vml=vml)

    def forward(ctx: Any, *tensors: Tensor) -> Any:
        return into(None, *tensors)

    forward.fused = source  # type: ignore[attr-defined]  # (what `fused_steps` and the tests read)
    forward.into = into  # type: ignore[attr-defined]  # (what `blocking` writes a result's block with)
    return forward


_NUMBA_CACHE: dict[tuple[str, int, bool], Any] = {}  # (source, inputs, reassoc) -> the compiled loop (one per process)
_NUMBA_LOCK = threading.Lock()


def _loop_arguments(tree: Tree, inputs: list[Any], scalars: Set[Tensor]) -> tuple[str, str, str]:
    """A numba loop's argument list (x0, x1, ...), `tree` as one element's expression of them (an
    array's element `xk[i]`; a 0-d one, in `scalars`, and a constant as its scalar), and an array
    whose length the loop runs over."""
    names = {k: (f"x{i}[i]" if isinstance(k, Tensor) and k not in scalars else f"x{i}")
             for i, k in enumerate(inputs)}
    length = next(f"x{i}" for i, k in enumerate(inputs) if isinstance(k, Tensor) and k not in scalars)
    body = _render(tree, names, lambda a, b: f"({a} ** {b})", {})
    return ", ".join(f"x{i}" for i in range(len(inputs))), body, length


def numba_source(tree: Tree, inputs: list[Any], scalars: Set[Tensor]) -> str:
    """The Python loop numba compiles for `tree`: flat arrays x0, x1, ... of one length (a 0-d one,
    in `scalars`, and a constant passed as a scalar of the kernel's dtype), written into `out`."""
    args, body, _ = _loop_arguments(tree, inputs, scalars)
    return f"def kernel({args}, out):\n    for i in range(out.shape[0]):\n        out[i] = {body}\n"


def numba_sum_source(tree: Tree, inputs: list[Any], scalars: Set[Tensor]) -> str:
    """The loop that sums `tree` over a block instead of writing it (`numba_source`'s arguments, no
    `out`), in float64: what a float32 kernel whose result only a full sum reads becomes."""
    args, body, length = _loop_arguments(tree, inputs, scalars)
    return (f"def kernel({args}):\n    total = 0.0\n    for i in range({length}.shape[0]):\n"
            f"        total += {body}\n    return total\n")


def _compiled_loop(source: str, inputs: int, xp: Any, reassoc: bool = False) -> Any:
    """numba's compiled function `kernel` of `source`, once per process (`reassoc`: numba's fastmath
    flag of that name, which lets a float reduction vectorise)."""
    numba = importlib.import_module("numba")
    key = (source, inputs, reassoc)
    with _NUMBA_LOCK:
        loop = _NUMBA_CACHE.get(key)
        if loop is None:
            space: dict[str, Any] = {name: getattr(xp, name) for name in LOOP_FUNCTIONS}
            exec(compile(source, "<torchlight fused kernel>", "exec"), space)  # noqa: S102 (our own source)
            fastmath = {"reassoc"} if reassoc else False
            loop = _NUMBA_CACHE[key] = numba.njit(error_model="numpy", nogil=True, fastmath=fastmath)(space["kernel"])
    return loop


def _flat(tensors: tuple, xp: Any) -> list[Any]:
    """The Tensors' arrays as a numba loop takes them: 1-d as they are (a block is flat already: the
    namespace's reshape costs 0.7 us a call, a dozen calls a block), others flattened, 0-d as scalars."""
    arrays = [t.data for t in tensors]
    return [a if a.ndim == 1 else xp.reshape(a, (-1,)) if a.ndim else a[()] for a in arrays]


def _numba_kernel(tree: Tree, inputs: list[Any], dtype: Any, backend: Any,
                  scalars: Set[Tensor]) -> Callable[..., Any]:
    """A numba kernel for `tree` (one thread; the NumPy error model: no exception where NumPy gives
    inf or nan). A 0-d array among the inputs is passed as its scalar, to every element. A float32
    kernel also says how to sum its values over a block without writing them (`forward.summing`,
    which `blocking` uses where a full sum is all that reads the kernel's result)."""
    xp = backend.xp
    source = numba_source(tree, inputs, scalars)
    loop = _compiled_loop(source, len(inputs), xp)
    constants = tuple(xp.asarray(k[2], dtype=dtype)[()] for k in inputs if not isinstance(k, Tensor))

    def into(out: Any, *tensors: Tensor) -> Any:
        shape = next(t.data.shape for t in tensors if t.data.ndim)
        flat = _flat(tensors, xp)
        if out is None:
            out = xp.empty(shape, dtype=dtype)
        loop(*flat, *constants, out if out.ndim == 1 else xp.reshape(out, (-1,)))
        return out if out.shape == shape else xp.reshape(out, shape)  # (a block: `out` itself)

    def forward(ctx: Any, *tensors: Tensor) -> Any:
        return into(None, *tensors)

    forward.fused = source  # type: ignore[attr-defined]
    forward.into = into  # type: ignore[attr-defined]  # (what `blocking` writes a result's block with)
    if dtype.itemsize == 4:
        summing = forward.summing = _summing(tree, inputs, scalars, constants, xp)  # type: ignore[attr-defined]
        forward.reducing = _reducing(summing, dtype)  # type: ignore[attr-defined]
    return forward


def _reducing(summing: Callable[..., float], dtype: Any) -> Callable[..., Any]:
    """A float32 kernel's full sum as NumPy's sum gives it (a scalar of the kernel's dtype), added
    in float64 (`_summing`): what `sum_in_kernels` runs where the list is not blocked."""
    def reducing(ctx: Any, *tensors: Tensor) -> Any:
        return dtype.type(summing(ctx, *tensors))

    reducing.fused = summing.fused  # type: ignore[attr-defined]
    return reducing


def _summing(tree: Tree, inputs: list[Any], scalars: Set[Tensor], constants: tuple, xp: Any) -> Callable[..., Any]:
    """A float32 kernel's sum over a block, as a float64 number, made (compiled) on its first call.

    Each element is the kernel's expression in float32, and the elements are added in float64 in
    the order numba's vectoriser picks (`reassoc`, which also lets it regroup a chain of additions
    inside the expression): a loss, summed, within float32 rounding of the one written out and
    summed by NumPy (whose float32 pairwise sum rounds each partial sum to float32; W3's loss came
    out closer to a float64 reference, 2.1e-8 against 8.7e-8). Only a value that nothing but the
    sum reads is summed so, so no gradient changes."""
    source = numba_sum_source(tree, inputs, scalars)

    def summing(ctx: Any, *tensors: Tensor) -> float:  # (compiled on the first call, then cached)
        return _compiled_loop(source, len(inputs), xp, reassoc=True)(*_flat(tensors, xp), *constants)

    summing.fused = source  # type: ignore[attr-defined]
    return summing


def _cupy_kernel(tree: Tree, inputs: list[Any], dtype: Any, backend: Any, scalars: Set[Tensor] = frozenset(),
                 elementwise_kernel: Any = None, reduction_kernel: Any = None) -> Callable[..., Any]:
    """A CuPy elementwise kernel for `tree` (`elementwise_kernel`: cupy.ElementwiseKernel, or a
    stand-in), and the reduction kernel that sums its values without writing them
    (`forward.reducing`, which `sum_in_kernels` uses; `reduction_kernel`: cupy.ReductionKernel, or
    a stand-in). Each kernel is compiled by CuPy on its first call, and cached by CuPy."""
    if elementwise_kernel is None or reduction_kernel is None:
        cupy = importlib.import_module("cupy")
        elementwise_kernel = elementwise_kernel or cupy.ElementwiseKernel
        reduction_kernel = reduction_kernel or cupy.ReductionKernel
    source = cuda_source(tree, inputs)
    params = ", ".join(f"T x{i}" for i in range(len(inputs)))
    kernel = elementwise_kernel(params, "T out", source, "torchlight_fused")
    # a tree reduction in the kernel's dtype, as cupy.sum adds: the same rounding as the value
    # written out and summed, without the pass that writes it and the pass that reads it back
    expression = cuda_expression(tree, inputs)
    total = reduction_kernel(params, "T out", expression, "a + b", "out = a", "0", "torchlight_fused_sum")
    constants = _constants(inputs, dtype, backend.xp)

    def forward(ctx: Any, *tensors: Tensor) -> Any:
        return kernel(*[t.data for t in tensors], *constants)

    def reducing(ctx: Any, *tensors: Tensor) -> Any:
        return total(*[t.data for t in tensors], *constants)

    forward.fused = source  # type: ignore[attr-defined]
    reducing.fused = expression  # type: ignore[attr-defined]
    forward.reducing = reducing  # type: ignore[attr-defined]
    return forward
