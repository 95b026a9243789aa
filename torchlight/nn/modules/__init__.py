"""PyTorch's path to the Module machinery: `torchlight.nn.modules.module.register_module_forward_hook`.

The code lives in `torchlight.nn.module`; `modules.module` is the same
module under PyTorch's name, so code that reaches for the global hooks
there runs unchanged.
"""

from torchlight.nn.modules import module

__all__ = ["module"]
