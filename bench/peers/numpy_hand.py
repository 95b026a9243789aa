"""Hand-written NumPy (or CuPy) with the gradient written by hand: the floor.

Each workload is written the way a careful person writes it without an
autograd library: keep what the backward needs, write each derivative once.
The same code runs on CuPy, since it only uses the functions both share.

Example:
    >>> import numpy as np
    >>> from bench.peers import Env
    >>> from bench.peers.numpy_hand import make
    >>> from bench.workloads import w1_data
    >>> sorted(make("W1", w1_data(), Env(xp=np)).grads())
    ['b', 'w', 'x']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bench.peers import Case, Env
from bench.workloads import W1_CONSTANT, W1_KINDS, W1_OPS, W2_LR, W5_LENGTH, W6_CHAIN


def host(a: Any) -> np.ndarray:
    """A host NumPy copy of a NumPy or CuPy array."""
    return a.get() if hasattr(a, "get") else np.array(a)


def w1(d: dict, env: Env) -> Case:
    xp = env.xp
    x, w, b = (xp.asarray(d[k]) for k in "xwb")

    def forward_backward() -> dict[str, Any]:
        tape = []
        h = x
        for i in range(W1_OPS):
            kind = W1_KINDS[i % len(W1_KINDS)]
            if kind == "mul":
                tape.append(h)
                h = h * w
            elif kind == "add":
                h = h + b
            elif kind == "tanh":
                h = xp.tanh(h)
                tape.append(h)
            elif kind == "exp":
                h = xp.exp(h)
                tape.append(h)
            elif kind == "sigmoid":
                h = 1.0 / (1.0 + xp.exp(-h))
                tape.append(h)
            else:
                h = h * W1_CONSTANT
        xp.sum(h)
        g = xp.ones_like(h)
        gw = xp.zeros_like(w)
        gb = xp.zeros_like(b)
        for i in reversed(range(W1_OPS)):
            kind = W1_KINDS[i % len(W1_KINDS)]
            if kind == "mul":
                gw = gw + g * tape.pop()
                g = g * w
            elif kind == "add":
                gb = gb + g
            elif kind == "tanh":
                y = tape.pop()
                g = g * (1.0 - y * y)
            elif kind == "exp":
                g = g * tape.pop()
            elif kind == "sigmoid":
                y = tape.pop()
                g = g * (y * (1.0 - y))
            else:
                g = g * W1_CONSTANT
        return {"x": g, "w": gw, "b": gb}

    return Case(forward_backward, lambda: {k: host(v) for k, v in forward_backward().items()})


def w2(d: dict, env: Env) -> Case:
    xp = env.xp
    X = xp.asarray(d["X"])
    y = xp.asarray(d["y"])
    rows = xp.arange(X.shape[0])

    def fresh() -> dict[str, Any]:
        return {k: xp.asarray(d[k]).copy() for k in ("W1", "b1", "W2", "b2", "W3", "b3")}

    def grads_of(p: dict[str, Any]) -> dict[str, Any]:
        z1 = X @ p["W1"].T + p["b1"]  # weights are (out, in), as nn layers keep them
        h1 = xp.maximum(z1, 0)
        z2 = h1 @ p["W2"].T + p["b2"]
        h2 = xp.maximum(z2, 0)
        logits = h2 @ p["W3"].T + p["b3"]
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = xp.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        # the loss, as every framework computes it (and as W1, W3 and W6 by hand compute theirs)
        (xp.log(total[:, 0]) - shifted[rows, y]).mean()
        prob = e / total
        # loss = -mean(log(prob[rows, y])); its gradient in the logits:
        dz3 = prob
        dz3[rows, y] -= 1
        dz3 /= X.shape[0]
        dh2 = dz3 @ p["W3"]
        dz2 = dh2 * (z2 > 0)
        dh1 = dz2 @ p["W2"]
        dz1 = dh1 * (z1 > 0)
        return {"W3": dz3.T @ h2, "b3": dz3.sum(axis=0), "W2": dz2.T @ h1, "b2": dz2.sum(axis=0),
                "W1": dz1.T @ X, "b1": dz1.sum(axis=0)}

    params = fresh()

    def step() -> None:
        for k, g in grads_of(params).items():
            params[k] -= W2_LR * g

    return Case(step, lambda: {k: host(v) for k, v in grads_of(fresh()).items()})


def w3(d: dict, env: Env) -> Case:
    xp = env.xp
    x, w = xp.asarray(d["x"]), xp.asarray(d["w"])

    def forward_backward() -> dict[str, Any]:
        t = xp.tanh(x * w)
        s = 1.0 / (1.0 + xp.exp(-x))
        e = xp.exp(-x * x)
        (t * s + e).sum()
        dxw = s * (1.0 - t * t)
        gx = dxw * w + t * (s * (1.0 - s)) - 2.0 * x * e
        gw = dxw * x
        return {"x": gx, "w": gw}

    return Case(forward_backward, lambda: {k: host(v) for k, v in forward_backward().items()})


def w4(d: dict, env: Env) -> Case:
    X, Y = d["X"], d["Y"]

    def forward_backward() -> dict[str, Any]:
        h1 = np.tanh(X @ d["W1"] + d["b1"])
        h2 = np.tanh(h1 @ d["W2"] + d["b2"])
        out = h2 @ d["W3"] + d["b3"]
        dout = 2.0 * (out - Y)
        dz2 = (dout @ d["W3"].T) * (1.0 - h2 * h2)
        dz1 = (dz2 @ d["W2"].T) * (1.0 - h1 * h1)
        return {"W3": h2.T @ dout, "b3": dout.sum(axis=0), "W2": h1.T @ dz2, "b2": dz2.sum(axis=0),
                "W1": X.T @ dz1, "b1": dz1.sum(axis=0)}

    return Case(forward_backward, forward_backward)


def w5(d: dict, env: Env) -> Case:
    x0 = float(d["x"])

    def forward_backward() -> dict[str, Any]:
        y = x0
        for _ in range(W5_LENGTH):
            y = y + x0
        gx = 1.0  # y = x: the start of the chain
        g = 1.0
        for _ in range(W5_LENGTH):
            gx = gx + g
        return {"x": np.asarray(gx)}

    return Case(forward_backward, forward_backward)


def w6(d: dict, env: Env) -> Case:
    xp = env.xp
    a, b = xp.asarray(d["a"]), xp.asarray(d["b"])

    def forward_backward() -> dict[str, Any]:
        ys = [a]
        for _ in range(W6_CHAIN):
            ys.append(ys[-1] @ b)
        ys.pop().sum()
        g = xp.ones((a.shape[0], a.shape[1], b.shape[2]), dtype=a.dtype)
        gb = xp.zeros_like(b)
        bt = xp.swapaxes(b, -1, -2)
        while ys:
            gb = gb + xp.swapaxes(ys.pop(), -1, -2) @ g
            g = g @ bt
        return {"a": g, "b": gb}

    return Case(forward_backward, lambda: {k: host(v) for k, v in forward_backward().items()})


def make(key: str, data: dict, env: Env) -> Case:
    """The hand-written case of workload `key`."""
    return {"W1": w1, "W2": w2, "W3": w3, "W4": w4, "W5": w5, "W6": w6}[key](data, env)
