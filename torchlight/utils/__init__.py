"""`torchlight.utils`: tools over the engine, as `torch.utils` (`checkpoint`).

Example:
    >>> from torchlight.utils.checkpoint import checkpoint, checkpoint_sequential
"""

from torchlight.utils import checkpoint

__all__ = ["checkpoint"]
