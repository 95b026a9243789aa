"""The engine: graph walks, memory, retain/create_graph, accumulation, leaves, atomicity."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import torchlight as tl
from torchlight import grad_mode
from torchlight.autograd import Context, Function, History, backpropagate, topological_sort
from torchlight.scalar import variable


def leaf(values, backend, device, **kw):
    return tl.tensor(values, backend=backend, device=device, requires_grad=True, **kw)


# ------------------------------------------------------------ deep graphs
# The walk and the freeing are the engine's, not a backend's: NumPy only, to keep the suite fast.
def test_a_100000_node_chain_backpropagates_without_recursion():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    order = topological_sort(y)
    assert len(order) == 100_001 and order[0] is x and order[-1] is y
    del order
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_deleting_the_root_frees_the_whole_graph_by_reference_counting():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        first = x.exp()  # the intermediate nearest the leaf: freed last, if at all
        ref = weakref.ref(first)
        y = first
        del first
        for i in range(100_000):
            y = (y * 1.0).tanh() if i % 50_000 == 0 else y + 1.0
        assert ref() is not None
        del y
        assert ref() is None
        y = x.sigmoid().sqrt() * 2.0
        ref = weakref.ref(y.history.edges[0])
        y.sum().backward()  # a walked graph is freed as well
        del y
        assert ref() is None
    finally:
        gc.enable()


def test_the_engine_drops_each_gradient_once_passed_on(backend, device):
    incoming = {}

    def recorder(name, check=None):
        class Step(Function):
            @staticmethod
            def forward(ctx, a):
                return a.data * 1.0

            @staticmethod
            def backward(ctx, g):
                incoming[name] = weakref.ref(g)
                if check is not None:
                    check()
                return g * 1.0

        Step.__name__ = name
        return Step

    def near_leaf_check():
        assert incoming["C"]() is None, "the gradient given to C is still alive when A runs"
        assert incoming["B"]() is None, "the gradient given to B is still alive when A runs"
        assert incoming["A"]() is not None

    A, B, C = recorder("A", near_leaf_check), recorder("B"), recorder("C")
    x = leaf([1.0, 2.0], backend, device)
    C.apply(B.apply(A.apply(x))).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


# ------------------------------------------------------ topological_sort
def test_topological_sort_puts_leaves_first_root_last_and_leaves_out_constants(backend, device):
    x = leaf([1.0], backend, device)
    c = tl.tensor([3.0], backend=backend, device=device)
    a = x * c
    b = a + x
    root = b * a
    order = topological_sort(root)
    assert order[0] is x and order[-1] is root
    assert all(t is not c for t in order)
    assert len(order) == 4
    position = {id(t): i for i, t in enumerate(order)}
    for t in order:
        for p in t.parents:
            if p.requires_grad:
                assert position[id(p)] < position[id(t)]


def test_value_and_tensor_share_the_engine():
    x = variable(2.0)
    y = x * x + 1.0
    assert [v.data for v in topological_sort(y)] == [2.0, 4.0, 5.0]
    backpropagate(y, 1.0)
    assert x.grad == 4.0


def test_backpropagate_takes_a_number_or_a_root_shaped_array(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    backpropagate(x * 3.0, 2.0)
    assert x.grad.tolist() == [6.0, 6.0]
    x.zero_grad_()
    backpropagate(x * 3.0, backend.asarray([1.0, -1.0], device=device))
    assert x.grad.tolist() == [3.0, -3.0]


# ------------------------------------------- released graphs, create_graph
def test_saved_tensors_are_released_after_backward(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    y = x * x
    ctx = y.history.ctx
    assert len(ctx.saved_tensors) == 2
    y.sum().backward()
    assert ctx.released and ctx.saved_values == ()
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        _ = ctx.saved_tensors
    assert x.grad.tolist() == [2.0, 4.0]


def test_a_node_that_saved_nothing_runs_again_as_in_pytorch(backend, device):
    """Add, Sub, Neg and Clone share one context per pattern: nothing to free, so no error the second time."""
    x = leaf([1.0, 2.0], backend, device)
    y = -(x + x) - x
    assert y.history.ctx is (x - x).history.ctx  # shared, and never released
    y.sum().backward()
    y.sum().backward()
    assert x.grad.tolist() == [-6.0, -6.0]
    z = (x + x) * x  # a node that saved its inputs still refuses a second walk
    z.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        z.sum().backward()


def test_a_users_function_keeps_its_own_context(backend, device):
    class Twice(Function):  # its backward reads nothing of ctx, yet what forward saves is kept
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            ctx.note = "mine"
            return a.data * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    x = leaf([1.0], backend, device)
    ctx = Twice.apply(x).history.ctx
    assert ctx.saved_values[0] is x and ctx.note == "mine"
    assert Twice.apply(x).history.ctx is not ctx


def test_retain_graph_keeps_saved_tensors_and_gradients_accumulate(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()


def test_create_graph_records_the_backward_and_implies_retain_graph(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    y = (x ** 3).sum()
    y.backward(create_graph=True)
    g = x.grad
    assert g.requires_grad and g.history is not None
    assert g.tolist() == [3.0, 12.0]
    y.backward(create_graph=True)  # the graph was retained
    assert x.grad.tolist() == [6.0, 24.0]
    x.grad = None
    g.sum().backward()  # d/dx sum(3 x^2) = 6 x
    assert x.grad.tolist() == [6.0, 12.0]


def test_hessian_vector_product_through_autograd_grad(backend, device):
    x = leaf([0.5, -1.0, 2.0], backend, device, dtype="float64")
    v = tl.tensor([1.0, 2.0, 3.0], backend=backend, device=device, dtype="float64")
    (g,) = tl.autograd.grad((x.tanh() * x).sum(), [x], create_graph=True)
    (hv,) = tl.autograd.grad((g * v).sum(), [x])
    xs = np.array([0.5, -1.0, 2.0])
    t = np.tanh(xs)
    hess_diag = 2 * (1 - t**2) - 2 * xs * t * (1 - t**2)
    np.testing.assert_allclose(hv.numpy(), hess_diag * [1.0, 2.0, 3.0], rtol=1e-12)


def test_backward_without_create_graph_records_nothing(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    (x.exp() * x).sum().backward()
    assert x.grad.history is None and not x.grad.requires_grad
    assert tl.is_grad_enabled()


# ------------------------------------------------------------ leaves, grads
def test_non_0d_root_is_seeded_with_ones(backend, device):
    a = leaf([1.0, 2.0], backend, device)
    b = a * 2
    b.backward()
    assert a.grad.tolist() == [2.0, 2.0]


def test_explicit_gradient_is_used_and_cast_to_the_root_dtype(backend, device):
    a = leaf([1.0, 2.0], backend, device)
    (a * 2).backward(tl.tensor([1.0, -3.0], backend=backend, device=device, dtype="float32"))
    assert a.grad.tolist() == [2.0, -6.0] and a.grad.dtype == a.dtype


def test_gradients_accumulate_until_zero_grad(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    for _ in range(3):
        (x * x).sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]
    g = x.grad
    x.zero_grad_()
    assert x.grad is g and g.tolist() == [0.0, 0.0]  # the same grad Tensor, zeroed in place
    (x * 5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_zero_grad_on_a_leaf_without_grad_allocates_zeros(backend, device):
    x = leaf([1.0, 2.0, 3.0], backend, device, dtype="float32")
    assert x.grad is None
    assert x.zero_grad_() is x
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    assert x.grad.shape == x.shape and x.grad.dtype == x.dtype and x.grad.backend is x.backend


def test_float32_leaves_keep_float32_gradients_in_a_float64_graph(backend, device):
    x = leaf([1.0, 2.0], backend, device, dtype="float32")
    w = leaf([0.5, 0.25], backend, device)
    (x * w).sum().backward()
    assert x.grad.dtype == x.dtype and w.grad.dtype == w.dtype
    assert x.grad.tolist() == [0.5, 0.25]


def test_leaves_of_one_add_do_not_share_gradient_memory():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = tl.tensor([3.0, 4.0], requires_grad=True)
    seed = np.array([1.0, -1.0])
    (x + y).backward(seed)
    assert x.grad is not y.grad
    assert not np.shares_memory(x.grad.data, y.grad.data)
    assert not np.shares_memory(x.grad.data, seed) and not np.shares_memory(y.grad.data, seed)
    x.zero_grad_()
    assert y.grad.tolist() == [1.0, -1.0]
    z = tl.tensor([1.0], requires_grad=True)
    z.backward(seed[:1])  # a leaf root: its gradient is a copy of the seed
    assert not np.shares_memory(z.grad.data, seed)


def test_detach_shares_storage_and_leaves_the_graph():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    d = (x * 1.0).detach()
    assert d.is_leaf and not d.requires_grad and d.history is None
    e = x.detach()
    assert np.shares_memory(e.data, x.data)
    e.data[0] = 10.0  # the same storage: a write shows through
    assert x.tolist() == [10.0, 2.0]


def test_detach_on_every_backend(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    d = x.detach()
    assert d.data is x.data and not d.requires_grad
    (d * x).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0]


def test_clone_copies_and_stays_in_the_graph(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    c = x.clone()
    assert c.history.last_fn.__name__ == "Clone" and c.requires_grad
    assert c.data is not x.data
    (c * 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    host = np.array([1.0, 2.0])
    assert not np.shares_memory(tl.tensor(host).clone().data, host)


def test_retain_grad_keeps_an_intermediate_gradient(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    h = x * 3.0
    assert h.retain_grad() is h
    k = h * h
    (k.sum()).backward()
    assert h.grad.tolist() == [6.0, 12.0]
    assert x.grad.tolist() == [18.0, 36.0]
    with pytest.raises(AttributeError, match=r"not a leaf|non-leaf.*retain_grad\(\)"):
        _ = k.grad


def test_non_leaf_grad_raises_attribute_error_naming_retain_grad(backend, device):
    a = leaf([1.0, 2.0], backend, device)
    b = a * 2
    b.backward()
    with pytest.raises(AttributeError, match=r"retain_grad\(\)") as info:
        _ = b.grad
    assert "leaf" in str(info.value)


def test_constant_leaves_get_no_gradient(backend, device):
    x = leaf([1.0], backend, device)
    c = tl.tensor([2.0], backend=backend, device=device)
    (x * c).backward()
    assert c.grad is None and x.grad.tolist() == [2.0]


# --------------------------------------------------------------- atomicity
class Explodes(Function):
    """Identity forward; backward raises (a user's bug)."""

    @staticmethod
    def forward(ctx, a):
        return a.data * 1.0

    @staticmethod
    def backward(ctx, g):
        raise ZeroDivisionError("a bug in a user Function")


class WrongShape(Function):
    @staticmethod
    def forward(ctx, a):
        return a.data * 1.0

    @staticmethod
    def backward(ctx, g):
        return tl.tensor(np.ones((5, 7)), backend=g.backend, device=g.device)


@pytest.mark.parametrize("retain", [True, False])
@pytest.mark.parametrize("bad", [Explodes, WrongShape])
def test_backward_is_atomic(bad, retain, backend, device):
    x = leaf([1.0, 2.0], backend, device)
    y = leaf([3.0, 4.0], backend, device)
    x.grad = tl.tensor([10.0, 20.0], backend=backend, device=device)
    old_x = x.grad
    h = y * 2.0
    h.retain_grad()
    # y's and h's gradients are complete before the bad node's backward runs
    root = (h * 5.0).sum() + bad.apply(x * y).sum()
    with pytest.raises((ZeroDivisionError, ValueError)) as info:
        root.backward(retain_graph=retain)
    if bad is WrongShape:
        assert "WrongShape" in str(info.value) and "(5, 7)" in str(info.value)
    assert x.grad is old_x and x.grad.tolist() == [10.0, 20.0]
    assert y.grad is None and h.grad is None


# ------------------------------------------------------ Function/Context
def test_function_records_history_only_when_an_input_needs_a_gradient(backend, device):
    seen = []

    class Twice(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            seen.append((ctx.no_grad, ctx.saved_values))
            return a.data * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    c = tl.tensor([1.0], backend=backend, device=device)
    out = Twice.apply(c)
    assert out.history is None and not out.requires_grad and seen[-1] == (True, ())
    x = leaf([1.0], backend, device)
    with tl.no_grad():
        assert Twice.apply(x).history is None
    out = Twice.apply(x)
    assert isinstance(out.history, History) and out.history.last_fn is Twice
    assert out.history.inputs == (x,) and isinstance(out.history.ctx, Context)
    assert seen[-1][0] is False and seen[-1][1][0] is x
    out.backward()
    assert x.grad.tolist() == [2.0]


def test_function_forward_may_return_a_tensor_and_runs_with_grad_off(backend, device):
    class Cube(Function):
        @staticmethod
        def forward(ctx, a):
            assert not tl.is_grad_enabled()
            ctx.save_for_backward(a)
            return a * a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3.0 * a * a

    x = leaf([2.0], backend, device)
    y = Cube.apply(x)
    assert y.history.last_fn is Cube and y.tolist() == [8.0]
    y.backward()
    assert x.grad.tolist() == [12.0]


def test_context_defaults():
    ctx = Context()
    assert ctx.no_grad is False and ctx.saved_tensors == ()
    ctx.save_for_backward(1, 2)
    assert ctx.saved_tensors == (1, 2)
    quiet = Context(no_grad=True)
    quiet.save_for_backward(1)
    assert quiet.saved_tensors == ()
    assert Context(saved_values=(3,)).saved_tensors == (3,)
    h = History()
    assert h.last_fn is None and h.ctx is None and h.inputs == ()


def test_zero_grad_detaches_a_gradient_made_with_create_graph(backend, device):
    x = leaf([1.0, 2.0], backend, device)
    (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad
    x.zero_grad_()
    assert x.grad is g and g.history is None and not g.requires_grad and g.tolist() == [0.0, 0.0]
    (x * x).sum().backward(create_graph=True)
    h = x.grad  # 0 + 2x: its graph must not carry the old 3x^2
    x.grad = None
    (h * 1.0).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_a_node_with_many_consumers_sums_its_gradients_in_place_without_touching_shared_ones(backend, device):
    # t has five consumers; Add hands one array to both of its inputs, and the
    # engine's running sum for t is updated in place (rebound on JAX): neither
    # may leak into the other, on any backend.
    xs = np.array([0.3, -0.7, 1.1])
    x = leaf(xs.tolist(), backend, device)
    w = leaf((xs * 2.0).tolist(), backend, device)
    t = x.exp()
    s = t + w  # the same upstream array goes to t and to w
    loss = (s + t + t * 3.0 + t * t).sum()
    loss.backward()
    et = np.exp(xs)
    np.testing.assert_allclose(x.grad.numpy(), et * (1.0 + 1.0 + 3.0 + 2.0 * et), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), np.ones(3), rtol=0)
    assert x.grad.device == x.device and w.grad.device == w.device
    if backend == "numpy":
        assert not np.shares_memory(x.grad.numpy(), w.grad.numpy())


def test_a_forward_that_stashes_on_a_no_grad_context_pins_nothing_past_the_next_op():
    class Stash(Function):  # sets an attribute on ctx even when nothing is recorded
        @staticmethod
        def forward(ctx, a):
            ctx.stash = a.backend.xp.exp(a.data)
            return ctx.stash * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0 * ctx.stash

    x = tl.tensor([0.5, 1.0], requires_grad=True)
    with tl.no_grad():
        y = Stash.apply(x)
        z = x.exp()  # the next quiet Function gets a clean context (+ - * / use no context at all)
    np.testing.assert_allclose(y.numpy(), 2.0 * np.exp([0.5, 1.0]), rtol=1e-12)
    np.testing.assert_allclose(z.numpy(), np.exp([0.5, 1.0]), rtol=1e-12)
    assert not grad_mode._state.quiet_context.__dict__
    Stash.apply(x).sum().backward()  # with grad, the context is the op's own
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.exp([0.5, 1.0]), rtol=1e-12)


def test_a_tensor_subclass_that_defines_eq_still_backpropagates():
    """The engine keys nodes by identity; a subclass defining __eq__ keeps Tensor's identity hash."""
    class Named(tl.Tensor):
        __slots__ = ()

        def __eq__(self, other):
            return tl.Tensor.__eq__(self, other)

    base = tl.tensor([1.0, 2.0])
    n = Named(base.data, base.backend, requires_grad=True)
    (n * n).sum().backward()
    np.testing.assert_allclose(n.grad.numpy(), [2.0, 4.0], rtol=0)
    assert (n == n).tolist() == [True, True]
