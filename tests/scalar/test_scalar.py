"""`torchlight.scalar`: the documented API, its errors, and derivatives vs central differences.

Every scalar function is checked three ways: on plain numbers against `math`,
on Values (forward equal to the number form, gradient against
`central_difference` on hypothesis-drawn inputs inside its domain), and, in
tests/ops/test_scalar_map.py, through `backend.map/zip` on Tensors.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from torchlight import scalar
from torchlight.autograd import backpropagate, central_difference, topological_sort
from torchlight.scalar import Value, constant, variable

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True)


def reals(lo: float, hi: float, *, away_from: float | None = None, gap: float = 1e-3) -> st.SearchStrategy:
    """Finite floats in [lo, hi], optionally at least `gap` away from one point (a kink or pole)."""
    s = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    return s if away_from is None else s.filter(lambda x: abs(x - away_from) >= gap)


def close(analytic: float, numeric: float, tol: float = 1e-5) -> bool:
    """Central differences (eps 1e-6, float64) agree to ~1e-6 relative; allow 1e-5."""
    return abs(analytic - numeric) <= tol * max(1.0, abs(analytic), abs(numeric))


# name -> (function, math reference, domain of each argument)
UNARY = {
    "neg": (scalar.neg, lambda x: -x, reals(-50, 50)),
    "relu": (scalar.relu, lambda x: max(x, 0.0), reals(-50, 50, away_from=0.0)),
    "tanh": (scalar.tanh, math.tanh, reals(-6, 6)),
    "sigmoid": (scalar.sigmoid, lambda x: 1 / (1 + math.exp(-x)), reals(-30, 30)),
    "exp": (scalar.exp, math.exp, reals(-20, 20)),
    "ln": (scalar.ln, math.log, reals(0.05, 1e3)),
    "sqrt": (scalar.sqrt, math.sqrt, reals(0.05, 1e3)),
    "inv": (scalar.inv, lambda x: 1 / x, reals(-20, 20, away_from=0.0, gap=0.05)),
}
BINARY = {
    "add": (scalar.add, lambda a, b: a + b, reals(-1e3, 1e3), reals(-1e3, 1e3)),
    "sub": (scalar.sub, lambda a, b: a - b, reals(-1e3, 1e3), reals(-1e3, 1e3)),
    "mul": (scalar.mul, lambda a, b: a * b, reals(-1e3, 1e3), reals(-1e3, 1e3)),
    "div": (scalar.div, lambda a, b: a / b, reals(-1e3, 1e3), reals(-20, 20, away_from=0.0, gap=0.05)),
    "pow": (scalar.pow, lambda a, b: a**b, reals(0.05, 10), reals(-3, 3)),
    "max": (scalar.max, max, reals(-50, 50), reals(-50, 50)),
}


# ------------------------------------------------------- documented API
def test_documented_examples_hold_exactly():
    assert scalar.variable(3.0).data == 3
    assert scalar.constant(5.0).data == 5
    assert scalar.value(2.0).data == 2
    assert scalar.variable(2.0).add(scalar.variable(3.0)).data == 5
    assert scalar.variable(3.0).mul(scalar.variable(4.0)).data == 12
    assert scalar.variable(10.0).div(scalar.variable(4.0)).data == 2.5
    assert scalar.variable(3.0).pow(2.0).data == 9
    assert scalar.variable(0.0 - 5.0).relu().data == 0
    assert scalar.variable(0.0).tanh().data == 0
    assert scalar.variable(0.0).exp().data == 1
    assert scalar.variable(1.0).ln().data == 0
    assert scalar.variable(9.0).sqrt().data == 3
    x = scalar.variable(2.0)
    y = scalar.variable(3.0)
    loss = x.mul(y).add(x.pow(2.0)).add(1.0)
    loss.backward()
    assert (loss.data, x.grad, y.grad) == (11, 7, 2)
    assert (scalar.data(loss), scalar.grad(x), scalar.grad(y)) == (11, 7, 2)
    leaf = scalar.variable(3.0)
    leaf.backward()
    assert leaf.grad == 1.0


def test_value_fields_and_aliases():
    v = scalar.value(2)
    assert isinstance(v, Value) and type(v.data) is float and v.grad == 0.0 and v.requires_grad
    assert v.is_leaf and v.history is None
    assert not constant(1.0).requires_grad
    assert scalar.log is scalar.ln and Value.log is Value.ln


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_number_on_either_side_is_wrapped_as_a_constant(name):
    fn = getattr(scalar, name)
    x = variable(4.0)
    for out, number_index in ((fn(x, 2.0), 1), (fn(2.0, x), 0), (getattr(x, name)(2.0), 1)):
        inputs = out.history.inputs
        assert out.history.last_fn is fn and len(inputs) == 2
        assert isinstance(inputs[number_index], Value) and not inputs[number_index].requires_grad
        assert inputs[number_index].data == 2.0 and inputs[1 - number_index] is x


def test_python_operators_match_the_functions():
    a, b = variable(1.5), variable(-2.5)
    cases = [
        (a + b, scalar.add(a, b)), (a - b, scalar.sub(a, b)), (a * b, scalar.mul(a, b)),
        (a / b, scalar.div(a, b)), (a**2.0, scalar.pow(a, 2.0)), (-a, scalar.neg(a)),
        (2.0 + a, scalar.add(2.0, a)), (2.0 - a, scalar.sub(2.0, a)), (2.0 * a, scalar.mul(2.0, a)),
        (2.0 / a, scalar.div(2.0, a)), (2.0**a, scalar.pow(2.0, a)),
    ]
    for op_result, fn_result in cases:
        assert op_result.data == fn_result.data
        assert op_result.history.last_fn is fn_result.history.last_fn
    assert sum([a, b, a]).data == 0.5


# ---------------------------------------------------------- plain numbers
@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(data=st.data())
def test_unary_on_numbers_returns_numbers(name, data):
    fn, ref, domain = UNARY[name]
    x = data.draw(domain)
    out = fn(x)
    assert type(out) is float and not isinstance(out, Value)
    assert out == pytest.approx(ref(x), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_on_numbers_returns_numbers(name, data):
    fn, ref, da, db = BINARY[name]
    a, b = data.draw(da), data.draw(db)
    out = fn(a, b)
    assert type(out) is float
    assert out == pytest.approx(ref(a, b), rel=1e-12, abs=1e-300)


def test_numbers_in_numbers_out_examples():
    assert scalar.mul(2.0, 3.0) == 6.0 and type(scalar.mul(2.0, 3.0)) is float
    assert scalar.add(2, 3) == 5
    assert scalar.exp(800.0) == math.inf  # overflow is infinity, not an exception
    assert scalar.pow(10.0, 400.0) == math.inf and scalar.pow(-10.0, 401.0) == -math.inf
    assert scalar.sigmoid(-800.0) == 0.0 and scalar.sigmoid(800.0) == 1.0


def test_scalar_functions_carry_what_map_zip_reduce_need():
    for fn in [*(f for f, *_ in UNARY.values()), *(f for f, *_ in BINARY.values())]:
        assert callable(fn.array_fn) and len(fn.partials) == fn.arity and callable(fn.vjp)
    assert (scalar.add.reduce_name, scalar.mul.reduce_name, scalar.max.reduce_name) == ("sum", "prod", "max")
    assert scalar.sub.reduce_name is None


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("make", [lambda x: x, variable], ids=["number", "Value"])
def test_bad_input_raises_naming_the_value(make):
    with pytest.raises(ValueError, match=re.escape("-2.0")):
        scalar.ln(make(-2.0))
    with pytest.raises(ValueError, match="positive.*0.0"):
        scalar.ln(make(0.0))
    with pytest.raises(ValueError, match=re.escape("-4.0")):
        scalar.sqrt(make(-4.0))
    with pytest.raises(ZeroDivisionError, match=re.escape("3.0 / 0.0")):
        scalar.div(make(3.0), make(0.0))
    with pytest.raises(ZeroDivisionError, match="0.0"):
        scalar.inv(make(0.0))
    with pytest.raises(ZeroDivisionError, match="zero to a negative power"):
        scalar.pow(make(0.0), -1.0)
    with pytest.raises(ValueError, match="fractional"):
        scalar.pow(make(-8.0), 0.5)


def test_bad_input_through_methods_and_operators():
    with pytest.raises(ValueError, match=re.escape("-1.0")):
        variable(-1.0).ln()
    with pytest.raises(ValueError, match=re.escape("-1.0")):
        variable(-1.0).sqrt()
    with pytest.raises(ZeroDivisionError, match=re.escape("1.0 / 0.0")):
        variable(1.0) / 0.0
    with pytest.raises(ZeroDivisionError):
        1.0 / variable(0.0)
    with pytest.raises(ZeroDivisionError):
        variable(1.0).div(constant(0.0))


@pytest.mark.parametrize("bad", ["2.0", None, [1.0], True, 1j], ids=repr)
def test_non_numeric_operand_raises_type_error(bad):
    x = variable(1.0)
    calls = [
        lambda: scalar.add(x, bad), lambda: scalar.mul(bad, x), lambda: scalar.exp(bad),
        lambda: scalar.add(1.0, bad), lambda: x + bad, lambda: bad * x, lambda: x.pow(bad),
        lambda: x.div(bad), lambda: variable(bad), lambda: constant(bad),
    ]
    for call in calls:
        with pytest.raises(TypeError, match=re.escape(type(bad).__name__)):
            call()


def test_wrong_number_of_arguments():
    with pytest.raises(TypeError, match="takes 2"):
        scalar.add(1.0)


# ------------------------------------------------ derivatives vs numerics
def value_grads(fn, *xs):
    leaves = [variable(x) for x in xs]
    out = fn(*leaves)
    out.backward()
    return out, [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(data=st.data())
def test_unary_derivative_matches_central_difference(name, data):
    fn, _, domain = UNARY[name]
    x = data.draw(domain)
    out, (g,) = value_grads(fn, x)
    assert out.data == fn(x)  # the Value forward is the number forward
    assert close(g, central_difference(fn, x))


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_derivatives_match_central_difference(name, data):
    fn, _, da, db = BINARY[name]
    a, b = data.draw(da), data.draw(db)
    if name == "max":
        assume(abs(a - b) > 1e-3)  # the kink: ties send the gradient to `a`, tested below
    out, grads = value_grads(fn, a, b)
    assert out.data == fn(a, b)
    for arg, g in enumerate(grads):
        assert close(g, central_difference(fn, a, b, arg=arg))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_a_constant_side_gives_the_same_gradient(name):
    fn, _, da, db = BINARY[name]
    a, b = 1.7, 0.6
    _, (ga, gb) = value_grads(fn, a, b)
    x = variable(a)
    fn(x, b).backward()
    assert x.grad == ga
    y = variable(b)
    fn(a, y).backward()
    assert y.grad == gb


def test_conventions_at_kinks_and_poles():
    assert value_grads(scalar.relu, 0.0)[1] == [0.0]  # relu'(0) = 0, as in PyTorch
    assert value_grads(scalar.max, 2.0, 2.0)[1] == [1.0, 0.0]  # a tie goes to the first argument
    assert value_grads(scalar.sqrt, 0.0)[1] == [math.inf]  # vertical slope at 0, no exception
    assert value_grads(lambda x: x**0.5, 0.0)[1] == [math.inf]
    assert value_grads(lambda x: x**0.0, 0.0)[1] == [0.0]  # d/dx x^0 = 0 everywhere (PyTorch)
    assert value_grads(lambda x: scalar.pow(0.0, x), 2.0)[1] == [0.0]


# ------------------------------------------------------ expression trees
LEAVES = st.sampled_from(["x", "y", 0.5, -1.5, 2.0])
UNARY_NODES = ["neg", "relu", "tanh", "sigmoid", "exp", "ln", "sqrt", "inv", "square", "cube"]
BINARY_NODES = ["add", "sub", "mul", "div", "max"]


def trees(depth: int) -> st.SearchStrategy:
    """Expression trees of at most `depth` levels of ops over x, y and constants."""
    if depth == 0:
        return LEAVES
    sub = trees(depth - 1)
    return st.one_of(
        LEAVES,
        st.tuples(st.sampled_from(UNARY_NODES), sub),
        st.tuples(st.sampled_from(BINARY_NODES), sub, sub),
    )


SINGULAR_AT_ZERO = ("relu", "max", "sqrt", "ln", "div", "inv")  # of the last argument (of a - b for max)


class Kink(Exception):
    """The tree passes near a kink or pole, where central differences lie."""


def evaluate(tree, x, y):
    """The tree on numbers or on Values: the scalar functions serve both."""
    if tree == "x" or tree == "y":
        return x if tree == "x" else y
    if not isinstance(tree, tuple):
        return tree
    op, *args = tree
    vals = [evaluate(a, x, y) for a in args]
    if op == "square":
        return vals[0] ** 2.0
    if op == "cube":
        return scalar.pow(vals[0], 3.0)
    if op in SINGULAR_AT_ZERO:
        gap = float(vals[0]) - float(vals[1]) if op == "max" else float(vals[-1])
        if abs(gap) < 1e-3:
            raise Kink
    return getattr(scalar, op)(*vals)


@settings(SETTINGS, max_examples=200)
@given(tree=trees(6), x=reals(-2, 2), y=reals(-2, 2))
def test_random_expression_trees_match_central_differences(tree, x, y):
    def number_fn(a, b):
        return evaluate(tree, a, b)

    try:
        reference = number_fn(x, y)
        for arg in (0, 1):  # the whole stencil must stay inside the domain and off the kinks
            for step in (-1e-6, 1e-6):
                number_fn(x + step * (arg == 0), y + step * (arg == 1))
    except (ValueError, ZeroDivisionError, Kink):
        assume(False)
    assume(math.isfinite(reference) and abs(reference) < 1e6)
    vx, vy = variable(x), variable(y)
    out = evaluate(tree, vx, vy)
    if not isinstance(out, Value):  # a tree of constants only
        return
    assert out.data == reference
    out.backward()
    for leaf, arg in ((vx, 0), (vy, 1)):
        numeric = central_difference(number_fn, x, y, arg=arg)
        assume(abs(numeric) < 1e6)
        assert close(leaf.grad, numeric, tol=1e-4), (tree, arg, leaf.grad, numeric)


# ------------------------------------------------- backward and zero_grad
def test_backward_twice_gives_the_same_gradients():
    x, y = variable(0.3), variable(-1.2)
    out = (x * y + x.tanh()) * x
    out.backward()
    first = (x.grad, y.grad, out.grad)
    out.backward()
    assert (x.grad, y.grad, out.grad) == first
    assert first[2] == 1.0


def test_backward_clears_a_shared_leaf_and_inner_nodes():
    x = variable(2.0)
    h = x * 3.0
    first = h * h
    first.backward()
    assert x.grad == 2 * 9 * 2.0 and h.grad == 2 * 6.0  # inner nodes keep their gradient
    second = x + 1.0
    second.backward()
    assert x.grad == 1.0  # only d second / dx: the old gradient was cleared
    assert h.grad == 12.0  # not in the second graph: untouched


def test_engine_backpropagate_accumulates_but_backward_does_not():
    x = variable(2.0)
    y = x * x
    backpropagate(y, 1.0)
    backpropagate(y, 1.0)
    assert x.grad == 8.0
    y.backward()
    assert x.grad == 4.0


def test_backpropagate_on_another_thread_adds_while_backward_replaces():
    import threading

    x = variable(2.0)
    y = x * x
    y.backward()
    results = []

    def accumulate_twice():
        backpropagate(y, 1.0)
        backpropagate(y, 1.0)
        results.append(x.grad)

    worker = threading.Thread(target=accumulate_twice)
    worker.start()
    worker.join()
    assert results == [4.0 + 8.0]
    y.backward()
    assert x.grad == 4.0


def test_backward_gives_the_engines_gradients_on_every_node():
    """`backward` propagates in place; the shared engine walk is the reference."""
    x, w, c = variable(0.7), variable(-1.3), constant(2.5)
    h = (x * w + c).tanh()
    out = h * h / (x - c) + w.exp() * c - h.sigmoid() + x.pow(3.0) + h
    nodes = topological_sort(out)
    out.backward()
    by_backward = [v.grad for v in nodes]
    scalar.zero_grad(out)
    backpropagate(out, 1.0)
    assert [v.grad for v in nodes] == by_backward
    assert c.grad == 0.0 and out.grad == 1.0 and len(set(by_backward)) > 3


def test_a_derivative_that_raises_leaves_the_gradients_cleared():
    def broken_vjp(d, out, a):
        raise ArithmeticError("broken derivative")

    broken = scalar.ScalarFunction("broken", lambda a: 2.0 * a, None, (lambda a: 2.0,), broken_vjp)
    x = variable(1.5)
    y = broken(x * x) + x
    x.grad = 7.0
    with pytest.raises(ArithmeticError, match="broken derivative"):
        y.backward()
    assert [v.grad for v in topological_sort(y)] == [0.0] * 4


def test_zero_grad_resets_every_node_of_the_graph():
    x, w = variable(1.5), variable(-0.5)
    h = (x * w).tanh()
    out = h * h + w
    out.backward()
    assert x.grad != 0 and w.grad != 0 and h.grad != 0
    scalar.zero_grad(out)
    assert [v.grad for v in (x, w, h, out)] == [0.0, 0.0, 0.0, 0.0]
    assert all(v.grad == 0.0 for v in topological_sort(out))
    out.backward()
    g = x.grad
    out.zero_grad()
    assert x.grad == 0.0 and g != 0.0


def test_constants_get_no_gradient():
    x, c = variable(2.0), constant(5.0)
    out = x * c + c * c
    out.backward()
    assert x.grad == 5.0 and c.grad == 0.0
    assert all(v.requires_grad for v in topological_sort(out))
    assert c not in topological_sort(out)
    only_constants = c * 2.0 + 1.0
    assert not only_constants.requires_grad and only_constants.is_leaf
    only_constants.backward()
    assert only_constants.grad == 0.0 and c.grad == 0.0


def test_a_node_used_twice_sums_its_gradients():
    x = variable(3.0)
    out = x * x + x
    out.backward()
    assert x.grad == 7.0


def test_long_chain_backpropagates_without_recursion_error():
    x = variable(1.0)
    y = x
    for _ in range(100_000):
        y = y + x
    y.backward()
    assert y.data == 100_001.0 and x.grad == 100_001.0
    z = variable(0.5)  # a chain of unary ops: every node has one parent
    t = z
    for _ in range(100_000):
        t = -t
    t.backward()
    assert z.grad == 1.0
    del y, t  # freeing a 100,000-deep chain must not overflow the C stack either


def test_a_scalar_function_takes_any_tensor_classes_together_and_names_a_mix_with_values():
    import torchlight as tl

    p, t = tl.nn.Parameter(tl.ones(2)), tl.tensor([2.0, 3.0])
    assert scalar.mul(t, p).tolist() == [2.0, 3.0]
    for args in ((scalar.variable(1.0), t), (t, scalar.variable(1.0))):
        with pytest.raises(TypeError, match="cannot mix a Value and a Tensor"):
            scalar.mul(*args)
