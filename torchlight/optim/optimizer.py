"""The Optimizer base class and the first-order optimizers SGD, Adam and AdamW.

An optimizer holds parameter groups (lists of Parameters plus their
hyper-parameters, as PyTorch's `param_groups`) and per-parameter state.
`step()` reads each parameter's `.grad` and replaces its `.data` with a new
array computed from arrays only: nothing is recorded for backward and
nothing is written in place (so JAX's immutable arrays work too).

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.tensor([3.0]))
    >>> opt = tl.optim.optimizer.SGD([w], lr=0.5)
    >>> (w * w).sum().backward(); opt.step()
    >>> w.tolist()
    [0.0]
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from torchlight import grad_mode
from torchlight.creation import tensor
from torchlight.nn.parameter import Parameter
from torchlight.tensor import Tensor

__all__ = ["SGD", "Adam", "AdamW", "Optimizer"]


def real_pairs(xp: Any, a: Any) -> Any:
    """A complex array as the real one of its parts, each element's (real, imaginary) on a new last
    axis (PyTorch's `view_as_real`, as a new array: the array API has no such view)."""
    return xp.stack([xp.real(a), xp.imag(a)], axis=-1)


def from_real_pairs(xp: Any, pairs: Any, dtype: Any) -> Any:
    """`real_pairs` undone: the complex array of `dtype` whose parts are the last axis of `pairs`."""
    unit = xp.asarray(1j, dtype=dtype)
    return xp.astype(pairs[..., 0], dtype) + xp.astype(pairs[..., 1], dtype) * unit


class Optimizer:
    """Base class: `param_groups`, `state`, `zero_grad()`, and `step()` for subclasses.

    `params` is an iterable of Parameters, or of dicts {"params": [...],
    "lr": ...} that override the defaults for their group.

    Example:
        >>> import torchlight as tl
        >>> class SignSGD(tl.optim.Optimizer):
        ...     def __init__(self, params, lr=0.1):
        ...         super().__init__(params, {"lr": lr})
        ...     @tl.no_grad()
        ...     def step(self):
        ...         for group in self.param_groups:
        ...             for p in group["params"]:
        ...                 if p.grad is not None:
        ...                     p.sub_(group["lr"] * p.grad.sign())
        >>> w = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
        >>> opt = SignSGD([w], lr=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.tolist()
        [0.5, -1.5]
        >>> opt.zero_grad()
        >>> w.grad is None
        True
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        # keyed by the parameter itself (Tensors hash by identity), as PyTorch: a deep copy or a pickle of
        # the optimizer then maps each entry to the copied parameter, where id(p) would name the old one
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)  # state[p] is {} before p's first step
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):  # list() would iterate its rows (not leaves), or fail on a 0-d one
            raise TypeError(f"{type(self).__name__}: params must be an iterable of Tensors or of parameter groups, "
                            f"not one Tensor (pass [w], or model.parameters())")
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__}: got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for group in groups:
            self.add_param_group(group)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # a subclass's own step() (LBFGS's, a user's) notes that it ran, for the schedulers' order warning
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if callable(step) and not getattr(step, "_notes_call", False):
            cls.step = _noting_call(step)  # type: ignore[method-assign]

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a group of parameters, with hyper-parameters defaulting to the optimizer's.

        The dict becomes the group (filled in with the defaults), as in PyTorch.
        """
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__}: can only optimize Tensors, got a {type(p).__name__}")
            # a Parameter frozen with requires_grad = False is taken (as PyTorch) and skipped while it has no
            # grad; a plain tensor that never required grad is a forgotten requires_grad=True
            if not p.is_leaf or not (p.requires_grad or isinstance(p, Parameter)):
                raise ValueError(f"{type(self).__name__}: can only optimize leaf tensors with requires_grad=True "
                                 f"(a Parameter, or tl.tensor(..., requires_grad=True))")
            if id(p) in seen:
                raise ValueError(f"{type(self).__name__}: a parameter appears in two groups (or twice)")
            seen.add(id(p))
        unknown = set(group) - set(self.defaults) - {"params"}
        if unknown:
            raise TypeError(f"{type(self).__name__}: unknown hyper-parameter(s) {sorted(unknown)}")
        # the caller's dict itself, as PyTorch: a learning rate later set in it is the one used
        group["params"] = params
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (or set it to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.zero_grad_()

    def step(self) -> None:
        """One update of every parameter that has a gradient, without recording history.

        Each group's hyper-parameters are read as Python numbers (`_plain`), so that the
        parameter's dtype decides the result's, as PyTorch's numbers do.
        """
        self._opt_called = True  # (a scheduler stepped before any optimizer step warns, as PyTorch's)
        with grad_mode.no_grad():
            for group in self.param_groups:
                # the optimizer's own keys only: a caller may add others to a group (a name, an initial_lr)
                settings = {name: _plain(group[name]) for name in self.defaults}
                for p in group["params"]:
                    if p.grad is not None:
                        state = self.state[p]
                        update = self._update if not p.backend.is_complex(p.dtype) else self._complex_update
                        p._replace_data(update(p.backend.xp, p.data, p.grad.data, state, settings))

    def _update(self, xp: Any, w: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _complex_update(self, xp: Any, w: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> Any:
        """`_update` of a complex parameter as of the real one its real and imaginary parts make (each
        part its own entry), as PyTorch's optimizers run on `view_as_real`: Adam's second moment of
        g = a + bi is (a^2, b^2) per part, not the complex g * g. The state stays complex-valued."""
        arrays = {k for k, v in state.items() if hasattr(v, "dtype") and getattr(v, "shape", None) == w.shape}
        inner = {k: real_pairs(xp, v) if k in arrays else v for k, v in state.items()}
        out = self._update(xp, real_pairs(xp, w), real_pairs(xp, g), inner, group)
        state.update({k: from_real_pairs(xp, v, w.dtype) if getattr(v, "shape", None) == out.shape
                      and hasattr(v, "dtype") else v for k, v in inner.items()})
        return from_real_pairs(xp, out, w.dtype)

    # ------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as PyTorch lays it out, for `tl.save` and `load_state_dict`.

        {"state": {i: {"step": 3, "exp_avg": Tensor, ...}}, "param_groups":
        [{"lr": ..., "params": [i, ...]}, ...]}: parameters are numbered in
        the order of their groups, so the state can be loaded into a new
        optimizer over a new model's parameters. Tensors share the arrays
        (no copy: `step()` replaces them rather than writing into them).

        Example:
            >>> import torchlight as tl
            >>> w = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
            >>> opt = tl.optim.SGD([w], lr=0.1, momentum=0.9)
            >>> (w * w).sum().backward(); opt.step()
            >>> state = opt.state_dict()
            >>> state["state"][0]["momentum_buffer"].tolist(), state["param_groups"][0]["params"]
            ([2.0, -4.0], [0])
        """
        number = {p: i for i, p in enumerate(p for group in self.param_groups for p in group["params"])}
        state = {number[p]: {key: Tensor._wrap(value, p.backend) if hasattr(value, "shape") else value
                             for key, value in entries.items()}
                 for p, entries in self.state.items() if p in number}
        groups = [{**{k: v for k, v in group.items() if k != "params"}, "params": [number[p] for p in group["params"]]}
                  for group in self.param_groups]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Take the hyper-parameters and per-parameter state of `state_dict()` (a checkpoint's).

        The groups must match this optimizer's in number and size; each
        array must have its parameter's shape, and moves to its backend,
        device and dtype. Everything is checked before anything changes.
        """
        name = type(self).__name__
        groups, saved_groups = self.param_groups, list(state_dict["param_groups"])
        if [len(g["params"]) for g in groups] != [len(g["params"]) for g in saved_groups]:
            raise ValueError(f"{name}.load_state_dict: the state dict has groups of "
                             f"{[len(g['params']) for g in saved_groups]} parameters, this optimizer "
                             f"{[len(g['params']) for g in groups]}")
        lacking = sorted({key for saved in saved_groups for key in self.defaults if key not in saved})
        if lacking:
            raise ValueError(f"{name}.load_state_dict: the state dict's groups lack {name}'s {lacking} "
                             "(is it another kind of optimizer's?)")
        params = {i: p for group, saved in zip(groups, saved_groups) for i, p in zip(saved["params"], group["params"])}
        state = {}
        for i, entries in state_dict["state"].items():
            if i not in params:
                raise ValueError(f"{name}.load_state_dict: state for parameter {i!r}, which no group lists")
            state[params[i]] = {key: self._state_entry(params[i], f"state[{i!r}][{key!r}]", value)
                                for key, value in entries.items()}
        for group, saved in zip(groups, saved_groups):
            group.update({k: v for k, v in saved.items() if k != "params"})
        self.state = defaultdict(dict, state)

    def _state_entry(self, param: Tensor, where: str, value: Any) -> Any:
        """One loaded state entry (an optimizer whose state is not shaped like its parameter overrides it)."""
        return _state_value(type(self).__name__, param, where, value)


def _noting_call(step: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(step)
    def noted(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        self._opt_called = True
        return step(self, *args, **kwargs)

    noted._notes_call = True  # type: ignore[attr-defined]
    return noted


def _state_value(optimizer: str, param: Tensor, where: str, value: Any) -> Any:
    """A loaded state entry: an array becomes a copy of the parameter's backend, device and dtype."""
    if not hasattr(value, "shape"):
        return value
    if tuple(value.shape) != param.shape:
        raise ValueError(f"{optimizer}.load_state_dict: {where} has shape {tuple(value.shape)}, "
                         f"its parameter {param.shape}")
    data = value.data if isinstance(value, Tensor) else value
    moved = tensor(data, backend=param.backend, device=param._device, dtype=param.dtype).data
    return param.backend.copy(moved) if moved is data else moved


def _plain(value: Any) -> Any:
    """A hyper-parameter as a Python float (a bool stays one; betas a tuple of floats).

    A schedule's NumPy scalar or 0-d array (np.float64(0.1)) times a float32
    array is float64 under NumPy's rules, and array_api_strict refuses it;
    a Tensor lr would leave a Tensor in `.data`. A Python float takes the
    array's dtype.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    return float(value)


def _check(name: str, value: float, low: float, high: float = math.inf, inclusive_high: bool = False) -> None:
    ok = low <= value < high or (inclusive_high and value == high)
    if not ok:
        raise ValueError(f"invalid {name}: {value!r}")


class SGD(Optimizer):
    """Stochastic gradient descent, as PyTorch's `torch.optim.SGD`.

    g = grad + weight_decay * w; with momentum: buf = momentum * buf +
    (1 - dampening) * g (buf = g on the first step), then g = buf, or
    g + momentum * buf with Nesterov; finally w = w - lr * g.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([3.0]))
        >>> opt = tl.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w * w).sum().backward()  # grad 2 w
        ...     opt.step()
        ...     print([round(v, 4) for v in w.tolist()])
        [2.4]
        [1.38]
        >>> slow = tl.nn.Parameter(tl.tensor([1.0]))
        >>> groups = tl.optim.SGD([{"params": [w]}, {"params": [slow], "lr": 0.01}], lr=0.1)
        >>> [group["lr"] for group in groups.param_groups]
        [0.1, 0.01]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        _check("lr", lr, 0.0)
        _check("momentum", momentum, 0.0)
        _check("weight_decay", weight_decay, 0.0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum needs momentum > 0 and dampening = 0")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov})

    def _update(self, xp: Any, w: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> Any:
        if group["weight_decay"]:
            g = g + group["weight_decay"] * w
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            buf = g if buf is None else momentum * buf + (1.0 - group["dampening"]) * g
            state["momentum_buffer"] = buf
            g = g + momentum * buf if group["nesterov"] else buf
        return w - group["lr"] * g


class Adam(Optimizer):
    """Adam (Kingma and Ba, 2015), as PyTorch's `torch.optim.Adam`.

    weight_decay here is L2: it is added to the gradient (see AdamW for the
    decoupled form).

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
        >>> opt = tl.optim.Adam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()  # the first step moves each entry by about lr, against its gradient
        >>> [round(v, 6) for v in w.tolist()], opt.state[w]["step"]
        ([0.9, -1.9], 1)
    """

    decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0) -> None:
        _check("lr", lr, 0.0)
        _check("beta1", betas[0], 0.0, 1.0)
        _check("beta2", betas[1], 0.0, 1.0)
        _check("eps", eps, 0.0)
        _check("weight_decay", weight_decay, 0.0)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay})

    def _update(self, xp: Any, w: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> Any:
        lr, (beta1, beta2), eps, decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if decay and self.decoupled:
            w = w * (1.0 - lr * decay)
        elif decay:
            g = g + decay * w
        step = state.get("step", 0) + 1
        m = state.get("exp_avg")
        v = state.get("exp_avg_sq")
        m = (1.0 - beta1) * g if m is None else beta1 * m + (1.0 - beta1) * g
        v = (1.0 - beta2) * (g * g) if v is None else beta2 * v + (1.0 - beta2) * (g * g)
        state.update(step=step, exp_avg=m, exp_avg_sq=v)
        m_hat = m / (1.0 - beta1**step)
        v_hat = v / (1.0 - beta2**step)
        return w - lr * m_hat / (xp.sqrt(v_hat) + eps)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter, 2019): w *= 1 - lr * weight_decay.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
        >>> opt = tl.optim.AdamW([w], lr=0.1, weight_decay=0.5)
        >>> w.grad = tl.zeros(2)
        >>> opt.step()  # no gradient, yet the weights shrink by 1 - lr * weight_decay
        >>> [round(v, 6) for v in w.tolist()]
        [0.95, -1.9]
    """

    decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)
