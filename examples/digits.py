"""Train an MLP and a small CNN on scikit-learn's 8x8 handwritten digits with torchlight.

The data ship with scikit-learn (`sklearn.datasets.load_digits`, 1797 images,
no download). Both models train with Adam on minibatches, a tqdm bar per
epoch (on a terminal only: a log gets one line an epoch); the script prints
the test accuracy of each, writes a PNG of the loss and accuracy curves,
then saves each model with `tl.save` (safetensors), loads it into a fresh
model and checks that the predictions are identical.

    pip install -e ".[examples]"
    python examples/digits.py                       # NumPy backend, about ten seconds
    python examples/digits.py --backend array_api_strict --epochs 3 --out /tmp/digits
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import torchlight as tl
from torchlight import nn
from torchlight.nn import functional as F

DTYPE = "float32"


def load_data(seed: int) -> dict[str, np.ndarray]:
    """Pixels scaled to [0, 1], split 75/25 stratified by class with `seed`."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    images, labels = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(
        (images / 16.0).astype(DTYPE), labels.astype(np.int64), test_size=0.25, stratify=labels,
        random_state=seed)
    return {"x_train": x_train, "y_train": y_train, "x_test": x_test, "y_test": y_test}


def make_mlp() -> nn.Module:
    """64 pixels -> 256 hidden units (ReLU, dropout 0.2) -> 10 classes."""
    return nn.Sequential(nn.Linear(64, 256, dtype=DTYPE), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 10, dtype=DTYPE))


class SmallCNN(nn.Module):
    """Two 3x3 conv blocks (16, 32 channels) with 2x2 max pooling, then a linear classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1, dtype=DTYPE), nn.ReLU(), nn.MaxPool2d(2),    # 16 x 4 x 4
            nn.Conv2d(16, 32, 3, padding=1, dtype=DTYPE), nn.ReLU(), nn.MaxPool2d(2),   # 32 x 2 x 2
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.1), nn.Linear(128, 10, dtype=DTYPE))

    def forward(self, x: tl.Tensor) -> tl.Tensor:
        return self.classifier(self.features(x.reshape(x.shape[0], 1, 8, 8)))


def predict(model: nn.Module, x: tl.Tensor, batch: int = 512) -> np.ndarray:
    """The logits of `model` on `x` in eval mode, as a host array."""
    model.eval()
    with tl.no_grad():
        n = x.shape[0]  # slices stay in bounds and name every axis: array_api_strict asks for both
        parts = [model(x[i:min(i + batch, n), ...]).numpy() for i in range(0, n, batch)]
    return np.concatenate(parts)


def mean_loss(model: nn.Module, x: tl.Tensor, y: tl.Tensor) -> float:
    model.eval()
    with tl.no_grad():
        return F.cross_entropy(model(x), y).item()


def train(model: nn.Module, data: dict[str, tl.Tensor], *, epochs: int, lr: float, batch: int, seed: int,
          progress: bool = True, label: str = "") -> dict[str, list[float]]:
    """Adam on shuffled minibatches with a cosine learning-rate decay to 0 over `epochs`
    (the last epochs take small steps, so the final accuracy is a settled one).

    After each epoch the whole training set is scored in eval mode (the same
    measure as the epoch-0, untrained, point the history starts with).
    """
    from tqdm import tqdm

    x, y = data["x_train"], data["y_train"]
    optimizer = tl.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    history = {"train_loss": [mean_loss(model, x, y)],
               "test_acc": [accuracy(model, data["x_test"], data["y_test_host"])]}
    n = x.shape[0]
    for epoch in range(1, epochs + 1):
        for group in optimizer.param_groups:
            group["lr"] = lr * 0.5 * (1.0 + math.cos(math.pi * (epoch - 1) / epochs))
        model.train()
        order = rng.permutation(n)
        batches = range(0, n, batch)
        # disable=None: tqdm draws only on a terminal, so a log or a pipe gets the epoch lines alone
        bar = tqdm(batches, desc=f"{label} epoch {epoch}/{epochs}", leave=False, disable=None if progress else True,
                   unit="batch")
        for start in bar:
            index = tl.tensor(order[start:start + batch], backend=x.backend)
            loss = F.cross_entropy(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
        history["train_loss"].append(mean_loss(model, x, y))
        history["test_acc"].append(accuracy(model, data["x_test"], data["y_test_host"]))
        if progress:
            print(f"{label} epoch {epoch:2d}: train loss {history['train_loss'][-1]:.4f}, "
                  f"test accuracy {history['test_acc'][-1]:.2%}")
    return history


def accuracy(model: nn.Module, x: tl.Tensor, labels: np.ndarray) -> float:
    return float(np.mean(predict(model, x).argmax(axis=1) == labels))


def check_checkpoint(model: nn.Module, make: Callable[[], nn.Module], path: str, x: tl.Tensor,
                     backend: str) -> np.ndarray:
    """Save `model`, load the file into a fresh model, and demand identical logits."""
    tl.save(model, path)
    restored = make().to(backend=backend)
    restored.load_state_dict(tl.load(path, backend=backend))
    before, after = predict(model, x), predict(restored, x)
    if not np.array_equal(before, after):
        raise AssertionError(f"checkpoint {path}: the reloaded model predicts differently")
    return after


def plot(histories: dict[str, dict[str, list[float]]], path: str) -> None:
    """Two panels: training loss and test accuracy per epoch, one line per model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    for name, history in histories.items():
        epochs = range(len(history["train_loss"]))
        ax_loss.plot(epochs, history["train_loss"], marker="o", markersize=3, label=name)
        ax_acc.plot(epochs, [100 * a for a in history["test_acc"]], marker="o", markersize=3, label=name)
    ax_loss.set(title="Training loss (cross-entropy)", xlabel="epoch", ylabel="loss", yscale="log")
    ax_acc.set(title="Test accuracy", xlabel="epoch", ylabel="accuracy (%)", ylim=(80, 100))
    ax_acc.axhline(97, color="grey", linestyle="--", linewidth=1, label="97%")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("torchlight on scikit-learn digits (8x8)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


#: name -> (constructor, peak learning rate, default epochs)
MODELS: dict[str, tuple[Callable[[], nn.Module], float, int]] = {
    "MLP": (make_mlp, 2e-3, 40),
    "CNN": (SmallCNN, 3e-3, 30),
}


def run(backend: str = "numpy", epochs: dict[str, int] | int | None = None, seed: int = 0,
        out: str = "digits_out", make_plot: bool = True, progress: bool = True,
        batch: int = 32) -> dict[str, Any]:
    """Train both models; returns the models, histories, accuracies and checkpoint paths.

    BLAS runs single-threaded here (threadpoolctl comes with scikit-learn):
    the matmuls of these small models are faster on one thread, and
    OpenBLAS's spinning worker threads slow them down several times over
    when the machine is busy.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _run(backend, epochs, seed, out, make_plot, progress, batch)


def _run(backend: str, epochs: dict[str, int] | int | None, seed: int, out: str, make_plot: bool,
         progress: bool, batch: int) -> dict[str, Any]:
    if epochs is None or isinstance(epochs, int):
        epochs = {name: spec[2] if epochs is None else epochs for name, spec in MODELS.items()}
    os.makedirs(out, exist_ok=True)
    host = load_data(seed)
    data = {name: tl.tensor(array, backend=backend) for name, array in host.items()}
    data["y_test_host"] = host["y_test"]
    results: dict[str, Any] = {"models": {}, "histories": {}, "accuracy": {}, "checkpoints": {}, "seconds": {}}
    for name, (make, lr, _) in MODELS.items():
        tl.manual_seed(seed)
        start = time.perf_counter()
        model = make().to(backend=backend)
        history = train(model, data, epochs=epochs[name], lr=lr, batch=batch, seed=seed, progress=progress,
                        label=name)
        path = os.path.join(out, f"{name.lower()}.safetensors")
        reloaded = check_checkpoint(model, make, path, data["x_test"], backend)
        results["models"][name] = model
        results["histories"][name] = history
        results["accuracy"][name] = float(np.mean(reloaded.argmax(axis=1) == host["y_test"]))
        results["checkpoints"][name] = path
        results["seconds"][name] = time.perf_counter() - start
        print(f"{name}: test accuracy {results['accuracy'][name]:.2%} "
              f"({results['seconds'][name]:.1f} s); checkpoint {path} reloads with identical predictions")
    if make_plot:
        results["plot"] = os.path.join(out, "digits_curves.png")
        plot(results["histories"], results["plot"])
        print(f"curves written to {results['plot']}")
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy", help="numpy (default), array_api_strict, torch, jax, cupy")
    parser.add_argument("--epochs", type=int, default=None, help="epochs for both models (default: MLP 40, CNN 30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split, the initialisation and the batches")
    parser.add_argument("--out", default="digits_out", help="folder for the checkpoints and the PNG")
    args = parser.parse_args(argv)
    run(args.backend, args.epochs, args.seed, args.out)


if __name__ == "__main__":
    main()
