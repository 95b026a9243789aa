"""Ops that record no graph node, seen while recording: what made a mask, an index, a constant.

A comparison (`x > 0`), `argmax`, a cast to an integer dtype, `detach()`,
an op under `no_grad` or on tensors that need no gradient, a factory
(`tl.arange(n)`, `tl.ones(3)`, `tl.rand(3)`): each makes its Tensor with no
History, so the graph does not say how to make it again. While `fn` is
recorded, `intercepting(watch)` wraps the Tensor's public methods and the
factories of `torchlight.creation` (on the recording thread only; every
other thread, and every call once the recording ends, runs the originals):
each result that comes out without a History is noted in
`watch.derived`, with the call that made it and its arguments. `Recording`
reads that note where an op of the graph reads such a tensor: the call
becomes a step of the program (`replayer`), run again on each call with
that call's values, so a mask or an index follows the new values as in
eager mode, and a random factory draws afresh on every call.

What a call is noted for is only its outcome: the call is rerun, as it
was made, on the registers of its Tensor arguments (the values of this
call), each nested call inside it included. A call that read a tensor's
values into Python (`.item()`) has been refused already (a conversion);
one whose arguments hold an array (a NumPy array: maybe a traced value's
`.data`) or a generator made while `fn` ran (which a replay would not make
again) is refused where it is read.

Example:
    >>> import torchlight as tl
    >>> f = tl.compile(lambda x: tl.where(x > 0, x, 0.0).sum())
    >>> f(tl.tensor([1.0, -2.0, 3.0])), f(tl.tensor([-1.0, 2.0, 3.0]))
    (tensor(4.), tensor(5.))
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from torchlight import backends, creation, grad_mode, random
from torchlight.engine.observe import observation_points
from torchlight.nn import functional
from torchlight.tensor import Tensor

__all__ = ["SLOT", "Derived", "fill", "intercepting", "replayer", "split"]


class Derived(NamedTuple):
    """How a Tensor without History was made: `call(*args, **kwargs)`, its result (or the
    `item`-th of the tuple it returned, or `item(result)`: an array)."""

    call: Callable[..., Any]
    args: tuple
    kwargs: dict[str, Any]
    item: int | Callable[[Any], Any] | None
    order: int  # when it was made, among the graph nodes and the other derived tensors


class _Slot:
    """Where a Tensor stood among a call's arguments (`split`, `fill`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SLOT"


SLOT = _Slot()

# Tensor methods that are not ops: conversions, writes, hooks, backward, pickling, the graph's own
_NOT_OPS = frozenset({
    "__init__", "__repr__", "__str__", "__format__", "__bool__", "__int__", "__float__", "__complex__",
    "__index__", "__len__", "__iter__", "__hash__", "__array__", "__array_namespace__", "__dlpack__",
    "__dlpack_device__", "__setitem__", "__delitem__", "__getstate__", "__setstate__", "__reduce__",
    "__reduce_ex__", "__copy__", "__deepcopy__", "__contains__", "__init_subclass__", "__class_getitem__",
    "__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__sizeof__",
    "__subclasshook__", "__new__", "__eq_hash__", "__array_priority__", "__torch_function__",
    "item", "tolist", "numpy", "backward", "register_hook", "register_post_accumulate_grad_hook",
    "retain_grad", "requires_grad_", "size", "dim", "numel", "element_size", "nelement", "is_floating_point",
    "is_complex", "data_ptr", "storage_offset", "stride", "is_contiguous", "get_device", "type",
    "share_memory_", "pin_memory", "untyped_storage", "storage",
})


_METHODS: list[tuple[type, str]] = []  # `_tensor_methods`, worked out once
_SITES: dict[Any, tuple[int, list]] = {}  # `_sites` per list of functions: (modules seen, the sites)


def _tensor_methods() -> list[tuple[type, str]]:
    """(class, name) of every public op method of Tensor, each on the class that defines it."""
    if not _METHODS:
        _METHODS.extend(_find_tensor_methods())
    return _METHODS


def _find_tensor_methods() -> list[tuple[type, str]]:
    points = observation_points()
    seen: set[str] = set()
    out = []
    for cls in Tensor.__mro__:
        if cls is object:
            continue
        for name, value in vars(cls).items():
            if name in seen:
                continue
            seen.add(name)
            if isinstance(value, property) and name in _OP_PROPERTIES:
                out.append((cls, name))
                continue
            if not callable(value) or isinstance(value, (staticmethod, classmethod, property, type)):
                continue
            if name in _NOT_OPS or (cls, name) in points:
                continue
            if name.startswith("__i") and name.endswith("__") and name not in ("__invert__",):
                continue  # in-place operators: writes (refused where they happen)
            if (name.startswith("_") and not name.startswith("__")) or (name.endswith("_") and not
                                                                         name.endswith("__")):
                continue  # private helpers, and in-place methods (x.add_)
            out.append((cls, name))
    return out


#: the read-only properties of Tensor that are ops (the others give Python values or graph nodes)
_OP_PROPERTIES = frozenset({"T", "mT", "real", "imag"})

_FACTORIES = ("zeros", "ones", "full", "zeros_like", "ones_like", "arange", "rand", "randn", "linspace",
              "logspace", "eye", "empty", "empty_like", "full_like", "rand_like", "randn_like")


def _sites(functions: list[Any]) -> list[tuple[Any, str, Any]]:
    """(module, name, function) for each of `functions`, wherever a torchlight module binds it
    (looked for again when a module was imported since)."""
    key = tuple(id(f) for f in functions)
    cached = _SITES.get(key)
    if cached is not None and cached[0] == len(sys.modules) and all(
            getattr(module, name, None) is f for module, name, f in cached[1]):
        return cached[1]
    sites = _find_sites(functions)
    _SITES[key] = (len(sys.modules), sites)
    return sites


def _find_sites(functions: list[Any]) -> list[tuple[Any, str, Any]]:
    originals = {id(f): (f.__name__, f) for f in functions}
    sites = []
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "torchlight" or module_name.startswith("torchlight.")):
            continue
        for name, value in list(vars(module).items()):
            found = originals.get(id(value))
            if found is not None and found[1] is value:
                sites.append((module, name, value))
    return sites


@contextlib.contextmanager
def intercepting(watch: Any) -> Iterator[None]:
    """While the block runs, every op method of Tensor and every factory tells `watch.derived_call`
    (on this thread) of its call and its result, `tl.Generator()` of the generator made, and
    seeding the random streams is refused (`watch.refused`: a replay would not seed them again); the
    originals are back after, also on an error."""
    thread = threading.get_ident()
    patched: list[tuple[Any, str, Any]] = []
    factories = [f for name in _FACTORIES if (f := getattr(creation, name, None)) is not None]
    seeding = [backends.manual_seed, random.set_rng_state]
    try:
        for cls, name in _tensor_methods():
            original = cls.__dict__[name]
            if isinstance(original, property):
                assert original.fget is not None, f"Tensor.{name}: a property without a getter"
                setattr(cls, name, property(_wrapped(original.fget, watch, thread), doc=original.__doc__))
            else:
                setattr(cls, name, _wrapped(original, watch, thread))
            patched.append((cls, name, original))
        refusing = {id(f) for f in seeding}
        checks = {id(f) for f in _CHECKS}
        for module, name, original in _sites(factories + seeding + list(_CHECKS)):  # (one look through the modules)
            if id(original) in refusing:
                setattr(module, name, _refusing(original, watch, thread, f"seeded the random streams ({name})"))
            elif id(original) in checks:
                setattr(module, name, _checking(original, watch, thread))
            else:
                setattr(module, name, _wrapped(original, watch, thread))
            patched.append((module, name, original))
        generator = random.Generator
        for name in ("manual_seed", "set_state"):
            original = generator.__dict__[name]
            setattr(generator, name, _seeding_generator(original, watch, thread, name))
            patched.append((generator, name, original))
        init = generator.__dict__["__init__"]
        generator.__init__ = _made(init, watch, thread)  # type: ignore[method-assign]
        patched.append((generator, "__init__", init))
        yield
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def _wrapped(original: Callable[..., Any], watch: Any, thread: int) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() != thread:
            return original(*args, **kwargs)
        generator = kwargs.get("generator") if kwargs else None
        if isinstance(generator, np.random.Generator):
            watch.generator_used(generator)  # (before it draws: the recording puts its state back)
        out = original(*args, **kwargs)
        watch.derived_call(original, args, kwargs, out)
        return out

    call.__name__ = getattr(original, "__name__", "call")
    call.__qualname__ = getattr(original, "__qualname__", call.__name__)
    call.__doc__ = getattr(original, "__doc__", None)
    call.__wrapped__ = original  # type: ignore[attr-defined]
    return call


def _label_index(labels: Any) -> Any:
    """The index array of checked class labels (`nn.functional._Labels`), on a call whose labels
    ignore none (the path the program recorded)."""
    if labels.ignored is not None:
        raise ValueError("compile: a label equal to ignore_index reached a program recorded for labels without "
                         "one (an eager call takes another path there): call the function without compile")
    return labels.index


#: checks of integer labels or indices, replayed on each call so that a later call's bad index raises as in
#: eager mode instead of being read (a -1 as the last row), and the index arrays they make become registers:
#: each check -> how to find the array in its result and to give the result back with another Tensor of it
_CHECKS: dict[Any, tuple[Any, Callable[[Any, Tensor], Any]]] = {
    # embedding's indices, nll_loss's labels: (the tensor checked, where it equals ignore_index)
    functional._class_labels: (0, lambda out, alias: (alias, None)),
    # nll_loss's and cross_entropy's labels as an index along the class axis
    functional._class_targets: (_label_index, lambda out, alias: type(out)(alias.data, out.axis, out.shape, None)),
}


def _ignores_nothing(out: Any) -> bool:
    return (out[1] if isinstance(out, tuple) else out.ignored) is None


def _checking(original: Callable[..., Any], watch: Any, thread: int) -> Callable[..., Any]:
    """A check whose result, where it ignores no entry, comes back with its array as a new Tensor
    noted as the check's result: an op that indexes with that array depends on the check."""
    item, rebuild = _CHECKS[original]

    def call(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        if threading.get_ident() == thread and _ignores_nothing(out):
            like = next(a for a in args if isinstance(a, Tensor))
            picked = item(out) if callable(item) else out[item]
            data = picked.data if isinstance(picked, Tensor) else picked
            alias = Tensor._wrap(data, like.backend)
            watch.checked(original, args, kwargs, alias, item)
            out = rebuild(out, alias)
        return out

    call.__wrapped__ = original  # type: ignore[attr-defined]
    return call


def _refusing(original: Callable[..., Any], watch: Any, thread: int, what: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == thread:
            watch.refused(what)
        return original(*args, **kwargs)

    call.__wrapped__ = original  # type: ignore[attr-defined]
    return call


def _seeding_generator(original: Callable[..., Any], watch: Any, thread: int, name: str) -> Callable[..., Any]:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == thread and not watch.is_generator_made_here(self):
            watch.refused(f"seeded a generator from outside it (Generator.{name})")
        return original(self, *args, **kwargs)

    call.__wrapped__ = original  # type: ignore[attr-defined]
    return call


def _made(init: Callable[..., Any], watch: Any, thread: int) -> Callable[..., Any]:
    def call(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if threading.get_ident() == thread:
            watch.generator_made(self)

    call.__wrapped__ = init  # type: ignore[attr-defined]
    return call


def note(derived: dict[int, Any], call: Callable[..., Any], args: tuple, kwargs: dict[str, Any], out: Any,
         is_new: Callable[[Any], bool], order: int) -> None:
    """Note in `derived` (id -> (the Tensor, Derived)) each Tensor of `out` made without a History.
    A call inside another is noted first and replaced by the outer one (the call the user made).
    The Tensor is held until the recording ends: an op may keep its array alone (an index)."""
    if isinstance(out, Tensor):
        if out.history is None and is_new(out):
            derived[id(out)] = (out, Derived(call, args, kwargs, None, order))
    elif isinstance(out, tuple):
        for k, o in enumerate(out):
            if isinstance(o, Tensor) and o.history is None and is_new(o):
                derived[id(o)] = (o, Derived(call, args, kwargs, k, order))


def split(value: Any) -> tuple[Any, list[Tensor]]:
    """`value` (arguments: tuples, lists, dicts of them) with each Tensor replaced by `SLOT`, and the
    Tensors in order."""
    tensors: list[Tensor] = []

    def walk(v: Any) -> Any:
        if isinstance(v, Tensor):
            tensors.append(v)
            return SLOT
        if type(v) in (tuple, list):
            return type(v)(walk(x) for x in v)
        if type(v) is dict:
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(value), tensors


def fill(template: Any, values: Iterator[Any]) -> Any:
    """`template` with each `SLOT` replaced by the next of `values` (the inverse of `split`)."""
    if template is SLOT:
        return next(values)
    if type(template) in (tuple, list):
        return type(template)(fill(x, values) for x in template)
    if type(template) is dict:
        return {k: fill(x, values) for k, x in template.items()}
    return template


#: calls whose result's shape depends on the values (refused: a program's shapes are fixed)
VALUE_SHAPED = frozenset({"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "bincount",
                          "repeat_interleave"})


def replayer(d: Derived, template: tuple, shape: tuple[int, ...]) -> Callable[..., Any]:
    """A step's forward for a derived tensor: the call again, on the Tensors the step is given (the
    registers of this call's values, and the tensors from outside fn), with grad mode off. A
    result of another shape than `shape` (the recording's) raises: the program's later steps, and
    its backward, were recorded for that one."""
    call, index = d.call, d.item
    state = grad_mode._state
    name = getattr(call, "__name__", "a call")

    def forward(_: Any, *tensors: Any) -> Any:
        args, kwargs = fill(template, iter(tensors))
        previous, state.enabled = state.enabled, False
        try:
            out = call(*args, **kwargs)
        finally:
            state.enabled = previous
        if index is not None:
            out = index(out) if callable(index) else out[index]
        data = out.data if isinstance(out, Tensor) else out
        if data.shape != shape:
            raise RuntimeError(f"compile: {name} gave a result of shape {tuple(data.shape)} on this call, where "
                               f"it gave {tuple(shape)} when recorded (its shape depends on the values): call "
                               f"the function without compile")
        return data

    forward.__name__ = getattr(call, "__name__", "derived")
    return forward
