"""`Tensor`: a backend array plus the bookkeeping reverse mode needs.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([2.0, 3.0], requires_grad=True)
    >>> y = (x ** 2).sum()
    >>> y.backward()
    >>> x.grad.tolist()
    [4.0, 6.0]
"""

from __future__ import annotations

import copy
import math
import numbers
import operator
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from torchlight import grad_mode
from torchlight.autograd import function as _function
from torchlight.autograd import functions as F
from torchlight.autograd.engine import run_backward
from torchlight.autograd.function import record_pair
from torchlight.autograd.functions import broadcast_shapes
from torchlight.backends import Backend, BackendError

NOT_A_LEAF = (
    "The .grad of a non-leaf Tensor is not kept: only leaves (tensors made by the user, "
    "not by an op) accumulate gradients. Call .retain_grad() on this tensor before "
    "backward() to keep its gradient."
)

LEAVES_GRAPH = (
    "{what} of a tensor that requires grad: the result would carry no gradient. Use the "
    "Tensor's own ops (x.exp(), x.sum(), tl.where, tl.stack for a list of tensors, ...) to stay "
    "differentiable, or x.detach() for the values"
)


def check_same_backend(op: str, a: Tensor, b: Tensor) -> None:
    """Raise when two tensors of one op live in different libraries or devices."""
    if a.backend is not b.backend:
        raise BackendError(
            f"{op}: tensors on two backends, {a.backend.name!r} and {b.backend.name!r}; "
            f"move one with .to(backend={a.backend.name!r}) first"
        )
    da, db = a.device, b.device
    if da != db:
        raise BackendError(
            f"{op}: tensors on two devices, {da} and {db} (backend {a.backend.name!r}); "
            f"move one with .to(device=...) first"
        )


_NUMBERS: dict[tuple, Any] = {}


def _number_tensor(backend: Backend, value: bool | int | float, dtype: Any, device: Any) -> Tensor:
    """`value` as a 0-d constant Tensor, made once per (backend, device, dtype, number).

    `x * 0.5` lifts the number on every call, and making the array (the
    namespace's `asarray` is a Python wrapper) and its Tensor costs several
    times the multiply itself. The cached Tensors are constants no op writes
    to. The key carries the number's type and the sign of a zero, so that 1,
    1.0, True and 0.0, -0.0 stay apart.
    """
    key = (backend, device, dtype, type(value), value, value == 0 and math.copysign(1.0, value))
    try:
        tensor = _NUMBERS.get(key)
    except TypeError:  # an unhashable device object: no caching
        return Tensor._wrap(backend.xp.asarray(value, dtype=dtype, device=device), backend)
    if tensor is None:
        if len(_NUMBERS) >= 4096:
            _NUMBERS.clear()
        tensor = _NUMBERS[key] = Tensor._wrap(backend.xp.asarray(value, dtype=dtype, device=device), backend)
    return tensor


_INT_RANGES: dict[tuple, tuple[int, int]] = {}

# what each comparison says of every element when the number is above the dtype's range
_ABOVE_RANGE = {"__lt__": True, "__le__": True, "__ne__": True, "__gt__": False, "__ge__": False, "__eq__": False}


def _int_side(backend: Backend, dtype: Any, value: int) -> int:
    """1 if the Python int `value` is above the range of the integer `dtype`, -1 below, 0 inside."""
    key = (backend, dtype)
    bounds = _INT_RANGES.get(key)
    if bounds is None:
        info = backend.xp.iinfo(dtype)
        bounds = _INT_RANGES[key] = (int(info.min), int(info.max))
    return 1 if value > bounds[1] else -1 if value < bounds[0] else 0


def _operator(fn: type, reverse: bool = False) -> Callable[[Tensor, Any], Tensor]:
    """The Tensor operator applying `fn` to (self, other), or to (other, self) when `reverse`.

    A number or an array on the other side is lifted to a Tensor of this
    backend first; a shape mismatch is a ValueError naming the op and both
    shapes, raised in place of the library's own error (the shapes are
    looked at only then: on the way through they cost a small op a tenth
    of its time). When nothing is recorded (no_grad, a backward without
    create_graph, constants) and `fn` has an array `kernel`, the operator
    calls it directly: the same result as `fn.apply`, without its
    bookkeeping (half the cost of a small `g * y` in a backward).
    """
    kernel = getattr(fn, "kernel", None)
    state = grad_mode._state

    def operator(self: Tensor, other: Any) -> Tensor:
        if type(other) is not Tensor:
            other = self._lift(other)
        a, b = (other, self) if reverse else (self, other)
        backend = a.backend
        try:
            if b.backend is backend and not backend.multi_device:
                if state.enabled and (a.requires_grad or b.requires_grad):
                    return record_pair(fn, a, b)
                if kernel is not None:
                    return Tensor._wrap(kernel(a.data, b.data), backend)
            return fn.apply(a, b)
        except Exception:
            _explain_shapes(fn.__name__, a, b)
            raise

    return operator


def _update_in_place(op: Callable[[Tensor, Any], Tensor], symbol: str) -> Callable[[Tensor, Any], Tensor]:
    """`x op= y`: a parameter (a leaf that requires grad) is updated, any other tensor rebound.

    `with tl.no_grad(): w -= lr * w.grad` keeps `w` the same leaf with its
    new values, as in PyTorch: its array is replaced (as an optimizer's step
    does), never written into, so no array an earlier op kept changes. With
    grad mode on, updating such a leaf raises, as in PyTorch, and so does a
    backward that needs its old values (`Context.saved_tensors`). On any other
    tensor `x op= y` is `x = x op y`: a new tensor, recorded as usual.
    """

    def update(self: Tensor, other: Any) -> Tensor:
        if self.history is not None or not self.requires_grad:
            return op(self, other)
        if grad_mode._state.enabled:
            raise RuntimeError(f"{symbol}: a leaf tensor that requires grad cannot be updated in place while "
                               "grad mode is on (the update would join the graph); do it under "
                               "`with tl.no_grad():`, or with an optimizer from tl.optim")
        result = op(self, other)
        if result.shape != self.shape:
            raise ValueError(f"{symbol}: the result has shape {result.shape}, but the tensor updated in "
                             f"place has shape {self.shape} and keeps it")
        self._replace_data(result.data if result.dtype == self.dtype else result.astype(self.dtype).data)
        return self

    return update


def _explain_shapes(op: str, a: Tensor, b: Tensor) -> None:
    """After an op of `a` and `b` failed: the ValueError naming `op` and both shapes, if they do not broadcast."""
    try:
        broadcast_shapes(op, a.shape, b.shape)
    except ValueError as clear:
        raise clear from None


class Tensor:
    """An array of a backend, its gradient, and the History that made it.

    Make tensors with `tl.tensor(...)` or the factories; ops return new
    Tensors. See the module docstring for an example.
    """

    # `_replaced_at` is set only once the array is replaced in place (`_replace_data`)
    __slots__ = ("data", "backend", "requires_grad", "history", "_grad", "_retains_grad", "_replaced_at",
                 "__weakref__")
    _is_tensor = True
    __array_priority__ = 1000

    def __init__(self, data: Any, backend: Backend, requires_grad: bool = False) -> None:
        self.data = data
        self.backend = backend
        self.requires_grad = False
        self.history = None
        self._grad = None
        self._retains_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _wrap(cls, out: Any, backend: Backend) -> Tensor:
        """A new history-free Tensor around a forward's result (fast path)."""
        t = object.__new__(Tensor)
        if type(out) is Tensor:
            t.data = out.data
            t.backend = out.backend
        else:
            t.data = out
            t.backend = backend
        t.requires_grad = False
        t.history = None
        t._grad = None
        t._retains_grad = False
        return t

    # ------------------------------------------------------------ attributes
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def dtype(self) -> Any:
        return self.data.dtype

    @property
    def device(self) -> Any:
        return self.backend.device_of(self.data)

    @property
    def size(self) -> int:
        return math.prod(self.data.shape)

    @property
    def is_leaf(self) -> bool:
        return self.history is None

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and non-leaves after retain_grad())."""
        if self.history is not None and not self._retains_grad:
            raise AttributeError(NOT_A_LEAF)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        """Set (or clear, with None) the gradient: same shape, dtype, backend and device as this tensor."""
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Tensor):
            value = Tensor(self.backend.asarray(value, dtype=self.dtype, device=self.device), self.backend)
        if value.shape != self.shape:
            raise ValueError(f"grad: a gradient of shape {value.shape} for a tensor of shape {self.shape}")
        check_same_backend("grad", self, value)
        if value.dtype != self.dtype:
            raise TypeError(f"grad: a gradient of dtype {value.dtype} for a tensor of dtype {self.dtype}")
        self._grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set `requires_grad` on a leaf (float dtypes only)."""
        if requires_grad and not self.backend.is_floating(self.dtype):
            raise TypeError(
                f"requires_grad=True needs a floating-point tensor; this one has dtype {self.dtype} "
                f"(convert with tl.tensor(x, dtype='float64') first)"
            )
        if self.history is not None and not requires_grad:
            raise RuntimeError("requires_grad_(False) on a non-leaf: use .detach() instead")
        self.requires_grad = requires_grad
        return self

    # -------------------------------------------------- the Variable protocol
    @property
    def parents(self) -> tuple[Tensor, ...]:
        history = self.history
        return () if history is None else history.parents

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def graph_node(self) -> Any:
        """What stands for this tensor in the graph: itself for a leaf, else its History.

        Consumers record a non-leaf parent as its History, which keeps no
        array, so the graph never keeps an activation alive.
        """
        history = self.history
        return self if history is None else history

    def chain_rule(self, d_output: Tensor, retain_graph: bool = True) -> list[tuple[Any, Tensor]]:
        """(input, gradient) pairs of the op that made this tensor (see `History.chain_rule`)."""
        return self.history.chain_rule(d_output, retain_graph)

    @staticmethod
    def add_gradients(a: Tensor, b: Tensor) -> Tensor:
        """`a + b` for two gradients of one node when no graph is recorded.

        The engine's accumulation: same shape, dtype and device by then, so
        the raw arrays are added, past the op machinery (a third of the
        applies in a backward of small ops are such sums).
        """
        return Tensor._wrap(a.data + b.data, a.backend)

    @staticmethod
    def add_gradient_into(total: Tensor, d: Tensor) -> None:
        """`total += d` for a sum the engine made itself and holds alone.

        In place where the library writes in place (NumPy, CuPy, torch); a
        JAX array or a NumPy scalar is rebound instead, which is as correct.
        """
        total.data += d.data

    def accumulate_derivative(self, d: Tensor, shared: bool = False) -> None:
        """Add `d` into `.grad`; the first gradient never aliases another array.

        `shared` says the engine has handed `d`'s array to another node (or
        that it is the caller's seed), so it is copied rather than kept.
        """
        if d.requires_grad:  # history, or a seed requiring grad: create_graph keeps the link
            d = F.Clone.apply(d)
        elif shared or not self.backend.owns_fresh_memory(d.data):
            d = Tensor._wrap(self.backend.copy(d.data), self.backend)
        else:
            d = Tensor._wrap(d.data, self.backend)
        old = self._grad
        if old is None:
            self._grad = d
        elif d.history is None and old.history is None:
            old._replace_data(old.data + d.data)
        else:
            with grad_mode.enable_grad():  # a plain backward keeps the history of a create_graph .grad (PyTorch)
                self._grad = old + d

    def seed_derivative(self, deriv: Any) -> Tensor:
        """The gradient that starts backward: a number or a root-shaped array/Tensor."""
        if isinstance(deriv, (int, float)):
            return self._full(self.shape, deriv)
        if not isinstance(deriv, Tensor):
            deriv = Tensor._wrap(self.backend.asarray(deriv, dtype=self.dtype, device=self.device), self.backend)
        if deriv.shape != self.shape:
            raise ValueError(
                f"backward: the gradient has shape {deriv.shape} but the tensor has shape {self.shape}"
            )
        check_same_backend("backward", self, deriv)
        if deriv.data.dtype != self.data.dtype:
            deriv = deriv.astype(self.dtype)
        return deriv

    # --------------------------------------------------------------- autograd
    def backward(self, grad: Any = None, *, retain_graph: bool | None = None,
                 create_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's `.grad`.

        `grad` defaults to 1.0 for a 0-d tensor and to `ones_like(self)`
        otherwise; `retain_graph` defaults to `create_graph`.
        """
        if not self.requires_grad:
            raise RuntimeError(
                "backward: this tensor does not require grad and has no history "
                "(make its leaves with requires_grad=True, outside tl.no_grad())"
            )
        if retain_graph is None:
            retain_graph = create_graph
        run_backward([self], [1.0 if grad is None else grad], retain_graph=retain_graph, create_graph=create_graph)

    def retain_grad(self) -> Tensor:
        """Keep the gradient of this non-leaf in `.grad` on the next backward."""
        if not self.requires_grad:
            raise RuntimeError("retain_grad: this tensor does not require grad")
        self._retains_grad = True
        if self.history is not None:
            self.history.retains_grad = True
            self.history._owner = weakref.ref(self)
        return self

    def _replace_data(self, array: Any) -> None:
        """Give this tensor new values, in place: an optimizer's step, `w -= ...`, `.grad` accumulating.

        The array is replaced, never written into; the tensor notes when, so
        that a backward whose forward saved it raises rather than reading the
        new values (see `Context.saved_tensors`). Assigning `t.data` directly
        skips that check, as in PyTorch.
        """
        _function.WRITES[0] += 1
        self._replaced_at = _function.WRITES[0]
        self.data = array

    def detach(self) -> Tensor:
        """The same data (no copy) without history or grad."""
        return Tensor._wrap(self.data, self.backend)

    def clone(self) -> Tensor:
        """A copy of the data that stays in the graph."""
        return F.Clone.apply(self)

    def zero_grad_(self) -> Tensor:
        """Set `.grad` to zeros in place (allocating it if there is none yet).

        A gradient made with `create_graph=True` is detached first (as in
        PyTorch): zeros that kept the old history would carry its
        derivatives into the next higher-order backward.
        """
        if self._grad is None:
            self._grad = Tensor._wrap(self.backend.xp.zeros_like(self.data), self.backend)
        else:
            grad = self._grad
            grad.history = None
            grad.requires_grad = False
            grad._replace_data(self.backend.xp.zeros_like(grad.data))
        return self

    # ------------------------------------------------------- host and interop
    def item(self) -> Any:
        """The single element as a Python number (a device-to-host transfer)."""
        if self.size != 1:
            raise ValueError(f"item: the tensor has {self.size} elements, not 1")
        return self.backend.to_numpy(self.data).reshape(()).item()

    def tolist(self) -> Any:
        """The data as nested Python lists (a device-to-host transfer)."""
        return self.backend.to_numpy(self.data).tolist()

    def numpy(self) -> np.ndarray:
        """A host NumPy array of the data (no copy on the NumPy backend)."""
        return self.backend.to_numpy(self.data)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """The data for NumPy's implicit conversions (`np.asarray(x)`, `np.exp(x)`).

        Refused for a tensor that requires grad, as PyTorch refuses it:
        `np.exp(x)` would return a plain array and the gradient through it
        would be silently lost. `.numpy()` and `.detach()` leave the graph
        on purpose.
        """
        if not self.backend.is_host(self.data):
            raise TypeError(
                f"implicit conversion of a {self.backend.name!r} tensor on {self.device} to NumPy: "
                "call .numpy() to copy it to the host explicitly"
            )
        if self.requires_grad:
            raise RuntimeError(LEAVES_GRAPH.format(what="implicit conversion to a NumPy array"))
        out = self.backend.to_numpy(self.data)
        if dtype is not None:
            out = out.astype(dtype)
        return np.array(out, copy=True) if copy else out

    def _exported(self) -> Any:
        """`.data` as an array: NumPy gives 0-d results as scalars, which have no `__dlpack__`."""
        data = self.data
        return data if hasattr(data, "__dlpack__") else self.backend.xp.asarray(data)

    def __dlpack__(self, **kwargs: Any) -> Any:
        """Export for `from_dlpack`; refused for a tensor that requires grad (as `__array__`, and PyTorch)."""
        if self.requires_grad:
            raise RuntimeError(LEAVES_GRAPH.format(what="DLPack export"))
        return self._exported().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self._exported().__dlpack_device__()

    def to(self, backend: str | Backend | None = None, device: Any = None) -> Tensor:
        """This tensor on another backend and/or device, differentiable. A copy,
        except between CPU libraries, where DLPack shares the memory."""
        from torchlight.backends import get

        target = self.backend if backend is None else get(backend)
        device = target.resolve_device(device)
        if target is self.backend and (device is None or device == self.device):
            return self
        return F.To.apply(self, target, device)

    def astype(self, dtype: Any) -> Tensor:
        """A copy with another dtype (differentiable between float dtypes;
        a cast to an integer or boolean dtype has no gradient, as PyTorch)."""
        out = F.AsType.apply(self, self.backend.resolve_dtype(dtype))
        return out if not out.requires_grad or self.backend.is_floating(out.dtype) else out.detach()

    def __repr__(self) -> str:
        if self.backend.name == "cupy":
            body = repr(self.data)
        else:
            body = np.array2string(self.numpy(), separator=", ", prefix="tensor(")
        extras = []
        if self.backend.name != "numpy":
            extras.append(f"backend={self.backend.name!r}")
        if self.history is not None:
            extras.append(f"grad_fn=<{self.history.last_fn.__name__}>")
        elif self.requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + ", ".join([body, *extras]) + ")"

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                f"the truth value of a tensor with {self.size} elements is ambiguous "
                "(comparisons are elementwise): reduce it first, e.g. with .max() or .sum()"
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """A 0-d integer tensor as a Python int, wherever one is wanted (`items[i]`, `range(n)`, a dim)."""
        if self.ndim != 0 or not self.backend.xp.isdtype(self.dtype, "integral"):
            raise TypeError(f"only a 0-d integer tensor can be used as an index, not one of shape {self.shape} "
                            f"and dtype {self.dtype}")
        return operator.index(self.item())

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats as its number (`f"{loss:.4f}"`, as PyTorch); any other as `str(t)`,
        and a format spec for it is a TypeError (as PyTorch's)."""
        if self.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    # ------------------------------------------------------------- copying
    def __deepcopy__(self, memo: dict) -> Tensor:
        """A leaf's copy (`copy.deepcopy`): its own array, `requires_grad` and a copy of `.grad`.

        As in PyTorch, a tensor with history refuses: the copy would have to
        copy the graph that made it. Copy `t.detach()` instead, or deep-copy
        the leaves (a Module's parameters are leaves, so models copy).
        """
        if self.history is not None:
            raise RuntimeError("only leaf tensors (made by you, not by an op) can be deep-copied; "
                               "deep-copy x.detach() instead, which has the same values and no history")
        new = _rebuild(type(self), self.backend, self.backend.copy(self.data), self.requires_grad)
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = copy.deepcopy(self._grad, memo)
        if hasattr(self, "__dict__"):  # a subclass's own attributes
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __reduce_ex__(self, protocol: Any) -> tuple:
        """Pickle (and `copy.copy`) the array and `requires_grad`, as PyTorch: the history and `.grad` are dropped."""
        state = self.__dict__ if hasattr(self, "__dict__") else None
        return _rebuild, (type(self), self.backend, self.data, self.requires_grad), state

    __hash__ = object.__hash__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Keep the identity hash in subclasses: one that defines `__eq__` loses `__hash__`
        (Python's rule), and the engine keys the graph's nodes by the nodes themselves."""
        super().__init_subclass__(**kwargs)
        if cls.__hash__ is None:
            cls.__hash__ = object.__hash__

    # ---------------------------------------------------------------- helpers
    def _lift(self, other: Any) -> Tensor:
        """`other` as a Tensor of this backend; numbers take this tensor's dtype
        (NumPy 2's rule), except a float beside a non-float tensor (the default
        float) and an int beside a boolean one (the default integer).

        On a one-device backend the device is left to the library's default
        (the only one), which spares a device lookup on every `x * 0.5`.
        """
        backend = self.backend
        if type(other) is float and other and not backend.multi_device:  # `x * 0.5`: one lookup when cached
            tensor = _NUMBERS.get((backend, None, self.data.dtype, float, other, False))  # _number_tensor's key
            if tensor is not None:
                return tensor
        if isinstance(other, Tensor):
            return other
        device = self.device if backend.multi_device else None
        if isinstance(other, (bool, int, float)):
            dtype = self.data.dtype
            if isinstance(other, float) and not backend.is_floating(dtype):
                dtype = backend.default_float(device)
            elif type(other) is int and not backend.is_floating(dtype):
                if backend.xp.isdtype(dtype, "bool"):
                    dtype = None  # the default integer (NumPy 2): `mask + 2` is not `mask + True`
                elif _int_side(backend, dtype, other):  # NumPy 2's error; torch would wrap it silently
                    raise OverflowError(f"Python integer {other} out of bounds for {dtype}")
            return _number_tensor(backend, other, dtype, device)
        return Tensor._wrap(backend.asarray(other, device=device), backend)

    def _full(self, shape: Sequence[int], value: float) -> Tensor:
        return Tensor._wrap(
            self.backend.xp.full(tuple(shape), value, dtype=self.dtype, device=self.device), self.backend
        )

    # -------------------------------------------------------------- operators
    # (made by `_operator`: one frame per `a * b` rather than a method calling a helper)
    __add__ = _operator(F.Add)
    __radd__ = _operator(F.Add, reverse=True)
    __sub__ = _operator(F.Sub)
    __rsub__ = _operator(F.Sub, reverse=True)
    __mul__ = _operator(F.Mul)
    __rmul__ = _operator(F.Mul, reverse=True)
    __truediv__ = _operator(F.Div)
    __rtruediv__ = _operator(F.Div, reverse=True)
    __rpow__ = _operator(F.Pow, reverse=True)
    # `//` and `%` as Python, NumPy and PyTorch: floor division, and the remainder with the sign of
    # the divisor; `//` is a step function (gradient 0), `%` has d/da = 1, d/db = -(a // b)
    __floordiv__ = _operator(F.FloorDivide)
    __rfloordiv__ = _operator(F.FloorDivide, reverse=True)
    __mod__ = _operator(F.Remainder)
    __rmod__ = _operator(F.Remainder, reverse=True)
    # `w -= lr * w.grad`: see `_update_in_place`
    __iadd__ = _update_in_place(__add__, "+=")
    __isub__ = _update_in_place(__sub__, "-=")
    __imul__ = _update_in_place(__mul__, "*=")
    __itruediv__ = _update_in_place(__truediv__, "/=")

    def __pow__(self, exponent: Any) -> Tensor:
        if isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
            if type(exponent) is not int and type(exponent) is not float:  # np.float64 ** a float32 array
                exponent = float(exponent)  # would be float64: a Python float keeps the tensor's dtype
            return F.Pow.apply(self, exponent)
        return _power(self, exponent)

    def __matmul__(self, other: Any) -> Tensor:
        return F.matmul(self, self._lift(other))

    def __rmatmul__(self, other: Any) -> Tensor:
        return F.matmul(self._lift(other), self)

    def __neg__(self) -> Tensor:
        return F.Neg.apply(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return F.Abs.apply(self)

    def _compare(self, op: str, other: Any) -> Tensor:
        if type(other) is int and op in _ABOVE_RANGE and not self.backend.is_floating(self.dtype) \
                and not self.backend.xp.isdtype(self.dtype, "bool"):
            side = _int_side(self.backend, self.dtype, other)
            if side:  # a number beyond the dtype compares by value, as NumPy 2 (`uint8_x > -1` is all True)
                answer = _ABOVE_RANGE[op] if side > 0 else op in ("__gt__", "__ge__", "__ne__")
                return Tensor._wrap(self.backend.xp.full(self.shape, answer, dtype=self.backend.xp.bool,
                                                         device=self.device), self.backend)
        other = self._lift(other)
        check_same_backend(op, self, other)
        if self.data.shape != other.data.shape:
            broadcast_shapes(op, self.shape, other.shape)
        return Tensor._wrap(getattr(self.data, op)(other.data), self.backend)

    def __lt__(self, other: Any) -> Tensor:
        return self._compare("__lt__", other)

    def __le__(self, other: Any) -> Tensor:
        return self._compare("__le__", other)

    def __gt__(self, other: Any) -> Tensor:
        return self._compare("__gt__", other)

    def __ge__(self, other: Any) -> Tensor:
        return self._compare("__ge__", other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare("__eq__", other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return self._compare("__ne__", other)

    # `&`, `|`, `^`, `~`: masks combined as in NumPy and PyTorch ((x > 0) & (x < 1)); boolean or
    # integer tensors only (the library refuses floats), no gradient, like the comparisons
    def __and__(self, other: Any) -> Tensor:
        return self._compare("__and__", other)

    def __rand__(self, other: Any) -> Tensor:
        return self._lift(other)._compare("__and__", self)

    def __or__(self, other: Any) -> Tensor:
        return self._compare("__or__", other)

    def __ror__(self, other: Any) -> Tensor:
        return self._lift(other)._compare("__or__", self)

    def __xor__(self, other: Any) -> Tensor:
        return self._compare("__xor__", other)

    def __rxor__(self, other: Any) -> Tensor:
        return self._lift(other)._compare("__xor__", self)

    def __invert__(self) -> Tensor:
        return Tensor._wrap(~self.data, self.backend)

    def __getitem__(self, key: Any) -> Tensor:
        return F.Gather.apply(self, F.index_key(key, self))

    def __setitem__(self, key: Any, value: Any) -> None:
        """Refused with the functional way to write it: ops make new tensors, never change one."""
        raise TypeError(
            "Tensor does not support item assignment (x[key] = value): torchlight's ops return new "
            "tensors and never write into one, so every saved value stays right for backward. Write "
            "it as a new tensor instead: tl.where(mask, value, x) for a mask (x == 0, x > 1, ...), "
            "or tl.cat / tl.stack of the pieces"
        )

    # ---------------------------------------------------------------- methods
    def abs(self) -> Tensor:
        """|x|; the gradient at 0 is 0 (as PyTorch)."""
        return F.Abs.apply(self)

    def neg(self) -> Tensor:
        return F.Neg.apply(self)

    def exp(self) -> Tensor:
        return F.Exp.apply(self)

    def log(self) -> Tensor:
        """Natural log; log(0) is -inf and its gradient inf, as NumPy."""
        return F.Log.apply(self)

    def sigmoid(self) -> Tensor:
        return F.Sigmoid.apply(self)

    def relu(self) -> Tensor:
        """max(x, 0); the gradient at 0 is 0 (as PyTorch)."""
        return F.ReLU.apply(self)

    def tanh(self) -> Tensor:
        return F.Tanh.apply(self)

    def sqrt(self) -> Tensor:
        return F.Sqrt.apply(self)

    def inv(self) -> Tensor:
        """1 / x."""
        return F.Inv.apply(self)

    def sin(self) -> Tensor:
        return F.Sin.apply(self)

    def cos(self) -> Tensor:
        return F.Cos.apply(self)

    def tan(self) -> Tensor:
        return F.Tan.apply(self)

    def sinh(self) -> Tensor:
        return F.Sinh.apply(self)

    def cosh(self) -> Tensor:
        return F.Cosh.apply(self)

    def asin(self) -> Tensor:
        """arcsin, on [-1, 1] (NaN outside, as NumPy); `arcsin` is the same method."""
        return F.Asin.apply(self)

    def acos(self) -> Tensor:
        """arccos, on [-1, 1] (NaN outside, as NumPy); `arccos` is the same method."""
        return F.Acos.apply(self)

    def atan(self) -> Tensor:
        """arctan; `arctan` is the same method."""
        return F.Atan.apply(self)

    def asinh(self) -> Tensor:
        """The inverse hyperbolic sine; `arcsinh` is the same method."""
        return F.Asinh.apply(self)

    def acosh(self) -> Tensor:
        """The inverse hyperbolic cosine, for x >= 1; `arccosh` is the same method."""
        return F.Acosh.apply(self)

    def atanh(self) -> Tensor:
        """The inverse hyperbolic tangent, on (-1, 1); `arctanh` is the same method."""
        return F.Atanh.apply(self)

    arcsin, arccos, arctan = asin, acos, atan
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def log1p(self) -> Tensor:
        """log(1 + x), accurate where |x| is small."""
        return F.Log1p.apply(self)

    def expm1(self) -> Tensor:
        """exp(x) - 1, accurate where |x| is small."""
        return F.Expm1.apply(self)

    def log2(self) -> Tensor:
        return F.Log2.apply(self)

    def log10(self) -> Tensor:
        return F.Log10.apply(self)

    def square(self) -> Tensor:
        return F.Square.apply(self)

    def sign(self) -> Tensor:
        """-1, 0 or 1 by the sign of each element; the gradient is 0 everywhere (as PyTorch)."""
        return F.PiecewiseConstant.apply(self, "sign")

    def floor(self) -> Tensor:
        """Rounded down; the gradient is 0 everywhere (as PyTorch); an integer tensor stays as it is."""
        return F.PiecewiseConstant.apply(self, "floor")

    def ceil(self) -> Tensor:
        """Rounded up; the gradient is 0 everywhere (as PyTorch)."""
        return F.PiecewiseConstant.apply(self, "ceil")

    def round(self) -> Tensor:
        """Rounded to the nearest integer, halves to even (as NumPy and PyTorch); the gradient is 0."""
        return F.PiecewiseConstant.apply(self, "round")

    def trunc(self) -> Tensor:
        """Rounded toward zero; the gradient is 0 everywhere (as PyTorch)."""
        return F.PiecewiseConstant.apply(self, "trunc")

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        """Each element limited to [min, max]; either bound None, a number or a Tensor (broadcasting).

        The gradient is 1 where min <= x <= max, the bounds included, and 0
        where the value was clamped (PyTorch's convention; a Tensor bound gets
        the gradient where it is the result). With min > max every element is max.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([-2.0, 0.5, 3.0], requires_grad=True)
            >>> x.clamp(-1.0, 1.0).sum().backward()
            >>> x.grad.tolist()
            [0.0, 1.0, 0.0]
        """
        if min is None and max is None:
            raise ValueError("clamp: give at least one of min and max")
        lo, hi = _clamp_bound(self, min, below=True), _clamp_bound(self, max, below=False)
        for bound in (lo, hi):
            if isinstance(bound, Tensor):
                check_same_backend("clamp", self, bound)
                broadcast_shapes("clamp", self.shape, bound.shape)
        return F.Clamp.apply(self, lo, hi)

    clip = clamp

    def maximum(self, other: Any) -> Tensor:
        """The elementwise maximum with `other`: `tl.maximum(self, other)`."""
        return _ops.maximum(self, other)

    def minimum(self, other: Any) -> Tensor:
        """The elementwise minimum with `other`: `tl.minimum(self, other)`."""
        return _ops.minimum(self, other)

    def atan2(self, other: Any) -> Tensor:
        """The angle of the point (other, self): `tl.atan2(self, other)`; `arctan2` is the same method."""
        return _ops.atan2(self, other)

    arctan2 = atan2

    def logaddexp(self, other: Any) -> Tensor:
        """log(exp(self) + exp(other)) without overflow: `tl.logaddexp(self, other)`."""
        return _ops.logaddexp(self, other)

    def where(self, condition: Any, other: Any) -> Tensor:
        """This tensor where `condition` holds, else `other`: `tl.where(condition, self, other)`."""
        return _ops.where(condition, self, other)

    def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        return F.Sum.apply(self, F.normalize_dims(dim, self.ndim), keepdim)

    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The mean over `dim` (all dims when None); an integer tensor's mean is a float (as NumPy)."""
        dims = F.normalize_dims(dim, self.ndim)
        count = math.prod(self.shape[d] for d in dims)
        return F.Sum.apply(_floating(self), dims, keepdim) * F.mean_scale(count)

    def var(self, dim: int | Sequence[int] | None = None, *, keepdim: bool = False,
            correction: float = 1) -> Tensor:
        """The variance over `dim` (all dims when None): sum((x - mean)**2) / (N - correction).

        `correction=1` (the default, as PyTorch) is the unbiased estimate,
        `correction=0` NumPy's default. `keepdim` and `correction` are
        keyword-only: PyTorch's positional `var(dim, unbiased)` would
        otherwise be read silently as `keepdim`. With N - correction <= 0 the
        result and its gradient are NaN (as PyTorch, without its warning). An
        integer tensor's variance is a float, as its mean (NumPy; PyTorch raises).

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([1.0, 2.0, 4.0], requires_grad=True)
            >>> x.var(correction=0).backward()
            >>> round(float(x.var()), 4), [round(v, 4) for v in x.grad.tolist()]
            (2.3333, [-0.8889, -0.2222, 1.1111])
        """
        return F.Var.apply(_floating(self), F.normalize_dims(dim, self.ndim), keepdim, correction)

    def prod(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The product over `dim` (all dims when None); the gradient is right with zeros in the input.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([2.0, 0.0, 3.0], requires_grad=True)
            >>> x.prod().backward()
            >>> x.grad.tolist()
            [0.0, 6.0, 0.0]
        """
        return F.Prod.apply(self, F.normalize_dims(dim, self.ndim), keepdim)

    def std(self, dim: int | Sequence[int] | None = None, *, keepdim: bool = False,
            correction: float = 1) -> Tensor:
        """sqrt(var(dim, keepdim=keepdim, correction=correction)); where all the values are
        equal (std 0) the gradient is 0, as PyTorch; an integer tensor's std is a float, as var's."""
        return F.Std.apply(_floating(self), F.normalize_dims(dim, self.ndim), keepdim, correction)

    def logsumexp(self, dim: int | Sequence[int] | None, keepdim: bool = False) -> Tensor:
        """log(sum(exp(x))) over `dim` (None: all dims), shifted by the max so that it does not overflow.

        `dim` is required, as in PyTorch; `torchlight.nn.functional.logsumexp` calls this.

        Example:
            >>> import torchlight as tl
            >>> round(tl.tensor([1000.0, 1000.0]).logsumexp(0).item(), 4)    # 1000 + log 2
            1000.6931
        """
        _check_floating("logsumexp", self)
        return F.LogSumExp.apply(self, F.normalize_dims(dim, self.ndim), keepdim)

    def norm(self, p: float | str = 2, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The vector p-norm over `dim` (None: all elements, flattened): sum(|x|**p)**(1/p).

        `p` is 2 (the default; "fro" is the same), 1, `math.inf` (max |x|),
        `-math.inf` (min |x|) or any other positive number. Where x is 0 the
        gradient is 0, also for p = 2 at an all-zero vector (PyTorch's
        convention); ties of the inf norms split the gradient evenly (as max).

        Example:
            >>> import math
            >>> import torchlight as tl
            >>> x = tl.tensor([[3.0, -4.0], [0.0, 0.0]], requires_grad=True)
            >>> x.norm(dim=1).sum().backward()
            >>> [[round(v, 4) for v in row] for row in x.grad.tolist()], x.norm(p=math.inf).item()
            ([[0.6, -0.8], [0.0, 0.0]], 4.0)
        """
        p = _norm_order(p)
        _check_floating("norm", self)
        dims = F.normalize_dims(dim, self.ndim)
        if p == 1:
            return self.abs().sum(dims, keepdim)
        if math.isinf(p):
            if any(self.shape[d] == 0 for d in dims):
                raise ValueError(f"norm: the {p} norm of an empty dimension of a tensor of shape {self.shape} "
                                 "is undefined (max and min have no identity)")
            return self.abs().max(dims, keepdim) if p > 0 else self.abs().min(dims, keepdim)
        return F.Norm.apply(self, p, dims, keepdim)

    def max(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The maximum values (ties share the gradient evenly); see argmax. Reducing
        an empty dimension raises ValueError (no identity), as NumPy and PyTorch."""
        return F.Max.apply(self, _extreme_dims("max", self, dim), keepdim)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Indices of the maxima (no gradient); an empty dimension raises ValueError, as max."""
        _extreme_dims("argmax", self, dim)
        return Tensor._wrap(self.backend.xp.argmax(self.data, axis=dim, keepdims=keepdim), self.backend)

    def min(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        """The minimum values (ties share the gradient evenly, as in max); see argmin."""
        return F.Min.apply(self, _extreme_dims("min", self, dim), keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Indices of the minima (no gradient); an empty dimension raises ValueError, as min."""
        _extreme_dims("argmin", self, dim)
        return Tensor._wrap(self.backend.xp.argmin(self.data, axis=dim, keepdims=keepdim), self.backend)

    def cumsum(self, dim: int) -> Tensor:
        """The running sum along `dim` (the array API's `cumulative_sum`); a 0-d tensor stays as it is."""
        axis = _one_dim("cumsum", self, dim)
        if self.ndim == 0:
            return self.clone()
        return F.Cumsum.apply(self, axis)

    def permute(self, *dims: int) -> Tensor:
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        axes = tuple(d % self.ndim for d in dims) if self.ndim else tuple(dims)
        if sorted(axes) != list(range(self.ndim)) or any(not -max(self.ndim, 1) <= d < max(self.ndim, 1)
                                                         for d in dims):
            raise ValueError(f"permute: dims {tuple(dims)} are not a permutation of the dimensions "
                             f"of a tensor of shape {self.shape}")
        return F.Permute.apply(self, axes)

    def transpose(self, dim0: int | None = None, dim1: int | None = None) -> Tensor:
        """Swap two dimensions (a 0-d tensor accepts dims 0 and -1, as PyTorch); with no dims,
        reverse them all, as NumPy's `x.transpose()` (`x.T`; PyTorch requires the two dims)."""
        if dim0 is None and dim1 is None:
            return self.T
        if dim0 is None or dim1 is None:
            raise TypeError("transpose: give the two dims to swap, or none to reverse them all (as NumPy)")
        d0, d1 = _one_dim("transpose", self, dim0), _one_dim("transpose", self, dim1)
        axes = list(range(self.ndim))
        if self.ndim:
            axes[d0], axes[d1] = axes[d1], axes[d0]
        return F.Permute.apply(self, tuple(axes))

    @property
    def T(self) -> Tensor:
        """All dimensions reversed."""
        return F.Permute.apply(self, tuple(reversed(range(self.ndim))))

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped (a batch of matrices transposed)."""
        n = self.data.ndim
        if n < 2:
            raise IndexError(f"mT: a batch of matrices needs 2 or more dimensions; this tensor has shape {self.shape}")
        return F.Permute.apply(self, (*range(n - 2), n - 1, n - 2))

    def reshape(self, *shape: int) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return F.Reshape.apply(self, F.resolve_shape(shape, self.shape))

    view = reshape

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        """Drop the size-1 dimensions: all of them, or those among `dim` (an int or a tuple).

        As PyTorch, a `dim` whose size is not 1 is left as it is (the array
        API's `squeeze` raises there); a `dim` out of range raises IndexError.
        """
        dims = F.normalize_dims(dim, self.ndim)
        return F.Reshape.apply(self, tuple(n for i, n in enumerate(self.shape) if n != 1 or i not in dims))

    def unsqueeze(self, dim: int) -> Tensor:
        """A new size-1 dimension at `dim` (-ndim - 1 <= dim <= ndim, as PyTorch)."""
        n = self.ndim + 1
        if not -n <= dim < n:
            raise IndexError(f"unsqueeze: dim {dim} is out of range for a tensor of shape {self.shape} "
                             f"(expected {-n} to {n - 1})")
        d = dim % n
        return F.Reshape.apply(self, self.shape[:d] + (1,) + self.shape[d:])

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """The dimensions start_dim..end_dim (inclusive) merged into one; a 0-d tensor becomes 1-d."""
        start, end = _one_dim("flatten", self, start_dim), _one_dim("flatten", self, end_dim)
        if start > end:
            raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} "
                             f"for a tensor of shape {self.shape}")
        shape = self.shape
        return F.Reshape.apply(self, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])

    def expand(self, *shape: int) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        lead = len(shape) - self.ndim
        if any(n < 0 for n in shape[:max(lead, 0)]) or any(n < -1 for n in shape):
            raise ValueError(f"expand: sizes {shape} for a tensor of shape {self.shape}: -1 keeps an existing "
                             "dimension (a new leading one has none to keep), and no size may be negative")
        shape = tuple(n if n != -1 else self.shape[i - lead] for i, n in enumerate(shape))
        if broadcast_shapes("expand", self.shape, shape) != shape:
            raise ValueError(f"expand: a tensor of shape {self.shape} cannot be expanded to {shape}")
        return F.BroadcastView.apply(self, shape)

    broadcast_to = expand

    def flip(self, *dims: int) -> Tensor:
        """The order of the elements reversed along `dims` (ints, or one sequence); all dims when none is given.

        PyTorch's `x.flip(dims)`; with no dims NumPy's `np.flip(x)` (every axis).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([[1.0, 2.0], [3.0, 4.0]]).flip(1).tolist()
            [[2.0, 1.0], [4.0, 3.0]]
        """
        every = not dims
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        return F.Flip.apply(self, F.normalize_dims(None if every else dims, self.ndim))

    def roll(self, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
        """The elements shifted by `shifts` along `dims`, those pushed off the end coming back at the start.

        PyTorch's and NumPy's `roll`: `dims` None rolls the flattened tensor
        (then `shifts` is one int); otherwise one shift per dim, or one int
        for every dim (as NumPy).

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 2.0, 3.0, 4.0]).roll(1).tolist()
            [4.0, 1.0, 2.0, 3.0]
        """
        if dims is None:
            if not hasattr(shifts, "__index__"):
                raise ValueError(f"roll: shifts {shifts} without dims: give one int (the flattened tensor rolls)")
            return F.Roll.apply(self, operator.index(shifts), None)
        axes = (dims,) if hasattr(dims, "__index__") else tuple(dims)
        steps = (shifts,) * len(axes) if hasattr(shifts, "__index__") else tuple(shifts)
        if len(steps) != len(axes):
            raise ValueError(f"roll: {len(steps)} shifts {tuple(steps)} for {len(axes)} dims {axes}")
        for d in axes:
            F.normalize_dims(d, self.ndim)  # IndexError out of range
        if not axes or self.ndim == 0:  # nothing to move (the namespace's roll refuses no axes)
            return F.Roll.apply(self, 0, None)
        axes = tuple(operator.index(d) % self.ndim for d in axes)
        return F.Roll.apply(self, tuple(operator.index(s) for s in steps), axes)

    def tile(self, *reps: int) -> Tensor:
        """`reps[i]` copies along each dim (`np.tile`, `torch.tile`); fewer reps than dims are padded with 1s
        in front, more add leading dims. The gradient sums the copies.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 2.0]).tile(2).tolist()
            [1.0, 2.0, 1.0, 2.0]
        """
        if len(reps) == 1 and isinstance(reps[0], (tuple, list)):
            reps = tuple(reps[0])
        reps = tuple(operator.index(r) for r in reps)
        if any(r < 0 for r in reps):
            raise ValueError(f"tile: repetitions {reps} must not be negative")
        return F.Tile.apply(self, (1,) * (self.ndim - len(reps)) + reps)

    def repeat(self, *sizes: int) -> Tensor:
        """PyTorch's `repeat`: `sizes[i]` copies along each dim, at least one size per dim (as `tile`).

        NumPy's `x.repeat(n)` repeats each element instead (PyTorch's
        `repeat_interleave`): this is not it, hence fewer sizes than dims raise.

        Example:
            >>> import torchlight as tl
            >>> tl.tensor([1.0, 2.0]).repeat(2, 2).tolist()
            [[1.0, 2.0, 1.0, 2.0], [1.0, 2.0, 1.0, 2.0]]
        """
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        if len(sizes) < self.ndim:
            raise ValueError(f"repeat: {len(sizes)} sizes {tuple(sizes)} for a tensor of shape {self.shape}: "
                             "give one per dim (PyTorch's repeat is np.tile; NumPy's element-wise repeat is "
                             "not this)")
        return self.tile(*sizes)

    def split(self, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Pieces along `dim`, as PyTorch's `split`: an int is the size of each piece (the last
        may be smaller), a sequence the sizes of the pieces (summing to the dim's size).

        NumPy's `np.split(x, n)` (n equal pieces) is `x.chunk(n)`; its split
        indices are the sizes' running sum. Each piece is a slice (one Gather
        node): the backward of k pieces scatters k gradients of the whole size.

        Example:
            >>> import torchlight as tl
            >>> [p.tolist() for p in tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0]).split(2)]
            [[1.0, 2.0], [3.0, 4.0], [5.0]]
        """
        axis = _split_axis("split", self, dim)
        n = self.shape[axis]
        if hasattr(split_size_or_sections, "__index__"):
            size = operator.index(split_size_or_sections)
            if size <= 0 and not (size == 0 and n == 0):
                raise ValueError(f"split: split_size {size} must be positive (0 only for an empty dim)")
            sizes = [min(size, n - start) for start in range(0, n, size)] if n else [0]
        else:
            sizes = [operator.index(s) for s in split_size_or_sections]
            if any(s < 0 for s in sizes) or sum(sizes) != n:
                raise ValueError(f"split: sizes {sizes} must be non-negative and sum to {n}, the size of dim "
                                 f"{dim} of a tensor of shape {self.shape}")
        lead, start, pieces = (slice(None),) * axis, 0, []
        for size in sizes:
            pieces.append(F.Gather.apply(self, lead + (slice(start, start + size),)))
            start += size
        return tuple(pieces)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """`chunks` pieces along `dim` as PyTorch's `chunk`: each of size ceil(n / chunks), the last
        smaller, so there may be fewer than `chunks` (`np.array_split` balances the sizes instead).

        Example:
            >>> import torchlight as tl
            >>> [p.tolist() for p in tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0]).chunk(4)]
            [[1.0, 2.0], [3.0, 4.0], [5.0]]
        """
        axis = _split_axis("chunk", self, dim)
        chunks = operator.index(chunks)
        if chunks <= 0:
            raise ValueError(f"chunk: chunks must be positive, not {chunks}")
        n = self.shape[axis]
        if n == 0:
            return self.split([0] * chunks, axis)
        return self.split(-(-n // chunks), axis)

    def softmax(self, dim: int = -1) -> Tensor:
        """exp(x) / sum(exp(x)) along `dim`; a floating-point input only (as PyTorch, and logsumexp)."""
        _check_floating("softmax", self)
        return F.Softmax.apply(self, _one_dim("softmax", self, dim))

    def log_softmax(self, dim: int = -1) -> Tensor:
        """x - logsumexp(x) along `dim`; a floating-point input only."""
        _check_floating("log_softmax", self)
        return F.LogSoftmax.apply(self, _one_dim("log_softmax", self, dim))

    def mse_loss(self, target: Any) -> Tensor:
        """Mean of the squared differences to `target`."""
        target = self._lift(target)
        if target.shape != self.shape:
            raise ValueError(f"mse_loss: input shape {self.shape} and target shape {target.shape} differ")
        diff = self - target
        return (diff * diff).mean()


def _floating(x: Tensor) -> Tensor:
    """`x`, or an integer or boolean `x` cast to the default float: what mean, var and std reduce
    (NumPy's rule; the namespace's `var` refuses integers on array_api_strict and torch)."""
    return x if x.backend.is_floating(x.dtype) else x.astype(x.backend.default_float(x.device))


def _clamp_bound(x: Tensor, bound: Any, below: bool) -> Any:
    """A bound of `x.clamp` (the lower one when `below`) as Clamp takes it: None, a number, or a Tensor.

    A number that `x * bound` would promote (a float bound of an integer x, an
    int of a boolean x) goes in as a Tensor, so the result promotes alike; a
    NumPy float counts as the float it is. A Python int beyond an integer x's
    range clips nothing on one side (a lower bound below it, an upper one
    above it) and is dropped, as NumPy 2's clip (`uint8_x.clamp(-1, 5)`); on
    the other side it is NumPy's OverflowError (from `_lift`).
    """
    if bound is None:
        return None
    if isinstance(bound, float):
        bound = float(bound)  # np.float64: as x * it
    elif type(bound) is int and not x.backend.is_floating(x.dtype) and not x.backend.xp.isdtype(x.dtype, "bool") \
            and _int_side(x.backend, x.dtype, bound) == (-1 if below else 1):
        return None
    lifted = x._lift(bound)
    return bound if isinstance(bound, (int, float)) and lifted.dtype == x.dtype else lifted


def _check_floating(op: str, x: Tensor) -> None:
    """A TypeError unless `x` is floating: an integer x - max wraps around (uint8: 0 - 1 = 255)."""
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: the input must have a floating-point dtype, not {x.dtype}")


def _rebuild(cls: type, backend: Backend, data: Any, requires_grad: bool) -> Tensor:
    """A leaf of class `cls` (Tensor, Parameter, ...) around `data`: what pickling and copying make."""
    t = object.__new__(cls)  # (not cls(...): a subclass's __init__ may take other arguments)
    Tensor.__init__(t, data, backend)
    t.requires_grad = requires_grad
    return t


def _split_axis(op: str, x: Tensor, dim: Any) -> int:
    """`dim` of `split`/`chunk` as a non-negative axis; a 0-d tensor has none to split (as PyTorch)."""
    if x.ndim == 0:
        raise ValueError(f"{op}: a 0-d tensor cannot be split; it needs at least one dimension")
    return _one_dim(op, x, dim)


def _one_dim(op: str, x: Tensor, dim: Any) -> int:
    """The one `dim` of an op along a single dimension, as a non-negative axis (0 for a 0-d
    tensor, which takes 0 and -1); IndexError out of range. A sequence is a TypeError (as
    PyTorch): taking its first entry would silently work along one dim of several."""
    if not hasattr(dim, "__index__"):
        raise TypeError(f"{op}: dim must be one int, not {dim!r} (it works along one dimension)")
    return (F.normalize_dims(dim, x.ndim) or (0,))[0]


def _extreme_dims(op: str, x: Tensor, dim: Any) -> tuple[int, ...]:
    """`dim` normalized for max/min; a ValueError when one of them is empty (no identity).

    An empty tensor reduced over non-empty dims is fine: `zeros(2, 0).max(0)` has shape (0,).
    """
    dims = F.normalize_dims(dim, x.ndim)
    empty = next((d for d in dims if x.shape[d] == 0), None)
    if empty is not None:
        raise ValueError(f"{op}: the tensor of shape {x.shape} is empty along dim {empty} ({op} has no identity)")
    return dims


def _norm_order(p: Any) -> float:
    """`norm`'s p as a float: "fro" is 2; anything but a positive number (or -inf) is a ValueError."""
    if p == "fro":
        return 2.0
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not (p > 0 or p == -math.inf):
        raise ValueError(f"norm: p must be a positive number, math.inf, -math.inf or 'fro', not {p!r} "
                         "(p = 0, a count of nonzeros, and negative p are not supported)")
    return float(p)


_power = _operator(F.Pow)
_function.Tensor = Tensor
_function.check_same_backend = check_same_backend
_function.sum_to = F.sum_to

from torchlight import ops as _ops  # noqa: E402  (the free functions some methods share; ops needs Tensor)
