"""A complex parameter is optimized as the real one its real and imaginary parts make (PyTorch's
`view_as_real`): every optimizer's steps on z = a + bi equal its steps on the real pair (a, b) with
the same loss, and PyTorch's on the same complex parameter where it is installed. (Adam's second
moment of the complex g * g moved only the real part: a silent wrong answer.)"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl

START = np.array([1.0 + 2.0j, -0.5 + 0.5j, 0.25 - 1.5j])
OPTIMIZERS = {
    "SGD": (lambda ps: tl.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True), "SGD",
            {"momentum": 0.9, "nesterov": True}),
    "Adam": (lambda ps: tl.optim.Adam(ps, lr=0.1, weight_decay=0.05), "Adam", {"weight_decay": 0.05}),
    "AdamW": (lambda ps: tl.optim.AdamW(ps, lr=0.1, weight_decay=0.1), "AdamW", {"weight_decay": 0.1}),
    "RMSprop": (lambda ps: tl.optim.RMSprop(ps, lr=0.05, momentum=0.5, centered=True), "RMSprop",
                {"momentum": 0.5, "centered": True}),
    "Adagrad": (lambda ps: tl.optim.Adagrad(ps, lr=0.1), "Adagrad", {}),
}
LR = {"SGD": 0.1, "Adam": 0.1, "AdamW": 0.1, "RMSprop": 0.05, "Adagrad": 0.1}


def complex_loss(z):
    return ((z - (0.3 - 0.2j)).abs() ** 2).sum() + (z * 3.0).real.sum() + 0.1 * (z.imag ** 4).sum()


def real_loss(r):  # the same function of the pairs (a, b)
    a, b = r[:, 0], r[:, 1]
    return ((a - 0.3) ** 2 + (b + 0.2) ** 2).sum() + (a * 3.0).sum() + 0.1 * (b ** 4).sum()


def run(make, param, loss, steps=4):
    opt = make([param])
    for _ in range(steps):
        opt.zero_grad()
        loss(param).backward()
        opt.step()
    return opt


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_complex_parameter_steps_as_its_real_pair(name, backend):
    make = OPTIMIZERS[name][0]
    z = tl.tensor(backend.asarray(START), requires_grad=True)
    r = tl.tensor(backend.asarray(np.stack([START.real, START.imag], axis=-1)), requires_grad=True)
    opt = run(make, z, complex_loss)
    run(make, r, real_loss)
    got = z.numpy()
    assert z.dtype == z.backend.resolve_dtype("complex128")
    np.testing.assert_allclose(np.stack([got.real, got.imag], axis=-1), r.numpy(), rtol=1e-13, atol=1e-15)
    for value in opt.state[z].values():  # the state is of the parameter's shape and dtype, as PyTorch's
        if hasattr(value, "shape"):
            assert value.shape == z.shape and value.dtype == z.dtype


def test_lbfgs_steps_a_complex_parameter_as_its_real_pair():
    z = tl.tensor(START, requires_grad=True)
    r = tl.tensor(np.stack([START.real, START.imag], axis=-1), requires_grad=True)
    for p, loss in ((z, complex_loss), (r, real_loss)):
        opt = tl.optim.LBFGS([p], lr=1, max_iter=6, line_search_fn="strong_wolfe")

        def closure(p=p, loss=loss, opt=opt):
            opt.zero_grad()
            value = loss(p)
            value.backward()
            return value

        for _ in range(2):
            opt.step(closure)
    got = z.numpy()
    np.testing.assert_allclose(np.stack([got.real, got.imag], axis=-1), r.numpy(), rtol=1e-10, atol=1e-12)
    assert not np.allclose(got, START)  # (it moved)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_complex_parameter_steps_as_pytorchs(name):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch, its CPU build)")
    make, torch_name, options = OPTIMIZERS[name]
    z = tl.tensor(START, requires_grad=True)
    t = torch.tensor(START, requires_grad=True)
    run(make, z, complex_loss)
    opt = getattr(torch.optim, torch_name)([t], lr=LR[name], **options)
    for _ in range(4):
        opt.zero_grad()
        complex_loss(t).backward()
        opt.step()
    np.testing.assert_allclose(z.numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-14)
