"""Complex numbers: real and imaginary parts, the conjugate, the angle; how gradients meet them.

Gradients follow PyTorch's convention: for a real loss L, the gradient of a
complex z is the conjugate Wirtinger derivative 2 dL/d(conj z), so that
`|z|**2` gives `2z` and a step `z - lr * z.grad` descends. An op f(z) with
output w passes on `h * conj(dw/dz) + conj(h) * dw/d(conj z)` for an
incoming h: `g * conj(f'(z))` for a holomorphic f (`conj` below is what
the ops' backwards conjugate with; it is the identity for real tensors).

Example:
    >>> import torchlight as tl
    >>> z = tl.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    >>> (z * z.conj()).real.sum().backward()      # |z|**2
    >>> z.grad.tolist()
    [(2+4j), (6-2j)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torchlight import grad_mode
from torchlight.engine import Context, Function
from torchlight.ops.common import _const, _safe_reciprocal

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def conj(t: Any) -> Any:
    """The complex conjugate of `t`, differentiably; `t` itself when it is real (no op recorded):
    what a backward multiplies by to follow the convention."""
    backend, dtype = t.backend, t.data.dtype
    if backend.complex_of.get(dtype) is False:  # (a known real dtype: no call)
        return t
    return Conj.apply(t) if backend.is_complex(dtype) else t


def is_complex(t: Any) -> bool:
    """Whether the Tensor `t` has a complex dtype."""
    backend, dtype = t.backend, t.data.dtype
    known = backend.complex_of.get(dtype)
    return backend.is_complex(dtype) if known is None else known


def refuse_complex(op: str, *tensors: Any) -> None:
    """A TypeError for an op the standard defines for real numbers only (maximum, floor, `<`, ...),
    when one of `tensors` (Tensors; other arguments are skipped) is complex."""
    for t in tensors:
        if getattr(t, "_is_tensor", False) and t.backend.is_complex(t.dtype):
            raise TypeError(f"{op}: complex inputs are not supported (dtype {t.dtype}): the array API "
                            f"standard defines {op} for real numbers only (take .real, .abs() or .angle() first)")


def refuse_complex_grad(op: str, x: Any) -> None:
    """The TypeError of an op whose gradient is not implemented for complex inputs (named as the
    user calls it: `sign`, `round`), for a complex `x` that requires grad with grad mode on."""
    if x.requires_grad and grad_mode.is_grad_enabled() and x.backend.is_complex(x.dtype):
        raise TypeError(f"{op}: gradients of complex inputs are not implemented (dtype {x.dtype}); detach it first")


class Conj(Function):
    """conj(z) = x - iy; its vjp is conj(g) (it is antiholomorphic: d conj(z) / d(conj z) = 1)."""
    elementwise = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        return a.backend.xp.conj(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        return conj(g)


class Real(Function):
    """Re(z), a real result; the gradient of z is the (real) incoming gradient, as a complex number.

    Not `elementwise`: NumPy's `real` is a view into z's array, not a new array."""
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        ctx.dtype = a.dtype
        return a.backend.xp.real(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        return g.astype(ctx.dtype)


class Imag(Function):
    """Im(z), a real result; the gradient of z is i times the incoming gradient (Im(z) = Re(-i z)).

    Of a real tensor it is zeros (the standard's), whose gradient is 0. Not `elementwise`: NumPy's
    `imag` is a view into z's array, not a new array.
    """
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        xp = a.backend.xp
        ctx.dtype = a.dtype
        if not a.backend.is_complex(a.dtype):
            return xp.zeros_like(a.data)
        return xp.imag(a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        if not g.backend.is_complex(ctx.dtype):
            return g * 0.0
        return g.astype(ctx.dtype) * _const(g, g.backend.xp.asarray(1j, dtype=ctx.dtype, device=g._device))


class Angle(Function):
    """arg(z) = atan2(Im z, Re z) in (-pi, pi], a real result; of a real x, 0 or pi (NaN for NaN).

    The gradient of a complex z is g * i z / |z|**2 (PyTorch's), 0 at z = 0;
    of a real x, 0.
    """
    elementwise = True
    complex_grad = True

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Any:
        xp = a.backend.xp
        ctx.save_for_backward(a)
        if a.backend.is_complex(a.dtype):
            return xp.atan2(xp.imag(a.data), xp.real(a.data))
        zero = xp.zeros_like(a.data)
        pi = xp.full_like(a.data, xp.pi)
        return xp.where(a.data < zero, pi, xp.where(xp.isnan(a.data), a.data, zero))

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> Any:
        (a,) = ctx.saved_tensors
        if not a.backend.is_complex(a.dtype):
            return g * 0.0
        i = _const(a, a.backend.xp.asarray(1j, dtype=a.dtype, device=a._device))
        squared = Real.apply(a * Conj.apply(a))  # |z|**2, differentiable
        return a * i * (g * _safe_reciprocal(squared))


class ComplexNumbersMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    @property
    def real(self: Tensor) -> Tensor:
        """The real part (a real tensor); of a real tensor, the tensor itself (as PyTorch).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1 + 2j]).real.tolist()
            [1.0]
        """
        if not self.backend.is_complex(self.dtype):
            return self
        return Real.apply(self)

    @property
    def imag(self: Tensor) -> Tensor:
        """The imaginary part (a real tensor); of a real tensor, zeros (the standard's `imag`).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1 + 2j]).imag.tolist(), tl.tensor([3.0]).imag.tolist()
            ([2.0], [0.0])
        """
        return Imag.apply(self)

    def conj(self: Tensor) -> Tensor:
        """The complex conjugate; of a real tensor, the tensor itself (as PyTorch).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1 + 2j]).conj().tolist()
            [(1-2j)]
        """
        return conj(self)

    conj_physical = conj

    def angle(self: Tensor) -> Tensor:
        """The argument of each element in radians, in (-pi, pi] (PyTorch's `angle`): atan2(imag, real);
        of a real tensor 0 where x >= 0 and pi where x < 0. The gradient is 0 at z = 0.

        Example:
            >>> import torchlight as tl
            >>> z = tl.tensor([1j], requires_grad=True)
            >>> z.angle().sum().backward()
            >>> round(z.angle().item(), 4), z.grad.tolist()
            (1.5708, [(-1+0j)])
        """
        return Angle.apply(self)

    def _gradient_as(self: Tensor, dtype: Any) -> Tensor:
        """This gradient cast to its input's `dtype` (the chain rule's cast): a complex gradient of
        a real input is its real part, taken explicitly (a cast would discard the imaginary part
        with a warning, or be refused, as the standard refuses it)."""
        backend = self.backend
        g = self
        if backend.is_complex(g.dtype) and not backend.is_complex(dtype):
            g = Real.apply(g)
            if g.dtype == dtype:
                return g
        return g.astype(dtype)
