"""The activation entries: sigmoid and relu, and their `*Back` Functions called directly.

Example:
    >>> from conformance.ops.activations import OPS
    >>> [op.name for op in OPS]
    ['sigmoid', 'relu', 'ReluBack', 'SigmoidBack']
"""

from __future__ import annotations

import numpy as np

from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import UNARY, back, complex_twins, sigmoid_ref, unary

OPS: list[OpInfo] = [
    unary("sigmoid", sigmoid_ref, "Sigmoid", cases=UNARY + (
        Case("saturated", ((5,),), domain=D.fixed([-800.0, -30.0, 0.0, 30.0, 800.0]),
             note="no overflow for large |x|"),)),
    unary("relu", lambda x: np.where(x > 0, x, 0.0), "ReLU", domain=D.away_from_zero, cases=UNARY + (
        Case("kink", ((3,),), domain=D.fixed([-1.0, 0.0, 2.0]), grad_reference=lambda x: ((x > 0) * 1.0,),
             double_backward=False, note="relu'(0) = 0 (PyTorch's convention)"),)),
    back("ReluBack", lambda a, g: np.where(a > 0, g, 0.0), (D.away_from_zero, D.normal)),
    back("SigmoidBack", lambda y, g: g * y * (1.0 - y), (D.normal, D.normal)),
]

# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"sigmoid"})
