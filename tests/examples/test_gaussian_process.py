"""A short run of examples/gaussian_process.py: the fit by gradient ascent through cholesky and
solve_triangular agrees with scikit-learn's GaussianProcessRegressor, and the plot is written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from example_modules import load_example

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gaussian_process.py"


@pytest.fixture(autouse=True)
def _restore_default_backend():
    gp = load_example(EXAMPLE)
    before = gp.tl.get_default_backend()
    yield
    gp.tl.set_default_backend(before)


@pytest.mark.parametrize("backend_name", ["numpy", "array_api_strict"])
def test_the_fit_agrees_with_scikit_learn_within_1e_4(backend_name, tmp_path):
    gp = load_example(EXAMPLE)
    report = gp.run(backend_name, n=80, steps=600, out=str(tmp_path))
    assert max(report["relative"].values()) < 1e-4, report["relative"]
    assert report["ours"]["history"][-1] > report["ours"]["history"][0] + 1.0  # it climbed
    png = Path(report["png"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_the_log_marginal_likelihood_and_its_gradient_are_scikit_learns():
    """At a point away from the optimum, the value and the gradient (through cholesky and the
    triangular solve) equal scikit-learn's closed-form ones."""
    gp = load_example(EXAMPLE)
    x_host, y_host = gp.load_data(40)
    tl = gp.tl
    theta = tl.tensor([0.3, -0.4, -1.2], requires_grad=True)
    lml = gp.log_marginal_likelihood(theta, tl.tensor(x_host), tl.tensor(y_host))
    lml.backward()
    model = gp.sklearn_fit(x_host, y_host)["model"]
    value, gradient = model.log_marginal_likelihood(np.array([0.3, -0.4, -1.2]), eval_gradient=True)
    np.testing.assert_allclose(float(lml), value, rtol=1e-12)
    np.testing.assert_allclose(theta.grad.numpy(), gradient, rtol=1e-9)
