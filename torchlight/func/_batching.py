"""Batched Tensors: what `vmap` hands `f`, so that one call of `f` runs over the whole batch.

A `BatchedTensor` stands for one sample of a batch: it reports the sample's
(logical) shape and holds `value`, the whole batch, with the batch
dimension first. Each op `f` calls on it has a rule that does the op once on
`value`, shifting dimensions past the batch dimension, aligning batched and
unbatched operands and keeping samples apart. An op without a rule raises
`Unbatchable`, and `vmap` then runs `f` once per sample instead (the loop
is always right; the rules are what make it fast).

Nesting: `value` may itself be a `BatchedTensor` of an enclosing `vmap`
(a lower `level`); each rule works through `value`'s own ops, so the rules
of the level below apply in turn. Plain Tensors and numbers beside a
`BatchedTensor` are unbatched at its level.

Example:
    >>> import torchlight as tl
    >>> from torchlight.func._batching import BatchedTensor, new_level
    >>> x = BatchedTensor(tl.tensor([[1.0, 2.0], [3.0, 4.0]]), new_level(2))
    >>> x.shape
    (2,)
    >>> (x * 10 + tl.tensor([0.5, 0.0])).sum().value.tolist()
    [30.5, 70.5]
"""

from __future__ import annotations

import itertools
import numbers
import operator
import threading
from collections.abc import Callable, Sequence
from typing import Any

from torchlight.autograd import functions as F
from torchlight.ops.reductions import ExtremeResult
from torchlight.tensor import Size, Tensor

__all__ = ["BatchedTensor", "Level", "Unbatchable", "new_level"]


class Unbatchable(Exception):
    """An op on a BatchedTensor that has no batching rule: `vmap` falls back to a loop over the batch."""


class Level:
    """One `vmap` call's batch: its size and an id that orders nesting (outer vmaps have lower ids)."""

    __slots__ = ("id", "size")
    _ids = itertools.count()

    def __init__(self, size: int) -> None:
        self.id = next(Level._ids)
        self.size = size

    def __repr__(self) -> str:
        return f"Level({self.id}, size={self.size})"


def new_level(size: int) -> Level:
    return Level(size)


class _Active(threading.local):
    def __init__(self) -> None:
        self.levels: list[Level] = []


_ACTIVE = _Active()


def active_levels() -> list[Level]:
    """The levels of the vmaps whose one batched call of `f` is running now, outermost first."""
    return list(_ACTIVE.levels)


def push(level: Level) -> None:
    _ACTIVE.levels.append(level)


def pop(level: Level) -> None:
    assert _ACTIVE.levels and _ACTIVE.levels[-1] is level
    _ACTIVE.levels.pop()


def _level_of(x: Any) -> Level | None:
    return x.level if isinstance(x, BatchedTensor) else None


def _top(*xs: Any) -> Level | None:
    """The innermost level among `xs` (None when none is batched)."""
    levels = [x.level for x in xs if isinstance(x, BatchedTensor)]
    return max(levels, key=lambda lv: lv.id) if levels else None


def _ndim(x: Any) -> int:
    return int(getattr(x, "ndim", 0))


def _dim(d: int, ndim: int, op: str) -> int:
    """`d` (may be negative) as a dimension of a value with one more (batch) dimension first."""
    if not -max(ndim, 1) <= d < max(ndim, 1):
        raise IndexError(f"{op}: dim {d} is out of range for {ndim} dimension(s)")
    return d % max(ndim, 1) + 1


def _dims(dim: int | Sequence[int] | None, ndim: int, op: str) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(1, ndim + 1))
    if isinstance(dim, int):
        return (_dim(dim, ndim, op),)
    return tuple(_dim(d, ndim, op) for d in dim)


class BatchedTensor(Tensor):
    """One sample of a batch; `value` holds the batch with its batch dimension first (see the module)."""

    __slots__ = ("value", "level")
    plain_data = False  # (its samples are a view of `value`: no backward on raw arrays)
    _by_parts = True  # (F.linear computes x @ W.mT + b with the rules here rather than its one fused Function)

    def __init__(self, value: Any, level: Level) -> None:  # (Tensor.__init__ is not called: no data of its own)
        if _ndim(value) == 0 or value.shape[0] != level.size:
            raise ValueError(f"BatchedTensor: a value of shape {getattr(value, 'shape', ())} for a batch of "
                             f"{level.size}")
        self.value = value
        self.level = level
        self.backend = value.backend

    # ------------------------------------------------------------ the logical tensor
    @property  # type: ignore[override,misc]
    def data(self) -> Any:
        raise Unbatchable("data (the array of one sample is not separate from its batch)")

    @property  # type: ignore[override,misc]
    def history(self) -> Any:  # type: ignore[override]
        raise Unbatchable("history")

    @property  # type: ignore[override,misc]
    def requires_grad(self) -> bool:  # type: ignore[override]
        return bool(self.value.requires_grad)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape[1:])

    @property
    def ndim(self) -> int:
        return _ndim(self.value) - 1

    @property
    def dtype(self) -> Any:
        return self.value.dtype

    @property
    def size(self) -> Size:  # (one sample's: an int that x.size() calls for the shape, as Tensor.size)
        out = 1
        for n in self.shape:
            out *= n
        return Size(out, self.shape)

    @property
    def device(self) -> Any:
        return self.value.device

    @property
    def _device(self) -> Any:
        return self.value._device

    @property
    def is_leaf(self) -> bool:
        return False

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"BatchedTensor(level={self.level.id}, shape={self.shape}, value={self.value!r})"

    # ------------------------------------------------------------ rules: shapes
    def _wrap_out(self, out: Any) -> Any:
        if isinstance(out, (tuple, list)):
            return type(out)(BatchedTensor(o, self.level) for o in out)
        return BatchedTensor(out, self.level)

    def reshape(self, *shape: Any) -> BatchedTensor:  # type: ignore[override]
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return BatchedTensor(self.value.reshape((self.level.size, *shape)), self.level)

    view = reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> BatchedTensor:  # type: ignore[override]
        if self.ndim == 0:
            return self.reshape(1)
        return BatchedTensor(self.value.flatten(_dim(start_dim, self.ndim, "flatten"),
                                                _dim(end_dim, self.ndim, "flatten")), self.level)

    def permute(self, *dims: Any) -> BatchedTensor:  # type: ignore[override]
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        if sorted(d % max(self.ndim, 1) for d in dims) != list(range(self.ndim)):
            raise ValueError(f"permute: dims {tuple(dims)} are not a permutation of the dimensions "
                             f"of a tensor of shape {self.shape}")
        return BatchedTensor(self.value.permute(0, *(_dim(d, self.ndim, "permute") for d in dims)), self.level)

    def transpose(self, dim0: int | None = None, dim1: int | None = None) -> BatchedTensor:  # type: ignore[override]
        if dim0 is None and dim1 is None:
            return self.T
        if dim0 is None or dim1 is None:
            raise TypeError("transpose: give the two dims to swap, or none to reverse them all (as NumPy)")
        if self.ndim == 0:
            return self
        return BatchedTensor(self.value.transpose(_dim(dim0, self.ndim, "transpose"),
                                                  _dim(dim1, self.ndim, "transpose")), self.level)

    @property
    def T(self) -> BatchedTensor:  # type: ignore[override]
        return BatchedTensor(self.value.permute(0, *reversed(range(1, self.ndim + 1))), self.level)

    @property
    def mT(self) -> BatchedTensor:  # type: ignore[override]
        if self.ndim < 2:
            raise IndexError(f"mT: a batch of matrices needs 2 or more dimensions; this tensor has shape {self.shape}")
        return self.transpose(-2, -1)

    def unsqueeze(self, dim: int) -> BatchedTensor:  # type: ignore[override]
        n = self.ndim + 1
        if not -n <= dim < n:
            raise IndexError(f"unsqueeze: dim {dim} is out of range for a tensor of shape {self.shape} "
                             f"(expected {-n} to {n - 1})")
        return BatchedTensor(self.value.unsqueeze(dim % n + 1), self.level)

    def squeeze(self, dim: int | Sequence[int] | None = None) -> BatchedTensor:  # type: ignore[override]
        dims = range(self.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
        chosen = [_dim(d, self.ndim, "squeeze") for d in dims if self.ndim and self.shape[d] == 1]
        if not chosen:
            return self
        return BatchedTensor(self.value.squeeze(tuple(chosen)), self.level)

    def expand(self, *shape: Any) -> BatchedTensor:  # type: ignore[override]
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        value = self._padded(len(shape))
        return BatchedTensor(value.expand((self.level.size, *shape)), self.level)

    broadcast_to = expand

    def movedim(self, source: int | Sequence[int], destination: int | Sequence[int]) -> BatchedTensor:  # type: ignore[override]
        def shift(d: Any) -> Any:
            return _dim(d, self.ndim, "movedim") if isinstance(d, int) else [_dim(x, self.ndim, "movedim") for x in d]
        return BatchedTensor(self.value.movedim(shift(source), shift(destination)), self.level)

    def flip(self, *dims: Any) -> BatchedTensor:  # type: ignore[override]
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        if not dims:
            dims = tuple(range(self.ndim))
        return BatchedTensor(self.value.flip(*(_dim(d, self.ndim, "flip") for d in dims)), self.level)

    def split(self, split_size_or_sections: Any, dim: int = 0) -> tuple:  # type: ignore[override]
        return tuple(self._wrap_out(self.value.split(split_size_or_sections, _dim(dim, self.ndim, "split"))))

    def chunk(self, chunks: int, dim: int = 0) -> tuple:  # type: ignore[override]
        return tuple(self._wrap_out(self.value.chunk(chunks, _dim(dim, self.ndim, "chunk"))))

    def unbind(self, dim: int = 0) -> tuple:  # type: ignore[override]
        return tuple(self._wrap_out(self.value.unbind(_dim(dim, self.ndim, "unbind"))))

    def _padded(self, ndim: int) -> Any:
        """`value` with size-1 dimensions after the batch dimension, up to `ndim` logical ones."""
        value = self.value
        for _ in range(ndim - self.ndim):
            value = value.unsqueeze(1)
        return value

    # ------------------------------------------------------------ rules: reductions
    def _reduce(self, name: str, dim: Any, keepdim: bool, **kwargs: Any) -> BatchedTensor:
        dims = _dims(dim, self.ndim, name)
        if not dims:  # a 0-d sample: reducing it keeps it (as on a 0-d Tensor)
            return BatchedTensor(getattr(self.value.unsqueeze(1), name)(1, keepdim=False, **kwargs), self.level)
        return BatchedTensor(getattr(self.value, name)(dims, keepdim=keepdim, **kwargs), self.level)

    def sum(self, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("sum", dim, keepdim)

    def mean(self, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("mean", dim, keepdim)

    def prod(self, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("prod", dim, keepdim)

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:  # type: ignore[override]
        if getattr(dim, "_is_tensor", False):
            return self.maximum(dim)
        if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):  # PyTorch's (values, indices)
            return ExtremeResult(self._reduce("amax", dim, keepdim), self.argmax(int(dim), keepdim))
        return self._reduce("amax", dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:  # type: ignore[override]
        if getattr(dim, "_is_tensor", False):
            return self.minimum(dim)
        if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
            return ExtremeResult(self._reduce("amin", dim, keepdim), self.argmin(int(dim), keepdim))
        return self._reduce("amin", dim, keepdim)

    def amax(self, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("amax", dim, keepdim)

    def amin(self, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("amin", dim, keepdim)

    def any(self, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("any", dim, keepdim)

    def all(self, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("all", dim, keepdim)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("logsumexp", dim, keepdim)

    def var(self, dim: Any = None, *, keepdim: bool = False, **kwargs: Any) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("var", dim, keepdim, **kwargs)

    def std(self, dim: Any = None, *, keepdim: bool = False, **kwargs: Any) -> BatchedTensor:  # type: ignore[override]
        return self._reduce("std", dim, keepdim, **kwargs)

    def norm(self, p: Any = 2, dim: Any = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        dims = _dims(dim, self.ndim, "norm")
        value = self.value.unsqueeze(1) if not dims else self.value
        return BatchedTensor(value.norm(p, dims or (1,), keepdim if dims else False), self.level)

    def _along(self, name: str, dim: int | None, *args: Any, **kwargs: Any) -> BatchedTensor:
        if dim is None:  # (argmax/argmin over all the elements of each sample)
            return BatchedTensor(getattr(self.value.flatten(1) if self.ndim else self.value.unsqueeze(1), name)(
                1, *args, **kwargs), self.level)
        return BatchedTensor(getattr(self.value, name)(_dim(dim, self.ndim, name), *args, **kwargs), self.level)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        if dim is None and keepdim:
            raise Unbatchable("argmax(dim=None, keepdim=True)")
        return self._along("argmax", dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> BatchedTensor:  # type: ignore[override]
        if dim is None and keepdim:
            raise Unbatchable("argmin(dim=None, keepdim=True)")
        return self._along("argmin", dim, keepdim)

    def softmax(self, dim: int = -1) -> BatchedTensor:  # type: ignore[override]
        return self._along("softmax", dim)

    def log_softmax(self, dim: int = -1) -> BatchedTensor:  # type: ignore[override]
        return self._along("log_softmax", dim)

    def cumsum(self, dim: int, **kwargs: Any) -> BatchedTensor:  # type: ignore[override]
        return self._along("cumsum", dim, **kwargs)

    def cumprod(self, dim: int, **kwargs: Any) -> BatchedTensor:  # type: ignore[override]
        return self._along("cumprod", dim, **kwargs)

    # ------------------------------------------------------------ rules: matmul, indexing
    def __matmul__(self, other: Any) -> BatchedTensor:  # type: ignore[override]
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> BatchedTensor:  # type: ignore[override]
        return matmul(other, self)

    def matmul(self, other: Any) -> BatchedTensor:
        return matmul(self, other)

    def __getitem__(self, key: Any) -> BatchedTensor:  # type: ignore[override]
        return getitem(self, key)

    def where(self, condition: Any, other: Any) -> BatchedTensor:  # type: ignore[override]
        return elementwise(lambda s, c, o: s.where(c, o), self, condition, other)


def elementwise(op: Callable[..., Any], *operands: Any) -> Any:
    """`op` of operands that broadcast, one or more batched: each batched one gets size-1 dimensions
    after its batch dimension up to the result's rank, so that its batch dimension meets the others'."""
    level = _top(*operands)
    assert level is not None
    ndim = max(_ndim(x) for x in operands)
    values = [x._padded(ndim) if _level_of(x) is level else x for x in operands]
    return BatchedTensor(op(*values), level)


def matmul(a: Any, b: Any) -> BatchedTensor:
    """`a @ b`, one or both batched: vectors become matrices, batch dimensions are aligned, and the
    dimensions a vector added are dropped again."""
    level = _top(a, b)
    assert level is not None
    if _ndim(a) == 0 or _ndim(b) == 0:
        raise ValueError(f"matmul: a 0-d operand (shapes {getattr(a, 'shape', ())} and {getattr(b, 'shape', ())})")
    a_vector, b_vector = _ndim(a) == 1, _ndim(b) == 1
    if a_vector:
        a = a.unsqueeze(0)
    if b_vector:
        b = b.unsqueeze(-1)
    ndim = max(_ndim(a), _ndim(b))
    a_value = a._padded(ndim) if _level_of(a) is level else a
    b_value = b._padded(ndim) if _level_of(b) is level else b
    out = BatchedTensor(a_value @ b_value, level)
    if a_vector:
        out = out.squeeze(-2)
    if b_vector:
        out = out.squeeze(-1)
    return out


def _is_advanced(k: Any) -> bool:
    return isinstance(k, (list, Tensor)) or (hasattr(k, "shape") and hasattr(k, "dtype") and not isinstance(k, int))


def getitem(x: BatchedTensor, key: Any) -> BatchedTensor:
    """`x[key]` for basic keys (ints, slices, None, Ellipsis) and integer or boolean arrays. An index
    that is itself batched (one index per sample) must come first in the key."""
    level = x.level
    key = key if isinstance(key, tuple) else (key,)
    advanced = [i for i, k in enumerate(key) if _is_advanced(k)]
    if advanced:
        spots = [i for i, k in enumerate(key) if _is_advanced(k) or isinstance(k, int)]
        if spots != list(range(spots[0], spots[-1] + 1)):  # NumPy moves separated advanced indices to the front
            raise Unbatchable("indexing with separated advanced indices")
    batched = [i for i, k in enumerate(key) if _level_of(k) is level]
    if any(isinstance(k, BatchedTensor) and k.level.id > level.id for k in key):
        raise Unbatchable("indexing with an index of an inner vmap")
    if not batched:
        return BatchedTensor(x.value[(slice(None),) + key], level)
    if advanced[0] != 0:
        raise Unbatchable("a batched index after other indices")
    xp = x.backend.xp
    if any(xp.isdtype(key[i].dtype, "bool") for i in batched):
        raise Unbatchable("a batched boolean mask (each sample's result has its own size)")
    rank = max(_ndim(key[i]) for i in advanced)
    batch = Tensor._wrap(xp.reshape(xp.arange(level.size, device=x._device), (level.size,) + (1,) * rank),
                         x.backend)
    physical = [k.value if _level_of(k) is level else k for k in key]
    for i in batched:  # a batched index's own dims after its batch dim, aligned to the others' rank
        for _ in range(rank - key[i].ndim):
            physical[i] = physical[i].unsqueeze(1)
    return BatchedTensor(x.value[tuple([batch, *physical])], level)


# ------------------------------------------------------------ unary and binary rules, from tables
_UNARY = ("abs", "neg", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "square",
          "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
          "arcsin", "arccos", "arctan", "sigmoid", "relu", "gelu", "silu", "softplus", "elu", "leaky_relu",
          "sign", "floor", "ceil", "round", "trunc", "reciprocal", "erf", "erfc", "erfinv", "lgamma",
          "digamma", "clamp", "clip", "isnan", "isinf", "isfinite", "logical_not", "bitwise_not",
          "float", "double", "half", "long", "int", "bool", "astype", "type", "to", "detach", "clone",
          "contiguous", "conj", "nan_to_num", "positive", "negative", "logit", "sinc", "deg2rad", "rad2deg",
          "__neg__", "__pos__", "__abs__", "__invert__")
_BINARY = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "maximum",
           "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "copysign", "remainder", "fmod",
           "floor_divide", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
           "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "xlogy",
           "__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__",
           "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__or__", "__xor__")
_REFLECTED = {"__radd__": "__add__", "__rsub__": "__sub__", "__rmul__": "__mul__", "__rtruediv__": "__truediv__",
              "__rfloordiv__": "__floordiv__", "__rmod__": "__mod__", "__rpow__": "__pow__",
              "__rand__": "__and__", "__ror__": "__or__", "__rxor__": "__xor__"}


def _unary_rule(name: str) -> Callable[..., Any]:
    def rule(self: BatchedTensor, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, Tensor) for a in itertools.chain(args, kwargs.values())):
            raise Unbatchable(f"{name} with a Tensor argument")
        return BatchedTensor(getattr(self.value, name)(*args, **kwargs), self.level)
    rule.__name__ = name
    return rule


def _binary_rule(name: str, reflected: str | None = None) -> Callable[..., Any]:
    forward = reflected or name

    def rule(self: BatchedTensor, other: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            raise Unbatchable(f"{name} with more arguments")
        if isinstance(other, (str, bytes)) or other is None:
            return NotImplemented
        if reflected is None:
            return elementwise(lambda a, b: getattr(a, forward)(b) if isinstance(a, Tensor)
                               else _operate(forward, a, b), self, other)
        return elementwise(lambda a, b: _operate(forward, a, b), other, self)
    rule.__name__ = name
    return rule


def _operate(name: str, a: Any, b: Any) -> Any:
    """`a <op> b` where `a` may be a number or an array (Python's dispatch then finds b's reflected op)."""
    return getattr(operator, name.strip("_") if name != "__truediv__" else "truediv")(a, b)


def _stub(name: str) -> Callable[..., Any]:
    def stub(self: BatchedTensor, *args: Any, **kwargs: Any) -> Any:
        raise Unbatchable(f"Tensor.{name}")
    stub.__name__ = name
    return stub


def _stub_property(name: str) -> property:
    def get(self: BatchedTensor) -> Any:
        raise Unbatchable(f"Tensor.{name}")
    return property(get)


_KEEP = {"__init__", "__init_subclass__", "__new__", "__hash__", "__getattribute__", "__setattr__",
         "__delattr__", "__class__", "__dir__", "__sizeof__", "__reduce__", "__subclasshook__", "_wrap",
         "__format__", "__str__", "__eq__", "__ne__", "__bool__"}


def _install_rules() -> None:
    own = set(vars(BatchedTensor))
    for name in _UNARY:
        if hasattr(Tensor, name) and name not in own:
            setattr(BatchedTensor, name, _unary_rule(name))
    for name in _BINARY:
        if hasattr(Tensor, name) and name not in own:
            setattr(BatchedTensor, name, _binary_rule(name))
    for name, forward in _REFLECTED.items():
        if hasattr(Tensor, name):
            setattr(BatchedTensor, name, _binary_rule(name, forward))
    own = set(vars(BatchedTensor))
    for klass in Tensor.__mro__[:-1]:
        for name, attr in vars(klass).items():
            if name in own or name in _KEEP or name in ("__slots__", "__dict__", "__weakref__", "__module__",
                                                          "__doc__", "__qualname__", "_is_tensor",
                                                          "__array_priority__"):
                continue
            if isinstance(attr, property):
                setattr(BatchedTensor, name, _stub_property(name))
            elif callable(attr) or isinstance(attr, (staticmethod, classmethod)):
                if isinstance(attr, classmethod):
                    continue
                setattr(BatchedTensor, name, _stub(name))
            own.add(name)
    # comparisons and truth: elementwise, and `if x:` on a batch is data-dependent control flow
    for name in ("__eq__", "__ne__"):
        setattr(BatchedTensor, name, _binary_rule(name))
    BatchedTensor.__bool__ = _stub("__bool__")  # type: ignore[method-assign]
    BatchedTensor.__hash__ = object.__hash__  # type: ignore[method-assign,assignment]


_install_rules()


# ------------------------------------------------------------ moving between levels
def physical(x: Any, levels: Sequence[Level]) -> Any:
    """`x` as a plain Tensor with one dimension per level first (in order), expanded where `x` is not
    batched at that level."""
    if not levels:
        if isinstance(x, BatchedTensor):
            raise Unbatchable("a value of a vmap that is not running")
        return x
    inner = levels[-1]
    if _level_of(x) is inner:
        return physical(x.value, levels[:-1])
    p = physical(x, levels[:-1])
    k = len(levels) - 1
    shape = tuple(p.shape)
    return p.unsqueeze(k).expand(shape[:k] + (inner.size,) + shape[k:])


def rewrap(p: Any, levels: Sequence[Level]) -> Any:
    """The inverse of `physical`: a plain Tensor whose first dimensions are `levels`' batches, wrapped."""
    for level in levels:
        p = BatchedTensor(p, level)
    return p


def expand_to(x: Any, level: Level) -> Any:
    """`x` (unbatched at `level`) as a value with `level`'s batch dimension first."""
    shape = tuple(x.shape)
    return x.unsqueeze(0).expand((level.size, *shape))


def stack(parts: Sequence[Any], dim: int = 0) -> Any:
    """Same-shaped parts stacked along a new dimension `dim`, some or all of them batched."""
    level = _top(*parts)
    if level is None:
        if any(p.requires_grad for p in parts):
            return F.Stack.apply(*parts, dim)
        like = parts[0]
        return Tensor._wrap(like.backend.xp.stack([p.data for p in parts], axis=dim), like.backend)
    ndim = _ndim(parts[0]) + 1
    values = [p.value if _level_of(p) is level else expand_to(p, level) for p in parts]
    return BatchedTensor(stack(values, dim % ndim + 1), level)


def concat(parts: Sequence[Any], dim: int = 0) -> Any:
    """Parts joined along their dimension `dim`, some or all of them batched."""
    level = _top(*parts)
    if level is None:
        return F.Concat.apply(*parts, dim) if any(p.requires_grad for p in parts) else Tensor._wrap(
            parts[0].backend.xp.concat([p.data for p in parts], axis=dim), parts[0].backend)
    ndim = _ndim(parts[0])
    values = [p.value if _level_of(p) is level else expand_to(p, level) for p in parts]
    return BatchedTensor(concat(values, dim % ndim + 1), level)

