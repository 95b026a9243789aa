"""Gaussian-process regression on scikit-learn's bundled diabetes data, hyperparameters fitted by
gradient ascent on the log marginal likelihood, written with `tl.linalg.cholesky` and
`tl.linalg.solve_triangular`.

The data ship with scikit-learn (`sklearn.datasets.load_diabetes`: 442 patients; the input is
their body-mass index, the target a measure of disease progression a year later, both
standardised; no download). The kernel is scikit-learn's
`ConstantKernel(c) * RBF(length) + WhiteKernel(noise)`:

    k(x, x') = c exp(-(x - x')^2 / (2 length^2)) + noise [x == x']

and with K = L L^T (Cholesky) and a = L^-1 y (a triangular solve), the log marginal likelihood is

    log p(y | c, length, noise) = -a.a / 2 - sum(log diag L) - n log(2 pi) / 2.

The three hyperparameters are optimised in log space (scikit-learn's `theta`) by Adam, a
gradient ascent, whose gradient flows back through the Cholesky factor and the solve. The script
then fits scikit-learn's `GaussianProcessRegressor` with the same kernel and starting point
(L-BFGS-B on the same objective; its `alpha`, a jitter on the diagonal, set to 0), prints both
fits side by side with their relative differences, and plots the posterior mean and its
two-standard-deviation band to a PNG.

    pip install -e ".[examples]"
    python examples/gaussian_process.py                    # NumPy backend, all 442 patients
    python examples/gaussian_process.py --n 80 --steps 600 --backend array_api_strict --out /tmp/gp
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Any

import numpy as np

import torchlight as tl

#: the starting point of both fits: c = length = noise = 1 (theta = log of each = 0)
THETA0 = (0.0, 0.0, 0.0)
NAMES = ("constant", "length_scale", "noise_level")


def load_data(n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(body-mass index, disease progression), each standardised, the first `n` patients (all: None)."""
    from sklearn.datasets import load_diabetes

    features, target = load_diabetes(return_X_y=True)
    x, y = features[:n, 2], target[:n]
    return (x - x.mean()) / x.std(), (y - y.mean()) / y.std()


def kernel(theta: tl.Tensor, x1: tl.Tensor, x2: tl.Tensor) -> tl.Tensor:
    """c exp(-(x1 - x2)^2 / (2 length^2)) between every pair (the noise term is not here)."""
    c, length = theta[0].exp(), theta[1].exp()
    squared = (x1.reshape(-1, 1) - x2.reshape(1, -1)) ** 2
    return c * (-0.5 * squared / length**2).exp()


def log_marginal_likelihood(theta: tl.Tensor, x: tl.Tensor, y: tl.Tensor) -> tl.Tensor:
    """log p(y | theta) for theta = log(c, length, noise), through a Cholesky factor and a triangular solve."""
    n = x.shape[0]
    eye = tl.tensor(np.eye(n), dtype=x.dtype, device=x.device)
    L = tl.linalg.cholesky(kernel(theta, x, x) + theta[2].exp() * eye)
    a = tl.linalg.solve_triangular(L, y.reshape(n, 1), upper=False)
    log_det_half = L.diagonal().log().sum()
    return -0.5 * (a * a).sum() - log_det_half - 0.5 * n * math.log(2.0 * math.pi)


def fit(x: tl.Tensor, y: tl.Tensor, steps: int = 600, lr: float = 0.1, decay: float = 1e-3) -> dict[str, Any]:
    """Adam ascent on the log marginal likelihood from THETA0, its learning rate decayed geometrically
    from `lr` to `lr * decay` (large steps to find the optimum, small ones to settle into it)."""
    theta = tl.tensor(THETA0, dtype=x.dtype, device=x.device, requires_grad=True)
    optimizer = tl.optim.Adam([theta], lr=lr)
    history = []
    for step in range(steps):
        optimizer.param_groups[0]["lr"] = lr * decay ** (step / steps)
        optimizer.zero_grad()
        lml = log_marginal_likelihood(theta, x, y)
        (-lml).backward()
        optimizer.step()
        history.append(float(lml))
    with tl.no_grad():
        final = float(log_marginal_likelihood(theta, x, y))
    return {"theta": theta.detach(), "lml": final, "history": history,
            "gradient_norm": float(np.linalg.norm(np.asarray(theta.grad.numpy())))}


def sklearn_fit(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """scikit-learn's fit of the same kernel from the same starting point (its default L-BFGS-B)."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, WhiteKernel
    from sklearn.gaussian_process.kernels import ConstantKernel as Constant

    c0, length0, noise0 = np.exp(THETA0)
    model = GaussianProcessRegressor(Constant(c0) * RBF(length0) + WhiteKernel(noise0), alpha=0.0, random_state=0)
    model.fit(x.reshape(-1, 1), y)
    return {"params": np.exp(model.kernel_.theta), "lml": float(model.log_marginal_likelihood_value_),
            "model": model}


def posterior(theta: tl.Tensor, x: tl.Tensor, y: tl.Tensor, grid: tl.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The posterior mean and standard deviation of the latent function on `grid` (the same Cholesky
    factor: mean = K*^T K^-1 y, variance = c - |L^-1 K*|^2)."""
    n = x.shape[0]
    with tl.no_grad():
        eye = tl.tensor(np.eye(n), dtype=x.dtype, device=x.device)
        L = tl.linalg.cholesky(kernel(theta, x, x) + theta[2].exp() * eye)
        cross = kernel(theta, x, grid)
        v = tl.linalg.solve_triangular(L, cross, upper=False)
        a = tl.linalg.solve_triangular(L, y.reshape(n, 1), upper=False)
        mean = (v * a).sum(0)
        variance = theta[0].exp() - (v * v).sum(0)
    return np.asarray(mean.numpy()), np.sqrt(np.maximum(np.asarray(variance.numpy()), 0.0))


def relative_differences(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, float]:
    """|ours - theirs| / |theirs| for the log marginal likelihood and each hyperparameter."""
    params = np.exp(np.asarray(ours["theta"].numpy(), dtype=np.float64))
    out = {"log_marginal_likelihood": abs(ours["lml"] - theirs["lml"]) / abs(theirs["lml"])}
    out.update({name: float(abs(p - q) / abs(q)) for name, p, q in zip(NAMES, params, theirs["params"])})
    return out


def plot(path: str, x: np.ndarray, y: np.ndarray, grid: np.ndarray, mean: np.ndarray, std: np.ndarray,
         sk_mean: np.ndarray, title: str) -> None:
    """The data, the posterior mean and its +-2 sd band (torchlight), scikit-learn's mean dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter(x, y, s=8, color="0.45", label="patients")
    ax.fill_between(grid, mean - 2 * std, mean + 2 * std, color="tab:blue", alpha=0.25, label="mean +- 2 sd")
    ax.plot(grid, mean, color="tab:blue", label="posterior mean (torchlight)")
    ax.plot(grid, sk_mean, color="tab:orange", linestyle="--", label="posterior mean (scikit-learn)")
    ax.set_xlabel("body-mass index (standardised)")
    ax.set_ylabel("disease progression (standardised)")
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(backend: str = "numpy", n: int | None = None, steps: int = 600, out: str | None = "gp_out") -> dict[str, Any]:
    """Fit both ways, compare, and (with `out`) plot; returns the fits and their relative differences."""
    x_host, y_host = load_data(n)
    tl.set_default_backend(backend)
    x, y = tl.tensor(x_host), tl.tensor(y_host)
    start = time.perf_counter()
    ours = fit(x, y, steps=steps)
    seconds = time.perf_counter() - start
    theirs = sklearn_fit(x_host, y_host)
    report = {"ours": ours, "sklearn": theirs, "relative": relative_differences(ours, theirs), "seconds": seconds,
              "n": len(x_host)}
    if out is not None:
        os.makedirs(out, exist_ok=True)
        grid_host = np.linspace(x_host.min() - 0.5, x_host.max() + 0.5, 200)
        mean, std = posterior(ours["theta"], x, y, tl.tensor(grid_host))
        sk_mean = theirs["model"].predict(grid_host.reshape(-1, 1))
        report["png"] = os.path.join(out, "gaussian_process.png")
        plot(report["png"], x_host, y_host, grid_host, mean, std, sk_mean,
             f"GP regression, {len(x_host)} patients: log marginal likelihood {ours['lml']:.4f}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--n", type=int, default=None, help="the first n patients (default: all 442)")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--out", default="gp_out")
    args = parser.parse_args()
    report = run(args.backend, args.n, args.steps, args.out)
    ours, theirs = report["ours"], report["sklearn"]
    params = np.exp(np.asarray(ours["theta"].numpy(), dtype=np.float64))
    print(f"{report['n']} patients, backend {args.backend}: {args.steps} Adam steps in {report['seconds']:.1f} s "
          f"(final |gradient| {ours['gradient_norm']:.1e})")
    print(f"{'':24}{'torchlight':>16}{'scikit-learn':>16}{'relative diff':>16}")
    rows = [("log marginal likelihood", ours["lml"], theirs["lml"])]
    rows += list(zip(NAMES, params, theirs["params"]))
    for (name, a, b), rel in zip(rows, report["relative"].values()):
        print(f"{name:24}{a:16.8f}{b:16.8f}{rel:16.1e}")
    print(f"wrote {report['png']}")


if __name__ == "__main__":
    main()
