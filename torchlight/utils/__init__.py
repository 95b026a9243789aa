"""`torchlight.utils`: tools over the engine, as `torch.utils` (`checkpoint`, `data`).

Example:
    >>> from torchlight.utils.checkpoint import checkpoint, checkpoint_sequential
"""

from torchlight.utils import checkpoint, data

__all__ = ["checkpoint", "data"]
