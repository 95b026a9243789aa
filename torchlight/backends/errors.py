"""The backends' errors: a backend or device asked for wrongly, and one that cannot run here."""

from __future__ import annotations

__all__ = ["BackendError", "BackendUnavailableError"]


class BackendError(ValueError):
    """An unknown backend name, or two backends/devices mixed in one op."""


class BackendUnavailableError(RuntimeError):
    """A known backend that cannot run here (library missing, no device)."""
