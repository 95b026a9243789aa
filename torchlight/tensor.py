"""`Tensor`: a backend array plus the bookkeeping reverse mode needs.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([2.0, 3.0], requires_grad=True)
    >>> y = (x ** 2).sum()
    >>> y.backward()
    >>> x.grad.tolist()
    [4.0, 6.0]

The class itself holds construction, properties, conversions and the
engine's hooks; its ops come from `torchlight.ops`, one method mixin per
category (`ArithmeticMethods`, `ReductionsMethods`, ...), each beside the
Functions its methods call.
"""

from __future__ import annotations

import copy
import math
import operator
import sys
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from torchlight import grad_mode
from torchlight.backends import Backend
from torchlight.backends.checks import check_same_backend
from torchlight.backends.devices import Device
from torchlight.engine import WRITES, History, Variable, run_backward
from torchlight.engine.hooks import POST_ACCUMULATE_HOOKS, TENSOR_HOOKS, RemovableHandle, add_hook
from torchlight.engine.observe import observation_point
from torchlight.ops.activations import ActivationsMethods
from torchlight.ops.arithmetic import ArithmeticMethods
from torchlight.ops.bitwise import BitwiseMethods
from torchlight.ops.common import _int_side
from torchlight.ops.comparisons import ComparisonsMethods
from torchlight.ops.complex_numbers import ComplexNumbersMethods
from torchlight.ops.copies import Clone, CopiesMethods
from torchlight.ops.decompositions import DecompositionsMethods
from torchlight.ops.einsum import EinsumMethods
from torchlight.ops.elementwise import ElementwiseMethods
from torchlight.ops.fft import FFTMethods
from torchlight.ops.indexing import IndexingMethods
from torchlight.ops.linear_algebra import LinearAlgebraMethods
from torchlight.ops.logical import LogicalMethods
from torchlight.ops.norms import NormsMethods
from torchlight.ops.reductions import ReductionsMethods
from torchlight.ops.scalar_map import ScalarMapMethods
from torchlight.ops.searching import SearchingMethods
from torchlight.ops.sets import SetsMethods
from torchlight.ops.shapes import ShapesMethods
from torchlight.ops.sorting import SortingMethods
from torchlight.ops.special import SpecialMethods
from torchlight.ops.special_gamma import SpecialGammaMethods
from torchlight.ops.trigonometric import TrigonometricMethods
from torchlight.ops.writes import WritesMethods

__all__ = ["Tensor", "check_same_backend"]

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


class Tensor(WritesMethods, ArithmeticMethods, ComparisonsMethods, ElementwiseMethods, ActivationsMethods,
             TrigonometricMethods, ReductionsMethods, ShapesMethods, IndexingMethods, LinearAlgebraMethods,
             CopiesMethods, ScalarMapMethods, LogicalMethods, BitwiseMethods, ComplexNumbersMethods,
             SortingMethods, SearchingMethods, SetsMethods, DecompositionsMethods, NormsMethods, FFTMethods,
             EinsumMethods, SpecialMethods, SpecialGammaMethods,
             Variable):  # (Variable last: the mixins' hooks come before its abstract ones)
    """An array of a backend, its gradient, and the History that made it.

    Make tensors with `tl.tensor(...)` or the factories; ops return new
    Tensors, and those made from a tensor that requires grad record the
    History that `backward` walks.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = (x * x).sum()
        >>> x, y
        (tensor([1., 2., 3.], requires_grad=True), tensor(14., grad_fn=<Sum>))
        >>> x.shape, str(x.dtype), x.is_leaf, y.is_leaf
        ((3,), 'float64', True, False)
        >>> y.backward()
        >>> x.grad
        tensor([2., 4., 6.])
    """

    # `_replaced_at` is set only once the tensor is changed in place (`_replace_data`, `_write`), and
    # `_versions` only by a recorded write (x[key] = v, x += y in the graph): the old values it kept
    __slots__ = ("data", "backend", "requires_grad", "history", "_grad", "_retains_grad", "_replaced_at",
                 "_versions", "__weakref__")
    _is_tensor = True
    __array_priority__ = 1000
    # True on a subclass that stands for something other than its array (vmap's BatchedTensor): a
    # fused op of several steps (F.linear) is computed by its parts, the ops such a subclass overrides
    _by_parts = False
    plain_data = True  # (a backward may compute on `data` alone: see Function.raw_backward)

    def __init__(self, data: Any, backend: Backend, requires_grad: bool = False) -> None:
        self.data = data
        self.backend = backend
        self.requires_grad = False
        self.history: History | None = None
        self._grad: Tensor | None = None
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
    def device(self) -> Device:
        """Where the tensor lives: its backend and the library's device (a `Device`; pass it as
        `device=` to `tl.tensor`, the factories or `torchlight.array_api`)."""
        return self.backend.device_object(self.backend.device_of(self.data))

    @property
    def _device(self) -> Any:
        """The library's own device object (what the backend's functions take as `device=`)."""
        return self.backend.device_of(self.data)

    @property
    def size(self) -> Size:
        """The number of elements (the array API's `x.size`), an int that PyTorch's `x.size()` and
        `x.size(dim)` call for the shape or one of its lengths: both faces read it."""
        return Size(math.prod(self.data.shape), tuple(self.data.shape))

    def numel(self) -> int:
        """The number of elements (PyTorch's numel)."""
        return math.prod(self.data.shape)

    def dim(self) -> int:
        """The number of dimensions (PyTorch's dim; `ndim`)."""
        return self.data.ndim

    @property
    def grad_fn(self) -> History | None:
        """The History of the op that made this tensor, None for a leaf (PyTorch's grad_fn)."""
        return self.history

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
            value = Tensor(self.backend.asarray(value, dtype=self.dtype, device=self._device), self.backend)
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
    def parents(self) -> tuple[Variable, ...]:
        """The parents that want a gradient, as Variables (this tensor's, or a stand-in's)."""
        history = self.history
        return () if history is None else history.variable_parents()

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
        return self.history.chain_rule(d_output, retain_graph)  # type: ignore[union-attr]  # (a non-leaf's)

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
            d = Clone.apply(d)
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
        """The gradient that starts backward: a number or a root-shaped array/Tensor.

        As PyTorch: a complex root needs a complex gradient given explicitly (a real number, the
        implicit 1.0 included, is refused: the loss must be real), and a complex gradient for a
        real root is refused rather than cast (which would drop its imaginary part).
        """
        complex_root = self.backend.is_complex(self.dtype)
        if isinstance(deriv, (int, float)):
            if complex_root:
                raise RuntimeError(
                    f"backward: grad can be implicitly created only for real scalar outputs; this tensor is "
                    f"{self.dtype}: reduce it to a real loss first (.abs(), .real), or pass a complex gradient"
                )
            return self._full(self.shape, deriv)
        if isinstance(deriv, complex):
            deriv = self.backend.xp.full(self.shape, deriv, device=self._device)
        if not isinstance(deriv, Tensor):
            like = self.dtype if complex_root or not _is_complex_data(deriv) else None
            deriv = Tensor._wrap(self.backend.asarray(deriv, dtype=like, device=self._device), self.backend)
        if deriv.shape != self.shape:
            raise ValueError(
                f"backward: the gradient has shape {deriv.shape} but the tensor has shape {self.shape}"
            )
        check_same_backend("backward", self, deriv)
        if not complex_root and self.backend.is_complex(deriv.dtype):
            raise RuntimeError(f"backward: the gradient is complex ({deriv.dtype}) but the tensor is real "
                               f"({self.dtype}): a real output's gradient must be real")
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

    def register_hook(self, hook: Any) -> RemovableHandle:
        """Call `hook(grad)` with each gradient computed for this tensor in a backward; what it returns
        (if not None) replaces the gradient: what this tensor's `.grad` gets (a leaf, or after
        `retain_grad()`) and what flows on to its inputs. Hooks run in the order registered, also
        under `create_graph` (the gradient then has a History). Returns a handle; `.remove()` it.

        Example:
            >>> import torchlight as tl
            >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
            >>> y = x * 3.0
            >>> h = y.register_hook(lambda g: g * 0.0 + 1.0)   # as if d loss / dy were ones
            >>> (y ** 2).sum().backward()
            >>> x.grad.tolist()
            [3.0, 3.0]
        """
        if not self.requires_grad:
            raise RuntimeError("register_hook: cannot register a hook on a tensor that does not require grad")
        return add_hook(TENSOR_HOOKS, self.graph_node, hook)

    def register_post_accumulate_grad_hook(self, hook: Any) -> RemovableHandle:
        """Call `hook(tensor)` on this leaf once a backward has added into its `.grad` (an optimizer
        step per parameter, say). Returns a handle; `.remove()` it.

        Example:
            >>> import torchlight as tl
            >>> w = tl.tensor([1.0], requires_grad=True)
            >>> seen = []
            >>> h = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
            >>> (w * 2.0).sum().backward()
            >>> seen
            [[2.0]]
        """
        if self.history is not None:
            raise RuntimeError("register_post_accumulate_grad_hook: post accumulate grad hooks cannot be "
                               "registered on non-leaf tensors (use register_hook)")
        if not self.requires_grad:
            raise RuntimeError("register_post_accumulate_grad_hook: cannot register a hook on a tensor that "
                               "does not require grad")
        return add_hook(POST_ACCUMULATE_HOOKS, self, hook)

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
        WRITES[0] += 1
        self._replaced_at = WRITES[0]
        self.data = array

    def _snapshot(self) -> Tensor:
        """This tensor's present version as a Tensor of its own (its array, History and
        `requires_grad`): what a recorded write computes from and keeps for the backwards that saved
        this tensor before it (`Context.saved_tensors`)."""
        old = Tensor._wrap(self.data, self.backend)
        old.requires_grad = self.requires_grad
        old.history = self.history
        return old

    def _may_be_saved(self) -> bool:
        """Whether a recorded op may hold this version of the tensor (and so may have saved it).

        A leaf: always (its consumers record the tensor itself). A non-leaf: its
        consumers record its History, so one held by this tensor alone (the
        reference count a lone History has) has none, and a write need not
        keep its values: a loop writing into one tensor keeps no array per step.
        """
        if self.history is None or _GETREFCOUNT is None:
            return True
        return _history_references(self) > _LONE_HISTORY

    def _write(self, new: Tensor, old: Tensor, keep: bool) -> None:
        """Become `new` (its array and History), in place: a recorded write of this tensor.

        `old` is `_snapshot()` taken before the write; with `keep` it is kept in
        `_versions`, stamped, so that a backward whose forward saved this tensor
        reads it as it was (else a `None` there makes such a backward raise). A
        replacement under no_grad since the last recorded write is noted first
        (its stamp is `_replaced_at`), so each backward finds the first change
        after its forward.
        """
        versions: list[tuple[int, Tensor | None]] | None = getattr(self, "_versions", None)
        if versions is None:
            versions = []
            self._versions = versions
        changed = getattr(self, "_replaced_at", 0)
        if changed and (not versions or versions[-1][0] < changed):
            _note_version(versions, changed, None)
        WRITES[0] += 1
        self._replaced_at = WRITES[0]
        _note_version(versions, WRITES[0], old if keep else None)
        history = new.history
        if history is not None:
            history._owner = weakref.ref(self)  # the new version's tensor is this one (History.inputs)
            if self._retains_grad:  # .grad follows the tensor to its new version
                if self.history is not None:
                    self.history.retains_grad = False
                history.retains_grad = True
        self.data = new.data
        self.history = history
        self.requires_grad = new.requires_grad

    def detach(self) -> Tensor:
        """The same data (no copy) without history or grad."""
        return Tensor._wrap(self.data, self.backend)

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
                f"implicit conversion of a {self.backend.name!r} tensor on {self._device} to NumPy: "
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

    def __dlpack__(self, /, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        """Export for `from_dlpack`; refused for a tensor that requires grad (as `__array__`, and PyTorch)."""
        if self.requires_grad:
            raise RuntimeError(LEAVES_GRAPH.format(what="DLPack export"))
        kwargs = {k: v for k, v in (("stream", stream), ("max_version", max_version), ("dl_device", dl_device),
                                    ("copy", copy)) if v is not None}
        return self._exported().__dlpack__(**kwargs)

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The array API namespace of Tensors, `torchlight.array_api` (what
        `array_api_compat.array_namespace(t)` returns); `api_version` None,
        "2023.12" or "2024.12"."""
        namespace = sys.modules["torchlight.array_api"]  # (a layer above; torchlight's __init__ imports it)
        if api_version is not None and api_version not in namespace.SUPPORTED_VERSIONS:
            raise ValueError(f"__array_namespace__: api_version {api_version!r} is not supported "
                             f"(torchlight.array_api serves {', '.join(namespace.SUPPORTED_VERSIONS)})")
        return namespace

    def to_device(self, device: Any, /, *, stream: Any = None) -> Tensor:
        """This tensor on `device` (a `Device`, as another tensor's `.device`, naming its backend;
        or a device of this tensor's backend), differentiable: the standard's spelling of `.to`."""
        if stream is not None:
            raise ValueError("to_device: stream is not supported (pass None)")
        if isinstance(device, Device):
            return self.to(backend=device.backend, device=device.raw)
        return self.to(device=device)

    def __dlpack_device__(self) -> Any:
        return self._exported().__dlpack_device__()

    def __repr__(self) -> str:
        if self.backend.library_repr:
            body = repr(self.data)
        else:
            body = np.array2string(self.numpy(), separator=", ", prefix="tensor(")
        extras = []
        if self.backend.named_in_repr:
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

    def __complex__(self) -> complex:
        return complex(self.item())

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
        device = self._device if backend.multi_device else None
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
            self.backend.xp.full(tuple(shape), value, dtype=self.dtype, device=self._device), self.backend
        )


def _note_version(versions: list, stamp: int, snapshot: Tensor | None) -> None:
    """Append `(stamp, snapshot)` to a version chain; a run of `None`s keeps only its last (a backward
    that finds any of them raises, and finds the last as surely)."""
    if snapshot is None and versions and versions[-1][1] is None:
        versions[-1] = (stamp, None)
    else:
        versions.append((stamp, snapshot))


_GETREFCOUNT = getattr(sys, "getrefcount", None)  # (CPython's; elsewhere every version is kept)


def _history_references(t: Tensor) -> int:
    """How many references the History of `t` has (the count `_LONE_HISTORY` calibrates)."""
    history = t.history
    return _GETREFCOUNT(history)  # type: ignore[misc]


def _lone_history() -> int:
    """`_history_references` of a tensor whose History nothing else holds, measured once."""
    if _GETREFCOUNT is None:
        return 0
    probe = Tensor._wrap(None, None)  # type: ignore[arg-type]
    probe.history = History()
    return _history_references(probe)
class Size(int):
    """`Tensor.size`: the number of elements, as an int, which called gives the shape (`x.size()`)
    or the length of one dimension (`x.size(-1)`), as PyTorch's method does.

    Example:
        >>> import torchlight as tl
        >>> x = tl.zeros(2, 3)
        >>> x.size, x.size(), x.size(-1)
        (6, (2, 3), 3)
    """

    shape: tuple[int, ...]

    def __new__(cls, count: int, shape: tuple[int, ...]) -> Size:
        out = super().__new__(cls, count)
        out.shape = shape
        return out

    def __call__(self, dim: int | None = None) -> Any:
        if dim is None:
            return self.shape
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"size: dim must be an int, got {type(dim).__name__}")
        if not -len(self.shape) <= dim < len(self.shape):
            raise IndexError(f"size: dimension {dim} is out of range for a tensor of {len(self.shape)} dimension(s)")
        return self.shape[dim]


def _is_complex_data(data: Any) -> bool:
    """Whether a seed given as an array or Python data (not a Tensor) holds complex numbers."""
    kind = getattr(getattr(data, "dtype", None), "kind", None)
    if kind is not None:
        return kind == "c"
    dtype = getattr(data, "dtype", None)
    if dtype is not None:  # another library's dtype
        return "complex" in str(dtype)
    return np.iscomplexobj(np.asarray(data))


def _rebuild(cls: type, backend: Backend, data: Any, requires_grad: bool) -> Tensor:
    """A leaf of class `cls` (Tensor, Parameter, ...) around `data`: what pickling and copying make."""
    t: Tensor = object.__new__(cls)  # (not cls(...): a subclass's __init__ may take other arguments)
    Tensor.__init__(t, data, backend)
    t.requires_grad = requires_grad
    return t


def is_number_constant(t: Tensor) -> bool:
    """Whether `t` is one of the cached constants a Python number in an op is lifted to (made from
    the number alone, so a recording may keep it)."""
    return any(c is t for c in _NUMBERS.values())


_LONE_HISTORY = _lone_history()


# What a recorder (`tl.compile`) must see of a call: tensors made by no recorded op, in-place
# writes and backwards (a replay would not redo them), conversions to Python (it would reuse them)
observation_point(Tensor, "_wrap", "tensor", "made a tensor")
observation_point(Tensor, "__init__", "tensor", "made a tensor")
observation_point(Tensor, "_replace_data", "refused", "replaced a tensor's values in place (an optimizer step, "
                  "w -= ..., zero_grad_, a running statistic)")
observation_point(Tensor, "_write", "refused", "wrote into a tensor in the graph (x[key] = v, x += y)")
observation_point(Tensor, "backward", "refused", "ran a backward (loss.backward() belongs after the call)")
observation_point(Tensor, "register_hook", "refused", "registered a tensor hook (a replay would not run it: "
                  "register hooks on the arguments, outside the call)")
observation_point(Tensor, "register_post_accumulate_grad_hook", "refused", "registered a post-accumulate-grad "
                  "hook (register it on the parameter, outside the call)")
for _name in ("item", "tolist", "numpy", "__array__", "__bool__", "__float__", "__int__", "__index__", "__format__"):
    observation_point(Tensor, _name, "conversion", "converted a tensor to a Python value")
