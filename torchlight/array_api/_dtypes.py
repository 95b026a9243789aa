"""The namespace's dtypes (the same objects as `tl.float32`, ...) and the standard's promotion
table, which `result_type` and `can_cast` read."""

from __future__ import annotations

from typing import Any

from torchlight.backends.dtypes import DTYPES, DType, as_dtype

__all__ = ["DType", "bool", "complex64", "complex128", "float32", "float64", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64"]

bool = DTYPES["bool"]  # noqa: A001  (the standard's name)
int8, int16, int32, int64 = (DTYPES[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (DTYPES[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = DTYPES["float32"], DTYPES["float64"]
complex64, complex128 = DTYPES["complex64"], DTYPES["complex128"]

_SIGNED = ("int8", "int16", "int32", "int64")
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")


def _promotion_table() -> dict[tuple[str, str], str]:
    """The standard's type promotion table (names); pairs it leaves out (int64 with uint64, an
    integer with a float, bool with a number) are absent, as in array_api_strict."""
    table: dict[tuple[str, str], str] = {("bool", "bool"): "bool"}
    for kind in (_SIGNED, _UNSIGNED, ("float32", "float64"), ("complex64", "complex128")):
        for i, a in enumerate(kind):
            for j, b in enumerate(kind):
                table[a, b] = kind[max(i, j)]
    for i, u in enumerate(_UNSIGNED[:3]):  # uint8 with int8 -> int16, uint32 with any signed -> int64
        for j, s in enumerate(_SIGNED):
            table[u, s] = table[s, u] = _SIGNED[max(i + 1, j)]
    for real, complex_ in (("float32", "complex64"), ("float64", "complex128")):
        for c in ("complex64", "complex128"):
            wide = "complex128" if "complex128" in (complex_, c) else "complex64"
            table[real, c] = table[c, real] = wide
    return table


PROMOTION = _promotion_table()


def dtype_of(obj: Any, fn: str, arg: str = "dtype") -> DType:
    """`obj` (a dtype of any library, or an array) as a DType; anything else a TypeError naming `fn`."""
    found = as_dtype(obj)
    if found is None:
        found = as_dtype(getattr(obj, "dtype", None)) if not isinstance(obj, str) else None
        if found is None:
            raise TypeError(f"{fn}: {arg} must be a dtype or an array, not {obj!r}")
    return found


def promote(a: DType, b: DType, fn: str) -> DType:
    """The standard's promotion of two dtypes; a pair it does not define is a TypeError naming both."""
    name = PROMOTION.get((a.name, b.name))
    if name is None:
        raise TypeError(f"{fn}: {a} and {b} cannot be promoted together (the standard defines no promotion "
                        "across kinds, or of int64 with uint64; cast one with astype first)")
    return DTYPES[name]
