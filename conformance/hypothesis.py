"""The op database's hypothesis layer: shapes and arguments drawn for the property tests of tests/test_ops.py.

The database (`conformance.ops`) fixes its cases by hand; this layer draws
them. Each `Op` names its database entry (`entry`), draws its input shapes
(and any argument: a dim, a permutation, an index) with hypothesis, and
takes the call and the float64 NumPy reference from that entry (`from_entry`:
the drawn argument becomes the entry's kwargs), so an op is described in one
place; an `Op` whose call differs from its entry's (a draw the entry has no
kwarg for, a key passed as is) says so with its own `fn`/`ref`. Input values
come from a NumPy generator inside a per-input domain that keeps them away
from kinks, poles and ties (see `values`). `gradgrad` is None when the op is
checked to second order, else the reason it is exempt. `NO_ENTRY` lists the
ops with no database entry, and why.

Example:
    >>> from conformance.hypothesis import OPS
    >>> [(op.name, op.entry) for op in OPS if op.name.startswith("pow_")][:2]
    [('pow_2', '__pow__'), ('pow_3', '__pow__')]
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
from conformance import database
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
        return t._device
    devices = t.backend.xp.__array_namespace_info__().devices()
    return next(d for d in devices if d != t._device)


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
    #: the name of the database entry of the same op (None: see NO_ENTRY)
    entry: str | None = None

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


# ------------------------------------------------------------ the table
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


def no_args(params: Any) -> dict:
    return {}


def from_entry(name: str, entry: str, draw: Callable | None = None, domains: tuple[str, ...] = ("real",),
               args: Callable[[Any], dict] = no_args, fn: Callable | None = None, **kw: Any) -> Op:
    """The op of database entry `entry`: its call and reference with kwargs `args(params)` of the drawn
    params (`fn`: a call of its own, where the unit test calls the op differently)."""
    info = database.get(entry)
    return Op(name, fn or (lambda p, *xs: info.call(*xs, **args(p))), lambda p, *xs: info.reference(*xs, **args(p)),
              draw or one(), domains, entry=entry, **kw)


def number(value: float) -> Callable[[Any], dict]:
    return lambda p: {"number": value}


def power(value: float) -> Callable[[Any], dict]:
    return lambda p: {"p": value}


def kwarg(key: str) -> Callable[[Any], dict]:
    """The drawn params as the entry's kwarg `key`."""
    return lambda p: {key: p}


def dim_keepdim(p: tuple) -> dict:
    return {"dim": p[0], "keepdim": p[1]}


def own(name: str, fn: Callable, ref: Callable, entry: str | None, draw: Callable | None = None,
        domains: tuple[str, ...] = ("real",), **kw: Any) -> Op:
    """An op whose call and reference differ from its entry's (or that has none): `fn(x)`, `ref(x)` unless drawn."""
    return Op(name, lambda p, *xs: fn(*xs), lambda p, *xs: ref(*xs), draw or one(), domains, entry=entry, **kw)


def key_op(name: str, draw: Callable) -> Op:
    """`x[key]` with the drawn key passed as is (NumPy arrays included); the reference is the entry's."""
    return from_entry(name, "__getitem__", draw, args=kwarg("key"), fn=lambda p, x: x[p])


PAIR = ("real", "real")
OPS: list[Op] = [
    # elementwise, unary
    from_entry("neg", "__neg__"),
    from_entry("neg_method", "neg"),
    from_entry("abs", "abs", domains=("nonzero",)),
    from_entry("abs_builtin", "__abs__", domains=("nonzero",)),
    from_entry("exp", "exp"),
    from_entry("log", "log", domains=("positive",)),
    from_entry("sigmoid", "sigmoid"),
    from_entry("relu", "relu", domains=("nonzero",)),
    from_entry("tanh", "tanh"),
    from_entry("sqrt", "sqrt", domains=("positive",)),
    from_entry("inv", "inv", domains=("nonzero",)),
    from_entry("pow_2", "__pow__", args=power(2)),
    from_entry("pow_3", "__pow__", args=power(3)),
    from_entry("pow_0", "__pow__", args=power(0)),
    from_entry("pow_1", "__pow__", args=power(1)),
    from_entry("pow_half", "__pow__", domains=("positive",), args=power(0.5)),
    from_entry("pow_neg", "__pow__", domains=("positive",), args=power(-1.5)),
    from_entry("rpow", "__rpow__", args=lambda p: {"base": 2.0}),
    from_entry("add_scalar", "__add__", args=number(2.5)),
    from_entry("radd_scalar", "__radd__", args=number(2.5)),
    from_entry("sub_scalar", "__sub__", args=number(2.5)),
    from_entry("rsub_scalar", "__rsub__", args=number(2.5)),
    from_entry("mul_scalar", "__mul__", args=number(-1.5)),
    from_entry("rmul_scalar", "__rmul__", args=number(-1.5)),
    from_entry("div_scalar", "__truediv__", args=number(4.0)),
    from_entry("rdiv_scalar", "__rtruediv__", domains=("nonzero",), args=number(3.0)),
    from_entry("clone", "clone"),
    own("astype_same", lambda x: x.astype(x.dtype), np.copy, "astype"),
    own("astype_float32_and_back", lambda x: x.astype("float32").astype(x.dtype),
        lambda x: x.astype(np.float32).astype(np.float64), "astype", tol={"eps": 1e-3, "atol": 1e-3, "rtol": 1e-3}),
    own("to_other_backend", lambda x: x.to(backend=other_backend(x.backend.name)) * 2.0, lambda x: x * 2.0, "to"),
    own("to_other_device", lambda x: x.to(device=other_device(x)) * 2.0, lambda x: x * 2.0, "to"),
    from_entry("map_exp", "map_exp"),
    from_entry("map_tanh", "map_tanh"),
    own("map_plain", lambda x: x.backend.map(plain_square_plus_one)(x), lambda x: x * x + 1.0, "map_cube_plus",
        gradgrad=PLAIN),
    own("square_function", lambda x: Square.apply(x), lambda x: x * x, None),
    # elementwise, binary (broadcast pairs)
    from_entry("add", "__add__", broadcast_pair, PAIR),
    from_entry("sub", "__sub__", broadcast_pair, PAIR),
    from_entry("mul", "__mul__", broadcast_pair, PAIR),
    from_entry("div", "__truediv__", broadcast_pair, ("real", "nonzero")),
    from_entry("pow_tensor", "__pow__", broadcast_pair, ("positive", "real")),
    from_entry("zip_mul", "zip_mul", broadcast_pair, PAIR),
    from_entry("zip_div", "zip_div", broadcast_pair, ("real", "nonzero")),
    own("zip_plain", lambda a, b: a.backend.zip(plain_product)(a, b), np.multiply, None, broadcast_pair, PAIR,
        gradgrad=PLAIN),
    from_entry("matmul", "__matmul__", matmul_pair, PAIR),
    from_entry("mse_loss", "mse_loss", same_pair, PAIR),
    from_entry("where", "Where", where_pair, PAIR, args=kwarg("cond")),
    # reductions
    from_entry("sum", "sum", dims_keepdim, args=dim_keepdim),
    from_entry("sum_all", "sum"),
    from_entry("mean", "mean", dims_keepdim, args=dim_keepdim),
    from_entry("max", "max", dims_keepdim, ("distinct",), args=dim_keepdim),
    from_entry("softmax", "softmax", one_dim, args=kwarg("dim")),
    from_entry("log_softmax", "log_softmax", one_dim, args=kwarg("dim")),
    # shapes
    from_entry("permute", "permute", permutation, args=kwarg("dims")),
    from_entry("transpose", "transpose", transpose_dims, args=kwarg("dims")),
    from_entry("T", "T"),
    from_entry("mT", "mT", one(min_dims=2)),
    from_entry("reshape", "reshape", reshape_target, args=kwarg("shape")),
    from_entry("view", "view", reshape_target, args=kwarg("shape")),
    from_entry("expand", "expand", expand_target, args=kwarg("shape")),
    from_entry("broadcast_to", "broadcast_to", broadcast_target, args=kwarg("shape")),
    from_entry("sum_to", "SumTo", sum_to_pair, args=kwarg("shape")),
    # indexing
    key_op("getitem_basic", basic_key),
    key_op("getitem_negative_step", negative_step_key),
    key_op("getitem_int_array", int_array_key),
    key_op("getitem_mask", mask_key),
    from_entry("gather_back", "GatherBack", gather_back, args=lambda p: {"shape": p[0], "key": p[1]},
               fn=lambda p, g: F.GatherBack.apply(g, p[0], F.index_key(p[1], g))),
    # the *Back Functions (the differentiable backward formulas), called directly
    from_entry("relu_back", "ReluBack", same_pair, ("nonzero", "real")),
    from_entry("log_back", "LogBack", same_pair, ("positive", "real")),
    from_entry("inv_back", "InvBack", same_pair, ("nonzero", "real")),
    from_entry("sigmoid_back", "SigmoidBack", same_pair, ("unit", "real")),
    from_entry("tanh_back", "TanhBack", same_pair, PAIR),
]

#: the ops with no database entry, and why
NO_ENTRY = {
    "square_function": "the custom Function of the autograd reference page (a user's Function, not a built-in op)",
    "zip_plain": "zip over a plain Python function: the database has map's (map_cube_plus, PlainPartial) only",
}

#: every Function of the core that the table must exercise (forward or in a create_graph backward)
CORE_FUNCTIONS = (
    "Add", "Sub", "Mul", "Div", "Neg", "Pow", "MatMul", "Sum", "SumTo", "Max", "Map", "Zip", "Exp", "Log",
    "LogBack", "Inv", "InvBack", "Sqrt", "Sigmoid", "SigmoidBack", "Tanh", "TanhBack", "ReLU", "ReluBack",
    "Abs", "Where", "Softmax", "LogSoftmax", "Permute", "Reshape", "BroadcastView", "Gather", "GatherBack",
    "Clone", "AsType", "To",
)
