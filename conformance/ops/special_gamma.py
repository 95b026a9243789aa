"""The special_gamma entries (torchlight/ops/special_gamma.py)."""

from __future__ import annotations

from conformance.opinfo import OpInfo

OPS: list[OpInfo] = []
