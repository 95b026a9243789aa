"""Gradient checkpointing: the gradients of the plain run (and PyTorch's), the same dropout mask,
parameters reached through closures, only the inputs kept, and the refusals."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import torchlight as tl
from torchlight.utils.checkpoint import checkpoint, checkpoint_sequential


def mlp(width=4, dropout=0.0):
    tl.manual_seed(0)
    return tl.nn.Sequential(tl.nn.Linear(3, width), tl.nn.Tanh(), tl.nn.Dropout(dropout), tl.nn.Linear(width, 2))


def grads_of(model, x, forward, seed=1):
    """(loss, x.grad, every parameter's .grad) of (forward(x) ** 2).sum() from fresh gradients."""
    x.grad = None
    model.zero_grad()
    tl.manual_seed(seed)
    loss = (forward(x) ** 2).sum()
    loss.backward()
    return [loss.numpy(), x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]


def assert_all_equal(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_gradients_of_inputs_and_module_parameters_equal_the_plain_runs():
    model = mlp()
    x = tl.randn(5, 3, requires_grad=True)
    assert_all_equal(grads_of(model, x, lambda x: checkpoint(model, x, use_reentrant=False)),
                     grads_of(model, x, model))


def test_dropout_draws_the_same_mask_in_the_recomputation():
    model = mlp(width=64, dropout=0.5)
    x = tl.randn(8, 3, requires_grad=True)
    plain = grads_of(model, x, model)
    assert_all_equal(grads_of(model, x, lambda x: checkpoint(model, x)), plain)
    # without the random state put back, the recomputation draws another mask: other gradients
    other = grads_of(model, x, lambda x: checkpoint(model, x, preserve_rng_state=False))
    assert not np.array_equal(other[1], plain[1])


def test_the_recomputation_does_not_advance_the_random_stream():
    model = mlp(dropout=0.5)
    x = tl.randn(5, 3, requires_grad=True)
    tl.manual_seed(3)
    checkpoint(model, x).sum().backward()
    after_checkpointed = tl.rand(3).numpy()
    tl.manual_seed(3)
    model(x).sum().backward()
    np.testing.assert_array_equal(after_checkpointed, tl.rand(3).numpy())


def test_several_tensor_inputs_non_tensor_and_keyword_arguments():
    a = tl.randn(3, requires_grad=True)
    b = tl.randn(3, requires_grad=True)
    c = tl.randn(3)  # no gradient wanted
    scale = tl.randn(3, requires_grad=True)
    w = tl.randn(3, requires_grad=True)  # captured by the closure

    def f(a, b, c, power, *, scale):
        return ((a * b + c) ** power * scale * w).sum()

    def run(fn):
        for t in (a, b, scale, w):
            t.grad = None
        fn(a, b, c, 3, scale=scale).backward()
        return [t.grad.numpy() for t in (a, b, scale, w)]

    assert_all_equal(run(lambda *args, **kw: checkpoint(f, *args, **kw)), run(f))
    assert c.grad is None


def test_autograd_grad_through_a_checkpoint_leaves_dot_grad_alone():
    model = mlp()
    x = tl.randn(5, 3, requires_grad=True)
    params = list(model.parameters())
    expected = tl.autograd.grad((model(x) ** 2).sum(), [x, *params])
    got = tl.autograd.grad((checkpoint(model, x) ** 2).sum(), [x, *params])
    assert_all_equal([g.numpy() for g in got], [e.numpy() for e in expected])
    assert x.grad is None and all(p.grad is None for p in params)


def test_second_derivatives_through_a_checkpoint_with_create_graph():
    w = tl.tensor([0.5, -1.0, 2.0], requires_grad=True)

    def f(z):
        return ((z * w).tanh() ** 3).sum()

    z = tl.randn(3, requires_grad=True)
    results = []
    for fn in (f, lambda z: checkpoint(f, z)):
        (g,) = tl.autograd.grad(fn(z), [z], create_graph=True)
        results.append(tl.autograd.grad(g.sum(), [z, w]))
    for got, expected in zip(*results[::-1]):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)


def test_a_parameter_used_by_two_checkpointed_calls_accumulates_both_once():
    layer = tl.nn.Linear(3, 3)
    x = tl.randn(2, 3, requires_grad=True)
    (layer(layer(x)) ** 2).sum().backward()
    expected = layer.weight.grad.numpy().copy()
    layer.weight.grad = None
    (checkpoint(layer, checkpoint(layer, x)) ** 2).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), expected, rtol=1e-13)


def test_only_the_inputs_are_kept_the_inside_is_freed_after_the_forward():
    inside = []

    def f(x):
        h = x.exp()  # (exp keeps its result for backward: a plain run would hold it)
        inside.append(weakref.ref(h))
        return h.sin()

    x = tl.randn(4, requires_grad=True)
    y = checkpoint(f, x)
    gc.collect()
    assert inside[0]() is None
    assert y.history.last_fn.__name__ == "Checkpoint" and y.history.parents == (x,)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(np.exp(x.numpy())) * np.exp(x.numpy()))


def test_the_graph_node_is_freed_by_backward_and_a_second_backward_raises():
    x = tl.randn(3, requires_grad=True)
    y = checkpoint(lambda x: x.exp(), x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward_that_recomputes_again():
    x = tl.randn(3, requires_grad=True)
    y = checkpoint(lambda x: x.exp(), x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x.numpy()))


def test_a_function_returning_a_non_tensor_is_a_type_error():
    x = tl.randn(3, requires_grad=True)
    with pytest.raises(TypeError, match="checkpoint: the checkpointed function returned a float; it must return a "
                                        "Tensor or a tuple of Tensors"):
        checkpoint(lambda x: 1.0, x)
    with pytest.raises(TypeError, match="returned a list within the tuple it returned"):
        checkpoint(lambda x: (x, [x]), x)
    with pytest.raises(TypeError, match="returned a dict"):
        checkpoint(lambda x: {"y": x}, x)


def test_a_non_leaf_computed_outside_and_captured_is_refused_with_advice():
    w = tl.randn(3, requires_grad=True)
    v = w * 2.0  # computed outside, requires grad, not passed in
    x = tl.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"computed outside it that requires grad .*made by Mul.*pass it as an "
                                           r"argument"):
        checkpoint(lambda x: x * v, x)
    y = checkpoint(lambda x, v: x * v, x, v)  # passed in: fine
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * x.numpy())


def test_a_parameter_replaced_between_forward_and_backward_is_refused():
    layer = tl.nn.Linear(2, 2)
    y = checkpoint(layer, tl.randn(1, 2, requires_grad=True)).sum()
    with tl.no_grad():
        layer.weight -= 1.0
    with pytest.raises(RuntimeError, match="replaced since its forward ran"):
        y.backward()


def test_outside_grad_mode_it_is_the_plain_call():
    model = mlp()
    x = tl.randn(2, 3, requires_grad=True)
    with tl.no_grad():
        y = checkpoint(model, x)
    assert not y.requires_grad
    np.testing.assert_array_equal(y.numpy(), model(x).detach().numpy())


def test_pytorchs_reentrant_refusal_of_keywords_and_the_unsupported_options():
    x = tl.randn(2, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda x, scale: x * scale, x, use_reentrant=True, scale=2.0)
    with pytest.raises(NotImplementedError, match="context_fn"):
        checkpoint(lambda x: x, x, context_fn=lambda: None)
    with pytest.raises(TypeError, match="the function must be callable"):
        checkpoint(3, x)


def test_checkpoint_sequential_gradients_equal_the_plain_run_and_the_last_segment_runs_plainly():
    tl.manual_seed(0)
    model = tl.nn.Sequential(*[tl.nn.Linear(3, 3) if i % 2 == 0 else tl.nn.Tanh() for i in range(7)])
    x = tl.randn(4, 3, requires_grad=True)
    plain = grads_of(model, x, model)
    y = checkpoint_sequential(model, 3, x, use_reentrant=False)
    assert y.history.last_fn.__name__ == "Linear"  # 7 // 3 = 2 layers a segment; the last 3 run plainly
    assert_all_equal(grads_of(model, x, lambda x: checkpoint_sequential(model, 3, x, use_reentrant=False)), plain)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential(model, 2, x, foo=1)


def test_gradients_equal_pytorchs_checkpoint():
    torch = pytest.importorskip("torch", reason="PyTorch's checkpoint is the reference for the gradients")
    from torch.utils.checkpoint import checkpoint as torch_checkpoint

    model = mlp()
    x = tl.randn(5, 3, requires_grad=True)
    got = grads_of(model, x, lambda x: checkpoint(model, x, use_reentrant=False))
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    with torch.no_grad():
        for mine, theirs in zip(model.parameters(), twin.parameters()):
            theirs.copy_(torch.from_numpy(mine.numpy()))
    xt = torch.from_numpy(x.numpy()).requires_grad_()
    loss = (torch_checkpoint(twin, xt, use_reentrant=False) ** 2).sum()
    loss.backward()
    expected = [loss.detach().numpy(), xt.grad.numpy()] + [p.grad.numpy() for p in twin.parameters()]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)


def test_after_backward_the_graph_no_longer_holds_the_saved_inputs():
    x = tl.randn(4, requires_grad=True)
    h = x.exp()  # a checkpoint's input computed before it: saved until backward, then let go
    kept = weakref.ref(h)
    loss = checkpoint(lambda h, power: h ** power, h, 2).sum()
    del h
    gc.collect()
    assert kept() is not None
    loss.backward()
    gc.collect()
    assert kept() is None  # (while `loss` and its graph are still alive)


def test_a_function_with_several_results_gets_each_ones_gradient_none_for_an_unused_one():
    tl.manual_seed(0)
    w = tl.randn(3, requires_grad=True)
    x = tl.randn(3, requires_grad=True)

    def f(x):
        return (x * w).exp(), x.sin() * w, (x * 2.0).detach()

    def run(fn):
        x.grad = w.grad = None
        a, b, c = fn(x)
        assert not c.requires_grad
        (a.sum() + (b ** 2).sum()).backward()
        return [x.grad.numpy(), w.grad.numpy()]

    assert_all_equal(run(lambda x: checkpoint(f, x)), run(f))
    a, b, _ = checkpoint(f, x)
    (grad_x,) = tl.autograd.grad(a.sum(), [x])  # (b got no gradient: no recomputed backward for it)
    np.testing.assert_allclose(grad_x.numpy(), (w * (x * w).exp()).detach().numpy())


def test_a_compiled_function_that_checkpoints_is_refused_with_the_reason():
    layer = tl.nn.Linear(3, 3)
    compiled = tl.compile(lambda x: checkpoint(layer, x).sum())
    with pytest.raises(tl.CompileError, match="checkpointed a function .*: a replay would not do it again"):
        compiled(tl.randn(2, 3, requires_grad=True))
