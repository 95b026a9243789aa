"""Bitwise operations: and, or, xor, not and the shifts, as methods (PyTorch's names) and the
operators `& | ^ ~ << >>` (both sides). Integer or boolean results, no gradient.

The dtypes are the standard's: `&`, `|`, `^` and `~` take integer or
boolean tensors, the shifts integers only; a Python int (or bool) on the
other side takes the tensor's dtype. A boolean tensor beside an integer one
is read as that integer dtype (PyTorch's promotion). A floating-point
operand is a TypeError naming the op.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1, 2, 3])
    >>> (x & 1).tolist(), (x << 2).tolist(), (~tl.tensor([True, False])).tolist()
    ([1, 0, 1], [4, 8, 12], [False, True])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend
from torchlight.ops.common import broadcast_shapes

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def _kind_ok(x: Tensor, shift: bool) -> bool:
    xp = x.backend.xp
    return bool(xp.isdtype(x.dtype, "integral") or (not shift and xp.isdtype(x.dtype, "bool")))


def _check_kind(op: str, x: Tensor, shift: bool) -> None:
    if not _kind_ok(x, shift):
        wanted = "an integer" if shift else "an integer or boolean"
        raise TypeError(f"{op}: the inputs must have {wanted} dtype, not {x.dtype} (the standard's rule; cast "
                        "with .astype first)")


def _operand(op: str, x: Tensor, other: Any, shift: bool) -> Tensor:
    """`other` beside `x` as a Tensor, after the checks: no float (Tensor or number), one backend,
    shapes that broadcast."""
    if isinstance(other, float) or (isinstance(other, complex)):
        raise TypeError(f"{op}: a {type(other).__name__} operand ({other!r}); the operands must be integers"
                        + ("" if shift else " or booleans"))
    other = x._lift(other)
    check_same_backend(op, x, other)
    _check_kind(op, other, shift)
    broadcast_shapes(op, x.shape, other.shape)
    return other


def _apply(op: str, name: str, a: Tensor, b: Tensor) -> Tensor:
    """`xp.<name>(a, b)`, a boolean side cast to the other side's integer dtype."""
    xp = a.backend.xp
    x, y = a.data, b.data
    a_bool, b_bool = xp.isdtype(a.dtype, "bool"), xp.isdtype(b.dtype, "bool")
    if a_bool != b_bool:
        x, y = (xp.astype(x, b.dtype), y) if a_bool else (x, xp.astype(y, a.dtype))
    return a._wrap(getattr(xp, name)(x, y), a.backend)


def _binary(op: str, name: str, shift: bool = False, reverse: bool = False) -> Any:
    """The method or operator `op` over `xp.<name>`; `reverse`: `other op self` (a reflected operator)."""

    def method(self: Tensor, other: Any) -> Tensor:
        _check_kind(op, self, shift)
        other = _operand(op, self, other, shift)
        return _apply(op, name, other, self) if reverse else _apply(op, name, self, other)

    method.__name__ = op
    method.__doc__ = (f"`xp.{name}` of {'other and self' if reverse else 'self and other'} (a Tensor, an array "
                      f"or a Python int), broadcasting; {'integer' if shift else 'integer or boolean'} dtypes, "
                      "no gradient.")
    return method


class BitwiseMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    bitwise_and = _binary("bitwise_and", "bitwise_and")
    bitwise_or = _binary("bitwise_or", "bitwise_or")
    bitwise_xor = _binary("bitwise_xor", "bitwise_xor")
    bitwise_left_shift = _binary("bitwise_left_shift", "bitwise_left_shift", shift=True)
    bitwise_right_shift = _binary("bitwise_right_shift", "bitwise_right_shift", shift=True)

    # `&`, `|`, `^`, `~`: masks combined as in NumPy and PyTorch ((x > 0) & (x < 1)), or integers' bits
    __and__ = _binary("__and__", "bitwise_and")
    __rand__ = _binary("__rand__", "bitwise_and", reverse=True)
    __or__ = _binary("__or__", "bitwise_or")
    __ror__ = _binary("__ror__", "bitwise_or", reverse=True)
    __xor__ = _binary("__xor__", "bitwise_xor")
    __rxor__ = _binary("__rxor__", "bitwise_xor", reverse=True)
    __lshift__ = _binary("__lshift__", "bitwise_left_shift", shift=True)
    __rlshift__ = _binary("__rlshift__", "bitwise_left_shift", shift=True, reverse=True)
    __rshift__ = _binary("__rshift__", "bitwise_right_shift", shift=True)
    __rrshift__ = _binary("__rrshift__", "bitwise_right_shift", shift=True, reverse=True)

    def bitwise_not(self: Tensor) -> Tensor:
        """Each bit flipped (`~x`; `not` of a boolean tensor); integer or boolean dtypes, no gradient.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([0, 5]).bitwise_not().tolist()
            [-1, -6]
        """
        _check_kind("bitwise_not", self, shift=False)
        return self._wrap(self.backend.xp.bitwise_invert(self.data), self.backend)

    def __invert__(self: Tensor) -> Tensor:
        _check_kind("__invert__", self, shift=False)
        return self._wrap(self.backend.xp.bitwise_invert(self.data), self.backend)
