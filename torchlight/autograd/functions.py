"""Every built-in Function, by name: `from torchlight.autograd.functions import Add, Mul, ...`.

The seed documentation names this module. The Functions themselves live
with their category (`torchlight.ops.<category>`, and `torchlight.nn.ops`
for the ones only `nn.functional` uses), each beside the Tensor methods
that call it; this module gathers them, with the shape helpers the ops
share.

Forward receives Tensors and computes on their `.data` with the namespace
`xp = tensor.backend.xp`; backward is written with Tensor ops (and the
`*Back` Functions, differentiable in turn), so `backward(create_graph=True)`
yields correct higher derivatives. The engine, not these functions, sums a
broadcast gradient back to its input's shape and casts it to its dtype.

Conventions at kinks, where a choice is needed: relu'(0) = 0, abs'(0) = 0
(as PyTorch), max splits the gradient evenly among tied maxima, and
d(x**p)/dx is 0 where p == 0 (PyTorch's convention at x = 0).

Example:
    >>> import torchlight as tl
    >>> from torchlight.autograd.functions import Mul
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> Mul.apply(x, x).sum().backward()
    >>> x.grad.tolist()
    [2.0, 4.0]
"""

from __future__ import annotations

from torchlight.engine import Context, Function  # noqa: F401  (the base classes, as before)
from torchlight.nn.ops import (  # noqa: F401
    BinaryCrossEntropyLog,
    CrossEntropy,
    Dropout,
    Fold,
    Linear,
    Pad,
    Softplus,
    Unfold,
    window_count,  # noqa: F401
)
from torchlight.ops.activations import (  # noqa: F401
    ReLU,
    ReluBack,
    Sigmoid,
    SigmoidBack,
)
from torchlight.ops.arithmetic import (  # noqa: F401
    Add,
    Div,
    FloorDivide,
    Mul,
    Neg,
    Pow,
    Remainder,
    Sub,
)
from torchlight.ops.common import broadcast_shapes, index_key, mean_scale, normalize_dims, resolve_shape  # noqa: F401
from torchlight.ops.copies import (  # noqa: F401
    AsType,
    Clone,
    To,
)
from torchlight.ops.elementwise import (  # noqa: F401
    Abs,
    Clamp,
    Exp,
    Expm1,
    Inv,
    InvBack,
    Log,
    Log1p,
    Log2,
    Log10,
    LogAddExp,
    LogBack,
    Maximum,
    Minimum,
    PiecewiseConstant,
    Sqrt,
    Square,
)
from torchlight.ops.indexing import (  # noqa: F401
    Gather,
    GatherBack,
    TakeAlongAxis,
    Where,
    one_hot,  # noqa: F401
)
from torchlight.ops.linear_algebra import (  # noqa: F401
    MatMul,
    matmul,  # noqa: F401
)
from torchlight.ops.reductions import (  # noqa: F401
    Cumsum,
    LogSoftmax,
    LogSumExp,
    Max,
    Min,
    Norm,
    Prod,
    ReverseCumsum,
    Softmax,
    Std,
    Sum,
    Var,
)
from torchlight.ops.scalar_map import (  # noqa: F401
    Map,
    PlainPartial,
    Zip,
)
from torchlight.ops.shapes import (  # noqa: F401
    BroadcastView,
    Concat,
    Flip,
    Permute,
    Reshape,
    Roll,
    Stack,
    SumTo,
    Tile,
    sum_to,  # noqa: F401
)
from torchlight.ops.trigonometric import (  # noqa: F401
    Acos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atan2,
    Atanh,
    Cos,
    Cosh,
    Sin,
    Sinh,
    Tan,
    Tanh,
    TanhBack,
)

#: every built-in Function class, by name
__all__ = [
    "Abs",
    "Acos",
    "Acosh",
    "Add",
    "AsType",
    "Asin",
    "Asinh",
    "Atan",
    "Atan2",
    "Atanh",
    "BinaryCrossEntropyLog",
    "BroadcastView",
    "Clamp",
    "Clone",
    "Concat",
    "Cos",
    "Cosh",
    "CrossEntropy",
    "Cumsum",
    "Div",
    "Dropout",
    "Exp",
    "Expm1",
    "Flip",
    "FloorDivide",
    "Fold",
    "Gather",
    "GatherBack",
    "Inv",
    "InvBack",
    "Linear",
    "Log",
    "Log10",
    "Log1p",
    "Log2",
    "LogAddExp",
    "LogBack",
    "LogSoftmax",
    "LogSumExp",
    "Map",
    "MatMul",
    "Max",
    "Maximum",
    "Min",
    "Minimum",
    "Mul",
    "Neg",
    "Norm",
    "Pad",
    "Permute",
    "PiecewiseConstant",
    "PlainPartial",
    "Pow",
    "Prod",
    "ReLU",
    "ReluBack",
    "Remainder",
    "Reshape",
    "ReverseCumsum",
    "Roll",
    "Sigmoid",
    "SigmoidBack",
    "Sin",
    "Sinh",
    "Softmax",
    "Softplus",
    "Sqrt",
    "Square",
    "Stack",
    "Std",
    "Sub",
    "Sum",
    "SumTo",
    "TakeAlongAxis",
    "Tan",
    "Tanh",
    "TanhBack",
    "Tile",
    "To",
    "Unfold",
    "Var",
    "Where",
    "Zip",
]
