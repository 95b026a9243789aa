"""The norms entries (torchlight/ops/norms.py)."""

from __future__ import annotations

from conformance.opinfo import OpInfo

OPS: list[OpInfo] = []
