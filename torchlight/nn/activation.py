"""Activation layers: `ReLU`, `Tanh`, `Sigmoid`, `GELU`, `Softmax`, `LogSoftmax`, `LeakyReLU`, `SiLU`,
`ELU`, `Mish`, `Softplus`, `Hardtanh`.

Example:
    >>> import torchlight as tl
    >>> tl.nn.ReLU()(tl.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
"""

from __future__ import annotations

from torchlight.nn import functional as F
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class ReLU(Module):
    """max(x, 0); relu'(0) = 0.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        >>> y = tl.nn.ReLU()(x)
        >>> y.sum().backward()
        >>> y.tolist(), x.grad.tolist()
        ([0.0, 0.0, 2.0], [0.0, 0.0, 1.0])
    """

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class Tanh(Module):
    """The hyperbolic tangent, elementwise (`torchlight.nn.functional.tanh`).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.Tanh()(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [-0.7616, 0.0, 0.964]
    """

    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Sigmoid(Module):
    """The logistic sigmoid 1 / (1 + exp(-x)), elementwise.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.Sigmoid()(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [0.2689, 0.5, 0.8808]
    """

    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class GELU(Module):
    """x * Phi(x) (`approximate="tanh"`: PyTorch's tanh form); see `torchlight.nn.functional.gelu`.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.GELU()(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [-0.1587, 0.0, 1.9545]
        >>> [round(v, 4) for v in tl.nn.GELU(approximate="tanh")(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [-0.1588, 0.0, 1.9546]
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', not {approximate!r}")
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    """exp(x) / sum(exp(x)) along `dim` (the last by default): each slice sums to 1.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.Softmax(dim=0)(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [0.042, 0.1142, 0.8438]
        >>> rows = tl.nn.Softmax(dim=1)(tl.tensor([[0.0, 0.0], [1.0, 3.0]]))
        >>> [[round(v, 4) for v in row] for row in rows.tolist()]
        [[0.5, 0.5], [0.1192, 0.8808]]
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """x - logsumexp(x) along `dim` (the last by default): the log of `Softmax`, without its overflow.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.LogSoftmax(dim=0)(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [-3.1698, -2.1698, -0.1698]
        >>> tl.nn.LogSoftmax(dim=0)(tl.tensor([1000.0, 1000.0])).tolist()
        [-0.6931471805599453, -0.6931471805599453]
    """

    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.dim)


class _Inplace(Module):
    """An activation with PyTorch's `inplace` flag, kept for the repr (the values are computed out of place)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        if not isinstance(inplace, bool):
            raise TypeError(f"{type(self).__name__}: inplace must be a bool, not {inplace!r}")
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(_Inplace):
    """x where x > 0, else negative_slope * x.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.LeakyReLU(0.2)(tl.tensor([-1.0, 1.0])).tolist()
        [-0.2, 1.0]
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.negative_slope = negative_slope

    def forward(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class SiLU(_Inplace):
    """x * sigmoid(x) (also called swish).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.SiLU()(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [-0.2689, 0.0, 1.7616]
    """

    def forward(self, x: Tensor) -> Tensor:
        return F.silu(x)


class Mish(_Inplace):
    """x * tanh(softplus(x)).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.Mish()(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [-0.3034, 0.0, 1.944]
    """

    def forward(self, x: Tensor) -> Tensor:
        return F.mish(x)


class ELU(_Inplace):
    """x where x > 0, else alpha * (exp(x) - 1).

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.ELU(alpha=1.0)(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [-0.6321, 0.0, 2.0]
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(inplace)
        self.alpha = alpha

    def forward(self, x: Tensor) -> Tensor:
        return F.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardtanh(_Inplace):
    """x clamped to `[min_val, max_val]`; the gradient is 1 strictly inside, 0 elsewhere.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([-2.0, 0.5, 1.0], requires_grad=True)
        >>> y = tl.nn.Hardtanh(-1.0, 1.0)(x)
        >>> y.sum().backward()
        >>> y.tolist(), x.grad.tolist()
        ([-1.0, 0.5, 1.0], [0.0, 1.0, 0.0])
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__(inplace)
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val={min_val} must be at most max_val={max_val}")
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x: Tensor) -> Tensor:
        return F.hardtanh(x, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold.

    Example:
        >>> import torchlight as tl
        >>> [round(v, 4) for v in tl.nn.Softplus()(tl.tensor([-1.0, 0.0, 2.0])).tolist()]
        [0.3133, 0.6931, 2.1269]
        >>> tl.nn.Softplus(beta=1.0, threshold=20.0)(tl.tensor([30.0])).tolist()
        [30.0]
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x: Tensor) -> Tensor:
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"
