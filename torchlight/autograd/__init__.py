"""The public face of the reverse-mode engine: Functions, the graph walk, gradient checks.

The engine itself lives in `torchlight.engine` (below the op library and
Tensor in the layers); this package re-exports it beside the tools built
on Tensors (`gradcheck`, `grad`, `to_dot`: a picture of the graph) and
`functions`, every built-in Function.

Example:
    >>> from torchlight.autograd import Function, Context, History
    >>> from torchlight.autograd import backpropagate, topological_sort, central_difference
"""

from torchlight.autograd.functional import grad
from torchlight.autograd.gradcheck import GradcheckError, central_difference, gradcheck, gradgradcheck
from torchlight.autograd.graph import to_dot
from torchlight.engine import (
    Context,
    Function,
    GraphVariable,
    History,
    Variable,
    backpropagate,
    once_differentiable,
    topological_sort,
)
from torchlight.engine.anomaly import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from torchlight.engine.hooks import RemovableHandle

__all__ = [
    "Context",
    "Function",
    "GradcheckError",
    "GraphVariable",
    "History",
    "RemovableHandle",
    "Variable",
    "backpropagate",
    "central_difference",
    "detect_anomaly",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "once_differentiable",
    "set_detect_anomaly",
    "to_dot",
    "topological_sort",
]
