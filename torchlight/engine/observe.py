"""Observation points: what a recorder must see of a call that leaves no trace in the graph.

`tl.compile` records a call by its graph, but some of what a function does
leaves none: a tensor made by no recorded op (a factory, `tl.tensor`), the
graph nodes it makes, the Modules it calls (a program is for their training
modes), an in-place write or a backward (which a replay would not do again),
a conversion of a tensor to a Python value (which a replay would reuse). The
classes that do these declare the methods where they happen, each with
`observation_point` beside its definition; `observing(observer)` makes every
declared method tell `observer`, on the observing thread only, while it
lasts. Outside it the methods are the classes' own: the hook costs nothing
while nobody observes (the methods are swapped in and out, not checked on
each call), which keeps the eager hot path as it is.

Example:
    >>> import torchlight as tl
    >>> from torchlight.engine.observe import Observer, observing
    >>> class Count(Observer):
    ...     made = 0
    ...     def tensor_made(self, t):
    ...         self.made += 1
    >>> seen = Count()
    >>> with observing(seen):
    ...     _ = tl.tensor([1.0]) * 2.0
    >>> seen.made >= 2
    True
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["ACTIVE", "KINDS", "Observer", "node_made", "observation_point", "observation_points", "observing"]

#: what a point reports: a tensor made (after the method), a graph node made (after), a module
#: called (before), an in-place write or a backward (before: `refused`), a conversion (before)
KINDS = ("tensor", "node", "module", "refused", "conversion")


class Observer:
    """The callbacks of `observing`, one per kind of point; each does nothing unless overridden.
    `conversion` may raise to refuse the conversion (before it happens)."""

    def tensor_made(self, t: Any) -> None:
        """A Tensor was made (by an op's `_wrap`, or directly)."""

    def node_made(self, node: Any) -> None:
        """A graph node (History) was made."""

    def module_called(self, module: Any) -> None:
        """A Module is about to run its forward."""

    def refused(self, what: str) -> None:
        """Something a replay would not redo is about to happen (`what` says what)."""

    def conversion(self, t: Any, name: str) -> None:
        """Tensor `t` is about to be converted to a Python value by its method `name`."""


_POINTS: dict[tuple[type, str], tuple[str, str]] = {}
#: the observers now active, each with its thread, innermost last (a recording inside a recording)
_ACTIVE: list[tuple[Observer, int]] = []
_ORIGINALS: dict[tuple[type, str], Any] = {}
ACTIVE = _ACTIVE  # (read, never rebound, by the engine's recording: is anyone observing at all?)


def node_made(node: Any) -> None:
    """Tell this thread's observers of a graph node made without a declared point: the engine's own
    History of a recorded op, made without its `__init__` (whose point covers one built by hand)."""
    for observer in _watchers():
        observer.node_made(node)


def observation_point(cls: type, name: str, kind: str, what: str) -> None:
    """Declare `cls.name` (defined on `cls` itself) an observation point of `kind` (one of `KINDS`);
    `what` says what it does, in the words a refusal's message uses."""
    if kind not in KINDS:
        raise ValueError(f"observation_point: kind {kind!r} is not one of {KINDS}")
    if name not in cls.__dict__:
        raise AttributeError(f"observation_point: {cls.__name__} defines no {name!r} of its own")
    if _ACTIVE:
        raise RuntimeError("observation_point: declared while observing")
    _POINTS[cls, name] = (kind, what)


def observation_points() -> dict[tuple[type, str], tuple[str, str]]:
    """Every declared point: (class, method name) -> (kind, what)."""
    return dict(_POINTS)


@contextlib.contextmanager
def observing(observer: Observer) -> Iterator[None]:
    """Every declared point tells `observer` (on this thread) until the block ends. Observers nest
    (a compiled function recorded inside another's recording): each is told, innermost first. The
    classes' own methods are back once the outermost ends, also on an error."""
    if not _ACTIVE:
        _ORIGINALS.update({(cls, name): cls.__dict__[name] for cls, name in _POINTS})
        for (cls, name), (kind, what) in _POINTS.items():
            setattr(cls, name, _observed(_ORIGINALS[cls, name], kind, name, what))
    _ACTIVE.append((observer, threading.get_ident()))
    try:
        yield
    finally:
        _ACTIVE.remove((observer, threading.get_ident()))
        if not _ACTIVE:
            for (cls, name), original in _ORIGINALS.items():
                setattr(cls, name, original)
            _ORIGINALS.clear()


def _watchers() -> list[Observer]:
    """The active observers of this thread, innermost first."""
    me = threading.get_ident()
    return [observer for observer, thread in reversed(_ACTIVE) if thread == me]


def _observed(original: Any, kind: str, name: str, what: str) -> Any:
    """`original` (a function or a classmethod) wrapped to tell this thread's observers of each call."""
    is_class_method = isinstance(original, classmethod)
    function: Callable[..., Any] = original.__func__ if is_class_method else original

    if kind == "tensor":
        def wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
            out = function(first, *args, **kwargs)
            for observer in _watchers():
                observer.tensor_made(out if is_class_method else first)
            return out
    elif kind == "node":
        def wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
            out = function(first, *args, **kwargs)
            for observer in _watchers():
                observer.node_made(first)
            return out
    else:
        def wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
            for observer in _watchers():
                if kind == "module":
                    observer.module_called(first)
                elif kind == "refused":
                    observer.refused(what)
                else:
                    observer.conversion(first, name)
            return function(first, *args, **kwargs)

    functools.update_wrapper(wrapper, function)
    return classmethod(wrapper) if is_class_method else wrapper
