"""Statistical functions: the reductions with the standard's `axis`/`keepdims`/`dtype`, and
`cumulative_sum`/`cumulative_prod` (with `include_initial`) composed from cumsum/cumprod and concat."""

from __future__ import annotations

from typing import Any

from torchlight.array_api._helpers import axis_tuple, dtype_arg, tensor_arg
from torchlight.ops.shapes import concat as _concat
from torchlight.tensor import Tensor

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]

Axis = int | tuple[int, ...] | None


def _cast(x: Tensor, dtype: Any, fn: str) -> Any:
    """`dtype` as x's backend's dtype (None stays None: the backend's own default accumulator)."""
    return None if dtype is None else dtype_arg(x.backend, dtype, fn)


def _reduced(out: Tensor, dtype: Any) -> Tensor:
    return out if dtype is None or out.dtype == dtype else out.astype(dtype)


def sum(x: Tensor, /, *, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The sum over `axis` (all axes when None), in `dtype` when given.

    Example:
        >>> import torchlight as tl
        >>> import torchlight.array_api as xp
        >>> t = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> y = xp.sum(t, axis=0)
        >>> xp.sum(y * y).backward()
        >>> y.tolist(), t.grad.tolist()
        ([4.0, 6.0], [[8.0, 12.0], [8.0, 12.0]])
    """
    x = tensor_arg(x, "sum")
    dt = _cast(x, dtype, "sum")
    if dt is not None and dt != x.dtype:
        x = x.astype(dt)
    return _reduced(x.sum(dim=axis, keepdim=keepdims), dt)


def prod(x: Tensor, /, *, axis: Axis = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """The product over `axis`, in `dtype` when given.

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
        >>> xp.prod(x), xp.prod(x, axis=0)
        (tensor(24.), tensor([3., 8.]))
    """
    x = tensor_arg(x, "prod")
    dt = _cast(x, dtype, "prod")
    if dt is not None and dt != x.dtype:
        x = x.astype(dt)
    return _reduced(x.prod(dim=axis, keepdim=keepdims), dt)


def mean(x: Tensor, /, *, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The arithmetic mean over `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.mean(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), axis=1)
        tensor([1.5, 3.5])
    """
    return tensor_arg(x, "mean").mean(dim=axis, keepdim=keepdims)


def _extreme(fn: str, x: Any, axis: Axis, keepdims: bool) -> Tensor:
    x = tensor_arg(x, fn)
    out = getattr(x, fn)(dim=axis, keepdim=keepdims)
    return out[0] if isinstance(out, tuple) else out  # (PyTorch's face gives (values, indices) with a dim)


def max(x: Tensor, /, *, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The maximum values over `axis` (the values only; ties share the gradient).

    Example:
        >>> import torchlight.array_api as xp
        >>> import torchlight as tl
        >>> x = tl.tensor([[1.0, 5.0], [7.0, 2.0]])
        >>> xp.max(x), xp.max(x, axis=0)
        (tensor(7.), tensor([7., 5.]))
        >>> t = tl.tensor([1.0, 3.0, 3.0], requires_grad=True)
        >>> xp.max(t).backward()
        >>> t.grad.tolist()
        [0.0, 0.5, 0.5]
    """
    return _extreme("max", x, axis, keepdims)


def min(x: Tensor, /, *, axis: Axis = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The minimum values over `axis`.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.min(xp.asarray([[1.0, 5.0], [7.0, 2.0]]), axis=1, keepdims=True)
        tensor([[1.],
                [2.]])
    """
    return _extreme("min", x, axis, keepdims)


def var(x: Tensor, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False) -> Tensor:
    """The variance sum((x - mean)**2) / (N - correction) over `axis` (the standard's default
    `correction=0`; PyTorch's face defaults to 1).

    Example:
        >>> import torchlight.array_api as xp
        >>> x = xp.asarray([1.0, 2.0, 3.0, 4.0])
        >>> xp.var(x), xp.var(x, correction=1)
        (tensor(1.25), tensor(1.66666667))
    """
    return tensor_arg(x, "var").var(dim=axis, keepdim=keepdims, correction=correction)


def std(x: Tensor, /, *, axis: Axis = None, correction: int | float = 0.0, keepdims: bool = False) -> Tensor:
    """sqrt(var(x, axis=axis, correction=correction)).

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.std(xp.asarray([1.0, 2.0, 3.0, 4.0])) ** 2
        tensor(1.25)
    """
    return tensor_arg(x, "std").std(dim=axis, keepdim=keepdims, correction=correction)


def _cumulative(fn: str, method: str, x: Any, axis: int | None, dtype: Any, include_initial: bool,
                initial: float) -> Tensor:
    x = tensor_arg(x, fn)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{fn}: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    if x.ndim == 0:
        raise ValueError(f"{fn}: x must have at least one dimension")
    (axis,) = axis_tuple(axis, x.ndim, fn)
    dt = _cast(x, dtype, fn)
    out = getattr(x, method)(axis) if dt is None else getattr(x, method)(axis, dtype=dt)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        xp = x.backend.xp
        first = Tensor(xp.full(tuple(shape), initial, dtype=out.dtype, device=x._device), x.backend)
        out = _concat([first, out], dim=axis)
    return out


def cumulative_sum(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Tensor:
    """The running sum along `axis` (required unless `x` is 1-d); `include_initial=True` starts with a 0.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.cumulative_sum(xp.asarray([1.0, 2.0, 3.0]), include_initial=True).tolist()
        [0.0, 1.0, 3.0, 6.0]
    """
    return _cumulative("cumulative_sum", "cumsum", x, axis, dtype, include_initial, 0)


def cumulative_prod(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> Tensor:
    """The running product along `axis`; `include_initial=True` starts with a 1.

    Example:
        >>> import torchlight.array_api as xp
        >>> xp.cumulative_prod(xp.asarray([1.0, 2.0, 3.0, 4.0]))
        tensor([ 1.,  2.,  6., 24.])
        >>> xp.cumulative_prod(xp.asarray([[1, 2], [3, 4]]), axis=1, include_initial=True)
        tensor([[ 1,  1,  2],
                [ 1,  3, 12]])
    """
    return _cumulative("cumulative_prod", "cumprod", x, axis, dtype, include_initial, 1)
