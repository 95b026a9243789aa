"""`torch.nn.modules.module`'s names: `Module` and the hooks common to every module.

Example:
    >>> from torchlight.nn.modules.module import Module, register_module_forward_hook
    >>> import torchlight.nn.module
    >>> Module is torchlight.nn.module.Module
    True
"""

from torchlight.nn.module import (
    Module,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)

__all__ = ["Module", "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook"]
