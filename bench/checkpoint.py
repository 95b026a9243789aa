"""`python -m bench.checkpoint`: the memory gradient checkpointing saves, and the time it costs.

A `layers`-deep MLP (each layer Linear then ReLU, `width` wide, a batch of
`batch` rows, float64 on NumPy) runs forward and backward of
`(model(x) ** 2).mean()` four ways:

- plain: every layer's activations are kept for backward;
- each layer checkpointed (`checkpoint(layer, x)`): only each layer's input is kept;
- `checkpoint_sequential(model, segments, x)` with `segments` about sqrt(layers):
  only each segment's input is kept, and the last segment runs plainly;
- PyTorch's plain run and checkpointed layers, for reference (where installed).

Memory is measured with tracemalloc (NumPy's arrays included; torch's CPU
allocations are not traced, so PyTorch's rows have none): the bytes still
allocated after forward (what the graph keeps for backward) and the peak
during forward and backward together, from no `.grad` (the new gradients
count: `layers * width**2` weights' worth, which dominates at these sizes)
and into `.grad`s already allocated (what a training step's second
iteration sees: then the activations and the backward's temporaries make
the peak). Each measured once after a warm-up (allocations are
deterministic); times are the median of `--repeat` untraced rounds (round-robin).
The gradients of all the ways are checked equal before anything is measured.

Usage:

    python -m bench.checkpoint                  # 20 layers, width 1024, batch 256
    python -m bench.checkpoint --quick          # tiny sizes: that it runs
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

import torchlight as tl
from torchlight.utils.checkpoint import checkpoint, checkpoint_sequential


def make_model(layers: int, width: int) -> tl.nn.Sequential:
    tl.manual_seed(0)
    blocks = [tl.nn.Sequential(tl.nn.Linear(width, width), tl.nn.ReLU()) for _ in range(layers)]
    return tl.nn.Sequential(*blocks)


def plain(model: tl.nn.Sequential, x: tl.Tensor) -> tl.Tensor:
    return model(x)


def each_layer(model: tl.nn.Sequential, x: tl.Tensor) -> tl.Tensor:
    for block in model:
        x = checkpoint(block, x, use_reentrant=False)
    return x


def sequential(segments: int) -> Callable[[tl.nn.Sequential, tl.Tensor], tl.Tensor]:
    def run(model: tl.nn.Sequential, x: tl.Tensor) -> tl.Tensor:
        return checkpoint_sequential(model, segments, x, use_reentrant=False)

    return run


def step(forward: Callable, model: tl.nn.Sequential, x: tl.Tensor, measure: bool = False,
         fresh: bool = True) -> dict[str, float]:
    """One forward and backward, from no gradients (`fresh`) or into those already there; with
    `measure`, what tracemalloc saw."""
    if fresh:
        for p in model.parameters():
            p.grad = None
    gc.collect()
    if measure:
        tracemalloc.start()
    try:
        loss = (forward(model, x) ** 2).mean()
        held = tracemalloc.get_traced_memory()[0] if measure else 0
        loss.backward()
        peak = tracemalloc.get_traced_memory()[1] if measure else 0
    finally:
        if measure:
            tracemalloc.stop()
    return {"held_mb": held / 1e6, "peak_mb": peak / 1e6}


def gradients(forward: Callable, model: tl.nn.Sequential, x: tl.Tensor) -> list[np.ndarray]:
    step(forward, model, x)
    return [p.grad.numpy().copy() for p in model.parameters()]  # type: ignore[union-attr]


def torch_rows(model: tl.nn.Sequential, x: np.ndarray, repeat: int) -> dict[str, dict[str, Any]]:
    try:
        import torch
        from torch.utils.checkpoint import checkpoint as torch_checkpoint
    except ImportError:
        return {}
    blocks = []
    for block in model:
        linear = torch.nn.Linear(block[0].in_features, block[0].out_features, dtype=torch.float64)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(block[0].weight.numpy()))
            linear.bias.copy_(torch.from_numpy(block[0].bias.numpy()))
        blocks.append(torch.nn.Sequential(linear, torch.nn.ReLU()))
    net = torch.nn.Sequential(*blocks)
    xt = torch.from_numpy(x)

    def run(checkpointed: bool) -> None:
        net.zero_grad(set_to_none=True)
        h = xt
        for block in net:
            h = torch_checkpoint(block, h, use_reentrant=False) if checkpointed else block(h)
        (h ** 2).mean().backward()

    ways = {"PyTorch plain": False, "PyTorch, each layer checkpointed": True}
    times: dict[str, list[float]] = {name: [] for name in ways}
    for checkpointed in ways.values():
        run(checkpointed)  # warm-up
    for _ in range(repeat):
        for name, checkpointed in ways.items():
            start = time.perf_counter()
            run(checkpointed)
            times[name].append(time.perf_counter() - start)
    return {name: {"seconds": statistics.median(times[name])} for name in ways}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=20)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch's rows")
    args = parser.parse_args(argv)
    if args.quick:
        args.layers, args.width, args.batch, args.repeat = 6, 32, 8, 1
    segments = max(2, round(math.sqrt(args.layers)))
    model = make_model(args.layers, args.width)
    data = np.random.default_rng(0).standard_normal((args.batch, args.width))
    x = tl.tensor(data)
    ways = {"plain": plain, "each layer checkpointed": each_layer,
            f"checkpoint_sequential, {segments} segments": sequential(segments)}
    reference = gradients(plain, model, x)
    for name, forward in ways.items():
        worst = max(float(np.abs(g - r).max()) for g, r in zip(gradients(forward, model, x), reference))
        if worst > 1e-12:
            raise SystemExit(f"{name}: gradients differ from the plain run's by {worst:g}")
    rows: dict[str, dict[str, Any]] = {}
    for name, forward in ways.items():
        step(forward, model, x)  # warm-up
        rows[name] = step(forward, model, x, measure=True)
        rows[name]["accumulating_peak_mb"] = step(forward, model, x, measure=True, fresh=False)["peak_mb"]
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.repeat):  # round-robin: a slow spell of a shared machine hits every way alike
        for name, forward in ways.items():
            start = time.perf_counter()
            step(forward, model, x)
            times[name].append(time.perf_counter() - start)
    for name in ways:
        rows[name]["seconds"] = statistics.median(times[name])
    if not args.no_torch:
        rows.update(torch_rows(model, data, args.repeat))
    weights_mb = sum(p.size for p in model.parameters()) * 8 / 1e6
    print(f"MLP: {args.layers} x (Linear {args.width} -> {args.width}, ReLU), batch {args.batch}, float64, NumPy; "
          f"weights {weights_mb:.0f} MB (their gradients count in the peak)")
    print(f"{'':40} {'held after forward':>19} {'peak fwd+bwd':>13} {'peak, .grad there':>18} {'time (median)':>14}")
    for name, row in rows.items():
        cells = [f"{row[key]:.1f} MB" if key in row else "-" for key in ("held_mb", "peak_mb", "accumulating_peak_mb")]
        print(f"{name:40} {cells[0]:>19} {cells[1]:>13} {cells[2]:>18} {row['seconds']:>12.3f} s")


if __name__ == "__main__":
    main()
