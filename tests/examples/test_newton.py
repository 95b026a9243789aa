"""A short run of examples/newton.py: Newton-CG with func.hvp beats gradient descent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from example_modules import load_example

pytest.importorskip("sklearn")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "newton.py"


@pytest.mark.parametrize("backend_name", ["numpy", "array_api_strict"])
def test_newton_reaches_the_optimum_in_fewer_iterations_than_gd(backend_name):
    newton = load_example(EXAMPLE)
    lam = 1e-2
    report = newton.run(backend_name, (3, 8), lam=lam, gap=1e-4, max_gd_iter=2000, max_gd_seconds=20.0)
    n, gd = report["newton"], report["gd"]
    assert n["iterations"] is not None and n["iterations"] <= 10
    assert n["hvps"] > 0
    reused = report["newton_reused"]  # the same method with the gradient's graph reused: the same iterates
    assert (reused["iterations"], reused["hvps"]) == (n["iterations"], n["hvps"])
    np.testing.assert_allclose(np.asarray(newton.tl.tensor(reused["w"]).numpy()),
                               np.asarray(newton.tl.tensor(n["w"]).numpy()), rtol=1e-8, atol=1e-10)
    assert gd["iterations"] is None or gd["iterations"] > 5 * n["iterations"]
    # the optimum really is one: the closed-form float64 gradient vanishes there
    X, y = newton.digits_arrays((3, 8))
    w = np.asarray(newton.tl.tensor(report["optimum_w"]).numpy(), dtype=np.float64)
    gradient = -(X.T @ (y / (1 + np.exp(y * (X @ w))))) / len(y) + lam * w
    assert np.linalg.norm(gradient) < 1e-9
    assert report["optimum"] <= n["loss"] <= report["target"]


def test_main_prints_both_methods(capsys):
    newton = load_example(EXAMPLE)
    newton.main(["--lam", "0.05", "--gap", "1e-3", "--max-gd-iter", "500"])
    out = capsys.readouterr().out
    assert "Newton-CG (func.hvp)" in out and "Newton-CG (vjp of grad)" in out and "gradient descent 1/L" in out
