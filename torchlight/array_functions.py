"""Free functions over tensors, with PyTorch's names: where, stack, cat (alias concat), maximum,
minimum, atan2 (alias arctan2), logaddexp, hypot, copysign; real, imag, conj, angle.

Each lifts its arguments and calls the Tensor method that does the work
(`tl.maximum(a, b)` is `a.maximum(b)`, with a number or array on either
side lifted first); `stack` and `cat`, which have no method, are the
shapes category's (`torchlight.ops.shapes`). The values are the array API
standard's (`xp.where`, `xp.stack`, `xp.concat`, `xp.maximum`, ...), and
the gradient of each input comes back in its own shape.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([-1.0, 2.0], requires_grad=True)
    >>> y = tl.cat([tl.where(x > 0, x, 0.0), tl.stack([x, x * 3.0], dim=1).sum(1)])
    >>> y.sum().backward()
    >>> x.grad.tolist()
    [4.0, 5.0]
"""

from __future__ import annotations

from typing import Any

from torchlight.creation import tensor
from torchlight.ops.shapes import cat, concat, stack
from torchlight.tensor import Tensor

__all__ = ["angle", "arctan2", "atan2", "cat", "concat", "conj", "copysign", "hypot", "imag", "logaddexp",
           "maximum", "minimum", "real", "stack", "where"]


def where(condition: Any, input: Any, other: Any) -> Tensor:
    """`input` where `condition` holds, else `other`, broadcasting all three: `input.where(condition, other)`.

    `condition` is a boolean Tensor or array (no gradient); `input` and
    `other` are Tensors, arrays or Python numbers (a number takes the dtype
    of the Tensor on the other side; with two numbers, the backend's default
    float if either is a float). Each side's gradient is the incoming one
    where it was chosen, 0 elsewhere, summed back to its shape.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
        >>> b = tl.tensor([10.0, 20.0], requires_grad=True)
        >>> tl.where(x > 0, x, b).sum().backward()
        >>> x.grad.tolist(), b.grad.tolist()
        ([[1.0, 0.0], [0.0, 1.0]], [1.0, 1.0])
    """
    if isinstance(input, Tensor):
        return input.where(condition, other)
    if isinstance(other, Tensor):
        return other._lift(input).where(condition, other)
    cond = condition if isinstance(condition, Tensor) else tensor(condition)
    backend, device = cond.backend, cond._device
    floats = isinstance(input, float) or isinstance(other, float)
    dtype = backend.default_float(device) if floats else None
    a, b = (Tensor._wrap(backend.asarray(v, dtype=dtype if isinstance(v, (int, float)) else None, device=device),
                         backend) for v in (input, other))
    return a.where(cond, b)


def _pair(op: str, input: Any, other: Any) -> tuple[Tensor, Any]:
    """(the Tensor to call the method on, the other argument): `input` if it is a Tensor, else
    `other`'s lift of it; a TypeError naming `op` when neither is a Tensor."""
    if isinstance(input, Tensor):
        return input, other
    if isinstance(other, Tensor):
        return other._lift(input), other
    raise TypeError(f"{op}: expects at least one Tensor, got {type(input).__name__} and {type(other).__name__}")


def maximum(input: Any, other: Any) -> Tensor:
    """The elementwise maximum of `input` and `other`: `input.maximum(other)` (ties split the gradient).

    Example:
        >>> import torchlight as tl
        >>> tl.maximum(tl.tensor([1.0, 5.0]), 3.0).tolist()
        [3.0, 5.0]
    """
    a, b = _pair("maximum", input, other)
    return a.maximum(b)


def minimum(input: Any, other: Any) -> Tensor:
    """The elementwise minimum of `input` and `other`: `input.minimum(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.minimum(2.0, tl.tensor([1.0, 5.0])).tolist()
        [1.0, 2.0]
    """
    a, b = _pair("minimum", input, other)
    return a.minimum(b)


def atan2(input: Any, other: Any) -> Tensor:
    """The angle of the point (other, input): `input.atan2(other)`; `arctan2` is the same function.

    Example:
        >>> import torchlight as tl
        >>> round(tl.atan2(tl.tensor(1.0), 1.0).item(), 4)
        0.7854
    """
    a, b = _pair("atan2", input, other)
    return a.atan2(b)


arctan2 = atan2


def logaddexp(input: Any, other: Any) -> Tensor:
    """log(exp(input) + exp(other)) without overflow: `input.logaddexp(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.logaddexp(tl.tensor([1000.0]), 1000.0).tolist()
        [1000.6931471805599]
    """
    a, b = _pair("logaddexp", input, other)
    return a.logaddexp(b)


def hypot(input: Any, other: Any) -> Tensor:
    """sqrt(input**2 + other**2) without overflow: `input.hypot(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.hypot(tl.tensor([3.0]), 4.0).tolist()
        [5.0]
    """
    a, b = _pair("hypot", input, other)
    return a.hypot(b)


def copysign(input: Any, other: Any) -> Tensor:
    """|input| with the sign of `other`: `input.copysign(other)`.

    Example:
        >>> import torchlight as tl
        >>> tl.copysign(tl.tensor([2.0, -3.0]), -1.0).tolist()
        [-2.0, -3.0]
    """
    a, b = _pair("copysign", input, other)
    return a.copysign(b)


def _as_tensor(input: Any) -> Tensor:
    """`input` as a Tensor (a Python number or list, an array); a Tensor as it is."""
    return input if isinstance(input, Tensor) else tensor(input)


def real(input: Any) -> Tensor:
    """The real part: `input.real` (a real tensor is returned as it is).

    Example:
        >>> import torchlight as tl
        >>> tl.real(tl.tensor([1 + 2j, 3.0])).tolist()
        [1.0, 3.0]
    """
    return _as_tensor(input).real


def imag(input: Any) -> Tensor:
    """The imaginary part: `input.imag` (zeros for a real tensor, as the array API standard).

    Example:
        >>> import torchlight as tl
        >>> tl.imag(tl.tensor([1 + 2j, 3.0])).tolist()
        [2.0, 0.0]
    """
    return _as_tensor(input).imag


def conj(input: Any) -> Tensor:
    """The complex conjugate: `input.conj()` (a real tensor is returned as it is).

    Example:
        >>> import torchlight as tl
        >>> tl.conj(tl.tensor([1 + 2j])).tolist()
        [(1-2j)]
    """
    return _as_tensor(input).conj()


def angle(input: Any) -> Tensor:
    """The argument in radians, in (-pi, pi]: `input.angle()` (0 or pi for a real tensor, as PyTorch).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.angle(tl.tensor([1j, -1.0])).tolist()]
        [1.5708, 3.1416]
    """
    return _as_tensor(input).angle()
