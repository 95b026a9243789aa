"""An op that says `array_forward` computes its forward on arrays alone, so the engine records it
without turning grad mode off around it: recording one makes exactly one graph node, its own, and
gives what the op gives with grad mode turned off, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.engine import Function, function
from torchlight.engine.observe import Observer, observing

# op name: the shapes of its Tensor arguments and its other arguments (every other op that says
# `array_forward` is one of `unary_op`'s, given one vector)
CASES = {
    "Add": ([(3, 4), (4,)], ()), "Sub": ([(3, 4), (3, 1)], ()), "Mul": ([(3, 4), ()], ()),
    "Div": ([(3, 4), (4,)], ()), "Neg": ([(5,)], ()), "MatMul": ([(3, 4), (4, 2)], ()),
    "Exp": ([(2, 3)], ()), "Log": ([(2, 3)], ()), "Sqrt": ([(6,)], ()), "Abs": ([(6,)], ()),
    "Tanh": ([(2, 3)], ()), "ReLU": ([(7,)], ()), "Sigmoid": ([(9,)], ()),
    "TanhBack": ([(2, 3), (2, 3)], ()), "SigmoidBack": ([(2, 3), (2, 3)], ()),
    "Sum": ([(2, 3, 4)], ((0, 2), False)), "Reshape": ([(2, 6)], ((3, 4),)), "BroadcastView": ([()], ((2, 3),)),
}


def ops_saying_array_forward() -> dict[str, type[Function]]:
    found, todo = {}, list(Function.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.array_forward and cls.__module__.startswith("torchlight."):
            found[cls.__name__] = cls
    return found


OPS = ops_saying_array_forward()


def test_the_hottest_ops_say_it_and_a_subclass_does_not_inherit_it():
    unary = {name for name, fn in OPS.items() if "array_name" in fn.__dict__}
    assert set(OPS) - unary == set(CASES) and len(unary) >= 10

    class Twice(OPS["Exp"]):  # a user's subclass may call Tensor ops in its own forward
        @staticmethod
        def forward(ctx, a):
            return (a * 2.0).data

    assert Twice.array_forward is False


class Nodes(Observer):
    def __init__(self):
        self.made = 0

    def node_made(self, node):
        self.made += 1


@pytest.mark.parametrize("name", sorted(OPS))
def test_recording_the_op_makes_one_node_and_the_quiet_result(name, backend):
    shapes, extra = CASES.get(name, ([(4,)], ()))
    rng = np.random.default_rng(3)
    tensors = [tl.tensor(backend.asarray(rng.uniform(0.2, 0.8, s)), requires_grad=True) for s in shapes]
    fn = OPS[name]
    with np.errstate(all="ignore"):
        quiet = fn.forward(function.Context(no_grad=True), *tensors, *extra)
        seen = Nodes()
        with observing(seen):
            out = fn.apply(*tensors, *extra)
    assert seen.made == 1 and out.history.last_fn is fn
    assert tl.is_grad_enabled()
    expected = backend.to_numpy(quiet)
    assert backend.to_numpy(out.data).tobytes() == np.ascontiguousarray(expected).tobytes()


def test_an_op_that_does_not_say_it_records_its_forwards_tensor_ops_nowhere():
    class Composed(Function):  # a forward in Tensor ops: grad mode is off inside it
        @staticmethod
        def forward(ctx, a):
            assert not tl.is_grad_enabled()
            return (a * 2.0).exp()

        @staticmethod
        def backward(ctx, g):
            return g

    x = tl.tensor([1.0], requires_grad=True)
    seen = Nodes()
    with observing(seen):
        y = Composed.apply(x)
    assert seen.made == 1 and y.history.last_fn is Composed
