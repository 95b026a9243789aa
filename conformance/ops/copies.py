"""The copy and move entries: clone, detach, astype (and PyTorch's float, double, half), to (Functions
Clone, AsType, To).

Example:
    >>> from conformance.ops.copies import OPS
    >>> [(op.name, op.function) for op in OPS][:4]
    [('clone', 'Clone'), ('detach', None), ('astype', 'AsType'), ('float', None)]
"""

from __future__ import annotations

import numpy as np

from conformance import domains as D
from conformance.opinfo import Case, OpInfo, Tol
from conformance.ops.common import UNARY, complex_twins

OPS: list[OpInfo] = [
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
    # PyTorch's casts: the target dtype is named in each case's kwargs (a device without float64 skips it)
    OpInfo("float", lambda x, target: x.float(), lambda x, target: x, (
        Case("to_float32", ((3, 4),), kwargs={"target": "float32"}, dtypes=("float64",),
             tol={"forward": Tol("the value is rounded to float32", atol=1e-6, rtol=1e-6),
                  "agreement": Tol("the value is rounded to float32", atol=1e-6, rtol=1e-6),
                  "backward": Tol("the output is float32: central differences need a float32-sized step",
                                  eps=1e-3, atol=1e-4, rtol=1e-4)}),
    ), method="float", output_dtype="float"),
    OpInfo("double", lambda x, target: x.double(), lambda x, target: x, (
        Case("to_float64", ((3, 4),), kwargs={"target": "float64"}, dtypes=("float32",)),
    ), method="double", output_dtype="float"),
    OpInfo("half", lambda x, target: x.half(), lambda x, target: x.astype(np.float16), (
        Case("to_float16", ((3,),), domain=D.fixed([0.5, -1.0, 2.0]), kwargs={"target": "float16"},
             forward_only=True, skips={"array_api_strict": "array_api_strict has no float16"}),
    ), method="half", output_dtype="float", differentiable=False),
    OpInfo("to", lambda x, backend: x.to(backend=backend), lambda x, backend: x, (
        Case("numpy", ((3, 4),), kwargs={"backend": "numpy"}),
        Case("array_api_strict", ((3, 4),), kwargs={"backend": "array_api_strict"}),
    ), method="to", function="To", same_backend=False),
]

# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"clone", "to"})
