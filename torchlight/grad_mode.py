"""Grad mode: whether ops record history. Thread-local, like PyTorch's.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([1.0], requires_grad=True)
    >>> with tl.no_grad():
    ...     (x * 2).requires_grad
    False
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Generator
from typing import Any


class _State(threading.local):
    """Per-thread grad mode. The class attribute is every thread's default, so
    reading it never goes through getattr's AttributeError fallback (about
    1 us, more than a small NumPy op, paid by every op of a thread that had
    never set the mode)."""

    enabled = True
    # Whether the backward running on this thread keeps its graph (set by the engine once per walk):
    # a Function that frees its saved arrays as it goes (a compiled program's) must not when it does.
    retain_graph = True
    # Whether the backward running on this thread is the first pass of a forward-mode product (func.jvp's
    # double vjp): a Function with its own `jvp` then records its backward as the transpose of that jvp.
    transposing = False

    def __init__(self) -> None:
        self.previous: list[bool] = []  # the modes that `with no_grad()/enable_grad()` will restore
        self.quiet_context: Any = None  # this thread's reusable no_grad Context (see Function.apply)


_state = _State()


def is_grad_enabled() -> bool:
    """Whether ops on this thread record history for backward.

    Example:
        >>> import torchlight as tl
        >>> tl.is_grad_enabled()
        True
        >>> with tl.no_grad():
        ...     tl.is_grad_enabled()
        False
    """
    return _state.enabled


class _GradMode:
    """A context manager and decorator that sets grad mode, then restores it."""

    mode = True

    def __new__(cls, fn: Callable | None = None) -> Any:
        # `@tl.no_grad` (no parentheses) decorates `fn` directly, as in PyTorch
        self = super().__new__(cls)
        return self if fn is None else self(fn)

    # The mode to restore lives on a per-thread stack, not on the instance: one
    # instance may be entered again while active (nested) or from two threads.
    def __enter__(self) -> None:
        _state.previous.append(_state.enabled)
        _state.enabled = self.mode

    def __exit__(self, *exc: Any) -> None:
        _state.enabled = _state.previous.pop()

    def __call__(self, fn: Callable) -> Callable:
        mode = self.mode
        if inspect.isgeneratorfunction(fn):  # the mode holds in each step, not just while making the generator

            @functools.wraps(fn)
            def generator(*args: Any, **kwargs: Any) -> Any:
                return _steps_in_mode(fn(*args, **kwargs), mode)

            return generator

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            previous = is_grad_enabled()
            _state.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                _state.enabled = previous

        return wrapper


def _steps_in_mode(gen: Generator, mode: bool) -> Generator:
    """`gen`, each step run with grad mode `mode` and the caller's mode restored between steps."""
    step: Callable[[Any], Any]  # gen.send, or gen.throw with the exception to throw in
    value: Any
    step, value = gen.send, None
    while True:
        previous = _state.enabled
        _state.enabled = mode
        try:
            item = step(value)
        except StopIteration as stop:
            return stop.value
        finally:
            _state.enabled = previous
        try:
            value = yield item
            step = gen.send
        except GeneratorExit:
            previous = _state.enabled
            _state.enabled = mode
            try:
                gen.close()
            finally:
                _state.enabled = previous
            raise
        except BaseException as exc:  # thrown in by the caller: thrown on into gen, in mode
            step, value = gen.throw, exc


class no_grad(_GradMode):
    """Ops inside record no history: `with tl.no_grad(): ...` or `@tl.no_grad()`.

    Example:
        >>> import torchlight as tl
        >>> w = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> with tl.no_grad():
        ...     y = w * 2
        >>> y.requires_grad
        False
        >>> @tl.no_grad()
        ... def predict(x):
        ...     return x * w
        >>> predict(tl.tensor([3.0, 4.0])).requires_grad
        False
    """

    mode = False


class enable_grad(_GradMode):
    """Ops inside record history again, even within `no_grad`.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0], requires_grad=True)
        >>> with tl.no_grad():
        ...     with tl.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    mode = True


class set_grad_enabled(_GradMode):
    """Grad mode on or off, as PyTorch's: at once when called, or for a block or a function.

    `tl.set_grad_enabled(False)` switches this thread's mode straight away;
    `with tl.set_grad_enabled(train): ...` restores the previous mode after
    the block, and `@tl.set_grad_enabled(False)` sets the mode for each call
    of the function only (decorating leaves the mode as it was).

    Example:
        >>> import torchlight as tl
        >>> with tl.set_grad_enabled(False):
        ...     tl.is_grad_enabled()
        False
        >>> tl.is_grad_enabled()
        True
    """

    previous: bool  # the mode when it was made: a `with` block restores it, a decorator does not change it

    def __new__(cls, mode: bool) -> set_grad_enabled:
        self = object.__new__(cls)
        self.mode = bool(mode)
        self.previous = _state.enabled
        _state.enabled = self.mode
        return self

    def __enter__(self) -> None:
        _state.previous.append(self.previous)
        _state.enabled = self.mode

    def __call__(self, fn: Callable) -> Callable:
        _state.enabled = self.previous  # as a decorator it sets the mode per call, not now
        return super().__call__(fn)
