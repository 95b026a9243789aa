"""Copies: clone, astype (a dtype cast), to (another backend or device).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> (x.clone() * 2.0).astype("float32").sum().backward()
    >>> x.grad.tolist()
    [2.0, 2.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight.backends import Backend, get
from torchlight.backends.transfer import move
from torchlight.engine import Context, Function

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


class Clone(Function):
    complex_grad = True
    elementwise = True
    _shares_context = True  # its backward reads no saved value

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return a.backend.copy(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        return g


class AsType(Function):
    """A cast; the gradient is cast back (a real input's gradient from a complex result is its real part)."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, dtype: Any) -> Any:
        ctx.save_for_backward(a.dtype)
        return a.backend.xp.astype(a.data, dtype)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (dtype,) = ctx.saved_tensors
        return g._gradient_as(dtype), None


class To(Function):
    """Move to another backend and/or device (DLPack where possible)."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor, backend: Any, device: Any) -> Any:
        ctx.save_for_backward(a.backend, a._device)
        return type(a)._wrap(move(a.data, a.backend, backend, device), backend)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        backend, device = ctx.saved_tensors
        return To.apply(g, backend, device), None, None


class CopiesMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def clone(self: Tensor) -> Tensor:
        """A copy of the data that stays in the graph."""
        return Clone.apply(self)

    def to(self: Tensor, backend: str | Backend | None = None, device: Any = None) -> Tensor:
        """This tensor on another backend and/or device, differentiable. A copy,
        except between CPU libraries, where DLPack shares the memory."""
        target = self.backend if backend is None else get(backend)
        device = target.resolve_device(device)
        if target is self.backend and (device is None or device == self._device):
            return self
        return To.apply(self, target, device)

    def astype(self: Tensor, dtype: Any) -> Tensor:
        """A copy with another dtype (differentiable between float dtypes;
        a cast to an integer or boolean dtype has no gradient, as PyTorch)."""
        dtype = self.backend.resolve_dtype(dtype)
        if self.backend.is_complex(self.dtype) and not self.backend.is_complex(dtype):
            raise TypeError(f"astype: a cast of complex {self.dtype} to {dtype} would discard the imaginary part, "
                            "which the array API standard does not permit: take .real (or .abs()) first")
        out = AsType.apply(self, dtype)
        return out if not out.requires_grad or self.backend.is_floating(out.dtype) else out.detach()
