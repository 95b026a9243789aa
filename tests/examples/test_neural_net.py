"""examples/neural_net.py (HIPS autograd's example with func.grad over (W, b) pairs), shortened: two epochs.

The loss must fall from its untrained value and the test accuracy beat
chance (10%) by far; the gradient must have the parameters' structure.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from example_modules import load_example

import torchlight as tl
from torchlight import func

pytest.importorskip("sklearn")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "neural_net.py"


def test_two_epochs_learn():
    example = load_example(EXAMPLE)
    history = example.run(num_epochs=2, verbose=False)
    assert history["loss"][-1] < 0.3 * history["loss"][0], history["loss"]
    assert history["test"][-1] > 0.8, history["test"]


def test_the_gradient_is_a_list_of_pairs_like_the_parameters():
    example = load_example(EXAMPLE)
    params = example.init_random_params(0.1, [4, 3, 2])
    x, y = np.random.default_rng(0).standard_normal((5, 4)), np.eye(2)[[0, 1, 1, 0, 1]]
    g = func.grad(example.log_posterior)(params, tl.tensor(x), tl.tensor(y), 0.5)
    assert isinstance(g, list) and [tuple(a.shape for a in pair) for pair in g] == [((4, 3), (3,)), ((3, 2), (2,))]
