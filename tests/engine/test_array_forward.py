"""An op that says `array_forward` computes its forward on arrays alone, so the engine records it
without turning grad mode off around it: recording one makes exactly one graph node, its own, and
gives what the op gives with grad mode turned off, to the bit."""

from __future__ import annotations

import numpy as np
import pytest
from library_functions import ARRAY_OP_CASES, library_functions

import torchlight as tl
from torchlight.engine import Function, function
from torchlight.engine.observe import Observer, observing

# every op that says `array_forward` and was not made by `unary_op` has a case (those get one vector)
CASES = ARRAY_OP_CASES
OPS = {fn.__name__: fn for fn in library_functions() if fn.array_forward}


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
    shapes, extra, _ = CASES.get(name, ([(4,)], (), "any"))
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
