"""Regressions found by comparing torchlight.nn, optim and checkpoints with PyTorch (CPU, float64).

PyTorch was only the discovery tool: each test pins the behaviour with a
closed form, a float64 NumPy reference or a central-difference gradcheck.
"""

from __future__ import annotations

import numpy as np

import torchlight as tl
from torchlight import nn


class Scaled(nn.Module):
    """A 0-d parameter and a 0-d buffer (a temperature, a step counter)."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(tl.tensor(2.5))
        self.register_buffer("steps", tl.tensor(np.array(7, dtype=np.int64)))


# ------------------------------------------------------------ checkpoints
def test_a_0d_tensor_stays_0d_through_save_and_load(backend, tmp_path):
    path = tmp_path / "scalar.safetensors"
    tl.save({"s": tl.tensor(3.5, backend=backend), "v": tl.tensor([1.0, 2.0], backend=backend)}, path)
    state = tl.load(path, backend=backend)
    assert state["s"].shape == () and state["s"].item() == 3.5
    assert state["v"].shape == (2,)
    model = Scaled()
    tl.save(model, path)
    fresh = Scaled()
    fresh.scale = nn.Parameter(tl.tensor(0.0))
    fresh.load_state_dict(tl.load(path))
    assert fresh.scale.shape == () and fresh.scale.item() == 2.5 and fresh.steps.item() == 7
