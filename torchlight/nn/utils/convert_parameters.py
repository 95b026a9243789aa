"""`parameters_to_vector` and `vector_to_parameters`, as `torch.nn.utils.convert_parameters`.

Example:
    >>> import torchlight as tl
    >>> model = tl.nn.Linear(2, 1)
    >>> vec = parameters_to_vector(model.parameters())
    >>> vec.shape
    (3,)
    >>> vector_to_parameters(tl.tensor([1.0, 2.0, 3.0]), model.parameters())
    >>> model.weight.tolist(), model.bias.tolist()
    ([[1.0, 2.0]], [3.0])
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from torchlight.ops.shapes import cat
from torchlight.tensor import Tensor, check_same_backend

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _parameters(parameters: Iterable[Tensor], op: str) -> list[Tensor]:
    if isinstance(parameters, Tensor):  # (PyTorch iterates a lone tensor's rows; a parameter is meant)
        return [parameters]
    if not isinstance(parameters, Iterable):
        raise TypeError(f"{op}: parameters must be an iterable of Tensors, not {type(parameters).__name__}")
    params = list(parameters)
    for i, param in enumerate(params):
        if not isinstance(param, Tensor):
            raise TypeError(f"{op}: expected a Tensor, but got {type(param).__name__} (entry {i})")
    if params:
        for param in params[1:]:
            check_same_backend(op, params[0], param)
    return params


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All of `parameters` flattened and joined into one 1-d Tensor (differentiable, as PyTorch's).

    Example:
        >>> import torchlight as tl
        >>> layer = tl.nn.Linear(3, 2)
        >>> tl.nn.utils.parameters_to_vector(layer.parameters()).shape  # 2 * 3 weights and 2 biases
        (8,)
    """
    params = _parameters(parameters, "parameters_to_vector")
    if not params:
        raise ValueError("parameters_to_vector: no parameters given (there is nothing to join)")
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of the 1-d `vec` into `parameters`' values (no gradient), as PyTorch.

    `vec` must hold exactly as many entries as the parameters together
    (PyTorch ignores any left over; here that is a ValueError, as it is a
    mismatch of model and vector). Each parameter gets a copy of its slice
    in its own dtype, so a later write to `vec` does not reach the model.

    Example:
        >>> import torchlight as tl
        >>> layer = tl.nn.Linear(2, 1)
        >>> tl.nn.utils.vector_to_parameters(tl.tensor([1.0, 2.0, 0.5]), layer.parameters())
        >>> layer.weight.tolist(), layer.bias.tolist()
        ([[1.0, 2.0]], [0.5])
    """
    op = "vector_to_parameters"
    if not isinstance(vec, Tensor):
        raise TypeError(f"{op}: expected a Tensor, but got {type(vec).__name__}")
    params = _parameters(parameters, op)
    if vec.ndim != 1:
        raise ValueError(f"{op}: vec must be 1-d, not of shape {vec.shape}")
    if params:
        for param in params:
            check_same_backend(op, vec, param)
    total = sum(math.prod(p.shape) for p in params)
    if vec.shape[0] != total:
        raise ValueError(f"{op}: vec has {vec.shape[0]} entries, the parameters {total}")
    xp, start = vec.backend.xp, 0
    for param in params:
        count = math.prod(param.shape)
        piece = xp.reshape(vec.data[start:start + count], param.shape)
        param._replace_data(param.backend.copy(xp.astype(piece, param.dtype)))
        start += count
