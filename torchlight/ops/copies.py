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

from torchlight.backends import get
from torchlight.backends.devices import has_device, pytorch_device
from torchlight.backends.dtypes import as_dtype
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

    def to(self: Tensor, backend: Any = None, device: Any = None, dtype: Any = None) -> Tensor:
        """This tensor on another backend and/or device, and/or cast to `dtype`, differentiable. A
        copy, except between CPU libraries, where DLPack shares the memory.

        As PyTorch's: a dtype as the first argument (`x.to(tl.float32)`, `x.to("float32")`) is
        `dtype`; PyTorch's device strings without a backend (`x.to("cuda")`, `x.to("cpu")`,
        `device="cuda:1"`) are CuPy's devices and the NumPy backend.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0], backend="array_api_strict").to("cpu").backend.name
            'numpy'
            >>> tl.tensor([1.0]).to("float32").dtype == tl.float32
            True
        """
        if backend is not None and dtype is None and as_dtype(backend) is not None:
            backend, dtype = None, backend
        if device is None and pytorch_device(backend) is not None:  # x.to("cuda"): a device
            backend, device = None, backend
        target = self.backend if backend is None else get(backend)
        mapped = pytorch_device(device) if backend is None else None
        if mapped is not None and not has_device(target, device):  # (torch's own "cpu"/"cuda" stay torch's)
            target, device = get(mapped[0]), mapped[1]
        device = target.resolve_device(device)
        out = self
        if not (target is self.backend and (device is None or device == self._device)):
            out = To.apply(self, target, device)
        if dtype is not None and out.dtype != out.backend.resolve_dtype(dtype):
            out = out.astype(dtype)
        return out

    def cpu(self: Tensor) -> Tensor:
        """`to("cpu")`: this tensor on the NumPy backend (itself when it is there)."""
        return self.to("cpu")

    def cuda(self: Tensor, device: int | None = None) -> Tensor:
        """`to("cuda")`: this tensor on CuPy's device `device` (0 by default); a clear error where
        CuPy or a GPU is missing."""
        return self.to("cuda" if device is None else f"cuda:{device}")

    def float(self: Tensor) -> Tensor:
        """`astype("float32")` (PyTorch's float)."""
        return self if self.dtype == self.backend.resolve_dtype("float32") else self.astype("float32")

    def double(self: Tensor) -> Tensor:
        """`astype("float64")` (PyTorch's double)."""
        return self if self.dtype == self.backend.resolve_dtype("float64") else self.astype("float64")

    def half(self: Tensor) -> Tensor:
        """`astype("float16")` (PyTorch's half), where the backend has float16."""
        return self if self.dtype == self.backend.resolve_dtype("float16") else self.astype("float16")

    def astype(self: Tensor, dtype: Any) -> Tensor:
        """A copy with another dtype (differentiable between float dtypes;
        a cast to an integer or boolean dtype has no gradient, as PyTorch)."""
        dtype = self.backend.resolve_dtype(dtype)
        if self.backend.is_complex(self.dtype) and not self.backend.is_complex(dtype):
            raise TypeError(f"astype: a cast of complex {self.dtype} to {dtype} would discard the imaginary part, "
                            "which the array API standard does not permit: take .real (or .abs()) first")
        out = AsType.apply(self, dtype)
        return out if not out.requires_grad or self.backend.is_floating(out.dtype) else out.detach()
