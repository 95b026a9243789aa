"""The core ops of the database: every Tensor method and operator, every Function.

One `OpInfo` per op, in the order of `torchlight.autograd.functions`. Each
names the Tensor method it calls (`method`) and the Function it exercises
(`function`); the `*Back` Functions, `Where`, `SumTo`, `GatherBack`, `Map`
and `Zip` have no method and are called directly (`PlainPartial` through
map's recorded backward). The nn ops live in
`conformance/ops_nn.py`; `conformance.database` collects both.

Example:
    >>> from conformance.ops import OPS
    >>> sorted(op.name for op in OPS if op.function == "Exp")
    ['exp']
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo, Tol
from torchlight import scalar
from torchlight.autograd import functions as F

# ------------------------------------------------------------- case tables
UNARY = (
    Case("0d", ((),)),
    Case("1d", ((5,),)),
    Case("2d", ((3, 4),)),
    Case("batched", ((2, 3, 4),)),
    Case("empty", ((0, 3),)),
)

BINARY = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (1, 4))),
    Case("broadcast_rank", ((2, 3, 4), (4,))),
    Case("0d_1d", ((), (4,))),
    Case("batched", ((2, 3, 4), (2, 3, 4))),
    Case("one_side_grad", ((3, 4), (3, 4)), grad=(True, False)),
    Case("empty", ((0, 3), (3,))),
    Case("number", ((3, 4),), kwargs={"number": 2.5}),
)


def binary_errors(function: str) -> tuple[Case, ...]:
    """The bad-input cases every broadcasting binary op shares."""
    return (
        Case("shape_mismatch", ((2, 3), (4,)), raises=ValueError, match=f"{function}: shapes (2, 3) and (4,)",
             note="names the op and both shapes"),
        Case("two_backends", ((3,), (3,)), raises=tl.BackendError, match=f"{function}: tensors on two backends",
             other_backend=1, note="names the op and both backends, and suggests .to"),
    )


def binary(name: str, fn: Any, ref: Any, function: str, domain: Any = D.normal, right: bool = False,
           cases: tuple[Case, ...] = BINARY, **extra: Any) -> OpInfo:
    """A broadcasting binary operator; `right` calls the reflected dunder."""

    def call(a: Any, b: Any = None, number: float | None = None) -> Any:
        if number is not None:
            return fn(number, a) if right else fn(a, number)
        return getattr(b, name)(a) if right else fn(a, b)

    def reference(a: Any, b: Any = None, number: float | None = None) -> Any:
        if number is not None:
            return ref(number, a) if right else ref(a, number)
        return ref(a, b)  # b.__rsub__(a) is a - b

    return OpInfo(name, call, reference, cases + binary_errors(function), domain=domain, method=name,
                  function=function, **extra)


def unary(name: str, ref: Any, function: str, domain: Any = D.normal, cases: tuple[Case, ...] = UNARY,
          **extra: Any) -> OpInfo:
    """An elementwise Tensor method `x.name()`."""
    return OpInfo(name, lambda x: getattr(x, name)(), ref, cases, domain=domain, method=name,
                  function=function, **extra)


def as_key(x: Any, key: Any) -> Any:
    """An index with its NumPy arrays moved to `x`'s backend and device."""
    if isinstance(key, tuple):
        return tuple(as_key(x, k) for k in key)
    if isinstance(key, np.ndarray):
        return x.backend.asarray(key, device=x.device)
    return key


def sigmoid_ref(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def softmax_ref(x: np.ndarray, dim: int = -1) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def log_softmax_ref(x: np.ndarray, dim: int = -1) -> np.ndarray:
    shifted = x - np.max(x, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


def scatter_ref(g: np.ndarray, shape: tuple, key: Any) -> np.ndarray:
    out = np.zeros(shape)
    np.add.at(out, key, g)
    return out


def sum_to_ref(g: np.ndarray, shape: tuple) -> np.ndarray:
    lead = g.ndim - len(shape)
    out = np.sum(g, axis=tuple(range(lead))) if lead else g
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and out.shape[i] != 1)
    return np.sum(out, axis=dims, keepdims=True).reshape(shape)


def pow_zero_base_grads(a: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d(a**p)/da and d(a**p)/dp, the latter 0 at a = 0 (PyTorch's convention)."""
    safe = np.where(a > 0, a, 1.0)
    return p * a ** (p - 1), np.where(a > 0, a ** p * np.log(safe), 0.0)


def cube_plus(v: Any) -> Any:
    """A plain Python function (not a `torchlight.scalar` one) for `map`."""
    return v * v * v + v


# ---------------------------------------------------------- arithmetic
ARITHMETIC = [
    binary("__add__", operator.add, operator.add, "Add"),
    binary("__radd__", operator.add, operator.add, "Add", right=True),
    binary("__sub__", operator.sub, operator.sub, "Sub"),
    binary("__rsub__", operator.sub, operator.sub, "Sub", right=True),
    binary("__mul__", operator.mul, operator.mul, "Mul"),
    binary("__rmul__", operator.mul, operator.mul, "Mul", right=True),
    binary("__truediv__", operator.truediv, operator.truediv, "Div", domain=D.away_from_zero),
    binary("__rtruediv__", operator.truediv, operator.truediv, "Div", domain=D.away_from_zero, right=True),
    OpInfo("__neg__", operator.neg, operator.neg, UNARY, method="__neg__", function="Neg"),
    unary("neg", np.negative, "Neg"),
    OpInfo("__pos__", operator.pos, operator.pos, UNARY[:3], method="__pos__"),
    OpInfo("__pow__", lambda a, b=None, p=None: a ** (b if p is None else p),
           lambda a, b=None, p=None: np.power(a, b if p is None else p),
           (
               Case("square", ((3, 4),), kwargs={"p": 2}),
               Case("cube_negative_bases", ((5,),), kwargs={"p": 3}, note="integer powers of negative bases"),
               Case("sqrt", ((3, 4),), domain=D.positive, kwargs={"p": 0.5}),
               Case("negative_fractional", ((2, 3),), domain=D.positive, kwargs={"p": -1.5}),
               Case("zero_exponent", ((3,),), domain=D.fixed([0.0, 1.5, -2.0]), kwargs={"p": 0},
                    grad_reference=lambda a, p: (np.zeros_like(a),), double_backward=False,
                    note="d(x**0)/dx is 0, also at x = 0 (PyTorch's convention)"),
               Case("nan_for_negative_base", ((3,),), domain=D.fixed([-1.0, 2.0, -0.5]), kwargs={"p": 0.5},
                    forward_only=True, ieee=True, note="NaN, as NumPy"),
               Case("tensor_exponent", ((3, 4), (3, 4)), domain=(D.positive, D.bounded)),
               Case("tensor_exponent_broadcast", ((2, 3), (3,)), domain=(D.positive, D.bounded)),
               Case("0d", ((),), domain=D.positive, kwargs={"p": 2.5}),
               Case("empty", ((0, 2),), kwargs={"p": 2}),
               Case("zero_base", ((3,), (3,)), domain=(D.fixed([0.0, 1.5, 2.0]), D.fixed([2.0, 3.0, 0.5])),
                    grad_reference=pow_zero_base_grads,
                    double_backward=False, note="d(a**p)/dp is 0 at a = 0"),
           ) + binary_errors("Pow")[:1],
           method="__pow__", function="Pow"),
    OpInfo("__rpow__", lambda x, base=2.0: base ** x, lambda x, base=2.0: np.power(base, x),
           (Case("two", ((3, 4),)), Case("0d", ((),), kwargs={"base": 0.5}), Case("1d", ((5,),))),
           domain=D.bounded, method="__rpow__", function="Pow"),
    OpInfo("__matmul__", lambda a, b: a @ b, np.matmul,
           (
               Case("mat_mat", ((3, 4), (4, 2))),
               Case("vec_mat", ((4,), (4, 3))),
               Case("mat_vec", ((3, 4), (4,))),
               Case("vec_vec", ((4,), (4,))),
               Case("batched", ((2, 3, 4), (2, 4, 2))),
               Case("broadcast_batch", ((2, 1, 2, 3), (3, 3, 2))),
               Case("batched_vec", ((2, 3, 4), (4,))),
               Case("vec_batched", ((3,), (2, 3, 2))),
               Case("empty", ((0, 3), (3, 2))),
               Case("one_side_grad", ((3, 4), (4, 2)), grad=(False, True)),
               Case("inner_mismatch", ((3, 4), (5, 2)), raises=ValueError,
                    match="MatMul: shapes (3, 4) and (5, 2)"),
               Case("zero_dim", ((), (3,)), raises=ValueError, match="0-d"),
           ),
           method="__matmul__", function="MatMul"),
    OpInfo("__rmatmul__", lambda a, b: b.__rmatmul__(a), np.matmul,
           (Case("mat_mat", ((3, 4), (4, 2))), Case("vec_mat", ((4,), (4, 3)))),
           method="__rmatmul__", function="MatMul"),
]

# ---------------------------------------------------------- reductions
REDUCE_CASES = (
    Case("all", ((3, 4),)),
    Case("dim0", ((3, 4),), kwargs={"dim": 0}),
    Case("dim_last_keepdim", ((2, 3, 4),), kwargs={"dim": -1, "keepdim": True}),
    Case("dims", ((2, 3, 4),), kwargs={"dim": (0, 2)}),
    Case("0d", ((),)),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
)


def reduction(name: str, ref: Any, function: str, cases: tuple[Case, ...], **extra: Any) -> OpInfo:
    def call(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
        return getattr(x, name)(dim, keepdim)

    def reference(x: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        return ref(x, axis=dim, keepdims=keepdim)

    return OpInfo(name, call, reference, cases, method=name, function=function, **extra)


def max_ties(*hosts: np.ndarray) -> tuple[np.ndarray]:
    (x,) = hosts
    hit = (x == x.max()).astype(np.float64)
    return (hit / hit.sum(),)


def min_ties(*hosts: np.ndarray) -> tuple[np.ndarray]:
    return max_ties(*(-x for x in hosts))


REDUCTIONS = [
    reduction("sum", np.sum, "Sum", REDUCE_CASES + (
        Case("empty", ((0, 3),)), Case("empty_dim0", ((0, 3),), kwargs={"dim": 0}))),
    reduction("mean", np.mean, ("Sum", "Mul"), REDUCE_CASES),
    reduction("max", np.max, "Max", REDUCE_CASES + (
        Case("tie2", ((2, 3),), domain=D.fixed([[0.5, 2.0, -1.0], [2.0, 0.0, 1.0]]), double_backward=False,
             note="two tied maxima share the gradient evenly (central differences agree for two)"),
        Case("tie3", ((4,),), domain=D.fixed([1.0, 3.0, 3.0, 3.0]), grad_reference=max_ties,
             double_backward=False, note="three tied maxima get a third each (the documented convention)"),
        Case("empty", ((0, 3),), raises=ValueError, match="empty"),
    ), domain=D.distinct),
    OpInfo("argmax", lambda x, dim=None, keepdim=False: x.argmax(dim, keepdim),
           lambda x, dim=None, keepdim=False: np.argmax(x, axis=dim, keepdims=keepdim),
           (Case("all", ((3, 4),)), Case("dim1", ((3, 4),), kwargs={"dim": 1}),
            Case("keepdim", ((3, 4),), kwargs={"dim": 0, "keepdim": True})),
           domain=D.distinct, method="argmax", differentiable=False, output_dtype="int"),
    reduction("min", np.min, "Min", REDUCE_CASES + (
        Case("tie2", ((2, 3),), domain=D.fixed([[0.5, -2.0, 1.0], [-2.0, 0.0, 1.0]]), double_backward=False,
             note="two tied minima share the gradient evenly (central differences agree for two)"),
        Case("tie3", ((4,),), domain=D.fixed([1.0, -3.0, -3.0, -3.0]), grad_reference=min_ties,
             double_backward=False, note="three tied minima get a third each (the convention of max)"),
        Case("empty", ((0, 3),), raises=ValueError, match="min: the tensor of shape (0, 3) is empty"),
    ), domain=D.distinct),
    OpInfo("argmin", lambda x, dim=None, keepdim=False: x.argmin(dim, keepdim),
           lambda x, dim=None, keepdim=False: np.argmin(x, axis=dim, keepdims=keepdim),
           (Case("all", ((3, 4),)), Case("dim1", ((3, 4),), kwargs={"dim": 1}),
            Case("keepdim", ((3, 4),), kwargs={"dim": 0, "keepdim": True})),
           domain=D.distinct, method="argmin", differentiable=False, output_dtype="int"),
]

# --------------------------------------------------------- elementwise
ELEMENTWISE = [
    unary("exp", np.exp, "Exp", domain=D.bounded),
    unary("log", np.log, "Log", domain=D.positive, cases=UNARY + (
        Case("at_zero", ((2,),), domain=D.fixed([0.0, 1.0]), grad_reference=lambda x: (1.0 / x,),
             double_backward=False, ieee=True, note="log(0) = -inf with gradient inf, as NumPy"),)),
    unary("sigmoid", sigmoid_ref, "Sigmoid", cases=UNARY + (
        Case("saturated", ((5,),), domain=D.fixed([-800.0, -30.0, 0.0, 30.0, 800.0]),
             note="no overflow for large |x|"),)),
    unary("relu", lambda x: np.where(x > 0, x, 0.0), "ReLU", domain=D.away_from_zero, cases=UNARY + (
        Case("kink", ((3,),), domain=D.fixed([-1.0, 0.0, 2.0]), grad_reference=lambda x: ((x > 0) * 1.0,),
             double_backward=False, note="relu'(0) = 0 (PyTorch's convention)"),)),
    unary("tanh", np.tanh, "Tanh"),
    unary("sqrt", np.sqrt, "Sqrt", domain=D.positive),
    unary("inv", lambda x: 1.0 / x, "Inv", domain=D.away_from_zero),
    unary("abs", np.abs, "Abs", domain=D.away_from_zero, cases=UNARY + (
        Case("kink", ((3,),), domain=D.fixed([-1.0, 0.0, 2.0]), grad_reference=lambda x: (np.sign(x),),
             double_backward=False, note="abs'(0) = 0 (PyTorch's convention)"),)),
    OpInfo("__abs__", abs, np.abs, UNARY[:3], domain=D.away_from_zero, method="__abs__", function="Abs"),
]

# ---------------------------------------------------------- comparisons
COMPARE_CASES = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (4,))),
    Case("ties", ((4,), (4,)), domain=(D.fixed([1.0, 2.0, 3.0, 4.0]), D.fixed([1.0, 0.0, 3.0, 5.0]))),
    Case("number", ((3, 4),), kwargs={"number": 0.25}),
)


def comparison(name: str, fn: Any) -> OpInfo:
    errors = (Case("shape_mismatch", ((2, 3), (4,)), raises=ValueError, match="(2, 3) and (4,)"),)
    return OpInfo(name, lambda a, b=None, number=None: fn(a, b if number is None else number),
                  lambda a, b=None, number=None: fn(a, b if number is None else number),
                  COMPARE_CASES + errors, method=name, differentiable=False, output_dtype="bool")


COMPARISONS = [comparison(f"__{n}__", getattr(operator, n)) for n in ("lt", "le", "gt", "ge", "eq", "ne")]


def mask_op(name: str, fn: Any, right: bool = False) -> OpInfo:
    """`&`, `|`, `^` of masks made by comparisons (how tl.where's condition is built); `right`: the reflected dunder."""

    def masks(a: Any, b: Any = None, number: float | None = None) -> Any:
        left = a > 0.0
        other = b < 0.5 if number is None else number > 0.5  # a mask, or a Python bool
        if right:
            return fn(other, left) if number is not None else getattr(other, name)(left)
        return fn(left, other)

    return OpInfo(name, masks, masks, COMPARE_CASES, method=name, differentiable=False, output_dtype="bool")


COMPARISONS += [mask_op(f"__{r}{n}__", getattr(operator, f"{n}_" if n != "xor" else n), right=bool(r))
                for n in ("and", "or", "xor") for r in ("", "r")] + [
    OpInfo("__invert__", lambda x: ~(x > 0.0), lambda x: ~(x > 0.0), UNARY[:3], method="__invert__",
           differentiable=False, output_dtype="bool"),
]

# ------------------------------------------------------------- softmax
SOFTMAX_CASES = (
    Case("1d", ((5,),)),
    Case("dim0", ((3, 4),), kwargs={"dim": 0}),
    Case("dim_last", ((2, 3, 4),), kwargs={"dim": -1}),
    Case("large", ((3,),), domain=D.fixed([1000.0, 0.0, -1000.0]), note="stable for large |x|"),
)
SOFTMAX = [
    OpInfo("softmax", lambda x, dim=-1: x.softmax(dim), softmax_ref, SOFTMAX_CASES, method="softmax",
           function="Softmax"),
    OpInfo("log_softmax", lambda x, dim=-1: x.log_softmax(dim), log_softmax_ref, SOFTMAX_CASES,
           method="log_softmax", function="LogSoftmax"),
    OpInfo("mse_loss", lambda a, b: a.mse_loss(b), lambda a, b: np.mean((a - b) ** 2),
           (Case("1d", ((5,), (5,))), Case("2d", ((3, 4), (3, 4))), Case("0d", ((), ())),
            Case("target_fixed", ((3, 4), (3, 4)), grad=(True, False)),
            Case("shape_mismatch", ((3,), (4,)), raises=ValueError, match="mse_loss: input shape (3,)")),
           method="mse_loss", function=("Sub", "Mul", "Sum")),
]

# -------------------------------------------------------------- shapes
def shaped(name: str, call: Any, ref: Any, function: str, cases: tuple[Case, ...], **extra: Any) -> OpInfo:
    return OpInfo(name, call, ref, cases, method=name, function=function, **extra)


def squeeze_ref(x: np.ndarray, dim: Any = None) -> np.ndarray:
    """PyTorch's squeeze: a listed dim whose size is not 1 stays."""
    dims = range(x.ndim) if dim is None else [d % max(x.ndim, 1) for d in np.atleast_1d(dim)]
    return np.squeeze(x, axis=tuple(d for d in dims if x.ndim and x.shape[d] == 1))


def flatten_ref(x: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    if x.ndim == 0:
        return x.reshape(1)
    start, end = start_dim % x.ndim, end_dim % x.ndim
    return x.reshape(x.shape[:start] + (int(np.prod(x.shape[start:end + 1])),) + x.shape[end + 1:])


def expand_ref(x: np.ndarray, shape: tuple) -> np.ndarray:
    shape = tuple(n if n != -1 else x.shape[i - len(shape) + x.ndim] for i, n in enumerate(shape))
    return np.broadcast_to(x, shape)


RESHAPE_CASES = (
    Case("2d", ((2, 3),), kwargs={"shape": (3, 2)}),
    Case("infer", ((2, 3, 4),), kwargs={"shape": (-1, 4)}),
    Case("0d_to_1d", ((),), kwargs={"shape": (1,)}),
    Case("to_0d", ((1,),), kwargs={"shape": ()}),
    Case("empty", ((0, 3),), kwargs={"shape": (3, 0)}),
    Case("bad_size", ((2, 3),), kwargs={"shape": (4,)}, raises=ValueError, match="cannot reshape"),
)
EXPAND_CASES = (
    Case("column", ((3, 1),), kwargs={"shape": (3, 4)}),
    Case("new_dims", ((4,),), kwargs={"shape": (2, 3, 4)}),
    Case("0d", ((),), kwargs={"shape": (3,)}),
    Case("keep_with_minus_one", ((3, 1),), kwargs={"shape": (-1, 4)}),
    Case("bad_shape", ((3,),), kwargs={"shape": (4,)}, raises=ValueError, match="(3,)"),
)
SHAPES = [
    shaped("permute", lambda x, dims: x.permute(*dims), lambda x, dims: np.transpose(x, dims), "Permute", (
        Case("3d", ((2, 3, 4),), kwargs={"dims": (2, 0, 1)}),
        Case("negative_dims", ((2, 3),), kwargs={"dims": (-1, 0)}),
        Case("0d", ((),), kwargs={"dims": ()}),
        Case("1d", ((4,),), kwargs={"dims": (0,)}),
    )),
    shaped("transpose", lambda x, dims=(-2, -1): x.transpose(*dims), lambda x, dims=(-2, -1): np.swapaxes(x, *dims),
           "Permute", (Case("2d", ((3, 4),)), Case("3d_outer", ((2, 3, 4),), kwargs={"dims": (0, 2)}))),
    shaped("T", lambda x: x.T, lambda x: x.T, "Permute", (Case("2d", ((3, 4),)), Case("3d", ((2, 3, 4),)),
                                                          Case("0d", ((),)))),
    shaped("mT", lambda x: x.mT, lambda x: np.swapaxes(x, -1, -2), "Permute",
           (Case("2d", ((3, 4),)), Case("batched", ((2, 3, 4),)))),
    shaped("reshape", lambda x, shape: x.reshape(shape), lambda x, shape: np.reshape(x, shape), "Reshape",
           RESHAPE_CASES),
    shaped("view", lambda x, shape: x.view(*shape), lambda x, shape: np.reshape(x, shape), "Reshape",
           RESHAPE_CASES[:2]),
    shaped("expand", lambda x, shape: x.expand(*shape), expand_ref, "BroadcastView", EXPAND_CASES),
    shaped("broadcast_to", lambda x, shape: x.broadcast_to(shape), expand_ref, "BroadcastView", EXPAND_CASES[:2]),
    shaped("squeeze", lambda x, dim=None: x.squeeze(dim), squeeze_ref, "Reshape", (
        Case("all", ((1, 3, 1),)),
        Case("dim0", ((1, 3),), kwargs={"dim": 0}),
        Case("negative_dim", ((2, 1),), kwargs={"dim": -1}),
        Case("dims", ((1, 3, 1, 2),), kwargs={"dim": (0, 2)}),
        Case("not_size_one", ((2, 3),), kwargs={"dim": 0}, note="a no-op, as PyTorch (the array API raises)"),
        Case("0d", ((),)),
        Case("empty", ((0, 1),)),
        Case("bad_dim", ((1, 3),), kwargs={"dim": 2}, raises=IndexError, match="dim 2 is out of range"),
    )),
    shaped("unsqueeze", lambda x, dim: x.unsqueeze(dim), lambda x, dim: np.expand_dims(x, dim), "Reshape", (
        Case("dim0", ((3, 4),), kwargs={"dim": 0}),
        Case("middle", ((3, 4),), kwargs={"dim": 1}),
        Case("last", ((3, 4),), kwargs={"dim": -1}),
        Case("0d", ((),), kwargs={"dim": 0}),
        Case("empty", ((0, 3),), kwargs={"dim": 2}),
        Case("bad_dim", ((3,),), kwargs={"dim": 2}, raises=IndexError, match="unsqueeze: dim 2 is out of range"),
    )),
    shaped("flatten", lambda x, start_dim=0, end_dim=-1: x.flatten(start_dim, end_dim), flatten_ref, "Reshape", (
        Case("all", ((2, 3, 4),)),
        Case("from1", ((2, 3, 4),), kwargs={"start_dim": 1}),
        Case("range", ((2, 3, 4, 5),), kwargs={"start_dim": 1, "end_dim": -2}),
        Case("1d", ((5,),)),
        Case("0d", ((),), note="a 0-d tensor becomes 1-d, as PyTorch"),
        Case("empty", ((2, 0, 3),), kwargs={"start_dim": 1}),
        Case("start_after_end", ((2, 3, 4),), kwargs={"start_dim": 2, "end_dim": 1}, raises=ValueError,
             match="flatten: start_dim 2 comes after end_dim 1"),
    )),
]

# ------------------------------------------------------------ indexing
DUPLICATES = np.array([0, 2, 0])
MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
#: a lazy mask selects an unknown number of elements (torchlight raises, see DaskBackend.take_key)
LAZY_MASK = {"dask": "Dask: a boolean mask's count is unknown until computed (a nan shape): torchlight "
                     "raises an IndexError that says what to do instead (tests/test_ops.py)"}
INDEX_CASES = (
    Case("int", ((3, 4),), kwargs={"key": 1}),
    Case("slice", ((5, 2),), kwargs={"key": slice(1, 4)}),
    Case("negative_step", ((5,),), kwargs={"key": slice(None, None, -2)}),
    Case("int_and_slice", ((3, 4),), kwargs={"key": (slice(None), 2)}),
    Case("element_0d", ((3, 4),), kwargs={"key": (1, 2)}),
    Case("ellipsis", ((2, 3, 4),), kwargs={"key": (Ellipsis, 1)}),
    Case("int_array_duplicates", ((3, 4),), kwargs={"key": DUPLICATES}, note="repeated rows sum their gradients"),
    Case("int_array_axis1", ((2, 4),), kwargs={"key": (slice(None), np.array([3, 1, 3, 0]))}),
    Case("mask", ((3, 4),), kwargs={"key": MASK}, skips=LAZY_MASK),
    Case("empty_slice", ((4, 2),), kwargs={"key": slice(2, 2)}),
    Case("out_of_range", ((3, 4),), kwargs={"key": 5}, raises=IndexError, match="5"),
)
INDEXING = [
    OpInfo("__getitem__", lambda x, key: x[as_key(x, key)], lambda x, key: x[key], INDEX_CASES,
           method="__getitem__", function="Gather"),
    OpInfo("GatherBack", lambda g, shape, key: F.GatherBack.apply(g, shape, as_key(g, key)), scatter_ref, (
        Case("int_array_duplicates", ((3, 4),), kwargs={"shape": (3, 4), "key": DUPLICATES}),
        Case("slice", ((2, 4),), kwargs={"shape": (5, 4), "key": slice(1, 3)}),
        Case("mask", ((6,),), kwargs={"shape": (3, 4), "key": MASK}, skips=LAZY_MASK),
    ), function="GatherBack"),
]

# ------------------------------------------- backward helpers, called directly
BACK_CASES = (
    Case("1d", ((5,), (5,))),
    Case("2d", ((3, 4), (3, 4))),
    Case("0d", ((), ())),
    Case("grad_only", ((3,), (3,)), grad=(False, True)),
)


def back(name: str, ref: Any, domain: Any, **extra: Any) -> OpInfo:
    fn = getattr(F, name)
    return OpInfo(name, fn.apply, ref, BACK_CASES, domain=domain, function=name, **extra)


def where_call(a: Any, b: Any, cond: np.ndarray) -> Any:
    return F.Where.apply(tl.tensor(a.backend.asarray(cond, device=a.device)), a, b)


BACKWARD_HELPERS = [
    back("LogBack", lambda a, g: g / a, (D.positive, D.normal)),
    back("InvBack", lambda a, g: -g / (a * a), (D.away_from_zero, D.normal)),
    back("ReluBack", lambda a, g: np.where(a > 0, g, 0.0), (D.away_from_zero, D.normal)),
    back("SigmoidBack", lambda y, g: g * y * (1.0 - y), (D.normal, D.normal)),
    back("TanhBack", lambda y, g: g * (1.0 - y * y), (D.normal, D.normal)),
    OpInfo("Where", where_call, lambda a, b, cond: np.where(cond, a, b), (
        Case("same_shape", ((3, 4), (3, 4)), kwargs={"cond": MASK}),
        Case("broadcast", ((3, 1), (4,)), kwargs={"cond": MASK}),
        Case("one_side_grad", ((3, 4), (3, 4)), kwargs={"cond": MASK}, grad=(False, True)),
    ), function="Where"),
    OpInfo("SumTo", lambda g, shape: F.SumTo.apply(g, shape), sum_to_ref, (
        Case("rows", ((3, 4),), kwargs={"shape": (1, 4)}),
        Case("leading", ((2, 3, 4),), kwargs={"shape": (3, 1)}),
        Case("to_0d", ((4,),), kwargs={"shape": ()}),
        Case("identity", ((3, 4),), kwargs={"shape": (3, 4)}),
    ), function="SumTo"),
]

# ------------------------------------- scalar functions through map/zip/reduce
def mapped(fn: Any, ref: Any, domain: Any = D.normal, **extra: Any) -> OpInfo:
    name = getattr(fn, "__name__", "fn")
    return OpInfo(f"map_{name}", lambda x: x.backend.map(fn)(x), ref, UNARY[:4], domain=domain,
                  function="Map", **extra)


def zipped(fn: Any, ref: Any, domain: Any = D.normal, **extra: Any) -> OpInfo:
    return OpInfo(f"zip_{fn.__name__}", lambda a, b: a.backend.zip(fn)(a, b), ref, BINARY[:5], domain=domain,
                  function="Zip", **extra)


def plain_partial_call(x: Any, g: Any) -> Any:
    """The recorded backward of `map(cube_plus)` at `x` for the gradient `g` (PlainPartial: linear in `g`)."""
    leaf = x.detach().requires_grad_()
    (out,) = tl.autograd.grad(leaf.backend.map(cube_plus)(leaf), leaf, g, create_graph=True)
    return out


SCALAR_FUNCTIONS = [
    mapped(scalar.exp, np.exp, D.bounded),
    mapped(scalar.ln, np.log, D.positive),
    mapped(scalar.tanh, np.tanh),
    mapped(scalar.sigmoid, sigmoid_ref),
    mapped(scalar.relu, lambda x: np.where(x > 0, x, 0.0), D.away_from_zero),
    mapped(cube_plus, lambda x: x ** 3 + x, double_backward=False,
           double_backward_reason="second derivatives through a plain Python function raise NotImplementedError "
                                  "by design (write it with torchlight.scalar functions)"),
    OpInfo("map_cube_plus_backward", plain_partial_call, lambda x, g: g * (3.0 * x ** 2 + 1.0), (
        Case("same_shape", ((3, 4), (3, 4)), grad=(False, True), forward_only=True,
             note="its graph reaches x, where a derivative is the plain function's second: it raises "
                  "(jvps through it, in g alone: tests/test_ops.py::test_exempt_ops_give_jvps)"),
        Case("vector", ((5,), (5,)), grad=(False, True), forward_only=True),
    ), function=("Mul", "PlainPartial")),
    zipped(scalar.mul, operator.mul),
    zipped(scalar.div, operator.truediv, D.away_from_zero),
    zipped(scalar.pow, np.power, (D.positive, D.bounded)),
    OpInfo("reduce_mul", lambda x, dim: x.backend.reduce(scalar.mul, 1.0)(x, dim),
           lambda x, dim: np.prod(x, axis=dim),
           (Case("dim1", ((3, 4),), kwargs={"dim": 1}), Case("dim0", ((2, 3),), kwargs={"dim": 0})),
           function=("Zip", "Gather")),
]

# ------------------------------------------------------- copies and moves
COPIES = [
    OpInfo("clone", lambda x: x.clone(), np.copy, UNARY, method="clone", function="Clone"),
    OpInfo("detach", lambda x: x.detach(), np.copy, UNARY[:3], method="detach", differentiable=False),
    OpInfo("astype", lambda x, dtype: x.astype(dtype), lambda x, dtype: x, (
        Case("to_float64", ((3, 4),), kwargs={"dtype": "float64"}),
        Case("to_float32", ((3, 4),), kwargs={"dtype": "float32"}, dtypes=("float64",),
             tol={"forward": Tol("the value is rounded to float32", atol=1e-6, rtol=1e-6),
                  "agreement": Tol("the value is rounded to float32", atol=1e-6, rtol=1e-6),
                  "backward": Tol("the output is float32: central differences need a float32-sized step",
                                  eps=1e-3, atol=1e-4, rtol=1e-4)}),
    ), method="astype", function="AsType", output_dtype="float"),
    OpInfo("to", lambda x, backend: x.to(backend=backend), lambda x, backend: x, (
        Case("numpy", ((3, 4),), kwargs={"backend": "numpy"}),
        Case("array_api_strict", ((3, 4),), kwargs={"backend": "array_api_strict"}),
    ), method="to", function="To", same_backend=False),
]

# ------------------------------------------ functional transforms (torchlight.func)
TRANSFORMS = [
    OpInfo("Stack", lambda *parts: F.Stack.apply(*parts, 0), lambda *parts: np.stack(parts), (
        Case("two_1d", ((3,), (3,))),
        Case("three_2d", ((2, 3), (2, 3), (2, 3))),
        Case("0d", ((), ())),
        Case("one_side_grad", ((4,), (4,)), grad=(True, False)),
    ), function="Stack"),
]

# ------------------------------- array ops (torchlight.ops, clamp, Tensor.where)
COND = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
COND_ROW = np.array([True, False, False, True])


def where_free(a: Any, b: Any = None, *, cond: np.ndarray, number: float | None = None,
               as_tensor: bool = False) -> Any:
    """`tl.where(cond, a, b)` with `cond` on `a`'s backend (a Tensor when `as_tensor`, else an array)."""
    c = a.backend.asarray(cond, device=a.device)
    return tl.where(tl.tensor(c) if as_tensor else c, a, number if b is None else b)


def where_ref(a: np.ndarray, b: np.ndarray | None = None, *, cond: np.ndarray, number: float | None = None,
              as_tensor: bool = False) -> np.ndarray:
    return np.where(cond, a, number if b is None else b)


def join_cases(errors: tuple[Case, ...]) -> tuple[Case, ...]:
    """The cases stack and cat share: two or three parts, any dim, one part constant."""
    return (
        Case("two_1d", ((3,), (3,))),
        Case("three_2d", ((2, 3), (2, 3), (2, 3))),
        Case("dim1", ((2, 3), (2, 3)), kwargs={"dim": 1}),
        Case("negative_dim", ((2, 3), (2, 3)), kwargs={"dim": -1}),
        Case("one", ((2, 3),)),
        Case("one_side_grad", ((4,), (4,)), grad=(True, False)),
        Case("empty_list", (), raises=ValueError, match="expects a non-empty sequence"),
        Case("two_backends", ((3,), (3,)), raises=tl.BackendError, match="two backends", other_backend=1),
    ) + errors


def clamp_call(x: Any, lo: Any = None, hi: Any = None, *, min: Any = None, max: Any = None,
               alias: str = "clamp") -> Any:
    """`x.clamp(min, max)` with Tensor bounds from the inputs or number bounds from the kwargs."""
    return getattr(x, alias)(min if lo is None else lo, max if hi is None else hi)


def clamp_ref(x: np.ndarray, lo: Any = None, hi: Any = None, *, min: Any = None, max: Any = None,
              alias: str = "clamp") -> np.ndarray:
    return np.clip(x, min if lo is None else lo, max if hi is None else hi)


def clamp_mask(x: np.ndarray, *, min: Any = None, max: Any = None, alias: str = "clamp") -> tuple[np.ndarray]:
    """The documented gradient: 1 where min <= x <= max, the bounds included (PyTorch)."""
    inside = np.ones_like(x, dtype=bool)
    if min is not None:
        inside &= x >= min
    if max is not None:
        inside &= x <= max
    return (inside * 1.0,)


#: clamp's inputs: `distinct` values (0.25 apart, plus up to 0.1) stay at least 0.02 from these bounds
LO, HI = -0.33, 0.62
ARRAY_OPS = [
    OpInfo("tl.where", where_free, where_ref, (
        Case("same_shape", ((3, 4), (3, 4)), kwargs={"cond": COND}),
        Case("broadcast", ((3, 1), (4,)), kwargs={"cond": COND}, note="each side's gradient is summed back"),
        Case("condition_broadcasts", ((3, 4), (3, 4)), kwargs={"cond": COND_ROW}),
        Case("condition_tensor", ((3, 4), (3, 4)), kwargs={"cond": COND, "as_tensor": True}),
        Case("number", ((3, 4),), kwargs={"cond": COND, "number": 0.5}),
        Case("0d", ((), ()), kwargs={"cond": np.array(True)}),
        Case("empty", ((0, 3), (3,)), kwargs={"cond": np.zeros((0, 3), dtype=bool)}),
        Case("one_side_grad", ((3, 4), (3, 4)), kwargs={"cond": COND}, grad=(False, True)),
        Case("shape_mismatch", ((3, 4), (3, 4)), kwargs={"cond": COND_ROW[:3]}, raises=ValueError,
             match="where: the shapes of condition (3,), input (3, 4) and other (3, 4)"),
        Case("float_condition", ((3,), (3,)), kwargs={"cond": np.array([1.0, 0.0, 1.0], dtype=np.float32)},
             raises=TypeError, match="where: the condition must be boolean",
             note="float32: the no_float64 device holds it too"),
        Case("two_backends", ((3,), (3,)), kwargs={"cond": COND_ROW[:3]}, raises=tl.BackendError,
             match="where: tensors on two backends", other_backend=1),
    ), method=None, function="Where"),
    OpInfo("where", lambda a, b=None, *, cond, number=None: a.where(a.backend.asarray(cond, device=a.device),
                                                                    number if b is None else b),
           lambda a, b=None, *, cond, number=None: np.where(cond, a, number if b is None else b), (
               Case("same_shape", ((3, 4), (3, 4)), kwargs={"cond": COND}),
               Case("broadcast", ((3, 1), (4,)), kwargs={"cond": COND}),
               Case("number", ((3, 4),), kwargs={"cond": COND, "number": -1.0}),
           ), method="where", function="Where"),
    OpInfo("tl.stack", lambda *parts, dim=0: tl.stack(parts, dim), lambda *parts, dim=0: np.stack(parts, axis=dim),
           join_cases((
               Case("0d", ((), ())),
               Case("new_last_dim", ((2, 3), (2, 3)), kwargs={"dim": 2}),
               Case("empty", ((0, 3), (0, 3)), kwargs={"dim": 1}),
               Case("shape_mismatch", ((2, 3), (2, 4)), raises=ValueError, match="stack: shapes (2, 3) and (2, 4)"),
               Case("bad_dim", ((2, 3), (2, 3)), kwargs={"dim": 3}, raises=IndexError,
                    match="stack: dim 3 is out of range"),
           )), function="Stack"),
    OpInfo("tl.cat", lambda *parts, dim=0: tl.cat(parts, dim), lambda *parts, dim=0: np.concatenate(parts, axis=dim),
           join_cases((
               Case("sizes_differ", ((1, 3), (4, 3), (2, 3))),
               Case("sizes_differ_dim1", ((2, 1), (2, 3)), kwargs={"dim": 1}),
               Case("empty_part", ((0, 3), (2, 3)), note="a part of size 0 along dim gets an empty gradient"),
               Case("shape_mismatch", ((2, 3), (2, 4)), raises=ValueError,
                    match="cat: shapes (2, 3) and (2, 4) (tensors 0 and 1) differ outside dim 0"),
               Case("rank_mismatch", ((2, 3), (3,)), raises=ValueError, match="cat: shapes (2, 3) and (3,)"),
               Case("0d", ((), ()), raises=ValueError, match="cat: 0-d tensors"),
               Case("bad_dim", ((2, 3), (2, 3)), kwargs={"dim": 2}, raises=IndexError,
                    match="cat: dim 2 is out of range"),
           )), function="Concat"),
    OpInfo("tl.concat", lambda *parts, dim=0: tl.concat(parts, dim),
           lambda *parts, dim=0: np.concatenate(parts, axis=dim),
           (Case("two", ((2, 3), (1, 3))), Case("dim1", ((2, 3), (2, 2)), kwargs={"dim": 1})), function="Concat"),
    OpInfo("clamp", clamp_call, clamp_ref, (
        Case("both", ((3, 4),), kwargs={"min": LO, "max": HI}),
        Case("min_only", ((3, 4),), kwargs={"min": LO}),
        Case("max_only", ((3, 4),), kwargs={"max": HI}),
        Case("0d", ((),), kwargs={"min": LO, "max": HI}),
        Case("empty", ((0, 3),), kwargs={"min": LO, "max": HI}),
        Case("at_the_bounds", ((5,),), domain=D.fixed([-1.0, -0.5, 0.0, 0.5, 1.0]), kwargs={"min": -0.5, "max": 0.5},
             grad_reference=clamp_mask, double_backward=False,
             note="the gradient is 1 at x == min and x == max (PyTorch's convention)"),
        Case("min_above_max", ((4,),), domain=D.fixed([-1.0, 0.2, 0.7, 2.0]), kwargs={"min": 1.0, "max": 0.0},
             grad_reference=clamp_mask, double_backward=False, note="every result is max, with no gradient to x"),
        Case("tensor_bounds", ((3, 4), (3, 1), (4,)),
             domain=(D.distinct, D.fixed([[LO], [-0.83], [-0.08]]), D.fixed([HI, 0.87, 0.37, 1.13])),
             note="Tensor bounds broadcast and get the gradient where they are the result"),
        Case("tensor_min_fixed", ((3, 4), (4,)), domain=(D.distinct, D.fixed([LO, -0.83, -0.08, 0.37])),
             grad=(True, False)),
        Case("no_bounds", ((3,),), raises=ValueError, match="clamp: give at least one of min and max"),
        Case("bound_shape_mismatch", ((2, 3), (4,)), raises=ValueError, match="clamp: shapes (2, 3) and (4,)"),
    ), domain=D.distinct, method="clamp", function="Clamp"),
    OpInfo("clip", clamp_call, clamp_ref, (
        Case("both", ((3, 4),), kwargs={"min": LO, "max": HI, "alias": "clip"}),
        Case("tensor_bounds", ((3, 4), (3, 1), (4,)), kwargs={"alias": "clip"},
             domain=(D.distinct, D.fixed([[LO], [-0.83], [-0.08]]), D.fixed([HI, 0.87, 0.37, 1.13]))),
    ), domain=D.distinct, method="clip", function="Clamp"),
]

# ---------------------------------------- elementwise math and statistics
def uniform(lo: float, hi: float) -> Any:
    """A domain uniform on [lo, hi] (tan away from its poles, log1p above -1)."""

    def make(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return rng.uniform(lo, hi, shape)

    make.__name__ = f"uniform({lo}, {hi})"
    return make


def off_the_steps(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """k + u with u in [0.1, 0.4] or [0.6, 0.9]: at least 0.1 from every integer and half-integer
    (the steps of floor, ceil, trunc and round)."""
    return rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.4, shape) + 0.5 * rng.integers(0, 2, shape)


def lattice(offset: float) -> Any:
    """Multiples of 0.5 plus `offset` plus up to 0.1: inputs with offsets 0 and 0.25 are never
    within 0.15 of each other (maximum/minimum without ties)."""

    def make(rng: np.random.Generator, shape: tuple) -> np.ndarray:
        return rng.integers(-4, 4, shape) * 0.5 + offset + rng.uniform(0.0, 0.1, shape)

    make.__name__ = f"lattice({offset})"
    return make


def zero_grad(x: np.ndarray, *rest: Any, **kwargs: Any) -> tuple[np.ndarray]:
    return (np.zeros_like(x),)


def step(name: str, ref: Any, domain: Any = off_the_steps) -> OpInfo:
    """A step function: gradient 0 everywhere, at the steps too (PyTorch's convention)."""
    at_steps = D.fixed([-1.0, -0.5, 0.0, 0.5, 1.0, 2.5])
    return unary(name, ref, "PiecewiseConstant", domain=domain, cases=UNARY + (
        Case("at_the_steps", ((6,),), domain=at_steps, grad_reference=zero_grad, double_backward=False,
             note="the gradient is 0 at the jumps too (PyTorch's convention)"),))


#: the shapes of a broadcasting pair of the elementwise-math area (tl.maximum, tl.atan2, ...)
PAIR_SHAPES = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (1, 4))),
    Case("broadcast_rank", ((2, 3, 4), (4,))),
    Case("0d", ((), ())),
    Case("one_side_grad", ((3, 4), (3, 4)), grad=(False, True)),
    Case("empty", ((0, 3), (3,))),
)


def extremum_call(a: Any, b: Any = None, number: float | None = None, *, name: str, free: bool) -> Any:
    other = number if b is None else b
    return getattr(tl, name)(a, other) if free else getattr(a, name)(other)


def extremum(name: str, ref: Any, function: str, free: bool) -> OpInfo:
    """`tl.maximum(a, b)` (free) or `a.maximum(b)`; ties split the gradient evenly (PyTorch)."""
    tie_a, tie_b = [1.0, 2.0, 3.0, -1.0], [1.0, 0.0, 3.0, 4.0]

    def ties(a: np.ndarray, b: np.ndarray, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        share = (ref(a, b) == a) - 0.5 * (a == b)
        return share, 1.0 - share

    cases = (
        *PAIR_SHAPES,
        Case("number", ((3, 4),), kwargs={"number": 0.3}, domain=lattice(0.0)),
        Case("ties", ((4,), (4,)), domain=(D.fixed(tie_a), D.fixed(tie_b)), grad_reference=ties,
             double_backward=False, note="equal inputs get half the gradient each (PyTorch's convention)"),
        *binary_errors(name),
    )
    return OpInfo(f"tl.{name}" if free else name,
                  lambda *args, **kw: extremum_call(*args, name=name, free=free, **kw),
                  lambda a, b=None, number=None: ref(a, number if b is None else b),
                  cases, domain=(lattice(0.0), lattice(0.25)), method=None if free else name, function=function)


def moment_call(name: str) -> Any:
    def call(x: Any, dim: Any = None, keepdim: bool = False, correction: float = 1) -> Any:
        return getattr(x, name)(dim, keepdim=keepdim, correction=correction)

    return call


def moment_ref(ref: Any) -> Any:
    def reference(x: np.ndarray, dim: Any = None, keepdim: bool = False, correction: float = 1) -> np.ndarray:
        return ref(x, axis=dim, keepdims=keepdim, ddof=correction)

    return reference


MOMENT_CASES = tuple(c for c in REDUCE_CASES if c.name != "0d") + (
    Case("correction0", ((3, 4),), kwargs={"dim": 1, "correction": 0}),
    Case("correction2", ((2, 5),), kwargs={"dim": 1, "correction": 2}),
    Case("0d_correction0", ((),), kwargs={"correction": 0}, note="one value: variance 0"),
)


def moment(name: str, ref: Any, function: str, extra_cases: tuple[Case, ...] = ()) -> OpInfo:
    return OpInfo(name, moment_call(name), moment_ref(ref), MOMENT_CASES + extra_cases, method=name,
                  function=function)


def std_zero_deviation_grad(x: np.ndarray, dim: int, correction: float = 1) -> tuple[np.ndarray]:
    """d std / dx = (x - mean) / ((N - correction) std), and 0 where std is 0."""
    deviation = x - x.mean(axis=dim, keepdims=True)
    std = np.std(x, axis=dim, keepdims=True, ddof=correction)
    scale = np.divide(1.0, (x.shape[dim] - correction) * std, out=np.zeros_like(std), where=std > 0)
    return (deviation * scale,)


def cumsum_ref(x: np.ndarray, dim: int) -> np.ndarray:
    return np.cumsum(x, axis=dim) if x.ndim else x.copy()


CUMSUM_CASES = (
    Case("1d", ((5,),), kwargs={"dim": 0}),
    Case("rows", ((3, 4),), kwargs={"dim": 1}),
    Case("columns", ((3, 4),), kwargs={"dim": 0}),
    Case("negative_dim", ((2, 3, 4),), kwargs={"dim": -2}),
    Case("empty", ((0, 3),), kwargs={"dim": 0}),
)
MATH = [
    unary("sin", np.sin, "Sin"),
    unary("cos", np.cos, "Cos"),
    unary("tan", np.tan, "Tan", domain=uniform(-1.2, 1.2)),
    unary("sinh", np.sinh, "Sinh", domain=D.bounded),
    unary("cosh", np.cosh, "Cosh", domain=D.bounded),
    unary("log1p", np.log1p, "Log1p", domain=uniform(-0.6, 2.0)),
    unary("expm1", np.expm1, "Expm1", domain=D.bounded),
    unary("log2", np.log2, "Log2", domain=D.positive),
    unary("log10", np.log10, "Log10", domain=D.positive),
    unary("square", np.square, "Square"),
    step("sign", np.sign, domain=D.away_from_zero),
    step("floor", np.floor),
    step("ceil", np.ceil),
    step("round", np.round),
    step("trunc", np.trunc),
    extremum("maximum", np.maximum, "Maximum", free=True),
    extremum("maximum", np.maximum, "Maximum", free=False),
    extremum("minimum", np.minimum, "Minimum", free=True),
    extremum("minimum", np.minimum, "Minimum", free=False),
    moment("var", np.var, "Var"),
    moment("std", np.std, "Std", (
        Case("zero_deviation", ((2, 3),), domain=D.fixed([[1.5, 1.5, 1.5], [0.5, -1.0, 2.0]]), kwargs={"dim": 1},
             grad_reference=std_zero_deviation_grad,
             double_backward=False, note="the gradient is 0 where std is 0 (PyTorch's convention)"),)),
    reduction("prod", np.prod, "Prod", REDUCE_CASES + (
        Case("one_zero", ((2, 3),), domain=D.fixed([[1.5, 0.0, -2.0], [0.5, 1.2, 0.8]]), kwargs={"dim": 1},
             note="only the zero gets a gradient, the product of the others (prod is smooth: central "
                  "differences and the second derivative hold at zeros)"),
        Case("two_zeros", ((4,),), domain=D.fixed([0.0, 1.5, 0.0, -2.0]),
             note="no first-order gradient; the second derivative between the zeros is the product of the rest"),
        Case("empty_dim", ((0, 3),), kwargs={"dim": 0}, note="the empty product is 1"),
    ), domain=D.bounded),
    OpInfo("cumsum", lambda x, dim: x.cumsum(dim), cumsum_ref, CUMSUM_CASES + (
        Case("0d", ((),), kwargs={"dim": 0}, note="a 0-d tensor stays as it is (as PyTorch)"),
        Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
    ), method="cumsum", function="Cumsum"),
    OpInfo("ReverseCumsum", lambda g, dim: F.ReverseCumsum.apply(g, dim % g.ndim),
           lambda g, dim: np.flip(np.cumsum(np.flip(g, dim), axis=dim), dim), CUMSUM_CASES,
           function="ReverseCumsum"),
]

# --------------------------- inverse trigonometric, atan2, logaddexp, logsumexp, norm
ALIAS_CASES = (Case("1d", ((5,),)), Case("batched", ((2, 3, 4),)))


def inverse(name: str, alias: str, ref: Any, function: str, domain: Any = D.normal) -> list[OpInfo]:
    """An inverse function `x.name()` (every case) and its NumPy-named alias `x.alias()` (a few)."""
    return [unary(name, ref, function, domain=domain), unary(alias, ref, function, domain=domain, cases=ALIAS_CASES)]


def pair_call(a: Any, b: Any = None, number: float | None = None, left: float | None = None, *, name: str,
              free: bool) -> Any:
    """`tl.name(a, b)` (free) or `a.name(b)`; `number` stands for b, `left` for a (then `a` is b)."""
    if left is not None:
        return getattr(tl, name)(left, a)
    other = number if b is None else b
    return getattr(tl, name)(a, other) if free else getattr(a, name)(other)


def pair(name: str, ref: Any, function: str, free: bool, domain: Any, extra_cases: tuple[Case, ...] = (),
         raised_as: str | None = None) -> OpInfo:
    """A broadcasting binary free function `tl.name(a, b)` or method `a.name(b)`, numbers on either side;
    errors name the op `raised_as` (an alias's errors name the function it stands for)."""
    op = raised_as or name
    number_left = (Case("number_left", ((3, 4),), kwargs={"left": 1.5}, note="tl.name(number, tensor)"),)
    cases = (
        *PAIR_SHAPES,
        Case("number", ((3, 4),), kwargs={"number": -1.5}),
        *(number_left if free else ()),
        *extra_cases,
        *binary_errors(op),
    )

    def reference(a: np.ndarray, b: Any = None, number: float | None = None, left: float | None = None) -> Any:
        return ref(left, a) if left is not None else ref(a, number if b is None else b)

    return OpInfo(f"tl.{name}" if free else name, lambda *args, **kw: pair_call(*args, name=name, free=free, **kw),
                  reference, cases, domain=domain, method=None if free else name, function=function)


def atan2_origin_grad(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(b, -a) / (a**2 + b**2), and 0 at the origin (PyTorch's convention)."""
    r2 = a * a + b * b
    scale = np.divide(1.0, r2, out=np.zeros_like(r2), where=r2 > 0)
    return b * scale, -a * scale


ATAN2_DOMAIN = (D.away_from_zero, D.normal)  # y clear of 0: away from the origin and the cut at x < 0, y = 0
ATAN2_ORIGIN = (Case("origin", ((4,), (4,)), domain=(D.fixed([0.0, 0.0, 1.0, -2.0]), D.fixed([0.0, 1.5, 0.0, 2.0])),
                     grad_reference=atan2_origin_grad, double_backward=False,
                     note="the gradient is 0 at the origin (PyTorch's convention)"),)
LOGADDEXP_LARGE = (Case("large", ((4,), (4,)), domain=(D.fixed([1000.0, -1000.0, 0.0, 700.0]),
                                                       D.fixed([0.0, 0.0, 0.0, 710.0])),
                        note="no overflow at |x| = 1000; each side's share sigmoid(a - b), accurate in the tail"),)


def logsumexp_ref(x: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    top = np.max(x, axis=dim, keepdims=True)
    out = np.log(np.sum(np.exp(x - top), axis=dim, keepdims=True)) + top
    return out if keepdim else np.squeeze(out, axis=dim if dim is not None else tuple(range(x.ndim)))


def distinct_magnitudes(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Either sign, magnitudes at least 0.15 apart and from 0 (no ties of |x|, no kink of abs)."""
    size = int(np.prod(shape))
    magnitudes = (np.arange(size) + 1.0) * 0.25 + rng.uniform(0.0, 0.1, size)
    return (rng.choice([-1.0, 1.0], size) * rng.permutation(magnitudes)).reshape(shape)


def norm_ref(x: np.ndarray, p: Any = 2, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    p = 2.0 if p == "fro" else p
    if np.isinf(p):
        return (np.max if p > 0 else np.min)(np.abs(x), axis=dim, keepdims=keepdim)
    return np.sum(np.abs(x) ** p, axis=dim, keepdims=keepdim) ** (1.0 / p)


def norm_zero_grad(x: np.ndarray, p: Any = 2, dim: Any = None, keepdim: bool = False) -> tuple[np.ndarray]:
    """sign(x) (|x| / norm)**(p - 1), and 0 where x or the norm is 0 (PyTorch's convention)."""
    y = norm_ref(x, p, dim, keepdim=True)
    ratio = np.divide(np.abs(x), y, out=np.zeros_like(x), where=(x != 0) & (y > 0))
    return (np.sign(x) * np.power(ratio, p - 1.0, out=np.zeros_like(x), where=ratio > 0),)


def norm_tie_grad(x: np.ndarray, p: float, dim: Any = None, keepdim: bool = False) -> tuple[np.ndarray]:
    """Tied maxima (p = inf) or minima (-inf) of |x| share the gradient evenly, times sign(x)."""
    hit = (np.abs(x) == norm_ref(x, p, dim, keepdim=True)).astype(np.float64)
    return (np.sign(x) * hit / hit.sum(axis=dim, keepdims=True),)


NORM_CASES = (
    Case("all", ((3, 4),)),
    Case("dim1", ((3, 4),), kwargs={"dim": 1}),
    Case("dims_keepdim", ((2, 3, 4),), kwargs={"dim": (0, 2), "keepdim": True}),
    Case("fro", ((3, 4),), kwargs={"p": "fro"}, note="'fro' is p = 2 over the elements"),
    Case("0d", ((),), domain=D.away_from_zero),
    Case("empty", ((0, 3),), kwargs={"dim": 0}, note="the norm of no elements is 0"),
    Case("p1", ((3, 4),), kwargs={"p": 1, "dim": 1}, domain=D.away_from_zero),
    Case("p3", ((3, 4),), kwargs={"p": 3, "dim": 0}),
    Case("p0.5", ((3, 4),), kwargs={"p": 0.5, "dim": 1}, domain=D.away_from_zero),
    Case("p1.5", ((2, 3, 4),), kwargs={"p": 1.5, "dim": -1}, domain=D.away_from_zero),
    Case("inf", ((3, 4),), kwargs={"p": math.inf, "dim": 1}, domain=distinct_magnitudes),
    Case("-inf", ((3, 4),), kwargs={"p": -math.inf}, domain=distinct_magnitudes),
    Case("zero_vector", ((2, 3),), domain=D.fixed([[0.0, 0.0, 0.0], [0.5, -1.0, 2.0]]), kwargs={"dim": 1},
         grad_reference=norm_zero_grad, double_backward=False,
         note="the gradient is 0 at an all-zero vector (PyTorch's convention; the true one has no limit)"),
    Case("zero_elements_p0.5", ((4,),), domain=D.fixed([0.0, 1.5, 0.0, -0.5]), kwargs={"p": 0.5},
         grad_reference=norm_zero_grad, double_backward=False,
         note="p < 1: the gradient is 0 at a zero element (PyTorch's convention; the true one is infinite)"),
    Case("inf_ties", ((5,),), domain=D.fixed([3.0, -3.0, 1.0, 0.0, 2.0]), kwargs={"p": math.inf},
         grad_reference=norm_tie_grad, double_backward=False,
         note="tied maxima of |x| split the gradient evenly (as max, and as PyTorch measured)"),
    Case("-inf_ties", ((2, 3),), domain=D.fixed([[1.0, -1.0, 3.0], [0.0, 2.0, 0.0]]),
         kwargs={"p": -math.inf, "dim": 1}, grad_reference=norm_tie_grad, double_backward=False,
         note="tied minima of |x| split the gradient evenly; tied zeros get 0 (abs'(0) = 0)"),
    Case("p0", ((3,),), kwargs={"p": 0}, raises=ValueError, match="norm: p must be a positive number",
         note="p = 0 (torch's count of nonzeros) is refused"),
    Case("negative_p", ((3,),), kwargs={"p": -2}, raises=ValueError, match="norm: p must be a positive number"),
    Case("nuc", ((3, 3),), kwargs={"p": "nuc"}, raises=ValueError, match="norm: p must be a positive number"),
    Case("empty_inf", ((0, 3),), kwargs={"p": math.inf, "dim": 0}, raises=ValueError,
         match="norm: the inf norm of an empty dimension"),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
)

INVERSE_AND_NORMS = [
    *inverse("asin", "arcsin", np.arcsin, "Asin", uniform(-0.9, 0.9)),
    *inverse("acos", "arccos", np.arccos, "Acos", uniform(-0.9, 0.9)),
    *inverse("atan", "arctan", np.arctan, "Atan"),
    *inverse("asinh", "arcsinh", np.arcsinh, "Asinh"),
    *inverse("acosh", "arccosh", np.arccosh, "Acosh", uniform(1.1, 3.0)),
    *inverse("atanh", "arctanh", np.arctanh, "Atanh", uniform(-0.9, 0.9)),
    pair("atan2", np.arctan2, "Atan2", True, ATAN2_DOMAIN, ATAN2_ORIGIN),
    pair("atan2", np.arctan2, "Atan2", False, ATAN2_DOMAIN),
    pair("arctan2", np.arctan2, "Atan2", True, ATAN2_DOMAIN, raised_as="atan2"),
    pair("arctan2", np.arctan2, "Atan2", False, ATAN2_DOMAIN, raised_as="atan2"),
    pair("logaddexp", np.logaddexp, "LogAddExp", True, D.normal, LOGADDEXP_LARGE),
    pair("logaddexp", np.logaddexp, "LogAddExp", False, D.normal),
    OpInfo("logsumexp", lambda x, dim=None, keepdim=False: x.logsumexp(dim, keepdim), logsumexp_ref, (
        Case("all", ((3, 4),)),
        Case("rows", ((3, 4),), kwargs={"dim": 1}),
        Case("keepdim", ((2, 3, 4),), kwargs={"dim": (0, 2), "keepdim": True}),
        Case("large", ((2, 2),), domain=D.fixed([[1000.0, 1000.0], [-1000.0, 0.0]]), kwargs={"dim": 1},
             note="no overflow at |x| = 1000"),
        Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
    ), method="logsumexp", function="LogSumExp"),
    OpInfo("norm", lambda x, p=2, dim=None, keepdim=False: x.norm(p, dim, keepdim), norm_ref, NORM_CASES,
           method="norm", function=("Norm", "Abs", "Max", "Min")),
]

# ------------------------------------ flip, roll, tile, repeat, split, chunk, //, %
def flip_call(x: Any, dims: Any = None, as_sequence: bool = False) -> Any:
    """`x.flip()` (every dim), `x.flip(*dims)` or `x.flip(dims)` (one sequence)."""
    return x.flip() if dims is None else x.flip(dims) if as_sequence else x.flip(*dims)


def flip_ref(x: np.ndarray, dims: Any = None, as_sequence: bool = False) -> np.ndarray:
    return np.flip(x, axis=None if dims is None else tuple(d % max(x.ndim, 1) for d in dims) if x.ndim else ())


def torch_split_sizes(n: int, arg: Any) -> list[int]:
    """PyTorch's piece sizes: an int is each piece's size (the last smaller), a list the sizes."""
    if not isinstance(arg, int):
        return list(arg)
    return [min(arg, n - start) for start in range(0, n, arg)] if n else [0]


def pieces_value(pieces: Any, join: Any) -> Any:
    """Piece i flattened and scaled by i + 1, joined, times the count: a piece's bounds or order,
    or the number of pieces, changes the value."""
    return join([p.reshape(-1) * float(i + 1) for i, p in enumerate(pieces)]) * float(len(pieces))


def split_ref(x: np.ndarray, size: Any, dim: int = 0) -> np.ndarray:
    sizes = torch_split_sizes(x.shape[dim], size)
    return pieces_value(np.split(x, np.cumsum(sizes)[:-1], axis=dim), np.concatenate)


def chunk_ref(x: np.ndarray, chunks: int, dim: int = 0) -> np.ndarray:
    n = x.shape[dim]
    return split_ref(x, [0] * chunks if n == 0 else -(-n // chunks), dim)


def divisors(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """+-0.5, +-1, +-2: with `off_the_steps` dividends, a / b stays at least 0.05 from every integer
    (the steps of // and %), also a number 2.6 divided by them."""
    return rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], shape)


DIVIDE_CASES = (
    Case("same_shape", ((3, 4), (3, 4))),
    Case("broadcast", ((3, 1), (1, 4))),
    Case("broadcast_rank", ((2, 3, 4), (4,))),
    Case("0d_1d", ((), (4,))),
    Case("dividend_grad", ((3, 4), (3, 4)), grad=(True, False)),
    Case("divisor_grad", ((3, 4), (3, 4)), grad=(False, True)),
    Case("empty", ((0, 3), (3,))),
    Case("signs", ((4,), (4,)), domain=(D.fixed([5.5, -5.5, 5.5, -5.5]), D.fixed([2.0, 2.0, -2.0, -2.0])),
         note="the result takes the divisor's sign (Python, NumPy, PyTorch), unlike C's fmod"),
)


def dividing(name: str, fn: Any, function: str, right: bool = False) -> OpInfo:
    """`//` or `%` (`right`: the reflected dunder), dividends off the steps, divisors +-0.5, 1, 2."""
    number = Case("number", ((3, 4),), kwargs={"number": 2.6 if right else 2.0},
                  domain=divisors if right else off_the_steps, note="number // x" if right else "x // 2.0")
    return binary(name, fn, fn, function, domain=(off_the_steps, divisors), right=right,
                  cases=DIVIDE_CASES + (number,))


REARRANGING = [
    shaped("flip", flip_call, flip_ref, "Flip", (
        Case("1d", ((5,),), kwargs={"dims": (0,)}),
        Case("rows", ((3, 4),), kwargs={"dims": (1,)}),
        Case("two_dims", ((2, 3, 4),), kwargs={"dims": (0, 2)}),
        Case("every_dim", ((2, 3, 4),), note="no dims: every dim, as np.flip(x)"),
        Case("sequence", ((3, 4),), kwargs={"dims": [-1, 0], "as_sequence": True}, note="x.flip([-1, 0])"),
        Case("0d", ((),), kwargs={"dims": (0,)}),
        Case("empty", ((0, 3),), kwargs={"dims": (0,)}),
        Case("bad_dim", ((3, 4),), kwargs={"dims": (2,)}, raises=IndexError, match="dim 2 is out of range"),
        Case("dim_twice", ((3, 4),), kwargs={"dims": (0, -2)}, raises=ValueError, match="names a dimension twice"),
    )),
    shaped("roll", lambda x, shifts, dims=None: x.roll(shifts, dims),
           lambda x, shifts, dims=None: np.roll(x, shifts, axis=dims), "Roll", (
               Case("1d", ((5,),), kwargs={"shifts": 2, "dims": 0}),
               Case("flattened", ((3, 4),), kwargs={"shifts": 5}, note="no dims: the flattened tensor rolls"),
               Case("negative", ((3, 4),), kwargs={"shifts": -1, "dims": 1}),
               Case("two_dims", ((2, 3, 4),), kwargs={"shifts": (1, -2), "dims": (0, 2)}),
               Case("one_shift_two_dims", ((3, 4),), kwargs={"shifts": 1, "dims": (0, 1)},
                    note="one int for every dim, as NumPy (PyTorch raises)"),
               Case("past_the_end", ((5,),), kwargs={"shifts": 7, "dims": -1}),
               Case("0d", ((),), kwargs={"shifts": 3}),
               Case("empty", ((0, 3),), kwargs={"shifts": 1, "dims": 0}),
               Case("shifts_dims_mismatch", ((3, 4),), kwargs={"shifts": (1, 2), "dims": (0,)}, raises=ValueError,
                    match="roll: 2 shifts (1, 2) for 1 dims (0,)"),
               Case("bad_dim", ((3, 4),), kwargs={"shifts": 1, "dims": 2}, raises=IndexError, match="out of range"),
           )),
    shaped("tile", lambda x, reps: x.tile(*reps), np.tile, "Tile", (
        Case("1d", ((3,),), kwargs={"reps": (2,)}),
        Case("2d", ((2, 3),), kwargs={"reps": (2, 3)}),
        Case("fewer_reps", ((2, 3),), kwargs={"reps": (2,)}, note="padded with 1s in front (the last dim repeats)"),
        Case("more_reps", ((3,),), kwargs={"reps": (2, 1, 2)}, note="new leading dims"),
        Case("0d", ((),), kwargs={"reps": (3,)}),
        Case("zero_reps", ((2, 3),), kwargs={"reps": (0, 2)}),
        Case("empty", ((0, 3),), kwargs={"reps": (2, 2)}),
        Case("negative", ((3,),), kwargs={"reps": (-1,)}, raises=ValueError, match="tile: repetitions (-1,)"),
    )),
    shaped("repeat", lambda x, sizes: x.repeat(*sizes), lambda x, sizes: np.tile(x, sizes), "Tile", (
        Case("2d", ((2, 3),), kwargs={"sizes": (2, 3)}),
        Case("new_dims", ((2, 3),), kwargs={"sizes": (2, 1, 2)}),
        Case("0d", ((),), kwargs={"sizes": (2, 3)}),
        Case("fewer_sizes", ((2, 3),), kwargs={"sizes": (2,)}, raises=ValueError, match="repeat: 1 sizes (2,)",
             note="PyTorch raises too; NumPy's element-wise repeat is another op"),
    )),
    shaped("split", lambda x, size, dim=0: pieces_value(x.split(size, dim), tl.cat), split_ref, "Gather", (
        Case("size", ((5,),), kwargs={"size": 2}, note="pieces of 2, the last of 1"),
        Case("size_divides", ((6, 2),), kwargs={"size": 3}),
        Case("sections", ((5,),), kwargs={"size": [1, 4]}),
        Case("dim1", ((3, 5),), kwargs={"size": 2, "dim": 1}),
        Case("sections_negative_dim", ((2, 3, 4),), kwargs={"size": [1, 3], "dim": -1}),
        Case("empty_section", ((4,),), kwargs={"size": [0, 4]}),
        Case("empty", ((0, 3),), kwargs={"size": 2}, note="one empty piece, as PyTorch"),
        Case("sections_sum", ((5,),), kwargs={"size": [2, 2]}, raises=ValueError,
             match="must be non-negative and sum to 5"),
        Case("zero_size", ((5,),), kwargs={"size": 0}, raises=ValueError, match="split: split_size 0 must be positive"),
        Case("0d", ((),), kwargs={"size": 1}, raises=ValueError, match="split: a 0-d tensor"),
        Case("bad_dim", ((3, 4),), kwargs={"size": 1, "dim": 2}, raises=IndexError, match="out of range"),
    )),
    shaped("chunk", lambda x, chunks, dim=0: pieces_value(x.chunk(chunks, dim), tl.cat), chunk_ref, "Gather", (
        Case("even", ((6,),), kwargs={"chunks": 3}),
        Case("uneven", ((5,),), kwargs={"chunks": 4}, note="3 pieces of ceil(5 / 4) = 2, 2, 1, as PyTorch"),
        Case("more_chunks_than_elements", ((2, 3),), kwargs={"chunks": 5}),
        Case("dim1", ((3, 5),), kwargs={"chunks": 2, "dim": 1}),
        Case("empty", ((0, 3),), kwargs={"chunks": 2}, note="two empty pieces, as PyTorch"),
        Case("zero_chunks", ((4,),), kwargs={"chunks": 0}, raises=ValueError, match="chunk: chunks must be positive"),
    )),
    dividing("__floordiv__", operator.floordiv, "FloorDivide"),
    dividing("__rfloordiv__", operator.floordiv, "FloorDivide", right=True),
    dividing("__mod__", operator.mod, "Remainder"),
    dividing("__rmod__", operator.mod, "Remainder", right=True),
]

OPS: list[OpInfo] = (ARITHMETIC + REDUCTIONS + ELEMENTWISE + COMPARISONS + SOFTMAX + SHAPES + INDEXING
                     + BACKWARD_HELPERS + SCALAR_FUNCTIONS + COPIES + TRANSFORMS + ARRAY_OPS + MATH
                     + INVERSE_AND_NORMS + REARRANGING)
