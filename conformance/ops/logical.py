"""The entries of the tests of values: isnan, isinf, isfinite, signbit, logical_and/or/xor/not, any, all,
count_nonzero, isin (no Function: no gradient), as methods and as free functions.

Each checks the value and its dtype (`differentiable=False`). The inputs are
floats with NaNs, infinities, signed zeros or zeros where the op looks for
them; an `as_int` case casts them to int64 first (the standard's integer rules).

Example:
    >>> from conformance.ops.logical import OPS
    >>> [op.name for op in OPS][:3]
    ['isnan', 'isinf', 'isfinite']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import torchlight as tl
from conformance import domains as D
from conformance.opinfo import Case, OpInfo

NAN, INF = math.nan, math.inf

SPECIAL = D.fixed([[NAN, INF, -INF, 0.0, -0.0], [1.5, -2.0, NAN, -INF, 3.0]])


def sparse(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Normal values, about half of them exactly zero (what any, all and count_nonzero look at)."""
    return rng.standard_normal(shape) * rng.integers(0, 2, shape)


def whole(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Integers from -3 to 3 held as floats (the int cases cast them to int64)."""
    return rng.integers(-3, 4, shape).astype(np.float64)


def _int(x: Any, as_int: bool) -> Any:
    if not as_int:
        return x
    return x.astype("int64") if isinstance(x, tl.Tensor) else x.astype(np.int64)


VALUE_CASES = (
    Case("special", ((2, 5),), domain=SPECIAL, ieee=True, note="NaN, +-inf, signed zeros"),
    Case("2d", ((3, 4),)),
    Case("0d", ((),)),
    Case("empty", ((0, 3),)),
    Case("as_int", ((3, 4),), domain=whole, kwargs={"as_int": True}, note="an integer input"),
)


def value_test(name: str, ref: Any, free: bool = False) -> OpInfo:
    def call(x: Any, as_int: bool = False) -> Any:
        x = _int(x, as_int)
        return getattr(tl, name)(x) if free else getattr(x, name)()

    return OpInfo(f"tl.{name}" if free else name, call, lambda x, as_int=False: ref(_int(x, as_int)), VALUE_CASES,
                  method=None if free else name, differentiable=False, output_dtype="bool")


LOGICAL_CASES = (
    Case("masks", ((3, 4), (3, 4)), kwargs={"masks": True}, note="booleans, as the standard asks"),
    Case("numbers_as_truth", ((3, 4), (3, 4)), domain=sparse, note="nonzero reads as True (PyTorch)"),
    Case("broadcast", ((3, 1), (4,)), domain=sparse),
    Case("python_bool", ((3, 4),), domain=sparse, kwargs={"number": True}),
    Case("0d", ((), ()), domain=sparse),
    Case("shape_mismatch", ((2, 3), (4,)), raises=ValueError, match="shapes (2, 3) and (4,)"),
)


def logical(name: str, ref: Any, free: bool = False) -> OpInfo:
    def call(a: Any, b: Any = None, number: Any = None, masks: bool = False) -> Any:
        if masks:
            a, b = a > 0.0, b < 0.5
        other = number if b is None else b
        return getattr(tl, name)(a, other) if free else getattr(a, name)(other)

    def reference(a: Any, b: Any = None, number: Any = None, masks: bool = False) -> Any:
        if masks:
            a, b = a > 0.0, b < 0.5
        return ref(a != 0, (number if b is None else b) != 0)

    return OpInfo(f"tl.{name}" if free else name, call, reference, LOGICAL_CASES,
                  method=None if free else name, differentiable=False, output_dtype="bool")


REDUCE_CASES = (
    Case("all", ((3, 4),), domain=sparse),
    Case("dim1", ((3, 4),), domain=sparse, kwargs={"dim": 1}),
    Case("dims_keepdim", ((2, 3, 4),), domain=sparse, kwargs={"dim": (0, 2), "keepdim": True}),
    Case("negative_dim", ((2, 3, 4),), domain=sparse, kwargs={"dim": -1}),
    Case("0d", ((),), domain=sparse),
    Case("empty", ((0, 3),), kwargs={"dim": 0}, note="any: False, all: True, count: 0 over no elements"),
    Case("mask", ((3, 4),), kwargs={"dim": 0, "masks": True}),
    Case("nan_is_true", ((2, 5),), domain=SPECIAL, ieee=True, kwargs={"dim": 1}),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
)


def reduction(name: str, ref: Any, output_dtype: str, free: bool = False) -> OpInfo:
    def call(x: Any, dim: Any = None, keepdim: bool = False, masks: bool = False) -> Any:
        x = x > 0.0 if masks else x
        return getattr(tl, name)(x, dim, keepdim) if free else getattr(x, name)(dim, keepdim)

    def reference(x: Any, dim: Any = None, keepdim: bool = False, masks: bool = False) -> Any:
        x = x > 0.0 if masks else x
        return ref(x != 0, axis=dim, keepdims=keepdim)

    return OpInfo(f"tl.{name}" if free else name, call, reference, REDUCE_CASES, method=None if free else name,
                  differentiable=False, output_dtype=output_dtype)


def count_ref(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.sum(x, axis=axis, keepdims=keepdims)


TESTS = np.array([0.0, 1.0, -2.0, 3.0, NAN])

ISIN_CASES = (
    Case("ints", ((3, 4),), domain=whole, kwargs={"tests": TESTS[:4], "as_int": True}),
    Case("floats", ((2, 5),), domain=SPECIAL, ieee=True, kwargs={"tests": TESTS}, note="NaN is in nothing"),
    Case("invert", ((3, 4),), domain=whole, kwargs={"tests": TESTS[:4], "invert": True}),
    Case("2d_tests", ((3, 4),), domain=whole, kwargs={"tests": np.array([[1.0, 2.0], [-1.0, 5.0]])}),
    Case("int_in_floats", ((3, 4),), domain=whole, kwargs={"tests": TESTS[:4], "as_int": True, "float_tests": True},
         note="integers compared with floats, as floats"),
    Case("no_tests", ((3, 4),), domain=whole, kwargs={"tests": TESTS[:0]}),
    Case("0d", ((),), domain=whole, kwargs={"tests": TESTS[:4]}),
    Case("python_list", ((3, 4),), domain=whole, kwargs={"tests": [1.0, -2.0], "as_list": True}),
)


def isin_op(free: bool) -> OpInfo:
    def call(x: Any, tests: Any, invert: bool = False, as_int: bool = False, float_tests: bool = False,
             as_list: bool = False) -> Any:
        x = _int(x, as_int)
        if not as_list:
            host = np.asarray(tests, dtype=np.float64 if float_tests or not as_int else np.int64)
            floats = x.backend.default_float(x._device) if host.dtype.kind == "f" else None  # (no_float64: float32)
            tests = x.backend.asarray(host, dtype=floats, device=x._device)
            if not float_tests and not as_int:
                tests = x.backend.xp.astype(tests, x.dtype)
            tests = tl.tensor(tests)
        return tl.isin(x, tests, invert=invert) if free else x.isin(tests, invert=invert)

    def reference(x: Any, tests: Any, invert: bool = False, as_int: bool = False, float_tests: bool = False,
                  as_list: bool = False) -> Any:
        return np.isin(_int(x, as_int), np.asarray(tests), invert=invert)

    return OpInfo("tl.isin" if free else "isin", call, reference, ISIN_CASES, method=None if free else "isin",
                  differentiable=False, output_dtype="bool")


OPS: list[OpInfo] = [
    value_test("isnan", np.isnan),
    value_test("isinf", np.isinf),
    value_test("isfinite", np.isfinite),
    value_test("signbit", np.signbit),
    *(value_test(n, getattr(np, n), free=True) for n in ("isnan", "isinf", "isfinite", "signbit")),
    logical("logical_and", np.logical_and),
    logical("logical_or", np.logical_or),
    logical("logical_xor", np.logical_xor),
    *(logical(n, getattr(np, n), free=True) for n in ("logical_and", "logical_or", "logical_xor")),
    OpInfo("logical_not", lambda x, as_int=False: _int(x, as_int).logical_not(),
           lambda x, as_int=False: np.logical_not(_int(x, as_int)), VALUE_CASES, method="logical_not",
           differentiable=False, output_dtype="bool"),
    OpInfo("tl.logical_not", lambda x, as_int=False: tl.logical_not(_int(x, as_int)),
           lambda x, as_int=False: np.logical_not(_int(x, as_int)), VALUE_CASES[:3], differentiable=False,
           output_dtype="bool"),
    reduction("any", np.any, "bool"),
    reduction("all", np.all, "bool"),
    reduction("count_nonzero", count_ref, "int"),
    reduction("any", np.any, "bool", free=True),
    reduction("all", np.all, "bool", free=True),
    reduction("count_nonzero", count_ref, "int", free=True),
    isin_op(False),
    isin_op(True),
]
