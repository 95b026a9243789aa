"""Writes: `x[key] = v`, the in-place operators (`x += y`, ...) and methods (`add_`, `copy_`, ...).

A write changes the tensor `x` itself (the same object, so every name for it
sees the new values) and never an array: the new values are a new array
(`Backend.set_key`, copy-on-write), so the user's own array that `x` wraps,
a value an op saved for its backward, or an op's kept output stay as they
were. How the tensor's history follows:

- grad mode on and something requiring grad involved, on a tensor that is
  not a leaf requiring grad: the write is RECORDED as an op (`SetItem`, or
  the binary op of `x op= y`) of the old value, and `x` moves to the new
  node: gradients flow to the old value outside `key` and to `v`. A backward
  whose forward saved `x` before the write reads the old value
  (`Context.saved_tensors` finds it in `x`'s version chain);
- a leaf that requires grad, with grad mode on: refused, as PyTorch;
- otherwise (under `no_grad`, or nothing requiring grad): the values are
  replaced (`Tensor._replace_data`, an optimizer's step) and a backward
  whose forward saved the old ones raises.

Duplicate integer indices: the last write wins, on every backend (NumPy's
behaviour for a 1-d index), and only that entry of `v` gets the gradient.

Example:
    >>> import torchlight as tl
    >>> w = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> out = tl.zeros(3)
    >>> out[0] = w[0] * 2.0
    >>> out[1:] = w[1:] ** 2
    >>> out.sum().backward()
    >>> out.tolist(), w.grad.tolist()
    ([2.0, 4.0, 9.0], [2.0, 4.0, 6.0])
    >>> b = w * 2.0
    >>> c = b * b          # saves b
    >>> b[0] = 5.0         # c's backward still reads b's old value
    >>> w.grad = None
    >>> c.sum().backward()
    >>> w.grad.tolist()
    [8.0, 16.0, 24.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from torchlight import grad_mode
from torchlight.backends.checks import check_same_backend
from torchlight.engine import Context, Function
from torchlight.ops.common import _const, index_key
from torchlight.ops.indexing import Gather, Where

if TYPE_CHECKING:
    from torchlight.tensor import Tensor

LEAF = (
    "{what}: a leaf tensor that requires grad (shape {shape}) is being used in an in-place operation (its new values "
    "would have no gradient); write into it under `with tl.no_grad():` (as an optimizer's step does), "
    "or into a copy made with `.clone()`"
)

#: the kinds of dtype, in the order a value may be cast down along (`int += float` is refused)
_KINDS = ("bool", "integral", "real floating", "complex floating")


class SetItem(Function):
    """`x[key] = v` as an op of the old value `a` and `v` (of `a`'s dtype, broadcastable to `a[key]`).

    The result is a new array (`Backend.set_key`); the gradient of `a` is the
    incoming one with zeros at `key`, that of `v` the incoming one at `key`
    (the engine sums it back to `v`'s shape), where an integer array's
    repeated position gives it only to the entry that wrote last.
    """

    @staticmethod
    def forward(ctx: Context, a: Tensor, v: Tensor, key: Any) -> Any:
        backend = a.backend
        last = None
        if ctx.needs_input_grad[1:2] == (True,) and _has_integer_array(key):  # (none in a quiet context)
            last = backend.last_writes(tuple(a.shape), key, a._device)
        ctx.save_for_backward(key, last)
        return backend.set_key(a.data, key, v.data)

    @staticmethod
    def backward(ctx: Context, g: Tensor) -> tuple:
        key, last = ctx.saved_tensors
        need_a, need_v = ctx.needs_input_grad[:2]
        ga = gv = None
        if need_a:
            zero = _const(g, g.backend.xp.zeros((), dtype=g.dtype, device=g._device))
            ga = SetItem.apply(g, zero, key)
        if need_v:
            gv = Gather.apply(g, key)
            if last is not None:
                gv = gv * _const(g, g.backend.xp.astype(last, g.dtype))
        return ga, gv, None


def _has_integer_array(key: Any) -> bool:
    for k in key if isinstance(key, tuple) else (key,):
        if hasattr(k, "shape") and hasattr(k, "dtype") and "bool" not in str(k.dtype):
            return True
    return False


def _kind(x: Tensor) -> int:
    isdtype = x.backend.xp.isdtype
    return next(i for i, kind in enumerate(_KINDS) if isdtype(x.dtype, kind))


def write(x: Tensor, what: str, involved: tuple, compute: Callable[[Tensor], Tensor]) -> Tensor:
    """Change `x` to `compute(old)`, a Tensor of `x`'s shape and dtype (see the module docstring).

    `involved` are the other operands (whether one requires grad decides if
    the write is recorded). `compute` runs before anything changes, so a
    write that raises leaves `x` as it was.
    """
    state = grad_mode._state
    recording = False
    if state.enabled:
        if x.requires_grad:
            if x.history is None:
                raise RuntimeError(LEAF.format(what=what, shape=x.shape))
            recording = True
        else:
            recording = any(getattr(v, "requires_grad", False) for v in involved)
    if not recording:
        x._replace_data(compute(x).data)
        return x
    keep = x._may_be_saved()
    old = x._snapshot()
    new = compute(old)
    if new.requires_grad:
        x._write(new, old, keep)
    else:  # (an integer tensor given a value that requires grad: the cast to it has no gradient)
        x._replace_data(new.data)
    return x


def _same_dtype(x: Tensor, new: Tensor, what: str, instead: str) -> Tensor:
    """`new` (the value `x op y` computed for `x`) checked to fit `x`: its shape, and a dtype of no
    higher kind (`int += float` is refused, as NumPy's `same_kind` casting and PyTorch refuse it)."""
    if new.shape != x.shape:
        raise ValueError(f"{what}: the result has shape {new.shape}, but the tensor written in place has "
                         f"shape {x.shape} and keeps it (write `{instead}` for a new tensor)")
    if new.dtype != x.dtype:
        if _kind(new) > _kind(x):
            raise TypeError(f"{what}: the result has dtype {new.dtype}, which the tensor written in place "
                            f"({x.dtype}) cannot hold (as NumPy and PyTorch refuse); write `{instead}` for a new "
                            "tensor, or cast first")
        new = new.astype(x.dtype)
    return new


def _in_place(name: str, symbol: str) -> Callable[[Tensor, Any], Any]:
    """`x op= y`: `x` written with `x.name(y)` (the binary operator looked up when called, so that
    one added later gets its in-place form at once; NotImplemented while there is none)."""

    def update(self: Tensor, other: Any) -> Any:
        binary = getattr(type(self), name, None)
        if binary is None:
            return NotImplemented

        def compute(old: Tensor) -> Tensor:
            result = binary(old, old if other is self else other)
            if result is NotImplemented:
                raise TypeError(f"unsupported operand type(s) for {symbol}: 'Tensor' and '{type(other).__name__}'")
            return _same_dtype(self, result, symbol, f"x = x {symbol[:-1]} y")

        return write(self, symbol, (other,), compute)

    update.__name__ = update.__qualname__ = f"__i{name[2:]}"
    update.__doc__ = f"`x {symbol} y`: `x` itself takes the values of `x {symbol[:-1]} y` (see torchlight.ops.writes)."
    return update


def _value_for(x: Tensor, value: Any, what: str) -> Tensor:
    """`value` as a Tensor of `x`'s backend and dtype (a number lifted, a cast where the dtypes differ;
    a complex value into a real tensor is refused: its imaginary part would be lost)."""
    v = x._lift(value)
    if v.backend is not x.backend or x.backend.multi_device:
        check_same_backend(what, x, v)
    if v.dtype != x.dtype:
        if _kind(v) == 3 and _kind(x) < 3:
            raise TypeError(f"{what}: a complex value ({v.dtype}) for a real tensor ({x.dtype}) would lose its "
                            "imaginary part; take .real first, or write into a complex tensor")
        v = v.astype(x.dtype)
    return v


def _mask_of(x: Tensor, key: Any) -> Any:
    """The boolean array of `key`, when it is one covering `x`'s leading dimensions, else None."""
    if hasattr(key, "shape") and hasattr(key, "dtype") and "bool" in str(key.dtype):
        if 0 < key.ndim <= x.ndim and tuple(key.shape) == x.shape[:key.ndim]:
            return key
    return None


def _strip_ones(v: Tensor, ndim: int) -> Tensor:
    """`v` without leading size-1 dimensions beyond `ndim` (NumPy's assignment drops them)."""
    shape = v.shape
    lead = len(shape) - ndim
    if lead > 0 and all(n == 1 for n in shape[:lead]):
        return v.reshape(shape[lead:])
    return v


def _broadcasts(shape: tuple, target: tuple) -> bool:
    return len(shape) <= len(target) and all(n in (1, m) for n, m in zip(shape[::-1], target[::-1]))


def set_item(old: Tensor, key: Any, v: Tensor) -> Tensor:
    """`old` with `v` at `key`, as a new Tensor (recorded when something requires grad).

    A boolean mask over leading dimensions with a value that broadcasts to
    the remaining ones (`y[y > 1] = 0`, the common case) is a `where`, which
    needs no count of the mask (lazy libraries keep their laziness); any
    other key is `SetItem`.
    """
    mask = _mask_of(old, key)
    if mask is not None:
        rest = old.shape[mask.ndim:]
        small = _strip_ones(v, len(rest))
        if _broadcasts(small.shape, rest):
            xp = old.backend.xp
            cond = _const(old, xp.reshape(mask, tuple(mask.shape) + (1,) * len(rest)))
            return Where.apply(cond, small, old)
    if v.ndim:
        try:
            target = old.backend.key_shape(old.data, key)
        except IndexError as exc:
            message = str(exc)
            raise IndexError("__setitem__: " + message.removeprefix("Gather: ")) from None
        v = _strip_ones(v, len(target))
        if not _broadcasts(v.shape, target):
            raise ValueError(f"__setitem__: a value of shape {v.shape} cannot be broadcast to the shape "
                             f"{target} of x[{key!r}] (x of shape {old.shape})")
    try:
        if not (grad_mode._state.enabled and (old.requires_grad or v.requires_grad)):  # (apply's work skipped)
            return old._wrap(old.backend.set_key(old.data, key, v.data), old.backend)
        return SetItem.apply(old, v, key)
    except IndexError as exc:
        raise IndexError("__setitem__: " + str(exc).removeprefix("Gather: ")) from None


class WritesMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()

    def __setitem__(self: Tensor, key: Any, value: Any) -> None:
        """`x[key] = value`: the keys `x[key]` reads (integers, slices, ..., None, integer arrays,
        boolean masks); `value` a Tensor, array or number, broadcast to `x[key]`'s shape and cast to
        `x`'s dtype (as NumPy). See the module docstring for gradients and when it is refused."""
        key = index_key(key, self)
        v = _value_for(self, value, "__setitem__")
        write(self, "__setitem__", (v,), lambda old: set_item(old, key, old if v is self else v))

    __iadd__ = _in_place("__add__", "+=")
    __isub__ = _in_place("__sub__", "-=")
    __imul__ = _in_place("__mul__", "*=")
    __itruediv__ = _in_place("__truediv__", "/=")
    __ifloordiv__ = _in_place("__floordiv__", "//=")
    __imod__ = _in_place("__mod__", "%=")
    __ipow__ = _in_place("__pow__", "**=")
    __imatmul__ = _in_place("__matmul__", "@=")
    __iand__ = _in_place("__and__", "&=")
    __ior__ = _in_place("__or__", "|=")
    __ixor__ = _in_place("__xor__", "^=")
    __ilshift__ = _in_place("__lshift__", "<<=")
    __irshift__ = _in_place("__rshift__", ">>=")

    # PyTorch's in-place methods: the same writes, returning the tensor
    def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
        """`x += alpha * other`, in place (PyTorch's `add_`); returns `x`."""
        self += other if alpha == 1 else other * alpha
        return self

    def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
        """`x -= alpha * other`, in place (PyTorch's `sub_`); returns `x`."""
        self -= other if alpha == 1 else other * alpha
        return self

    def mul_(self: Tensor, other: Any) -> Tensor:
        """`x *= other`, in place; returns `x`."""
        self *= other
        return self

    def div_(self: Tensor, other: Any) -> Tensor:
        """`x /= other`, in place; returns `x`."""
        self /= other
        return self

    def copy_(self: Tensor, src: Any) -> Tensor:
        """`x[...] = src`: `src` broadcast to `x`'s shape and cast to its dtype (the gradient goes
        to `src`); returns `x`."""
        self[...] = src
        return self

    def fill_(self: Tensor, value: Any) -> Tensor:
        """Every element set to `value` (a number or a 0-d Tensor); returns `x`."""
        self[...] = value
        return self

    def zero_(self: Tensor) -> Tensor:
        """Every element set to 0; returns `x` (`zero_grad_` is the one for `.grad`)."""
        self[...] = 0
        return self

    def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
        """`x` limited to [min, max] in place (see `clamp`); returns `x`."""
        write(self, "clamp_", (min, max), lambda old: _same_dtype(self, old.clamp(min, max), "clamp_",
                                                                       "x = x.clamp(min, max)"))
        return self

    clip_ = clamp_
