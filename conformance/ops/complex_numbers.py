"""The complex-number entries: real, imag, conj, angle (Functions Real, Imag, Conj, Angle).

Each runs on real inputs (the standard's `real` and `conj` of a real array
are the array, `imag` zeros; `angle` is 0 or pi) and, as `complex=True`
says, on complex ones, where the gradients follow PyTorch's convention.

Example:
    >>> from conformance.ops.complex_numbers import OPS
    >>> [(op.name, op.function) for op in OPS]
    [('real', 'Real'), ('imag', 'Imag'), ('conj', 'Conj'), ('angle', 'Angle')]
"""

from __future__ import annotations

import numpy as np

from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import UNARY
from torchlight.autograd import functions as F

#: the complex twins of these cases have an input whose real and imaginary parts are both away from 0
CASES = (Case("1d", ((5,),)), Case("2d", ((3, 4),)), *UNARY[3:])

OPS: list[OpInfo] = [
    OpInfo("real", lambda x: F.Real.apply(x) if x.backend.is_complex(x.dtype) else x.real * 1.0, np.real, CASES,
           method="real", function="Real", complex=True),
    OpInfo("imag", lambda x: x.imag, lambda x: np.imag(x) * 1.0, CASES, method="imag", function="Imag", complex=True),
    OpInfo("conj", lambda x: F.Conj.apply(x), np.conj, CASES, method="conj", function="Conj", complex=True),
    OpInfo("angle", lambda x: x.angle(), np.angle, CASES, domain=D.away_from_zero, method="angle",
           function="Angle", complex=True),
]
