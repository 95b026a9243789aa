"""`OpInfo` and `Case`: the rows of the op database, as plain data.

An `OpInfo` says how to call one op, what its forward value should be (a
float64 NumPy reference), which inputs it accepts (a domain per input) and
which cases to try; a `Case` is one set of shapes and arguments, possibly
targeting a kink or a bad input. Tolerances are overridden per check with
a reason, so the table says why an op gets slack.

Example:
    >>> import numpy as np
    >>> from conformance.opinfo import Case, OpInfo
    >>> op = OpInfo("exp", lambda x: x.exp(), np.exp, cases=(Case("1d", ((3,),)),),
    ...             method="exp", function="Exp")
    >>> op.cases[0].name, op.double_backward
    ('1d', True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from conformance import domains

Domain = Callable[[np.random.Generator, tuple], np.ndarray]

#: the dtypes a case runs in: float64 is the full tier, float32 the smoke tier
DTYPES = ("float64", "float32")

#: the complex dtype a complex case runs in, per tier (a case with `complex=True`)
COMPLEX_OF = {"float64": "complex128", "float32": "complex64"}

#: how many of an entry's cases get a complex twin when the entry says `complex=True`
COMPLEX_CASES = 2

#: checks that take tolerances (a `Tol` overrides one of them)
CHECKS = ("forward", "backward", "double_backward", "agreement")


@dataclass(frozen=True)
class Tol:
    """A tolerance override and why it is needed (`eps` is the gradcheck step)."""

    reason: str
    atol: float | None = None
    rtol: float | None = None
    eps: float | None = None


@dataclass(frozen=True)
class Case:
    """One way to call an op.

    `shapes` gives one shape per Tensor input; `domain` (one callable, or one
    per input) overrides the op's input domain; `kwargs` are passed to both
    the call and the reference (non-Tensor arguments: axes, exponents, index
    arrays as NumPy arrays). `grad` says which inputs require grad. A case
    with `raises` is a bad-input case: the call must raise that exception
    with `match` in its message. `grad_reference(*inputs, **kwargs)` gives
    the expected gradient of sum(out) per input where central differences
    cannot (kinks: the documented convention). `other_backend` puts that
    input on a second backend (for the mixed-backend error). `forward_only`
    checks the value alone (e.g. NaN from a negative base to a fractional
    power); `ieee` marks inputs that make inf or NaN on purpose (log(0)), so
    NumPy's floating-point warnings are silenced for that case. `skips` maps
    a backend to why this case does not run there (as `OpInfo.skips` does
    for a whole op). `note` says what the case targets. `complex` makes the
    inputs complex (real and imaginary parts each drawn from the domain; the
    float64 tier runs complex128, float32 complex64): the backward is then
    checked in PyTorch's convention (see `conformance.checks`).
    """

    name: str
    shapes: tuple[tuple[int, ...], ...]
    domain: Domain | tuple[Domain, ...] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    grad: tuple[bool, ...] | None = None
    raises: type[BaseException] | None = None
    match: str = ""
    double_backward: bool | None = None
    dtypes: tuple[str, ...] | None = None
    grad_reference: Callable[..., tuple[np.ndarray, ...]] | None = None
    tol: dict[str, Tol] = field(default_factory=dict)
    other_backend: int | None = None
    forward_only: bool = False
    ieee: bool = False
    skips: dict[str, str] = field(default_factory=dict)
    note: str = ""
    complex: bool = False

    def domain_of(self, i: int, default: Domain) -> Domain:
        """The input domain of Tensor input `i`."""
        if self.domain is None:
            return default[i] if isinstance(default, tuple) else default
        if isinstance(self.domain, tuple):
            return self.domain[i]
        return self.domain

    def requires_grad(self, i: int) -> bool:
        return True if self.grad is None else self.grad[i]


@dataclass(frozen=True)
class OpInfo:
    """One op of the database.

    `call(*tensors, **kwargs)` runs the op on torchlight Tensors;
    `reference(*arrays, **kwargs)` computes the forward value from float64
    NumPy arrays. `method` names the Tensor method or operator exercised and
    `function` the `torchlight.autograd.functions` Function (both used by the
    coverage test). `differentiable=False` marks ops with no gradient
    (comparisons, argmax): only the forward value and its dtype are checked.
    `output_dtype="bool"`/`"int"` says the result is not a float of the
    input's dtype; `same_backend=False` that the result lives elsewhere
    (`to`). `tol` maps a check name, or "check:dtype", to a `Tol`.
    `complex=True` says the op's gradient is right for complex inputs: the
    first `COMPLEX_CASES` plain cases run again with complex inputs.
    """

    name: str
    call: Callable[..., Any]
    reference: Callable[..., Any]
    cases: tuple[Case, ...]
    domain: Domain | tuple[Domain, ...] = domains.normal
    method: str | None = None
    function: str | tuple[str, ...] | None = None
    dtypes: tuple[str, ...] = DTYPES
    double_backward: bool = True
    double_backward_reason: str = ""
    differentiable: bool = True
    output_dtype: str | None = None
    same_backend: bool = True
    tol: dict[str, Tol] = field(default_factory=dict)
    skips: dict[str, str] = field(default_factory=dict)
    area: str = "core"
    complex: bool = False

    def __post_init__(self) -> None:
        if self.complex:  # the first few plain cases again, with complex inputs (`Case.complex`)
            plain = [c for c in self.cases if c.raises is None and c.grad_reference is None and not c.forward_only
                     and c.other_backend is None and not c.complex and not c.kwargs.get("number")]
            twins = tuple(replace(c, name=f"{c.name}_complex", complex=True,
                                  note="complex inputs: gradients in PyTorch's convention")
                          for c in plain[:COMPLEX_CASES])
            object.__setattr__(self, "cases", self.cases + twins)
        for table in (self.tol, *(case.tol for case in self.cases)):
            for key in table:
                check, _, dtype = key.partition(":")
                if check not in CHECKS or dtype not in ("", *DTYPES):
                    raise ValueError(f"op {self.name!r}: tolerance key {key!r} names no check "
                                     f"({', '.join(CHECKS)}, optionally ':float64'/':float32')")

    def functions(self) -> tuple[str, ...]:
        """The Function names this entry exercises."""
        if self.function is None:
            return ()
        return (self.function,) if isinstance(self.function, str) else tuple(self.function)

    def tolerance(self, check: str, dtype: str, case: Case) -> Tol | None:
        """The override for `check` in `dtype`: the case's, else the op's."""
        for table in (case.tol, self.tol):
            for key in (f"{check}:{dtype}", check):
                if key in table:
                    return table[key]
        return None
