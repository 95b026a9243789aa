"""`python -m bench.vmap`: per-sample gradients of an MLP, `func.vmap(func.grad(loss))` against a loop.

For each workload (an MLP's sizes and a batch), the per-sample gradients of
a softmax cross-entropy loss with respect to every weight and bias
(`params`, a list of (W, b) pairs) are computed four ways:

- torchlight `vmap`: `func.vmap(func.grad(loss), in_dims=(None, 0, 0))`,
  one batched forward and backward (checked to batch natively, without
  the loop fallback);
- torchlight loop: `func.grad(loss)` once per sample, the results stacked
  (what one writes without vmap, and what vmap's fallback does);
- PyTorch `torch.func.vmap(torch.func.grad(loss))` and PyTorch's loop,
  where PyTorch is installed.

Timed round-robin (bench.timing: a warm-up, then A B C D A B C D ..., each
sample the mean of `inner` calls); reported: the median per way, and the
median of the per-round ratios loop / vmap. The results are checked to
agree (torchlight's vmap against its loop and against PyTorch's) before
timing.

Usage (one BLAS thread, so that the comparison is of the batching and not
of the threads; unset the OpenBLAS variables some machines set):

    OPENBLAS_NUM_THREADS=1 python -m bench.vmap
    OPENBLAS_NUM_THREADS=1 python -m bench.vmap --quick    # small sizes: that it runs
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.peers import Case
from bench.report import pair_ratio
from bench.timing import round_robin
from torchlight import func

VMAP, LOOP, TORCH_VMAP, TORCH_LOOP = "torchlight vmap", "torchlight loop", "PyTorch vmap", "PyTorch loop"


@dataclass(frozen=True)
class Workload:
    key: str
    sizes: tuple[int, ...]
    batch: int
    reps: int = 15
    inner: int = 2


WORKLOADS = (Workload("V1", (784, 128, 10), 64), Workload("V2", (32, 64, 10), 256))
QUICK = (Workload("V1", (20, 16, 10), 8, reps=2, inner=1), Workload("V2", (8, 16, 10), 16, reps=2, inner=1))


def loss(params: list, x: Any, y: Any) -> Any:
    """Cross-entropy of one sample: x (features,), y a one-hot row (classes,)."""
    h = x
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = h.tanh()
    return -((h - h.logsumexp(-1, keepdim=True)) * y).sum()


def data(w: Workload) -> tuple[list, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((m, n)) / np.sqrt(m), np.zeros(n)) for m, n in zip(w.sizes[:-1], w.sizes[1:])]
    x = rng.standard_normal((w.batch, w.sizes[0]))
    y = np.eye(w.sizes[-1])[rng.integers(0, w.sizes[-1], w.batch)]
    return params, x, y


def cases(w: Workload) -> tuple[dict[str, Case], dict[str, Any]]:
    params, x, y = data(w)
    per_sample = func.vmap(func.grad(loss), in_dims=(None, 0, 0))
    one = func.grad(loss)

    def vmapped() -> Any:
        return per_sample(params, x, y)

    def looped() -> Any:
        grads = [one(params, x[i], y[i]) for i in range(w.batch)]
        return [tuple(np.stack([g[k][j] for g in grads]) for j in range(2)) for k in range(len(params))]

    out = {VMAP: Case(vmapped, dict), LOOP: Case(looped, dict)}
    results = {VMAP: vmapped(), LOOP: looped()}
    try:
        import torch  # noqa: PLC0415 (optional)
    except ImportError:
        return out, results
    torch.set_num_threads(1)
    tparams = [(torch.tensor(W), torch.tensor(b)) for W, b in params]
    tx, ty = torch.tensor(x), torch.tensor(y)
    tper_sample = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))
    tone = torch.func.grad(loss)

    def torch_vmapped() -> Any:
        return tper_sample(tparams, tx, ty)

    def torch_looped() -> Any:
        grads = [tone(tparams, tx[i], ty[i]) for i in range(w.batch)]
        return [tuple(torch.stack([g[k][j] for g in grads]) for j in range(2)) for k in range(len(params))]

    out.update({TORCH_VMAP: Case(torch_vmapped, dict), TORCH_LOOP: Case(torch_looped, dict)})
    results[TORCH_VMAP] = [tuple(t.numpy() for t in pair) for pair in torch_vmapped()]
    return out, results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.vmap", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small sizes, two rounds")
    opts = p.parse_args(argv)
    print("| workload | MLP | batch | " + " | ".join(f"{n} (ms)" for n in (VMAP, LOOP, TORCH_VMAP, TORCH_LOOP))
          + " | loop / vmap (torchlight) |")
    print("|---|---|---|---|---|---|---|---|")
    for w in QUICK if opts.quick else WORKLOADS:
        with func.vmap_fallback(False):  # (the timed vmap batches natively: the check raises otherwise)
            runs, results = cases(w)
        for name, got in results.items():
            for (a, b), (c, d) in zip(got, results[LOOP]):
                np.testing.assert_allclose(a, c, rtol=1e-9, atol=1e-12, err_msg=f"{name} vs the loop")
                np.testing.assert_allclose(b, d, rtol=1e-9, atol=1e-12, err_msg=f"{name} vs the loop")
        timings = round_robin(runs, reps=w.reps, inner=w.inner)
        ms = {n: statistics.median(timings[n].seconds) * 1e3 if n in timings else float("nan")
              for n in (VMAP, LOOP, TORCH_VMAP, TORCH_LOOP)}
        ratio = pair_ratio(timings[LOOP], timings[VMAP])
        speedup = f"{ratio[0]:.1f}x ({ratio[1]:.1f}-{ratio[2]:.1f})" if ratio else "-"
        print(f"| {w.key} | {'-'.join(map(str, w.sizes))} | {w.batch} | "
              + " | ".join(f"{ms[n]:.2f}" for n in (VMAP, LOOP, TORCH_VMAP, TORCH_LOOP)) + f" | {speedup} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
