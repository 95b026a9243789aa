"""Least-squares regression by gradient descent over a design matrix that need not fit in memory.

The design matrix X (rows x features, float64) is generated lazily by Dask,
chunked by rows, with a fixed seed; the targets are y = X @ w_true + noise
for a known w_true, so the fit can be checked. Each step is one pass over
the data: the loss and its gradient are computed together (`tl.compute`,
which computes the forward they share once), the optimizer steps, and the
new weights are persisted (`tl.persist`), so each step's graph starts from
the weights' values rather than from every step before it. Nothing holds X
in memory: each pass generates its chunks again, one at a time per thread
or worker.

    loss(w) = mean((X @ w - y) ** 2) / 2,     grad = X.T @ (X @ w - y) / rows

Run:
    python examples/dask_regression.py                       # 1e6 x 100 (0.75 GiB), threads, 10 steps
    python examples/dask_regression.py --rows 30_000_000 --steps 1   # 22 GiB of X, still one pass a step
    python examples/dask_regression.py --cluster --workers 2          # a LocalCluster of 2 processes
    python examples/dask_regression.py --scheduler tcp://10.0.0.5:8786   # an existing cluster
    python examples/dask_regression.py --backend numpy --rows 100_000    # the same fit on NumPy, eagerly

`--backend numpy` generates the same X (same seed and chunks), materialises
it, and runs the same loop on NumPy tensors: the losses agree with Dask's
to rounding. The peak memory printed is the peak resident set size of this
process and, on a cluster, of each worker process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

import torchlight as tl

GiB = 2.0 ** 30


def design(rows: int, features: int, chunk_rows: int, seed: int = 0, noise: float = 0.1) -> tuple[Any, Any, Any]:
    """(X, y, w_true) as Dask arrays (X, y) and a NumPy vector: X standard normal, y = X @ w_true + noise."""
    import dask.array as da

    rng = da.random.default_rng(seed)
    X = rng.standard_normal((rows, features), chunks=(chunk_rows, features))
    w_true = np.linspace(-1.0, 1.0, features)
    y = X @ w_true + noise * rng.standard_normal(rows, chunks=chunk_rows)
    return X, y, w_true


def peak_rss() -> float:
    """The peak resident set size of this process, in bytes (its current one where the peak is unknown)."""
    try:
        import resource
    except ImportError:  # (Windows)
        import psutil

        info = psutil.Process().memory_info()
        return float(getattr(info, "peak_wset", info.rss))
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale)


def cpu_seconds() -> float:
    """The CPU time (user + system) this process has used, in seconds."""
    times = os.times()
    return times.user + times.system


def fit(X: Any, y: Any, steps: int, lr: float, on_step: Any = None) -> tuple[list[float], Any]:
    """Gradient descent from w = 0 on the tensors X, y (any backend); the losses before each step, and w."""
    w = tl.zeros(X.shape[1], backend=X.backend, dtype=X.dtype, requires_grad=True)
    opt = tl.optim.SGD([w], lr=lr)
    losses = []
    for step in range(steps):
        opt.zero_grad()
        r = X @ w - y
        loss = (r * r).mean() / 2
        loss.backward()
        loss, w.grad = tl.compute(loss, w.grad)  # one pass over X for both
        opt.step()
        tl.persist(w)  # the new weights as values: the next graph does not hold this step's
        losses.append(loss.item())
        if on_step is not None:
            on_step(step, losses[-1])
    return losses, w


@contextlib.contextmanager
def scheduler(cluster: bool, workers: int, address: str | None, timeout: float) -> Iterator[Any]:
    """A `distributed.Client` (a LocalCluster's, or the one at `address`), or None for Dask's threads."""
    if not cluster and address is None:
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise SystemExit(f"error: --cluster and --scheduler need `distributed` ({exc}); "
                         "run `pip install 'torchlight[dask]'`") from None
    if address is not None:
        try:
            client = Client(address, timeout=f"{timeout}s")
        except (OSError, TimeoutError, ValueError) as exc:  # (ValueError: a malformed address)
            raise SystemExit(f"error: cannot reach the Dask scheduler at {address} within {timeout:g} s "
                             f"({type(exc).__name__}: {exc})") from None
        with client:
            yield client
        return
    # no dashboard; the scheduler's HTTP server (metrics) on a free port rather than 8787, which may be taken
    quiet = {"dashboard_address": "127.0.0.1:0"}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, scheduler_kwargs=quiet) as local, Client(local) as client:
        yield client


def worker_peaks(client: Any) -> tuple[list[float], list[float]]:
    """Each worker process's peak resident set size, in bytes (since it started), and its CPU seconds."""
    return sorted(client.run(peak_rss).values()), sorted(client.run(cpu_seconds).values())


def run(rows: int = 1_000_000, features: int = 100, chunk_rows: int = 100_000, steps: int = 10, lr: float = 0.5,
        backend: str = "dask", cluster: bool = False, workers: int = 2, address: str | None = None,
        timeout: float = 5.0, seed: int = 0, progress: bool = True) -> dict[str, Any]:
    """Fit once; a report: losses, w, w_true, seconds, peak RSS of the client and the workers."""
    X, y, w_true = design(rows, features, chunk_rows, seed)
    if backend == "numpy":
        X, y = (np.asarray(a.compute(scheduler="threads")) for a in (X, y))
    elif backend != "dask":
        raise SystemExit(f"error: --backend must be dask or numpy, not {backend!r}")
    with scheduler(cluster, workers, address, timeout) as client:
        bar = _progress(steps, progress)
        start, cpu_start = time.perf_counter(), cpu_seconds()

        def on_step(step: int, loss: float) -> None:
            bar.set_postfix(loss=f"{loss:.6g}")
            bar.update()
            bar.write(f"step {step + 1:3d}/{steps}  loss {loss:.12e}")

        losses, w = fit(tl.tensor(X), tl.tensor(y), steps, lr, on_step)
        seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
        bar.close()
        w = np.asarray(w.detach().numpy())  # (persisted on a cluster: held by its workers until it closes)
        peaks, cpus = worker_peaks(client) if client is not None else ([], [])
    return {"losses": losses, "w": w, "w_true": w_true, "seconds": seconds, "peak_client": peak_rss(),
            "peak_workers": peaks, "cpu_client": cpu, "cpu_workers": cpus,
            "error": float(np.linalg.norm(w - w_true) / np.linalg.norm(w_true))}


def _progress(steps: int, enabled: bool) -> Any:
    """A tqdm bar over the steps on a terminal, or a stand-in that prints only the lines written to it
    (in a log or a pipe a bar would be a flood of carriage returns)."""
    try:
        from tqdm import tqdm
    except ImportError:
        enabled = False
    if enabled and sys.stderr.isatty():
        return tqdm(total=steps, unit="step", file=sys.stderr)

    class Lines:
        def set_postfix(self, **_: Any) -> None: ...
        def update(self) -> None: ...
        def close(self) -> None: ...
        def write(self, line: str) -> None:
            print(line, flush=True)

    return Lines()


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=lambda s: int(float(s)), default=1_000_000, help="rows of X (1e6; 3e7 is 22 GiB)")
    p.add_argument("--features", type=int, default=100)
    p.add_argument("--chunk-rows", type=lambda s: int(float(s)), default=100_000, help="rows per chunk")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", default="dask", help="dask (lazy, the default) or numpy (X materialised)")
    p.add_argument("--cluster", action="store_true", help="start a LocalCluster of --workers processes")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scheduler", metavar="ADDRESS", help="join the Dask scheduler at ADDRESS (tcp://host:port)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for --scheduler (5)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (the loss lines stay)")
    a = p.parse_args(argv)
    if a.cluster and a.scheduler:
        p.error("--cluster and --scheduler exclude each other")
    where = (f"a LocalCluster of {a.workers} processes" if a.cluster else
             f"the scheduler at {a.scheduler}" if a.scheduler else "Dask's threads" if a.backend == "dask" else "NumPy")
    size = a.rows * a.features * 8 / GiB
    print(f"X: {a.rows:,} x {a.features} float64 ({size:.2f} GiB) in chunks of {a.chunk_rows:,} rows, on {where}")
    report = run(a.rows, a.features, a.chunk_rows, a.steps, a.lr, a.backend, a.cluster, a.workers, a.scheduler,
                 a.timeout, a.seed, not a.no_progress)
    print(f"|w - w_true| / |w_true| = {report['error']:.3e}")
    line = f"time: {report['seconds']:.2f} s ({report['seconds'] / max(a.steps, 1):.2f} s a step); CPU: client "
    line += f"{report['cpu_client']:.1f} s"
    if report["cpu_workers"]:  # (since each worker started: the cluster's own start included)
        line += ", workers " + ", ".join(f"{c:.1f}" for c in report["cpu_workers"]) + " s"
    print(line)
    line = f"peak RSS: client {report['peak_client'] / GiB:.2f} GiB"
    if report["peak_workers"]:
        line += "; workers " + ", ".join(f"{b / GiB:.2f}" for b in report["peak_workers"]) + " GiB"
    print(line)
    return report


if __name__ == "__main__":
    main()
