"""vector_norm, matrix_norm and norm beyond the conformance entries: first and second order on each
backend, values and gradients (the subgradients at 0 included) against PyTorch, torch.linalg.norm's
choice between a vector and a matrix norm, complex inputs, dtype=, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.ops.norms import matrix_norm, norm, vector_norm


def _t(backend, x):
    return tl.tensor(x, backend=backend.name, requires_grad=True)


def _separated(rng, shape):
    """Magnitudes at least 0.2 apart and from 0: no ties of max/min, no kink of abs."""
    n = math.prod(shape)
    mags = 0.3 + 0.25 * np.arange(n) + rng.uniform(0, 0.05, n)
    return (rng.choice([-1.0, 1.0], n) * rng.permutation(mags)).reshape(shape)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, -1, math.inf, -math.inf])
def test_vector_norm_first_and_second_order(backend, ord):
    x = _t(backend, _separated(np.random.default_rng(0), (2, 3)))
    assert gradcheck(lambda t: vector_norm(t, ord, dim=-1), x)
    assert gradgradcheck(lambda t: vector_norm(t, ord, dim=-1), x)


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf, "nuc", 2, -2])
def test_matrix_norm_first_and_second_order(backend, ord):
    x = _t(backend, _separated(np.random.default_rng(1), (2, 3, 3)))
    assert gradcheck(lambda t: matrix_norm(t, ord), x)
    assert gradgradcheck(lambda t: matrix_norm(t, ord), x)


def test_values_and_gradients_agree_with_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here")
    rng = np.random.default_rng(2)
    a = _separated(rng, (2, 3, 4))
    calls = [(lambda m, o=o: m.linalg.vector_norm(X(m), o, dim=(0, 2), keepdim=True))
             for o in (2, 1, 3, -1.5, math.inf, 0)]
    calls += [(lambda m, o=o: m.linalg.matrix_norm(X(m), o)) for o in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)]
    calls += [lambda m: m.linalg.norm(X(m)), lambda m: m.linalg.norm(X(m)[0], 1), lambda m: m.linalg.norm(X(m), 3, 1),
              lambda m: m.linalg.norm(X(m), "nuc", (0, 2))]
    for call in calls:
        ours_in, theirs_in = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        X.value = {tl: ours_in, torch: theirs_in}
        out, ref = call(tl), call(torch)
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10)
        out.sum().backward()
        if ref.requires_grad:
            ref.sum().backward()
        expected = np.zeros_like(a) if theirs_in.grad is None else theirs_in.grad.numpy()
        np.testing.assert_allclose(ours_in.grad.numpy(), expected, rtol=1e-8, atol=1e-12)


class _X:
    """The input of the current call, in the module's library (tl or torch)."""

    value: dict = {}

    def __call__(self, module):
        return self.value[module]


X = _X()


def test_gradients_at_zero_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here")
    a = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, -4.0]])
    for ord in (2, 1, 3, math.inf, 0):
        t, p = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        vector_norm(t, ord, dim=1).sum().backward()
        out = torch.linalg.vector_norm(p, ord, dim=1).sum()
        if out.requires_grad:
            out.backward()
        expected = np.zeros_like(a) if p.grad is None else p.grad.numpy()  # ord 0: PyTorch has no graph at all
        np.testing.assert_allclose(t.grad.numpy(), expected, err_msg=str(ord))
    assert vector_norm(tl.tensor(a), -1, dim=1).tolist() == [0.0, 0.0]


def test_complex_inputs_are_normed_by_modulus_with_pytorchs_gradient():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here")
    rng = np.random.default_rng(3)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    for call in (lambda m, x: m.linalg.vector_norm(x, 3, dim=1), lambda m, x: m.linalg.matrix_norm(x, 1),
                 lambda m, x: m.linalg.matrix_norm(x)):
        t, p = tl.tensor(z, requires_grad=True), torch.tensor(z, requires_grad=True)
        out, ref = call(tl, t), call(torch, p)
        assert out.dtype == tl.float64
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-12)
        out.sum().backward()
        ref.sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), p.grad.resolve_conj().numpy(), rtol=1e-10)


def test_norm_chooses_as_pytorch_does():
    x = tl.tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(norm(x).item(), np.linalg.norm(np.arange(6.0)))
    np.testing.assert_allclose(norm(x, 1).item(), 7.0)                    # 2-d, dim None: the matrix 1-norm
    np.testing.assert_allclose(norm(x, 1, dim=1).numpy(), [3.0, 12.0])    # an int dim: vector norms
    np.testing.assert_allclose(norm(x, dim=(0, 1)).item(), np.linalg.norm(np.arange(6.0)))
    assert vector_norm(tl.tensor([1, 2, 2]), dtype=tl.float64).item() == 3.0


@pytest.mark.parametrize("call,error,words", [
    (lambda: vector_norm(tl.tensor([1, 2])), TypeError, ["vector_norm", "floating", "dtype="]),
    (lambda: vector_norm(tl.ones(3), "fro"), ValueError, ["vector_norm", "ord"]),
    (lambda: vector_norm(tl.ones(3), dim=1), IndexError, ["vector_norm", "dim 1"]),
    (lambda: vector_norm(tl.ones(0, 2), math.inf, dim=0), ValueError, ["vector_norm", "empty"]),
    (lambda: vector_norm([1.0, 2.0]), TypeError, ["vector_norm", "Tensor"]),
    (lambda: matrix_norm(tl.ones(3)), ValueError, ["matrix_norm", "matrix"]),
    (lambda: matrix_norm(tl.ones(3, 3), 3), ValueError, ["matrix_norm", "ord"]),
    (lambda: matrix_norm(tl.ones(3, 3), dim=(0, 0)), ValueError, ["matrix_norm"]),
    (lambda: matrix_norm(tl.ones(3, 3), dim=0), TypeError, ["matrix_norm", "pair"]),
    (lambda: norm(tl.ones(2, 2, 2), 2), ValueError, ["norm", "1-d or 2-d"]),
    (lambda: norm(tl.ones(3), "nuc"), ValueError, ["norm", "matrix norm"]),
    (lambda: norm(tl.ones(3, 3, 3), dim=(0, 1, 2)), ValueError, ["norm", "one or two"]),
])
def test_bad_input_names_the_function_and_the_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert all(w in str(info.value) for w in words), str(info.value)
