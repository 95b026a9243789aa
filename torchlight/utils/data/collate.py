"""The default collate, as `torch.utils.data.default_collate`: a list of samples
made one batch.

Tensors are stacked (on their own backend and device, gradients kept);
arrays of any backend become Tensors of that backend, then are stacked;
Python floats become a float64 Tensor, ints an int64 one and bools a bool
one (on the default backend); NumPy scalars a Tensor of their dtype;
strings stay a list; dicts, tuples and lists are collated field by field
(a tuple or list of fields gives a list, as PyTorch; a namedtuple keeps its
type).

Example:
    >>> import torchlight as tl
    >>> from torchlight.utils.data import default_collate
    >>> batch = default_collate([(tl.tensor([1.0, 2.0]), 0), (tl.tensor([3.0, 4.0]), 1)])
    >>> batch[0].shape, batch[1].tolist()
    ((2, 2), [0, 1])
    >>> default_collate([{"x": 1.5, "name": "a"}, {"x": 2.5, "name": "b"}])["name"]
    ['a', 'b']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from torchlight.array_functions import stack
from torchlight.creation import tensor
from torchlight.tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_REFUSED = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _is_array(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, np.generic)


def _check_array(value: Any) -> None:
    if isinstance(value, np.ndarray) and value.dtype.kind in "OSUV":
        raise TypeError(_REFUSED.format(f"an array of dtype {value.dtype}"))


def default_collate(batch: Sequence[Any]) -> Any:
    """One batch from a list of samples (see the module docstring).

    Example:
        >>> import numpy as np
        >>> default_collate([np.zeros(3), np.ones(3)]).shape
        (2, 3)
    """
    if not isinstance(batch, Sequence) or isinstance(batch, (str, bytes)):
        batch = list(batch)
    if not batch:
        raise ValueError("default_collate: got an empty batch")
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if _is_array(elem):
        for b in batch:
            _check_array(b)
        return stack([tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic):
        _check_array(np.asarray(elem))
        return tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return tensor(list(batch), dtype="bool")
    if isinstance(elem, float):
        return tensor(list(batch), dtype="float64")
    if isinstance(elem, int):
        return tensor(list(batch), dtype="int64")
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, Mapping):
        fields = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(fields)  # type: ignore[call-arg]
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        if len({len(b) for b in batch}) != 1:
            raise RuntimeError("default_collate: each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError(_REFUSED.format(type(elem)))


def default_convert(data: Any) -> Any:
    """Arrays (of any backend) made Tensors, through dicts, tuples and lists; the rest as it is.

    What a DataLoader with `batch_size=None` gives each sample.

    Example:
        >>> import numpy as np
        >>> default_convert({"x": np.zeros(2), "n": 3})["x"].shape
        (2,)
    """
    if isinstance(data, Tensor):
        return data
    if _is_array(data):
        if isinstance(data, np.ndarray) and data.dtype.kind in "OSUV":
            return data
        return tensor(data)
    if isinstance(data, Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})  # type: ignore[call-arg]
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data)
    return data
