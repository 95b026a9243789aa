"""Numerical checks of gradients: `central_difference`, `gradcheck`, `gradgradcheck`.

Example:
    >>> import torchlight as tl
    >>> from torchlight.autograd import central_difference, gradcheck
    >>> round(central_difference(lambda x: x * x, 3.0), 6)
    6.0
    >>> x = tl.tensor([0.5, -1.0], requires_grad=True)
    >>> gradcheck(lambda t: (t * t).tanh(), x)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def _as_float(value: Any) -> float:
    if hasattr(value, "item") and hasattr(value, "backend"):
        return float(value.item())
    if hasattr(value, "data") and not hasattr(value, "shape"):
        return float(value.data)
    return float(value)


def central_difference(f: Callable, *vals: float, arg: int = 0, epsilon: float = 1e-6) -> float:
    """(f(.., x + eps, ..) - f(.., x - eps, ..)) / (2 eps) in argument `arg`.

    `f` may return a float, a `Value` or a one-element Tensor.
    """
    up = list(vals)
    down = list(vals)
    up[arg] = vals[arg] + epsilon
    down[arg] = vals[arg] - epsilon
    return (_as_float(f(*up)) - _as_float(f(*down))) / (2.0 * epsilon)


class GradcheckError(AssertionError):
    """A backward that disagrees with central differences."""


def _host64(t: Any) -> np.ndarray:
    return np.asarray(t.backend.to_numpy(t.data), dtype=np.float64)


def _default_tolerances(inputs: Sequence[Any]) -> tuple[float, float, float]:
    """(eps, atol, rtol) for the narrowest floating input: float64 tight, float32 loose.

    Integer inputs (indices held fixed) do not count.
    """
    dtypes = [np.dtype(str(x.dtype).split(".")[-1]) for x in inputs]
    sizes = [d.itemsize for d in dtypes if d.kind in "fc"]
    if min(sizes, default=8) >= 8:
        return 1e-6, 1e-5, 1e-4
    return 1e-3, 2e-2, 2e-2


def _numeric_directional(fn: Callable, inputs: Sequence[Any], direction: list[np.ndarray],
                         weights: np.ndarray, eps: float) -> float:
    """d/dt <weights, fn(inputs + t * direction)> at t = 0, in float64."""
    import torchlight as tl

    def value(t: float) -> float:
        moved = []
        for x, d in zip(inputs, direction):
            host = _host64(x) + t * d
            arr = x.backend.asarray(host.astype(np.dtype(str(x.dtype).split(".")[-1])), device=x.device)
            moved.append(tl.tensor(arr))
        with tl.no_grad():
            out = fn(*moved)
        return float(np.sum(_host64(out) * weights))

    return (value(eps) - value(-eps)) / (2.0 * eps)


def gradcheck(fn: Callable, *inputs: Any, eps: float | None = None, atol: float | None = None,
              rtol: float | None = None, full_jacobian_max: int = 16, seed: int = 0,
              raise_exception: bool = True) -> bool:
    """Compare `fn`'s backward with central differences.

    Always one random direction (a vjp against a numerical jvp); when every
    input has at most `full_jacobian_max` elements, also the full Jacobian,
    one input element at a time. Differences are taken on float64 copies of
    the inputs' values cast back to the input dtype, with tolerances chosen
    from the dtype. Inputs that do not require grad are held fixed.
    """

    rng = np.random.default_rng(seed)
    d_eps, d_atol, d_rtol = _default_tolerances(inputs)
    eps = d_eps if eps is None else eps
    atol = d_atol if atol is None else atol
    rtol = d_rtol if rtol is None else rtol
    leaves = [x.detach().requires_grad_(x.requires_grad) for x in inputs]
    out = fn(*leaves)
    weights = rng.standard_normal(out.shape)
    if out.requires_grad:  # else no input reaches the output: the gradient is zero
        out.backward(_like(out, weights))
    analytic = [(_host64(x.grad) if x.grad is not None else np.zeros(x.shape)) if x.requires_grad else None
                for x in leaves]
    direction = [rng.standard_normal(x.shape) if x.requires_grad else np.zeros(x.shape) for x in leaves]
    numeric = _numeric_directional(fn, leaves, direction, weights, eps)
    expected = sum(float(np.sum(a * d)) for a, d in zip(analytic, direction) if a is not None)
    if not np.isclose(expected, numeric, atol=atol, rtol=rtol):
        return _fail(raise_exception, f"directional derivative: backward gives {expected!r}, "
                                      f"central differences give {numeric!r}")
    if max((x.size for x in leaves), default=0) <= full_jacobian_max:
        for k, x in enumerate(leaves):
            if not x.requires_grad:
                continue
            for i in range(x.size):
                basis = [np.zeros(y.shape) for y in leaves]
                basis[k].reshape(-1)[i] = 1.0
                num = _numeric_directional(fn, leaves, basis, weights, eps)
                ana = analytic[k].reshape(-1)[i]
                if not np.isclose(ana, num, atol=atol, rtol=rtol):
                    return _fail(raise_exception, f"input {k}, element {i}: backward gives {ana!r}, "
                                                  f"central differences give {num!r}")
    return True


def gradgradcheck(fn: Callable, *inputs: Any, seed: int = 0, **tolerances: Any) -> bool:
    """`gradcheck` of the gradient itself, built with `create_graph=True`.

    The function checked is x -> sum_k <v_k, d<w, fn(x)>/dx_k> for fixed
    random w and v_k: its gradient is a Hessian-vector product of fn.
    """
    import torchlight as tl

    rng = np.random.default_rng(seed + 1)
    with tl.no_grad():
        probe = fn(*[x.detach() for x in inputs])
    w = rng.standard_normal(probe.shape)
    v = [rng.standard_normal(x.shape) for x in inputs]
    wanted = [x.requires_grad for x in inputs]

    def first_derivative(*xs: Any) -> Any:
        with tl.enable_grad():
            leaves = [x if x.requires_grad or not want else x.detach().requires_grad_(True)
                      for x, want in zip(xs, wanted)]
            out = fn(*leaves)
            targets = [x for x, want in zip(leaves, wanted) if want]
            grads = tl.autograd.grad(out, targets, _like(out, w), create_graph=True, allow_unused=True)
            total = None
            for x, g, vk in zip(targets, grads, [vk for vk, want in zip(v, wanted) if want]):
                if g is None:
                    continue
                term = (g * _like(x, vk)).sum()
                total = term if total is None else total + term
            if total is None:
                total = (out * 0.0).sum()
        return total

    return gradcheck(first_derivative, *inputs, seed=seed, **tolerances)


def _like(t: Any, host: np.ndarray) -> Any:
    """A host array as a Tensor of `t`'s backend, device and dtype."""
    import torchlight as tl

    dtype = np.dtype(str(t.dtype).split(".")[-1])
    return tl.tensor(t.backend.asarray(np.asarray(host, dtype=dtype), device=t.device))


def _fail(raise_exception: bool, message: str) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False
