"""Comparisons: `< <= > >= == !=`, boolean results, no gradient (the mask operators `& | ^ ~` are
`torchlight.ops.bitwise`'s).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 2.0, 3.0])
    >>> ((x > 1.5) & (x < 2.5)).tolist()
    [False, True, False]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.ops.common import _int_side, broadcast_shapes
from torchlight.ops.complex_numbers import refuse_complex

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


# what each comparison says of every element when the number is above the dtype's range
#: the comparisons that need an order, which complex numbers lack (the standard's: real inputs only)
_ORDERED = {"__lt__": "less", "__le__": "less_equal", "__gt__": "greater", "__ge__": "greater_equal"}
_ABOVE_RANGE = {"__lt__": True, "__le__": True, "__ne__": True, "__gt__": False, "__ge__": False, "__eq__": False}


class ComparisonsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def _compare(self: Tensor, op: str, other: Any) -> Tensor:
        if type(other) is int and op in _ABOVE_RANGE and not self.backend.is_floating(self.dtype) \
                and not self.backend.xp.isdtype(self.dtype, "bool"):
            side = _int_side(self.backend, self.dtype, other)
            if side:  # a number beyond the dtype compares by value, as NumPy 2 (`uint8_x > -1` is all True)
                answer = _ABOVE_RANGE[op] if side > 0 else op in ("__gt__", "__ge__", "__ne__")
                return self._wrap(self.backend.xp.full(self.shape, answer, dtype=self.backend.xp.bool,
                                                         device=self._device), self.backend)
        other = self._lift(other)
        if op in _ORDERED:
            refuse_complex(_ORDERED[op], self, other)
        check_same_backend(op, self, other)
        if self.data.shape != other.data.shape:
            broadcast_shapes(op, self.shape, other.shape)
        return self._wrap(getattr(self.data, op)(other.data), self.backend)

    def __lt__(self: Tensor, other: Any) -> Tensor:
        return self._compare("__lt__", other)

    def __le__(self: Tensor, other: Any) -> Tensor:
        return self._compare("__le__", other)

    def __gt__(self: Tensor, other: Any) -> Tensor:
        return self._compare("__gt__", other)

    def __ge__(self: Tensor, other: Any) -> Tensor:
        return self._compare("__ge__", other)

    def __eq__(self: Tensor, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare("__eq__", other)

    def __ne__(self: Tensor, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare("__ne__", other)
