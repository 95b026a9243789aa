"""`torchlight.optim`: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS) and `lr_scheduler`.

An optimizer holds parameter groups (lists of Parameters plus their
hyper-parameters, as PyTorch's `param_groups`) and per-parameter state.
`step()` reads each parameter's `.grad` and replaces its `.data` with a new
array computed from arrays only: nothing is recorded for backward and
nothing is written in place (so JAX's immutable arrays work too).
`lr_scheduler` changes the groups' learning rates epoch by epoch, as
PyTorch's `torch.optim.lr_scheduler`.

Example:
    >>> import torchlight as tl
    >>> w = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
    >>> opt = tl.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.tolist()
    [0.8, -1.6]
    >>> opt.zero_grad(); w.grad is None
    True
"""

from torchlight.optim import lr_scheduler
from torchlight.optim.adagrad import Adagrad
from torchlight.optim.lbfgs import LBFGS
from torchlight.optim.optimizer import SGD, Adam, AdamW, Optimizer
from torchlight.optim.rmsprop import RMSprop

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "RMSprop", "Adagrad", "LBFGS", "lr_scheduler"]
