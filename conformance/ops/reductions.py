"""The reduction entries: sum, mean, max/min (and argmax/argmin), var, std, prod, cumsum, logsumexp, norm,
softmax, log_softmax, mse_loss.

Also `ReverseCumsum` (the backward helper of
cumsum), called directly. `REDUCE_CASES` are the dim/keepdim cases the
reductions share; ties of max and min get the documented even split.

Example:
    >>> from conformance.ops.reductions import OPS
    >>> [op.name for op in OPS if op.function == ("Sum", "Mul")]
    ['mean']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import complex_twins
from torchlight.autograd import functions as F


def softmax_ref(x: np.ndarray, dim: int = -1) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def log_softmax_ref(x: np.ndarray, dim: int = -1) -> np.ndarray:
    shifted = x - np.max(x, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


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
        out = getattr(x, name)(dim, keepdim)
        return out[0] if isinstance(out, tuple) else out  # (max/min along an int dim: (values, indices))

    def reference(x: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        return ref(x, axis=dim, keepdims=keepdim)

    return OpInfo(name, call, reference, cases, method=name, function=function, **extra)


def max_ties(*hosts: np.ndarray) -> tuple[np.ndarray]:
    (x,) = hosts
    hit = (x == x.max()).astype(np.float64)
    return (hit / hit.sum(),)


def min_ties(*hosts: np.ndarray) -> tuple[np.ndarray]:
    return max_ties(*(-x for x in hosts))


SOFTMAX_CASES = (
    Case("1d", ((5,),)),
    Case("dim0", ((3, 4),), kwargs={"dim": 0}),
    Case("dim_last", ((2, 3, 4),), kwargs={"dim": -1}),
    Case("large", ((3,),), domain=D.fixed([1000.0, 0.0, -1000.0]), note="stable for large |x|"),
)


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


OPS: list[OpInfo] = [
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
    reduction("amax", np.max, "Max", REDUCE_CASES, domain=D.distinct),
    reduction("amin", np.min, "Min", REDUCE_CASES, domain=D.distinct),
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


def cumulative_call(name: str, free: bool = False) -> Any:
    def call(x: Any, dim: int, dtype: str | None = None, as_int: bool = False) -> Any:
        x = x.astype("int64") if as_int else x
        kwargs = {} if dtype is None else {"dtype": dtype}
        return getattr(tl, name)(x, dim, **kwargs) if free else getattr(x, name)(dim, **kwargs)

    return call


def cumulative_ref(fn: Any) -> Any:
    def ref(x: np.ndarray, dim: int, dtype: str | None = None, as_int: bool = False) -> np.ndarray:
        x = x.astype(np.int64) if as_int else x
        return fn(x, axis=dim) if x.ndim else x.copy()

    return ref


def whole(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(np.float64)


CUMPROD_CASES = CUMSUM_CASES + (
    Case("zeros", ((2, 5),), domain=D.fixed([[2.0, 0.0, 3.0, 0.0, -1.5], [0.0, 1.5, -2.0, 0.5, 1.2]]),
         kwargs={"dim": 1}, note="one and two zeros in a slice: the gradient is right there, to second order"),
    Case("0d", ((),), kwargs={"dim": 0}),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
    Case("sequence_dim", ((3, 4),), kwargs={"dim": (0, 1)}, raises=TypeError, match="cumprod: dim must be one int"),
)

DTYPE_CASES = (
    Case("int_to_float64", ((3, 4),), domain=whole, kwargs={"dim": 1, "dtype": "float64", "as_int": True},
         dtypes=("float64",), forward_only=True, note="dtype= casts first: an integer input's result is a float"),
)


def diff_call(free: bool) -> Any:
    def call(x: Any, *extra: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None,
             tensors: str = "") -> Any:
        given = iter(extra)
        if "p" in tensors:
            prepend = next(given)
        if "a" in tensors:
            append = next(given)
        return tl.diff(x, n, dim, prepend, append) if free else x.diff(n, dim, prepend, append)

    return call


def diff_tensors_ref(x: np.ndarray, *extra: np.ndarray, n: int = 1, dim: int = -1, prepend: Any = None,
                     append: Any = None, tensors: str = "") -> np.ndarray:
    given = iter(extra)
    if "p" in tensors:
        prepend = next(given)
    if "a" in tensors:
        append = next(given)
    ends = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return np.diff(x, n=n, axis=dim, **ends)


DIFF_CASES = (
    Case("1d", ((5,),)),
    Case("n2_dim0", ((4, 3),), kwargs={"n": 2, "dim": 0}),
    Case("n0", ((3, 4),), kwargs={"n": 0}, note="n = 0 gives the input"),
    Case("n_beyond", ((3,),), kwargs={"n": 4}, note="more differences than elements: empty"),
    Case("prepend_number", ((3, 4),), kwargs={"prepend": 0.5}),
    Case("tensors", ((3, 4), (3, 2), (3, 1)), kwargs={"tensors": "pa"}, note="gradients reach prepend and append"),
    Case("append_dim0", ((3, 4), (1, 4)), kwargs={"tensors": "a", "dim": 0, "n": 2}),
    Case("0d", ((),), raises=ValueError, match="diff: a 0-d tensor"),
    Case("bad_prepend", ((3, 4), (2, 2)), kwargs={"tensors": "p"}, raises=ValueError,
         match="diff: prepend of shape (2, 2)"),
    Case("negative_n", ((3,),), kwargs={"n": -1}, raises=ValueError, match="diff: n must be a non-negative int"),
)

OPS += [
    OpInfo("cumprod", cumulative_call("cumprod"), cumulative_ref(np.cumprod), CUMPROD_CASES + DTYPE_CASES,
           method="cumprod", function="Cumprod"),
    OpInfo("tl.cumprod", cumulative_call("cumprod", free=True), cumulative_ref(np.cumprod), CUMSUM_CASES[:3],
           function="Cumprod"),
    OpInfo("cumsum.dtype", cumulative_call("cumsum"), cumulative_ref(np.cumsum), DTYPE_CASES + (
        Case("same_dtype", ((3, 4),), kwargs={"dim": 0, "dtype": "float64"}, dtypes=("float64",)),
    ), method="cumsum", function="Cumsum"),
    OpInfo("tl.cumsum", cumulative_call("cumsum", free=True), cumulative_ref(np.cumsum), CUMSUM_CASES[:3],
           function="Cumsum"),
    OpInfo("diff", diff_call(False), diff_tensors_ref, DIFF_CASES, method="diff", function=("Gather", "Sub")),
    OpInfo("tl.diff", diff_call(True), diff_tensors_ref, DIFF_CASES[:6], function=("Gather", "Sub", "Concat")),
]

# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"sum", "mean", "prod", "cumsum", "ReverseCumsum"})
