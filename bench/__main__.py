"""`python -m bench`: time torchlight against PyTorch, NumPy by hand and micrograd.

Also timed: the minimal tape (bench/peers/minimal_tape.py), the floor of a
Python tape's bookkeeping, so that a target can be read against it; and
torchlight compiled (bench/peers/compiled_peer.py), the eager peer's losses
through `tl.compile`, whose rounds time replays and whose recording (its
first run) is reported apart.

Usage (the OpenBLAS variables some machines set slow NumPy down; unset them
for the benchmark only):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m bench           # full, writes docs/benchmarks.md
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m bench --quick   # < 2 minutes
    python -m bench --only W1,W3 --json out.json --threads 2
    python -m bench --backend cupy     # W1-W3, W6 on the GPU vs PyTorch CUDA (bench/RESULTS-cupy.md)
"""

from __future__ import annotations

import argparse
import datetime
import functools
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from bench import report
from bench import workloads as workloads_module
from bench.peers import Env
from bench.timing import Timing, agreement, describe, peak_extra_bytes, round_robin
from bench.workloads import (
    JAX,
    MICROGRAD,
    MINTAPE,
    NUMPY,
    TL,
    TL_0D,
    TL_0D_COMPILED,
    TL_COMPILED,
    TL_SCALAR,
    TL_UNFUSED,
    TORCH,
    TORCH_COMPILED,
    WORKLOADS,
    Workload,
)

HERE = Path(__file__).resolve().parent
INSTALL = {TORCH: "pip install torch==2.13.0 (the CPU build; see bench/requirements.txt)",
           TORCH_COMPILED: "pip install torch==2.13.0",
           MICROGRAD: "pip install micrograd", JAX: "pip install jax (its CPU build)"}


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer rounds (under 2 minutes)")
    p.add_argument("--json", metavar="PATH", help="also save every sample and summary as JSON")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP/PyTorch threads (default 1)")
    p.add_argument("--only", metavar="W1,W3", help="run only these workloads (no results page)")
    p.add_argument("--backend", choices=("numpy", "cupy"), default="numpy",
                   help="cupy: W1-W3 and W6 on the GPU against PyTorch CUDA")
    p.add_argument("--scale", type=int, default=1, help="W2's batch, W3's length and W6's batch times this "
                   "(100 fills a big GPU: W3 at 4e8 elements)")
    p.add_argument("--torch-compile", action="store_true", help="also time torch.compile of PyTorch's loss "
                   "(W2, W3, W6; its compiler needs a C++ or CUDA toolchain)")
    p.add_argument("--results", metavar="PATH", help="where to write the Markdown results "
                   "(default docs/benchmarks.md, or bench/RESULTS-cupy.md; only full runs of every workload)")
    return p.parse_args(argv)


def make_env(backend: str) -> Env:
    if backend == "numpy":
        return Env("numpy", np)
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # ImportError, or CUDARuntimeError where no driver/device
        raise SystemExit(f"--backend cupy needs CuPy and a CUDA device ({describe(exc)}): "
                         "pip install -e '.[cuda12]' (or '.[cuda13]') and a CUDA build of torch==2.13.0") from exc

    def sync() -> None:
        cupy.cuda.Device().synchronize()
        if "torch" in sys.modules:
            sys.modules["torch"].cuda.synchronize()

    return Env("cupy", cupy, sync)


def load_peers(names: tuple[str, ...], threads: int) -> dict[str, Any]:
    """name -> `make(key, data, env)`, or a string saying why it cannot run."""
    peers: dict[str, Any] = {}
    for name in names:
        try:
            if name in (TL, TL_0D, TL_SCALAR):
                from bench.peers import torchlight_peer
                peers[name] = functools.partial(torchlight_peer.make, scalar_engine=name == TL_SCALAR)
            elif name in (TL_COMPILED, TL_0D_COMPILED):
                from bench.peers import compiled_peer
                peers[name] = compiled_peer.make
            elif name == TL_UNFUSED:
                from bench.peers import compiled_peer
                peers[name] = compiled_peer.make_unfused
            elif name == JAX:
                from bench.peers import jax_peer
                jax_peer.configure(threads)
                import jax  # noqa: F401 (here, so that a missing JAX says "not installed")
                peers[name] = jax_peer.make
            elif name == NUMPY:
                from bench.peers import numpy_hand
                peers[name] = numpy_hand.make
            elif name in (TORCH, TORCH_COMPILED):
                from bench.peers import torch_peer
                torch_peer.torch.set_num_threads(threads)
                peers[name] = torch_peer.make if name == TORCH else torch_peer.make_compiled
            elif name == MICROGRAD:
                from bench.peers import micrograd_peer
                peers[name] = micrograd_peer.make
            elif name == MINTAPE:
                from bench.peers import minimal_tape
                peers[name] = minimal_tape.make
        except ImportError as exc:
            peers[name] = f"not installed ({INSTALL.get(name, exc)})"
    return peers


def run_workload(w: Workload, args: argparse.Namespace, env: Env) -> dict[str, Any]:
    data = w.data()
    peers = load_peers(tuple(n for n in w.peers if n != TORCH_COMPILED or args.torch_compile), args.threads)
    usable = {n: p for n, p in peers.items() if not isinstance(p, str)}
    errors: dict[str, float] = {}
    failed: dict[str, str] = {n: p for n, p in peers.items() if isinstance(p, str)}
    reference = usable[NUMPY](w.key, data, env).grads()
    together = [n for n in usable if n not in w.apart]
    timings, cases = _check_and_time(w, args, env, data, usable, together, reference, errors, failed)
    memory = {}
    if env.backend == "numpy":
        memory = {n: peak_extra_bytes(functools.partial(usable[n], w.key, data, env))
                  for n in w.memory if n in cases}
    ran = set(cases)
    del cases  # (the cases of the peers timed together are let go before any peer apart is made)
    apart = [n for n in w.apart if n in usable]
    paired: dict[str, Timing] = {}
    if apart:  # (made only now: nothing of theirs was alive while the others were timed)
        partners = [n for num, den in w.ratios if num in apart or den in apart for n in (num, den)
                    if n in usable and n not in apart and n not in failed]
        paired, later = _check_and_time(w, args, env, data, usable, list(dict.fromkeys(apart + partners)),
                                        reference, errors, failed)
        timings.update({n: paired[n] for n in apart if n in paired})
        ran |= set(later)
    for name, why in failed.items():
        timings.setdefault(name, Timing(error=why))
    timings = {n: timings[n] for n in w.peers if n in timings}  # the rows in the workload's order
    return report.summarize(w, timings, errors, memory, recording_seconds(w.key, env, ran), apart=paired)


def _check_and_time(w: Workload, args: argparse.Namespace, env: Env, data: dict, usable: dict[str, Any],
                    names: list[str], reference: dict, errors: dict[str, float],
                    failed: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The peers `names`, each checked against NumPy by hand's gradients (a failure or a disagreement
    noted in `failed`), then timed in one round-robin: their timings and cases."""
    for name in names:
        make = usable[name]
        try:
            errors[name] = agreement(reference, make(w.key, data, env).grads())
        except (Exception, RecursionError) as exc:
            failed[name] = describe(exc)
            continue
        if errors[name] > w.tolerance:
            failed[name] = f"gradients disagree with NumPy by hand (relative error {errors[name]:.1e})"
    cases = {n: usable[n](w.key, data, env) for n in names if n not in failed}
    if not cases:
        return {}, cases
    reps = w.quick_reps if args.quick else w.reps
    return round_robin(cases, reps, w.quick_inner if args.quick else w.inner, env.sync), cases


def recording_seconds(key: str, env: Env, ran: Collection[str]) -> dict[str, float]:
    """The compiled peer's first run (its recording), for each compiled peer among the peers that `ran`."""
    names = [n for n in (TL_COMPILED, TL_0D_COMPILED) if n in ran]
    if not names:
        return {}
    from bench.peers.compiled_peer import RECORDING

    return {n: RECORDING[(key, env.backend)] for n in names if (key, env.backend) in RECORDING}


def kernel_threads(threads: int) -> None:
    """numexpr's threads, as BLAS's (numexpr starts with one per core; numba's fused kernels use one)."""
    try:
        import numexpr
    except ImportError:
        return
    numexpr.set_num_threads(threads)


def blas_info(threads: int) -> str:
    from threadpoolctl import threadpool_info

    parts = [f"{i['internal_api']} {i.get('version')} ({i.get('architecture')}, {i['num_threads']} threads)"
             for i in threadpool_info() if i["user_api"] == "blas"]
    return "; ".join(parts) or "none found"


def metadata(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=HERE, check=False).stdout.strip()
    except OSError:
        rev = "?"
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for mod in ("torch", "micrograd", "jax", "numba", "numexpr"):
        if mod in sys.modules:
            try:
                versions[mod] = importlib.metadata.version(mod)
            except importlib.metadata.PackageNotFoundError:
                versions[mod] = "?"
    unset = [v for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if v in os.environ]
    return {
        "command": " ".join(["python -m bench", *argv]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "torchlight commit": rev,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}",
        "versions": ", ".join(f"{k} {v}" for k, v in versions.items()),
        "threads": args.threads,
        "scale (W2 batch, W3 length, W6 batch)": getattr(args, "scale", 1),
        "BLAS (threadpoolctl)": blas_info(args.threads),
        "OpenBLAS overrides in the environment": ", ".join(f"{v}={os.environ[v]}" for v in unset) or "none",
        "load average at the end (1, 5, 15 min)": ", ".join(f"{v:.1f}" for v in os.getloadavg()),
        "backend": args.backend,
        "garbage collector": "on; objects alive before timing frozen (gc.freeze), so no peer's import "
                             "slows another's collections",
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    from threadpoolctl import threadpool_limits

    env = make_env(args.backend)
    workloads_module.SCALE = args.scale
    keys = [k.strip() for k in args.only.split(",")] if args.only else list(WORKLOADS)
    workloads = [WORKLOADS[k] for k in keys if env.backend == "numpy" or WORKLOADS[k].gpu]
    started = time.perf_counter()
    summaries = []
    kernel_threads(args.threads)
    with threadpool_limits(limits=args.threads):
        print(f"BLAS: {blas_info(args.threads)}; threads {args.threads}; backend {args.backend}", flush=True)
        for w in workloads:
            t0 = time.perf_counter()
            summaries.append(run_workload(w, args, env))
            print(report.text_table(summaries[-1]) + f"\n  ({time.perf_counter() - t0:.0f} s)\n", flush=True)
        meta = metadata(args, argv)
    meta["wall time"] = f"{time.perf_counter() - started:.0f} s"
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "workloads": summaries}, indent=1))
    results = args.results or (None if args.only or args.quick else
                               (HERE.parent / "docs" / "benchmarks.md" if env.backend == "numpy"
                                else HERE / "RESULTS-cupy.md"))
    if results:
        Path(results).write_text(report.markdown(meta, summaries))
        print(f"wrote {results}")
    print(f"total {meta['wall time']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
