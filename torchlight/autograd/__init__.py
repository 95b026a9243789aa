"""The reverse-mode engine: Functions, the graph walk, gradient checks.

Example:
    >>> from torchlight.autograd import Function, Context, History
    >>> from torchlight.autograd import backpropagate, topological_sort, central_difference
"""

from torchlight.autograd.engine import backpropagate, topological_sort
from torchlight.autograd.function import Context, Function, History
from torchlight.autograd.functional import grad
from torchlight.autograd.gradcheck import GradcheckError, central_difference, gradcheck, gradgradcheck

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
    "topological_sort",
]
