"""What a call leaves allocated: the compile tests' measure of what a forward keeps for its backward."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any


def bytes_held(call: Callable[[], Any]) -> tuple[Any, int]:
    """`call()`'s result and the bytes allocated during it that are still held when it returns
    (NumPy's arrays included: tracemalloc sees their data)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
