"""The bitwise entries: bitwise_and/or/xor/not and the shifts, as methods, free functions and
operators (both sides); no Function, no gradient.

The inputs are whole numbers held as floats, cast to int64 (or made masks)
by the call and the reference alike; shift counts are 0 to 3. The bad-input
cases give a float tensor or a float number, a TypeError naming the op.

Example:
    >>> from conformance.ops.bitwise import OPS
    >>> [op.name for op in OPS][:3]
    ['bitwise_and', 'bitwise_or', 'bitwise_xor']
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import torchlight as tl
from conformance.opinfo import Case, OpInfo


def whole(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.integers(-20, 21, shape).astype(np.float64)


def counts(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.integers(0, 4, shape).astype(np.float64)


def _as(x: Any, kind: str) -> Any:
    """`x` as int64 (kind "int"), a mask ("bool"), or as it is ("float")."""
    if kind == "float":
        return x
    if isinstance(x, tl.Tensor):
        return x.astype("int64") if kind == "int" else x > 0.0
    return x.astype(np.int64) if kind == "int" else x > 0.0


def cases(shift: bool, name: str, reflected: bool = False) -> tuple[Case, ...]:
    """The integer cases; for a reflected shift the tensor whose method runs holds the counts."""
    a, b = (counts, whole) if shift and reflected else (whole, counts if shift else whole)
    return (
        Case("ints", ((3, 4), (3, 4)), domain=(a, b)),
        Case("broadcast", ((3, 1), (4,)), domain=(a, b)),
        Case("0d", ((), ()), domain=(a, b)),
        Case("python_int", ((3, 4),), domain=a, kwargs={"number": 2}),
        Case("empty", ((0, 3), (3,)), domain=(a, b)),
        *(() if shift else (Case("mask_and_ints", ((3, 4), (3, 4)), domain=whole, kwargs={"kind": "mixed"},
                                 note="a mask beside integers reads as their dtype (PyTorch)"),)),
        Case("float_tensor", ((3,), (3,)), kwargs={"kind": "float"}, raises=TypeError, match=name),
        Case("float_number", ((3,),), domain=whole, kwargs={"number": 1.5}, raises=TypeError, match=name),
        Case("shape_mismatch", ((2, 3), (4,)), domain=whole, raises=ValueError, match="shapes (2, 3) and (4,)"),
        *((Case("mask", ((3,), (3,)), kwargs={"kind": "bool"}, raises=TypeError, match=name),) if shift else ()),
    )


MASK_CASES = (
    Case("masks", ((3, 4), (3, 4)), kwargs={"kind": "bool"}),
    Case("broadcast", ((3, 1), (4,)), kwargs={"kind": "bool"}),
    Case("python_bool", ((3, 4),), kwargs={"kind": "bool", "number": True}),
)


def entry(name: str, ref: Any, how: str, shift: bool = False, masks: bool = False) -> OpInfo:
    """`how`: "method" (`a.name(b)`), "free" (`tl.name(a, b)`), "operator" (`fn(a, b)` with `fn` the
    operator module's function), "reflected" (`a.__rname__(b)`, i.e. b OP a); `masks`: the boolean
    cases (an entry of its own, its result boolean)."""
    rname = f"__r{name.strip('_')}__"

    def operands(a: Any, b: Any, number: Any, kind: str) -> tuple[Any, Any]:
        x = _as(a, "int" if kind == "mixed" else kind)
        y = number if b is None else _as(b, "bool" if kind == "mixed" else kind)
        return x, y

    def call(a: Any, b: Any = None, number: Any = None, kind: str = "int") -> Any:
        x, y = operands(a, b, number, kind)
        if how == "method":
            return getattr(x, name)(y)
        if how == "free":
            return getattr(tl, name)(x, y)
        if how == "reflected":
            return getattr(x, rname)(y)
        return ref(x, y)

    def reference(a: Any, b: Any = None, number: Any = None, kind: str = "int") -> Any:
        x, y = operands(a, b, number, kind)
        if how == "reflected":
            return ref(y, x)
        return ref(x, y)

    label = {"method": name, "free": f"tl.{name}", "operator": name, "reflected": rname}[how]
    raised = rname if how == "reflected" else name
    suffix = ".masks" if masks else ".ints" if how in ("operator", "reflected") and "shift" not in name else ""
    return OpInfo(label + suffix, call, reference,
                  MASK_CASES if masks else cases(shift, raised, how == "reflected"),
                  method=None if how == "free" else label, differentiable=False,
                  output_dtype="bool" if masks else "int")


def not_entry(label: str, call: Any) -> OpInfo:
    def run(x: Any, kind: str = "int") -> Any:
        return call(_as(x, kind))

    return OpInfo(label, run, lambda x, kind="int": np.invert(_as(x, kind)), (
        Case("ints", ((3, 4),), domain=whole),
        Case("0d", ((),), domain=whole),
        Case("float", ((3,),), kwargs={"kind": "float"}, raises=TypeError,
             match=label.removeprefix("tl.").removesuffix(".ints")),
    ), method=None if label.startswith("tl.") else label.removesuffix(".ints"), differentiable=False,
        output_dtype="int")


PAIRS = (("bitwise_and", np.bitwise_and, "__and__", operator.and_),
         ("bitwise_or", np.bitwise_or, "__or__", operator.or_),
         ("bitwise_xor", np.bitwise_xor, "__xor__", operator.xor),
         ("bitwise_left_shift", np.left_shift, "__lshift__", operator.lshift),
         ("bitwise_right_shift", np.right_shift, "__rshift__", operator.rshift))

OPS: list[OpInfo] = [entry(name, ref, "method", shift="shift" in name) for name, ref, _, _ in PAIRS]
OPS += [entry(name, ref, "method", masks=True) for name, ref, _, _ in PAIRS[:3]]
OPS += [entry(name, ref, "free", shift="shift" in name) for name, ref, _, _ in PAIRS]
OPS += [entry(dunder, fn, "operator", shift="shift" in dunder) for _, _, dunder, fn in PAIRS]
OPS += [entry(dunder, fn, "reflected", shift="shift" in dunder) for _, _, dunder, fn in PAIRS]
OPS += [not_entry("bitwise_not", lambda x: x.bitwise_not()), not_entry("tl.bitwise_not", tl.bitwise_not),
        not_entry("__invert__.ints", operator.invert)]
