"""A short run of examples/scalar_mlp.py: an MLP of Values learns the two moons."""

from __future__ import annotations

from pathlib import Path

import pytest
from example_modules import load_example

from torchlight.autograd import central_difference

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scalar_mlp.py"


@pytest.fixture(scope="module")
def example():
    return load_example(EXAMPLE)


def test_short_training_run_lowers_the_loss_and_classifies(example, capsys):
    history = example.train(steps=12, samples=40, log=True)
    losses = history["loss"]
    assert len(losses) == 12 and losses[-1] < 0.6 * losses[0]
    assert history["final_accuracy"][0] >= 0.75  # chance is 0.5
    printed = capsys.readouterr().out
    assert "step   0" in printed and "step  11" in printed


def test_the_models_gradient_matches_central_differences(example):
    xs, ys = example.make_moons(6, seed=3)
    model = example.MLP([2, 4, 4, 1], seed=3)
    loss, _ = example.loss_and_accuracy(model, xs, ys)
    loss.backward()
    for p in model.parameters()[::7]:
        original = p.data

        def loss_at(w, p=p):
            p.data = w
            return example.loss_and_accuracy(model, xs, ys)[0].data

        numeric = central_difference(loss_at, original)
        p.data = original
        assert abs(p.grad - numeric) <= 1e-6 * max(1.0, abs(numeric))


def test_moons_are_two_labelled_half_circles(example):
    xs, ys = example.make_moons(50, noise=0.0, seed=1)
    assert len(xs) == 50 and sorted(set(ys)) == [-1.0, 1.0] and ys.count(1.0) == 25
    for (a, b), y in zip(xs, ys):
        if y < 0:  # the upper moon: on the unit circle around the origin
            assert abs(a * a + b * b - 1.0) < 1e-12 and b >= -1e-12
        else:  # the lower moon: on the unit circle around (1, 0.5)
            assert abs((a - 1.0) ** 2 + (b - 0.5) ** 2 - 1.0) < 1e-12 and b <= 0.5 + 1e-12


def test_main_prints_the_final_accuracy(example, capsys):
    example.main(["--steps", "2", "--samples", "10"])
    assert "final accuracy" in capsys.readouterr().out
