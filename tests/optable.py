"""The table of built-in ops the unit tests check: how to draw inputs, call, and compute a reference.

Each `Op` draws its input shapes (and any argument: a dim, a permutation, an
index) with hypothesis, calls the Tensor API (or a Function directly, for
the `*Back` helpers), and says what the float64 NumPy reference is. Input
values come from a NumPy generator inside a per-input domain that keeps them
away from kinks, poles and ties (see `values`). `gradgrad` is None when the
op is checked to second order, else the reason it is exempt.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torchlight as tl
from torchlight import scalar
from torchlight.autograd import Function
from torchlight.autograd import functions as F

MAX_SIDE = 3


def shapes(min_dims: int = 0, max_dims: int = 3) -> st.SearchStrategy:
    """Shapes with sides 1..3 (0-d and size-1 included)."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=MAX_SIDE)


def values(rng: np.random.Generator, shape: tuple, domain: str) -> np.ndarray:
    """float64 values of `shape` in a domain that avoids the op's kinks and poles.

    real: [-2, 2]; positive: [0.5, 2]; nonzero: |x| in [0.3, 2] (relu, abs,
    1/x); distinct: spaced >= 0.2 apart (max without ties); unit: (0.1, 0.9).
    """
    n = math.prod(shape)
    if domain == "real":
        v = rng.uniform(-2.0, 2.0, n)
    elif domain == "positive":
        v = rng.uniform(0.5, 2.0, n)
    elif domain == "nonzero":
        v = rng.choice([-1.0, 1.0], n) * rng.uniform(0.3, 2.0, n)
    elif domain == "distinct":
        v = (rng.permutation(n) - n / 2) * 0.3 + rng.uniform(-0.05, 0.05, n)
    elif domain == "unit":
        v = rng.uniform(0.1, 0.9, n)
    else:
        raise ValueError(domain)
    return v.reshape(shape)


def lay_out(v: np.ndarray, layout: str) -> np.ndarray:
    """`v`'s values in a fresh array: contiguous, a transposed view, or a strided view."""
    if layout == "transposed" and v.ndim >= 2:
        return np.ascontiguousarray(v.T).T
    if layout in ("transposed", "strided") and v.ndim >= 1:
        buf = np.full(v.shape[:-1] + (2 * v.shape[-1],), np.nan, dtype=v.dtype)
        buf[..., ::2] = v
        return buf[..., ::2]
    return np.array(v)


def other_backend(name: str) -> str:
    return "array_api_strict" if name == "numpy" else "numpy"


def other_device(t: tl.Tensor) -> Any:
    """A second device of `t`'s backend (its own device where it has only one)."""
    if not t.backend.multi_device:
        return t.device
    devices = t.backend.xp.__array_namespace_info__().devices()
    return next(d for d in devices if d != t.device)


@dataclass(frozen=True, repr=False)
class Op:
    """One row: `draw(data) -> (shapes, params)`, `fn(params, *tensors)`, `ref(params, *arrays)`."""

    name: str
    fn: Callable
    ref: Callable
    draw: Callable
    domains: tuple[str, ...] = ("real",)
    gradgrad: str | None = None
    tol: dict = field(default_factory=dict)
    #: inputs whose gradient is None by design (a derivative that is 0 almost everywhere)
    no_grad_inputs: tuple[int, ...] = ()

    def __repr__(self) -> str:
        return self.name


# ------------------------------------------------------------------ draws
def one(min_dims: int = 0, max_dims: int = 3) -> Callable:
    return lambda data: ([data.draw(shapes(min_dims, max_dims))], None)


def same_pair(data: Any) -> tuple:
    s = data.draw(shapes())
    return [s, s], None


def broadcast_pair(data: Any) -> tuple:
    r = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=MAX_SIDE))
    return list(r.input_shapes), None


def dims_keepdim(data: Any) -> tuple:
    s = data.draw(shapes())
    n = len(s)
    dim = None
    if n:
        dim = data.draw(st.none() | st.integers(-n, n - 1)
                        | st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True).map(tuple))
    return [s], (dim, data.draw(st.booleans()))


def one_dim(data: Any) -> tuple:
    s = data.draw(shapes(min_dims=1))
    return [s], data.draw(st.integers(-len(s), len(s) - 1))


def matmul_pair(data: Any) -> tuple:
    b, m, k, n = (data.draw(st.integers(1, MAX_SIDE)) for _ in range(4))
    pattern = data.draw(st.sampled_from([
        ((k,), (k,)), ((m, k), (k,)), ((k,), (k, n)), ((m, k), (k, n)),
        ((b, m, k), (k, n)), ((1, m, k), (b, k, n)), ((b, m, k), (k,)), ((k,), (b, k, n)),
    ]))
    return list(pattern), None


def permutation(data: Any) -> tuple:
    s = data.draw(shapes())
    return [s], tuple(data.draw(st.permutations(range(len(s)))))


def transpose_dims(data: Any) -> tuple:
    s = data.draw(shapes(min_dims=1))
    dim = st.integers(-len(s), len(s) - 1)
    return [s], (data.draw(dim), data.draw(dim))


def reshape_target(data: Any) -> tuple:
    s = data.draw(shapes())
    size = math.prod(s)
    target = data.draw(st.sampled_from([(size,), (-1,), (1, size), (size, 1, 1), tuple(reversed(s)), (-1, 1)]))
    return [s], target


def expand_target(data: Any) -> tuple:
    s = data.draw(shapes())
    lead = data.draw(st.lists(st.integers(1, MAX_SIDE), max_size=2))
    body = [data.draw(st.integers(1, MAX_SIDE)) if n == 1 else data.draw(st.sampled_from([n, -1])) for n in s]
    return [s], tuple(lead) + tuple(body)


def sum_to_pair(data: Any) -> tuple:
    [small], target = expand_target(data)
    big = tuple(n if n != -1 else small[i - len(target) + len(small)] for i, n in enumerate(target))
    return [big], small


def broadcast_target(data: Any) -> tuple:
    [big], small = sum_to_pair(data)
    return [small], big


def basic_key(data: Any) -> tuple:
    s = data.draw(shapes(min_dims=1))
    key = tuple(data.draw(st.one_of(st.slices(n), st.integers(-n, n - 1))) for n in s)
    return [s], key


def negative_step_key(data: Any) -> tuple:
    s = data.draw(shapes(min_dims=1))
    key = tuple(slice(None, None, data.draw(st.sampled_from([-1, -2]))) for _ in s)
    return [s], key


def int_array_key(data: Any) -> tuple:
    """An integer array (repeats and negative indices likely) on axis 0, axis 1 or as a 2-d array."""
    s = data.draw(shapes(min_dims=1))
    form = data.draw(st.sampled_from(["axis0", "axis1", "2d"] if len(s) >= 2 else ["axis0", "2d"]))
    axis = 1 if form == "axis1" else 0
    n = s[axis]
    idx_shape = (data.draw(st.integers(1, 4)),) if form != "2d" else (2, data.draw(st.integers(1, 3)))
    idx = np.asarray(data.draw(st.lists(st.integers(-n, n - 1), min_size=math.prod(idx_shape),
                                        max_size=math.prod(idx_shape)))).reshape(idx_shape)
    return [s], ((slice(None), idx) if form == "axis1" else idx)


def mask_key(data: Any) -> tuple:
    """A boolean mask over all dims or over the leading dim."""
    s = data.draw(shapes(min_dims=1))
    mshape = s if data.draw(st.booleans()) else s[:1]
    flags = data.draw(st.lists(st.booleans(), min_size=math.prod(mshape), max_size=math.prod(mshape)))
    return [s], np.asarray(flags, dtype=bool).reshape(mshape)


def where_pair(data: Any) -> tuple:
    [sa, sb], _ = broadcast_pair(data)
    out = np.broadcast_shapes(sa, sb)
    flags = data.draw(st.lists(st.booleans(), min_size=math.prod(out), max_size=math.prod(out)))
    return [sa, sb], np.asarray(flags, dtype=bool).reshape(out)


def gather_back(data: Any) -> tuple:
    [s], key = data.draw(st.sampled_from([int_array_key, mask_key, negative_step_key]).map(lambda f: f(data)))
    out_shape = np.zeros(s)[key].shape
    return [out_shape], (s, key)


# --------------------------------------------------------------- references
def np_softmax(dim: int, x: np.ndarray) -> np.ndarray:
    if x.ndim == 0:
        return np.ones_like(x)
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def np_sum(p: tuple, x: np.ndarray) -> np.ndarray:
    return np.sum(x, axis=p[0], keepdims=p[1])


def np_expand(target: tuple, x: np.ndarray) -> np.ndarray:
    shape = tuple(n if n != -1 else x.shape[i - len(target) + x.ndim] for i, n in enumerate(target))
    return np.broadcast_to(x, shape)


def np_sum_to(shape: tuple, x: np.ndarray) -> np.ndarray:
    lead = x.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1)
    return np.sum(x, axis=dims, keepdims=True).reshape(shape)


def np_gather_back(p: tuple, g: np.ndarray) -> np.ndarray:
    shape, key = p
    out = np.zeros(shape)
    np.add.at(out, key, g)
    return out


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def tensor_of(like: tl.Tensor, host: np.ndarray) -> tl.Tensor:
    return tl.tensor(host, backend=like.backend, device=like.device)


class Square(Function):
    """The custom Function of the autograd API reference, verbatim."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.backend.zip(scalar.mul)(a, a)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return a.backend.zip(scalar.mul)(a, g) * 2


PLAIN = "map/zip over a plain Python function: its derivative comes from the scalar engine one element " \
        "at a time and has no differentiable form, so second derivatives raise NotImplementedError (tested)"


def plain_square_plus_one(v: Any) -> Any:
    return v * v + 1.0


def plain_product(u: Any, v: Any) -> Any:
    return u * v


def unary(name: str, fn: Callable, ref: Callable, domain: str = "real", **kw: Any) -> Op:
    return Op(name, lambda p, x: fn(x), lambda p, x: ref(x), one(), (domain,), **kw)


def binary(name: str, fn: Callable, ref: Callable, domains: tuple = ("real", "real"), **kw: Any) -> Op:
    return Op(name, lambda p, a, b: fn(a, b), lambda p, a, b: ref(a, b), broadcast_pair, domains, **kw)


OPS: list[Op] = [
    # elementwise, unary
    unary("neg", lambda x: -x, np.negative),
    unary("neg_method", lambda x: x.neg(), np.negative),
    unary("abs", lambda x: x.abs(), np.abs, "nonzero"),
    unary("abs_builtin", abs, np.abs, "nonzero"),
    unary("exp", lambda x: x.exp(), np.exp),
    unary("log", lambda x: x.log(), np.log, "positive"),
    unary("sigmoid", lambda x: x.sigmoid(), sigmoid),
    unary("relu", lambda x: x.relu(), lambda x: np.maximum(x, 0.0), "nonzero"),
    unary("tanh", lambda x: x.tanh(), np.tanh),
    unary("sqrt", lambda x: x.sqrt(), np.sqrt, "positive"),
    unary("inv", lambda x: x.inv(), lambda x: 1.0 / x, "nonzero"),
    unary("pow_2", lambda x: x ** 2, lambda x: x ** 2),
    unary("pow_3", lambda x: x ** 3, lambda x: x ** 3),
    unary("pow_0", lambda x: x ** 0, lambda x: x ** 0),
    unary("pow_1", lambda x: x ** 1, lambda x: x ** 1),
    unary("pow_half", lambda x: x ** 0.5, np.sqrt, "positive"),
    unary("pow_neg", lambda x: x ** -1.5, lambda x: x ** -1.5, "positive"),
    unary("rpow", lambda x: 2.0 ** x, lambda x: 2.0 ** x),
    unary("add_scalar", lambda x: x + 2.5, lambda x: x + 2.5),
    unary("radd_scalar", lambda x: 2.5 + x, lambda x: 2.5 + x),
    unary("sub_scalar", lambda x: x - 2.5, lambda x: x - 2.5),
    unary("rsub_scalar", lambda x: 2.5 - x, lambda x: 2.5 - x),
    unary("mul_scalar", lambda x: x * -1.5, lambda x: x * -1.5),
    unary("rmul_scalar", lambda x: -1.5 * x, lambda x: -1.5 * x),
    unary("div_scalar", lambda x: x / 4.0, lambda x: x / 4.0),
    unary("rdiv_scalar", lambda x: 3.0 / x, lambda x: 3.0 / x, "nonzero"),
    unary("clone", lambda x: x.clone(), np.copy),
    unary("astype_same", lambda x: x.astype(x.dtype), np.copy),
    unary("astype_float32_and_back", lambda x: x.astype("float32").astype(x.dtype),
          lambda x: x.astype(np.float32).astype(np.float64), tol={"eps": 1e-3, "atol": 1e-3, "rtol": 1e-3}),
    unary("to_other_backend", lambda x: x.to(backend=other_backend(x.backend.name)) * 2.0, lambda x: x * 2.0),
    unary("to_other_device", lambda x: x.to(device=other_device(x)) * 2.0, lambda x: x * 2.0),
    unary("map_exp", lambda x: x.backend.map(scalar.exp)(x), np.exp),
    unary("map_tanh", lambda x: x.backend.map(scalar.tanh)(x), np.tanh),
    unary("map_plain", lambda x: x.backend.map(plain_square_plus_one)(x), lambda x: x * x + 1.0, gradgrad=PLAIN),
    unary("square_function", lambda x: Square.apply(x), lambda x: x * x),
    # elementwise, binary (broadcast pairs)
    binary("add", lambda a, b: a + b, np.add),
    binary("sub", lambda a, b: a - b, np.subtract),
    binary("mul", lambda a, b: a * b, np.multiply),
    binary("div", lambda a, b: a / b, np.divide, ("real", "nonzero")),
    binary("pow_tensor", lambda a, b: a ** b, np.power, ("positive", "real")),
    binary("zip_mul", lambda a, b: a.backend.zip(scalar.mul)(a, b), np.multiply),
    binary("zip_div", lambda a, b: a.backend.zip(scalar.div)(a, b), np.divide, ("real", "nonzero")),
    binary("zip_plain", lambda a, b: a.backend.zip(plain_product)(a, b), np.multiply, gradgrad=PLAIN),
    Op("matmul", lambda p, a, b: a @ b, lambda p, a, b: a @ b, matmul_pair, ("real", "real")),
    Op("mse_loss", lambda p, a, b: a.mse_loss(b), lambda p, a, b: np.mean((a - b) ** 2), same_pair,
       ("real", "real")),
    Op("where", lambda p, a, b: F.Where.apply(tensor_of(a, p), a, b), lambda p, a, b: np.where(p, a, b),
       where_pair, ("real", "real")),
    # reductions
    Op("sum", lambda p, x: x.sum(*p), np_sum, dims_keepdim),
    Op("sum_all", lambda p, x: x.sum(), lambda p, x: np.sum(x), one()),
    Op("mean", lambda p, x: x.mean(*p), lambda p, x: np.mean(x, axis=p[0], keepdims=p[1]), dims_keepdim),
    Op("max", lambda p, x: x.max(*p), lambda p, x: np.max(x, axis=p[0], keepdims=p[1]), dims_keepdim,
       ("distinct",)),
    Op("softmax", lambda p, x: x.softmax(p), np_softmax, one_dim),
    Op("log_softmax", lambda p, x: x.log_softmax(p), lambda p, x: np.log(np_softmax(p, x)), one_dim),
    # shapes
    Op("permute", lambda p, x: x.permute(*p), lambda p, x: np.transpose(x, p), permutation),
    Op("transpose", lambda p, x: x.transpose(*p), lambda p, x: np.swapaxes(x, *p), transpose_dims),
    unary("T", lambda x: x.T, lambda x: x.T),
    Op("mT", lambda p, x: x.mT, lambda p, x: np.swapaxes(x, -1, -2), one(min_dims=2)),
    Op("reshape", lambda p, x: x.reshape(p), lambda p, x: x.reshape(p), reshape_target),
    Op("view", lambda p, x: x.view(*p), lambda p, x: x.reshape(p), reshape_target),
    Op("expand", lambda p, x: x.expand(*p), np_expand, expand_target),
    Op("broadcast_to", lambda p, x: x.broadcast_to(p), lambda p, x: np.broadcast_to(x, p), broadcast_target),
    Op("sum_to", lambda p, x: F.SumTo.apply(x, p), np_sum_to, sum_to_pair),
    # indexing
    Op("getitem_basic", lambda p, x: x[p], lambda p, x: x[p], basic_key),
    Op("getitem_negative_step", lambda p, x: x[p], lambda p, x: x[p], negative_step_key),
    Op("getitem_int_array", lambda p, x: x[p], lambda p, x: x[p], int_array_key),
    Op("getitem_mask", lambda p, x: x[p], lambda p, x: x[p], mask_key),
    Op("gather_back", lambda p, g: F.GatherBack.apply(g, p[0], F.index_key(p[1], g)), np_gather_back, gather_back),
    # the *Back Functions (the differentiable backward formulas), called directly
    Op("relu_back", lambda p, a, g: F.ReluBack.apply(a, g), lambda p, a, g: np.where(a > 0, g, 0.0), same_pair,
       ("nonzero", "real")),
    Op("log_back", lambda p, a, g: F.LogBack.apply(a, g), lambda p, a, g: g / a, same_pair, ("positive", "real")),
    Op("inv_back", lambda p, a, g: F.InvBack.apply(a, g), lambda p, a, g: -g / a ** 2, same_pair,
       ("nonzero", "real")),
    Op("sigmoid_back", lambda p, y, g: F.SigmoidBack.apply(y, g), lambda p, y, g: g * y * (1 - y), same_pair,
       ("unit", "real")),
    Op("tanh_back", lambda p, y, g: F.TanhBack.apply(y, g), lambda p, y, g: g * (1 - y * y), same_pair,
       ("real", "real")),
]

#: every Function of the core that the table must exercise (forward or in a create_graph backward)
CORE_FUNCTIONS = (
    "Add", "Sub", "Mul", "Div", "Neg", "Pow", "MatMul", "Sum", "SumTo", "Max", "Map", "Zip", "Exp", "Log",
    "LogBack", "Inv", "InvBack", "Sqrt", "Sigmoid", "SigmoidBack", "Tanh", "TanhBack", "ReLU", "ReluBack",
    "Abs", "Where", "Softmax", "LogSoftmax", "Permute", "Reshape", "BroadcastView", "Gather", "GatherBack",
    "Clone", "AsType", "To",
)
