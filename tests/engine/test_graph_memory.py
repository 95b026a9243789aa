"""Data-free graph edges: the graph holds no activation that no backward formula saved.

A consumer records a non-leaf parent as its `graph_node`, its History (which
keeps no array), so an intermediate lives only as long as the user or a
saved tensor holds it. NumPy only: this is the engine's behaviour.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import Function, History


@pytest.fixture
def no_gc():
    """Reference counting alone must free what is asserted freed (no cycles)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_an_intermediate_no_backward_reads_is_freed_while_the_graph_lives(no_gc):
    xs = np.array([0.3, -1.2, 2.0])
    x = tl.tensor(xs, requires_grad=True)
    h = x * 2.0  # tanh's backward needs tanh's output, not h
    y = h.tanh()
    ref = weakref.ref(h)
    del h
    assert ref() is None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * (1.0 - np.tanh(2.0 * xs) ** 2), rtol=1e-12)


def test_a_saved_intermediate_lives_until_its_backward_ran(no_gc):
    xs = np.array([0.5, 1.5])
    x = tl.tensor(xs, requires_grad=True)
    h = x.exp()
    y = (h * h).sum()  # Mul saves h
    ref = weakref.ref(h)
    del h
    assert ref() is not None
    y.backward()
    assert ref() is None, "the backward released Mul's saved tensors"
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.exp(2.0 * xs), rtol=1e-12)


def test_a_non_leaf_parent_is_recorded_as_one_shared_graph_node():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    b = x * 3.0
    c, d = b + x, b * b
    node = c.history.edges[0]
    assert isinstance(node, History) and node is b.history and not hasattr(node, "data")
    assert d.history.edges[0] is node and d.history.edges[1] is node
    assert c.history.edges[1] is x and node is b.graph_node and x.graph_node is x
    assert node.shape == (2,) and node.dtype == b.dtype
    (c + d).sum().backward()  # one node: b's backward runs once, with the summed gradient
    np.testing.assert_allclose(x.grad.numpy(), 1.0 + 3.0 + 18.0 * np.array([1.0, 2.0]), rtol=1e-12)


@pytest.mark.parametrize("when", ["before", "after"])
def test_retain_grad_reaches_the_users_tensor_through_its_graph_node(when):
    x = tl.tensor([1.0, -2.0], requires_grad=True)
    b = x * 3.0
    if when == "before":
        b.retain_grad()
    c = (b * b).sum()
    if when == "after":
        b.retain_grad()
    c.retain_grad()
    c.backward()
    np.testing.assert_allclose(b.grad.numpy(), 2.0 * b.numpy(), rtol=1e-12)
    assert c.grad.item() == 1.0
    np.testing.assert_allclose(x.grad.numpy(), 18.0 * x.numpy(), rtol=1e-12)


def test_a_root_that_also_feeds_another_root_is_walked_once():
    xs = np.array([0.2, 0.7])
    x = tl.tensor(xs, requires_grad=True)
    s1 = x.exp().sum()
    s2 = s1 * 2.0
    (g,) = tl.autograd.grad([s1, s2], x)  # retain_graph=False: a second walk of s1 would raise
    np.testing.assert_allclose(g.numpy(), 3.0 * np.exp(xs), rtol=1e-12)
    y = x * 3.0
    (gy,) = tl.autograd.grad((y * y).sum(), y)  # a non-leaf input is captured at its node
    np.testing.assert_allclose(gy.numpy(), 6.0 * xs, rtol=1e-12)


def test_ctx_output_carries_the_history_for_second_derivatives(no_gc):
    xs = np.array([0.1, -0.4, 0.9])
    x = tl.tensor(xs, requires_grad=True)
    y = (x * 2.0).exp()
    (g,) = tl.autograd.grad(y.sum(), x, create_graph=True)  # 2 exp(2x), through ctx.output
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4.0 * np.exp(2.0 * xs), rtol=1e-12)
    ref = weakref.ref(y.graph_node)
    del y, g
    assert ref() is None, "the context holds its output's History weakly: no cycle"


def test_saves_output_is_detected_from_backward_or_declared():
    def read_output(ctx, g):
        return g * ctx.output

    class Hidden(Function):  # reads ctx.output through a helper: not detected
        @staticmethod
        def forward(ctx, a):
            return a.backend.xp.exp(a.data)

        @staticmethod
        def backward(ctx, g):
            return read_output(ctx, g)

    class Declared(Hidden):
        saves_output = True

    x = tl.tensor([0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="saves_output = True"):
        Hidden.apply(x).sum().backward()
    Declared.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5]), rtol=1e-12)


def test_a_function_class_is_not_kept_alive_by_the_library():
    """A Function class made on the fly (in a loop, a closure) is freed with its last use."""
    def make():
        class Local(Function):
            saves_output = True

            @staticmethod
            def forward(ctx, a):
                return a.backend.xp.exp(a.data)

            @staticmethod
            def backward(ctx, g):
                return g * ctx.output

        return Local

    cls = make()
    x = tl.tensor([0.5], requires_grad=True)
    cls.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5]), rtol=1e-12)
    ref = weakref.ref(cls)
    del cls
    gc.collect()
    assert ref() is None


def test_a_graph_node_says_what_it_stands_for():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    node = (y * 2.0).history.edges[0]
    assert repr(node) == "History(last_fn=Exp, inputs=1, shape=(2,), dtype=float64)"
    (node_user := y * 2.0).sum().backward()
    assert "freed by backward" in repr(node_user.history.edges[0])


def test_a_gradient_detached_by_zero_grad_is_recorded_as_a_leaf_again():
    x = tl.tensor([0.5, 2.0], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    (g * 1.0).sum()  # g is consumed as a non-leaf: its graph node is made
    x.zero_grad_()  # detaches g, in place
    assert x.grad is g and g.graph_node is g
    y = tl.tensor([1.0, 1.0], requires_grad=True)
    (g * y).sum().backward()  # no gradient may flow into the old graph
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.0])
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])


def test_backward_of_a_branchy_expression_peaks_at_the_arrays_hand_written_numpy_needs():
    # The benchmark's W3 expression. By hand its forward and backward peak at six
    # full-size arrays. The engine walks the last input's branch first (the one
    # built last, as hand-written code unwinds), so exp's branch frees its saved
    # arrays before tanh's and sigmoid's gradients are made: six arrays too.
    import tracemalloc

    n = 1 << 20
    rng = np.random.default_rng(0)
    x = tl.tensor(rng.standard_normal(n, dtype=np.float32), requires_grad=True)
    w = tl.tensor(rng.standard_normal(n, dtype=np.float32), requires_grad=True)
    gc.collect()
    tracemalloc.start()
    try:
        ((x * w).tanh() * x.sigmoid() + (-x * x).exp()).sum().backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 6.05 * 4 * n, f"peak {peak / (4 * n):.2f} arrays"
    xs, ws = x.numpy().astype(np.float64), w.numpy().astype(np.float64)
    t, s = np.tanh(xs * ws), 1.0 / (1.0 + np.exp(-xs))
    gx = (1.0 - t * t) * ws * s + t * s * (1.0 - s) - 2.0 * xs * np.exp(-xs * xs)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=2e-5, atol=2e-6)


def test_a_graph_node_is_itself_and_nothing_else_whatever_it_refers_to():
    """A History is the weak reference to the tensor it made, but hashes and compares as itself:
    two nodes built by hand (both refer to nobody) and a node whose tensor is gone stay apart."""
    a, b = History(), History()
    assert a != b and not a == b and len({a, b}) == 2
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    node = y.history
    before = hash(node)
    del y
    gc.collect()
    assert hash(node) == before and node == node and node in {node: 1}
    z = x * 3.0
    assert z.history != node and z.history.inputs[0] is x


def test_a_recorded_op_gives_the_collector_two_objects_to_track_for_its_node():
    """Its History (its own weak reference to its tensor) and the tuple of its inputs; nothing else
    (an Add shares its context): the collector's passes over a deep graph are a quarter of recording it."""
    x = tl.tensor(0.5, requires_grad=True)
    y = x + x
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(1000):
        y = y + x
    assert 1.9 < (len(gc.get_objects()) - before) / 1000 < 2.1
    assert gc.is_tracked(y.history) and weakref.ref(y.history)() is y.history
