"""Tests of values: isnan, isinf, isfinite, signbit, the logical operations, any, all,
count_nonzero and isin. Boolean or integer results, no gradient (constants).

The logical operations take any dtype, as PyTorch's do (a nonzero value is
True); the array API namespace asks for booleans. `any`, `all` and
`count_nonzero` reduce over `dim` (an int, a tuple, or None for all).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.0, float("nan"), 2.0], requires_grad=True)
    >>> x.isnan().tolist(), x.isfinite().all().item(), x.count_nonzero().item()
    ([False, True, False], False, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from torchlight.backends.checks import check_same_backend
from torchlight.ops.common import broadcast_shapes, normalize_dims

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def _is_bool(x: Tensor) -> bool:
    return bool(x.backend.xp.isdtype(x.dtype, "bool"))


def _truth(x: Tensor) -> Any:
    """The array of `x` as booleans: itself when boolean, else `x != 0` (PyTorch's reading)."""
    if _is_bool(x):
        return x.data
    return x.data != x.backend.xp.zeros((), dtype=x.dtype, device=x._device)


def _operand(op: str, x: Tensor, other: Any) -> Tensor:
    """`other` as a Tensor beside `x` (a Python bool or number lifted), one backend, shapes that broadcast."""
    if isinstance(other, (bool, int, float)):
        other = x._wrap(x.backend.xp.asarray(bool(other), device=x._device), x.backend)
    other = x._lift(other)
    check_same_backend(op, x, other)
    broadcast_shapes(op, x.shape, other.shape)
    return other


def common_dtype(op: str, a: Tensor, b: Tensor) -> tuple[Any, Any]:
    """The arrays of `a` and `b` in one dtype where they differ in kind (an integer beside a float:
    both as the float; a bool beside a number: the number's), so that `==` between them is the
    standard's; same-kind pairs promote by the library's rules."""
    xp = a.backend.xp
    x, y = a.data, b.data
    if a.dtype == b.dtype:
        return x, y
    kinds = [("bool" if xp.isdtype(t.dtype, "bool") else "real floating" if xp.isdtype(t.dtype, "real floating")
              else "complex floating" if xp.isdtype(t.dtype, "complex floating") else "integral") for t in (a, b)]
    if kinds[0] == kinds[1]:
        return x, y
    order = ("bool", "integral", "real floating", "complex floating")
    wide = a if order.index(kinds[0]) > order.index(kinds[1]) else b
    return xp.astype(x, wide.dtype), xp.astype(y, wide.dtype)


class LogicalMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def _constant(self: Tensor, data: Any) -> Tensor:
        return self._wrap(data, self.backend)

    def isnan(self: Tensor) -> Tensor:
        """True where the element is NaN (never for integers and booleans); no gradient."""
        return self._constant(self.backend.xp.isnan(self.data))

    def isinf(self: Tensor) -> Tensor:
        """True where the element is +inf or -inf; no gradient."""
        return self._constant(self.backend.xp.isinf(self.data))

    def isfinite(self: Tensor) -> Tensor:
        """True where the element is neither infinite nor NaN; no gradient."""
        return self._constant(self.backend.xp.isfinite(self.data))

    def signbit(self: Tensor) -> Tensor:
        """True where the sign bit is set: negative numbers, -0.0 and NaNs with the sign bit; no gradient.

        Integers (PyTorch takes them; the standard's `signbit` is for floats
        only) are True where negative.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([-0.0, 0.0, -2.0]).signbit().tolist()
            [True, False, True]
        """
        xp = self.backend.xp
        if xp.isdtype(self.dtype, "real floating"):
            return self._constant(xp.signbit(self.data))
        if xp.isdtype(self.dtype, "bool") or xp.isdtype(self.dtype, "unsigned integer"):
            return self._constant(xp.zeros(self.shape, dtype=xp.bool, device=self._device))
        if xp.isdtype(self.dtype, "integral"):
            return self._constant(self.data < xp.zeros((), dtype=self.dtype, device=self._device))
        raise TypeError(f"signbit: the input must be real (an integer or a real floating dtype), not {self.dtype}")

    def logical_and(self: Tensor, other: Any) -> Tensor:
        """Elementwise `self and other`, each read as a boolean (nonzero is True); no gradient.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([0.0, 1.0, 2.0]).logical_and(tl.tensor([True, True, False])).tolist()
            [False, True, False]
        """
        other = _operand("logical_and", self, other)
        return self._constant(self.backend.xp.logical_and(_truth(self), _truth(other)))

    def logical_or(self: Tensor, other: Any) -> Tensor:
        """Elementwise `self or other`, each read as a boolean; no gradient."""
        other = _operand("logical_or", self, other)
        return self._constant(self.backend.xp.logical_or(_truth(self), _truth(other)))

    def logical_xor(self: Tensor, other: Any) -> Tensor:
        """Elementwise: exactly one of `self` and `other` is true (nonzero); no gradient."""
        other = _operand("logical_xor", self, other)
        return self._constant(self.backend.xp.logical_xor(_truth(self), _truth(other)))

    def logical_not(self: Tensor) -> Tensor:
        """Elementwise `not self` (True where the element is 0 or False); no gradient."""
        return self._constant(self.backend.xp.logical_not(_truth(self)))

    def any(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """Whether any element over `dim` (an int, a tuple; None: all) is true (nonzero); a boolean
        tensor, no gradient. Over an empty dimension: False.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[0.0, 1.0], [0.0, 0.0]]).any(1).tolist()
            [True, False]
        """
        dims = normalize_dims(dim, self.ndim, "any")
        return self._constant(self.backend.xp.any(_truth(self), axis=dims, keepdims=keepdim))

    def all(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """Whether every element over `dim` (an int, a tuple; None: all) is true (nonzero); a boolean
        tensor, no gradient. Over an empty dimension: True."""
        dims = normalize_dims(dim, self.ndim, "all")
        return self._constant(self.backend.xp.all(_truth(self), axis=dims, keepdims=keepdim))

    def count_nonzero(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """How many elements over `dim` (an int, a tuple; None: all) are nonzero, in the default
        integer dtype (int64 on NumPy, as PyTorch); no gradient. A NaN counts as nonzero.

        `keepdim` is torchlight's addition (PyTorch's has none; the standard's has `keepdims`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]]).count_nonzero(dim=1).tolist()
            [2, 1]
        """
        dims = normalize_dims(dim, self.ndim, "count_nonzero")
        xp = self.backend.xp
        ones = xp.astype(_truth(self), self.backend.default_int(self._device))
        return self._constant(xp.sum(ones, axis=dims, keepdims=keepdim))

    def isin(self: Tensor, test_elements: Any, *, invert: bool = False) -> Tensor:
        """True where the element equals one of `test_elements` (a Tensor, an array, a number or a
        list), or where it equals none of them with `invert=True`; no gradient. NaN is in nothing.

        Compares every element with every test element (memory of their
        product); an integer beside a float compares as floats.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1, 2, 3, 4]).isin([2, 4]).tolist()
            [False, True, False, True]
        """
        xp = self.backend.xp
        if isinstance(test_elements, (list, tuple)) or type(test_elements) is np.ndarray:
            host = np.asarray(test_elements)  # host floats in the device's default float (no_float64 has no float64)
            dtype = self.backend.default_float(self._device) if host.dtype.kind == "f" else None
            test_elements = self.backend.asarray(host, dtype=dtype, device=self._device)
        other = self._lift(test_elements)
        check_same_backend("isin", self, other)
        x, y = common_dtype("isin", self, other)
        flat = xp.reshape(y, (-1,))
        hits = xp.any(xp.expand_dims(x, axis=-1) == flat, axis=-1) if flat.shape[0] else \
            xp.zeros(self.shape, dtype=xp.bool, device=self._device)
        return self._constant(xp.logical_not(hits) if invert else hits)
