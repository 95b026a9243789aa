"""Datasets, as `torch.utils.data`: a map-style `Dataset` (`len` and `[i]`), an
`IterableDataset` (a stream), and the ready-made `TensorDataset`, `Subset`,
`ConcatDataset` and `random_split`.

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> from torchlight.utils.data import TensorDataset, random_split
    >>> data = TensorDataset(tl.arange(10.0), tl.arange(10))
    >>> len(data), data[3]
    (10, (tensor(3.), tensor(3)))
    >>> train, test = random_split(data, [0.8, 0.2], generator=np.random.default_rng(0))
    >>> len(train), len(test)
    (8, 2)
"""

from __future__ import annotations

import bisect
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from torchlight.creation import tensor
from torchlight.tensor import Tensor
from torchlight.utils.data.sampler import permutation

__all__ = ["ConcatDataset", "Dataset", "IterableDataset", "Subset", "TensorDataset", "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: `dataset[i]` is the i-th sample.

    Subclasses define `__getitem__` and, for the default samplers, `__len__`.

    Example:
        >>> from torchlight.utils.data import Dataset
        >>> class Squares(Dataset):
        ...     def __len__(self): return 4
        ...     def __getitem__(self, i): return i * i
        >>> [Squares()[i] for i in range(4)], len(Squares() + Squares())
        ([0, 1, 4, 9], 8)
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError(f"{type(self).__name__} (a Dataset) must define __getitem__")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset that is a stream of samples: subclasses define `__iter__`.

    A DataLoader over one takes no sampler and no shuffle (the stream decides the order).

    Example:
        >>> from torchlight.utils.data import IterableDataset, DataLoader
        >>> class Count(IterableDataset):
        ...     def __iter__(self): return iter(range(5))
        >>> [b.tolist() for b in DataLoader(Count(), batch_size=2)]
        [[0, 1], [2, 3], [4]]
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} (an IterableDataset) must define __iter__")


def _as_tensor(value: Any, position: int) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, np.generic):
        return tensor(value)  # the array's own backend and device
    raise TypeError(f"TensorDataset: argument {position} is a {type(value).__name__}, not a Tensor or an array")


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are rows of tensors of one first dimension: `dataset[i]` is `(t[i] for t in tensors)`.

    Arrays are made Tensors of their own backend.

    A DataLoader with the default collate takes a batch of rows of each
    tensor at once (one gather, not one index per sample); the batch is the
    same as stacking the rows.

    Example:
        >>> import numpy as np
        >>> from torchlight.utils.data import TensorDataset
        >>> data = TensorDataset(np.zeros((5, 2)), np.arange(5))
        >>> len(data), data[4][0].shape, data[4][1].item()
        (5, (2,), 4)
        >>> TensorDataset(np.zeros((5, 2)), np.arange(4))
        Traceback (most recent call last):
        ...
        ValueError: TensorDataset: the tensors' first dimensions differ: 5, 4 (every tensor needs one row per sample)
    """

    tensors: tuple[Tensor, ...]

    def __init__(self, *tensors: Any) -> None:
        if not tensors:
            raise ValueError("TensorDataset: needs at least one tensor")
        made = tuple(_as_tensor(t, i) for i, t in enumerate(tensors))
        for i, t in enumerate(made):
            if t.ndim == 0:
                raise ValueError(f"TensorDataset: tensor {i} is 0-d; each tensor needs a first dimension (one row "
                                 "per sample)")
        lengths = [t.shape[0] for t in made]
        if len(set(lengths)) > 1:
            raise ValueError(f"TensorDataset: the tensors' first dimensions differ: {', '.join(map(str, lengths))} "
                             "(every tensor needs one row per sample)")
        self.tensors = made

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].shape[0])


class Subset(Dataset[T_co]):
    """The samples of `dataset` at `indices`, in that order.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.utils.data import Subset, TensorDataset
        >>> part = Subset(TensorDataset(tl.arange(10)), [7, 2])
        >>> len(part), part[0][0].item()
        (2, 7)
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]  # type: ignore[index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[T_co]):
    """Several map-style datasets one after the other.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.utils.data import ConcatDataset, TensorDataset
        >>> both = ConcatDataset([TensorDataset(tl.arange(3)), TensorDataset(tl.arange(10, 12))])
        >>> len(both), both[3][0].item()
        (5, 10)
    """

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())  # type: ignore[arg-type]

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, index: int) -> T_co:
        if index < 0:
            if -index > len(self):
                raise IndexError(f"ConcatDataset: index {index} out of range for length {len(self)}")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = 0 if which == 0 else self.cumulative_sizes[which - 1]
        if which >= len(self.datasets):
            raise IndexError(f"ConcatDataset: index {index} out of range for length {len(self)}")
        return self.datasets[which][index - start]


def random_split(dataset: Dataset[T_co], lengths: Sequence[int | float],
                 generator: Any = None) -> list[Subset[T_co]]:
    """Split `dataset` into non-overlapping random Subsets of the given lengths.

    The lengths are counts summing to its length, or fractions summing to 1 (the remainder given one by one to the
    first parts, as PyTorch).

    `generator`: a `numpy.random.Generator`, a `torch.Generator` (then the
    split is PyTorch's own for that generator), or None for torchlight's
    global stream (`tl.manual_seed`).

    Example:
        >>> import numpy as np
        >>> import torchlight as tl
        >>> from torchlight.utils.data import TensorDataset, random_split
        >>> a, b = random_split(TensorDataset(tl.arange(5)), [3, 2], generator=np.random.default_rng(1))
        >>> sorted(a.indices + b.indices)
        [0, 1, 2, 3, 4]
    """
    n = len(dataset)  # type: ignore[arg-type]
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1.0):
        if any(not 0 <= x <= 1 for x in lengths):
            raise ValueError(f"random_split: fractions must be between 0 and 1, got {lengths}")
        counts = [int(math.floor(n * x)) for x in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(f"random_split: length of split at index {i} is 0; this leads to an empty Subset",
                              stacklevel=2)
    elif all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in lengths):
        counts = [int(x) for x in lengths]
    else:
        raise ValueError(f"random_split: lengths must be non-negative ints or fractions summing to 1, got {lengths}")
    if sum(counts) != n:
        raise ValueError(f"random_split: the lengths sum to {sum(counts)}, not to the dataset's length {n}")
    order = permutation(n, generator)
    parts, offset = [], 0
    for count in counts:
        parts.append(Subset(dataset, order[offset:offset + count]))
        offset += count
    return parts
