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

import inspect
import textwrap
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


# Each generated function's own example (what `help(tl.sin)` and the API reference show), run by
# tests/docs/test_docstring_examples_top.py; `_method` adds the import line and the heading.
_EXAMPLES: dict[str, str] = {
    "abs": """
        >>> tl.abs(tl.tensor([-1.5, 0.0, 2.0]))
        tensor([1.5, 0. , 2. ])
    """,
    "acos": """
        >>> tl.acos(tl.tensor([1.0, 0.0, -1.0]))
        tensor([0.        , 1.57079633, 3.14159265])
    """,
    "acosh": """
        >>> tl.acosh(tl.tensor([1.0, 2.0]))
        tensor([0.       , 1.3169579])
    """,
    "arccos": """
        >>> tl.arccos(tl.tensor([1.0, -1.0]))  # NumPy's name of acos
        tensor([0.        , 3.14159265])
    """,
    "arccosh": """
        >>> tl.arccosh(tl.tensor([1.0, 3.0]))  # NumPy's name of acosh
        tensor([0.        , 1.76274717])
    """,
    "arcsin": """
        >>> tl.arcsin(tl.tensor([0.0, 1.0]))  # NumPy's name of asin
        tensor([0.        , 1.57079633])
    """,
    "arcsinh": """
        >>> tl.arcsinh(tl.tensor([0.0, -1.0]))  # NumPy's name of asinh
        tensor([ 0.        , -0.88137359])
    """,
    "arctan": """
        >>> tl.arctan(tl.tensor([0.0, -1.0]))  # NumPy's name of atan
        tensor([ 0.        , -0.78539816])
    """,
    "arctanh": """
        >>> tl.arctanh(tl.tensor([0.0, -0.5]))  # NumPy's name of atanh
        tensor([ 0.        , -0.54930614])
    """,
    "asin": """
        >>> tl.asin(tl.tensor([0.0, 0.5, 1.0]))
        tensor([0.        , 0.52359878, 1.57079633])
    """,
    "asinh": """
        >>> tl.asinh(tl.tensor([0.0, 1.0]))
        tensor([0.        , 0.88137359])
    """,
    "atan": """
        >>> tl.atan(tl.tensor([0.0, 1.0]))
        tensor([0.        , 0.78539816])
    """,
    "atanh": """
        >>> tl.atanh(tl.tensor([0.0, 0.5]))
        tensor([0.        , 0.54930614])
    """,
    "argmax": """
        >>> x = tl.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
        >>> tl.argmax(x), tl.argmax(x, dim=1)  # (an index into the flattened tensor, then one per row)
        (tensor(3), tensor([1, 0]))
    """,
    "argmin": """
        >>> x = tl.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
        >>> tl.argmin(x), tl.argmin(x, dim=0)  # (an index into the flattened tensor, then one per column)
        (tensor(4), tensor([0, 1, 0]))
    """,
    "broadcast_to": """
        >>> tl.broadcast_to(tl.tensor([1.0, 2.0]), (2, 2))
        tensor([[1., 2.],
                [1., 2.]])
    """,
    "chunk": """
        >>> tl.chunk(tl.arange(5), 3)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """,
    "flatten": """
        >>> tl.flatten(tl.zeros(2, 3, 4)).shape, tl.flatten(tl.zeros(2, 3, 4), 1).shape
        ((24,), (2, 12))
    """,
    "flip": """
        >>> tl.flip(tl.tensor([[1, 2], [3, 4]]), 1)
        tensor([[2, 1],
                [4, 3]])
    """,
    "ceil": """
        >>> tl.ceil(tl.tensor([-1.5, 0.2, 1.0]))
        tensor([-1.,  1.,  1.])
    """,
    "floor": """
        >>> tl.floor(tl.tensor([-1.5, 0.2, 1.0]))
        tensor([-2.,  0.,  1.])
    """,
    "round": """
        >>> tl.round(tl.tensor([0.5, 1.5, 2.6]))  # halves to even
        tensor([0., 2., 3.])
    """,
    "trunc": """
        >>> tl.trunc(tl.tensor([-1.7, 1.7]))
        tensor([-1.,  1.])
    """,
    "sign": """
        >>> tl.sign(tl.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """,
    "clamp": """
        >>> tl.clamp(tl.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
        tensor([0. , 0.5, 1. ])
    """,
    "clip": """
        >>> tl.clip(tl.tensor([-2.0, 0.5, 3.0]), max=1.0)  # clamp's other name; either bound may be left out
        tensor([-2. ,  0.5,  1. ])
    """,
    "clone": """
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> y = tl.clone(x)  # a copy that stays in the graph
        >>> y.data is x.data
        False
        >>> (y * y).sum().backward()
        >>> x.grad
        tensor([2., 4.])
    """,
    "detach": """
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> y = tl.detach(x)  # the same array, out of the graph
        >>> y.requires_grad, y.data is x.data
        (False, True)
    """,
    "cos": """
        >>> import math
        >>> tl.cos(tl.tensor([0.0, math.pi]))
        tensor([ 1., -1.])
    """,
    "cosh": """
        >>> tl.cosh(tl.tensor([0.0, 1.0]))
        tensor([1.        , 1.54308063])
    """,
    "sin": """
        >>> import math
        >>> tl.sin(tl.tensor([0.0, math.pi / 2]))
        tensor([0., 1.])
    """,
    "sinh": """
        >>> tl.sinh(tl.tensor([0.0, 1.0]))
        tensor([0.        , 1.17520119])
    """,
    "tan": """
        >>> import math
        >>> tl.tan(tl.tensor([0.0, math.pi / 4]))
        tensor([0., 1.])
    """,
    "tanh": """
        >>> tl.tanh(tl.tensor([-20.0, 0.0, 0.5]))
        tensor([-1.        ,  0.        ,  0.46211716])
    """,
    "exp": """
        >>> tl.exp(tl.tensor([0.0, 1.0]))
        tensor([1.        , 2.71828183])
    """,
    "expm1": """
        >>> x = tl.tensor(1e-10)
        >>> tl.expm1(x).item(), (tl.exp(x) - 1).item()  # exact near 0, where exp(x) - 1 loses digits
        (1.00000000005e-10, 1.000000082740371e-10)
    """,
    "log": """
        >>> tl.log(tl.tensor([1.0, 10.0]))
        tensor([0.        , 2.30258509])
    """,
    "log10": """
        >>> tl.log10(tl.tensor([1.0, 10.0, 1000.0]))
        tensor([0., 1., 3.])
    """,
    "log1p": """
        >>> x = tl.tensor(1e-10)
        >>> tl.log1p(x).item(), tl.log(1 + x).item()  # exact near 0, where log(1 + x) loses digits
        (9.999999999500001e-11, 1.000000082690371e-10)
    """,
    "log2": """
        >>> tl.log2(tl.tensor([0.5, 1.0, 8.0]))
        tensor([-1.,  0.,  3.])
    """,
    "softmax": """
        >>> p = tl.softmax(tl.tensor([0.0, 1.0, 2.0]), dim=0)
        >>> p
        tensor([0.09003057, 0.24472847, 0.66524096])
        >>> print(f"{p.sum().item():.12f}")
        1.000000000000
    """,
    "log_softmax": """
        >>> tl.log_softmax(tl.tensor([[0.0, 0.0], [0.0, 100.0]]), dim=1)  # no overflow at 100
        tensor([[  -0.69314718,   -0.69314718],
                [-100.        ,    0.        ]])
    """,
    "logsumexp": """
        >>> tl.logsumexp(tl.tensor([1000.0, 1000.0]), dim=0)  # log(2 e^1000), though e^1000 overflows
        tensor(1000.69314718)
    """,
    "max": """
        >>> x = tl.tensor([[1.0, 5.0], [3.0, 2.0]])
        >>> tl.max(x)
        tensor(5.)
        >>> tl.max(x, dim=1)
        ExtremeResult(values=tensor([5., 3.]), indices=tensor([1, 0]))
    """,
    "min": """
        >>> x = tl.tensor([[1.0, 5.0], [3.0, 2.0]])
        >>> tl.min(x)
        tensor(1.)
        >>> tl.min(x, dim=0)
        ExtremeResult(values=tensor([1., 2.]), indices=tensor([0, 1]))
    """,
    "mean": """
        >>> x = tl.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> tl.mean(x), tl.mean(x, dim=0)
        (tensor(3.), tensor([2., 4.]))
    """,
    "prod": """
        >>> tl.prod(tl.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor(24.)
    """,
    "sum": """
        >>> x = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> tl.sum(x)
        tensor(10.)
        >>> tl.sum(x, dim=1).tolist(), tl.sum(x, dim=1, keepdim=True).shape
        ([3.0, 7.0], (2, 1))
        >>> tl.sum([1.0, 2.0])  # a list is made a tensor first
        tensor(3.)
    """,
    "std": """
        >>> x = tl.tensor([1.0, 2.0, 3.0, 4.0])
        >>> tl.std(x), tl.std(x, correction=0)  # divided by n - 1 (the default), then by n
        (tensor(1.29099445), tensor(1.11803399))
    """,
    "var": """
        >>> x = tl.tensor([1.0, 2.0, 3.0, 4.0])
        >>> tl.var(x), tl.var(x, correction=0)  # divided by n - 1 (the default), then by n
        (tensor(1.66666667), tensor(1.25))
    """,
    "norm": """
        >>> x = tl.tensor([3.0, -4.0])
        >>> tl.norm(x), tl.norm(x, p=1)
        (tensor(5.), tensor(7.))
    """,
    "neg": """
        >>> tl.neg(tl.tensor([1.0, -2.0]))
        tensor([-1.,  2.])
    """,
    "relu": """
        >>> tl.relu(tl.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """,
    "sigmoid": """
        >>> tl.sigmoid(tl.tensor([-2.0, 0.0, 2.0]))
        tensor([0.11920292, 0.5       , 0.88079708])
    """,
    "sqrt": """
        >>> tl.sqrt(tl.tensor([4.0, 2.0]))
        tensor([2.        , 1.41421356])
    """,
    "square": """
        >>> tl.square(tl.tensor([-3.0, 0.5]))
        tensor([9.  , 0.25])
    """,
    "permute": """
        >>> tl.permute(tl.zeros(2, 3, 4), (2, 0, 1)).shape
        (4, 2, 3)
    """,
    "reshape": """
        >>> tl.reshape(tl.arange(6), (2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """,
    "roll": """
        >>> tl.roll(tl.arange(5), 2)
        tensor([3, 4, 0, 1, 2])
    """,
    "split": """
        >>> tl.split(tl.arange(5), 2)  # pieces of 2 (the last one shorter)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> tl.split(tl.arange(5), [1, 4])  # pieces of these sizes
        (tensor([0]), tensor([1, 2, 3, 4]))
    """,
    "squeeze": """
        >>> x = tl.zeros(1, 3, 1)
        >>> tl.squeeze(x).shape, tl.squeeze(x, 0).shape
        ((3,), (3, 1))
    """,
    "unsqueeze": """
        >>> x = tl.tensor([1.0, 2.0])
        >>> tl.unsqueeze(x, 0).shape, tl.unsqueeze(x, -1).shape
        ((1, 2), (2, 1))
    """,
    "tile": """
        >>> tl.tile(tl.tensor([1, 2]), (2,))
        tensor([1, 2, 1, 2])
    """,
    "transpose": """
        >>> tl.transpose(tl.tensor([[1, 2, 3], [4, 5, 6]]), 0, 1)
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
    """,
}


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


def _example(name: str) -> str:
    """`_EXAMPLES[name]`, indented as a docstring's `Example:` section."""
    return textwrap.indent(textwrap.dedent(_EXAMPLES[name]).strip("\n"), "    ")


def _signature(name: str) -> inspect.Signature:
    """`Tensor.name`'s parameters with `self` as `input` (what `help()` and the site show), or the
    generic `(input, *args, **kwargs)` where the method has none to read."""
    generic = inspect.Signature([inspect.Parameter("input", inspect.Parameter.POSITIONAL_ONLY),
                                 inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                                 inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
    try:
        method = inspect.signature(getattr(Tensor, name))
    except (TypeError, ValueError):
        return generic
    parameters = list(method.parameters.values())
    if not parameters or parameters[0].kind is inspect.Parameter.KEYWORD_ONLY:
        return generic
    first = parameters[0].replace(name="input", annotation=inspect.Parameter.empty)  # (an array or list too)
    return method.replace(parameters=[first, *parameters[1:]])


def _method(name: str) -> Callable[..., Any]:
    """The free function `name(input, *args, **kwargs)`: `input.name(*args, **kwargs)`."""

    def function(input: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(_as_tensor(name, input), name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__signature__ = _signature(name)  # type: ignore[attr-defined]
    function.__doc__ = (f"`input.{name}(*args, **kwargs)`: see `Tensor.{name}` (PyTorch's `torch.{name}`).\n\n"
                        f"Example:\n    >>> import torchlight as tl\n{_example(name)}\n")
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
    """`input - alpha * other` (PyTorch's sub).

    Example:
        >>> import torchlight as tl
        >>> tl.sub(tl.tensor([5.0, 5.0]), tl.tensor([1.0, 2.0]), alpha=2)
        tensor([3., 1.])
    """
    a, b = _pair("sub", input, other)
    return a - (b if alpha == 1 else b * alpha)


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """`other - alpha * input` (PyTorch's rsub).

    Example:
        >>> import torchlight as tl
        >>> tl.rsub(tl.tensor([1.0, 2.0]), 10.0)
        tensor([9., 8.])
    """
    a, b = _pair("rsub", input, other)
    return b - (a if alpha == 1 else a * alpha)


def mul(input: Any, other: Any) -> Tensor:
    """`input * other` (PyTorch's mul).

    Example:
        >>> import torchlight as tl
        >>> tl.mul(tl.tensor([1.0, 2.0]), 3.0), tl.mul(2.0, tl.tensor([1.0, 2.0]))
        (tensor([3., 6.]), tensor([2., 4.]))
    """
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
    """`input / other`.

    Example:
        >>> import torchlight as tl
        >>> tl.true_divide(tl.tensor([1, 3]), 2)  # integers give floats
        tensor([0.5, 1.5])
    """
    return div(input, other)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001
    """`input ** exponent` (either may be the Tensor).

    Example:
        >>> import torchlight as tl
        >>> tl.pow(tl.tensor([2.0, 3.0]), 2), tl.pow(2.0, tl.tensor([0.0, 3.0]))
        (tensor([4., 9.]), tensor([1., 8.]))
    """
    a, b = _pair("pow", input, exponent)
    return a ** b


def matmul(input: Any, other: Any) -> Tensor:
    """`input @ other` (PyTorch's matmul: 1-d, 2-d and batched operands).

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> tl.matmul(a, tl.tensor([1.0, 1.0]))  # a matrix times a vector
        tensor([3., 7.])
        >>> tl.matmul(tl.ones(5, 2, 3), tl.ones(3, 4)).shape  # a batch of 5 matrices times one
        (5, 2, 4)
    """
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
    """The product of two matrices (2-d only, as PyTorch's mm).

    Example:
        >>> import torchlight as tl
        >>> tl.mm(tl.tensor([[1.0, 2.0]]), tl.tensor([[3.0], [4.0]]))
        tensor([[11.]])
        >>> tl.mm(tl.ones(2, 3), tl.ones(3))
        Traceback (most recent call last):
        ...
        RuntimeError: mm: expects 2-d tensors, but argument 1 has shape (3,)
    """
    return _ranked_product("mm", 2, input, mat2)


def bmm(input: Any, mat2: Any) -> Tensor:
    """The batched product of two stacks of matrices (3-d only, as PyTorch's bmm).

    Example:
        >>> import torchlight as tl
        >>> tl.bmm(tl.ones(10, 2, 3), tl.ones(10, 3, 4)).shape
        (10, 2, 4)
    """
    return _ranked_product("bmm", 3, input, mat2)


def dot(input: Any, other: Any) -> Tensor:
    """The dot product of two vectors (1-d only, as PyTorch's dot).

    Example:
        >>> import torchlight as tl
        >>> tl.dot(tl.tensor([1.0, 2.0]), tl.tensor([3.0, 4.0]))
        tensor(11.)
    """
    return _ranked_product("dot", 1, input, other)


def eq(input: Any, other: Any) -> Tensor:
    """`input == other`, elementwise.

    Example:
        >>> import torchlight as tl
        >>> tl.eq(tl.tensor([1, 2, 3]), 2)
        tensor([False,  True, False])
    """
    a, b = _pair("eq", input, other)
    return a == b


def ne(input: Any, other: Any) -> Tensor:
    """`input != other`, elementwise.

    Example:
        >>> import torchlight as tl
        >>> tl.ne(tl.tensor([1, 2, 3]), tl.tensor([1, 0, 3]))
        tensor([False,  True, False])
    """
    a, b = _pair("ne", input, other)
    return a != b


def lt(input: Any, other: Any) -> Tensor:
    """`input < other`, elementwise.

    Example:
        >>> import torchlight as tl
        >>> tl.lt(tl.tensor([1.0, 2.0, 3.0]), 2.0)
        tensor([ True, False, False])
    """
    a, b = _pair("lt", input, other)
    return a < b


def le(input: Any, other: Any) -> Tensor:
    """`input <= other`, elementwise.

    Example:
        >>> import torchlight as tl
        >>> tl.le(tl.tensor([1.0, 2.0, 3.0]), 2.0)
        tensor([ True,  True, False])
    """
    a, b = _pair("le", input, other)
    return a <= b


def gt(input: Any, other: Any) -> Tensor:
    """`input > other`, elementwise.

    Example:
        >>> import torchlight as tl
        >>> tl.gt(tl.tensor([1.0, 2.0, 3.0]), 2.0)
        tensor([False, False,  True])
    """
    a, b = _pair("gt", input, other)
    return a > b


def ge(input: Any, other: Any) -> Tensor:
    """`input >= other`, elementwise.

    Example:
        >>> import torchlight as tl
        >>> tl.ge(tl.tensor([1.0, 2.0, 3.0]), 2.0)
        tensor([False,  True,  True])
    """
    a, b = _pair("ge", input, other)
    return a >= b


def numel(input: Tensor) -> int:
    """The number of elements of `input`.

    Example:
        >>> import torchlight as tl
        >>> tl.numel(tl.zeros(2, 3))
        6
    """
    return int(_as_tensor("numel", input).size)


def is_tensor(obj: Any) -> bool:
    """Whether `obj` is a torchlight Tensor.

    Example:
        >>> import numpy as np
        >>> import torchlight as tl
        >>> tl.is_tensor(tl.tensor(1.0)), tl.is_tensor(np.ones(2)), tl.is_tensor(1.0)
        (True, False, False)
    """
    return isinstance(obj, Tensor)
