"""`Tensor.register_hook` and `register_post_accumulate_grad_hook`: PyTorch's semantics, checked
against PyTorch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl


def _torch():
    return pytest.importorskip("torch", reason="torch is not installed: the hooks are not compared with PyTorch's")


def _run_graph(lib, make, x0):
    """The same small graph in torchlight or torch, with hooks that log and rescale: the log and the grads."""
    log = []
    x = make(x0)
    y = x * 3.0
    z = y.exp() + y * 2.0
    y.register_hook(lambda g: log.append(("y1", [round(v, 10) for v in g.tolist()])) or g * 2.0)
    y.register_hook(lambda g: log.append(("y2", [round(v, 10) for v in g.tolist()])))
    x.register_hook(lambda g: log.append(("x", [round(v, 10) for v in g.tolist()])) or g + 1.0)
    z.register_hook(lambda g: log.append(("z", [round(v, 10) for v in g.tolist()])))
    y.retain_grad()
    z.sum().backward()
    return log, x.grad.tolist(), y.grad.tolist()


def test_hooks_run_in_order_and_replace_the_gradient_as_pytorchs_do():
    torch = _torch()
    x0 = [0.1, -0.2]
    ours = _run_graph(tl, lambda v: tl.tensor(v, requires_grad=True), x0)
    theirs = _run_graph(torch, lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True), x0)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)


def test_a_leaf_hook_changes_what_accumulates_into_grad():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 0.5)
    (x * x).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0]


def test_a_hook_sees_a_gradient_with_history_under_create_graph():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.requires_grad))
    (gx,) = tl.autograd.grad((x ** 3).sum(), [x], create_graph=True)
    assert seen == [True]
    gx.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_a_hook_doubling_an_intermediate_gradient_doubles_the_second_derivative_too():
    torch = _torch()
    results = []
    for make in (lambda: tl.tensor([0.5], requires_grad=True),
                 lambda: torch.tensor([0.5], dtype=torch.float64, requires_grad=True)):
        x = make()
        y = x * x
        y.register_hook(lambda g: g * 2.0)
        (gx,) = (tl.autograd.grad if isinstance(x, tl.Tensor) else torch.autograd.grad)(
            (y * x).sum(), [x], create_graph=True)
        results.append(gx.tolist())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_remove_takes_the_hook_away_and_a_second_remove_is_harmless():
    x = tl.tensor([1.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 10.0)
    handle.remove()
    handle.remove()
    (x * 2.0).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_a_handle_as_a_context_manager_removes_the_hook_at_the_end():
    x = tl.tensor([1.0], requires_grad=True)
    with x.register_hook(lambda g: g * 10.0):
        (x * 2.0).sum().backward()
    (x * 2.0).sum().backward()
    assert x.grad.tolist() == [22.0]


def test_post_accumulate_grad_hooks_see_the_updated_grad():
    torch = _torch()
    logs = []
    for make in (lambda: tl.tensor([1.0, 2.0], requires_grad=True),
                 lambda: torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)):
        w = make()
        log = []
        w.register_post_accumulate_grad_hook(lambda t, log=log: log.append(t.grad.tolist()))
        (w * 3.0).sum().backward()
        (w * w).sum().backward()
        logs.append(log)
    assert logs[0] == logs[1] == [[3.0, 3.0], [5.0, 7.0]]


def test_a_post_accumulate_hook_can_step_the_parameter():
    w = tl.tensor([1.0, 2.0], requires_grad=True)

    def step(t):
        with tl.no_grad():
            t -= 0.5 * t.grad
        t.grad = None

    w.register_post_accumulate_grad_hook(step)
    (w * w).sum().backward()
    assert w.tolist() == [0.0, 0.0] and w.grad is None


def test_a_hook_returning_the_wrong_shape_names_the_hook_and_both_shapes():
    x = tl.tensor([1.0, 2.0], requires_grad=True)

    def widen(g):
        return tl.tensor([1.0, 2.0, 3.0])

    x.register_hook(widen)
    with pytest.raises(RuntimeError, match=r"widen.*\(3,\).*\(2,\)"):
        (x * 2.0).sum().backward()
    assert x.grad is None


def test_a_hook_returning_another_backend_is_refused():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: tl.tensor([1.0, 2.0], backend="array_api_strict"))
    with pytest.raises(RuntimeError, match="backend"):
        (x * 2.0).sum().backward()


def test_hooks_are_refused_where_pytorch_refuses_them():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tl.tensor([1.0]).register_hook(lambda g: g)
    x = tl.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2.0).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(TypeError, match="callable"):
        x.register_hook("not a function")


def test_a_hook_keeps_no_graph_alive():
    import gc
    import weakref

    x = tl.tensor([1.0], requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: g)
    ref = weakref.ref(y.history)
    del y
    gc.collect()
    assert ref() is None
