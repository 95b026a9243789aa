"""torchlight.fft against torch.fft: the values, the gradients (PyTorch's convention for complex
numbers) and the derivative of the gradient in its incoming gradient and in the input, for every
transform, with n/s that pad and trim, odd and even sizes, and the three norms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import torchlight as tl

torch = pytest.importorskip("torch", reason="torch.fft is the oracle of these gradients")

#: (name, the call on a module that is tl.fft or torch.fft, input shape, complex input)
CASES: list[tuple[str, Callable[[Any, Any], Any], tuple[int, ...], bool]] = [
    ("fft_pad_ortho", lambda m, x: m.fft(x, n=7, dim=1, norm="ortho"), (3, 5), True),
    ("fft_of_real_trim", lambda m, x: m.fft(x, n=3, dim=0), (5, 2), False),
    ("ifft_forward", lambda m, x: m.ifft(x, norm="forward"), (2, 4), True),
    ("fft2", lambda m, x: m.fft2(x, s=(4, 2)), (2, 3, 3), True),
    ("ifftn_out_of_order", lambda m, x: m.ifftn(x, s=(4, 6), dim=(1, 0), norm="ortho"), (3, 5), True),
    ("rfft_even_pad", lambda m, x: m.rfft(x, n=6, dim=1), (3, 5), False),
    ("rfft_odd_forward", lambda m, x: m.rfft(x, norm="forward"), (3, 5), False),
    ("rfft2", lambda m, x: m.rfft2(x, norm="ortho"), (2, 4, 3), False),
    ("rfftn_s", lambda m, x: m.rfftn(x, s=(4, 5), dim=(1, 0)), (3, 5), False),
    ("irfft_default", lambda m, x: m.irfft(x), (3, 5), True),
    ("irfft_odd_pad", lambda m, x: m.irfft(x, n=11, norm="ortho"), (3, 5), True),
    ("irfft_even_trim", lambda m, x: m.irfft(x, n=4, dim=0, norm="forward"), (5, 3), True),
    ("irfft_of_real", lambda m, x: m.irfft(x, n=5), (2, 4), False),
    ("irfft2", lambda m, x: m.irfft2(x), (3, 4), True),
    ("irfftn_all", lambda m, x: m.irfftn(x, norm="ortho"), (2, 3, 4), True),
    ("irfftn_s", lambda m, x: m.irfftn(x, s=(4, 7), dim=(0, 1)), (3, 5), True),
    ("hfft_default", lambda m, x: m.hfft(x, dim=0), (4, 3), True),
    ("hfft_odd_ortho", lambda m, x: m.hfft(x, n=7, norm="ortho"), (2, 4), True),
    ("hfft_even_forward", lambda m, x: m.hfft(x, n=4, norm="forward"), (2, 4), True),
    ("ihfft_odd", lambda m, x: m.ihfft(x, n=5), (2, 4), False),
    ("ihfft_even_ortho", lambda m, x: m.ihfft(x, norm="ortho", dim=0), (6, 2), False),
    ("hfftn", lambda m, x: m.hfftn(x, s=(3, 5), dim=(1, 0), norm="ortho"), (3, 4), True),
    ("hfft2", lambda m, x: m.hfft2(x), (2, 3, 3), True),
    ("ihfftn", lambda m, x: m.ihfftn(x, norm="forward"), (2, 3, 4), False),
    ("ihfft2", lambda m, x: m.ihfft2(x, s=(3, 5)), (2, 4), False),
    ("fftshift", lambda m, x: m.fftshift(x), (3, 4), True),
    ("ifftshift_dim", lambda m, x: m.ifftshift(x, dim=(0,)), (5, 2), False),
]


def _data(shape: tuple[int, ...], complex_input: bool, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = rng.standard_normal(shape)
    return data + 1j * rng.standard_normal(shape) if complex_input else data


def _like(data: np.ndarray, out_complex: bool, seed: int, shape: tuple[int, ...]) -> np.ndarray:
    return _data(shape, out_complex, seed)


def _torch_side(f: Callable, data: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, gradient for the upstream v, derivative of Re<u, gradient> in v), by torch."""
    x = torch.tensor(data, requires_grad=True)
    out = f(torch.fft, x)
    v = torch.tensor(_like(data, out.is_complex(), seed, tuple(out.shape)), requires_grad=True)
    (g,) = torch.autograd.grad(out, x, v, create_graph=True)
    u = torch.tensor(_data(data.shape, np.iscomplexobj(data), seed + 1))
    (dv,) = torch.autograd.grad(torch.real(torch.conj(u) * g).sum(), v)
    return (out.detach().resolve_conj().numpy(), g.detach().resolve_conj().numpy(), dv.resolve_conj().numpy())


def _our_side(f: Callable, data: np.ndarray, seed: int, backend: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = tl.tensor(data, backend=backend, requires_grad=True)
    out = f(tl.fft, x)
    v = tl.tensor(_like(data, out.backend.is_complex(out.dtype), seed, out.shape), backend=backend,
                  requires_grad=True)
    (g,) = tl.autograd.grad(out, [x], v, create_graph=True)
    assert g.dtype == x.dtype and g.shape == x.shape
    u = tl.tensor(_data(data.shape, np.iscomplexobj(data), seed + 1), backend=backend)
    (dv,) = tl.autograd.grad((u.conj() * g).real.sum(), [v])
    return out.numpy(), g.numpy(), dv.numpy()


@pytest.mark.parametrize("library", ["numpy", "array_api_strict"])
@pytest.mark.parametrize("name,f,shape,complex_input", CASES, ids=[c[0] for c in CASES])
def test_values_gradients_and_their_derivatives_equal_torch_fft(name, f, shape, complex_input, library):
    data = _data(shape, complex_input, 5)
    want = _torch_side(f, data, 9)
    got = _our_side(f, data, 9, library)
    for what, g, w in zip(("value", "gradient", "derivative of the gradient in its upstream"), got, want):
        assert g.shape == w.shape, (what, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=f"{name}: {what}")


def test_the_second_derivative_of_a_nonlinear_function_of_a_transform_equals_torch():
    data = _data((3, 6), False, 11)
    u = _data((3, 6), False, 12)

    def run(module: Any, lib: Any, x: Any, weights: Any) -> Any:
        y = module.rfft(x, norm="ortho")
        loss = (y * y.conj()).real.sum() + (module.irfft(y * y, n=6) ** 2).sum()
        g = lib.autograd.grad(loss, [x] if lib is tl else x, create_graph=True)[0]
        return lib.autograd.grad((g * weights).sum(), [x] if lib is tl else x)[0]

    xt = torch.tensor(data, requires_grad=True)
    want = run(torch.fft, torch, xt, torch.tensor(u)).numpy()
    got = run(tl.fft, tl, tl.tensor(data, requires_grad=True), tl.tensor(u)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
