"""Newton's method with Hessian-vector products against gradient descent.

L2-regularised logistic regression on the scikit-learn digits (one digit
against another, pixels standardised, a bias column added):

    loss(w) = mean(log(1 + exp(-y * X @ w))) + lam / 2 * |w|^2,   y in {-1, +1}.

- Newton-CG: at each step solve H p = -g by conjugate gradients, where every
  product H v is `torchlight.func.hvp(loss, w, v)` (reverse over reverse,
  H never formed), then take p with a backtracking line search. A second
  run gets the products from `func.vjp(func.grad(loss), w)` instead, which
  builds the gradient's graph once per Newton step and then costs one
  backward pass per product (same iterates, less time).
- Gradient descent: w -= g / L with L = |X|_2^2 / (4 n) + lam, the
  Lipschitz constant of the gradient (the classical safe step).

Both run on plain arrays of the chosen backend (`func` takes arrays and
gives arrays back); the loss is written once with Tensor ops. The script
first runs Newton to convergence for the optimum, then reports, for each
method, the iterations, gradient/Hessian-vector evaluations and wall time
needed to come within `--gap` of it.

Run:
    python examples/newton.py                      # 3 vs 8, lam 1e-3, gap 1e-6
    python examples/newton.py --backend array_api_strict --digits 1 7
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import torchlight as tl
from torchlight import func


def digits_arrays(pair: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Standardised pixels plus a bias column, and labels +1 (pair[0]) / -1 (pair[1])."""
    from sklearn.datasets import load_digits

    data = load_digits()
    keep = np.isin(data.target, pair)
    X = data.data[keep].astype(np.float64)
    std = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
    X = np.hstack([X, np.ones((X.shape[0], 1))])
    y = np.where(data.target[keep] == pair[0], 1.0, -1.0)
    return X, y


def digits_problem(backend: Any, pair: tuple[int, int], lam: float) -> tuple[Callable, Any, float]:
    """(loss, initial weights, Lipschitz constant of the gradient) for one digit pair."""
    X, y = digits_arrays(pair)
    lipschitz = np.linalg.eigvalsh(X.T @ X)[-1] / (4 * X.shape[0]) + lam  # |X|_2^2 = top eigenvalue of X^T X
    Xt = tl.tensor(backend.asarray(X))
    yt = tl.tensor(backend.asarray(y))

    def loss(w: tl.Tensor) -> tl.Tensor:
        margins = yt * (Xt @ w)
        return -margins.sigmoid().log().mean() + 0.5 * lam * (w * w).sum()

    w0 = backend.xp.zeros(X.shape[1], dtype=backend.xp.float64)
    return loss, w0, float(lipschitz)


def conjugate_gradients(hvp: Callable, b: Any, xp: Any, tol: float, max_iter: int) -> tuple[Any, int]:
    """Solve H p = b for symmetric positive definite H given as `hvp(v) = H v`."""
    p = xp.zeros_like(b)
    r = b
    d = r
    rr = float(xp.sum(r * r))
    stop = tol * tol * rr
    for k in range(1, max_iter + 1):
        hd = hvp(d)
        alpha = rr / float(xp.sum(d * hd))
        p = p + alpha * d
        r = r - alpha * hd
        rr_next = float(xp.sum(r * r))
        if rr_next <= stop:
            return p, k
        d = r + (rr_next / rr) * d
        rr = rr_next
    return p, max_iter


def hvp_each_time(loss: Callable, w: Any) -> Callable:
    """v -> H(w) v by `func.hvp`: forward, gradient graph and product, each call."""
    return lambda v: func.hvp(loss, w, v)[1]


def hvp_graph_reused(loss: Callable, w: Any) -> Callable:
    """v -> H(w) v by the vjp of the gradient: its graph is built once, here."""
    _, vjp_fn = func.vjp(func.grad(loss), w)
    return lambda v: vjp_fn(v)[0]


def newton_cg(loss: Callable, w: Any, xp: Any, target: float, max_iter: int = 50,
              cg_tol: float = 1e-3, gtol: float = 0.0, hessian_at: Callable = hvp_each_time) -> dict:
    """Newton-CG with a backtracking line search, until loss <= target (or |grad| <= gtol)."""
    value_and_grad = func.value_and_grad(loss)
    start = time.perf_counter()
    hvps = grads = 0
    for it in range(max_iter + 1):
        value, g = value_and_grad(w)
        grads += 1
        gnorm = float(xp.sum(g * g)) ** 0.5
        if float(value) <= target or gnorm <= gtol:
            return dict(iterations=it, seconds=time.perf_counter() - start, loss=float(value),
                        grads=grads, hvps=hvps, w=w)
        step, used = conjugate_gradients(hessian_at(loss, w), -g, xp, tol=min(cg_tol, gnorm ** 0.5),
                                         max_iter=w.shape[0])
        hvps += used
        w = _backtrack(loss, w, step, float(value), float(xp.sum(g * step)))
    return dict(iterations=None, seconds=time.perf_counter() - start, loss=float(value), grads=grads, hvps=hvps,
                w=w)


def _backtrack(loss: Callable, w: Any, step: Any, value: float, slope: float) -> Any:
    """w + t * step for the largest t in 1, 1/2, ... with sufficient decrease (Armijo)."""
    t = 1.0
    while t > 1e-10:
        candidate = w + t * step
        if float(_value(loss, candidate)) <= value + 1e-4 * t * slope:
            return candidate
        t *= 0.5
    return w


def _value(loss: Callable, w: Any) -> Any:
    with tl.no_grad():
        return loss(tl.tensor(w)).item()


def gradient_descent(loss: Callable, w: Any, step: float, target: float, max_iter: int,
                     max_seconds: float) -> dict:
    """w -= step * grad until loss <= target (or the iteration/time budget is spent)."""
    value_and_grad = func.value_and_grad(loss)
    start = time.perf_counter()
    for it in range(max_iter + 1):
        value, g = value_and_grad(w)
        elapsed = time.perf_counter() - start
        if float(value) <= target or it == max_iter or elapsed > max_seconds:
            reached = float(value) <= target
            return dict(iterations=it if reached else None, seconds=elapsed, loss=float(value), grads=it + 1, hvps=0,
                        w=w)
        w = w - step * g
    raise AssertionError("unreachable")


def run(backend_name: str = "numpy", pair: Sequence[int] = (3, 8), lam: float = 1e-3, gap: float = 1e-6,
        max_gd_iter: int = 100_000, max_gd_seconds: float = 40.0) -> dict:
    """Both methods on one problem; returns their reports and the optimum."""
    backend = tl.backends.get(backend_name)
    xp = backend.xp
    loss, w0, lipschitz = digits_problem(backend, tuple(pair), lam)
    best = newton_cg(loss, w0, xp, target=-np.inf, max_iter=30, cg_tol=1e-10, gtol=1e-10,
                     hessian_at=hvp_graph_reused)
    target = best["loss"] + gap
    newton = newton_cg(loss, w0, xp, target)
    reused = newton_cg(loss, w0, xp, target, hessian_at=hvp_graph_reused)
    gd = gradient_descent(loss, w0, 1.0 / lipschitz, target, max_gd_iter, max_gd_seconds)
    return dict(optimum=best["loss"], optimum_w=best["w"], target=target, lipschitz=lipschitz, newton=newton,
                newton_reused=reused, gd=gd)


def _describe(name: str, r: dict) -> str:
    its = "not reached" if r["iterations"] is None else f"{r['iterations']:>6d} iterations"
    return (f"{name:<24s} {its}, {r['grads']:>6d} gradients, {r['hvps']:>4d} Hessian-vector products, "
            f"{r['seconds']:7.3f} s, final loss {r['loss']:.10f}")


def main(argv: Sequence[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--digits", type=int, nargs=2, default=(3, 8))
    parser.add_argument("--lam", type=float, default=1e-3, help="L2 regularisation strength")
    parser.add_argument("--gap", type=float, default=1e-6, help="stop within this of the optimal loss")
    parser.add_argument("--max-gd-iter", type=int, default=100_000)
    parser.add_argument("--max-gd-seconds", type=float, default=40.0)
    args = parser.parse_args(argv)
    report = run(args.backend, args.digits, args.lam, args.gap, args.max_gd_iter, args.max_gd_seconds)
    print(f"digits {args.digits[0]} vs {args.digits[1]}, lam={args.lam}, backend {args.backend}: "
          f"optimal loss {report['optimum']:.10f}, target {report['target']:.10f} (gap {args.gap})")
    print(_describe("Newton-CG (func.hvp)", report["newton"]))
    print(_describe("Newton-CG (vjp of grad)", report["newton_reused"]))
    print(_describe("gradient descent 1/L", report["gd"]))
    return report


if __name__ == "__main__":
    main()
