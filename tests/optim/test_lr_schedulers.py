"""torchlight.optim.lr_scheduler: closed-form values (no torch), PyTorch's schedules lr by lr, resuming, bad input."""

from __future__ import annotations

import doctest
import importlib
import math
import warnings

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.optim import lr_scheduler as sch

STEPS = 36


def make_optimizer(kind="SGD", lrs=(0.1,), lib=None, **kwargs):
    """An optimizer over one parameter per group, with group i's lr lrs[i] (torch's when lib is torch)."""
    if lib is None:
        params = [nn.Parameter(tl.tensor([1.0, 2.0])) for _ in lrs]
        cls = getattr(tl.optim, kind)
    else:
        params = [lib.nn.Parameter(lib.tensor([1.0, 2.0], dtype=lib.float64)) for _ in lrs]
        cls = getattr(lib.optim, kind)
    return cls([{"params": [p], "lr": lr} for p, lr in zip(params, lrs)], **kwargs)


def run(opt, sched, steps, metric=None):
    """The lrs of each group after construction and after each step (optimizer.step first)."""
    lrs = [list(sched.get_last_lr())]
    for i in range(steps):
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric(i))
        lrs.append(list(sched.get_last_lr()))
    return np.array(lrs)


# ------------------------------------------------------------ closed forms (no torch)
def test_step_lr_after_k_steps_is_gamma_to_the_k_over_step_size():
    opt = make_optimizer(lrs=(0.5, 2.0))
    lrs = run(opt, sch.StepLR(opt, step_size=3, gamma=0.1), 10)
    for k in range(11):
        np.testing.assert_allclose(lrs[k], [0.5 * 0.1 ** (k // 3), 2.0 * 0.1 ** (k // 3)], rtol=1e-12)
    assert opt.param_groups[0]["lr"] == lrs[-1][0] and opt.param_groups[0]["initial_lr"] == 0.5


@pytest.mark.parametrize("make, formula", [
    (lambda o: sch.ExponentialLR(o, gamma=0.9), lambda k: 0.9**k),
    (lambda o: sch.MultiStepLR(o, milestones=[2, 5, 9], gamma=0.5), lambda k: 0.5 ** sum(k >= m for m in (2, 5, 9))),
    (lambda o: sch.CosineAnnealingLR(o, T_max=7, eta_min=0.01),
     lambda k: (0.01 + (1 - 0.01) * (1 + math.cos(math.pi * k / 7)) / 2)),
    (lambda o: sch.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=6),
     lambda k: 0.2 + (0.9 - 0.2) * min(k, 6) / 6),
    (lambda o: sch.LambdaLR(o, lambda k: 1 / (1 + k)), lambda k: 1 / (1 + k)),
    (lambda o: sch.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
     lambda k: (1 + math.cos(math.pi * (k - 3 * (2 ** int(math.log2(k / 3 + 1)) - 1))
                             / (3 * 2 ** int(math.log2(k / 3 + 1))))) / 2),
    (lambda o: sch.PolynomialLR(o, total_iters=8, power=2.0), lambda k: (1 - min(k, 8) / 8) ** 2),
    (lambda o: sch.ConstantLR(o, factor=0.25, total_iters=4), lambda k: 0.25 if k < 4 else 1.0),
])
def test_the_chained_steps_follow_the_closed_form(make, formula):
    opt = make_optimizer(lrs=(1.0,))
    lrs = run(opt, make(opt), 20)[:, 0]
    np.testing.assert_allclose(lrs, [formula(k) for k in range(21)], rtol=1e-10, atol=1e-14)


def test_one_cycle_rises_to_max_lr_then_falls_far_below_the_start():
    opt = make_optimizer(lrs=(0.1,), momentum=0.9)
    sched = sch.OneCycleLR(opt, max_lr=1.0, total_steps=20, pct_start=0.25)
    momenta = [opt.param_groups[0]["momentum"]]
    lrs = [sched.get_last_lr()[0]]
    for _ in range(19):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
        momenta.append(opt.param_groups[0]["momentum"])
    assert lrs[0] == pytest.approx(1.0 / 25) and max(lrs) == pytest.approx(1.0) and np.argmax(lrs) == 4
    assert lrs[-1] == pytest.approx(1.0 / 25 / 1e4) and momenta[4] == pytest.approx(0.85)
    with pytest.raises(ValueError, match="Tried to step 21 times"):
        opt.step()
        sched.step()
        sched.step()


def test_reduce_on_plateau_waits_patience_epochs_then_cools_down():
    opt = make_optimizer(lrs=(1.0,))
    sched = sch.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=0.2)
    lrs = [row[0] for row in run(opt, sched, 12, metric=lambda i: 1.0)][1:]
    # epoch 1 sets best; 3 bad epochs (> patience 2) reduce; one cooldown epoch; 3 more bad ...
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.2]


def test_sequential_lr_hands_over_at_the_milestone():
    opt = make_optimizer(lrs=(1.0,))
    warm = sch.LinearLR(opt, start_factor=0.1, total_iters=4)
    cos = sch.CosineAnnealingLR(opt, T_max=6)
    lrs = run(opt, sch.SequentialLR(opt, [warm, cos], milestones=[4]), 10)[:, 0]
    np.testing.assert_allclose(lrs[:5], [0.1, 0.325, 0.55, 0.775, 1.0])
    np.testing.assert_allclose(lrs[4:], [(1 + math.cos(math.pi * k / 6)) / 2 for k in range(7)], atol=1e-12)


def test_a_rate_set_by_hand_is_carried_on_by_the_chainable_form():
    opt = make_optimizer(lrs=(1.0,))
    sched = sch.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    opt.param_groups[0]["lr"] = 10.0
    opt.step()
    sched.step()
    assert sched.get_last_lr() == [5.0]


def test_step_with_an_epoch_uses_the_closed_form_and_warns():
    opt = make_optimizer(lrs=(1.0,))
    sched = sch.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="deprecated"):
        sched.step(7)
    assert sched.get_last_lr() == [0.125] and sched.last_epoch == 7


def test_stepping_the_scheduler_before_the_optimizer_warns_as_pytorch():
    opt = make_optimizer(lrs=(1.0,))
    sched = sch.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()  # only the first step warns


def test_an_optimizer_subclass_with_its_own_step_does_not_trip_the_order_warning():
    class Halving(tl.optim.SGD):
        def step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    p.data = p.data * 0.5

    w = nn.Parameter(tl.tensor([1.0]))
    opt = Halving([w], lr=1.0)
    sched = sch.ExponentialLR(opt, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
    assert sched.get_last_lr() == [0.5] and w.item() == 0.5
    lbfgs = tl.optim.LBFGS([nn.Parameter(tl.tensor([1.0]))])
    with pytest.warns(UserWarning, match="before `optimizer.step"):
        sch.StepLR(lbfgs, step_size=2).step()


PLATEAU_METRIC = lambda i: 1.0 / (1 + i % 5)  # noqa: E731


@pytest.mark.parametrize("make, metric", [
    (lambda o: sch.StepLR(o, step_size=4, gamma=0.7), None),
    (lambda o: sch.CosineAnnealingLR(o, T_max=9, eta_min=0.001), None),
    (lambda o: sch.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=STEPS + 1), None),
    (lambda o: sch.ReduceLROnPlateau(o, patience=1), PLATEAU_METRIC),
    (lambda o: sch.SequentialLR(o, [sch.LinearLR(o, start_factor=0.5, total_iters=5),
                                    sch.MultiStepLR(o, milestones=[3, 8], gamma=0.3)], milestones=[5]), None),
    (lambda o: sch.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2), None),
], ids=["step", "cosine", "onecycle", "plateau", "sequential", "warm_restarts"])
def test_a_state_dict_saved_mid_way_resumes_identically_through_a_checkpoint(make, metric, tmp_path):
    opt = make_optimizer(lrs=(1.0, 2.0), momentum=0.9)
    sched = make(opt)
    full = run(opt, sched, STEPS, metric)
    # a second run, stopped after 15 steps, saved, loaded into new objects, finished
    opt = make_optimizer(lrs=(1.0, 2.0), momentum=0.9)
    sched = make(opt)
    first = run(opt, sched, 15, metric)
    tl.save({"optimizer": opt, "scheduler": sched.state_dict()}, tmp_path / "run.safetensors")
    saved = tl.load(tmp_path / "run.safetensors")
    opt2 = make_optimizer(lrs=(1.0, 2.0), momentum=0.9)
    sched2 = make(opt2)
    opt2.load_state_dict(saved["optimizer"])
    sched2.load_state_dict(saved["scheduler"])
    rest = run(opt2, sched2, STEPS - 15, (lambda i: metric(i + 15)) if metric else None)
    np.testing.assert_allclose(np.concatenate([first, rest[1:]]), full, rtol=1e-13)


# ------------------------------------------------------------ bad input
def test_a_scheduler_refuses_what_is_not_a_torchlight_optimizer():
    with pytest.raises(TypeError, match="StepLR: list is not an Optimizer"):
        sch.StepLR([1, 2], step_size=2)
    torch = pytest.importorskip("torch", reason="the foreign optimizer is PyTorch's")
    foreign = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    for make in (lambda: sch.CosineAnnealingLR(foreign, T_max=3), lambda: sch.ReduceLROnPlateau(foreign),
                 lambda: sch.OneCycleLR(foreign, max_lr=1.0, total_steps=3)):
        with pytest.raises(TypeError, match="torch.optim"):
            make()


def test_resuming_without_initial_lr_and_one_cycle_without_momentum_name_what_is_missing():
    opt = make_optimizer(lrs=(1.0,))
    with pytest.raises(ValueError, match="'initial_lr' is not specified in param_groups\\[0\\]") as info:
        sch.StepLR(opt, step_size=2, last_epoch=3)
    assert isinstance(info.value, KeyError)  # PyTorch's type, too
    adagrad = make_optimizer("Adagrad", lrs=(1.0,))
    with pytest.raises(ValueError, match="momentum or beta1.*Adagrad"):
        sch.OneCycleLR(adagrad, max_lr=1.0, total_steps=5)
    assert "initial_lr" not in adagrad.param_groups[0]  # nothing changed
    del opt.param_groups[0]["lr"]
    with pytest.raises(ValueError, match="ExponentialLR: param_groups\\[0\\] of SGD has no 'lr'"):
        sch.ExponentialLR(opt, gamma=0.5)


@pytest.mark.parametrize("make, message", [
    (lambda o: sch.StepLR(o, step_size=0), "positive integer step_size"),
    (lambda o: sch.StepLR(o, step_size=2, gamma=0.0), "positive number gamma"),
    (lambda o: sch.ExponentialLR(o, gamma=-0.5), "positive number gamma"),
    (lambda o: sch.MultiStepLR(o, milestones=[5, 3]), "milestones must be increasing"),
    (lambda o: sch.CosineAnnealingLR(o, T_max=0), "positive number T_max"),
    (lambda o: sch.CosineAnnealingWarmRestarts(o, T_0=0), "positive integer T_0"),
    (lambda o: sch.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), "T_mult >= 1"),
    (lambda o: sch.LinearLR(o, start_factor=0.0), "Starting multiplicative factor"),
    (lambda o: sch.LambdaLR(o, [lambda k: 1.0, lambda k: 1.0]), "expected 1 lr_lambdas, but got 2"),
    (lambda o: sch.OneCycleLR(o, max_lr=1.0), "total_steps OR"),
    (lambda o: sch.OneCycleLR(o, max_lr=1.0, total_steps=5, anneal_strategy="exp"), "anneal_strategy"),
    (lambda o: sch.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=5), "max_lr must have the same length"),
    (lambda o: sch.ReduceLROnPlateau(o, factor=1.0), "Factor should be < 1.0"),
    (lambda o: sch.ReduceLROnPlateau(o, mode="up"), "mode 'up' is unknown"),
    (lambda o: sch.SequentialLR(o, [sch.StepLR(o, 2)], milestones=[3]), "one more than the number of milestone"),
    (lambda o: sch.SequentialLR(o, [sch.ReduceLROnPlateau(o), sch.StepLR(o, 2)], milestones=[3]),
     "does not support `ReduceLROnPlateau`"),
    (lambda o: sch.SequentialLR(o, [sch.StepLR(o, 2), sch.StepLR(o, 2), sch.StepLR(o, 2)], milestones=[4, 4]),
     "milestones must be increasing"),
])
def test_invalid_arguments_raise_value_errors(make, message):
    opt = make_optimizer(lrs=(1.0,), momentum=0.9)
    with pytest.raises(ValueError, match=message):
        make(opt)


def test_lambda_lr_refuses_what_is_not_callable_and_sequential_a_foreign_scheduler():
    opt = make_optimizer(lrs=(1.0,))
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got float"):
        sch.LambdaLR(opt, 0.5)
    other = make_optimizer(lrs=(1.0,))
    with pytest.raises(ValueError, match="same optimizer"):
        sch.SequentialLR(opt, [sch.StepLR(opt, 2), sch.StepLR(other, 2)], milestones=[3])


def test_load_state_dict_refuses_what_is_not_a_scheduler_state():
    opt = make_optimizer(lrs=(1.0, 2.0))
    sched = sch.StepLR(opt, step_size=2)
    with pytest.raises(TypeError, match="expected a mapping"):
        sched.load_state_dict([1, 2])
    with pytest.raises(ValueError, match="no 'last_epoch'"):
        sched.load_state_dict({"state": {}})
    with pytest.raises(ValueError, match="base_lrs has 1 entries, the optimizer 2"):
        sched.load_state_dict({**sched.state_dict(), "base_lrs": [1.0]})


def test_lambda_lr_saves_a_callable_objects_attributes_as_pytorch():
    class Warmup:
        def __init__(self, n):
            self.n = n

        def __call__(self, k):
            return min(1.0, (k + 1) / self.n)

    opt = make_optimizer(lrs=(1.0,))
    sched = sch.LambdaLR(opt, Warmup(4))
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"n": 4}]
    again = sch.LambdaLR(make_optimizer(lrs=(1.0,)), Warmup(10))
    again.load_state_dict(state)
    assert again.lr_lambdas[0].n == 4


@pytest.mark.parametrize("name", ["torchlight.optim.lr_scheduler", "torchlight.optim.optimizer",
                                  "torchlight.optim.rmsprop", "torchlight.optim.adagrad", "torchlight.optim.lbfgs"])
def test_docstring_examples_of_the_optim_modules(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------ against PyTorch (float64)
SCHEDULES = {
    "StepLR": (lambda m, o: m.StepLR(o, step_size=4, gamma=0.7), None),
    "MultiStepLR": (lambda m, o: m.MultiStepLR(o, milestones=[3, 10, 22], gamma=0.4), None),
    "ExponentialLR": (lambda m, o: m.ExponentialLR(o, gamma=0.93), None),
    "CosineAnnealingLR": (lambda m, o: m.CosineAnnealingLR(o, T_max=10, eta_min=0.002), None),
    "CosineAnnealingWarmRestarts": (lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.01),
                                    None),
    "OneCycleLR-cos": (lambda m, o: m.OneCycleLR(o, max_lr=[0.4, 0.9], total_steps=STEPS + 1), None),
    "OneCycleLR-3phase-linear": (lambda m, o: m.OneCycleLR(o, max_lr=0.5, epochs=4, steps_per_epoch=10,
                                                          three_phase=True, anneal_strategy="linear"), None),
    "LambdaLR": (lambda m, o: m.LambdaLR(o, [lambda k: 0.95**k, lambda k: 1 / (1 + 0.1 * k)]), None),
    "LinearLR": (lambda m, o: m.LinearLR(o, start_factor=0.1, end_factor=0.8, total_iters=12), None),
    "SequentialLR": (lambda m, o: m.SequentialLR(o, [m.LinearLR(o, start_factor=0.25, total_iters=6),
                                                      m.CosineAnnealingLR(o, T_max=14)], milestones=[6]), None),
    "ReduceLROnPlateau": (lambda m, o: m.ReduceLROnPlateau(o, patience=2, factor=0.5, cooldown=1, threshold=0.05),
                          lambda i: 1.0 / (1 + i // 4)),
    "ReduceLROnPlateau-max-abs": (lambda m, o: m.ReduceLROnPlateau(o, mode="max", threshold_mode="abs",
                                                                   patience=1, min_lr=[0.05, 0.3]),
                                  lambda i: float(i % 3)),
}


@pytest.mark.parametrize("name", list(SCHEDULES))
@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_each_lr_and_the_cycled_momentum_match_pytorch_and_resume_mid_way(name, kind):
    torch = pytest.importorskip("torch", reason="the reference schedules are PyTorch's")
    make, metric = SCHEDULES[name]
    extra = {"momentum": 0.9} if kind == "SGD" else {}

    def both():
        ours, theirs = make_optimizer(kind, (0.3, 0.05), **extra), make_optimizer(kind, (0.3, 0.05), torch, **extra)
        return ours, make(sch, ours), theirs, make(torch.optim.lr_scheduler, theirs)

    ours, our_sched, theirs, their_sched = both()
    key = "momentum" if kind == "SGD" else "betas"
    for i in range(STEPS):
        np.testing.assert_allclose(our_sched.get_last_lr(), their_sched.get_last_lr(), rtol=1e-13, atol=1e-16)
        for a, b in zip(ours.param_groups, theirs.param_groups):
            assert a["lr"] == pytest.approx(b["lr"], rel=1e-13) and np.allclose(a[key], b[key], rtol=1e-13)
            initial = b.get("initial_lr")  # (ReduceLROnPlateau sets none: pytest.approx refuses None)
            assert a.get("initial_lr") == (None if initial is None else pytest.approx(initial, rel=1e-15))
        assert our_sched.last_epoch == their_sched.last_epoch
        if i == 17:  # both resume from their own state dicts, into fresh objects
            our_state, their_state = our_sched.state_dict(), their_sched.state_dict()
            our_opt, their_opt = ours.state_dict(), theirs.state_dict()
            ours, our_sched, theirs, their_sched = both()
            ours.load_state_dict(our_opt)
            theirs.load_state_dict(their_opt)
            our_sched.load_state_dict(our_state)
            their_sched.load_state_dict(their_state)
            assert set(our_state) == set(their_state)  # PyTorch's layout
        ours.step()
        theirs.step()
        if metric is None:
            our_sched.step()
            their_sched.step()
        else:
            our_sched.step(metric(i))
            their_sched.step(metric(i))


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "ExponentialLR", "LinearLR", "MultiStepLR"])
def test_a_scheduler_made_with_last_epoch_continues_as_pytorchs(name):
    torch = pytest.importorskip("torch", reason="the reference schedules are PyTorch's")
    make, _ = SCHEDULES[name]
    lrs = []
    for lib, module in ((None, sch), (torch, torch.optim.lr_scheduler)):  # the same lambdas, with last_epoch=7
        opt = make_optimizer("SGD", (0.3, 0.05), lib)
        for group in opt.param_groups:  # as a loaded optimizer's groups are
            group["initial_lr"] = group["lr"]
            group["lr"] = group["lr"] * 0.5
        lrs.append(run(opt, _with_last_epoch(make, module, opt, 7), 12))
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-13)


def _with_last_epoch(make, module, opt, last_epoch):
    """`make(module, opt)` with last_epoch= passed to the scheduler's class."""
    class Module:
        def __getattr__(self, name):
            cls = getattr(module, name)
            return lambda *args, **kwargs: cls(*args, **kwargs, last_epoch=last_epoch)
    return make(Module(), opt)
