"""examples/digits_sequence.py, shortened: two epochs per model, no plot.

The loss must fall, both models must beat chance by far, and the last epoch run again from the
checkpoint (loaded into fresh objects) must end with the same parameters, bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from example_modules import load_example

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")
pytest.importorskip("safetensors")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "digits_sequence.py"


def test_two_epochs_learn_and_resume_bit_exactly(tmp_path):
    example = load_example(EXAMPLE)
    results = example.run(epochs=2, seed=0, out=str(tmp_path), make_plot=False, progress=False)
    for name, result in results.items():
        losses = result["history"]["loss"]
        assert losses[-1] < losses[0], f"{name}: the loss did not fall ({losses})"
        assert result["accuracy"] > 0.4, f"{name}: {result['accuracy']}"
        assert result["exact_resume"], f"{name}: the resumed run differs from the straight one"
