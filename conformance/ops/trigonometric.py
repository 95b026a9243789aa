"""The trigonometric and hyperbolic entries: sin ... tanh, their inverses (and NumPy-named aliases), atan2.

Also `TanhBack`, called directly. The inverse functions draw from inside
their domains (`uniform(-0.9, 0.9)` for asin, ...); each alias (`arcsin`)
gets a few cases of its own.

Example:
    >>> from conformance.ops.trigonometric import OPS
    >>> sorted(op.name for op in OPS if op.function == "Atan2")
    ['arctan2', 'atan2', 'tl.arctan2', 'tl.atan2']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance import domains as D
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import back, complex_twins, pair, unary, uniform

ALIAS_CASES = (Case("1d", ((5,),)), Case("batched", ((2, 3, 4),)))


def inverse(name: str, alias: str, ref: Any, function: str, domain: Any = D.normal) -> list[OpInfo]:
    """An inverse function `x.name()` (every case) and its NumPy-named alias `x.alias()` (a few)."""
    return [unary(name, ref, function, domain=domain), unary(alias, ref, function, domain=domain, cases=ALIAS_CASES)]


def atan2_origin_grad(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(b, -a) / (a**2 + b**2), and 0 at the origin (PyTorch's convention)."""
    r2 = a * a + b * b
    scale = np.divide(1.0, r2, out=np.zeros_like(r2), where=r2 > 0)
    return b * scale, -a * scale


ATAN2_DOMAIN = (D.away_from_zero, D.normal)  # y clear of 0: away from the origin and the cut at x < 0, y = 0


ATAN2_ORIGIN = (Case("origin", ((4,), (4,)), domain=(D.fixed([0.0, 0.0, 1.0, -2.0]), D.fixed([0.0, 1.5, 0.0, 2.0])),
                     grad_reference=atan2_origin_grad, double_backward=False,
                     note="the gradient is 0 at the origin (PyTorch's convention)"),)


OPS: list[OpInfo] = [
    unary("sin", np.sin, "Sin"),
    unary("cos", np.cos, "Cos"),
    unary("tan", np.tan, "Tan", domain=uniform(-1.2, 1.2)),
    unary("sinh", np.sinh, "Sinh", domain=D.bounded),
    unary("cosh", np.cosh, "Cosh", domain=D.bounded),
    unary("tanh", np.tanh, "Tanh"),
    back("TanhBack", lambda y, g: g * (1.0 - y * y), (D.normal, D.normal)),
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
]

# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
                          "atanh"})
