"""`torchlight.func`: derivatives as functions, on plain arrays or on Tensors.

`grad`, `value_and_grad`, `vjp`, `jvp`, `linearize`, `jacobian` (`jacrev`),
`jacfwd`, `hessian` and `hvp` take a function `f` written with Tensor ops
and give back functions (or values) that compute its derivatives, in the
style of JAX and `torch.func`; `vmap` maps a function of one sample over a
batch, and `functional_call` calls a Module with other parameters.

- Arrays in, arrays out: call a transformed function with arrays of any
  supported library (NumPy, CuPy, array_api_strict, ...) or Python numbers,
  and the results are arrays of the same library, device and dtype. Call it
  with Tensors and the results are Tensors. `f` always receives Tensors
  (array arguments are wrapped without a copy, as constants when they are
  not differentiated).
- Pytrees: arguments and results may be nested tuples, lists, dicts and
  namedtuples of arrays (`tree_flatten`, `tree_unflatten`, `tree_map`); a
  gradient has its argument's structure.
- Nesting: `grad(grad(f))`, `jacobian(grad(f))`, `hessian(f)`,
  `vmap(grad(f))`, `vmap(vmap(f))` work. A transform whose `f` depends on a
  Tensor of an enclosing differentiable computation builds its derivatives
  with `create_graph=True` and returns Tensors that keep that dependence.
- Each differentiated argument enters `f` as a new node of the graph, so a
  closure that uses the same Tensor is held fixed (no perturbation
  confusion): `grad(lambda y: x * y)(x)` is `x`, not `2 x`.
- Forward mode (`jvp`, `jacfwd`, `linearize`) is the double-vjp
  construction; `hvp` is reverse-over-reverse (it returns H^T v, which is
  H v for any twice continuously differentiable f).

Example:
    >>> import numpy as np
    >>> from torchlight import func
    >>> f = lambda x: (x ** 3).sum()
    >>> func.grad(f)(np.array([1.0, 2.0]))
    array([ 3., 12.])
    >>> func.hessian(f)(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    >>> float(func.grad(func.grad(func.grad(lambda x: x ** 4)))(2.0))
    48.0
    >>> func.grad(lambda p: (p["w"] * p["b"]).sum())({"w": np.ones(2), "b": np.full(2, 3.0)})
    {'w': array([3., 3.]), 'b': array([1., 1.])}
"""

from __future__ import annotations

from torchlight.func._functional_call import functional_call
from torchlight.func._pytree import TreeSpec, tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten
from torchlight.func._transforms import (
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linearize,
    value_and_grad,
    vjp,
)
from torchlight.func._vmap import vmap, vmap_fallback

__all__ = ["TreeSpec", "functional_call", "grad", "hessian", "hvp", "jacfwd", "jacobian", "jacrev", "jvp",
           "linearize", "tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten",
           "value_and_grad", "vjp", "vmap", "vmap_fallback"]
