"""The Tensor and the top-level module follow PyTorch where it and the array API disagree:
max/min along a dim, size(), grad_fn, float()/double()/half(), pow, and torch's free functions."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl


def _torch():
    return pytest.importorskip("torch", reason="torch is not installed: its results are not compared")


def test_max_along_a_dim_is_values_and_indices_and_unpacks_as_in_pytorch():
    x = tl.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    values, indices = x.max(1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert x.max(1).values is not None and x.min(0).indices.tolist() == [0, 1]
    assert x.max().shape == () and x.max().item() == 7.0
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert x.amax((0, 1)).item() == 7.0 and x.amin(dim=0).tolist() == [1.0, 2.0]
    assert x.max(tl.tensor(3.0)).tolist() == [[3.0, 5.0], [7.0, 3.0]]


def test_max_and_min_agree_with_pytorch():
    torch = _torch()
    data = np.array([[1.0, 5.0, -2.0], [7.0, 2.0, 0.5]])
    x, t = tl.tensor(data), torch.tensor(data)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            ours, theirs = x.max(dim, keepdim), t.max(dim, keepdim)
            assert ours.values.tolist() == theirs.values.tolist()
            assert ours.indices.tolist() == theirs.indices.tolist()
            assert x.min(dim, keepdim).indices.tolist() == t.min(dim, keepdim).indices.tolist()


def test_size_is_the_element_count_and_called_gives_the_shape():
    x = tl.zeros(2, 3)
    assert x.size == 6 and x.size() == (2, 3) and x.size(0) == 2 and x.size(-1) == 3
    assert x.numel() == 6 and x.dim() == 2
    with pytest.raises(IndexError, match="out of range"):
        x.size(2)
    with pytest.raises(IndexError):
        tl.tensor(1.0).size(0)


def test_grad_fn_is_the_history_or_none():
    x = tl.tensor([1.0], requires_grad=True)
    y = x * 2.0
    assert x.grad_fn is None and y.grad_fn is y.history and y.grad_fn.last_fn.__name__ == "Mul"


def test_float_double_half_and_pow():
    x = tl.tensor([1.5, -2.0], requires_grad=True)
    assert x.float().dtype == tl.float32 and x.double() is x and str(x.half().dtype) == "float16"
    x.float().sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    assert x.pow(2).tolist() == [2.25, 4.0]


UNARY = ["abs", "exp", "log1p", "sin", "cos", "tanh", "sigmoid", "sqrt", "floor", "neg", "square", "relu"]


@pytest.mark.parametrize("name", UNARY)
def test_torch_free_functions_match_pytorch(name):
    torch = _torch()
    data = np.array([[0.3, 1.2], [2.5, 0.7]])
    got = getattr(tl, name)(tl.tensor(data)).numpy()
    np.testing.assert_allclose(got, getattr(torch, name)(torch.tensor(data)).numpy(), rtol=1e-12)


def test_reductions_and_binary_free_functions_take_torchs_arguments():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert tl.sum(x, dim=1).tolist() == [3.0, 7.0] and tl.mean(x).item() == 2.5
    assert tl.max(x, 0).values.tolist() == [3.0, 4.0]
    assert tl.add(x, 1.0, alpha=2.0).tolist() == [[3.0, 4.0], [5.0, 6.0]]
    assert tl.sub(10.0, x).tolist() == [[9.0, 8.0], [7.0, 6.0]]
    assert tl.div(tl.tensor([-7.0, 7.0]), 2.0, rounding_mode="trunc").tolist() == [-3.0, 3.0]
    assert tl.matmul(x, x).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert tl.clamp(x, 1.5, 3.5).tolist() == [[1.5, 2.0], [3.0, 3.5]]
    assert tl.pow(2.0, tl.tensor([1.0, 3.0])).tolist() == [2.0, 8.0]
    assert tl.eq(x, 2.0).tolist() == [[False, True], [False, False]]
    tl.sum(tl.exp(x)).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()))
    assert tl.numel(x) == 4 and tl.is_tensor(x) and not tl.is_tensor(np.ones(2))
    assert tl.sin(np.array([0.0])).tolist() == [0.0]  # an array is lifted


def test_the_matrix_products_check_their_ranks_as_pytorch():
    a = tl.ones(2, 3)
    assert tl.mm(a, tl.ones(3, 4)).shape == (2, 4) and tl.bmm(tl.ones(2, 2, 3), tl.ones(2, 3, 1)).shape == (2, 2, 1)
    assert tl.dot(tl.ones(3), tl.ones(3)).item() == 3.0
    with pytest.raises(RuntimeError, match="mm: expects 2-d"):
        tl.mm(tl.ones(3), a)
    with pytest.raises(RuntimeError, match="bmm: expects 3-d"):
        tl.bmm(a, a)
    with pytest.raises(ValueError, match="rounding_mode"):
        tl.div(a, 2.0, rounding_mode="round")
    with pytest.raises(TypeError, match="sin: expects a Tensor"):
        tl.sin("x")


def test_creation_functions_match_pytorch():
    torch = _torch()
    np.testing.assert_allclose(tl.linspace(-1.0, 2.0, 7).numpy(), torch.linspace(-1.0, 2.0, 7, dtype=torch.float64))
    np.testing.assert_allclose(tl.logspace(0.0, 3.0, 4).numpy(), torch.logspace(0.0, 3.0, 4, dtype=torch.float64))
    assert tl.eye(3, 2).tolist() == torch.eye(3, 2).tolist() and tl.eye(2).tolist() == torch.eye(2).tolist()
    x = tl.zeros(2, 3, dtype="float32")
    assert tl.full_like(x, 2.0).dtype == tl.float32 and tl.full_like(x, 2.0).tolist() == [[2.0] * 3] * 2
    assert tl.empty(2, 3).shape == (2, 3) and tl.empty_like(x).dtype == tl.float32
    assert tl.rand_like(x).shape == (2, 3) and tl.randn_like(x).dtype == tl.float32
    with pytest.raises(ValueError, match="steps"):
        tl.linspace(0.0, 1.0, -1)
    with pytest.raises(ValueError, match="eye: n"):
        tl.eye(-1)


@pytest.fixture
def float32_default():
    tl.set_default_dtype("float32")
    try:
        yield
    finally:
        tl.set_default_dtype("float64")


def test_set_default_dtype_reaches_factories_python_floats_and_layers(float32_default):
    assert tl.get_default_dtype() == tl.float32
    assert tl.zeros(2).dtype == tl.float32 and tl.randn(2).dtype == tl.float32 and tl.tensor([1.0]).dtype == tl.float32
    assert tl.tensor([1, 2]).dtype == tl.int64 and tl.tensor(np.ones(2)).dtype == tl.float64  # arrays keep theirs
    assert tl.zeros(2, backend="array_api_strict").dtype == tl.float32
    assert tl.nn.Linear(2, 3).weight.dtype == tl.float32


def test_set_default_dtype_refuses_what_is_not_floating():
    with pytest.raises(TypeError, match="floating"):
        tl.set_default_dtype("int32")
    assert tl.get_default_dtype() == tl.float64


def test_to_takes_a_dtype_and_pytorchs_device_strings():
    x = tl.tensor([1.0, 2.0], backend="array_api_strict", requires_grad=True)
    y = x.to("cpu")
    assert y.backend.name == "numpy" and x.cpu().backend.name == "numpy"
    assert tl.tensor([1.0]).to(tl.float32).dtype == tl.float32 and tl.tensor([1.0]).to("float32").dtype == tl.float32
    assert tl.tensor([1.0]).to(dtype="float32", backend="array_api_strict").dtype == tl.float32
    (y * 2.0).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and x.grad.backend.name == "array_api_strict"
    assert tl.zeros(2, device="cpu").backend.name in ("numpy", tl.get_default_backend())
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(tl.BackendUnavailableError, match="CuPy"):
            tl.tensor([1.0]).to("cuda")
        with pytest.raises(tl.BackendUnavailableError, match="CuPy"):
            tl.zeros(2, device="cuda:1")
        for factory in (tl.rand, tl.randn):  # the random factories read a device string as the others do
            with pytest.raises(tl.BackendUnavailableError, match="CuPy"):
                factory(2, device="cuda")


def test_a_torch_tensors_own_cpu_stays_on_torch():
    pytest.importorskip("torch", reason="torch is not installed: its backend is not checked")
    assert tl.tensor([1.0], backend="torch").to("cpu").backend.name == "torch"
