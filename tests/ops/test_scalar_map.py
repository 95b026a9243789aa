"""The scalar functions over Tensors (`backend.map/zip`, or called directly): same values
and gradients as the scalar engine gives element by element on numbers and Values."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import scalar
from torchlight.scalar import variable

# inputs inside each function's domain, away from kinks and poles
POINTS = [-1.7, -0.4, 0.3, 0.9, 2.2]
POSITIVE = [0.2, 0.7, 1.3, 2.9, 4.1]
UNARY = {
    "neg": POINTS, "relu": POINTS, "tanh": POINTS, "sigmoid": POINTS, "exp": POINTS,
    "ln": POSITIVE, "sqrt": POSITIVE, "inv": POINTS,
}
BINARY = {
    "add": (POINTS, POSITIVE), "sub": (POINTS, POSITIVE), "mul": (POINTS, POSITIVE),
    "div": (POINTS, POSITIVE), "pow": (POSITIVE, POINTS), "max": (POINTS, POSITIVE[::-1]),
}


def host(t) -> list[float]:
    return np.asarray(t.backend.to_numpy(t.data), dtype=np.float64).tolist()


def leaf(values, backend, device):
    return tl.tensor(values, backend=backend, device=device, dtype="float64", requires_grad=True)


def per_element(fn, *columns):
    """Values and gradients from the scalar engine, one element at a time."""
    values, grads = [], []
    for args in zip(*columns):
        leaves = [variable(a) for a in args]
        out = fn(*leaves)
        out.backward()
        values.append(out.data)
        grads.append([v.grad for v in leaves])
    return values, [list(g) for g in zip(*grads)]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_map_matches_the_scalar_engine(name, backend, device):
    fn, xs = getattr(scalar, name), UNARY[name]
    values, (grads,) = per_element(fn, xs)
    assert [fn(x) for x in xs] == pytest.approx(values, rel=1e-15)  # numbers in, numbers out
    x = leaf(xs, backend, device)
    out = backend.map(fn)(x)
    assert host(out) == pytest.approx(values, rel=1e-13)
    out.sum().backward()
    assert host(x.grad) == pytest.approx(grads, rel=1e-13)
    direct = fn(leaf(xs, backend, device))  # a Tensor argument runs through map
    assert isinstance(direct, tl.Tensor) and host(direct) == pytest.approx(values, rel=1e-13)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_zip_matches_the_scalar_engine(name, backend, device):
    fn, (xs, ys) = getattr(scalar, name), BINARY[name]
    values, (gx, gy) = per_element(fn, xs, ys)
    x, y = leaf(xs, backend, device), leaf(ys, backend, device)
    out = backend.zip(fn)(x, y)
    assert host(out) == pytest.approx(values, rel=1e-13)
    out.sum().backward()
    assert host(x.grad) == pytest.approx(gx, rel=1e-13)
    assert host(y.grad) == pytest.approx(gy, rel=1e-13)
    direct = fn(leaf(xs, backend, device), 2.0)  # a number beside a Tensor is broadcast
    assert host(direct) == pytest.approx([fn(a, 2.0) for a in xs], rel=1e-13)


def test_reduce_with_scalar_functions(backend, device):
    xs = [0.5, -2.0, 3.0, 1.5]
    x = leaf(xs, backend, device)
    for fn, start, ref in ((scalar.add, 0.0, sum(xs)), (scalar.max, -np.inf, max(xs))):
        array = backend.reduce(fn, start)(x.data)  # arrays in, arrays out
        assert float(backend.to_numpy(array)) == pytest.approx(ref)
    prod = backend.reduce(scalar.mul, 1.0)(x)
    prod.backward()
    _, grads = per_element(lambda a, b, c, d: a * b * c * d, *[[v] for v in xs])
    assert host(prod) == pytest.approx(np.prod(xs))
    assert host(x.grad) == pytest.approx([g[0] for g in grads])


def test_a_plain_function_of_values_is_differentiated_by_the_scalar_engine(backend, device):
    def poly(v):
        return v * v * v + 2.0 * v

    xs = [0.5, -1.0, 2.0]
    x = leaf(xs, backend, device)
    backend.map(poly)(x).sum().backward()
    assert host(x.grad) == pytest.approx([3 * a * a + 2.0 for a in xs])


def test_value_and_tensor_do_not_mix():
    t = tl.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="Value"):
        scalar.mul(variable(1.0), t)
    with pytest.raises(TypeError):
        variable(1.0) + t
