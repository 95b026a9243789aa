"""PyTorch's free functions that are a Tensor method or an operator: `tl.sin(x)` is `x.sin()`,
`tl.sum(x, dim=1)` is `x.sum(dim=1)`, `tl.add(a, b, alpha=2)` is `a + 2 * b`, with torch's names
and signatures (the methods' own: each function passes its arguments on).

An array, list or number given where the Tensor goes is lifted with `tl.tensor` (the binary ones
lift a non-Tensor side to the other side's backend, device and dtype, as the operators do).

Example:
    >>> import torchlight as tl
    >>> x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> y = tl.sum(tl.exp(tl.matmul(x, x)), dim=1)
    >>> tl.add(y, 1.0, alpha=2.0).shape
    (2,)
    >>> tl.mean(tl.clamp(x, 1.5, 3.5)).item()
    2.5
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchlight.creation import tensor
from torchlight.tensor import Tensor

__all__ = [
    "abs", "acos", "acosh", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax", "argmin",
    "asin", "asinh", "atan", "atanh", "bmm", "broadcast_to", "ceil", "chunk", "clamp", "clip", "clone", "cos",
    "cosh", "detach", "div", "dot", "eq", "exp", "expm1", "flatten", "flip", "floor", "ge", "gt", "is_tensor",
    "le", "log", "log10", "log1p", "log2", "log_softmax", "logsumexp", "lt", "matmul", "max", "mean", "min", "mm",
    "mul", "ne", "neg", "norm", "numel", "permute", "pow", "prod", "relu", "reshape", "roll", "round", "rsub",
    "sigmoid", "sign", "sin", "sinh", "softmax", "split", "sqrt", "square", "squeeze", "std", "sub", "sum", "tan",
    "tanh", "tile", "transpose", "true_divide", "trunc", "unsqueeze", "var",
]


def _as_tensor(name: str, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    message = f"{name}: expects a Tensor (or an array or number), got {type(value).__name__}"
    if isinstance(value, (str, bytes)):
        raise TypeError(message)
    try:
        return tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError(message) from e


def _method(name: str) -> Callable[..., Any]:
    """The free function `name(input, *args, **kwargs)`: `input.name(*args, **kwargs)`."""

    def function(input: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(_as_tensor(name, input), name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"`input.{name}(*args, **kwargs)`: see `Tensor.{name}` (PyTorch's `torch.{name}`)."
    function.__module__ = __name__
    return function


abs = _method("abs")  # noqa: A001  (torch's names, as the module's public face)
acos, acosh, arccos, arccosh = _method("acos"), _method("acosh"), _method("arccos"), _method("arccosh")
arcsin, arcsinh, arctan, arctanh = _method("arcsin"), _method("arcsinh"), _method("arctan"), _method("arctanh")
asin, asinh, atan, atanh = _method("asin"), _method("asinh"), _method("atan"), _method("atanh")
argmax, argmin = _method("argmax"), _method("argmin")
broadcast_to, chunk, flatten, flip = _method("broadcast_to"), _method("chunk"), _method("flatten"), _method("flip")
ceil, floor, round, trunc, sign = (  # noqa: A001
    _method("ceil"), _method("floor"), _method("round"), _method("trunc"), _method("sign"))
clamp, clip, clone, detach = _method("clamp"), _method("clip"), _method("clone"), _method("detach")
cos, cosh, sin, sinh, tan, tanh = (
    _method("cos"), _method("cosh"), _method("sin"), _method("sinh"), _method("tan"), _method("tanh"))
exp, expm1, log, log10, log1p, log2 = (
    _method("exp"), _method("expm1"), _method("log"), _method("log10"), _method("log1p"), _method("log2"))
softmax, log_softmax, logsumexp = _method("softmax"), _method("log_softmax"), _method("logsumexp")
max, min, mean, prod, sum = (  # noqa: A001
    _method("max"), _method("min"), _method("mean"), _method("prod"), _method("sum"))
std, var, norm = _method("std"), _method("var"), _method("norm")
neg, relu, sigmoid = _method("neg"), _method("relu"), _method("sigmoid")
sqrt, square = _method("sqrt"), _method("square")
permute, reshape, roll, split = _method("permute"), _method("reshape"), _method("roll"), _method("split")
squeeze, unsqueeze, tile, transpose = _method("squeeze"), _method("unsqueeze"), _method("tile"), _method("transpose")


def _pair(name: str, input: Any, other: Any) -> tuple[Tensor, Any]:
    """`input` as a Tensor (lifted to `other`'s backend when only `other` is one)."""
    if isinstance(input, Tensor):
        return input, other
    if isinstance(other, Tensor):
        return other._lift(input), other
    return _as_tensor(name, input), other


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """`input + alpha * other` (PyTorch's add).

    Example:
        >>> import torchlight as tl
        >>> tl.add(tl.tensor([1.0, 2.0]), tl.tensor([10.0, 20.0]), alpha=0.5).tolist()
        [6.0, 12.0]
    """
    a, b = _pair("add", input, other)
    return a + (b if alpha == 1 else b * alpha)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """`input - alpha * other` (PyTorch's sub)."""
    a, b = _pair("sub", input, other)
    return a - (b if alpha == 1 else b * alpha)


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """`other - alpha * input` (PyTorch's rsub)."""
    a, b = _pair("rsub", input, other)
    return b - (a if alpha == 1 else a * alpha)


def mul(input: Any, other: Any) -> Tensor:
    """`input * other` (PyTorch's mul)."""
    a, b = _pair("mul", input, other)
    return a * b


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """`input / other`; `rounding_mode="trunc"` or `"floor"` rounds the quotient (PyTorch's div).

    Example:
        >>> import torchlight as tl
        >>> tl.div(tl.tensor([-7.0, 7.0]), 2.0, rounding_mode="floor").tolist()
        [-4.0, 3.0]
    """
    a, b = _pair("div", input, other)
    if rounding_mode is None:
        return a / b
    if rounding_mode == "trunc":
        return (a / b).trunc()
    if rounding_mode == "floor":
        return a // b
    raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")


def true_divide(input: Any, other: Any) -> Tensor:
    """`input / other`."""
    return div(input, other)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001
    """`input ** exponent` (either may be the Tensor)."""
    a, b = _pair("pow", input, exponent)
    return a ** b


def matmul(input: Any, other: Any) -> Tensor:
    """`input @ other` (PyTorch's matmul: 1-d, 2-d and batched operands)."""
    a, b = _pair("matmul", input, other)
    return a @ b


def _ranked_product(name: str, ndim: int, input: Any, other: Any) -> Tensor:
    """`input @ other` for two `ndim`-d operands, a RuntimeError naming `name` otherwise (as PyTorch's)."""
    a, b = _pair(name, input, other)
    b = a._lift(b)
    for i, t in enumerate((a, b)):
        if t.ndim != ndim:
            raise RuntimeError(f"{name}: expects {ndim}-d tensors, but argument {i} has shape {t.shape}")
    return a @ b


def mm(input: Any, mat2: Any) -> Tensor:
    """The product of two matrices (2-d only, as PyTorch's mm)."""
    return _ranked_product("mm", 2, input, mat2)


def bmm(input: Any, mat2: Any) -> Tensor:
    """The batched product of two stacks of matrices (3-d only, as PyTorch's bmm)."""
    return _ranked_product("bmm", 3, input, mat2)


def dot(input: Any, other: Any) -> Tensor:
    """The dot product of two vectors (1-d only, as PyTorch's dot)."""
    return _ranked_product("dot", 1, input, other)


def eq(input: Any, other: Any) -> Tensor:
    """`input == other`, elementwise."""
    a, b = _pair("eq", input, other)
    return a == b


def ne(input: Any, other: Any) -> Tensor:
    """`input != other`, elementwise."""
    a, b = _pair("ne", input, other)
    return a != b


def lt(input: Any, other: Any) -> Tensor:
    """`input < other`, elementwise."""
    a, b = _pair("lt", input, other)
    return a < b


def le(input: Any, other: Any) -> Tensor:
    """`input <= other`, elementwise."""
    a, b = _pair("le", input, other)
    return a <= b


def gt(input: Any, other: Any) -> Tensor:
    """`input > other`, elementwise."""
    a, b = _pair("gt", input, other)
    return a > b


def ge(input: Any, other: Any) -> Tensor:
    """`input >= other`, elementwise."""
    a, b = _pair("ge", input, other)
    return a >= b


def numel(input: Tensor) -> int:
    """The number of elements of `input`."""
    return int(_as_tensor("numel", input).size)


def is_tensor(obj: Any) -> bool:
    """Whether `obj` is a torchlight Tensor."""
    return isinstance(obj, Tensor)
