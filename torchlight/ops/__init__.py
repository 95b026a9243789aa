"""The op library, by array-API category: each module holds its Functions and the Tensor methods that call them.

`arithmetic`, `linear_algebra`, `elementwise`, `activations`,
`trigonometric`, `reductions`, `shapes`, `indexing`, `copies`,
`comparisons`, `scalar_map`, `writes`; `common` holds what they share. Each method
mixin (`ArithmeticMethods`, ...) is inherited by `torchlight.Tensor`, which
sits above this package in the layers: the ops call Tensor methods on the
tensors they are given, never the Tensor class. `docs/architecture.md`
says how to add an op.

Example:
    >>> from torchlight.ops.elementwise import Exp
    >>> Exp.elementwise
    True
"""
