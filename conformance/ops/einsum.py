"""The einsum entries (torchlight/ops/einsum.py)."""

from __future__ import annotations

from conformance.opinfo import OpInfo

OPS: list[OpInfo] = []
