"""Custom Functions as PyTorch's: several outputs, non-differentiable outputs, materialized
gradients, @once_differentiable, and an optional jvp that func.jvp uses."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.autograd import Function, once_differentiable


def _torch():
    return pytest.importorskip("torch", reason="torch is not installed: the Functions are not compared with PyTorch's")


class SinCos(Function):
    """Two outputs of one input."""

    seen: list = []

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sin(x.data), np.cos(x.data)

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        SinCos.seen.append((g_sin is None, g_cos is None))
        (x,) = ctx.saved_tensors
        out = 0.0
        if g_sin is not None:
            out = out + g_sin * x.cos()
        if g_cos is not None:
            out = out - g_cos * x.sin()
        return out


def _torch_sincos(torch):
    class TSinCos(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, g_sin, g_cos):
            (x,) = ctx.saved_tensors
            out = 0.0
            if g_sin is not None:
                out = out + g_sin * x.cos()
            if g_cos is not None:
                out = out - g_cos * x.sin()
            return out

    return TSinCos


def test_several_outputs_give_one_backward_call_with_one_gradient_each_as_pytorch():
    torch = _torch()
    x0 = [0.3, -1.2]
    x = tl.tensor(x0, requires_grad=True)
    s, c = SinCos.apply(x)
    SinCos.seen.clear()
    (s * 2.0 + c * c).sum().backward()
    assert SinCos.seen == [(False, False)]
    tx = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    ts, tc = _torch_sincos(torch).apply(tx)
    (ts * 2.0 + tc * tc).sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), tx.grad.tolist(), rtol=1e-12)


def test_an_output_that_got_no_gradient_is_zeros_by_default_and_none_without_materializing():
    x = tl.tensor([0.3], requires_grad=True)
    s, _ = SinCos.apply(x)
    SinCos.seen.clear()
    s.sum().backward()
    assert SinCos.seen == [(False, False)]  # materialized: zeros for the cosine
    np.testing.assert_allclose(x.grad.tolist(), np.cos([0.3]))

    class Lazy(SinCos):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return SinCos.forward(ctx, x)

    x.grad = None
    s, _ = Lazy.apply(x)
    SinCos.seen.clear()
    s.sum().backward()
    assert SinCos.seen == [(False, True)]
    np.testing.assert_allclose(x.grad.tolist(), np.cos([0.3]))


def test_several_outputs_have_second_derivatives():
    x = tl.tensor([0.3, 0.7], requires_grad=True)
    s, c = SinCos.apply(x)
    (g,) = tl.autograd.grad((s * c).sum(), [x], create_graph=True)  # d/dx sin cos = cos 2x
    g.sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), -2.0 * np.sin(2.0 * np.array([0.3, 0.7])), rtol=1e-12)


def test_outputs_of_one_call_are_named_as_the_function_and_come_back_from_history_inputs():
    x = tl.tensor([0.3], requires_grad=True)
    s, c = SinCos.apply(x)
    assert s.history.last_fn.__name__ == "SinCos" and "SinCos" in repr(s)
    node = s.history.edges[0]
    assert c.history.edges[0] is node and node.inputs[0] is x


class Sorted(Function):
    """Values and the indices that sort them: the indices are not differentiable."""

    @staticmethod
    def forward(ctx, x):
        order = np.argsort(x.data)
        ctx.order = order
        ctx.mark_non_differentiable(order)
        return x.data[order], order

    @staticmethod
    def backward(ctx, g, g_order):
        assert g_order is not None  # materialized zeros for a non-differentiable output
        out = np.zeros_like(g.data)
        out[ctx.order] = g.data
        return out


def test_mark_non_differentiable_gives_an_output_without_grad():
    torch = _torch()
    x = tl.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, order = Sorted.apply(x)
    assert values.requires_grad and not order.requires_grad and order.history is None
    (values * tl.tensor([1.0, 2.0, 3.0])).sum().backward()

    class TSorted(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            v, i = x.sort()
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(i)
            return v, i

        @staticmethod
        def backward(ctx, g, _):
            (i,) = ctx.saved_tensors
            return torch.zeros_like(g).index_copy(0, i, g)

    tx = torch.tensor([3.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    tv, ti = TSorted.apply(tx)
    assert not ti.requires_grad
    (tv * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist()


def test_a_single_output_marked_non_differentiable_has_no_history():
    class Floor(Function):
        @staticmethod
        def forward(ctx, x):
            out = np.floor(x.data)
            ctx.mark_non_differentiable(out)
            return out

    y = Floor.apply(tl.tensor([1.5], requires_grad=True))
    assert not y.requires_grad and y.history is None


def test_several_outputs_without_grad_mode_are_plain_tensors():
    with tl.no_grad():
        s, c = SinCos.apply(tl.tensor([0.0], requires_grad=True))
    assert isinstance(s, tl.Tensor) and s.history is None and c.tolist() == [1.0]


def test_a_backward_run_twice_without_retain_graph_is_refused():
    x = tl.tensor([0.3], requires_grad=True)
    s, c = SinCos.apply(x)
    loss = (s + c).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.data ** 3

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g.data * 3.0 * x.data ** 2

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        Cube.jvps += 1
        return t * 3.0 * x ** 2

    jvps = 0


def test_once_differentiable_raises_naming_the_function_on_a_second_backward_as_pytorch():
    torch = _torch()
    x = tl.tensor([2.0], requires_grad=True)
    (gx,) = tl.autograd.grad(Cube.apply(x).sum(), [x], create_graph=True)
    assert gx.tolist() == [12.0]
    with pytest.raises(RuntimeError, match="Cube.backward is marked @once_differentiable"):
        gx.sum().backward()

    class TCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3.0 * x ** 2

    # PyTorch marks the gradient only where the gradient reaching the Function requires grad (here it
    # does: the loss squares the Function's output); torchlight also where it depends on the input alone
    x = tl.tensor([2.0], requires_grad=True)
    tx = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    (gx,) = tl.autograd.grad((Cube.apply(x) ** 2).sum(), [x], create_graph=True)
    (tgx,) = torch.autograd.grad((TCube.apply(tx) ** 2).sum(), [tx], create_graph=True)
    assert gx.tolist() == tgx.tolist() == [192.0]
    with pytest.raises(RuntimeError, match="once_differentiable"):
        tgx.sum().backward()
    with pytest.raises(RuntimeError, match="once_differentiable"):
        gx.sum().backward()


def test_a_backward_on_raw_arrays_refuses_a_second_derivative_instead_of_a_silent_zero():
    class RawSquare(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.data ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2.0 * x.data * g.data

    x = tl.tensor([3.0], requires_grad=True)
    (gx,) = tl.autograd.grad(RawSquare.apply(x).sum(), [x], create_graph=True)
    assert gx.tolist() == [6.0]
    with pytest.raises(RuntimeError, match="RawSquare.backward returned arrays"):
        tl.autograd.grad(gx.sum(), [x])
    x.grad = None
    RawSquare.apply(x).sum().backward()  # a first derivative is fine
    assert x.grad.tolist() == [6.0]


def test_func_jvp_uses_a_functions_own_jvp():
    Cube.jvps = 0
    value, tangent = func.jvp(Cube.apply, (np.array([1.0, 2.0]),), (np.array([1.0, 0.5]),))
    np.testing.assert_allclose(value, [1.0, 8.0])
    np.testing.assert_allclose(tangent, [3.0, 6.0])
    assert Cube.jvps == 1


def test_a_jvp_of_a_function_with_several_outputs():
    class SinCosJvp(SinCos):
        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos(), -t * x.sin()

        @staticmethod
        @once_differentiable
        def backward(ctx, g_sin, g_cos):
            (x,) = ctx.saved_tensors
            return g_sin.data * np.cos(x.data) - g_cos.data * np.sin(x.data)

    x = np.array([0.3, 0.9])
    _, (t_sin, t_cos) = func.jvp(lambda v: SinCosJvp.apply(v), (x,), (np.ones(2),))
    np.testing.assert_allclose(t_sin, np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(t_cos, -np.sin(x), rtol=1e-12)


def test_saves_output_with_several_outputs_is_refused():
    class Both(Function):
        saves_output = True

        @staticmethod
        def forward(ctx, x):
            return x.data, x.data

    with pytest.raises(TypeError, match="saves_output"):
        Both.apply(tl.tensor([1.0], requires_grad=True))


def test_jacfwd_and_linearize_use_a_functions_own_jvp():
    Cube.jvps = 0
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(func.jacfwd(Cube.apply)(x), np.diag(3.0 * x ** 2))
    assert Cube.jvps >= 1
    out, jvp_fn = func.linearize(Cube.apply, x)
    np.testing.assert_allclose(out, x ** 3)
    np.testing.assert_allclose(jvp_fn(np.array([1.0, -1.0])), [3.0, -12.0])
