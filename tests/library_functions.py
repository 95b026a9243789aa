"""The library's own Functions, for the tests that hold a claim of every op (found by walking
`Function`'s subclasses as collected, so a test's or a doctest's Function is never one of them),
and the cases of the ops whose forward computes on arrays alone (engine's `array_forward`, and the
compiled replay's array kernels): one table for both."""

from __future__ import annotations

from torchlight.engine import Function


def library_functions() -> list[type[Function]]:
    """Every Function subclass the library defines (its module is in torchlight)."""
    found, todo = [], list(Function.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith("torchlight."):
            found.append(cls)
    return found


#: op name: the shapes of its Tensor arguments, its other arguments, the values' domain
ARRAY_OP_CASES = {
    "Add": ([(3, 4), (4,)], (), "any"),
    "Sub": ([(3, 4), (3, 1)], (), "any"),
    "Mul": ([(3, 4), ()], (), "any"),
    "Div": ([(3, 4), (4,)], (), "any"),
    "Neg": ([(5,)], (), "any"),
    "MatMul": ([(3, 4), (4, 2)], (), "any"),
    "Exp": ([(2, 3)], (), "any"),
    "Log": ([(2, 3)], (), "any"),
    "Sqrt": ([(6,)], (), "any"),
    "Abs": ([(6,)], (), "any"),
    "Tanh": ([(2, 3)], (), "any"),
    "ReLU": ([(7,)], (), "any"),
    "Sigmoid": ([(9,)], (), "any"),
    "TanhBack": ([(2, 3), (2, 3)], (), "any"),
    "SigmoidBack": ([(2, 3), (2, 3)], (), "unit"),
    "Sum": ([(2, 3, 4)], ((0, 2), False), "any"),
    "Reshape": ([(2, 6)], ((3, 4),), "any"),
    "BroadcastView": ([()], ((2, 3),), "any"),
}
