"""L-BFGS with an optional strong-Wolfe line search, as PyTorch's `torch.optim.LBFGS`.

The parameters are seen as one flat vector (their arrays raveled and
concatenated in order); the direction, the gradient history and the line
search work on flat arrays of the parameters' backend, and the scalars
(step sizes, directional derivatives, losses) are Python floats.

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.tensor([3.0, -1.0]))
    >>> opt = tl.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - tl.tensor([1.0, 2.0])) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> [round(v, 6) for v in w.tolist()]
    [1.0, 2.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from torchlight import grad_mode
from torchlight.optim.optimizer import Optimizer, _check, _state_value, from_real_pairs, real_pairs
from torchlight.tensor import Tensor

__all__ = ["LBFGS"]


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to `bounds`."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func: Callable[[list[Any], float, Any], tuple[float, Any]], xp: Any, x: list[Any], t: float,
                  d: Any, f: float, g: Any, gtd: float, c1: float = 1e-4, c2: float = 0.9,
                  tolerance_change: float = 1e-9, max_ls: int = 25) -> tuple[float, Any, float, int]:
    """PyTorch's strong-Wolfe line search (after minFunc): (loss, flat grad, step, evaluations)."""
    d_norm = float(xp.max(xp.abs(d)))
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = _dot(xp, g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[float] = []
    bracket_f: list[float] = []
    bracket_g: list[Any] = []
    bracket_gtd: list[float] = []
    while ls_iter < max_ls:
        # the Armijo condition fails, or the loss went up: the minimum is bracketed
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # extrapolate
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new, gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(xp, g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point meets the strong Wolfe conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # too close to a bound, or outside: move it in, unless the last step also made little progress
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(xp, g_new, d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new, gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos], bracket_g[low_pos], bracket_gtd[low_pos] = t, f_new, g_new, gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _flat_real(xp: Any, p: Tensor, array: Any) -> Any:
    """`array` (a gradient or zeros of parameter `p`'s shape) flat; a complex one as its parts in turn."""
    if p.backend.is_complex(p.dtype):
        array = real_pairs(xp, array)
    return xp.reshape(array, (-1,))


def _dot(xp: Any, a: Any, b: Any) -> float:
    return float(xp.sum(a * b))


def _settled(backend: Any, array: Any) -> Any:
    """`array` computed now on a lazy backend (Dask): each iteration's vectors and parameters would
    otherwise hang on the graph of every iteration before, and each float() recompute it all."""
    return backend.asarray(backend.to_numpy(array)) if backend.lazy else array


class LBFGS(Optimizer):
    """Limited-memory BFGS, as PyTorch's `torch.optim.LBFGS`: one parameter group; `step(closure)`.

    Each `step(closure)` runs up to `max_iter` iterations (at most `max_eval` calls of `closure`,
    which must zero the gradients, compute the loss, call `backward()` and return the loss). It
    stops early when the largest gradient entry is at most `tolerance_grad`, or when the step or
    the change of the loss is below `tolerance_change`. The direction comes from the last
    `history_size` pairs of steps and gradient changes; the step length is `lr` (the first
    iteration's is min(1, 1 / sum|grad|) * lr), or found by a strong-Wolfe line search with
    `line_search_fn="strong_wolfe"`. The state (`d`, `t`, `old_dirs`, ... on the first parameter)
    has PyTorch's names; its vectors are flat, as long as all the parameters together.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([0.0]))
        >>> opt = tl.optim.LBFGS([w], lr=1.0)
        >>> def closure():
        ...     opt.zero_grad(); loss = ((w - 3.0) ** 2).sum(); loss.backward(); return loss
        >>> float(opt.step(closure))   # the loss before the step
        9.0
        >>> round(w.item(), 6)
        3.0
    """

    def __init__(self, params: Iterable[Any], lr: float = 1.0, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        _check("lr", lr, 0.0)
        for name, value in (("max_iter", max_iter), ("history_size", history_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"LBFGS: {name} must be a positive int, got {value!r}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if isinstance(max_eval, bool) or not isinstance(max_eval, int) or max_eval < 1:
            raise ValueError(f"LBFGS: max_eval must be a positive int, got {max_eval!r}")
        _check("tolerance_grad", tolerance_grad, 0.0)
        _check("tolerance_change", tolerance_change, 0.0)
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                                  "history_size": history_size, "line_search_fn": line_search_fn})
        self._params: list[Tensor] = self.param_groups[0]["params"]

    def add_param_group(self, group: dict[str, Any]) -> None:
        """LBFGS takes one group only (as PyTorch): a second raises ValueError."""
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(group)

    # ------------------------------------------------------------ the flat view of the parameters
    # A complex parameter takes part as its real and imaginary parts, two real entries each (PyTorch's
    # `view_as_real`): the flat vectors are real, and their dot products the real inner product.
    def _numel(self) -> int:
        return sum(math.prod(p.shape) * (2 if p.backend.is_complex(p.dtype) else 1) for p in self._params)

    def _gather_flat_grad(self, xp: Any) -> Any:
        views = [_flat_real(xp, p, xp.zeros_like(p.data) if p.grad is None else p.grad.data) for p in self._params]
        return _settled(self._params[0].backend, xp.concat(views) if len(views) > 1 else views[0])

    def _add_grad(self, xp: Any, step_size: float, update: Any) -> None:
        offset = 0
        for p in self._params:
            complex_part = p.backend.is_complex(p.dtype)
            numel = math.prod(p.shape) * (2 if complex_part else 1)
            part = update[offset:offset + numel]
            if complex_part:
                part = from_real_pairs(xp, xp.reshape(part, (*p.shape, 2)), p.dtype)
            moved = p.data + step_size * xp.reshape(part, p.shape)
            p._replace_data(_settled(p.backend, moved))
            offset += numel

    def _set_param(self, params_data: list[Any]) -> None:
        for p, data in zip(self._params, params_data):
            p._replace_data(data)

    def _evaluate(self, closure: Callable[[], Any]) -> Any:
        with grad_mode.enable_grad():
            return closure()

    def _directional_evaluate(self, closure: Callable[[], Any], xp: Any, x: list[Any], t: float,
                              d: Any) -> tuple[float, Any]:
        self._add_grad(xp, t, d)
        loss = float(self._evaluate(closure))
        flat_grad = self._gather_flat_grad(xp)
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # type: ignore[override]
        """Up to `max_iter` L-BFGS iterations; returns the loss `closure()` gave first (before any update)."""
        if closure is None or not callable(closure):
            raise TypeError("LBFGS.step: needs a closure that zeroes the gradients, computes the loss, "
                            "calls backward() and returns the loss")
        with grad_mode.no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr = float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = float(group["tolerance_grad"]), float(group["tolerance_change"])
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        xp = self._params[0].backend.xp

        # the state lives on the first parameter, as PyTorch's
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad(xp)
        if float(xp.max(xp.abs(flat_grad))) <= tolerance_grad:
            return orig_loss

        d: Any = state.get("d")
        t: Any = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        h_diag: Any = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1.0
            else:
                # update the memory with the last step s and gradient change y
                backend = self._params[0].backend
                y = _settled(backend, flat_grad - prev_flat_grad)
                s = _settled(backend, d * t)
                ys = _dot(xp, y, s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / _dot(xp, y, y)
                # the two-loop recursion: d = -H grad
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = _dot(xp, old_stps[i], q) * ro[i]
                    q = _settled(backend, q + (-al[i]) * old_dirs[i])
                r = q * h_diag
                for i in range(num_old):
                    be_i = _dot(xp, old_dirs[i], r) * ro[i]
                    r = _settled(backend, r + (al[i] - be_i) * old_stps[i])
                d = r
            prev_flat_grad = flat_grad
            prev_loss = loss

            # the step length
            t = min(1.0, 1.0 / float(xp.sum(xp.abs(flat_grad)))) * lr if state["n_iter"] == 1 else lr
            gtd = _dot(xp, flat_grad, d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                x_init = [p.data for p in self._params]  # arrays are never written in place: no copy needed

                def obj_func(x: list[Any], step: float, direction: Any) -> tuple[float, Any]:
                    return self._directional_evaluate(closure, xp, x, step, direction)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, xp, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(xp, t, d)
                opt_cond = float(xp.max(xp.abs(flat_grad))) <= tolerance_grad
            else:
                self._add_grad(xp, t, d)
                opt_cond = False
                if n_iter != max_iter:
                    # re-evaluate, unless this was the last iteration (then the caller's next step does)
                    loss = float(self._evaluate(closure))
                    flat_grad = self._gather_flat_grad(xp)
                    opt_cond = float(xp.max(xp.abs(flat_grad))) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if float(xp.max(xp.abs(d * t))) <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    # ------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """As `Optimizer.state_dict`, with the history's lists of flat vectors as lists of Tensors too.

        Example:
            >>> import torchlight as tl
            >>> w = tl.nn.Parameter(tl.tensor([0.0, 1.0]))
            >>> opt = tl.optim.LBFGS([w], max_iter=2)
            >>> def closure():
            ...     opt.zero_grad(); loss = (w ** 4).sum() + w.sum(); loss.backward(); return loss
            >>> _ = opt.step(closure); _ = opt.step(closure)   # (one iteration each: max_eval is 2)
            >>> state = opt.state_dict()["state"][0]
            >>> state["n_iter"], state["d"].shape, len(state["old_dirs"])
            (2, (2,), 1)
        """
        result = super().state_dict()
        backend = self._params[0].backend
        for entries in result["state"].values():
            for key, value in entries.items():
                if isinstance(value, list):
                    entries[key] = [Tensor._wrap(v, backend) if hasattr(v, "shape") else v for v in value]
        return result

    def _state_entry(self, param: Tensor, where: str, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [self._state_entry(param, f"{where}[{i}]", v) for i, v in enumerate(value)]
        if not hasattr(value, "shape"):
            return value
        if tuple(value.shape) == ():  # a 0-d step size or curvature (PyTorch keeps them as tensors)
            return float(value)
        xp = param.backend.xp
        flat = Tensor._wrap(xp.concat([xp.reshape(p.data, (-1,)) for p in self._params]), param.backend)
        if tuple(value.shape) != flat.shape:
            raise ValueError(f"LBFGS.load_state_dict: {where} has shape {tuple(value.shape)}, the flat "
                             f"parameters {flat.shape}")
        return _state_value("LBFGS", flat, where, value)
