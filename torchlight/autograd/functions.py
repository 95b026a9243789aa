"""Every built-in Function, by name: `from torchlight.autograd.functions import Add, Mul, ...`.

The seed documentation names this module. The Functions themselves live
with their category (`torchlight.ops.<category>`, and `torchlight.nn.ops`
for the ones only `nn.functional` uses), each beside the Tensor methods
that call it; this module gathers them, with the shape helpers the ops
share.

Forward receives Tensors and computes on their `.data` with the namespace
`xp = tensor.backend.xp`; backward is written with Tensor ops (and the
`*Back` Functions, differentiable in turn), so `backward(create_graph=True)`
yields correct higher derivatives. The engine, not these functions, sums a
broadcast gradient back to its input's shape and casts it to its dtype.

Conventions at kinks, where a choice is needed: relu'(0) = 0, abs'(0) = 0
(as PyTorch), max splits the gradient evenly among tied maxima, and
d(x**p)/dx is 0 where p == 0 (PyTorch's convention at x = 0).

Example:
    >>> import torchlight as tl
    >>> from torchlight.autograd.functions import Mul
    >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> Mul.apply(x, x).sum().backward()
    >>> x.grad.tolist()
    [2.0, 4.0]
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import TYPE_CHECKING

from torchlight.engine import Context, Function  # noqa: F401  (the base classes, as before)
from torchlight.nn import ops as _nn_ops
from torchlight.nn.ops import window_count  # noqa: F401
from torchlight.ops import (
    activations,
    arithmetic,
    complex_numbers,
    copies,
    decompositions,
    einsum,
    elementwise,
    fft,
    indexing,
    linear_algebra,
    norms,
    reductions,
    scalar_map,
    sets,
    shapes,
    sorting,
    special,
    special_gamma,
    trigonometric,
    writes,
)
from torchlight.ops.common import broadcast_shapes, index_key, mean_scale, normalize_dims, resolve_shape  # noqa: F401
from torchlight.ops.indexing import one_hot  # noqa: F401
from torchlight.ops.linear_algebra import matmul  # noqa: F401
from torchlight.ops.shapes import sum_to  # noqa: F401

if TYPE_CHECKING:  # (for the type checker only: it cannot see the names `globals().update` binds below)

    def __getattr__(name: str) -> type[Function]: ...


#: the modules that define built-in Functions: each Function is gathered from where it is defined,
#: so a new op needs no line here (and this module cannot fall behind the op library)
MODULES = (arithmetic, linear_algebra, elementwise, activations, trigonometric, reductions, shapes, indexing, copies,
           scalar_map, writes, complex_numbers, sorting, sets, decompositions, norms, fft, einsum, special,
           special_gamma, _nn_ops)


def _defined_in(module: ModuleType) -> dict[str, type]:
    """The Function subclasses `module` defines (not the ones it imports)."""
    return {name: obj for name, obj in vars(module).items()
            if inspect.isclass(obj) and issubclass(obj, Function) and obj.__module__ == module.__name__}


FUNCTIONS: dict[str, type] = {name: cls for module in MODULES for name, cls in _defined_in(module).items()}
globals().update(FUNCTIONS)

#: every built-in Function class, by name
__all__ = sorted(FUNCTIONS)
