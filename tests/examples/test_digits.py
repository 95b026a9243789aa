"""examples/digits.py, shortened: one epoch per model, no plot.

The loss must fall from its untrained value, the models must beat chance
by far, and a checkpoint loaded into a fresh model must give exactly the
same predictions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from example_modules import load_example

import torchlight as tl

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")
pytest.importorskip("safetensors")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "digits.py"


def test_one_epoch_learns_and_checkpoints_round_trip(tmp_path, capsys):
    digits = load_example(EXAMPLE)
    results = digits.run(epochs=1, seed=0, out=str(tmp_path), make_plot=False, progress=True)
    # captured output is not a terminal: the epoch lines are printed, the bars are not drawn
    printed = capsys.readouterr()
    assert "\r" not in printed.err and "batch/s" not in printed.err, printed.err[:200]
    assert printed.out.count("epoch  1: train loss") == 2, printed.out
    x_test = tl.tensor(digits.load_data(0)["x_test"])
    for name, (make, _, _) in digits.MODELS.items():
        losses = results["histories"][name]["train_loss"]
        assert losses[-1] < 0.8 * losses[0], f"{name}: the loss did not fall ({losses})"
        assert results["accuracy"][name] > 0.5, name
        fresh = make()
        fresh.load_state_dict(tl.load(results["checkpoints"][name]))
        np.testing.assert_array_equal(digits.predict(fresh, x_test), digits.predict(results["models"][name], x_test))
    assert not list(tmp_path.glob("*.png"))
