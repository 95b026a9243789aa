"""The entries of the array API namespace (`torchlight.array_api`) where a function is more than a
1:1 wrapper of an op the other categories check: `include_initial`, `axis=None` of concat, the
standard's `correction` and `dtype` arguments, clip's bounds, NumPy's repeat, Python scalars on
the left of a binary function, asarray/astype's copies.

Each entry is named `xp.<function>` and names the Functions it is built on;
they run on every backend and device as the other categories do (forward vs
NumPy in float64, backward vs central differences, double backward, bad
input with the standard's exception naming the function).

Example:
    >>> from conformance.ops.array_api import OPS
    >>> [op.name for op in OPS][:3]
    ['xp.cumulative_sum', 'xp.concat', 'xp.clip']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight.array_api as xp
from conformance import domains as D
from conformance.opinfo import Case, OpInfo, Tol
from torchlight import backends


def cumulative_sum_ref(x: np.ndarray, axis: int | None = None, include_initial: bool = False,
                       dtype: Any = None) -> np.ndarray:
    axis = 0 if axis is None else axis
    out = np.cumsum(x, axis=axis)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = np.concatenate([np.zeros(shape), out], axis=axis)
    return out


def concat_ref(*parts: np.ndarray, axis: int | None = 0) -> np.ndarray:
    if axis is None:
        return np.concatenate([p.reshape(-1) for p in parts])
    return np.concatenate(parts, axis=axis)


def clip_call(x: Any, lo: Any = None, hi: Any = None, *, lo_value: Any = None, hi_value: Any = None) -> Any:
    return xp.clip(x, lo if lo is not None else lo_value, hi if hi is not None else hi_value)


def clip_ref(x: np.ndarray, lo: Any = None, hi: Any = None, *, lo_value: Any = None, hi_value: Any = None) -> Any:
    lo = lo if lo is not None else lo_value
    hi = hi if hi is not None else hi_value
    out = x if lo is None else np.maximum(x, lo)
    return out if hi is None else np.minimum(out, hi)


def repeat_call(x: Any, repeats: Any, axis: int | None = None) -> Any:
    if isinstance(repeats, np.ndarray):
        repeats = xp.asarray(repeats, device=x.device)
    return xp.repeat(x, repeats, axis=axis)


def to_device_call(x: Any, backend: str) -> Any:
    """`x.to_device(d)` with `d` a Device of `backend` (another tensor's `.device`)."""
    be = backends.get(backend)
    return x.to_device(be.device_object(be.device_of(be.asarray([0.0]))))


def scalar_left(name: str, value: float, ref: Any, domain: Any = D.normal) -> OpInfo:
    """`xp.<name>(value, x)`: a Python scalar on the left, as 2024.12 allows."""
    return OpInfo(f"xp.{name}", lambda x: getattr(xp, name)(value, x), lambda x: ref(value, x), (
        Case("2d", ((3, 4),)),
        Case("0d", ((),)),
    ), domain=domain, function={"subtract": "Sub", "divide": "Div", "pow": "Pow"}[name])


BAD_AXIS = "axis 2 is out of range"

OPS: list[OpInfo] = [
    OpInfo("xp.cumulative_sum", lambda x, **kw: xp.cumulative_sum(x, **kw), cumulative_sum_ref, (
        Case("1d", ((5,),)),
        Case("include_initial", ((5,),), kwargs={"include_initial": True}, note="a 0 first, then the running sum"),
        Case("axis1_initial", ((3, 4),), kwargs={"axis": 1, "include_initial": True}),
        Case("axis0", ((3, 4),), kwargs={"axis": 0}),
        Case("empty_initial", ((0,),), kwargs={"include_initial": True}),
        Case("no_axis_2d", ((3, 4),), raises=ValueError, match="cumulative_sum: axis is required"),
        Case("bad_axis", ((3, 4),), kwargs={"axis": 2}, raises=IndexError, match="cumulative_sum: " + BAD_AXIS),
    ), function=("Cumsum", "Concat")),
    OpInfo("xp.concat", lambda *parts, axis=0: xp.concat(list(parts), axis=axis), concat_ref, (
        Case("axis_none", ((2, 3), (4,)), kwargs={"axis": None}, note="each part flattened first"),
        Case("axis1", ((2, 3), (2, 1)), kwargs={"axis": 1}),
        Case("axis0", ((1, 3), (2, 3))),
        Case("bad_axis", ((2, 3), (2, 3)), kwargs={"axis": 2}, raises=IndexError, match="cat: dim 2"),
    ), function=("Concat", "Reshape")),
    OpInfo("xp.clip", clip_call, clip_ref, (
        Case("scalars", ((3, 4),), kwargs={"lo_value": -0.5, "hi_value": 0.5}),
        Case("min_only", ((3, 4),), kwargs={"lo_value": 0.1}),
        Case("max_only", ((3, 4),), kwargs={"hi_value": -0.1}),
        Case("array_bounds", ((3, 4), (4,), (3, 1)), note="each bound gets the gradient where it is the value"),
        Case("neither", ((3,),), note="no bounds: a copy"),
    ), function=("Clamp", "Clone")),
    OpInfo("xp.var", lambda x, **kw: xp.var(x, **kw), lambda x, correction=0.0, **kw: np.var(x, ddof=correction, **kw),
           (
               Case("all", ((3, 4),), note="the standard's correction=0"),
               Case("correction1_axis0", ((3, 4),), kwargs={"correction": 1, "axis": 0}),
               Case("axes_keepdims", ((2, 3, 4),), kwargs={"axis": (0, 2), "keepdims": True, "correction": 0.5}),
           ), function="Var"),
    OpInfo("xp.std", lambda x, **kw: xp.std(x, **kw), lambda x, correction=0.0, **kw: np.std(x, ddof=correction, **kw),
           (
               Case("all", ((3, 4),)),
               Case("correction1_axis1", ((3, 4),), kwargs={"correction": 1, "axis": 1}),
               Case("keepdims", ((3, 4),), kwargs={"axis": -1, "keepdims": True}),
           ), function="Std"),
    OpInfo("xp.sum", lambda x, **kw: xp.sum(x, **kw), lambda x, dtype=None, **kw: np.sum(x, **kw), (
        Case("axes_keepdims", ((2, 3, 4),), kwargs={"axis": (0, 2), "keepdims": True}),
        Case("dtype_float64", ((3, 4),), kwargs={"axis": 1, "dtype": xp.float64}, dtypes=("float64",)),
        Case("bad_axis", ((3, 4),), kwargs={"axis": 2}, raises=IndexError, match="out of range"),
    ), function="Sum"),
    OpInfo("xp.prod", lambda x, **kw: xp.prod(x, **kw), lambda x, **kw: np.prod(x, **kw), (
        Case("axis0", ((3, 4),), kwargs={"axis": 0}),
        Case("keepdims", ((3, 4),), kwargs={"axis": 1, "keepdims": True}),
    ), function="Prod"),
    OpInfo("xp.max", lambda x, **kw: xp.max(x, **kw), lambda x, **kw: np.max(x, **kw), (
        Case("axis1", ((3, 4),), kwargs={"axis": 1}, note="the values only (PyTorch's face also gives indices)"),
        Case("axes_keepdims", ((2, 3, 4),), kwargs={"axis": (0, 1), "keepdims": True}),
    ), function="Max"),
    OpInfo("xp.min", lambda x, **kw: xp.min(x, **kw), lambda x, **kw: np.min(x, **kw), (
        Case("axis0", ((3, 4),), kwargs={"axis": 0}),
    ), function="Min"),
    OpInfo("xp.mean", lambda x, **kw: xp.mean(x, **kw), lambda x, **kw: np.mean(x, **kw), (
        Case("axes", ((2, 3, 4),), kwargs={"axis": (1, 2)}),
    ), function=("Sum", "Mul")),
    OpInfo("xp.repeat", repeat_call, lambda x, repeats, axis=None: np.repeat(x, repeats, axis=axis), (
        Case("int_flat", ((2, 3),), kwargs={"repeats": 2}, note="NumPy's repeat: axis None flattens"),
        Case("int_axis1", ((2, 3),), kwargs={"repeats": 3, "axis": 1}),
        Case("array_axis0", ((3, 2),), kwargs={"repeats": np.array([0, 2, 1]), "axis": 0},
             skips={"dask": "an array of repeats gives a data-dependent shape"}),
        Case("negative", ((3,),), kwargs={"repeats": -1}, raises=ValueError, match="repeat: repeats must be"),
    ), function="Gather"),
    OpInfo("xp.where", lambda x, cond: xp.where(xp.asarray(cond, device=x.device), 0.5, x),
           lambda x, cond: np.where(cond, 0.5, x), (
               Case("scalar_left", ((2, 3),), kwargs={"cond": np.array([[True, False, True], [False, False, True]])},
                    note="a Python scalar as x1 (2024.12)"),
           ), function="Where"),
    OpInfo("xp.broadcast_arrays", lambda a, b: xp.stack(xp.broadcast_arrays(a, b)),
           lambda a, b: np.stack(np.broadcast_arrays(a, b)), (
               Case("row_and_column", ((3, 1), (4,))),
               Case("mismatch", ((3,), (4,)), raises=ValueError, match="broadcast_arrays: shapes"),
           ), function=("BroadcastView", "Stack")),
    OpInfo("xp.expand_dims", lambda x, axis: xp.expand_dims(x, axis=axis),
           lambda x, axis: np.expand_dims(x, axis), (
               Case("last", ((3, 4),), kwargs={"axis": -1}),
               Case("bad_axis", ((3, 4),), kwargs={"axis": 3}, raises=IndexError, match="expand_dims: axis 3"),
           ), function="Reshape"),
    OpInfo("xp.squeeze", lambda x, axis: xp.squeeze(x, axis), lambda x, axis: np.squeeze(x, axis), (
        Case("axes", ((1, 3, 1),), kwargs={"axis": (0, 2)}),
        Case("not_one", ((2, 3),), kwargs={"axis": 0}, raises=ValueError, match="squeeze: axis 0 has size 2"),
    ), function="Reshape"),
    OpInfo("xp.flip", lambda x, **kw: xp.flip(x, **kw), lambda x, **kw: np.flip(x, **kw), (
        Case("all_axes", ((3, 4),)),
        Case("axis1", ((3, 4),), kwargs={"axis": 1}),
    ), function="Flip"),
    OpInfo("xp.reshape", lambda x, shape, copy=None: xp.reshape(x, shape, copy=copy),
           lambda x, shape, copy=None: np.reshape(x, shape), (
               Case("minus_one_copy", ((3, 4),), kwargs={"shape": (2, -1), "copy": True}),
               Case("bad_size", ((3, 4),), kwargs={"shape": (5, -1)}, raises=ValueError, match="reshape: cannot"),
           ), function=("Reshape", "Clone")),
    OpInfo("xp.matrix_transpose", lambda x: xp.matrix_transpose(x), lambda x: np.swapaxes(x, -1, -2), (
        Case("batch", ((2, 3, 4),)),
        Case("1d", ((3,),), raises=ValueError, match="matrix_transpose: x must have at least 2"),
    ), function="Permute"),
    scalar_left("subtract", 2.0, np.subtract),
    scalar_left("divide", 1.5, np.divide, D.positive),
    scalar_left("pow", 2.0, np.power),
    OpInfo("xp.asarray", lambda x, copy=None: xp.asarray(x, copy=copy), lambda x, copy=None: x.copy(), (
        Case("copy", ((3,),), kwargs={"copy": True}, note="a copy that stays in the graph"),
        Case("same", ((3,),), note="the tensor itself"),
    ), function="Clone"),
    OpInfo("xp.astype", lambda x, to: xp.astype(x, getattr(xp, to)), lambda x, to: x.astype(to), (
        Case("to_float32", ((3, 4),), kwargs={"to": "float32"}, dtypes=("float64",),
             tol={"forward": Tol("the value is rounded to float32", atol=1e-6, rtol=1e-6),
                  "agreement": Tol("the value is rounded to float32", atol=1e-6, rtol=1e-6),
                  "backward": Tol("the output is float32: central differences need a float32-sized step",
                                  eps=1e-3, atol=1e-4, rtol=1e-4)}),
        Case("same_copy", ((3,),), kwargs={"to": "float64"}, dtypes=("float64",)),
    ), function=("AsType", "Clone"), output_dtype="float"),
    OpInfo("to_device", to_device_call, lambda x, backend: x, (
        Case("numpy", ((3, 4),), kwargs={"backend": "numpy"}),
        Case("to_numpy", ((2, 3),), kwargs={"backend": "numpy"}, note="from any backend to numpy's cpu"),
    ), method="to_device", function="To", same_backend=False),
]
