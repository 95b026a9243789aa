"""`DataLoader`, as `torch.utils.data.DataLoader`, in the main process only.

It draws indices from a sampler (sequential, or shuffled by `generator`),
groups them by a batch sampler (`batch_size`, `drop_last`), fetches the
samples and makes each group one batch with `collate_fn`
(`default_collate`: the Tensors of the data's own backend, stacked). An
IterableDataset is read as a stream and grouped the same way.

`num_workers` must be 0: worker processes (and with them `prefetch_factor`,
`persistent_workers`, `worker_init_fn`'s use) are not built; a larger value
is a NotImplementedError rather than a silent run in one process.
`pin_memory` is accepted and does nothing (the backends move arrays to a
device themselves).

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> from torchlight.utils.data import DataLoader, TensorDataset
    >>> data = TensorDataset(tl.arange(10.0).reshape(5, 2), tl.arange(5))
    >>> loader = DataLoader(data, batch_size=2, shuffle=True, generator=np.random.default_rng(0))
    >>> len(loader), [y.shape for x, y in loader]
    (3, [(2,), (2,), (1,)])
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from torchlight.creation import tensor
from torchlight.tensor import Tensor
from torchlight.utils.data.collate import default_collate, default_convert
from torchlight.utils.data.dataset import IterableDataset, Subset, TensorDataset
from torchlight.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler, _is_torch_generator

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info() -> None:
    """None: every sample is loaded in the main process (`num_workers=0`).

    Example:
        >>> get_worker_info() is None
        True
    """
    return None


class DataLoader:
    """Batches of a dataset (see the module docstring for what is built).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.utils.data import DataLoader, TensorDataset
        >>> loader = DataLoader(TensorDataset(tl.arange(5)), batch_size=2, drop_last=True)
        >>> [batch[0].tolist() for batch in loader]
        [[0, 1], [2, 3]]
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable[[Any], Any] | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 0:
            raise ValueError("DataLoader: num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if num_workers > 0:
            raise NotImplementedError(f"DataLoader: num_workers={num_workers}: worker processes are not built in "
                                      "torchlight; use num_workers=0 (every batch is loaded in the main process)")
        if timeout < 0:
            raise ValueError("DataLoader: timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError("DataLoader: prefetch_factor option could only be specified in multiprocessing; "
                             "with num_workers=0 set prefetch_factor to None")
        if persistent_workers:
            raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")
        if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                                       or batch_size <= 0):
            raise ValueError(f"DataLoader: batch_size should be a positive integer value or None, but got "
                             f"batch_size={batch_size}")
        if isinstance(dataset, IterableDataset):
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("DataLoader: batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("DataLoader: batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn must be callable, got {type(collate_fn).__name__}")

        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler: Any = sampler
        self.batch_sampler: Any = batch_sampler
        self._auto_collation = batch_sampler is not None or (self._iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    def __iter__(self) -> Iterator[Any]:
        if _is_torch_generator(self.generator):
            # PyTorch's iterator draws its workers' base seed first: drawn too, so the order is PyTorch's
            import torch

            torch.empty((), dtype=torch.int64).random_(generator=self.generator)
        if self._iterable:
            return self._iterate_stream()
        return self._iterate_map()

    def _iterate_map(self) -> Iterator[Any]:
        if not self._auto_collation:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        source, maps = _tensor_rows(self.dataset) if self.collate_fn is default_collate else (None, [])
        for indices in self.batch_sampler:
            if source is not None:  # one take per tensor: the rows default_collate would stack
                for mapping in maps:
                    indices = [mapping[i] for i in indices]
                yield [_rows(t, indices) for t in source.tensors]
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def _iterate_stream(self) -> Iterator[Any]:
        if not self._auto_collation:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch: list[Any] = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self._auto_collation:
            return len(self.batch_sampler)
        return len(self.sampler)


def _tensor_rows(dataset: Any) -> tuple[TensorDataset | None, list[Any]]:
    """The TensorDataset under `dataset` (itself, or through Subsets: their index lists, outermost
    first), when its samples are plain rows; else None."""
    maps = []
    while type(dataset).__getitem__ is Subset.__getitem__:
        maps.append(dataset.indices)
        dataset = dataset.dataset
    if type(dataset).__getitem__ is TensorDataset.__getitem__:
        return dataset, maps
    return None, []


def _rows(t: Tensor, indices: list[int]) -> Tensor:
    index = tensor(np.asarray(indices, dtype=np.int64), backend=t.backend, device=t._device)
    return t[index]
