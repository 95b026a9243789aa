"""`Embedding`: a lookup table of learned vectors, indexed by integers.

Example:
    >>> import torchlight as tl
    >>> table = tl.nn.Embedding(10, 3)
    >>> table(tl.tensor([[1, 2], [3, 9]])).shape
    (2, 2, 3)
"""

from __future__ import annotations

from typing import Any

from torchlight.nn import functional as F
from torchlight.nn import init
from torchlight.nn._factory import new_parameter
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class Embedding(Module):
    """`weight[indices]` for a weight (num_embeddings, embedding_dim) initialised N(0, 1), as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> emb = tl.nn.Embedding(10, 3)
        >>> emb.weight.shape
        (10, 3)
        >>> emb(tl.tensor([[1, 2], [4, 9]])).shape
        (2, 2, 3)
        >>> (emb(tl.tensor([4])) == emb.weight[4]).all().item()
        True
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, *, backend: Any = None, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.weight = new_parameter((num_embeddings, embedding_dim), backend, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.normal_(self.weight)

    def forward(self, indices: Any) -> Tensor:
        return F.embedding(indices, self.weight)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"
