"""The backends' errors: a backend or device asked for wrongly, and one that cannot run here."""

from __future__ import annotations

__all__ = ["BackendError", "BackendUnavailableError"]


class BackendError(ValueError):
    """An unknown backend name, or two backends/devices mixed in one op (a ValueError).

    Example:
        >>> import torchlight as tl
        >>> tl.tensor([1.0]) + tl.tensor([1.0], backend="array_api_strict")
        Traceback (most recent call last):
        ...
        torchlight.backends.errors.BackendError: Add: tensors on two backends, 'numpy' and 'array_api_strict'; ...
    """


class BackendUnavailableError(RuntimeError):
    """A known backend that cannot run here (library missing, no device); a RuntimeError.

    Example:
        >>> from torchlight.backends.generic import ArrayAPIBackend
        >>> ArrayAPIBackend("mine", library="not_a_library")
        Traceback (most recent call last):
        ...
        torchlight.backends.errors.BackendUnavailableError: backend 'mine' is not usable: not_a_library is not ...
    """
