"""Samplers, as `torch.utils.data`: which indices a DataLoader takes, in which order.

The random ones take a `generator`: a `numpy.random.Generator`, a
`torch.Generator` (then the order is exactly PyTorch's for it, drawn by
`torch.randperm`), or None: a seed is then drawn for each pass from
torchlight's global stream (the numpy backend's, which `tl.manual_seed`
seeds and `tl.get_rng_state` saves), as PyTorch draws one from its default
generator, so a seeded run shuffles the same way every time.

Example:
    >>> import numpy as np
    >>> from torchlight.utils.data import BatchSampler, RandomSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    >>> first = list(RandomSampler(range(5), generator=np.random.default_rng(0)))
    >>> first == list(RandomSampler(range(5), generator=np.random.default_rng(0))), sorted(first)
    (True, [0, 1, 2, 3, 4])
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sized
from typing import Any, Generic, TypeVar

import numpy as np

from torchlight import backends

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "permutation"]

T_co = TypeVar("T_co", covariant=True)


def _is_torch_generator(generator: Any) -> bool:
    """A `torch.Generator` (torch is not imported: a process without it has none)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(generator, torch.Generator)


def _resolve(generator: Any, what: str) -> Any:
    """`generator` itself, or (None) a NumPy generator seeded from the global stream."""
    if generator is None:
        seed = int(backends.get("numpy")._generator(None).integers(2**63))
        return np.random.default_rng(seed)
    if isinstance(generator, np.random.Generator) or _is_torch_generator(generator):
        return generator
    raise TypeError(f"{what}: generator must be a numpy.random.Generator, a torch.Generator or None, "
                    f"got {type(generator).__name__}")


def permutation(n: int, generator: Any = None, what: str = "permutation") -> list[int]:
    """A random order of range(n) drawn from `generator` (see the module docstring).

    Example:
        >>> import numpy as np
        >>> sorted(permutation(4, np.random.default_rng(0)))
        [0, 1, 2, 3]
    """
    generator = _resolve(generator, what)
    if isinstance(generator, np.random.Generator):
        return [int(i) for i in generator.permutation(n)]
    import torch

    return [int(i) for i in torch.randperm(n, generator=generator).tolist()]


def _integers(n: int, size: int, generator: Any) -> list[int]:
    if isinstance(generator, np.random.Generator):
        return [int(i) for i in generator.integers(0, n, size=size)]
    import torch

    return [int(i) for i in torch.randint(high=n, size=(size,), dtype=torch.int64, generator=generator).tolist()]


class Sampler(Generic[T_co]):
    """The base of samplers: `__iter__` gives indices (or, for a batch sampler, lists of them).

    Example:
        >>> from torchlight.utils.data import Sampler
        >>> class Evens(Sampler):
        ...     def __iter__(self): return iter(range(0, 6, 2))
        >>> list(Evens())
        [0, 2, 4]
    """

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} (a Sampler) must define __iter__")


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1.

    Example:
        >>> list(SequentialSampler(range(3)))
        [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """The indices in a random order (`replacement=False`), or `num_samples` draws with replacement.

    A new order each pass.

    Example:
        >>> import numpy as np
        >>> len(list(RandomSampler(range(10), replacement=True, num_samples=3, generator=np.random.default_rng(0))))
        3
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Any = None) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement should be a boolean value, but got replacement={replacement}")
        if num_samples is not None and (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                                        or num_samples <= 0):
            raise ValueError(f"RandomSampler: num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if generator is not None:
            _resolve(generator, "RandomSampler")  # refused now, not at the first pass
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if self.num_samples <= 0:
            raise ValueError(f"RandomSampler: num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples} (an empty dataset)")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = _resolve(self.generator, "RandomSampler")
        if self.replacement:
            for start in range(0, self.num_samples, 32):  # PyTorch draws in runs of 32
                yield from _integers(n, min(32, self.num_samples - start), generator)
            return
        for _ in range(self.num_samples // n):
            yield from permutation(n, generator)
        yield from permutation(n, generator)[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order, a new one each pass.

    Example:
        >>> import numpy as np
        >>> sorted(SubsetRandomSampler([5, 7, 9], generator=np.random.default_rng(0)))
        [5, 7, 9]
    """

    def __init__(self, indices: Any, generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in permutation(len(self.indices), self.generator, "SubsetRandomSampler"):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` indices drawn with probabilities proportional to `weights`.

    With replacement unless `replacement=False`.

    Example:
        >>> import numpy as np
        >>> draws = list(WeightedRandomSampler([0.0, 1.0, 0.0], 5, generator=np.random.default_rng(0)))
        >>> draws
        [1, 1, 1, 1, 1]
    """

    def __init__(self, weights: Any, num_samples: int, replacement: bool = True, generator: Any = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
        if w.ndim != 1 or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError("WeightedRandomSampler: weights must be a 1-d sequence of finite, non-negative "
                             f"numbers with a positive sum, got shape {w.shape}")
        if not replacement and num_samples > np.count_nonzero(w):
            raise ValueError(f"WeightedRandomSampler: cannot draw {num_samples} samples without replacement from "
                             f"{np.count_nonzero(w)} non-zero weights")
        if generator is not None:
            _resolve(generator, "WeightedRandomSampler")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        generator = _resolve(self.generator, "WeightedRandomSampler")
        if isinstance(generator, np.random.Generator):
            draws = generator.choice(len(self.weights), size=self.num_samples, replace=self.replacement,
                                     p=self.weights / self.weights.sum())
            yield from (int(i) for i in draws)
            return
        import torch

        drawn = torch.multinomial(torch.from_numpy(self.weights), self.num_samples, self.replacement,
                                  generator=generator)
        yield from (int(i) for i in drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Lists of `batch_size` indices from `sampler`; the last one shorter unless `drop_last`.

    Example:
        >>> list(BatchSampler(range(5), batch_size=2, drop_last=True))
        [[0, 1], [2, 3]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"BatchSampler: drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
