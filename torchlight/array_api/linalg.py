"""`torchlight.array_api.linalg`: the array API 2024.12 linalg extension over Tensors, differentiable."""

from __future__ import annotations

__all__: list[str] = []
