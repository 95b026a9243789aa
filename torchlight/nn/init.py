"""Weight initialisation, as PyTorch documents it (`torch.nn.init`).

Every function draws from the tensor's backend generator (seed it with
`tl.manual_seed`, or pass `generator=` a `numpy.random.Generator`), sets the
tensor's `.data` to a new array of its own dtype and device (functionally:
JAX arrays cannot be written in place), records no history, and returns the
tensor.

Example:
    >>> import torchlight as tl
    >>> tl.manual_seed(0)
    >>> w = tl.nn.Parameter(tl.zeros(4, 3))
    >>> _ = tl.nn.init.kaiming_uniform_(w, a=5 ** 0.5)
    >>> bool((w.abs() <= 3 ** -0.5).numpy().all())    # bound = 1 / sqrt(fan_in)
    True
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from torchlight.tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant_",
    "default_weight_and_bias_",
    "fan_in_and_fan_out",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight: (in, out) features times the kernel size.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.init.fan_in_and_fan_out(tl.zeros(8, 3))  # a Linear(3, 8) weight
        (3, 8)
        >>> tl.nn.init.fan_in_and_fan_out(tl.zeros(16, 4, 3, 3))  # a Conv2d(4, 16, 3) weight
        (36, 144)
    """
    if tensor.ndim < 2:
        raise ValueError(f"fan in and fan out need a tensor of at least 2 dimensions, not shape {tensor.shape}")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.init.calculate_gain("tanh")
        1.6666666666666667
        >>> tl.nn.init.calculate_gain("relu") == 2 ** 0.5
        True
        >>> round(tl.nn.init.calculate_gain("leaky_relu", 0.2), 6)
        1.38675
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "sigmoid", "identity")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is not None and (isinstance(param, bool) or not isinstance(param, numbers.Real)):
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a number")  # True is no slope
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1.0 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4.0
    raise ValueError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}")


def _draw(tensor: Tensor, kind: str, generator: Any) -> Any:
    return tensor.backend.random(kind, tensor.shape, tensor.dtype, tensor._device, generator)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with U(a, b).

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> w = tl.nn.init.uniform_(tl.zeros(100), a=-2.0, b=2.0)
        >>> bool(((w >= -2.0) & (w < 2.0)).all())
        True
    """
    if a > b:  # (it would fill U(b, a) without a word; PyTorch raises)
        raise ValueError(f"uniform_: a={a} must be at most b={b}")
    tensor._replace_data(_draw(tensor, "rand", generator) * (b - a) + a)
    return tensor


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with N(mean, std**2).

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> w = tl.nn.init.normal_(tl.zeros(10000), mean=3.0, std=0.5)
        >>> abs(w.mean().item() - 3.0) < 0.02, abs(w.std().item() - 0.5) < 0.02
        (True, True)
    """
    if std < 0:  # (it would fill N(mean, std**2) all the same; PyTorch raises, as the call is a mistake)
        raise ValueError(f"normal_: std must be >= 0, not {std}")
    tensor._replace_data(_draw(tensor, "randn", generator) * std + mean)
    return tensor


def constant_(tensor: Tensor, value: float) -> Tensor:
    """Fill with `value`.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.init.constant_(tl.zeros(3), 0.5).tolist()
        [0.5, 0.5, 0.5]
    """
    xp = tensor.backend.xp
    tensor._replace_data(xp.full(tensor.shape, value, dtype=tensor.dtype, device=tensor._device))
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0.0.

    Example:
        >>> import torchlight as tl
        >>> w = tl.nn.Parameter(tl.ones(2, 2))
        >>> tl.nn.init.zeros_(w) is w, w.tolist()
        (True, [[0.0, 0.0], [0.0, 0.0]])
    """
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1.0.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.init.ones_(tl.zeros(3)).tolist()
        [1.0, 1.0, 1.0]
    """
    return constant_(tensor, 1.0)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"kaiming init: mode must be 'fan_in' or 'fan_out', not {mode!r}")
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Any = None) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015).

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> w = tl.nn.init.kaiming_uniform_(tl.zeros(64, 50), nonlinearity="relu")  # bound sqrt(6 / 50)
        >>> bool((w.abs() <= (6 / 50) ** 0.5).all())
        True
    """
    if not tensor.size:  # nothing to fill (a fan of 0 would divide by 0): a no-op, as PyTorch
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Any = None) -> Tensor:
    """N(0, std**2) with std = gain / sqrt(fan).

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> w = tl.nn.init.kaiming_normal_(tl.zeros(200, 100), nonlinearity="relu")  # std sqrt(2 / 100)
        >>> abs(w.std().item() - (2 / 100) ** 0.5) < 0.005
        True
    """
    if not tensor.size:  # nothing to fill (a fan of 0 would divide by 0): a no-op, as PyTorch
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio, 2010).

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> w = tl.nn.init.xavier_uniform_(tl.zeros(200, 100))  # a = sqrt(6 / 300)
        >>> bool((w.abs() <= (6 / 300) ** 0.5).all())
        True
    """
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out)).

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> w = tl.nn.init.xavier_normal_(tl.zeros(200, 100))  # std sqrt(2 / 300)
        >>> abs(w.std().item() - (2 / 300) ** 0.5) < 0.005
        True
    """
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def default_weight_and_bias_(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's default for Linear and Conv2d: both U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    The weight by kaiming_uniform_(a=sqrt(5)), which is that range; the bias by `uniform_`.

    Example:
        >>> import torchlight as tl
        >>> tl.manual_seed(0)
        >>> weight, bias = tl.nn.Parameter(tl.zeros(8, 16)), tl.nn.Parameter(tl.zeros(8))
        >>> tl.nn.init.default_weight_and_bias_(weight, bias)
        >>> bool((weight.abs() <= 0.25).all()), bool((bias.abs() <= 0.25).all())  # 1 / sqrt(16)
        (True, True)
    """
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = fan_in_and_fan_out(weight)
        bound = 1.0 / math.sqrt(fan_in) if fan_in else 0.0
        uniform_(bias, -bound, bound)
