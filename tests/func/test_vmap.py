"""`func.vmap`: native batching of each rule against a loop over samples, nesting, per-sample gradients
against `torch.func`, the fallback, and bad input.

`vmap_fallback(False)` makes a missing batching rule raise, so the tests
under it prove that the function batched natively (no loop).
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func

RNG = np.random.default_rng(0)


def native(f, in_dims=0, out_dims=0):
    """vmap(f) that must batch natively."""
    mapped = func.vmap(f, in_dims, out_dims)

    def run(*args):
        with func.vmap_fallback(False):
            return mapped(*args)

    return run


def loop(f, *args, in_dims=0):
    """f over the samples one at a time, stacked on axis 0 (the reference)."""
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
    n = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    outs = [f(*(a if d is None else tl.tensor(np.take(a, i, axis=d)) for a, d in zip(args, dims)))
            for i in range(n)]
    return np.stack([o.numpy() for o in outs])


CASES = [  # (name, f, argument shapes, in_dims)
    ("unary", lambda x: x.tanh().exp(), [(5, 3)], 0),
    ("binary, broadcast against an unbatched row", lambda x, r: x * r - r / 2, [(5, 3, 4), (4,)], (0, None)),
    ("binary, the batched side of lower rank", lambda x, m: x + m, [(5, 4), (3, 4)], (0, None)),
    ("binary, both batched", lambda x, y: x.maximum(y) ** 2, [(5, 3), (5, 3)], 0),
    ("number on the left", lambda x: 2.0 - x, [(5, 3)], 0),
    ("in_dim 1", lambda x: x.sin(), [(3, 5)], 1),
    ("matrix @ vector", lambda A, v: A @ v, [(5, 3, 4), (5, 4)], 0),
    ("vector @ shared matrix", lambda v, W: v @ W, [(5, 4), (4, 3)], (0, None)),
    ("shared matrix @ batched vector", lambda W, v: W @ v, [(3, 4), (5, 4)], (None, 0)),
    ("batched matrices @ shared stack", lambda A, S: A @ S, [(5, 3, 4), (2, 4, 6)], (0, None)),
    ("vector @ vector", lambda a, b: a @ b, [(5, 4), (5, 4)], 0),
    ("sum over all logical dims", lambda x: x.sum(), [(5, 3, 4)], 0),
    ("mean over a dim, kept", lambda x: x.mean(dim=-1, keepdim=True), [(5, 3, 4)], 0),
    ("max over dims (0, 1)", lambda x: x.max(dim=(0, 1)), [(5, 3, 4, 2)], 0),
    ("logsumexp", lambda x: x.logsumexp(1), [(5, 3, 4)], 0),
    ("var, argmax, softmax", lambda x: x.var(dim=0) + x.argmax(dim=0) + x.softmax(-1).sum(0), [(5, 3, 4)], 0),
    ("basic indexing", lambda x: x[1:, None, ..., 0], [(5, 3, 4)], 0),
    ("an integer array index", lambda x: x[:, np.array([2, 0, 2])], [(5, 3, 4)], 0),
    ("shape ops", lambda x: x.reshape(2, 6).T.unsqueeze(0).expand(3, 6, 2).permute(2, 0, 1).flatten(1),
     [(5, 3, 4)], 0),
    ("transpose, movedim, squeeze", lambda x: x.transpose(0, 1).movedim(0, -1).unsqueeze(1).squeeze(),
     [(5, 3, 4)], 0),
    ("where", lambda x: x.where(x > 0, 0.5 * x), [(5, 3)], 0),
    ("tl.where and comparisons", lambda x, y: tl.where((x > y) | (x < -1), x, y), [(5, 3), (3,)], (0, None)),
    ("reductions of a 0-d sample", lambda x: x.sum() + x.max() + x.mean(dim=None, keepdim=True), [(5,)], 0),
    ("prod, min, std over tuples", lambda x: x.prod((0, 2)) + x.min(dim=(-1, 0)) + x.std(dim=(0, 1)), [(5, 2, 3, 3)],
     0),
    ("any, all, argmin over everything", lambda x: (x > 0).any(1) + (x > -3).all() + x.argmin(), [(5, 3, 4)], 0),
    ("norm, cumsum, log_softmax", lambda x: x.norm(dim=1, keepdim=True) + x.cumsum(0) + x.log_softmax(0),
     [(5, 3, 4)], 0),
    ("split, chunk, unbind, flip", lambda x: x.split(2, 1)[0] + x.chunk(2, 1)[1] + x.unbind(1)[1][:, None]
     + x.flip(0, 1)[:, :2],
     [(5, 3, 4)], 0),
    ("a sample's element and negative dims", lambda x: x[-1, ..., None].squeeze(-1) * x.sum(-2)[0], [(5, 3, 4)], 0),
    ("an unbatched boolean mask", lambda x: x[np.array([True, False, True])], [(5, 3, 4)], 0),
    ("a Tensor index and a list index", lambda x: x[tl.tensor(np.array([1, 1]))] + x[[0, 2]], [(5, 3)], 0),
    ("mT and matrix stacks", lambda x, y: x.mT @ y, [(5, 2, 3, 4), (5, 2, 3, 2)], 0),
    ("pow and reflected ops", lambda x: 2.0 ** x + 1.0 / (1.0 + x * x) - abs(x) % 0.5, [(5, 3)], 0),
    ("array API functions", lambda x: tl.array_api.sum(tl.array_api.exp(x), axis=-1), [(5, 3, 4)], 0),
]


@pytest.mark.parametrize("name,f,shapes,in_dims", CASES, ids=[c[0] for c in CASES])
def test_each_rule_batches_natively_and_agrees_with_a_loop(name, f, shapes, in_dims):
    args = [RNG.standard_normal(s) for s in shapes]
    got = native(f, in_dims)(*args)
    assert not isinstance(got, tl.Tensor)  # arrays in, arrays out
    np.testing.assert_allclose(got, loop(f, *args, in_dims=in_dims), rtol=1e-12, atol=1e-12)


def test_a_batched_index_per_sample():
    x, idx = RNG.standard_normal((5, 4)), np.array([3, 0, 1, 1, 2])
    np.testing.assert_array_equal(native(lambda row, i: row[i])(x, idx), x[np.arange(5), idx])
    many = RNG.integers(0, 4, (5, 2, 3))
    np.testing.assert_array_equal(native(lambda row, i: row[i])(x, many), np.stack([x[b][many[b]] for b in range(5)]))
    table, rows = RNG.standard_normal((5, 4, 3)), np.array([[0, 1], [2, 2], [3, 0], [1, 1], [0, 0]])
    got = native(lambda t, r: t[r, 1:])(table, rows)
    np.testing.assert_array_equal(got, np.stack([table[b][rows[b], 1:] for b in range(5)]))


def test_a_batched_mask_runs_as_the_loop():
    x = RNG.standard_normal((4, 3))
    got = func.vmap(lambda row: row[row > 0].sum())(x)
    np.testing.assert_allclose(got, np.where(x > 0, x, 0).sum(1))
    with pytest.raises(RuntimeError, match="batched boolean mask"):
        native(lambda row: row[row > 0].sum())(x)


def test_an_op_without_a_rule_falls_back_to_the_loop_and_is_right():
    x = RNG.standard_normal((4, 3))
    f = lambda row: tl.tensor(float(row.sum().item())) * row  # noqa: E731  (.item(): data-dependent)
    np.testing.assert_allclose(func.vmap(f)(x), x.sum(1, keepdims=True) * x)
    with pytest.raises(RuntimeError, match=r"vmap: no batching rule for Tensor\.item"):
        native(f)(x)


def test_out_dims_and_pytree_outputs():
    x = RNG.standard_normal((5, 3))
    out = native(lambda v: {"s": v.sum(), "pair": (v * 2, v[0])}, out_dims={"s": 0, "pair": (1, 0)})(x)
    np.testing.assert_allclose(out["s"], x.sum(1))
    np.testing.assert_allclose(out["pair"][0], (2 * x).T)
    np.testing.assert_allclose(out["pair"][1], x[:, 0])


def test_an_unbatched_output_is_expanded_or_kept_with_out_dims_none():
    x, c = RNG.standard_normal((5, 3)), tl.tensor([1.0, 2.0])
    both = native(lambda v: (v.sum(), c * 1.0), out_dims=(0, None))(x)
    assert both[1].shape == (2,)
    expanded = native(lambda v: (v.sum(), c * 1.0))(x)
    assert expanded[1].shape == (5, 2)


def test_in_dims_as_a_pytree_prefix():
    x = {"a": RNG.standard_normal((3, 5)), "b": RNG.standard_normal(2)}
    f = lambda d: d["a"].sum() * d["b"]  # noqa: E731
    got = native(f, in_dims=({"a": 1, "b": None},))(x)
    np.testing.assert_allclose(got, x["a"].sum(0)[:, None] * x["b"])


def test_nested_vmap_batches_natively():
    a, b = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((4, 5))
    f = lambda u, v: (u * v).sum() + u.max()  # noqa: E731
    got = native(native(f, in_dims=(0, 0)), in_dims=(0, None))(a, b)
    np.testing.assert_allclose(got, (a * b).sum(-1) + a.max(-1))
    inner_matmul = native(native(lambda u, W: u @ W, in_dims=(0, None)), in_dims=(0, None))
    W = RNG.standard_normal((5, 2))
    np.testing.assert_allclose(inner_matmul(a, W), a @ W)


def test_chunk_size_gives_the_same_result():
    x = RNG.standard_normal((7, 3))
    np.testing.assert_allclose(func.vmap(lambda v: v.exp().sum(), chunk_size=3)(x), np.exp(x).sum(1))


def mlp_loss(params, x, y):
    h = x
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = h.tanh()
    return -((h - h.logsumexp(-1, keepdim=True)) * y).sum()


def mlp_data(batch=6):
    params = [(RNG.standard_normal((5, 7)), RNG.standard_normal(7)),
              (RNG.standard_normal((7, 3)), RNG.standard_normal(3))]
    return params, RNG.standard_normal((batch, 5)), np.eye(3)[RNG.integers(0, 3, batch)]


def test_per_sample_gradients_natively_agree_with_a_loop_of_grad():
    params, x, y = mlp_data()
    got = native(func.grad(mlp_loss), in_dims=(None, 0, 0))(params, x, y)
    assert isinstance(got, list) and all(isinstance(p, tuple) for p in got)
    for i in range(len(x)):
        one = func.grad(mlp_loss)(params, x[i], y[i])
        for (gW, gb), (W, b) in zip(got, one):
            np.testing.assert_allclose(gW[i], W, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(gb[i], b, rtol=1e-12, atol=1e-12)


def test_per_sample_gradients_agree_with_torch_func():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for per-sample gradients")
    params, x, y = mlp_data()
    named = {"W0": params[0][0], "b0": params[0][1], "W1": params[1][0], "b1": params[1][1]}

    def loss(p, x, y):
        return mlp_loss([(p["W0"], p["b0"]), (p["W1"], p["b1"])], x, y)

    got = native(func.grad(loss), in_dims=(None, 0, 0))(named, x, y)
    assert list(got) == ["W0", "b0", "W1", "b1"]
    expect = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(
        {k: torch.tensor(v) for k, v in named.items()}, torch.tensor(x), torch.tensor(y))
    for k in named:
        np.testing.assert_allclose(got[k], expect[k].numpy(), rtol=1e-12, atol=1e-12)
    lists = native(func.grad(mlp_loss), in_dims=(None, 0, 0))(params, x, y)
    expect_lists = torch.func.vmap(torch.func.grad(mlp_loss), in_dims=(None, 0, 0))(
        [(torch.tensor(W), torch.tensor(b)) for W, b in params], torch.tensor(x), torch.tensor(y))
    for (a, b), (c, d) in zip(lists, expect_lists):
        np.testing.assert_allclose(a, c.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(b, d.numpy(), rtol=1e-12, atol=1e-12)


def test_vmap_agrees_with_torch_func_on_nesting_and_dims():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for vmap")
    a, b = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((5, 4))
    f = lambda u, v: (u @ v).sum(0)  # noqa: E731
    got = native(native(f, in_dims=(0, None)), in_dims=(1, None), out_dims=1)(a, b)
    expect = torch.func.vmap(torch.func.vmap(f, in_dims=(0, None)), in_dims=(1, None), out_dims=1)(
        torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(got, expect.numpy(), rtol=1e-12)


def test_vmap_of_a_jacobian_falls_back_and_is_right():
    x = RNG.standard_normal((4, 3))
    got = func.vmap(func.jacobian(lambda v: v.sin() * v[0]))(x)
    for i in range(4):
        np.testing.assert_allclose(got[i], func.jacobian(lambda v: v.sin() * v[0])(x[i]))


def test_gradient_through_vmap():
    x = tl.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    out = native(lambda v: (v * v).sum())(x)
    assert isinstance(out, tl.Tensor)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


# ------------------------------------------------------------------ bad input
def test_mismatched_batch_sizes_name_the_arguments_and_sizes():
    with pytest.raises(ValueError, match=r"args\[0\] \(size 3\), args\[1\]\['x'\] \(size 4\)"):
        func.vmap(lambda a, d: a)(np.zeros(3), {"x": np.zeros(4)})


def test_an_in_dim_out_of_range_is_a_value_error():
    with pytest.raises(ValueError, match=r"in_dim=2 for args\[0\] of shape \(3, 2\) is out of range"):
        func.vmap(lambda a: a, in_dims=2)(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="in_dims has 1 entries but the function got 2"):
        func.vmap(lambda a, b: a, in_dims=(0,))(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="no argument is batched"):
        func.vmap(lambda a: a, in_dims=None)(np.zeros(3))
    with pytest.raises(ValueError, match="only Tensors and arrays can be batched"):
        func.vmap(lambda a, n: a)(np.zeros(3), 2)


def test_a_function_returning_a_non_tensor_is_a_type_error():
    with pytest.raises(TypeError, match=r"vmap: the function must return Tensors .*output\[1\] is a str"):
        func.vmap(lambda a: (a, "no"))(np.zeros(3))
    with pytest.raises(TypeError, match="output is a float"):
        func.vmap(lambda a: 1.0)(np.zeros(3))


def test_randomness_error_different_and_same():
    x = np.zeros((4, 3))
    noisy = lambda v: v + tl.randn(3)  # noqa: E731
    with pytest.raises(RuntimeError, match="drew random numbers, with randomness='error'"):
        func.vmap(noisy)(x)
    different = func.vmap(noisy, randomness="different")(x)
    assert len({tuple(row) for row in different.round(12)}) == 4
    same = func.vmap(noisy, randomness="same")(x)
    assert len({tuple(row) for row in same.round(12)}) == 1
    looped_same = func.vmap(lambda v: v + tl.randn(3) * float(v.sum().item()) + tl.randn(3), randomness="same")(x)
    assert len({tuple(row) for row in looped_same.round(12)}) == 1  # (.item(): the loop, streams put back)
    tl.manual_seed(1)
    a = func.vmap(noisy, randomness="different")(x)
    tl.manual_seed(1)
    b = np.stack([row + tl.randn(3).numpy() for row in x])
    np.testing.assert_array_equal(a, b)  # a draw per sample, as a plain loop draws them
    with pytest.raises(ValueError, match="randomness must be"):
        func.vmap(noisy, randomness="sometimes")


W3 = RNG.standard_normal((3, 3))


def tanh_energy(v):
    return ((tl.tensor(W3) @ v).tanh() ** 2).sum()


def test_transforms_compose_with_vmap_natively():
    x, xx, w0 = RNG.standard_normal((4, 3)), RNG.standard_normal((2, 4, 3)), RNG.standard_normal(3)
    second = lambda v: func.grad(lambda u: func.grad(tanh_energy)(u).sum())(v)  # noqa: E731
    np.testing.assert_allclose(native(second)(x), np.stack([second(v) for v in x]), rtol=1e-12)
    np.testing.assert_allclose(native(native(func.grad(tanh_energy)))(xx),
                               np.stack([[func.grad(tanh_energy)(v) for v in row] for row in xx]), rtol=1e-12)
    closure = native(lambda v: func.grad(lambda w: (w * v).sum() ** 2)(tl.tensor(w0)))(x)
    np.testing.assert_allclose(closure, np.stack([2 * (w0 * v).sum() * v for v in x]), rtol=1e-12)
    (value, aux), g = native(func.value_and_grad(lambda v: (tanh_energy(v), v * 2), has_aux=True))(x)
    assert value.shape == (4,) and aux.shape == (4, 3)
    np.testing.assert_allclose(g, np.stack([func.grad(tanh_energy)(v) for v in x]), rtol=1e-12)


def test_derivatives_of_a_vmapped_function():
    x, w0 = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    g = func.grad(lambda w: native(lambda v: (w * v).sum() ** 2)(tl.tensor(x)).sum())(w0)
    np.testing.assert_allclose(g, sum(2 * (w0 * v).sum() * v for v in x), rtol=1e-12)
    np.testing.assert_allclose(func.jacobian(lambda w: native(lambda v: (w * v).sum())(tl.tensor(x)))(w0), x)


def test_grad_of_per_sample_gradients():
    xs, w0 = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    loss = lambda w, x: (w * x).sum().tanh() ** 2  # noqa: E731
    batched = lambda w: (native(func.grad(loss), in_dims=(None, 0))(w, tl.tensor(xs)) ** 2).sum()  # noqa: E731
    looped = lambda w: sum((func.grad(loss)(w, tl.tensor(x)) ** 2).sum() for x in xs)  # noqa: E731
    np.testing.assert_allclose(func.grad(batched)(w0), func.grad(looped)(w0), rtol=1e-10, atol=1e-12)


def test_per_sample_gradients_on_each_backend(backend):
    params, x, y = mlp_data(4)
    on = lambda a: backend.asarray(a)  # noqa: E731
    got = native(func.grad(mlp_loss), in_dims=(None, 0, 0))([(on(W), on(b)) for W, b in params], on(x), on(y))
    expect = native(func.grad(mlp_loss), in_dims=(None, 0, 0))(params, x, y)
    for (a, b), (c, d) in zip(got, expect):
        assert tl.backends.of(a) is backend
        np.testing.assert_allclose(backend.to_numpy(a), c, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(backend.to_numpy(b), d, rtol=1e-12, atol=1e-12)
    idx = on(np.array([2, 0, 1, 1]))
    picked = native(lambda row, i: row[i] + row[1:].sum())(on(x), idx)
    np.testing.assert_allclose(backend.to_numpy(picked), x[np.arange(4), [2, 0, 1, 1]] + x[:, 1:].sum(1))


def test_bad_in_dims_and_out_dims():
    with pytest.raises(ValueError, match=r"in_dims\[0\] is 'x'; each entry must be an int or None"):
        func.vmap(lambda a: a, in_dims=("x",))
    with pytest.raises(ValueError, match=r"in_dims \{'a': 0\} does not match the structure of the value at \[0\]"):
        func.vmap(lambda d: d["b"], in_dims=({"a": 0},))({"b": np.zeros(3)})
    with pytest.raises(ValueError, match=r"out_dim=2 for output of 1 dimension\(s\) is out of range"):
        func.vmap(lambda a: a, out_dims=2)(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="out_dims is None for output, but it depends on the batch"):
        func.vmap(lambda a: a * 2, out_dims=None)(np.zeros(3))
    with pytest.raises(ValueError, match="chunk_size must be None or a positive int"):
        func.vmap(lambda a: a, chunk_size=0)


def test_per_sample_gradients_of_an_nn_model_batch_natively_and_agree_with_torch_func():
    torch = pytest.importorskip("torch", reason="torch is not installed: torch.func is the oracle here")
    model = tl.nn.Sequential(tl.nn.Linear(4, 6), tl.nn.Tanh(), tl.nn.Linear(6, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((5, 4)), rng.standard_normal((5, 3))

    def loss(p, xi, yi):
        return ((func.functional_call(model, p, (xi,)) - yi) ** 2).sum()

    with func.vmap_fallback(False):  # F.linear batches by its parts: no loop
        ours = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    tmodel = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3)).double()
    tparams = {k: torch.tensor(v.numpy()) for k, v in params.items()}

    def tloss(p, xi, yi):
        return ((torch.func.functional_call(tmodel, p, (xi,)) - yi) ** 2).sum()

    theirs = torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))(tparams, torch.tensor(x), torch.tensor(y))
    for k in params:
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-10, atol=1e-12)
