"""torchlight.func, autograd.grad/gradcheck and the shape methods: what a differential hunt
against torch.func and torch.autograd (torch 2.13, CPU, float64) found.

Each test pins one disagreement that was a bug here, or one edge the hunt
checked that nothing else pinned. Expected values are closed forms, NumPy
or central differences (gradcheck), never PyTorch.
"""

from __future__ import annotations

import numpy as np

import torchlight as tl
from torchlight import func


# ------------------------------------------------ jacobian of an empty argument
def test_jacobian_by_columns_of_an_empty_argument_is_an_empty_block():
    # 3 outputs > 0 inputs + 2, so it goes by columns: zero columns to stack (it raised IndexError)
    c = tl.tensor(np.array([1.0, 2.0, 3.0]))
    jac = func.jacobian(lambda a: a.sum() * c)(np.zeros(0))
    assert jac.shape == (3, 0)
    c4 = tl.tensor(np.array([1.0, 2.0, 3.0, 4.0]))  # 4 > 0 + 1 + 2: by columns again
    a, b = func.jacobian(lambda a, b: (a.sum() + b) * c4, argnums=(0, 1))(np.zeros((0, 2)), np.array(2.0))
    assert a.shape == (4, 0, 2)
    np.testing.assert_allclose(b, [1.0, 2.0, 3.0, 4.0])
