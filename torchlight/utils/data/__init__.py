"""`torchlight.utils.data`: datasets, samplers and the DataLoader, as `torch.utils.data`.

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> from torchlight.utils.data import DataLoader, TensorDataset
    >>> x, y = np.random.default_rng(0).normal(size=(6, 3)), np.arange(6)
    >>> loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True, generator=np.random.default_rng(0))
    >>> [(xb.shape, yb.shape) for xb, yb in loader]
    [((4, 3), (4,)), ((2, 3), (2,))]
"""

from torchlight.utils.data.collate import default_collate, default_convert
from torchlight.utils.data.dataloader import DataLoader, get_worker_info
from torchlight.utils.data.dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from torchlight.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
