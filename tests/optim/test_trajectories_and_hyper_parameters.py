"""torchlight.optim over 20 steps against PyTorch's documented update rules, written out in NumPy.

Found by a differential hunt against torch 2.13 (torch is not used here):
the trajectories of SGD, Adam and AdamW with parameter groups, a learning
rate changed through `param_groups`, parameters with no gradient in some
steps, frozen parameters and a checkpoint taken halfway; hyper-parameters
given as NumPy scalars or Tensors (a float32 model stays float32); a group
dict that stays the optimizer's own; PyTorch's ValueErrors; a single tensor given instead
of a list, and frozen parameters left alone until unfrozen.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn

STEPS = 20
SHAPES = [(3,), (2, 2), (4,)]


def problem(seed):
    """A random float64 problem: constants, starting points, and the loss's gradient in NumPy."""
    rng = np.random.default_rng(seed)
    a, b, c = rng.normal(size=(5, 3)), rng.normal(size=5), rng.normal(size=4)
    starts = [rng.normal(size=shape) for shape in SHAPES]

    def loss(params):
        w, v, u = params
        r = tl.tensor(a) @ w - tl.tensor(b)
        return (r * r).sum() + (v ** 4).sum() * 0.1 + (v.sum() - 1.0) ** 2 + (u * tl.tensor(c)).tanh().sum()

    def grads(params):
        w, v, u = params
        return [2 * a.T @ (a @ w - b), 0.4 * v ** 3 + 2 * (v.sum() - 1.0), c * (1 - np.tanh(u * c) ** 2)]

    return starts, loss, grads


def sgd_rule(w, g, state, h):
    """torch.optim.SGD's documented algorithm (maximize=False)."""
    g = g + h["weight_decay"] * w
    if h["momentum"]:
        buf = state.get("buf")
        buf = g if buf is None else h["momentum"] * buf + (1 - h["dampening"]) * g
        state["buf"] = buf
        g = g + h["momentum"] * buf if h["nesterov"] else buf
    return w - h["lr"] * g


def adam_rule(w, g, state, h, decoupled=False):
    """torch.optim.Adam's documented algorithm (amsgrad=False); AdamW's when decoupled."""
    (beta1, beta2), lr = h["betas"], h["lr"]
    if decoupled:
        w = w * (1 - lr * h["weight_decay"])
    else:
        g = g + h["weight_decay"] * w
    t = state["t"] = state.get("t", 0) + 1
    m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
    v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g * g
    return w - lr * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + h["eps"])


DEFAULTS = {
    "SGD": {"lr": 1e-3, "momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0, "nesterov": False},
    "Adam": {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0},
    "AdamW": {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 1e-2},
}
RULES = {"SGD": sgd_rule, "Adam": adam_rule, "AdamW": lambda w, g, s, h: adam_rule(w, g, s, h, decoupled=True)}


def no_grad_in(step):
    """Which parameters have no .grad at a step (None: all of them have one)."""
    return {1} if step % 3 == 1 else ({0, 2} if step in (4, 5) else set())


def schedule(step, group):
    return 0.01 * (1 + step % 4) * (group + 1)


def reference(name, kwargs, groups, seed, skip, frozen, lr_schedule):
    starts, _, grads = problem(seed)
    params, states = [s.copy() for s in starts], [{} for _ in starts]
    hyper = [{**DEFAULTS[name], **kwargs, **extra} for _, extra in groups]
    for step in range(STEPS):
        gs = grads(params)
        for k, (members, _) in enumerate(groups):
            if lr_schedule:
                hyper[k]["lr"] = schedule(step, k)
            for i in members:
                if i != frozen and not (skip and i in no_grad_in(step)):
                    params[i] = RULES[name](params[i], gs[i], states[i], hyper[k])
    return params


def run(name, kwargs, groups, seed, skip, frozen, lr_schedule):
    starts, loss, _ = problem(seed)
    params = [nn.Parameter(tl.tensor(s.copy())) for s in starts]
    if frozen is not None:
        params[frozen].requires_grad_(False)
    optimizer = getattr(tl.optim, name)([{"params": [params[i] for i in members], **extra}
                                         for members, extra in groups], **kwargs)
    for step in range(STEPS):
        for k, group in enumerate(optimizer.param_groups):
            if lr_schedule:
                group["lr"] = schedule(step, k)
        optimizer.zero_grad()
        loss(params).backward()
        for i in no_grad_in(step) if skip else ():
            params[i].grad = None
        optimizer.step()
    return [p.numpy() for p in params]


ONE_GROUP = [([0, 1, 2], {})]
TWO_GROUPS = [([0], {"lr": 0.02}), ([1, 2], {"lr": 0.07, "weight_decay": 0.05})]
CASES = [
    ("SGD", {"lr": 0.05}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.01, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.01, "betas": (0.5, 0.8), "eps": 1e-3, "weight_decay": 0.2}),
    ("Adam", {"lr": 0.1, "betas": (0.0, 0.99)}),
    ("AdamW", {"lr": 0.1}),
    ("AdamW", {"lr": 0.01, "betas": (0.5, 0.8), "eps": 1e-3, "weight_decay": 0.2}),
]
SETTINGS = [  # (groups, skip, frozen, lr_schedule)
    (ONE_GROUP, False, None, False),
    (ONE_GROUP, True, 2, False),
    (TWO_GROUPS, True, None, True),
]


@pytest.mark.parametrize("name, kwargs", CASES)
@pytest.mark.parametrize("groups, skip, frozen, lr_schedule", SETTINGS)
def test_twenty_steps_follow_the_documented_rule(name, kwargs, groups, skip, frozen, lr_schedule):
    """A parameter with no .grad is skipped (its step count and buffers wait), a frozen one never moves,
    and a learning rate set in param_groups between steps is the one the next step uses."""
    args = (name, kwargs, groups, 7, skip, frozen, lr_schedule)
    for got, want in zip(run(*args), reference(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("make", [
    lambda p: tl.optim.SGD(p, lr=0.1, momentum=0.5, weight_decay=0.1),
    lambda p: tl.optim.AdamW(p, lr=0.1, weight_decay=0.1),
])
def test_zero_grad_to_zeros_still_steps_where_to_none_skips(make):
    """As PyTorch: a zero gradient is a gradient (weight decay and momentum act on it), None is none."""
    w, z = nn.Parameter(tl.tensor([1.0, -2.0])), nn.Parameter(tl.tensor([1.0, -2.0]))
    (opt_w, opt_z) = make([w]), make([z])
    for opt, p in ((opt_w, w), (opt_z, z)):
        (p * p).sum().backward()
        opt.step()
    moved = z.numpy().copy()
    opt_w.zero_grad()
    opt_z.zero_grad(set_to_none=False)
    opt_w.step()
    opt_z.step()
    np.testing.assert_array_equal(w.numpy(), moved)
    assert np.all(np.abs(z.numpy()) < np.abs(moved))


@pytest.mark.parametrize("number", [np.float64, np.array, tl.tensor])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_hyper_parameters_of_any_number_type_keep_a_float32_model_float32(backend, number, name):
    """np.float64(lr) (a NumPy schedule's value) promoted float32 parameters to float64 on NumPy,
    raised on array_api_strict, and a Tensor lr left a Tensor in `.data`: each is read as a number."""
    kwargs = {"lr": 0.01, "weight_decay": 0.1, **({"momentum": 0.5, "nesterov": True} if name == "SGD" else
                                                {"betas": (0.8, 0.9), "eps": 1e-3})}
    odd = {k: (tuple(number(b) for b in v) if k == "betas" else v if k == "nesterov" else number(v))
           for k, v in kwargs.items()}
    results = []
    for hyper in (kwargs, odd):
        w = nn.Parameter(tl.tensor(np.array([1.0, -2.0, 0.5], dtype=np.float32), backend=backend))
        optimizer = getattr(tl.optim, name)([w], **hyper)
        optimizer.param_groups[0]["lr"] = hyper["lr"]
        for _ in range(3):
            optimizer.zero_grad()
            (w * w * w).sum().backward()
            optimizer.step()
        assert not isinstance(w.data, tl.Tensor) and w.dtype == tl.tensor(np.float32(1), backend=backend).dtype
        results.append(w.numpy())
    np.testing.assert_array_equal(results[1], results[0])


def test_a_parameter_group_dict_stays_the_optimizer_s_own():
    """As PyTorch, param_groups holds the dicts it was given (defaults filled in), so a
    learning rate set in one of them is used; a copy silently dropped the change."""
    w = nn.Parameter(tl.tensor([1.0]))
    head = {"params": [w], "lr": 0.5}
    optimizer = tl.optim.SGD([head], lr=0.1, momentum=0.0)
    assert optimizer.param_groups[0] is head and head["momentum"] == 0.0
    head["lr"] = 0.25
    head["name"] = "head"  # a key added later is the caller's own business (PyTorch's schedulers add some)
    (w * 2.0).sum().backward()
    optimizer.step()
    assert w.tolist() == [0.5]


def test_resuming_from_a_checkpoint_halfway_gives_the_same_trajectory(tmp_path):
    """Plain SGD keeps no state, so the model's checkpoint is all a resumed run needs: bit for bit."""
    tl.manual_seed(3)
    x, y = tl.randn(16, 4), tl.randn(16, 2)

    def train(model, steps):
        optimizer = tl.optim.SGD(model.parameters(), lr=0.05)
        for _ in range(steps):
            optimizer.zero_grad()
            model(x).mse_loss(y).backward()
            optimizer.step()

    whole = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    first = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    first.load_state_dict(whole.state_dict())
    train(whole, STEPS)
    train(first, STEPS // 2)
    tl.save(first, tmp_path / "half.safetensors")
    resumed = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    resumed.load_state_dict(tl.load(tmp_path / "half.safetensors"))
    train(resumed, STEPS - STEPS // 2)
    for name, value in whole.state_dict().items():
        np.testing.assert_array_equal(resumed.state_dict()[name].numpy(), value.numpy())


@pytest.mark.parametrize("copy_of", [copy.deepcopy, lambda obj: pickle.loads(pickle.dumps(obj))])
@pytest.mark.parametrize("make", [lambda p: tl.optim.SGD(p, lr=0.01, momentum=0.9), lambda p: tl.optim.Adam(p, lr=0.1)])
def test_a_copied_optimizer_keeps_its_state(copy_of, make):
    """The state is keyed by the parameter, as PyTorch's (`optimizer.state[w]`); keyed by id(w), a
    deep copy or an unpickled optimizer silently started its momentum and moments again."""
    def steps(w, optimizer, n=3):
        for _ in range(n):
            optimizer.zero_grad()
            (w * w * w).sum().backward()
            optimizer.step()

    w = nn.Parameter(tl.tensor([1.0, -2.0]))
    optimizer = make([w])
    steps(w, optimizer)
    assert set(optimizer.state[w]) in ({"momentum_buffer"}, {"step", "exp_avg", "exp_avg_sq"})
    w2, optimizer2 = copy_of((w, optimizer))
    steps(w, optimizer)
    steps(w2, optimizer2)
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    assert list(optimizer2.state) == [w2]


W = [0.0]
INVALID = [  # PyTorch raises ValueError for each
    ("SGD", {"lr": -0.1}), ("SGD", {"lr": 0.1, "momentum": -0.5}), ("SGD", {"lr": 0.1, "weight_decay": -1e-4}),
    ("SGD", {"lr": 0.1, "nesterov": True}), ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("Adam", {"lr": -1e-3}), ("Adam", {"eps": -1e-8}), ("Adam", {"weight_decay": -0.1}),
    ("Adam", {"betas": (1.0, 0.999)}), ("Adam", {"betas": (0.9, 1.0)}), ("Adam", {"betas": (-0.1, 0.999)}),
    ("AdamW", {"betas": (0.9, -0.5)}), ("AdamW", {"lr": float("nan")}), ("AdamW", {"weight_decay": -0.01}),
]
VALID = [("SGD", {"lr": 0.0}), ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
         ("Adam", {"betas": (0.0, 0.0), "eps": 0.0}), ("AdamW", {"lr": 0.0, "weight_decay": 0.0})]


@pytest.mark.parametrize("name, kwargs", INVALID)
def test_invalid_hyper_parameters_raise_value_error(name, kwargs):
    with pytest.raises(ValueError):
        getattr(tl.optim, name)([nn.Parameter(tl.tensor(W))], **kwargs)


@pytest.mark.parametrize("name, kwargs", VALID)
def test_boundary_hyper_parameters_are_accepted(name, kwargs):
    getattr(tl.optim, name)([nn.Parameter(tl.tensor(W))], **kwargs)


@pytest.mark.parametrize("name, kwargs", [
    ("SGD", {"lr": float("nan")}), ("SGD", {"lr": float("inf")}), ("SGD", {"lr": 0.1, "momentum": float("nan")}),
    ("Adam", {"eps": float("inf")}), ("AdamW", {"weight_decay": float("nan")}),
])
def test_nan_and_infinite_hyper_parameters_are_refused(name, kwargs):
    """Stricter than PyTorch, whose SGD takes lr=nan (docs/decisions.md, Optimizers)."""
    with pytest.raises(ValueError, match="invalid"):
        getattr(tl.optim, name)([nn.Parameter(tl.tensor(W))], **kwargs)


@pytest.mark.parametrize("name, option", [("SGD", "maximize"), ("Adam", "amsgrad"), ("AdamW", "maximize"),
                                          ("Adam", "foreach")])
def test_pytorch_options_not_provided_raise_instead_of_being_ignored(name, option):
    with pytest.raises(TypeError, match=option):
        getattr(tl.optim, name)([nn.Parameter(tl.tensor(W))], **{option: False})


def test_a_state_dict_taken_before_a_step_keeps_its_values():
    """step() replaces the parameter's array, so the earlier state dict is a snapshot (docs/decisions.md)."""
    model = nn.Linear(2, 1)
    state = model.state_dict()
    before = {name: value.numpy().copy() for name, value in state.items()}
    model(tl.ones(3, 2)).sum().backward()
    tl.optim.SGD(model.parameters(), lr=0.1).step()
    for name, value in state.items():
        np.testing.assert_array_equal(value.numpy(), before[name])
        assert not np.array_equal(model.state_dict()[name].numpy(), before[name])


def test_an_optimizer_given_one_tensor_instead_of_a_list_says_so():
    w = nn.Parameter(tl.ones(3))  # list(w) would iterate its rows, which are not leaves
    with pytest.raises(TypeError, match=r"an iterable of Tensors or of parameter groups.*\[w\]"):
        tl.optim.SGD(w, lr=0.1)
    with pytest.raises(TypeError, match="iterable"):
        tl.optim.Adam(nn.Parameter(tl.tensor(1.0)))


def test_an_optimizer_takes_frozen_parameters_and_leaves_them_until_unfrozen():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    model[0].weight.requires_grad = False  # fine-tuning: freeze, then hand over model.parameters()
    frozen = model[0].weight.numpy().copy()
    optimizer = tl.optim.SGD(model.parameters(), lr=0.1)
    model(tl.ones(3, 2)).sum().backward()
    optimizer.step()
    np.testing.assert_array_equal(model[0].weight.numpy(), frozen)
    assert model[0].weight.grad is None and model[0].bias.grad is not None
    model[0].weight.requires_grad = True  # gradual unfreezing: the optimizer already holds it
    optimizer.zero_grad()
    model(tl.ones(3, 2)).sum().backward()
    optimizer.step()
    grad = model[0].weight.grad.numpy()
    np.testing.assert_allclose(model[0].weight.numpy(), frozen - 0.1 * grad, rtol=1e-15)
    with pytest.raises(ValueError, match="requires_grad=True"):  # a plain tensor that never wanted one: a mistake
        tl.optim.SGD([tl.zeros(2)], lr=0.1)
