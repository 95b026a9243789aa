"""HIPS autograd's `neural_net.py`, written with `torchlight.func.grad` over a list of (W, b) pairs.

The parameters are a plain list of (weights, biases) pairs of NumPy arrays;
`func.grad(objective)` returns a gradient of the same structure, and Adam
updates the pairs leaf by leaf with `func.tree_map` (autograd's example
flattens them for its optimizer instead). The model: a tanh MLP whose
output is normalized class log-probabilities, trained to maximize the log
posterior (log-likelihood minus an L2 penalty). The data: scikit-learn's
8x8 handwritten digits (shipped with it, no download) in place of MNIST.

    pip install -e ".[examples]"
    python examples/neural_net.py                 # a few seconds
    python examples/neural_net.py --epochs 5
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

import torchlight as tl
from torchlight import func

Params = list[tuple[Any, Any]]


def init_random_params(scale: float, layer_sizes: list[int], rs: np.random.RandomState | None = None) -> Params:
    """A list of (weights, biases) pairs, one per layer, drawn from N(0, scale^2)."""
    rs = np.random.RandomState(0) if rs is None else rs
    return [(scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def neural_net_predict(params: Params, inputs: Any) -> Any:
    """Normalized class log-probabilities of an (N x D) matrix of inputs; tanh between layers."""
    for W, b in params:
        outputs = inputs @ W + b
        inputs = outputs.tanh()
    return outputs - outputs.logsumexp(1, keepdim=True)


def l2_norm(params: Params) -> Any:
    """The squared norm of all the parameters together (autograd's example flattens them first)."""
    return sum((leaf ** 2).sum() for leaf in func.tree_leaves(params))


def log_posterior(params: Params, inputs: Any, targets: Any, L2_reg: float) -> Any:
    log_prior = -L2_reg * l2_norm(params)
    log_lik = (neural_net_predict(params, inputs) * targets).sum()
    return log_prior + log_lik


def accuracy(params: Params, inputs: np.ndarray, targets: np.ndarray) -> float:
    with tl.no_grad():
        tparams = func.tree_map(tl.tensor, params)
        predicted = neural_net_predict(tparams, tl.tensor(inputs)).numpy().argmax(1)
    return float(np.mean(predicted == targets.argmax(1)))


def adam(grad: Callable[[Params, int], Params], params: Params, callback: Callable[[Params, int, Params], None],
         num_iters: int, step_size: float = 0.001, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Params:
    """Adam over a pytree of arrays (autograd's `adam`, leaf by leaf with `func.tree_map`)."""
    m = func.tree_map(np.zeros_like, params)
    v = func.tree_map(np.zeros_like, params)
    for i in range(num_iters):
        g = grad(params, i)
        callback(params, i, g)
        m = func.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = func.tree_map(lambda v, g: b2 * v + (1 - b2) * g ** 2, v, g)
        params = func.tree_map(_adam_step(step_size, 1 - b1 ** (i + 1), 1 - b2 ** (i + 1), eps), params, m, v)
    return params


def _adam_step(step_size: float, c1: float, c2: float, eps: float) -> Callable[[Any, Any, Any], Any]:
    """One leaf's Adam step, `c1` and `c2` the bias corrections of the moments."""
    return lambda p, m, v: p - step_size * (m / c1) / (np.sqrt(v / c2) + eps)


def load_digits(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pixels in [0, 1] and one-hot labels, split 75/25 stratified by class."""
    from sklearn.datasets import load_digits as load
    from sklearn.model_selection import train_test_split

    images, labels = load(return_X_y=True)
    one_hot = np.eye(10)[labels]
    x_train, x_test, y_train, y_test = train_test_split(images / 16.0, one_hot, test_size=0.25, stratify=labels,
                                                        random_state=seed)
    return x_train, y_train, x_test, y_test


def run(num_epochs: int = 10, batch_size: int = 128, step_size: float = 0.01, L2_reg: float = 0.1,
        layer_sizes: tuple[int, ...] = (64, 200, 100, 10), param_scale: float = 0.1,
        verbose: bool = True) -> dict[str, list[float]]:
    """Train, printing one row per epoch; returns the per-epoch loss and accuracies."""
    train_images, train_labels, test_images, test_labels = load_digits()
    init_params = init_random_params(param_scale, list(layer_sizes))
    num_batches = int(np.ceil(len(train_images) / batch_size))

    def batch_indices(it: int) -> slice:
        idx = it % num_batches
        return slice(idx * batch_size, (idx + 1) * batch_size)

    def objective(params: Params, it: int) -> Any:
        idx = batch_indices(it)
        return -log_posterior(params, tl.tensor(train_images[idx]), tl.tensor(train_labels[idx]), L2_reg)

    objective_grad = func.grad(objective)
    history: dict[str, list[float]] = {"loss": [], "train": [], "test": []}
    if verbose:
        print("     Epoch     |   Train loss   |  Train accuracy  |  Test accuracy")

    def print_perf(params: Params, it: int, gradient: Params) -> None:
        if it % num_batches == 0:
            with tl.no_grad():
                loss = -float(log_posterior(func.tree_map(tl.tensor, params), tl.tensor(train_images),
                                            tl.tensor(train_labels), L2_reg)) / len(train_images)
            train_acc = accuracy(params, train_images, train_labels)
            test_acc = accuracy(params, test_images, test_labels)
            history["loss"].append(loss)
            history["train"].append(train_acc)
            history["test"].append(test_acc)
            if verbose:
                print(f"{it // num_batches:15d}|{loss:16.4f}|{train_acc:18.4f}|{test_acc:16.4f}")

    adam(objective_grad, init_params, print_perf, num_iters=num_epochs * num_batches + 1, step_size=step_size)
    return history


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=10)
    opts = p.parse_args()
    run(num_epochs=opts.epochs)


if __name__ == "__main__":
    main()
