"""The entries of the op database, one module per op category of the library (torchlight/ops/<category>.py).

Each category module holds an `OPS` list of `OpInfo`s: an entry lives in the
category of the Function its `function=` field names (the first that has a
category), a Tensor method with no Function of its own with the Function it
is built on (`mean` in reductions, `squeeze` in shapes). `common` holds the
case tables and entry builders the categories share (`UNARY`, `BINARY`,
`unary`, `binary`, `binary_errors`, ...). `CATEGORIES` maps each Function to
its category (the re-layering's plan); `conformance.database.AREAS` lists
the modules, and `conformance/test_database.py` checks that every entry sits
in its Function's category and that no module is left out.

Example:
    >>> from conformance.ops import CATEGORIES, elementwise
    >>> CATEGORIES["Exp"], [op.name for op in elementwise.OPS if op.function == "Exp"]
    ('elementwise', ['exp'])
"""

from __future__ import annotations

#: the category modules, in database order (`nn`: the torchlight.nn.functional entries)
MODULES = ("arithmetic", "linear_algebra", "elementwise", "activations", "trigonometric", "reductions", "shapes",
           "indexing", "copies", "scalar_map", "comparisons", "nn")

_PLAN = {
    "arithmetic": "Add Sub Mul Div Neg Pow FloorDivide Remainder",
    "linear_algebra": "MatMul",
    "elementwise": "Exp Log LogBack Inv InvBack Sqrt Abs Log1p Expm1 Log2 Log10 Square PiecewiseConstant Maximum "
                   "Minimum LogAddExp Clamp Hypot Copysign",
    "activations": "Sigmoid SigmoidBack ReLU ReluBack",
    "trigonometric": "Sin Cos Tan Sinh Cosh Tanh TanhBack Asin Acos Atan Asinh Acosh Atanh Atan2",
    "reductions": "Sum SumTo Max Min Var Std Prod Norm Cumsum ReverseCumsum LogSumExp Softmax LogSoftmax",
    "shapes": "Permute Reshape BroadcastView Concat Stack Flip Roll Tile",
    "indexing": "Gather GatherBack TakeAlongAxis Where",
    "copies": "Clone AsType To",
    "scalar_map": "Map Zip PlainPartial",
    "nn": "Linear Softplus Dropout CrossEntropy BinaryCrossEntropyLog Pad Unfold Fold",
}

#: Function name -> the category (module of `MODULES`) it belongs to
CATEGORIES: dict[str, str] = {f: category for category, names in _PLAN.items() for f in names.split()}
