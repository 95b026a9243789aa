"""Free functions over tensors: where, stack, cat (alias concat), maximum, minimum, atan2
(alias arctan2), logaddexp.

The array functions a user's own NumPy code reaches for, with PyTorch's
names and signatures and the array API standard's values (`xp.where`,
`xp.stack`, `xp.concat`, `xp.maximum`, `xp.minimum`, `xp.atan2`,
`xp.logaddexp`). Each checks its inputs first and raises naming the op
and the shapes; the gradient of each input comes back in its own
shape (a broadcast operand of `where` gets the sum).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([-1.0, 2.0], requires_grad=True)
    >>> y = tl.cat([tl.where(x > 0, x, 0.0), tl.stack([x, x * 3.0], dim=1).sum(1)])
    >>> y.sum().backward()
    >>> x.grad.tolist()
    [4.0, 5.0]
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any

from torchlight.autograd import functions as F
from torchlight.tensor import Tensor, check_same_backend

__all__ = ["arctan2", "atan2", "cat", "concat", "logaddexp", "maximum", "minimum", "stack", "where"]


def where(condition: Any, input: Any, other: Any) -> Tensor:
    """`input` where `condition` holds, else `other`, broadcasting all three.

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
    like = next((t for t in (input, other, condition) if isinstance(t, Tensor)), None)
    if like is None:
        from torchlight.creation import tensor

        like = tensor(condition)
    cond = like._lift(condition) if not isinstance(condition, Tensor) else condition
    if not cond.backend.xp.isdtype(cond.dtype, "bool"):
        raise TypeError(f"where: the condition must be boolean, not {cond.dtype} (compare first, e.g. x > 0)")
    a, b = _operands(input, other, cond)
    for t in (a, b):
        _check_backend("where", cond, t)
    try:
        F.broadcast_shapes("where", cond.shape, F.broadcast_shapes("where", a.shape, b.shape))
    except ValueError:
        raise ValueError(f"where: the shapes of condition {cond.shape}, input {a.shape} and other {b.shape} "
                         "cannot be broadcast together") from None
    return F.Where.apply(cond, a, b)


def _operands(input: Any, other: Any, cond: Tensor) -> tuple[Tensor, Tensor]:
    """`input` and `other` as Tensors: a number or array beside a Tensor is lifted as an operator lifts it."""
    if isinstance(input, Tensor):
        return input, input._lift(other)
    if isinstance(other, Tensor):
        return other._lift(input), other
    backend, device = cond.backend, cond.device
    numbers = [v for v in (input, other) if isinstance(v, (int, float))]
    dtype = backend.default_float(device) if any(isinstance(v, float) for v in numbers) else None
    made = [Tensor._wrap(backend.asarray(v, dtype=dtype if isinstance(v, (int, float)) else None, device=device),
                         backend) for v in (input, other)]
    return made[0], made[1]


def maximum(input: Any, other: Any) -> Tensor:
    """The elementwise maximum of `input` and `other`, broadcasting as `+` does.

    Either side may be a Python number or an array (lifted as the operators
    lift it). Where the two are equal each gets half the gradient, as in
    PyTorch (NumPy code that uses `np.maximum(x, 0)` as a relu gets 0.5 at
    x == 0 here, where `relu` gives 0).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1.0, 5.0, 2.0], requires_grad=True)
        >>> b = tl.tensor([3.0, 4.0, 2.0], requires_grad=True)
        >>> tl.maximum(a, b).sum().backward()
        >>> a.grad.tolist(), b.grad.tolist()
        ([0.0, 1.0, 0.5], [1.0, 0.0, 0.5])
    """
    return _elementwise("maximum", F.Maximum, input, other)


def minimum(input: Any, other: Any) -> Tensor:
    """The elementwise minimum of `input` and `other`; ties split the gradient as in `maximum`."""
    return _elementwise("minimum", F.Minimum, input, other)


def atan2(input: Any, other: Any) -> Tensor:
    """The angle of the point (other, input) in radians, in [-pi, pi]: `np.arctan2(input, other)`.

    `input` is the y coordinate and `other` the x one (as PyTorch, NumPy and
    the standard); both broadcast, and either may be a number. The gradient
    is (other, -input) / (input**2 + other**2), and 0 at the origin (as
    PyTorch). `arctan2` is the same function.

    Example:
        >>> import torchlight as tl
        >>> y = tl.tensor([1.0, 0.0], requires_grad=True)
        >>> x = tl.tensor([1.0, -2.0], requires_grad=True)
        >>> tl.atan2(y, x).sum().backward()
        >>> y.grad.tolist(), x.grad.tolist()
        ([0.5, -0.5], [-0.5, -0.0])
    """
    return _elementwise("atan2", F.Atan2, input, other)


arctan2 = atan2


def logaddexp(input: Any, other: Any) -> Tensor:
    """log(exp(input) + exp(other)), broadcasting, without overflow for large inputs.

    The gradients are sigmoid(input - other) and sigmoid(other - input),
    each accurate in its tail.

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1000.0, 0.0], requires_grad=True)
        >>> out = tl.logaddexp(a, 0.0)
        >>> [round(v, 4) for v in out.tolist()]    # 1000, and log 2
        [1000.0, 0.6931]
        >>> out.sum().backward()
        >>> a.grad.tolist()
        [1.0, 0.5]
    """
    return _elementwise("logaddexp", F.LogAddExp, input, other)


def _elementwise(op: str, fn: type, input: Any, other: Any) -> Tensor:
    """`fn.apply(input, other)` after the checks a binary operator makes (backends, shapes)."""
    if isinstance(input, Tensor):
        other = input._lift(other)
    elif isinstance(other, Tensor):
        input = other._lift(input)
    else:
        raise TypeError(f"{op}: expects at least one Tensor, got {type(input).__name__} and {type(other).__name__}")
    check_same_backend(op, input, other)
    F.broadcast_shapes(op, input.shape, other.shape)
    return fn.apply(input, other)


def stack(tensors: Iterable[Tensor], dim: int = 0) -> Tensor:
    """Same-shaped tensors joined along a new dimension `dim` (-ndim - 1 <= dim <= ndim).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> tl.stack([a, a * 2.0], dim=1).tolist()
        [[1.0, 2.0], [2.0, 4.0]]
    """
    parts = _parts("stack", tensors)
    first = parts[0]
    for i, t in enumerate(parts[1:], 1):
        _check_backend("stack", first, t)
        if t.shape != first.shape:
            raise ValueError(f"stack: shapes {first.shape} and {t.shape} (tensors 0 and {i}) differ; "
                             "stack needs equal shapes")
    n, dim = first.ndim + 1, operator.index(dim)
    if not -n <= dim < n:
        raise IndexError(f"stack: dim {dim} is out of range for stacking tensors of shape {first.shape} "
                         f"(expected {-n} to {n - 1})")
    return F.Stack.apply(*parts, dim % n)


def cat(tensors: Iterable[Tensor], dim: int = 0) -> Tensor:
    """Tensors joined along their existing dimension `dim`; every other dimension must agree.

    `concat` is the same function under the array API standard's name.

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[1.0, 2.0]], requires_grad=True)
        >>> b = tl.tensor([[3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        >>> out = tl.cat([a, b])
        >>> out.shape
        (3, 2)
        >>> (out * out).sum().backward()
        >>> a.grad.tolist()
        [[2.0, 4.0]]
    """
    parts = _parts("cat", tensors)
    first = parts[0]
    if first.ndim == 0:
        raise ValueError("cat: 0-d tensors (tensor 0 has shape ()) cannot be concatenated; use tl.stack")
    dim = operator.index(dim)
    if not -first.ndim <= dim < first.ndim:
        raise IndexError(f"cat: dim {dim} is out of range for tensors of shape {first.shape} "
                         f"(expected {-first.ndim} to {first.ndim - 1})")
    axis = dim % first.ndim
    for i, t in enumerate(parts[1:], 1):
        _check_backend("cat", first, t)
        if t.ndim != first.ndim or any(m != n for k, (m, n) in enumerate(zip(first.shape, t.shape)) if k != axis):
            raise ValueError(f"cat: shapes {first.shape} and {t.shape} (tensors 0 and {i}) differ "
                             f"outside dim {axis}")
    return F.Concat.apply(*parts, axis)


concat = cat


def _parts(op: str, tensors: Iterable[Tensor]) -> list[Tensor]:
    """`tensors` as a non-empty list of Tensors, or the error that says what is wrong."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{op}: expects a sequence of Tensors, not one Tensor (wrap it in a list)")
    parts = list(tensors)
    if not parts:
        raise ValueError(f"{op}: expects a non-empty sequence of Tensors")
    for i, t in enumerate(parts):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: element {i} is a {type(t).__name__}, not a Tensor")
    return parts


def _check_backend(op: str, first: Tensor, t: Tensor) -> None:
    if t.backend is not first.backend or first.backend.multi_device:
        check_same_backend(op, first, t)
