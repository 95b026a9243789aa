"""The special entries (torchlight/ops/special.py)."""

from __future__ import annotations

from conformance.opinfo import OpInfo

OPS: list[OpInfo] = []
