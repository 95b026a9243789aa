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
from torchlight.engine import Context, Function, History, backpropagate, topological_sort

__all__ = [
    "Context",
    "Function",
    "GradcheckError",
    "History",
    "backpropagate",
    "central_difference",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "to_dot",
    "topological_sort",
]
