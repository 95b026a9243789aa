"""Read each 8x8 digit as a sequence of 8 rows and classify it with an LSTM and a small Transformer.

The PyTorch training loop of habit, with its imports changed: a `DataLoader`
over a `TensorDataset`, `AdamW`, a cosine learning-rate schedule stepped per
batch, gradient clipping (`nn.utils.clip_grad_norm_`), a tqdm bar (quiet when
the output is not a terminal), a PNG of the curves, and a checkpoint (model,
optimizer, schedule, random state) that resumes bit-exactly: the last epochs
are run twice, once straight on and once from the checkpoint loaded into
fresh objects, and the parameters must come out identical.

The data ship with scikit-learn (`load_digits`, 1797 images, no download).

    pip install -e ".[examples]"
    python examples/digits_sequence.py                 # NumPy backend, about 40 s of CPU time
    python examples/digits_sequence.py --epochs 2 --out /tmp/seq
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import torchlight as tl
from torchlight import nn
from torchlight.utils.data import DataLoader, TensorDataset


def load_data(seed: int) -> dict[str, np.ndarray]:
    """Rows of pixels scaled to [0, 1], (N, 8 steps, 8 features), split 75/25 stratified with `seed`."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    images, labels = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(
        (images / 16.0).reshape(-1, 8, 8), labels.astype(np.int64), test_size=0.25, stratify=labels,
        random_state=seed)
    return {"x_train": x_train, "y_train": y_train, "x_test": x_test, "y_test": y_test}


class RowLSTM(nn.Module):
    """An LSTM over the 8 rows; the last hidden state classifies."""

    def __init__(self, hidden: int = 64) -> None:
        super().__init__()
        self.lstm = nn.LSTM(8, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 10)

    def forward(self, x: tl.Tensor) -> tl.Tensor:
        _, (h, _) = self.lstm(x)
        return self.head(h[-1])


class RowTransformer(nn.Module):
    """Each row embedded, plus a learned position; two encoder layers (multi-head attention,
    LayerNorm, GELU); the mean over rows classifies."""

    def __init__(self, width: int = 32, heads: int = 4, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.position = nn.Parameter(tl.randn(8, width) * 0.1)
        layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=2 * width, dropout=0.1,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 10)

    def forward(self, x: tl.Tensor) -> tl.Tensor:
        h = self.encoder(self.embed(x) + self.position)
        return self.head(self.norm(h.mean(dim=1)))


MODELS: dict[str, tuple[Callable[[], nn.Module], int, float]] = {
    # name: (make, epochs, learning rate)
    "lstm": (RowLSTM, 30, 1e-2),
    "transformer": (RowTransformer, 40, 3e-3),
}


class Run:
    """One model's training state: model, optimizer, schedule, loader; `epoch()` trains one epoch."""

    def __init__(self, make: Callable[[], nn.Module], data: dict[str, np.ndarray], epochs: int, lr: float) -> None:
        self.model = make()
        self.optimizer = tl.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=1e-2)
        self.loader = DataLoader(TensorDataset(tl.tensor(data["x_train"]), tl.tensor(data["y_train"])),
                                 batch_size=64, shuffle=True)
        self.schedule = tl.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=epochs * len(self.loader))
        self.loss = nn.CrossEntropyLoss()

    def epoch(self, label: str, progress: bool) -> float:
        from tqdm import tqdm

        self.model.train()
        total, count = 0.0, 0
        for x, y in tqdm(self.loader, desc=label, leave=False, disable=not progress):
            self.optimizer.zero_grad()
            loss = self.loss(self.model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=1.0)
            self.optimizer.step()
            self.schedule.step()
            total, count = total + loss.item() * len(y), count + len(y)
        return total / count

    def accuracy(self, x: np.ndarray, y: np.ndarray) -> float:
        self.model.eval()
        with tl.no_grad():
            predicted = self.model(tl.tensor(x)).argmax(dim=1).numpy()
        return float((predicted == y).mean())

    def checkpoint(self) -> dict[str, Any]:
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "schedule": self.schedule.state_dict(), "rng": tl.get_rng_state()}

    def restore(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        tl.set_rng_state(state["rng"])


def train(name: str, data: dict[str, np.ndarray], epochs: int, lr: float, seed: int, out: str,
          progress: bool, resume_epochs: int = 2) -> dict[str, Any]:
    """Train `name` for `epochs`; the last `resume_epochs` are run again from a checkpoint loaded into
    fresh objects, which must end with the same parameters, bit for bit."""
    make = MODELS[name][0]
    tl.manual_seed(seed)
    run = Run(make, data, epochs, lr)
    history: dict[str, list[float]] = {"loss": [], "test_accuracy": []}
    path = os.path.join(out, f"{name}_checkpoint.safetensors")
    start = time.perf_counter()
    for epoch in range(epochs):
        if epoch == epochs - resume_epochs:
            tl.save(run.checkpoint(), path)
        history["loss"].append(run.epoch(f"{name} epoch {epoch + 1}/{epochs}", progress))
        history["test_accuracy"].append(run.accuracy(data["x_test"], data["y_test"]))
    seconds = time.perf_counter() - start
    resumed = Run(make, data, epochs, lr)  # fresh objects (other random weights), then the checkpoint
    resumed.restore(tl.load(path))
    for _ in range(min(resume_epochs, epochs)):
        resumed.epoch(f"{name} resumed", progress)
    exact = all(np.array_equal(a.numpy(), b.numpy())
                for a, b in zip(run.model.state_dict().values(), resumed.model.state_dict().values()))
    return {"history": history, "accuracy": history["test_accuracy"][-1], "seconds": seconds, "exact_resume": exact}


def plot(results: dict[str, dict[str, Any]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (loss_ax, acc_ax) = plt.subplots(1, 2, figsize=(10, 4))
    for name, result in results.items():
        epochs = range(1, len(result["history"]["loss"]) + 1)
        loss_ax.plot(epochs, result["history"]["loss"], label=name)
        acc_ax.plot(epochs, result["history"]["test_accuracy"], label=name)
    loss_ax.set(xlabel="epoch", ylabel="training loss", yscale="log", title="loss")
    acc_ax.set(xlabel="epoch", ylabel="test accuracy", title="test accuracy", ylim=(0.5, 1.0))
    for ax in (loss_ax, acc_ax):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(epochs: int | None = None, seed: int = 0, out: str = "digits_sequence_out", make_plot: bool = True,
        progress: bool | None = None) -> dict[str, Any]:
    """Train both models (each for its own epochs unless `epochs`); the results per model."""
    os.makedirs(out, exist_ok=True)
    progress = sys.stderr.isatty() if progress is None else progress
    data = load_data(seed)
    results = {}
    for name, (_, default_epochs, lr) in MODELS.items():
        n = default_epochs if epochs is None else epochs
        results[name] = train(name, data, n, lr, seed, out, progress, resume_epochs=min(2, n))
    if make_plot:
        plot(results, os.path.join(out, "digits_sequence_curves.png"))
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=None, help="epochs per model (default: each model's own)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="digits_sequence_out")
    args = parser.parse_args(argv)
    results = run(args.epochs, args.seed, args.out)
    for name, result in results.items():
        print(f"{name:12s} test accuracy {result['accuracy']:.4f}  ({len(result['history']['loss'])} epochs, "
              f"{result['seconds']:.1f} s)  resumed from its checkpoint bit-exactly: {result['exact_resume']}")
    print(f"curves: {os.path.join(args.out, 'digits_sequence_curves.png')}")


if __name__ == "__main__":
    main()
