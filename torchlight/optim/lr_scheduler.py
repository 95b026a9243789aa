"""Learning-rate schedules, as PyTorch's `torch.optim.lr_scheduler`.

A scheduler sets `group["lr"]` of its optimizer's parameter groups: call
`scheduler.step()` once per epoch (or per batch), after `optimizer.step()`.
Construction records each group's starting rate as `group["initial_lr"]`
(`base_lrs`) and applies epoch 0. `step()` is chainable as PyTorch's: it
computes the next rate from the group's current one, so that schedulers
may be combined and a learning rate set by hand carries on;
`step(epoch)` (deprecated in PyTorch, warned here too) uses the closed
form of the schedule where there is one. `state_dict()` holds everything
but the optimizer, so that a resumed run continues identically.

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.tensor([1.0]))
    >>> opt = tl.optim.SGD([w], lr=0.1)
    >>> sched = tl.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.1, 0.05, 0.05, 0.025, 0.025]
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from torchlight.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ReduceLROnPlateau",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "MissingGroupKeyError"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available.")


class MissingGroupKeyError(KeyError, ValueError):
    """A parameter group lacks a key a scheduler needs (`initial_lr` when resuming with last_epoch >= 0).

    A KeyError as PyTorch raises, and a ValueError (the optimizer handed in does not fit).

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.tensor([1.0]))
        >>> opt = tl.optim.SGD([w], lr=0.1)  # a fresh optimizer: its groups have no 'initial_lr'
        >>> try:
        ...     tl.optim.lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)
        ... except KeyError as error:
        ...     print(type(error).__name__, isinstance(error, ValueError))
        MissingGroupKeyError True
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _check_optimizer(name: str, optimizer: Any) -> Optimizer:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{name}: {type(optimizer).__name__} is not an Optimizer (expected a torchlight.optim "
                        f"optimizer, got {type(optimizer).__module__}.{type(optimizer).__name__})")
    for i, group in enumerate(optimizer.param_groups):
        if "lr" not in group:
            raise MissingGroupKeyError(f"{name}: param_groups[{i}] of {type(optimizer).__name__} has no 'lr'")
    return optimizer


def _positive_int(name: str, argument: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name}: expected a positive integer {argument}, but got {value!r}")


def _positive(name: str, argument: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name}: expected a positive number {argument}, but got {value!r}")


def _lambdas(name: str, optimizer: Optimizer, lr_lambda: Any) -> list[Callable[[int], float]]:
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != len(optimizer.param_groups):
            raise ValueError(f"{name}: expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
        lambdas = list(lr_lambda)
    else:
        lambdas = [lr_lambda] * len(optimizer.param_groups)
    for fn in lambdas:
        if not callable(fn):
            raise TypeError(f"{name}: lr_lambda should be a function, but got {type(fn).__name__}")
    return lambdas


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group (a list or tuple of that length, or one value for all)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                             f"{len(param)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


class LRScheduler:
    """The base class: `step()`, `get_last_lr()`, `state_dict()`/`load_state_dict()`, `last_epoch`.

    A subclass defines `get_lr()` (the chainable rule, from the groups' current rates) and, where
    the schedule has one, `_get_closed_form_lr()` (from `base_lrs` and `last_epoch`).

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> opt.step(); sched.step(); opt.step(); sched.step()
        >>> sched.last_epoch, sched.get_last_lr(), opt.param_groups[0]["initial_lr"]
        (2, [0.25], 1.0)
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        name = type(self).__name__
        _check_optimizer(name, optimizer)
        if isinstance(last_epoch, bool) or not isinstance(last_epoch, int) or last_epoch < -1:
            raise ValueError(f"{name}: last_epoch must be an int >= -1, got {last_epoch!r}")
        if last_epoch != -1:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise MissingGroupKeyError(
                        f"{name}: param 'initial_lr' is not specified in param_groups[{i}] when resuming a "
                        "scheduler with last_epoch >= 0 (load the optimizer's state first, or start a fresh "
                        "run with last_epoch=-1)")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        """Apply the schedule's first value (epoch last_epoch + 1) at construction."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The rates of the epoch `last_epoch` (use `get_last_lr()` outside `step()`)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The rates the last `step()` set, one per parameter group."""
        return self._last_lr

    def _warn_get_lr_called_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=3)

    def step(self, epoch: int | None = None) -> None:
        """Advance the schedule one epoch (chainable), or to `epoch` (closed form, deprecated)."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call them in the "
                          "opposite order: `optimizer.step()` before `lr_scheduler.step()`; otherwise the first "
                          "value of the learning rate schedule is skipped.", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _group_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    # ------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer (PyTorch's layout: `last_epoch`, `base_lrs`, `_last_lr`, ...).

        Example:
            >>> import torchlight as tl
            >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
            >>> sched = tl.optim.lr_scheduler.StepLR(opt, step_size=3)
            >>> state = sched.state_dict()
            >>> state["last_epoch"], state["base_lrs"], state["step_size"]
            (0, [1.0], 3)
        """
        return {key: list(value) if type(value) is list else value
                for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Take a `state_dict()` (a checkpoint's): the schedule continues from where it was saved."""
        name = type(self).__name__
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"{name}.load_state_dict: expected a mapping (a state_dict()), "
                            f"got {type(state_dict).__name__}")
        if "last_epoch" not in state_dict:
            raise ValueError(f"{name}.load_state_dict: the state dict has no 'last_epoch' "
                             "(is it a scheduler's?)")
        for key in ("base_lrs", "_last_lr"):
            if key in state_dict and len(state_dict[key]) != len(self.optimizer.param_groups):
                raise ValueError(f"{name}.load_state_dict: {key} has {len(state_dict[key])} entries, the optimizer "
                                 f"{len(self.optimizer.param_groups)} parameter groups")
        self.__dict__.update({key: list(value) if type(value) is list else value
                              for key, value in state_dict.items()})


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch), with one function for all groups or one per group.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.9 ** epoch)
        >>> opt.step(); sched.step(); opt.step(); sched.step(); round(sched.get_last_lr()[0], 6)
        0.81
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _lambdas(type(self).__name__, _check_optimizer(type(self).__name__, optimizer), lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self) -> dict[str, Any]:
        """As PyTorch's: a plain function is saved as None, a callable object as its `__dict__`."""
        state = {key: value for key, value in super().state_dict().items() if key != "lr_lambdas"}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else dict(fn.__dict__)
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Take a `state_dict()`; the functions stay this scheduler's (a callable object gets its saved attributes)."""
        state = dict(state_dict)
        saved = state.pop("lr_lambdas", [None] * len(self.lr_lambdas))
        if len(saved) != len(self.lr_lambdas):
            raise ValueError(f"{type(self).__name__}.load_state_dict: {len(saved)} lr_lambdas saved, this scheduler "
                             f"has {len(self.lr_lambdas)}")
        super().load_state_dict(state)
        for fn, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:
                fn.__dict__.update(attributes)


class MultiplicativeLR(LambdaLR):
    """lr = lr * lr_lambda(epoch) at each step after the first.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
        >>> opt.step(); sched.step(); opt.step(); sched.step(); sched.get_last_lr()
        [0.25]
    """

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self._is_initial:
            return self._group_lrs()
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


def _check_gamma(name: str, gamma: Any) -> None:
    _positive(name, "gamma", gamma)


class StepLR(LRScheduler):
    """lr = initial_lr * gamma ** (epoch // step_size).

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
        >>> for _ in range(4): opt.step(); sched.step()
        >>> round(sched.get_last_lr()[0], 12)
        0.01
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        _positive_int(type(self).__name__, "step_size", step_size)
        _check_gamma(type(self).__name__, gamma)
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr = initial_lr * gamma ** (number of milestones reached).

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
        >>> lrs = []
        >>> for _ in range(4): opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        name = type(self).__name__
        marks = list(milestones)
        if any(isinstance(m, bool) or not isinstance(m, int) for m in marks):
            raise ValueError(f"{name}: milestones must be ints, got {marks!r}")
        if any(b <= a for a, b in zip(marks, marks[1:])):
            raise ValueError(f"{name}: milestones must be increasing, got {marks!r}")
        _check_gamma(name, gamma)
        self.milestones = Counter(marks)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        # (a loaded checkpoint may hold the Counter as a plain dict)
        reached = sum(count for mark, count in self.milestones.items() if mark <= self.last_epoch)
        return [base_lr * self.gamma ** reached for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = initial_lr * factor until epoch total_iters, then initial_lr.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(3): opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError(f"{type(self).__name__}: Constant multiplicative factor expected to be between 0 and 1, "
                             f"got {factor!r}.")
        _positive_int(type(self).__name__, "total_iters", total_iters)
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """lr goes linearly from initial_lr * start_factor to initial_lr * end_factor over total_iters epochs.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(4): opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        name = type(self).__name__
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"{name}: Starting multiplicative factor expected to be greater than 0 and less or "
                             f"equal to 1, got {start_factor!r}.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"{name}: Ending multiplicative factor expected to be between 0 and 1, "
                             f"got {end_factor!r}.")
        _positive_int(name, "total_iters", total_iters)
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        factor = 1.0 + (self.end_factor - self.start_factor) / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * (self.end_factor - self.start_factor))
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr = initial_lr * gamma ** epoch.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> for _ in range(3): opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.125]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        _check_gamma(type(self).__name__, gamma)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self._is_initial:
            return self._group_lrs()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class SequentialLR(LRScheduler):
    """Run `schedulers[i]` from `milestones[i - 1]` on (each restarted at its epoch 0 there).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.optim import lr_scheduler as sch
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> warmup = sch.LinearLR(opt, start_factor=0.5, total_iters=2)
        >>> decay = sch.ExponentialLR(opt, gamma=0.5)
        >>> sched = sch.SequentialLR(opt, [warmup, decay], milestones=[2])
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(4): opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler], milestones: Sequence[int],
                 last_epoch: int = -1) -> None:
        name = type(self).__name__
        _check_optimizer(name, optimizer)
        schedulers = list(schedulers)
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        for i, scheduler in enumerate(schedulers):
            if not isinstance(scheduler, LRScheduler):
                raise TypeError(f"{name}: schedulers[{i}] is a {type(scheduler).__name__}, not an LRScheduler")
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                                 f"kwargs to be specified when calling `step`, but got one at index {i} in the "
                                 "given schedulers sequence.")
            if scheduler.optimizer is not optimizer:
                raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, but got "
                                 f"scheduler {type(scheduler).__name__} at index {i} with another optimizer.")
        marks = list(milestones)
        if len(marks) != len(schedulers) - 1:
            raise ValueError(f"{name} expects number of schedulers provided to be one more than the number of "
                             f"milestone points, but got number of schedulers {len(schedulers)} and the number of "
                             f"milestones to be equal to {len(marks)}")
        if any(isinstance(m, bool) or not isinstance(m, int) for m in marks) or \
                any(b <= a for a, b in zip(marks, marks[1:])):
            raise ValueError(f"{name}: milestones must be increasing ints, got {marks!r}")
        self._schedulers = schedulers
        self._milestones = marks
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # reset the rates the schedulers' constructions changed, and undo their initial steps
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        # then run the first scheduler's initial step again
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Take one epoch off every scheduler inside (nested SequentialLRs included)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Advance one epoch: the current scheduler steps, or the next one restarts at its epoch 0."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        """As PyTorch's: this scheduler's attributes with `_schedulers` as the list of their state dicts."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Take a `state_dict()`, each inner scheduler its own part."""
        state = dict(state_dict)
        inner = state.pop("_schedulers", None)
        if inner is None or len(inner) != len(self._schedulers):
            raise ValueError(f"{type(self).__name__}.load_state_dict: expected the state of "
                             f"{len(self._schedulers)} schedulers, got {0 if inner is None else len(inner)}")
        super().load_state_dict(state)
        for scheduler, saved in zip(self._schedulers, inner):
            scheduler.load_state_dict(saved)


class PolynomialLR(LRScheduler):
    """lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
        >>> for _ in range(2): opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        _positive_int(type(self).__name__, "total_iters", total_iters)
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        decay = ((1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)) \
            ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, by PyTorch's recursion.

    Past T_max the rate climbs back (the cosine's period is 2 T_max), as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = []
        >>> for _ in range(4): opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:  # noqa: N803
        _positive(type(self).__name__, "T_max", T_max)
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        if self._is_initial:
            return self._group_lrs()
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)) * (group["lr"] - self.eta_min)
                + self.eta_min for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rates by `factor` when `step(metric)` has not improved for `patience` epochs.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        >>> for loss in [3.0, 2.0, 2.0, 2.0, 2.0]: sched.step(loss)
        >>> sched.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | Sequence[float] = 0.0, eps: float = 1e-8) -> None:
        name = type(self).__name__
        if not 0.0 <= factor < 1.0:
            raise ValueError(f"{name}: Factor should be < 1.0 (and >= 0), got {factor!r}.")
        _check_optimizer(name, optimizer)
        if mode not in ("min", "max"):
            raise ValueError(f"{name}: mode {mode!r} is unknown (expected 'min' or 'max')!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"{name}: threshold mode {threshold_mode!r} is unknown (expected 'rel' or 'abs')!")
        for argument, value in (("patience", patience), ("cooldown", cooldown)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name}: {argument} must be a non-negative int, got {value!r}")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"{name}: expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr: Any = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.factor = factor
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._group_lrs()
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Count an epoch with validation result `metrics` (a number or a 0-d Tensor)."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown are ignored
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._group_lrs()

    def _reduce_lr(self, epoch: int) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(self.optimizer.param_groups)})"
                                   f" differs from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                                   "usually due to a new param group being added to the optimizer. Please modify "
                                   "the `min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler waits out its cooldown after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Take a `state_dict()` (the comparison is rebuilt from the saved mode and threshold)."""
        super().load_state_dict(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov and Hutter, 2017): cosine annealing restarted after T_0, T_0 * T_mult, ... epochs.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=1.0)
        >>> sched = tl.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> lrs = []
        >>> for _ in range(4): opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [0.5, 1.0, 0.5, 1.0]
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        name = type(self).__name__
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"{name}: Expected positive integer T_0, but got {T_0!r}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"{name}: Expected integer T_mult >= 1, but got {T_mult!r}")
        if isinstance(eta_min, bool) or not isinstance(eta_min, (float, int)):
            raise ValueError(f"{name}: Expected float or int eta_min, but got {eta_min!r} of type "
                             f"{type(eta_min).__name__}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:  # type: ignore[override]
        """Advance one epoch, or go to `epoch` (a fraction allowed: `epoch + i / iters` per batch)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"{type(self).__name__}.step: Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._group_lrs()


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin, 2017): warm up to max_lr, then anneal far below the start.

    Momentum (or Adam's beta1) cycles the other way when `cycle_momentum`. Stepping more than
    `total_steps` times raises ValueError, as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> opt = tl.optim.SGD([tl.nn.Parameter(tl.tensor([1.0]))], lr=0.1, momentum=0.9)
        >>> sched = tl.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, anneal_strategy="linear")
        >>> sched.get_last_lr(), opt.param_groups[0]["momentum"]
        ([0.04], 0.95)
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | Sequence[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | Sequence[float] = 0.85, max_momentum: float | Sequence[float] = 0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        name = type(self).__name__
        _check_optimizer(name, optimizer)
        if total_steps is not None:
            if isinstance(total_steps, bool) or not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"{name}: Expected positive integer total_steps, but got {total_steps!r}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            _positive_int(name, "epochs", epochs)
            _positive_int(name, "steps_per_epoch", steps_per_epoch)
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError(f"{name}: You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"{name}: Expected float between 0 and 1 pct_start, but got {pct_start!r}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"{name}: anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy!r}")
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        for value in max_lrs:
            _positive(name, "max_lr", value)
        _positive(name, "div_factor", div_factor)
        _positive(name, "final_div_factor", final_div_factor)
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(f"{name}: optimizer must support momentum or beta1 with `cycle_momentum` option "
                                 f"enabled ({type(optimizer).__name__} has neither 'momentum' nor 'betas')")
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
        if last_epoch != -1:
            for i, group in enumerate(optimizer.param_groups):
                missing = [key for key in ("initial_lr", "max_lr", "min_lr") if key not in group]
                if missing:
                    raise MissingGroupKeyError(f"{name}: param_groups[{i}] lacks {missing} when resuming with "
                                               "last_epoch >= 0 (load the optimizer's state first)")
        self.optimizer = optimizer
        self._schedule_phases: list[dict[str, Any]]
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
        self._anneal_func_type = anneal_strategy
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = "betas" in optimizer.defaults
            if last_epoch == -1:
                for high, low, group in zip(max_momentums, base_momentums, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (high, *group["betas"][1:])
                    else:
                        group["momentum"] = high
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        self._warn_get_lr_called_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"{type(self).__name__}: Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal_func(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs
