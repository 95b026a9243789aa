"""RMSprop, Adagrad and LBFGS: by hand and on every backend (no torch), then against PyTorch float64, resuming."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn

W0 = np.array([[0.5, -1.5, 0.3], [2.0, 0.25, -0.7]])
B0 = np.array([0.4, -0.9])
TARGET = np.array([[1.0, 0.0, -0.5], [0.0, -1.0, 0.2]])


def loss_of(w, b, lib):
    """The same loss in torchlight and in PyTorch: a cubic in w plus a quartic in b, coupled."""
    target = tl.tensor(TARGET, backend=w.backend) if lib is tl else lib.tensor(TARGET, dtype=lib.float64)
    return ((w - target) ** 2 * w).sum() + (b**4).sum() + (w.sum(1) * b).sum()


def params(lib, backend=None):
    if lib is tl:
        return [nn.Parameter(tl.tensor(v.copy(), backend=backend)) for v in (W0, B0)]
    return [lib.nn.Parameter(lib.tensor(v.copy(), dtype=lib.float64)) for v in (W0, B0)]


def train(opt, ps, lib, steps):
    for _ in range(steps):
        opt.zero_grad()
        loss_of(*ps, lib).backward()
        opt.step()


def as_numpy(p):
    return p.detach().numpy() if hasattr(p, "detach") and not isinstance(p, tl.Tensor) else p.numpy()


# ------------------------------------------------------------ by hand (no torch)
def test_adagrads_first_step_by_hand():
    w = nn.Parameter(tl.tensor([1.0, -2.0, 3.0]))
    opt = tl.optim.Adagrad([w], lr=0.1, initial_accumulator_value=0.5, weight_decay=0.2, eps=1e-10)
    ((w * w * w).sum()).backward()
    opt.step()
    g = 3 * np.array([1.0, 4.0, 9.0]) + 0.2 * np.array([1.0, -2.0, 3.0])
    expected = np.array([1.0, -2.0, 3.0]) - 0.1 * g / (np.sqrt(0.5 + g * g) + 1e-10)
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-14)
    assert opt.state[w]["step"] == 1
    np.testing.assert_allclose(opt.state[w]["sum"], 0.5 + g * g)


def test_adagrads_lr_decay_divides_the_kth_step_by_one_plus_k_minus_one_times_the_decay():
    w = nn.Parameter(tl.tensor([5.0]))
    opt = tl.optim.Adagrad([w], lr=1.0, lr_decay=0.5)
    moves = []
    for _ in range(3):
        opt.zero_grad()
        w.sum().backward()  # gradient 1: each step is clr / sqrt(k)
        before = w.item()
        opt.step()
        moves.append(before - w.item())
    np.testing.assert_allclose(moves, [1.0 / (1 + 0.0) / 1, 1.0 / 1.5 / np.sqrt(2), 1.0 / 2.0 / np.sqrt(3)],
                               rtol=1e-9)


def ref_rmsprop(lr, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False, steps=5):
    """PyTorch's documented RMSprop on one parameter with gradient 3 w**2 (w = [1, -2])."""
    w = np.array([1.0, -2.0])
    v = buf = g_avg = np.zeros(2)
    for _ in range(steps):
        g = 3 * w * w + weight_decay * w
        v = alpha * v + (1 - alpha) * g * g
        if centered:
            g_avg = alpha * g_avg + (1 - alpha) * g
            avg = np.sqrt(v - g_avg * g_avg) + eps
        else:
            avg = np.sqrt(v) + eps
        if momentum:
            buf = momentum * buf + g / avg
            w = w - lr * buf
        else:
            w = w - lr * g / avg
    return w


@pytest.mark.parametrize("kwargs", [{"lr": 0.01}, {"lr": 0.01, "momentum": 0.9}, {"lr": 0.02, "centered": True},
                                    {"lr": 0.01, "alpha": 0.9, "weight_decay": 0.1, "momentum": 0.5,
                                     "centered": True}])
def test_rmsprop_follows_its_update_rule_on_each_backend(backend, kwargs):
    w = nn.Parameter(tl.tensor([1.0, -2.0], backend=backend))
    opt = tl.optim.RMSprop([w], **kwargs)
    for _ in range(5):
        opt.zero_grad()
        (w * w * w).sum().backward()
        opt.step()
    np.testing.assert_allclose(w.numpy(), ref_rmsprop(**kwargs), rtol=1e-12)


def test_adagrad_runs_on_each_backend(backend):
    ps = params(tl, backend)
    opt = tl.optim.Adagrad(ps, lr=0.1, initial_accumulator_value=0.1)
    train(opt, ps, tl, 3)
    reference = params(tl)
    train(tl.optim.Adagrad(reference, lr=0.1, initial_accumulator_value=0.1), reference, tl, 3)
    for a, b in zip(ps, reference):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


A = np.array([[4.0, 1.0, 0.0, 0.5], [1.0, 3.0, 0.2, 0.0], [0.0, 0.2, 2.0, 0.3], [0.5, 0.0, 0.3, 1.0]])
RHS = np.array([1.0, -2.0, 0.5, 3.0])


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_reaches_the_minimum_of_a_quadratic(backend, line_search_fn):
    x = nn.Parameter(tl.tensor(np.zeros(4), backend=backend))
    a, rhs = tl.tensor(A, backend=backend), tl.tensor(RHS, backend=backend)
    opt = tl.optim.LBFGS([x], max_iter=50, line_search_fn=line_search_fn,
                         tolerance_grad=1e-10, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x * (a @ x)).sum() - (rhs * x).sum()
        loss.backward()
        return loss

    first = opt.step(closure)
    for _ in range(4):
        opt.step(closure)
    assert float(first) == 0.0
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A, RHS), rtol=1e-6, atol=1e-8)
    assert x.is_leaf and x.history is None


def test_lbfgs_stops_at_once_when_the_gradient_is_already_small():
    x = nn.Parameter(tl.tensor([2.0]))
    opt = tl.optim.LBFGS([x])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = ((x - 2.0) ** 2).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0 and len(calls) == 1 and x.item() == 2.0
    assert opt.state[x]["func_evals"] == 1 and opt.state[x]["n_iter"] == 0


def rosenbrock(ps):
    x, y = ps
    return ((1 - x) ** 2).sum() + 100 * ((y - x * x) ** 2).sum()


def lbfgs_run(lib, line_search_fn, steps, opt=None, ps=None, history_size=3, lr=None):
    if ps is None:
        start = (np.array([-1.2, 0.5]), np.array([1.0, -0.3]))
        ps = ([nn.Parameter(tl.tensor(v.copy())) for v in start] if lib is tl else
              [lib.nn.Parameter(lib.tensor(v.copy(), dtype=lib.float64)) for v in start])
    if opt is None:
        lr = lr if lr is not None else 1.0 if line_search_fn else 0.05
        opt = lib.optim.LBFGS(ps, lr=lr, max_iter=6, history_size=history_size,
                              line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = rosenbrock(ps)
        loss.backward()
        return loss

    losses, trail = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        trail.append([np.array(as_numpy(p)) for p in ps])
    return losses, trail, opt, ps


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_state_dict_resumes_the_same_iterations(line_search_fn, tmp_path):
    full_losses, full_trail, _, _ = lbfgs_run(tl, line_search_fn, 4)
    losses, trail, opt, _ = lbfgs_run(tl, line_search_fn, 2)
    tl.save({"optimizer": opt}, tmp_path / "lbfgs.safetensors")
    ps = [nn.Parameter(tl.tensor(np.array(v))) for v in trail[-1]]
    again = tl.optim.LBFGS(ps, lr=1.0 if line_search_fn else 0.05, max_iter=6, history_size=3,
                           line_search_fn=line_search_fn)
    again.load_state_dict(tl.load(tmp_path / "lbfgs.safetensors")["optimizer"])
    rest_losses, rest_trail, _, _ = lbfgs_run(tl, line_search_fn, 2, again, ps)
    np.testing.assert_allclose(losses + rest_losses, full_losses, rtol=1e-13)
    for a, b in zip(trail + rest_trail, full_trail):
        np.testing.assert_allclose(np.concatenate(a), np.concatenate(b), rtol=1e-13)


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize("make, message", [
    (lambda p: tl.optim.RMSprop(p, lr=-1.0), "invalid lr"),
    (lambda p: tl.optim.RMSprop(p, alpha=-0.1), "invalid alpha"),
    (lambda p: tl.optim.RMSprop(p, momentum=-0.5), "invalid momentum"),
    (lambda p: tl.optim.Adagrad(p, lr_decay=-1.0), "invalid lr_decay"),
    (lambda p: tl.optim.Adagrad(p, initial_accumulator_value=-1.0), "invalid initial_accumulator_value"),
    (lambda p: tl.optim.LBFGS(p, line_search_fn="armijo"), "line_search_fn must be None or 'strong_wolfe'"),
    (lambda p: tl.optim.LBFGS(p, max_iter=0), "max_iter must be a positive int"),
    (lambda p: tl.optim.LBFGS([{"params": p[:1]}, {"params": p[1:]}]), "doesn't support per-parameter options"),
])
def test_invalid_hyper_parameters_raise_value_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make(params(tl))


def test_lbfgs_needs_a_closure_and_its_own_state():
    ps = params(tl)
    opt = tl.optim.LBFGS(ps)
    with pytest.raises(TypeError, match="LBFGS.step: needs a closure"):
        opt.step()
    _, _, trained, _ = lbfgs_run(tl, None, 1)
    with pytest.raises(ValueError, match=r"LBFGS.load_state_dict: .*'d'.* shape \(4,\), the flat parameters \(8,\)"):
        opt.load_state_dict(trained.state_dict())
    assert not opt.state  # nothing changed


def test_an_adagrad_state_dict_does_not_load_into_rmsprop():
    ps = params(tl)
    with pytest.raises(ValueError, match="lack RMSprop's"):
        tl.optim.RMSprop(ps).load_state_dict(tl.optim.Adagrad(ps).state_dict())


# ------------------------------------------------------------ against PyTorch (float64)
CASES = [
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.005, "alpha": 0.9, "momentum": 0.8}),
    ("RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "eps": 1e-6}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.2, "initial_accumulator_value": 0.3, "eps": 1e-6}),
]


@pytest.mark.parametrize("name, kwargs", CASES)
def test_ten_steps_match_pytorch_with_a_state_dict_round_trip_at_step_five(name, kwargs):
    torch = pytest.importorskip("torch", reason="the reference optimizers are PyTorch's")
    theirs = params(torch)
    their_opt = getattr(torch.optim, name)(theirs, **kwargs)
    ours = params(tl)
    our_opt = getattr(tl.optim, name)(ours, **kwargs)
    for i in range(10):
        if i == 5:  # resume into a new optimizer, over new Parameters holding the same values
            state = our_opt.state_dict()
            ours = [nn.Parameter(tl.tensor(p.numpy())) for p in ours]
            our_opt = getattr(tl.optim, name)(ours, **kwargs)
            our_opt.load_state_dict(state)
            assert set(state["state"][0]) == set(their_opt.state_dict()["state"][0])  # PyTorch's names
        train(our_opt, ours, tl, 1)
        train(their_opt, theirs, torch, 1)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
        for a, b in zip(ours, theirs):
            for key, value in their_opt.state[b].items():
                np.testing.assert_allclose(np.asarray(our_opt.state[a][key]), value.detach().numpy(), rtol=1e-12)


def test_adagrads_state_before_any_step_is_pytorchs():
    torch = pytest.importorskip("torch", reason="the reference optimizer is PyTorch's")
    ours = tl.optim.Adagrad(params(tl), initial_accumulator_value=0.25).state_dict()
    theirs = torch.optim.Adagrad(params(torch), initial_accumulator_value=0.25).state_dict()
    assert sorted(ours["state"]) == sorted(theirs["state"]) == [0, 1]
    for i in (0, 1):
        np.testing.assert_array_equal(ours["state"][i]["sum"].numpy(), theirs["state"][i]["sum"].numpy())


# (PyTorch's LBFGS itself takes float() of a loss that requires grad, and warns about it)
@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad=True:UserWarning")
# (a small lr makes the line search extrapolate, a large one zoom)
@pytest.mark.parametrize("line_search_fn, lr", [(None, 0.05), ("strong_wolfe", 1.0), ("strong_wolfe", 0.01),
                                                ("strong_wolfe", 3.0)])
@pytest.mark.parametrize("history_size", [3, 100])
def test_lbfgs_on_rosenbrock_matches_pytorch_step_by_step(line_search_fn, lr, history_size):
    torch = pytest.importorskip("torch", reason="the reference optimizer is PyTorch's")
    ours = lbfgs_run(tl, line_search_fn, 4, history_size=history_size, lr=lr)
    theirs = lbfgs_run(torch, line_search_fn, 4, history_size=history_size, lr=lr)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(np.concatenate(a), np.concatenate(b), rtol=1e-9, atol=1e-12)
    our_state, their_state = ours[2].state[ours[3][0]], theirs[2].state[theirs[3][0]]
    assert (our_state["n_iter"], our_state["func_evals"]) == (their_state["n_iter"], their_state["func_evals"])
    assert len(our_state["old_dirs"]) == len(their_state["old_dirs"])
    np.testing.assert_allclose(our_state["t"], float(their_state["t"]), rtol=1e-9)
    assert ours[0][-1] < 0.5 * ours[0][0]  # (the run goes somewhere)
