"""`python -m bench.checkpoint`: the memory gradient checkpointing saves, and the time it costs.

A `layers`-deep MLP (each layer Linear then ReLU, float64 on NumPy) runs
forward and backward of `(model(x) ** 2).mean()` four ways:

- plain: every layer's activations are kept for backward;
- each layer checkpointed (`checkpoint(layer, x)`): only each layer's input is kept;
- `checkpoint_sequential(model, segments, x)` with `segments` about sqrt(layers):
  only each segment's input is kept, and the last segment runs plainly;
- PyTorch's plain run and checkpointed layers, for reference (where installed).

Two shapes by default: width 1024 with a batch of 256 (the weights, 8 MB a
layer, outweigh the activations, 2 MB) and width 256 with a batch of 4096
(the activations, 8 MB, outweigh the weights, 0.5 MB).

Memory is measured with tracemalloc (NumPy's arrays included; torch's CPU
allocations are not traced, so PyTorch's rows have none): the bytes still
allocated after forward (what the graph keeps for backward) and the peak
during forward and backward together, from no `.grad` (the new gradients
count: the engine hands them to `.grad` once the whole walk has succeeded,
so they are all alive at its end). Each is measured once after a warm-up
(allocations are deterministic); times are the median of `--repeat`
untraced rounds (round-robin). The gradients of all the ways are checked
equal to the plain run's before anything is measured.

Usage:

    python -m bench.checkpoint                  # 20 layers, the two shapes
    python -m bench.checkpoint --shapes 512x1024 --repeat 5
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


def step(forward: Callable, model: tl.nn.Sequential, x: tl.Tensor, measure: bool = False) -> dict[str, float]:
    """One forward and backward from no gradients; with `measure`, what tracemalloc saw."""
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


def measure(layers: int, width: int, batch: int, repeat: int, with_torch: bool) -> list[str]:
    """The table of one MLP shape (its lines)."""
    segments = max(2, round(math.sqrt(layers)))
    model = make_model(layers, width)
    data = np.random.default_rng(0).standard_normal((batch, width))
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
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(repeat):  # round-robin: a slow spell of a shared machine hits every way alike
        for name, forward in ways.items():
            start = time.perf_counter()
            step(forward, model, x)
            times[name].append(time.perf_counter() - start)
    for name in ways:
        rows[name]["seconds"] = statistics.median(times[name])
    if with_torch:
        rows.update(torch_rows(model, data, repeat))
    weights_mb = sum(p.size for p in model.parameters()) * 8 / 1e6
    activation_mb = batch * width * 8 / 1e6
    lines = [f"MLP: {layers} x (Linear {width} -> {width}, ReLU), batch {batch}, float64, NumPy: weights "
             f"{weights_mb:.1f} MB (their new gradients count in the peak), one activation {activation_mb:.1f} MB",
             f"{'':40} {'held after forward':>19} {'peak fwd+bwd':>13} {'time (median)':>14}"]
    for name, row in rows.items():
        cells = [f"{row[key]:.1f} MB" if key in row else "-" for key in ("held_mb", "peak_mb")]
        lines.append(f"{name:40} {cells[0]:>19} {cells[1]:>13} {row['seconds']:>12.3f} s")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=20)
    parser.add_argument("--shapes", default="1024x256,256x4096",
                        help="WIDTHxBATCH of each MLP measured, comma-separated (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch's rows")
    args = parser.parse_args(argv)
    if args.quick:
        args.layers, args.shapes, args.repeat = 6, "32x8", 1
    for i, shape in enumerate(args.shapes.split(",")):
        width, batch = (int(n) for n in shape.lower().split("x"))
        print(("\n" if i else "") + "\n".join(measure(args.layers, width, batch, args.repeat, not args.no_torch)))


if __name__ == "__main__":
    main()
