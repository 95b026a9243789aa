"""Writes (`x[key] = v`, `x += y`, `add_`, ...): recorded in the graph with the right gradients, refused on
a leaf that requires grad, a replacement under no_grad; never a stale value for a backward, and never
a write into an array (the user's, a saved one, an op's kept output).

The scipy-style patterns are checked against a hand derivation and against central differences
(gradcheck), first and second order.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck


def floats(backend, values, requires_grad=False, device=None):
    array = backend.asarray(np.asarray(values, dtype=np.float64), device=device)
    return tl.tensor(array, requires_grad=requires_grad)


# --------------------------------------------------------- scipy's in-place patterns
def masked_square(x):
    y = x.exp()
    y[y > 1] = 0.0
    return (y * y).sum()


def shifted_exp_sum(x):
    a = x * 1.0
    a -= a.max()  # Max saved a: its backward reads a as it was
    return a.exp().sum()


def pieces(w):
    out = tl.zeros(3, backend=w.backend, device=w.device)
    out[0] = w[0] * 2.0
    out[1:] = w[1:] ** 2
    return (out * out).sum()


def overwritten_after_use(x):
    b = x * 2.0
    c = b * b  # saves b
    b[0] = 5.0
    return c.sum() + b.sum()


def log_softmax_like(x):
    tmp = x - x.max()  # scipy.special.log_softmax's steps
    tmp -= tmp.exp().sum().log()
    return (tmp * tmp).sum()


@pytest.mark.parametrize("fn", [masked_square, shifted_exp_sum, pieces, overwritten_after_use, log_softmax_like])
def test_in_place_patterns_pass_gradcheck_first_and_second_order(fn, backend, device):
    values = [0.5, -1.5, 2.0] if fn is pieces else [-0.7, 0.3, 1.2, -0.1]
    x = floats(backend, values, requires_grad=True, device=device)
    assert gradcheck(fn, x)
    assert gradgradcheck(fn, x)


def logsumexp_with_b(a, b):
    """scipy.special.logsumexp(a, b=b)'s in-place steps (the written max, `out += a_max`)."""
    a_max = a.max()
    a_max[a_max > 1e300] = 0.0
    out = (b * (a - a_max).exp()).sum().log()
    out += a_max
    return out


def whiten(obs):
    """scipy.cluster.vq.whiten: a zero deviation is written to 1 before dividing."""
    std = obs.std(0)
    std[std == 0] = 1.0
    return obs / std


def cosine_similarity(x):
    """scikit-learn's normalisation: zero norms written to 1, then X /= norm in place."""
    X = x * 1.0
    norm = (X * X).sum(1).sqrt()
    norm[norm == 0] = 1.0
    X /= norm[:, None]
    return X @ X.T


def test_scipy_and_scikit_learn_write_patterns_give_their_values_and_pass_gradcheck(backend, device):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3))
    b = rng.uniform(0.5, 1.5, (4, 3))
    x, w = floats(backend, a, True, device), floats(backend, b, True, device)
    np.testing.assert_allclose(logsumexp_with_b(x, w).item(), np.log(np.sum(b * np.exp(a))))
    assert gradcheck(logsumexp_with_b, x, w) and gradgradcheck(logsumexp_with_b, x, w)
    with_zero = np.c_[a[:, :2], np.full(4, 3.0)]  # a column of zero deviation
    y = floats(backend, with_zero, True, device)
    std = with_zero.std(0, ddof=1)  # (the Tensor method is PyTorch's: unbiased)
    np.testing.assert_allclose(whiten(y).numpy(), with_zero / np.where(std == 0, 1.0, std))
    assert gradcheck(lambda t: (whiten(t) ** 2).sum(), x)  # (where std is 0 it is no function of the inputs)
    rows = np.r_[a, np.zeros((1, 3))]  # a zero row
    z = floats(backend, rows, True, device)
    norm = np.linalg.norm(rows, axis=1, keepdims=True)
    unit = rows / np.where(norm == 0, 1.0, norm)
    np.testing.assert_allclose(cosine_similarity(z).numpy(), unit @ unit.T, atol=1e-12)
    assert gradcheck(lambda t: (cosine_similarity(t) * cosine_similarity(t)).sum(), floats(backend, a, True, device))


def test_masked_square_against_the_hand_derivation(backend):
    values = np.array([-0.7, 0.3, 1.2, -0.1])
    x = floats(backend, values, requires_grad=True)
    masked_square(x).backward()
    want = np.where(np.exp(values) > 1, 0.0, 2 * np.exp(2 * values))
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_shifted_exp_sum_against_the_hand_derivation(backend):
    values = np.array([-0.7, 0.3, 1.2, -0.1])
    x = floats(backend, values, requires_grad=True)
    shifted_exp_sum(x).backward()
    e = np.exp(values - values.max())
    want = e - (values == values.max()) * e.sum()
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_writes_into_zeros_route_each_piece_to_its_source(backend):
    w = floats(backend, [0.5, -1.5, 2.0], requires_grad=True)
    out = tl.zeros(3, backend=backend)
    out[0] = w[0] * 2.0
    out[1:] = w[1:] ** 2
    out.sum().backward()
    assert out.tolist() == [1.0, 2.25, 4.0] and w.grad.tolist() == [2.0, -3.0, 4.0]


def test_a_backward_reads_the_value_its_forward_saved_not_the_one_written_since(backend):
    x = floats(backend, [1.0, 2.0, 3.0], requires_grad=True)
    b = x * 2.0
    c = b * b
    b[0] = 5.0
    c.sum().backward(retain_graph=True)  # dc/dx = 2 b_old * 2 = 8 x
    assert x.grad.tolist() == [8.0, 16.0, 24.0] and b.tolist() == [5.0, 4.0, 6.0]
    x.grad = None
    b.sum().backward()  # b's new version: nothing flows from the written element
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


def test_an_ops_kept_output_is_never_written(backend):
    x = floats(backend, [0.0, 1.0], requires_grad=True)
    y = x.exp()  # Exp keeps its result for its backward
    s = (y * 3.0).sum()
    y[...] = 0.0
    s.backward()
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * np.exp([0.0, 1.0]))


def test_the_users_array_is_never_written():
    array = np.array([1.0, 2.0, 3.0])
    t = tl.tensor(array)  # wraps without a copy
    t[0] = 9.0
    t += 1.0
    t.mul_(2.0)
    assert t.tolist() == [20.0, 6.0, 8.0] and array.tolist() == [1.0, 2.0, 3.0]
    w = tl.tensor(np.array([1.0, 2.0]), requires_grad=True)
    h = w * 1.0
    h[0] = w[1]  # recorded
    assert w.tolist() == [1.0, 2.0]


def test_duplicate_integer_indices_the_last_write_wins_and_alone_gets_the_gradient(backend, device):
    v = floats(backend, [1.0, 2.0, 3.0], requires_grad=True, device=device)
    out = tl.zeros(3, backend=backend, device=device)
    out[[0, 2, 0]] = v
    assert out.tolist() == [3.0, 0.0, 2.0] and out.device == v.device
    (out * floats(backend, [10.0, 20.0, 30.0], device=device)).sum().backward()
    assert v.grad.tolist() == [0.0, 30.0, 10.0]


def test_a_value_is_broadcast_and_cast_and_its_gradient_summed_back(backend):
    v = floats(backend, [1.0, 2.0], requires_grad=True)
    out = tl.zeros((3, 2), backend=backend, dtype="float32")
    out[1:] = v  # float64 into float32: cast, as NumPy
    assert out.dtype == tl.zeros(1, backend=backend, dtype="float32").dtype
    out.sum().backward()
    assert out.tolist() == [[0.0, 0.0], [1.0, 2.0], [1.0, 2.0]] and v.grad.tolist() == [2.0, 2.0]


def test_retain_grad_follows_the_tensor_to_its_new_version():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = (x * 1.0).retain_grad()
    h += 1.0
    (h * 3.0).sum().backward()
    assert h.grad.tolist() == [3.0, 3.0] and x.grad.tolist() == [3.0, 3.0]


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("write", [
    lambda w: w.__setitem__(0, 5.0),
    lambda w: w.__iadd__(1.0),
    lambda w: w.mul_(2.0),
    lambda w: w.zero_(),
], ids=["setitem", "iadd", "mul_", "zero_"])
def test_a_leaf_that_requires_grad_refuses_writes_with_grad_mode_on(write):
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"leaf tensor that requires grad \(shape \(2,\)\) .*no_grad.*\.clone\(\)"):
        write(w)
    assert w.tolist() == [1.0, 2.0] and w.is_leaf
    with tl.no_grad():
        write(w)  # an optimizer's way
    assert w.is_leaf and w.requires_grad


def test_a_write_under_no_grad_makes_a_backward_that_saved_the_old_value_raise():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2.0
    c = b * b
    with tl.no_grad():
        b[0] = 5.0
    with pytest.raises(RuntimeError, match="replaced since the forward"):
        c.sum().backward()


def test_each_backward_finds_the_first_change_after_its_forward():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2.0
    before_write = (b * b).sum()  # sees b = 2x
    b[0] = 10.0  # recorded: keeps b = 2x
    before_replace = (b * b).sum()  # sees b = [10, 4]
    with tl.no_grad():
        b[1] = 7.0  # a replacement: raises for what saw [10, 4]
    before_second = (b * b).sum()  # sees [10, 7]
    b[0] = 1.0  # recorded: keeps [10, 7]
    before_write.backward(retain_graph=True)  # (the three share b's Mul)
    assert x.grad.tolist() == [8.0, 16.0]
    with pytest.raises(RuntimeError, match="replaced since the forward"):
        before_replace.backward(retain_graph=True)
    x.grad = None
    before_second.backward()  # it read [10, 7], kept by the second write; b0 = 10 was written (no gradient),
    # b1 = 7 was replaced under no_grad, which keeps b's history (as PyTorch): 2 * 7 * d(2x)/dx
    assert x.grad.tolist() == [0.0, 28.0]


def test_a_refused_in_place_operator_changes_nothing():
    i = tl.tensor(np.array([1, 2], dtype=np.int64))
    with pytest.raises(TypeError, match=r"\+=: the result has dtype float64, which the tensor .*int64"):
        i += 1.5
    assert i.tolist() == [1, 2] and i.dtype == np.int64
    x = tl.tensor([1.0, 2.0])
    h = x * 1.0
    with pytest.raises(ValueError, match=r"\+=: the result has shape \(2, 2\)"):
        h += tl.ones(2, 2)
    with pytest.raises(ValueError, match=r"__setitem__: a value of shape \(3,\) cannot be broadcast"):
        h[0:2] = tl.ones(3)
    with pytest.raises(TypeError, match="complex value"):
        h[0] = 1j
    assert h.tolist() == [1.0, 2.0]


def test_an_integer_tensor_takes_a_cast_value_without_a_gradient():
    i = tl.tensor(np.array([1, 2], dtype=np.int64))
    v = tl.tensor(2.7, requires_grad=True)
    i[0] = v  # truncated, as NumPy and PyTorch
    assert i.tolist() == [2, 2] and not i.requires_grad


# ------------------------------------------------- every operator and method
@pytest.mark.parametrize("symbol", ["+", "-", "*", "/", "//", "%", "**"])
def test_each_arithmetic_in_place_operator_gives_the_binary_result_in_place(symbol):
    x = tl.tensor([5.0, -3.0])
    alias = x
    exec(f"x {symbol}= 2.0")
    want = eval(f"np.array([5.0, -3.0]) {symbol} 2.0")
    assert alias is x and alias.tolist() == want.tolist()


def test_matmul_in_place_keeps_a_square_product():
    a = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    h = a * 1.0
    h @= tl.tensor([[0.0, 1.0], [1.0, 0.0]])
    assert h.tolist() == [[2.0, 1.0], [4.0, 3.0]]
    h.sum().backward()
    assert a.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("symbol,name", [("&", "__and__"), ("|", "__or__"), ("^", "__xor__"),
                                         ("<<", "__lshift__"), (">>", "__rshift__")])
def test_each_bitwise_in_place_operator_writes_the_tensor_itself(symbol, name):
    x = tl.tensor(np.array([6, 3], dtype=np.int64))
    alias = x
    exec(f"x {symbol}= tl.tensor(np.array([1, 2], dtype=np.int64))")
    want = eval(f"np.array([6, 3]) {symbol} np.array([1, 2])")
    assert alias is x and x.tolist() == want.tolist()


def test_an_in_place_operator_the_dtype_has_not_is_a_type_error():
    x = tl.tensor(np.array([0.5, 3.0]))
    with pytest.raises(TypeError):
        x &= 1
    assert x.tolist() == [0.5, 3.0]


def test_the_in_place_methods_return_the_tensor_with_pytorchs_values(backend, device):
    x = floats(backend, [1.0, -2.0, 3.0], device=device)
    assert x.add_(1.0, alpha=2.0) is x and x.tolist() == [3.0, 0.0, 5.0]
    assert x.sub_(floats(backend, [1.0, 1.0, 1.0], device=device)) is x and x.tolist() == [2.0, -1.0, 4.0]
    assert x.mul_(2.0) is x and x.div_(4.0) is x and x.tolist() == [1.0, -0.5, 2.0]
    assert x.clamp_(-0.25, 1.5) is x and x.tolist() == [1.0, -0.25, 1.5]
    assert x.copy_(floats(backend, [7.0], device=device)) is x and x.tolist() == [7.0, 7.0, 7.0]
    assert x.fill_(2.5) is x and x.tolist() == [2.5, 2.5, 2.5]
    assert x.zero_() is x and x.tolist() == [0.0, 0.0, 0.0]


def test_copy_gives_the_whole_gradient_to_its_source():
    src = tl.tensor([1.0, 2.0], requires_grad=True)
    x = tl.tensor([[5.0, 5.0], [5.0, 5.0]])
    x.copy_(src)
    x.sum().backward()
    assert src.grad.tolist() == [2.0, 2.0]


# --------------------------------------------------------------- memory
def test_a_loop_of_writes_keeps_no_old_value_per_step():
    w = tl.tensor(np.arange(1.0, 51.0), requires_grad=True)
    out = tl.zeros(50)
    for i in range(50):
        out[i] = w[i] * 2.0
    kept = [snapshot for _, snapshot in out._versions if snapshot is not None]
    assert len(kept) == 1  # the zeros the first write replaced (a leaf's consumers cannot be counted)
    out.sum().backward()
    assert w.grad.tolist() == [2.0] * 50


def test_a_write_keeps_the_old_value_while_an_op_holds_it():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2.0
    b[0] = 1.0  # nothing consumed b yet: nothing kept
    c = b * b
    b[1] = 1.0  # c holds b: its version is kept
    assert [s is not None for _, s in b._versions] == [False, True]
    c.sum().backward()
    assert x.grad.tolist() == [0.0, 16.0]


def test_a_write_inside_a_compiled_function_is_refused_while_recording():
    def f(x):
        y = x * 2.0
        y[0] = 0.0
        return y.sum()

    compiled = tl.compile(f)
    with pytest.raises(Exception, match="wrote into a tensor"):
        compiled(tl.tensor([1.0, 2.0], requires_grad=True))
