"""Anomaly mode: find the op whose gradient (or result) first went NaN or infinite.

`with tl.autograd.detect_anomaly():` (or `tl.autograd.set_detect_anomaly(True)`)
makes each recorded op note where the user's code called it (the first
frame outside torchlight: file, line, function and source line), and makes
every backward check each gradient as it is made: a NaN or an infinity
raises a RuntimeError naming the Function and that forward line, before any
`.grad` changes (the walk commits gradients only at its end). With
`check_forward=True` an op whose result has a NaN that its inputs had not
raises at once, in the forward.

Free when off: the recording is a different `_record` swapped into the
engine while the mode is on, and the walk reads one flag per backward.

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([0.0, 1.0], requires_grad=True)
    >>> with tl.autograd.detect_anomaly():
    ...     y = x.sqrt().sum()              # d sqrt(x)/dx is infinite at 0
    ...     try:
    ...         y.backward()
    ...     except RuntimeError as e:
    ...         print(str(e).splitlines()[0])
    anomaly: Sqrt.backward returned inf values in its gradient for input 0
    >>> x.grad is None
    True
"""

from __future__ import annotations

import linecache
import math
import os
import sys
import warnings
from typing import Any

from torchlight.engine import function

__all__ = ["ENABLED", "check_gradients", "detect_anomaly", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
           "set_detect_anomaly"]

#: [mode on, check backward gradients, check forward results]
ENABLED = [False, True, False]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # torchlight/


def is_anomaly_enabled() -> bool:
    """Whether anomaly mode is on.

    Example:
        >>> import torchlight as tl
        >>> tl.autograd.is_anomaly_enabled()
        False
        >>> with tl.autograd.detect_anomaly():
        ...     tl.autograd.is_anomaly_enabled()
        True
    """
    return ENABLED[0]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode checks the gradients of each backward for NaN and infinity.

    Example:
        >>> import torchlight as tl
        >>> with tl.autograd.set_detect_anomaly(True, check_nan=False):  # on, but noting places only
        ...     tl.autograd.is_anomaly_enabled(), tl.autograd.is_anomaly_check_nan_enabled()
        (True, False)
        >>> with tl.autograd.detect_anomaly():
        ...     tl.autograd.is_anomaly_check_nan_enabled()
        True
    """
    return ENABLED[0] and ENABLED[1]


class set_detect_anomaly:  # noqa: N801  (PyTorch's name: a function that also works as a context manager)
    """Turn anomaly mode on or off (`check_nan`: check backward gradients; `check_forward`: check
    each op's result). Called, it sets the mode; used with `with`, the mode is back when the block ends.

    Example:
        >>> import torchlight as tl
        >>> with tl.autograd.set_detect_anomaly(True):
        ...     tl.autograd.is_anomaly_enabled()
        True
        >>> tl.autograd.is_anomaly_enabled()
        False
    """

    def __init__(self, mode: bool, check_nan: bool = True, check_forward: bool = False) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_detect_anomaly: mode must be a bool, got {type(mode).__name__}")
        self._previous = list(ENABLED)
        _set(mode, bool(check_nan), bool(check_forward))

    def __enter__(self) -> set_detect_anomaly:
        return self

    def __exit__(self, *exc: Any) -> None:
        _set(*self._previous)


class detect_anomaly:  # noqa: N801  (PyTorch's name)
    """Anomaly mode inside a `with` block (see the module docstring).

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([-1.0], requires_grad=True)
        >>> with tl.autograd.detect_anomaly(check_forward=True):
        ...     try:
        ...         x.log()
        ...     except RuntimeError as e:
        ...         print(str(e).splitlines()[0])
        anomaly: Log made nan values from inputs without any
    """

    def __init__(self, check_nan: bool = True, check_forward: bool = False) -> None:
        self.check_nan = bool(check_nan)
        self.check_forward = bool(check_forward)
        self._previous: list[bool] = []

    def __enter__(self) -> detect_anomaly:
        self._previous = list(ENABLED)
        _set(True, self.check_nan, self.check_forward)
        return self

    def __exit__(self, *exc: Any) -> None:
        _set(*self._previous)


def _set(mode: bool, check_nan: bool, check_forward: bool) -> None:
    ENABLED[:] = [mode, check_nan, check_forward]
    function.record_with(_record_noting_where if mode else None)


def _record_noting_where(record: Any, cls: Any, inputs: tuple, *args: Any) -> Any:
    """The engine's `_record` while anomaly mode is on: the result's History notes its forward call."""
    if ENABLED[2]:
        with warnings.catch_warnings():  # (the check names the op that went NaN: NumPy's warning cannot)
            warnings.simplefilter("ignore", RuntimeWarning)
            result = record(cls, inputs, *args)
    else:
        result = record(cls, inputs, *args)
    history = result.history
    if history is not None:
        history._where = _user_frame()
        if ENABLED[2]:
            _check_forward(cls, inputs, result)
    return result


def _user_frame() -> tuple[str, int, str, str] | None:
    """(file, line, function, source line) of the innermost caller outside torchlight."""
    frame: Any = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    line = linecache.getline(code.co_filename, frame.f_lineno).strip()
    return code.co_filename, frame.f_lineno, code.co_name, line


def where(history: Any) -> str:
    """Where the forward of `history` was called, as a traceback line (or why it is not known)."""
    place = getattr(history, "_where", None)
    if place is None:
        return "(its forward ran before anomaly mode was on, so where it was called is not known)"
    file, line, name, source = place
    text = f'File "{file}", line {line}, in {name}'
    return text + (f"\n    {source}" if source else "")


def check_gradients(node: Any, pairs: Any) -> None:
    """Raise if a gradient the backward of `node` made has NaN or infinite values."""
    if not ENABLED[1]:
        return
    for parent, g in pairs:
        bad = _bad_values(g)
        if bad is None:
            continue
        fn = getattr(node, "last_fn", None) or getattr(node, "_op", None)
        name = getattr(fn, "__name__", type(node).__name__)
        edges = getattr(node, "edges", None) or node.parents
        index = next((i for i, e in enumerate(edges) if e is parent), 0)
        raise RuntimeError(f"anomaly: {name}.backward returned {bad} values in its gradient for input {index}\n"
                           f"The forward call that made it:\n  {where(node)}")


def _check_forward(cls: Any, inputs: tuple, result: Any) -> None:
    if _bad_values(result, nan_only=True) is None:
        return
    if any(_bad_values(a, nan_only=True) for a in inputs if hasattr(a, "data")):
        return  # (a NaN that came in: the op that made it raised already, or ran outside anomaly mode)
    raise RuntimeError(f"anomaly: {cls.__name__} made nan values from inputs without any\n"
                       f"The forward call:\n  {where(result.history)}")


def _bad_values(g: Any, nan_only: bool = False) -> str | None:
    """'nan' or 'inf' if `g` (a Tensor, or a Value's float gradient) holds such values, else None."""
    if isinstance(g, float):
        if math.isnan(g):
            return "nan"
        return None if nan_only or math.isfinite(g) else "inf"
    data, backend = getattr(g, "data", None), getattr(g, "backend", None)
    if data is None or backend is None or not (backend.is_floating(data.dtype) or backend.is_complex(data.dtype)):
        return None
    xp = backend.xp
    if bool(xp.any(xp.isnan(data))):
        return "nan"
    if not nan_only and not bool(xp.all(xp.isfinite(data))):
        return "inf"
    return None
