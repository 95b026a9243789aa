"""`torchlight.special`: special functions with PyTorch's `torch.special` names and signatures, differentiable."""

from __future__ import annotations

__all__: list[str] = []
