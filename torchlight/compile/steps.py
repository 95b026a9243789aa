"""The records a compiled program's step lists are made of: `BuildStep` while built, `Step` when run.

Each step writes one register (a Tensor that holds an array while a replay
runs): `out.data = forward(ctx, *args)`. `build` makes a list of
`BuildStep`s, which also say which Function a step runs (for the rewrites,
and for `blocking.plan` to tell an elementwise step) and which registers
it writes; it then turns each list into `Step`s, which say what the replay
loop needs and no more: which registers to let go of after the step.

Both are frozen, slotted dataclasses: read by field name, and, on CPython
3.11, as fast to read in the replay loop as a tuple unpacked (a NamedTuple's
fields are slower there), which matters for a program of many small steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torchlight.engine import Context, Function
    from torchlight.tensor import Tensor

__all__ = ["BuildStep", "Step"]


@dataclass(frozen=True, slots=True, eq=False)
class BuildStep:
    """A step while the lists are built."""

    fn: type[Function] | None  # the Function it runs; None for a call of the program's own (an opaque node's)
    forward: Callable[..., Any]  # what runs: fn.forward, or that call
    ctx: Context | None  # what forward gets first: a quiet Context of the node's needs_input_grad, or None
    args: tuple  # its arguments: registers, tensors from outside fn, constants
    writes: tuple[Tensor, ...]  # the registers it writes: out, or an opaque backward's gradients
    out: Tensor  # the register its result goes to (the program's sink for an opaque backward's None)


@dataclass(frozen=True, slots=True, eq=False)
class Step:
    """A step as the program replays it (`program.run_steps`)."""

    forward: Callable[..., Any]  # the BuildStep's, or one that may write into an input (`build._try_into`)
    ctx: Context | None
    args: tuple
    out: Tensor
    frees: tuple[Tensor, ...]  # the registers read here for the last time: let go of after the step
    # the step's forward as a function of the arrays of its Tensor arguments (and its other arguments
    # as they are), where `straight.ARRAY_FORWARDS` has one: what the straight-line replay calls
    kernel: Callable[..., Any] | None = None
