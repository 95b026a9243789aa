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
is fixed by the first call, and so are values read out of tensors. What a
tensor without a gradient is made of is replayed too: a comparison or a mask
(`x > 0`, `tl.where(x > 0, x, 0.0)`), `argmax`/`argmin`, a cast
(`(logits.argmax(1) == y).float().mean()`), `.detach()`, an op under
`no_grad`, a factory (`tl.arange(n)`, `tl.ones(3)`; a random one, such as
`tl.rand`, draws afresh on each call, as eager calls do), and an index tensor
among an op's arguments (`x[i]` for `i` an argument, or made inside fn:
`x[tl.arange(n), x.argmax(1)]`). `fn` may return one Tensor or a tuple, list
or dict of them (`loss, logits`): each result has a gradient or not as in
eager mode (masks, indices and accuracies none).

Anything a replay could not reproduce is refused while recording, with a
CompileError: a conversion of a traced tensor to a Python value (`.item()`,
`float()`, `if x > 0:`), a tensor computed before the call with a graph of its
own, a tensor made inside `fn` from an array rather than by an op (`tl.tensor`
of a traced value's `.data`), an op whose result's shape depends on the values
(`x[mask]`, `nonzero`), a NumPy array among an op's arguments, a generator made
inside `fn` or seeding inside it (`tl.manual_seed`), an in-place update (an
optimizer step, which has then happened once) or a backward inside `fn`. A
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

import functools
from collections.abc import Callable
from typing import Any

from torchlight.compile.build import build
from torchlight.compile.program import Program
from torchlight.compile.record import CompileError, record
from torchlight.tensor import Tensor

__all__ = ["MAX_SIGNATURES", "CompileError", "Compiled", "compile"]

# How many signatures a compiled function keeps programs for (a float argument that changes on
# every call, a learning rate say, would otherwise record and keep one program per call).
MAX_SIGNATURES = 64


def compile(fn: Callable[..., Any], *, kernels: bool | None = None) -> Compiled:  # noqa: A001 (torch.compile's name)
    """`fn`, recorded on its first call per signature and replayed after.

    `fn` takes Tensors (and any hashable constants) and returns one Tensor,
    or a tuple, list or dict of Tensors. Tensors it reads from its closure (a
    model's parameters) are read afresh on every call and get their gradients
    as usual. See the module docstring for what cannot be compiled.

    `kernels`: when a program's elementwise runs on small arrays become numba
    kernels (`torchlight.compile.small_kernels`; with numba installed): by
    default (None) once its replays have taken as long as compiling them is
    estimated to take (about 10 ms an op), so that a function called a few
    hundred times never pays for them; True: as soon as its code is generated
    (its ninth call), for a long training loop; False: never.

    Example:
        >>> import torchlight as tl
        >>> f = tl.compile(lambda x: (x * x).sum())
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> f(x).backward(); x.grad.tolist()
        [2.0, 4.0]
        >>> g = tl.compile(lambda x: ((x * x).sum(), x.argmax()))
        >>> loss, top = g(tl.tensor([1.0, 3.0, 2.0], requires_grad=True))
        >>> loss.requires_grad, top.requires_grad, top.item()
        (True, False, 1)
    """
    if kernels is not None and type(kernels) is not bool:
        raise TypeError(f"compile: kernels must be True, False or None, not {kernels!r}")
    return Compiled(fn, kernels)


class Compiled:
    """A compiled function: one recorded `Program` per call signature."""

    def __init__(self, fn: Callable[..., Any], kernels: bool | None = None) -> None:
        self.fn = fn
        self.kernels = kernels  # when small-array kernels are made (`compile`)
        # per signature, the programs recorded (more than one when the tensors from outside or
        # the Modules' training modes differed: a model switched between train() and eval())
        self.programs: dict[Any, list[Program]] = {}
        functools.update_wrapper(self, fn, updated=())  # (a Module's attributes are not the wrapper's)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key, tensors = _signature(args, kwargs)
        programs = self.programs.get(key)
        if programs is not None:
            for program in programs:
                if program.current():
                    return program(tensors)
        fn = functools.partial(self.fn, **kwargs) if kwargs else self.fn
        program = build(record(fn, args), self.kernels)
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


def _signature(args: tuple, kwargs: dict[str, Any]) -> tuple[Any, list[Tensor]]:
    """The cache key of a call, and its Tensor arguments in order (keyword arguments are constants)."""
    parts: list[tuple[Any, ...]] = []  # per argument: what the program depends on
    tensors: list[Tensor] = []
    for name, value in kwargs.items():
        if isinstance(value, Tensor):
            raise TypeError(f"compile: pass the Tensor {name}= by position (keyword arguments are constants)")
        parts.append((name, type(value), value))
    for a in args:
        if isinstance(a, Tensor):
            data = a.data
            parts.append((a.backend, a.backend.device_of(data), data.dtype, data.shape, a.requires_grad))
            tensors.append(a)
        else:
            parts.append((type(a), a))
    try:
        key = tuple(parts)
        hash(key)
    except TypeError:
        raise TypeError("compile: every argument that is not a Tensor must be hashable (it is part of the "
                        "signature a program is recorded for)") from None
    return key, tensors
