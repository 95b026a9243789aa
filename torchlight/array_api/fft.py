"""`torchlight.array_api.fft`: the array API 2024.12 fft extension over Tensors, differentiable."""

from __future__ import annotations

__all__: list[str] = []
