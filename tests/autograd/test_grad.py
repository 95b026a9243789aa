"""`torchlight.autograd.grad`: PyTorch's semantics, on every backend.

Gradients are returned (never accumulated into `.grad`), unused inputs
raise unless allowed, seeds and create_graph/retain_graph behave as in
PyTorch, and no two results share an array. That a retained non-leaf's `.grad` stays
untouched was found by a differential hunt against torch.autograd.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import grad


def host(t):
    return np.asarray(t.numpy(), dtype=np.float64)


def leaf(backend, values, requires_grad=True):
    return tl.tensor(backend.asarray(np.asarray(values, dtype=np.float64)), requires_grad=requires_grad)


def test_returns_the_gradient_and_leaves_dot_grad_alone(backend):
    x = leaf(backend, [1.0, -2.0, 0.5])
    (g,) = grad((x ** 3).sum(), x)
    np.testing.assert_allclose(host(g), 3 * np.array([1.0, -2.0, 0.5]) ** 2)
    assert x.grad is None
    assert g.backend is backend and g.dtype == x.dtype and g.history is None and not g.requires_grad


def test_unused_input_raises_unless_allowed(backend):
    x, y = leaf(backend, [1.0, 2.0]), leaf(backend, [3.0])
    with pytest.raises(RuntimeError, match=r"input 1 .* does not influence.*allow_unused=True"):
        grad((x * x).sum(), [x, y])
    gx, gy = grad((x * x).sum(), [x, y], allow_unused=True)
    assert gy is None
    np.testing.assert_allclose(host(gx), [2.0, 4.0])
    _, gy = grad((x * x).sum(), [x, y], materialize_grads=True)
    assert host(gy).tolist() == [0.0] and gy.backend is backend


def test_outputs_and_inputs_must_require_grad(backend):
    x, c = leaf(backend, [1.0]), leaf(backend, [1.0], requires_grad=False)
    with pytest.raises(RuntimeError, match="output 0 does not require grad"):
        grad(c * 2.0, [x])
    with pytest.raises(RuntimeError, match="input 1 does not require grad"):
        grad((x * c).sum(), [x, c])


def test_bad_arguments_are_named(backend):
    x = leaf(backend, [1.0, 2.0])
    y = (x * x).sum()
    with pytest.raises(TypeError, match="inputs must be a Tensor"):
        grad(y, backend.asarray([1.0]))
    with pytest.raises(ValueError, match="inputs is empty"):
        grad(y, [])
    with pytest.raises(ValueError, match="2 grad_outputs for 1 outputs"):
        grad(y, x, [1.0, 1.0], retain_graph=True)
    with pytest.raises(ValueError, match="shape"):
        grad(x * 2.0, x, backend.asarray(np.ones(3)))
    (g,) = grad(y, x)  # nothing was consumed by the failed calls
    np.testing.assert_allclose(host(g), [2.0, 4.0])


def test_grad_outputs_seed_each_output_and_outputs_add_up(backend):
    x = leaf(backend, [1.0, 2.0])
    v = backend.asarray(np.array([10.0, -1.0]))
    (g,) = grad([x * x, x.sum()], x, [v, None])
    np.testing.assert_allclose(host(g), 2 * np.array([1.0, 2.0]) * [10.0, -1.0] + 1.0)
    (ones,) = grad(x * 3.0, x)  # a non-scalar root is seeded with ones, as backward() is
    np.testing.assert_allclose(host(ones), [3.0, 3.0])


def test_gradient_with_respect_to_an_intermediate(backend):
    x = leaf(backend, [0.5, -1.0])
    h = x.tanh()
    y = (h * h).sum()
    gh, gx = grad(y, [h, x])
    t = np.tanh([0.5, -1.0])
    np.testing.assert_allclose(host(gh), 2 * t)
    np.testing.assert_allclose(host(gx), 2 * t * (1 - t ** 2))


def test_create_graph_gives_second_derivatives_and_retains(backend):
    x = leaf(backend, [2.0, -1.0])
    y = (x ** 4).sum()
    (g,) = grad(y, x, create_graph=True)
    assert g.requires_grad
    (h,) = grad(g.sum(), x)
    np.testing.assert_allclose(host(h), 12 * np.array([2.0, -1.0]) ** 2)
    (again,) = grad(y, x)  # create_graph retained the first graph
    np.testing.assert_allclose(host(again), 4 * np.array([2.0, -1.0]) ** 3)


def test_graph_is_freed_unless_retained(backend):
    x = leaf(backend, [1.0, 2.0])
    y = (x.exp() * x).sum()
    grad(y, x, retain_graph=True)
    grad(y, x)
    with pytest.raises(RuntimeError, match="second time"):
        grad(y, x)


def test_results_share_no_array(backend):
    x, y = leaf(backend, [1.0, 2.0]), leaf(backend, [3.0, 4.0])
    gx, gy = grad((x + y).sum(), [x, y])
    assert gx is not gy and gx.data is not gy.data
    v = backend.asarray(np.array([5.0, 6.0]))
    (gv,) = grad(x, x, v)  # the seed reaches the input unchanged: it is copied
    assert gv.data is not v
    np.testing.assert_allclose(host(gv), [5.0, 6.0])
    if backend.name == "numpy":
        gx.data[0] = 100.0  # writable, and writing it changes nothing else
        assert host(gy).tolist() == [1.0, 1.0]


def test_grad_mode_is_restored_and_create_graph_works_under_no_grad(backend):
    x = leaf(backend, [3.0])
    y = (x ** 3).sum()
    with tl.no_grad():
        (g,) = grad(y, x, create_graph=True)
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled()
    (h,) = grad(g.sum(), x)
    np.testing.assert_allclose(host(h), [18.0])


def test_only_the_part_of_the_graph_leading_to_the_inputs_is_walked(backend):
    w = leaf(backend, [0.5, -1.0])
    z = w.exp()
    x = leaf(backend, [2.0, 3.0])
    (gx,) = grad((z * x).sum(), x)  # needs nothing below z: exp(w) is neither run nor freed
    np.testing.assert_allclose(host(gx), np.exp([0.5, -1.0]))
    z.sum().backward(retain_graph=True)
    np.testing.assert_allclose(host(w.grad), np.exp([0.5, -1.0]))
    a, b = x.tanh().sum(), (z * z).sum()
    grad([a, b], x, retain_graph=False)  # walks and frees a's graph only
    (gz,) = grad(b, z)
    np.testing.assert_allclose(host(gz), 2 * np.exp([0.5, -1.0]))


def test_grad_skips_a_part_of_the_graph_freed_by_an_earlier_backward():
    """Only nodes leading to the inputs run, so a freed branch elsewhere is no obstacle (as PyTorch)."""
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    x = tl.tensor([0.5, 1.0], requires_grad=True)
    h = a * a
    h.sum().backward()  # frees h's Mul
    out = (h + x.exp()).sum()
    (gx,) = tl.autograd.grad(out, [x], retain_graph=True)
    np.testing.assert_allclose(gx.numpy(), np.exp([0.5, 1.0]))
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()


def test_autograd_grad_leaves_a_retained_non_leaf_grad_alone():
    # PyTorch 2.13 fills y.grad here; torchlight's autograd.grad accumulates into no .grad (docs/decisions.md)
    x = tl.tensor([0.5, -1.2], requires_grad=True)
    y = (x * 2.0).retain_grad()
    (gx,) = tl.autograd.grad((y ** 2).sum(), x)
    np.testing.assert_allclose(gx.numpy(), 8 * x.numpy())
    assert y.grad is None and x.grad is None
