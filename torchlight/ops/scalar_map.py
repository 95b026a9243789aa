"""Scalar functions mapped over tensors: `Backend.map/zip/reduce` with `torchlight.scalar` functions.

A known scalar function runs as the namespace's vectorised function and
knows its partial derivatives; any other Python function of numbers is
differentiated by the scalar engine, one element at a time.

Example:
    >>> import torchlight as tl
    >>> from torchlight import scalar
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> x.backend.zip(scalar.mul)(x, x).sum().backward()
    >>> x.grad.tolist()
    [2.0, 4.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from torchlight import grad_mode
from torchlight.backends.elementwise import map_array, zip_array
from torchlight.engine import Context, Function
from torchlight.ops.common import _const
from torchlight.scalar import Value

if TYPE_CHECKING:
    from torchlight.tensor import Tensor


def _partial(fn: Any, i: int, args: tuple) -> Any:
    """d fn / d args[i] as a Tensor; by the scalar engine for a plain callable."""
    partials = getattr(fn, "partials", None)
    if partials is not None:
        return partials[i](*args)

    def derivative(*xs: float) -> float:
        values = [Value(x) for x in xs]
        out = fn(*values)
        if not isinstance(out, Value):  # a constant, or math.sin(v), which reads v as a float: no graph
            raise TypeError(f"map/zip: {getattr(fn, '__name__', fn)!r} returned {type(out).__name__}, not a Value, "
                            "when called with Values, so its derivative is unknown; write it with torchlight.scalar's "
                            "functions (math functions read a Value as a plain float)")
        out.backward()
        return values[i].grad

    like = args[0]
    backend = like.backend
    arrays = [x.data for x in args]
    if len(arrays) == 1:
        values = _const(like, backend.map(derivative)(arrays[0]))
    else:
        values = _const(like, backend.zip(derivative)(*arrays))
    if grad_mode.is_grad_enabled():  # create_graph: g * values stays differentiable in g
        return PlainPartial.apply(values, fn, *args)
    return values


class Map(Function):
    """A scalar function of `torchlight.scalar` applied elementwise."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, fn: Any) -> Any:
        ctx.save_for_backward(a, fn)
        return map_array(a.backend, fn, a.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, fn = ctx.saved_tensors
        return g * _partial(fn, 0, (a,)), None


class Zip(Function):
    """A binary scalar function of `torchlight.scalar` applied elementwise."""

    @staticmethod
    def forward(ctx: Context, a: Tensor, b: Tensor, fn: Any) -> Any:
        ctx.save_for_backward(a, b, fn)
        return zip_array(a.backend, fn, a.data, b.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        a, b, fn = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        ga = g * _partial(fn, 0, (a, b)) if need_a else None
        gb = g * _partial(fn, 1, (a, b)) if need_b else None
        return ga, gb, None


class PlainPartial(Function):
    """A plain function's derivative at `args`, as numbers the scalar engine found.

    Under `create_graph` a map/zip backward is `g * PlainPartial(...)`: linear
    in `g`, so `func.jvp` and the like work, while a derivative in the
    arguments (a second derivative of the plain function) raises, since no
    formula for it is known.
    """

    @staticmethod
    def forward(ctx: Context, values: Tensor, fn: Any, *args: Any) -> Any:
        ctx.save_for_backward(fn)
        return values.data

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        (fn,) = ctx.saved_tensors
        raise NotImplementedError(
            f"second derivatives of map/zip over the plain function {getattr(fn, '__name__', fn)!r}: "
            "write it with torchlight.scalar functions (which know their derivatives) instead"
        )


class ScalarMapMethods:
    """How a Tensor maps a scalar function over itself: the hooks `Backend.map/zip/reduce` call
    when they are given a Tensor (the backends hold arrays only and never import Tensor)."""

    __slots__ = ()

    def _map_scalar(self: Tensor, fn: Callable) -> Tensor:
        """`fn` applied elementwise, recorded by `Map` (so it has a gradient)."""
        return Map.apply(self, fn)

    def _zip_scalar(self: Tensor, other: Any, fn: Callable, reverse: bool = False) -> Tensor:
        """`fn(self, other)` elementwise (`fn(other, self)` when `reverse`), recorded by `Zip`;
        `other` may be a number or an array, lifted to this backend."""
        other = self._lift(other)
        return Zip.apply(other, self, fn) if reverse else Zip.apply(self, other, fn)

    def _reduce_scalar(self: Tensor, fn: Callable, start: float, dim: int | None) -> Tensor:
        """The differentiable fold of `fn` from `start` along `dim` (all elements when None):
        a chain of `zip(fn)` over slices."""
        x = self
        if dim is None:
            x, dim = x.reshape((-1,)), 0
        acc = None
        for i in range(x.shape[dim]):
            item = x[(slice(None),) * (dim % x.ndim) + (i,)]
            acc = Zip.apply(item._lift(start) if acc is None else acc, item, fn)
        if acc is None:  # an empty dim: start, in the dtype the fold would have (a float start lifts integers)
            shape = tuple(n for k, n in enumerate(x.shape) if k != dim % x.ndim)
            return x._lift(start)._full(shape, start)
        return acc
