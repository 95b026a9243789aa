"""The documented first example, end to end, on each backend."""

import torchlight as tl


def test_square_sum_gradient(backend, device):
    x = tl.tensor([2.0, 3.0], requires_grad=True, backend=backend, device=device)
    y = (x**2).sum()
    y.backward()
    assert x.grad.tolist() == [4.0, 6.0]
    assert x.grad.backend is backend
