"""`func.functional_call`: a Module called with other tensors, restored afterwards, differentiable through
`func.grad`; tied weights, buffers, strict, and bad keys; against `torch.func.functional_call`."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func, nn

RNG = np.random.default_rng(7)


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.register_buffer("scale", tl.tensor([1.0, 10.0]))

    def forward(self, x):
        return self.lin(x) * self.scale


def arrays(model):
    return {k: v.detach().numpy().copy() for k, v in [*model.named_parameters(), *model.named_buffers()]}


def test_the_call_uses_the_given_tensors_and_restores_the_module():
    model = Scaled()
    before = {k: id(v) for k, v in [*model.named_parameters(), *model.named_buffers()]}
    new = {"lin.weight": RNG.standard_normal((2, 3)), "lin.bias": np.zeros(2), "scale": np.array([2.0, 3.0])}
    x = RNG.standard_normal(3)
    out = func.functional_call(model, new, (tl.tensor(x),))
    np.testing.assert_allclose(out.numpy(), (new["lin.weight"] @ x) * [2.0, 3.0])
    assert {k: id(v) for k, v in [*model.named_parameters(), *model.named_buffers()]} == before
    assert isinstance(model.lin.weight, nn.Parameter)


def test_restored_even_when_the_call_raises():
    model = Scaled()
    weight = model.lin.weight
    with pytest.raises(ValueError, match="width 4"):
        func.functional_call(model, {"lin.weight": np.ones((2, 3))}, tl.tensor(np.ones(4)))
    assert model.lin.weight is weight


def test_grad_through_functional_call_with_a_dict_of_arrays():
    model = Scaled()
    params = {k: v for k, v in arrays(model).items() if k != "scale"}
    x = RNG.standard_normal(3)
    g = func.grad(lambda p: func.functional_call(model, p, (tl.tensor(x),)).sum())(params)
    assert list(g) == ["lin.weight", "lin.bias"] and not isinstance(g["lin.weight"], tl.Tensor)
    np.testing.assert_allclose(g["lin.weight"], np.outer([1.0, 10.0], x))
    np.testing.assert_allclose(g["lin.bias"], [1.0, 10.0])
    assert model.lin.weight.grad is None  # the module's own parameters were not touched


def test_per_sample_gradients_of_a_module():
    model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 1))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = RNG.standard_normal((6, 4))
    loss = lambda p, xi: func.functional_call(model, p, (xi,)).sum()  # noqa: E731
    per_sample = func.vmap(func.grad(loss), in_dims=(None, 0))(params, tl.tensor(x))
    for i in range(6):
        one = func.grad(loss)(params, tl.tensor(x[i]))
        for k in params:
            np.testing.assert_allclose(per_sample[k].numpy()[i], one[k].numpy(), rtol=1e-12)


def test_agrees_with_torch_func_functional_call():
    torch = pytest.importorskip("torch", reason="torch.func.functional_call is the reference")
    ours = nn.Linear(3, 2)
    theirs = torch.nn.Linear(3, 2).double()
    params = {"weight": RNG.standard_normal((2, 3)), "bias": RNG.standard_normal(2)}
    x = RNG.standard_normal(3)
    got = func.grad(lambda p: (func.functional_call(ours, p, (tl.tensor(x),)) ** 2).sum())(params)
    want = torch.func.grad(lambda p: (torch.func.functional_call(theirs, p, (torch.tensor(x),)) ** 2).sum())(
        {k: torch.tensor(v) for k, v in params.items()})
    for k in params:
        np.testing.assert_allclose(got[k], want[k].numpy(), rtol=1e-12)


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False)
        self.b = nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


def test_tied_weights_are_replaced_together_unless_asked_not_to():
    model, x, W = Tied(), tl.tensor([1.0, 2.0]), np.array([[2.0, 0.0], [0.0, 3.0]])
    np.testing.assert_allclose(func.functional_call(model, {"a.weight": W}, (x,)).numpy(), W @ W @ [1.0, 2.0])
    old = model.a.weight.detach().numpy()
    untied = func.functional_call(model, {"a.weight": W}, (x,), tie_weights=False).numpy()
    np.testing.assert_allclose(untied, old @ W @ [1.0, 2.0])
    with pytest.raises(ValueError, match="tied names 'a.weight', 'b.weight' were given different values"):
        func.functional_call(model, {"a.weight": W, "b.weight": W.copy()}, (x,))


def test_unknown_and_missing_keys_are_named():
    model = Scaled()
    with pytest.raises(ValueError, match=r"no parameter or buffer 'lin.wieght' in Scaled"):
        func.functional_call(model, {"lin.wieght": np.ones((2, 3))}, (tl.tensor(np.ones(3)),))
    with pytest.raises(ValueError, match=r"strict=True .* missing 'scale', 'lin.bias'"):
        func.functional_call(model, {"lin.weight": np.ones((2, 3))}, (tl.tensor(np.ones(3)),), strict=True)
    with pytest.raises(ValueError, match="'scale' given in more than one dict"):
        func.functional_call(model, [{"scale": np.ones(2)}, {"scale": np.ones(2)}], (tl.tensor(np.ones(3)),))
    with pytest.raises(TypeError, match="the value for 'scale' is a str"):
        func.functional_call(model, {"scale": "big"}, (tl.tensor(np.ones(3)),))


class Affine(nn.Module):
    """x @ W.T + b written with Tensor ops (nn.Linear's fused op has no batching rule: vmap loops over it)."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(tl.tensor(RNG.standard_normal((2, 4))))
        self.bias = nn.Parameter(tl.tensor(np.zeros(2)))

    def forward(self, x):
        return (x @ self.weight.T + self.bias).tanh()


def test_per_sample_gradients_through_functional_call_batch_natively():
    model = Affine()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = RNG.standard_normal((5, 4))
    loss = lambda p, xi: (func.functional_call(model, p, (xi,)) ** 2).sum()  # noqa: E731
    with func.vmap_fallback(False):
        per_sample = func.vmap(func.grad(loss), in_dims=(None, 0))(params, tl.tensor(x))
    for i in range(5):
        one = func.grad(loss)(params, tl.tensor(x[i]))
        for k in params:
            np.testing.assert_allclose(per_sample[k].numpy()[i], one[k].numpy(), rtol=1e-12)
    assert isinstance(model.weight, nn.Parameter)
