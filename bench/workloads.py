"""The six workloads: their data, units, repetitions, ratios and targets.

The data of every workload is made once, with a fixed seed, as NumPy arrays;
each framework in `bench.peers` turns it into its own tensors. Expressions
that read the same in PyTorch, torchlight and the minimal tape (`W1_CHAIN`,
`w3_loss`, `w6_loss`, `w5_chain`) are written once here, so all run the same
code.

Example:
    >>> from bench.workloads import WORKLOADS
    >>> WORKLOADS["W1"].unit
    'us/op'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TL = "torchlight"
TL_SCALAR = "torchlight.scalar"
TL_0D = "torchlight 0-d"
#: torchlight's own losses through `tl.compile`, recorded once per process (bench/peers/compiled_peer.py)
TL_COMPILED = "torchlight compiled"
TL_0D_COMPILED = "torchlight 0-d compiled"
#: the same compiled losses recorded with fusion off (torchlight/compile/fusion.py): the fused kernels' gain
TL_UNFUSED = "torchlight compiled unfused"
#: `jax.jit` of the loss's gradient, on JAX's CPU build (bench/peers/jax_peer.py): the best compiler here
JAX = "jax jit"
#: `torch.compile` of PyTorch's loss (bench/peers/torch_peer.py): only with `--torch-compile` (the GPU check)
TORCH_COMPILED = "pytorch compiled"
TORCH = "pytorch"
NUMPY = "numpy-by-hand"
MICROGRAD = "micrograd"
#: the floor of a Python tape (bench/peers/minimal_tape.py): a measure, not a competitor
MINTAPE = "minimal tape"

W1_OPS = 100
W1_CONSTANT = 0.9
# The W1 cycle: multiply by a tensor, add, tanh, exp (of a value in (-1, 1)),
# sigmoid, multiply by a constant. The same lambdas run on torch and torchlight.
W1_CHAIN: tuple[Callable[[Any, Any, Any], Any], ...] = (
    lambda h, w, b: h * w,
    lambda h, w, b: h + b,
    lambda h, w, b: h.tanh(),
    lambda h, w, b: h.exp(),
    lambda h, w, b: h.sigmoid(),
    lambda h, w, b: h * W1_CONSTANT,
)
W1_KINDS = ("mul", "add", "tanh", "exp", "sigmoid", "scale")

W2_LR = 0.01
#: how many times W2's batch, W3's length and W6's batch their sizes are (`python -m bench --scale`;
#: the GPU check fills a device with 100: W3 at 4e8 elements)
SCALE = 1
W5_LENGTH = 100_000
W6_CHAIN = 10


def w1_forward(x: Any, w: Any, b: Any) -> Any:
    """The 100-op chain of W1, summed (torch and torchlight alike)."""
    h = x
    for i in range(W1_OPS):
        h = W1_CHAIN[i % len(W1_CHAIN)](h, w, b)
    return h.sum()


def w3_loss(x: Any, w: Any) -> Any:
    """`(tanh(x*w) * sigmoid(x) + exp(-x*x)).sum()` (torch and torchlight alike)."""
    return ((x * w).tanh() * x.sigmoid() + (-x * x).exp()).sum()


def w5_chain(x: Any, length: int = W5_LENGTH) -> Any:
    """`x + x + ... + x`: a chain of `length` additions (any engine)."""
    y = x
    for _ in range(length):
        y = y + x
    return y


def w6_loss(a: Any, b: Any) -> Any:
    """`(a @ b @ b ... @ b).sum()` with ten batched matmuls (torch and torchlight alike)."""
    y = a
    for _ in range(W6_CHAIN):
        y = y @ b
    return y.sum()


def _rng() -> np.random.Generator:
    return np.random.default_rng(20240607)


def w1_data() -> dict[str, np.ndarray]:
    rng = _rng()
    return {k: rng.standard_normal(16) * 0.5 for k in ("x", "w", "b")}


def w2_data() -> dict[str, np.ndarray]:
    """Weights as nn layers keep them, (out_features, in_features): each peer's `linear` takes them as they are."""
    rng = _rng()
    sizes = (784, 512, 512, 10)
    data: dict[str, np.ndarray] = {
        "X": rng.standard_normal((256 * SCALE, 784), dtype=np.float32),
        "y": rng.integers(0, 10, 256 * SCALE),
    }
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:]), start=1):
        data[f"W{i}"] = (rng.standard_normal((n_out, n_in), dtype=np.float32) / np.float32(np.sqrt(n_in)))
        data[f"b{i}"] = np.zeros(n_out, dtype=np.float32)
    return data


def w3_data() -> dict[str, np.ndarray]:
    rng = _rng()
    return {k: rng.standard_normal(4_000_000 * SCALE, dtype=np.float32) for k in ("x", "w")}


def w4_data() -> dict[str, np.ndarray]:
    rng = _rng()
    sizes = (2, 16, 16, 1)
    data = {"X": rng.uniform(-1.0, 1.0, (64, 2)), "Y": rng.uniform(-1.0, 1.0, (64, 1))}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:]), start=1):
        data[f"W{i}"] = rng.uniform(-1.0, 1.0, (n_in, n_out)) / np.sqrt(n_in)
        data[f"b{i}"] = rng.uniform(-0.1, 0.1, n_out)
    return data


def w5_data() -> dict[str, np.ndarray]:
    return {"x": np.asarray(0.5)}


def w6_data() -> dict[str, np.ndarray]:
    rng = _rng()
    return {"a": rng.standard_normal((32 * SCALE, 128, 128)),
            "b": rng.standard_normal((32 * SCALE, 128, 128)) / np.sqrt(128.0)}


@dataclass(frozen=True)
class Target:
    """`numerator / denominator <= limit` (a time ratio, or peak memory when `memory`)."""

    numerator: str
    denominator: str
    limit: float
    memory: bool = False


@dataclass(frozen=True)
class Workload:
    """One benchmark: how to make its data, whom to run, how to report it.

    A sample times `inner` repetitions and divides; `per_run` converts
    seconds per repetition into `unit`.
    """

    key: str
    title: str
    unit: str
    per_run: float
    data: Callable[[], dict[str, np.ndarray]]
    peers: tuple[str, ...]
    reps: int
    quick_reps: int
    inner: int = 1
    quick_inner: int = 1
    targets: tuple[Target, ...] = ()
    ratios: tuple[tuple[str, str], ...] = ()
    memory: tuple[str, ...] = ()
    gpu: bool = False
    tolerance: float = 1e-9
    extra: dict[str, Any] = field(default_factory=dict)
    #: peers made and timed only after the others are done, in a round-robin of their own with the
    #: peers their ratios name (made again): W5's compiled case, whose 100,000-step program alone,
    #: alive, makes the garbage collector's passes over the others' graphs miss the cache (the
    #: minimal tape 0.29 to 0.69 s; docs/performance.md, "The floor")
    apart: tuple[str, ...] = ()


WORKLOADS: dict[str, Workload] = {w.key: w for w in (
    Workload("W1", "op overhead: 100 elementwise ops on (16,), float64, sum, backward", "us/op",
             1e6 / W1_OPS, w1_data, (TL, TL_COMPILED, TL_UNFUSED, TORCH, NUMPY, MINTAPE, JAX), reps=40, quick_reps=10,
             inner=20,
             quick_inner=10,
             targets=(Target(TL, TORCH, 0.5), Target(TL, NUMPY, 2.0),
                      Target(TL_COMPILED, TORCH, 0.3), Target(TL_COMPILED, NUMPY, 2.0)),
             ratios=((TL, TORCH), (TL, NUMPY), (TL_COMPILED, TORCH), (TL_COMPILED, NUMPY), (TL, MINTAPE),
                     (MINTAPE, TORCH), (MINTAPE, NUMPY), (TL_COMPILED, TL_UNFUSED), (TL_UNFUSED, TORCH),
                     (TL_COMPILED, JAX), (JAX, TORCH), (JAX, NUMPY)), gpu=True),
    Workload("W2", "MLP step 784-512-512-10, ReLU, batch 256, float32, cross-entropy, SGD", "ms/step",
             1e3, w2_data, (TL, TL_COMPILED, TORCH, TORCH_COMPILED, NUMPY, JAX), reps=40, quick_reps=8, inner=4,
             quick_inner=2,
             targets=(Target(TL, NUMPY, 1.05), Target(TL_COMPILED, NUMPY, 1.05)),
             ratios=((TL, TORCH), (TL, NUMPY), (TL_COMPILED, TORCH), (TL_COMPILED, NUMPY), (TL_COMPILED, JAX),
                     (JAX, NUMPY), (TL_COMPILED, TORCH_COMPILED)), gpu=True, tolerance=2e-4),
    Workload("W3", "big elementwise: 4M float32, (tanh(x*w)*sigmoid(x)+exp(-x*x)).sum()", "ms",
             1e3, w3_data, (TL, TL_COMPILED, TL_UNFUSED, TORCH, TORCH_COMPILED, NUMPY, MINTAPE, JAX), reps=20,
             quick_reps=3,
             targets=(Target(TL, NUMPY, 1.0), Target(TL, NUMPY, 1.0, memory=True),
                      Target(TL_COMPILED, NUMPY, 0.55), Target(TL_COMPILED, NUMPY, 0.5, memory=True)),
             ratios=((TL, TORCH), (TL, NUMPY), (TL_COMPILED, TORCH), (TL_COMPILED, NUMPY), (TL, MINTAPE),
                     (MINTAPE, NUMPY), (TL_COMPILED, TL_UNFUSED), (TL_UNFUSED, NUMPY), (TL_COMPILED, JAX), (JAX, NUMPY),
                     (TL_COMPILED, TORCH_COMPILED)),
             memory=(TL, TL_COMPILED, TL_UNFUSED, NUMPY, MINTAPE), gpu=True, tolerance=1e-5),
    Workload("W4", "scalar engine: MLP 2-16-16-1, tanh, 64 samples, squared loss", "ms",
             1e3, w4_data, (TL_SCALAR, MICROGRAD, NUMPY), reps=15, quick_reps=3,
             targets=(Target(TL_SCALAR, MICROGRAD, 0.4),), ratios=((TL_SCALAR, MICROGRAD), (TL_SCALAR, NUMPY))),
    Workload("W5", "deep graph: a chain of 100,000 additions, backward", "s",
             1.0, w5_data, (TL_SCALAR, TL_0D, TL_0D_COMPILED, TORCH, NUMPY, MICROGRAD, MINTAPE), reps=7,
             quick_reps=2,
             targets=(Target(TL_SCALAR, TORCH, 0.4), Target(TL_0D, TORCH, 0.4), Target(TL_0D_COMPILED, TORCH, 0.4)),
             ratios=((TL_SCALAR, TORCH), (TL_0D, TORCH), (TL_0D_COMPILED, TORCH), (TL_0D, MINTAPE), (MINTAPE, TORCH)),
             apart=(TL_0D_COMPILED,)),
    Workload("W6", "batched matmul: (32,128,128) @ (32,128,128) ten times, sum, backward", "ms",
             1e3, w6_data, (TL, TL_COMPILED, TORCH, TORCH_COMPILED, NUMPY, JAX), reps=25, quick_reps=4,
             targets=(Target(TL, NUMPY, 1.05), Target(TL_COMPILED, NUMPY, 1.05)),
             ratios=((TL, TORCH), (TL, NUMPY), (TL_COMPILED, TORCH), (TL_COMPILED, NUMPY), (TL_COMPILED, JAX),
                     (JAX, NUMPY), (TL_COMPILED, TORCH_COMPILED)), gpu=True,
             tolerance=1e-9),
)}
