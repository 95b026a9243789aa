"""`torchlight.linalg`: linear algebra with PyTorch's `torch.linalg` names and signatures, differentiable."""

from __future__ import annotations

__all__: list[str] = []
