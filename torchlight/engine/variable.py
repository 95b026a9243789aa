"""`Variable`: what the engine knows of a node that holds an array (a Tensor).

The engine (`Function.apply`, `History.chain_rule`, the graph walk) is
written against this small protocol, not against `Tensor`, so it sits
below the op library and the Tensor class in the layers. `Tensor`
subclasses `Variable` and supplies its hooks; the scalar engine's `Value`
follows the same protocol for the graph walk without subclassing it (it
holds a number, not an array, and never passes through `Function.apply`).

A Variable has `data` (an array of its `backend`), `backend`,
`requires_grad` and `history` (None for a leaf), and the hooks:

- `_wrap(array, backend)` (a classmethod): a new history-free Variable
  around an array, the result of a forward or a backward;
- `_sum_to(shape, op)`: this gradient summed back to `shape` (undoing a
  broadcast), differentiably;
- `astype(dtype)`: this gradient cast to another dtype, differentiably;
  `_gradient_as(dtype)`, what the chain rule calls, is `astype` but for a
  complex gradient of a real input, which keeps its real part.

The graph walk (`topological_sort`, `backpropagate`) needs less: see
`torchlight.engine.graph`.

Example:
    >>> import torchlight as tl
    >>> from torchlight.engine import Variable
    >>> isinstance(tl.tensor([1.0]), Variable)
    True
"""

from __future__ import annotations

from typing import Any


class Variable:
    """The base class of the engine's array nodes; `torchlight.Tensor` is the one the library has.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import Variable
        >>> x = tl.tensor([1.0], requires_grad=True)
        >>> isinstance(x, Variable), x.requires_grad, x.history is None  # a leaf has no history
        (True, True, True)
        >>> (x * 2).history
        History(last_fn=Mul, inputs=2, shape=(1,), dtype=float64)
    """

    __slots__ = ()
    #: whether `data` is the whole array this Variable stands for, so that a backward may compute on
    #: the arrays alone (`Function.raw_backward`); False for a batched view (`torchlight.func.vmap`)
    plain_data = False
    data: Any
    backend: Any
    requires_grad: bool
    history: Any

    @property
    def shape(self) -> tuple[int, ...]:
        raise NotImplementedError

    @property
    def dtype(self) -> Any:
        raise NotImplementedError

    @property
    def device(self) -> Any:
        raise NotImplementedError

    @classmethod
    def _wrap(cls, out: Any, backend: Any) -> Variable:
        """A new history-free Variable around `out` (an array, or a Variable whose array is taken)."""
        raise NotImplementedError

    def _sum_to(self, shape: tuple[int, ...], op: str = "backward") -> Variable:
        """This gradient summed down to `shape` (the engine's broadcast reduction)."""
        raise NotImplementedError

    def astype(self, dtype: Any) -> Variable:
        """This gradient cast to `dtype`."""
        raise NotImplementedError

    def _gradient_as(self, dtype: Any) -> Variable:
        """This gradient cast to its input's `dtype`, differentiably: a complex gradient of a
        real input is its real part (what a real input gets where it meets a complex one)."""
        return self.astype(dtype)
