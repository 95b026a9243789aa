"""`torchlight.fft`: discrete Fourier transforms with PyTorch's `torch.fft` names and signatures, differentiable."""

from __future__ import annotations

__all__: list[str] = []
