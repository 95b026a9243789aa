"""`torchlight.nn.utils`: gradient clipping and flattening parameters into one vector, as `torch.nn.utils`.

Example:
    >>> import torchlight as tl
    >>> model = tl.nn.Linear(3, 2)
    >>> model(tl.ones(4, 3)).sum().backward()
    >>> total = tl.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    >>> round(tl.nn.utils.get_total_norm([p.grad for p in model.parameters()]).item(), 4) <= 1.0
    True
    >>> tl.nn.utils.parameters_to_vector(model.parameters()).shape
    (8,)
"""

from torchlight.nn.utils import clip_grad, convert_parameters
from torchlight.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from torchlight.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "convert_parameters",
    "get_total_norm",
    "parameters_to_vector",
    "vector_to_parameters",
]
