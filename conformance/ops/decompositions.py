"""The decompositions entries (torchlight/ops/decompositions.py)."""

from __future__ import annotations

from conformance.opinfo import OpInfo

OPS: list[OpInfo] = []
