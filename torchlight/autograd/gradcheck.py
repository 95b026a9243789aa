"""Numerical checks of gradients: `central_difference`, `gradcheck`, `gradgradcheck`.

Example:
    >>> import torchlight as tl
    >>> from torchlight.autograd import central_difference, gradcheck
    >>> round(central_difference(lambda x: x * x, 3.0), 6)
    6.0
    >>> x = tensor([0.5, -1.0], requires_grad=True)
    >>> gradcheck(lambda t: (t * t).tanh(), x)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from torchlight.autograd.functional import grad
from torchlight.creation import tensor
from torchlight.grad_mode import enable_grad, no_grad
from torchlight.ops.shapes import cat


def _as_float(value: Any) -> float:
    if hasattr(value, "item") and hasattr(value, "backend"):
        return float(value.item())
    if hasattr(value, "data") and not hasattr(value, "shape"):
        return float(value.data)
    return float(value)


def central_difference(f: Callable, *vals: float, arg: int = 0, epsilon: float = 1e-6) -> float:
    """(f(.., x + eps, ..) - f(.., x - eps, ..)) / (2 eps) in argument `arg`.

    `f` may return a float, a `Value` or a one-element Tensor.

    Example:
        >>> from torchlight.autograd import central_difference
        >>> round(central_difference(lambda a, b: a * b * b, 3.0, 4.0, arg=1), 6)  # d(a b^2)/db = 2 a b
        24.0
    """
    up = list(vals)
    down = list(vals)
    up[arg] = vals[arg] + epsilon
    down[arg] = vals[arg] - epsilon
    return (_as_float(f(*up)) - _as_float(f(*down))) / (2.0 * epsilon)


class GradcheckError(AssertionError):
    """A backward that disagrees with central differences (an AssertionError).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import Function, gradcheck
        >>> class WrongSquare(Function):
        ...     @staticmethod
        ...     def forward(ctx, a):
        ...         ctx.save_for_backward(a)
        ...         return a * a
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (a,) = ctx.saved_tensors
        ...         return g * a  # should be 2 * g * a
        >>> gradcheck(WrongSquare.apply, tl.tensor([1.0, 2.0], requires_grad=True))
        Traceback (most recent call last):
        ...
        torchlight.autograd.gradcheck.GradcheckError: input 0, element 0: backward gives 0.12..., central ...
    """


def _host64(t: Any) -> np.ndarray:
    return np.asarray(t.backend.to_numpy(t.data), dtype=np.float64)


def _default_tolerances(inputs: Sequence[Any]) -> tuple[float, float, float]:
    """(eps, atol, rtol) for the narrowest floating input: float64 tight, float32 loose.

    Integer inputs (indices held fixed) do not count.
    """
    dtypes = [_np_dtype(x) for x in inputs if _is_tensor(x)]
    sizes = [d.itemsize for d in dtypes if d.kind in "fc"]
    if min(sizes, default=8) >= 8:
        return 1e-6, 1e-5, 1e-4
    return 1e-3, 2e-2, 2e-2


def _tolerances(inputs: Sequence[Any], eps: float | None, atol: float | None,
                rtol: float | None) -> tuple[float, float, float]:
    d_eps, d_atol, d_rtol = _default_tolerances(inputs)
    return (d_eps if eps is None else eps), (d_atol if atol is None else atol), (d_rtol if rtol is None else rtol)


def _np_dtype(t: Any) -> np.dtype:
    return np.dtype(str(t.dtype).split(".")[-1])


def _is_tensor(x: Any) -> bool:
    """Whether `x` is a Tensor; other inputs (a number, a shape) are passed to fn as they are."""
    return getattr(x, "_is_tensor", False)


def _moved(inputs: Sequence[Any], directions: dict[int, np.ndarray], eps: float) -> tuple[list, list, dict]:
    """The host values of `inputs` moved by +eps and -eps along `directions` (input index ->
    direction), rounded to each input's dtype, and the step actually taken per moved input,
    (up - down) / (2 eps): rounding makes it differ from the direction (by ~6% at |x| = 700
    in float32), so the backward's gradient is weighed by it, comparing like with like."""
    up, down, steps = [], [], {}
    for k, x in enumerate(inputs):
        if not _is_tensor(x):
            up.append(x)
            down.append(x)
            continue
        host = _host64(x)
        if k not in directions:
            up.append(host.astype(_np_dtype(x)))
            down.append(up[-1])
            continue
        up.append((host + eps * directions[k]).astype(_np_dtype(x)))
        down.append((host - eps * directions[k]).astype(_np_dtype(x)))
        steps[k] = (up[-1].astype(np.float64) - down[-1].astype(np.float64)) / (2.0 * eps)
    return up, down, steps


def _evaluate(fn: Callable, inputs: Sequence[Any], hosts: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """fn on `hosts` (as Tensors of the inputs' backends and devices), without grad: the
    output in float64, and its ulp in its own dtype (the rounding error of each element)."""
    moved = [tensor(x.backend.asarray(h, device=x._device)) if _is_tensor(x) else h for x, h in zip(inputs, hosts)]
    with no_grad():
        out = _one_output(fn(*moved))
    host = _host64(out)
    dtype = _np_dtype(out)
    if dtype.kind != "f":
        return host, np.zeros(host.shape)
    finite = np.where(np.isfinite(host), np.abs(host), 0.0)
    return host, np.spacing(finite.astype(dtype)).astype(np.float64)


def _difference(fn: Callable, inputs: Sequence[Any], directions: dict[int, np.ndarray],
                eps: float) -> tuple[np.ndarray, np.ndarray, dict]:
    """Central differences of fn along `directions`, elementwise in float64: (the derivative,
    the error that rounding fn's outputs to their dtype can put into it (~1e-10 for float64
    outputs near 1, ~0.06 for float32 outputs near 1000), the steps actually taken)."""
    up, down, steps = _moved(inputs, directions, eps)
    (high, high_ulp), (low, low_ulp) = _evaluate(fn, inputs, up), _evaluate(fn, inputs, down)
    return (high - low) / (2.0 * eps), (high_ulp + low_ulp) / (2.0 * eps), steps


def gradcheck(fn: Callable, *inputs: Any, eps: float | None = None, atol: float | None = None,
              rtol: float | None = None, full_jacobian_max: int = 128, seed: int = 0,
              raise_exception: bool = True) -> bool:
    """Compare `fn`'s backward with central differences, element by element.

    The backward is run once for a random weighting w of the output; its
    gradient (the vjp w^T J) is compared, for each input that requires grad,
    with numerical directional derivatives: one per element (the full
    Jacobian row w^T J) when the input has at most `full_jacobian_max`
    elements, else one per group of a random split of its elements into
    `full_jacobian_max` groups (random signs within a group), so a wrong
    element of a large input is still seen within a small group. With
    `full_jacobian_max=0`, one random-sign direction per input. Differences
    are taken on float64 copies of the inputs' values cast back to the input
    dtype, with tolerances chosen from the dtype (plus the rounding error of
    fn's outputs in their dtype). Inputs that do not require grad are held
    fixed, and inputs that are not Tensors (a number, a shape) are passed to
    fn as they are; at least one must require grad (ValueError, as PyTorch:
    otherwise nothing would be checked). fn may return a tuple of Tensors, as
    PyTorch's gradcheck allows: its floating-point outputs are checked
    together (flattened and concatenated).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import gradcheck
        >>> x = tl.tensor([[0.5, -1.0], [2.0, 0.1]], requires_grad=True)
        >>> w = tl.tensor([1.0, 3.0])  # held fixed: it does not require grad
        >>> gradcheck(lambda a, b: (a @ b).sigmoid(), x, w)
        True
        >>> zero = tl.tensor([0.0], requires_grad=True)  # relu's kink: its backward says 0, differences 0.5
        >>> gradcheck(lambda a: a.relu(), zero, raise_exception=False)
        False
    """
    _require_some_grad("gradcheck", inputs)
    return _check(fn, inputs, _tolerances(inputs, eps, atol, rtol), full_jacobian_max, seed, raise_exception)


def _check(fn: Callable, inputs: Sequence[Any], tolerances: tuple[float, float, float],
           full_jacobian_max: int, seed: int, raise_exception: bool) -> bool:
    rng = np.random.default_rng(seed)
    eps, atol, rtol = tolerances
    leaves = _leaves(inputs)
    out = _one_output(fn(*leaves))
    weights = rng.standard_normal(out.shape)
    if out.requires_grad:  # else no input reaches the output: the gradient is zero
        out.backward(_like(out, weights))
    for k, x in enumerate(leaves):
        if not getattr(x, "requires_grad", False) or x.size == 0:
            continue
        analytic = _host64(x.grad).reshape(-1) if x.grad is not None else np.zeros(x.size)
        for members, signs in _groups(x.size, full_jacobian_max, rng):
            direction = np.zeros(x.size)
            direction[members] = signs
            diff, rounding, steps = _difference(fn, leaves, {k: direction.reshape(x.shape)}, eps)
            num = float(np.sum(diff * weights))
            ana = float(np.sum(analytic * steps[k].reshape(-1)))
            if not np.isclose(ana, num, atol=atol + float(np.sum(rounding * np.abs(weights))), rtol=rtol):
                where = (f"element {members[0]}" if len(members) == 1 else
                         f"elements {members.tolist()} (a random group, with signs {signs.tolist()})")
                return _fail(raise_exception, f"input {k}, {where}: backward gives {ana!r}, "
                                              f"central differences give {num!r}")
    return True


def _groups(size: int, most: int, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """(flat indices, signs) to check: each element alone when size <= most, else
    max(most, 1) random groups of nearly equal size with random signs."""
    if size <= most:
        return [(np.array([i]), np.ones(1)) for i in range(size)]
    order = rng.permutation(size)
    signs = rng.choice([-1.0, 1.0], size)
    parts = [np.sort(part) for part in np.array_split(order, max(most, 1))]
    return [(part, signs[part]) for part in parts]


def _require_some_grad(what: str, inputs: Sequence[Any]) -> None:
    if not any(getattr(x, "requires_grad", False) for x in inputs):
        raise ValueError(f"{what}: no input has requires_grad=True, so there is no gradient to check; "
                         "make the inputs to differentiate with requires_grad=True")
    for x in inputs:  # (its differences move real values: a complex input's imaginary part would be lost)
        if _is_tensor(x) and x.backend.is_complex(x.dtype):
            raise TypeError(f"{what}: complex inputs are not supported (dtype {x.dtype}): its differences "
                            "move real values; check a function of real inputs x, y that makes x + 1j * y")


def gradgradcheck(fn: Callable, *inputs: Any, eps: float | None = None, atol: float | None = None,
                  rtol: float | None = None, full_jacobian_max: int = 128, seed: int = 0,
                  raise_exception: bool = True) -> bool:
    """`gradcheck` of the gradient itself, built with `create_graph=True`.

    The gradient is d<w, fn(x)>/dx for a random output weighting w (the
    grad_output). As PyTorch's gradgradcheck, both its inputs are checked:

    - in x: `gradcheck` of x -> sum_k <v_k, d<w, fn(x)>/dx_k> for a random
      v: its gradient is a Hessian-vector product of fn;
    - in w: that sum is linear in w with gradient J v, compared element by
      element with central differences of fn along v. This catches a
      backward that is not differentiable in its incoming gradient (say
      `g.detach()`), which `torchlight.func.jvp` (reverse-over-reverse)
      relies on, at the cost of two calls of fn.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import gradgradcheck
        >>> gradgradcheck(lambda t: (t ** 3).tanh(), tl.tensor([0.5, -1.0], requires_grad=True))
        True
    """
    _require_some_grad("gradgradcheck", inputs)
    tolerances = _tolerances(inputs, eps, atol, rtol)
    rng = np.random.default_rng(seed + 1)
    wanted = [getattr(x, "requires_grad", False) for x in inputs]
    directions = {k: rng.standard_normal(x.shape) for k, x in enumerate(inputs) if wanted[k]}
    jv, rounding, v = _difference(fn, inputs, directions, tolerances[0])  # v: the steps taken
    w = rng.standard_normal(jv.shape)

    def first_derivative(*xs: Any, track: list | None = None) -> Any:
        with enable_grad():
            leaves = [x if not want or x.requires_grad else x.detach().requires_grad_(True)
                      for x, want in zip(xs, wanted)]
            out = _one_output(fn(*leaves))
            weights = _like(out, w)
            if track is not None:  # w as an input: the derivative in it is checked
                track.append(weights.requires_grad_(True))
            targets = [x for x, want in zip(leaves, wanted) if want]
            grads = (grad(out, targets, weights, create_graph=True, allow_unused=True)
                     if out.requires_grad else [None] * len(targets))  # no input reaches it: all 0
            total = None
            for k, g in zip([k for k, want in enumerate(wanted) if want], grads):
                if g is not None:
                    term = (g * _like(g, v[k])).sum()
                    total = term if total is None else total + term
        return (out * 0.0).sum() if total is None else total

    if not _check_in_grad_output(first_derivative, inputs, jv, rounding, tolerances, raise_exception):
        return False
    return _check(first_derivative, inputs, tolerances, full_jacobian_max, seed, raise_exception)


def _check_in_grad_output(first_derivative: Callable, inputs: Sequence[Any], jv: np.ndarray, rounding: np.ndarray,
                          tolerances: tuple[float, float, float],
                          raise_exception: bool) -> bool:
    """d first_derivative / d w (by the backward of the backward) against J v (by differences)."""
    _, atol, rtol = tolerances
    leaves = _leaves(inputs)
    track: list = []
    total = first_derivative(*leaves, track=track)
    (got,) = grad(total, track, allow_unused=True) if total.requires_grad else (None,)
    analytic = _host64(got) if got is not None else np.zeros(jv.shape)
    close = np.isclose(analytic, jv, atol=atol + rounding, rtol=rtol)
    if np.all(close):
        return True
    i = int(np.flatnonzero(~close.reshape(-1))[0])
    return _fail(raise_exception, f"grad_output, element {i}: the backward's derivative in its incoming "
                                  f"gradient gives {float(analytic.reshape(-1)[i])!r}, central differences of fn "
                                  f"give {float(jv.reshape(-1)[i])!r} (is the backward differentiable in its "
                                  "grad_output?)")


def _leaves(inputs: Sequence[Any]) -> list[Any]:
    """Fresh leaves for the Tensor inputs (requiring grad as they do); other inputs as they are."""
    return [x.detach().requires_grad_(x.requires_grad) if _is_tensor(x) else x for x in inputs]


def _one_output(out: Any) -> Any:
    """fn's result as one Tensor: a tuple of outputs (as PyTorch's gradcheck takes) is checked
    as the concatenation of its floating-point outputs, flattened; an integer one has no gradient."""
    if not isinstance(out, (tuple, list)):
        return out
    parts = [o.reshape(-1) for o in out if o.backend.is_floating(o.dtype)]
    if not parts:
        raise ValueError("gradcheck: fn returned no floating-point output to check")
    return cat(parts)


def _like(t: Any, host: np.ndarray) -> Any:
    """A host array as a Tensor of `t`'s backend, device and dtype."""
    dtype = np.dtype(str(t.dtype).split(".")[-1])
    return tensor(t.backend.asarray(np.asarray(host, dtype=dtype), device=t._device))


def _fail(raise_exception: bool, message: str) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False
