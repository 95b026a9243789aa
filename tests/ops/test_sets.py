"""The set functions beyond what the conformance entries express: the standard's named tuples and
their fields, NaN and signed zeros, the default integer dtype of indices and counts, the gradient at
ties and its second order, the portable unique_all (what torch's backend uses) against NumPy, PyTorch's
`unique` face, and the refusals (dim, a non-Tensor, Dask's data-dependent shapes)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import grad
from torchlight.ops.sets import (
    UniqueAllResult,
    UniqueCountsResult,
    UniqueInverseResult,
    portable_unique_all,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)


def host(t):
    return np.asarray(t.numpy())


@pytest.fixture(autouse=True)
def _eager_only(request):
    """A lazy backend refuses every set function (the last test checks how)."""
    if "backend" in request.fixturenames and request.getfixturevalue("backend").lazy:
        pytest.skip("a lazy backend refuses data-dependent shapes (test_dask_refuses_...)")


def test_results_are_the_standards_named_tuples(backend, device):
    x = tl.tensor([[2.0, 1.0], [2.0, 5.0]], backend=backend, device=device)
    everything = unique_all(x)
    assert isinstance(everything, UniqueAllResult)
    assert everything._fields == ("values", "indices", "inverse_indices", "counts")
    assert UniqueCountsResult._fields == ("values", "counts")
    assert UniqueInverseResult._fields == ("values", "inverse_indices")
    values, indices, inverse, counts = everything
    assert host(values).tolist() == [1.0, 2.0, 5.0]
    assert host(indices).tolist() == [1, 0, 3]  # the first occurrence in the flattened input
    assert host(inverse).tolist() == [[1, 0], [1, 2]]  # shaped like x
    assert host(counts).tolist() == [1, 2, 1]
    assert isinstance(unique_counts(x), UniqueCountsResult)
    assert isinstance(unique_inverse(x), UniqueInverseResult)
    for field in (indices, inverse, counts, unique_counts(x).counts, unique_inverse(x).inverse_indices):
        assert field.dtype == backend.default_int(device)
        assert not field.requires_grad
        assert field.backend is backend and field._device == device


def test_every_nan_is_its_own_value_sorted_last_and_signed_zeros_are_one(backend, device):
    x = tl.tensor([np.nan, 1.0, -0.0, np.nan, 0.0, 1.0], backend=backend, device=device)
    values, indices, inverse, counts = unique_all(x)
    got = host(values)
    assert got[:2].tolist() == [0.0, 1.0] and np.isnan(got[2:]).all() and got.shape == (4,)
    assert host(counts).tolist() == [2, 2, 1, 1]
    assert sorted(host(indices)[2:].tolist()) == [0, 3]
    np.testing.assert_array_equal(got[host(inverse)], host(x))  # values[inverse] is x, NaNs included


def test_integer_and_boolean_inputs_keep_their_dtype(backend, device):
    ints = tl.tensor([3, 1, 3], backend=backend, device=device)
    assert unique_values(ints).dtype == ints.dtype and host(unique_values(ints)).tolist() == [1, 3]
    mask = tl.tensor([True, False, True], backend=backend, device=device)
    assert host(unique_counts(mask).counts).tolist() == [1, 2]


def test_a_values_gradient_is_split_evenly_among_its_occurrences(backend, device):
    x = tl.tensor([3.0, 1.0, 3.0, 3.0, np.nan], backend=backend, device=device, requires_grad=True)
    values = unique_values(x)
    weights = tl.tensor([1.0, 6.0, 5.0], backend=backend, device=device)
    (values.where(values == values, 0.0) * weights).sum().backward()  # (NaN != NaN: the NaN left out)
    # moving every copy of 3.0 by t moves the value by t: the copies' gradients sum to 6
    assert host(x.grad).tolist() == [2.0, 1.0, 2.0, 2.0, 0.0]


def test_the_gradient_differentiates_again(backend, device):
    """d/dx sum(values**2) = 2 value / count at each element; its derivative is 2 / count**2 summed over
    a value's block (the gather's backward, a scatter-add by the inverse indices)."""
    x = tl.tensor([2.0, 1.0, 2.0], backend=backend, device=device, requires_grad=True)
    (g,) = grad((unique_values(x) ** 2).sum(), x, create_graph=True)
    assert host(g).tolist() == [2.0, 2.0, 2.0]
    (h,) = grad(g.sum(), x)
    assert host(h).tolist() == [1.0, 2.0, 1.0]  # d(2 * mean(copies of 2))/dx_i summed over both copies


@pytest.mark.parametrize("values", [
    [2.0, 1.0, 2.0, np.nan, 0.0, -0.0, np.nan, 1.0],
    [5.0],
    [],
    [1.0, 1.0, 1.0],
])
def test_the_portable_unique_all_agrees_with_numpy(values):
    import array_api_strict as xp

    flat = np.asarray(values, dtype=np.float64)
    got = [np.asarray(a) for a in portable_unique_all(xp, xp.asarray(flat))]
    want = np.unique(flat, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.reshape(w, (-1,)))


def test_pytorchs_unique_returns_what_it_is_asked_for(backend, device):
    x = tl.tensor([[4.0, 1.0], [4.0, 4.0]], backend=backend, device=device, requires_grad=True)
    alone = tl.unique(x)
    assert isinstance(alone, tl.Tensor) and host(alone).tolist() == [1.0, 4.0]
    values, inverse = x.unique(return_inverse=True)
    assert host(inverse).tolist() == [[1, 0], [1, 1]]
    values, counts = x.unique(return_counts=True)
    assert host(counts).tolist() == [1, 3]
    values, inverse, counts = tl.unique(x, sorted=False, return_inverse=True, return_counts=True)
    assert host(values).tolist() == [1.0, 4.0] and host(counts).tolist() == [1, 3]
    values.sum().backward()
    assert host(x.grad).tolist() == [[1 / 3, 1.0], [1 / 3, 1 / 3]]
    assert tl.unique([3, 3, 1]).tolist() == [1, 3]  # tl.unique lifts Python data, as torch.tensor would


def test_bad_input_names_the_function():
    x = tl.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match=r"unique: dim=0 .* only dim=None"):
        x.unique(dim=0)
    with pytest.raises(TypeError, match="unique_all: expects a Tensor, not list"):
        unique_all([1.0, 2.0])


@pytest.mark.parametrize("fn", ["unique_values", "unique_counts", "unique_inverse", "unique_all", "unique"])
def test_dask_refuses_a_data_dependent_shape_by_name(fn):
    pytest.importorskip("dask.array")
    from torchlight.ops import sets

    x = tl.tensor([1.0, 2.0, 1.0], backend="dask", requires_grad=True)
    with pytest.raises(ValueError, match=rf"^{fn}: the number of distinct values is data-dependent.*'dask'"):
        getattr(sets, fn)(x)
