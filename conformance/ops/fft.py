"""The fft entries (torchlight/ops/fft.py)."""

from __future__ import annotations

from conformance.opinfo import OpInfo

OPS: list[OpInfo] = []
