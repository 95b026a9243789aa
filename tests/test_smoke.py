"""The documented first example, end to end."""

import torchlight as tl


def test_square_sum_gradient():
    x = tl.tensor([2.0, 3.0], requires_grad=True)
    y = (x**2).sum()
    y.backward()
    assert x.grad.tolist() == [4.0, 6.0]
