"""The engine: Function, Context, History and the graph walk, over the `Variable` protocol.

It never imports `Tensor` (which subclasses `Variable`) or the op library:
the layers above it plug in through the Variable hooks. Users reach it
through `torchlight.autograd`, which re-exports the public names.

Example:
    >>> from torchlight.engine import Function, History, topological_sort, Variable
"""

from torchlight.engine.function import (
    WRITES,
    Context,
    Function,
    GraphVariable,
    History,
    once_differentiable,
    record_pair,
    transposing_backward,
)
from torchlight.engine.graph import backpropagate, run_backward, sort_nodes, topological_sort
from torchlight.engine.variable import Variable

__all__ = [
    "WRITES",
    "Context",
    "Function",
    "GraphVariable",
    "History",
    "Variable",
    "backpropagate",
    "once_differentiable",
    "record_pair",
    "run_backward",
    "sort_nodes",
    "topological_sort",
    "transposing_backward",
]
