"""torchlight.utils.data: the batches PyTorch's DataLoader gives for the same indices, reproducible
shuffles, the backend of the data kept, and the refusals."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import torchlight as tl
from torchlight.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    default_collate,
    random_split,
)

X = np.random.default_rng(0).normal(size=(10, 3))
Y = np.arange(10)


def as_lists(loader):
    return [[part.tolist() for part in batch] for batch in loader]


def test_tensor_dataset_items_and_lengths(backend):
    data = TensorDataset(tl.tensor(X, backend=backend), tl.tensor(Y, backend=backend))
    assert len(data) == 10
    x, y = data[3]
    assert x.backend is backend and y.backend is backend
    assert x.tolist() == X[3].tolist() and y.item() == 3


def test_tensor_dataset_refuses_different_lengths_naming_them():
    with pytest.raises(ValueError, match="first dimensions differ: 10, 9"):
        TensorDataset(X, Y[:9])
    with pytest.raises(ValueError, match="0-d"):
        TensorDataset(tl.tensor(1.0))
    with pytest.raises(TypeError, match="argument 1 is a list"):
        TensorDataset(X, [1, 2])
    with pytest.raises(ValueError, match="at least one"):
        TensorDataset()


@pytest.mark.parametrize("drop_last", [False, True])
def test_batches_in_order_and_len(backend, drop_last):
    loader = DataLoader(TensorDataset(tl.tensor(X, backend=backend), tl.tensor(Y, backend=backend)),
                        batch_size=4, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(batches) == (2 if drop_last else 3)
    assert isinstance(batches[0], list) and batches[0][0].backend is backend
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]][: len(batches)]
    np.testing.assert_array_equal(batches[1][0].numpy(), X[4:8])


def test_the_gather_of_a_tensor_dataset_is_the_stack_of_its_rows(backend):
    data = TensorDataset(tl.tensor(X, backend=backend), tl.tensor(Y, backend=backend))
    indices = [7, 2, 2, 9]
    gathered = next(iter(DataLoader(data, batch_sampler=[indices])))
    stacked = default_collate([data[i] for i in indices])
    for g, s in zip(gathered, stacked):
        assert g.dtype == s.dtype and g.shape == s.shape and g.backend is s.backend
        np.testing.assert_array_equal(g.numpy(), s.numpy())


def test_gradients_flow_through_batches():
    w = tl.tensor(X, requires_grad=True)
    (xb,) = next(iter(DataLoader(TensorDataset(w), batch_size=3)))
    xb.sum().backward()
    assert w.grad.numpy()[:3].tolist() == [[1.0] * 3] * 3 and w.grad.numpy()[3:].sum() == 0


def test_shuffle_with_a_seeded_generator_is_reproducible_and_a_permutation():
    data = TensorDataset(X, Y)

    def epochs(seed):
        loader = DataLoader(data, batch_size=3, shuffle=True, generator=np.random.default_rng(seed))
        return [[int(i) for b in loader for i in b[1].tolist()] for _ in range(2)]

    first, again, other = epochs(0), epochs(0), epochs(1)
    assert first == again and first != other
    assert first[0] != first[1]  # a new order each epoch
    assert sorted(first[0]) == list(range(10))


def test_shuffle_without_a_generator_follows_manual_seed():
    data = TensorDataset(X, Y)
    loader = DataLoader(data, batch_size=5, shuffle=True)
    tl.manual_seed(3)
    first = as_lists(loader)
    tl.manual_seed(3)
    assert as_lists(loader) == first
    assert as_lists(loader) != first  # the next epoch draws a new order


def test_random_split_is_seeded_and_disjoint():
    data = TensorDataset(X, Y)
    parts = random_split(data, [0.7, 0.3], generator=np.random.default_rng(0))
    assert [len(p) for p in parts] == [7, 3]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = random_split(data, [7, 3], generator=np.random.default_rng(0))
    assert again[0].indices == parts[0].indices
    assert parts[1][0][1].item() == parts[1].indices[0]
    with pytest.raises(ValueError, match="sum to 9"):
        random_split(data, [5, 4])
    # fractions: the remainder goes one by one to the first parts, as PyTorch
    assert [len(p) for p in random_split(data, [0.33, 0.33, 0.34], generator=np.random.default_rng(0))] == [4, 3, 3]


def test_samplers_and_batch_sampler():
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    draws = list(RandomSampler(range(4), replacement=True, num_samples=40, generator=np.random.default_rng(0)))
    assert len(draws) == 40 and set(draws) <= {0, 1, 2, 3}
    assert len(list(RandomSampler(range(4), num_samples=6, generator=np.random.default_rng(0)))) == 6
    assert sorted(SubsetRandomSampler([3, 5, 8], generator=np.random.default_rng(0))) == [3, 5, 8]
    assert len(BatchSampler(range(10), 4, False)) == 3 and len(BatchSampler(range(10), 4, True)) == 2
    loader = DataLoader(TensorDataset(X, Y), sampler=[9, 0, 5], batch_size=2)
    assert [b[1].tolist() for b in loader] == [[9, 0], [5]]


def test_map_dataset_with_dict_samples_custom_collate_and_no_batching():
    class Pairs(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": np.full(2, float(i)), "label": i, "name": f"s{i}"}

    batch = next(iter(DataLoader(Pairs(), batch_size=2)))
    assert batch["x"].shape == (2, 2) and batch["x"].dtype == tl.float64
    assert batch["label"].tolist() == [0, 1] and batch["label"].dtype == tl.int64
    assert batch["name"] == ["s0", "s1"]
    sizes = [len(b) for b in DataLoader(Pairs(), batch_size=2, collate_fn=lambda samples: samples)]
    assert sizes == [2, 2, 1]
    single = list(DataLoader(Pairs(), batch_size=None))
    assert len(single) == 5 and single[4]["x"].shape == (2,) and single[4]["label"] == 4
    assert len(Subset(Pairs(), [1, 2])) == 2 and len(ConcatDataset([Pairs(), Pairs()])) == 10


def test_iterable_dataset_batches():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(np.arange(7.0))

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="expected unspecified shuffle"):
        DataLoader(Stream(), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler"):
        DataLoader(Stream(), sampler=[0])


def test_collate_of_tuples_numbers_and_namedtuples():
    Point = collections.namedtuple("Point", "x y")
    batch = default_collate([Point(1.0, 2), Point(3.0, 4)])
    assert isinstance(batch, Point) and batch.x.dtype == tl.float64 and batch.y.tolist() == [2, 4]
    assert default_collate([True, False]).dtype == tl.bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype == tl.float32
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="batch must contain tensors"):
        default_collate([object(), object()])


def test_refusals():
    data = TensorDataset(X, Y)
    with pytest.raises(NotImplementedError, match="num_workers=2"):
        DataLoader(data, num_workers=2)
    with pytest.raises(ValueError, match="non-negative"):
        DataLoader(data, num_workers=-1)
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(data, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(data, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="drop_last"):
        DataLoader(data, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="batch_size should be a positive"):
        DataLoader(data, batch_size=0)
    with pytest.raises(TypeError, match="generator must be"):
        DataLoader(data, shuffle=True, generator=0)
    with pytest.raises(ValueError, match="an empty dataset"):
        DataLoader(Subset(data, []), shuffle=True)
    with pytest.raises(ValueError, match="persistent_workers"):
        DataLoader(data, persistent_workers=True)


# ------------------------------------------------------------------ against PyTorch


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="the comparison with torch.utils.data needs PyTorch")


def test_same_batches_as_pytorch_for_the_same_indices(torch):
    ours = TensorDataset(X, Y)
    theirs = torch.utils.data.TensorDataset(torch.from_numpy(X), torch.from_numpy(Y))
    for kwargs in ({"batch_size": 4}, {"batch_size": 4, "drop_last": True}, {"sampler": [3, 1, 4, 1, 5]},
                   {"batch_sampler": [[2, 7], [0]]}):
        a, b = list(DataLoader(ours, **kwargs)), list(torch.utils.data.DataLoader(theirs, **kwargs))
        assert len(a) == len(b)
        for ba, bb in zip(a, b):
            assert type(ba) is type(bb) is list
            for ta, tb in zip(ba, bb):
                assert str(ta.dtype) == str(tb.dtype).removeprefix("torch.")
                np.testing.assert_array_equal(ta.numpy(), tb.numpy())


def test_a_torch_generator_shuffles_and_splits_as_pytorch(torch):
    ours = TensorDataset(X, Y)
    theirs = torch.utils.data.TensorDataset(torch.from_numpy(X), torch.from_numpy(Y))
    a = DataLoader(ours, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(5))
    b = torch.utils.data.DataLoader(theirs, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(5))
    assert as_lists(a) == as_lists(b)
    mine = random_split(ours, [0.6, 0.4], generator=torch.Generator().manual_seed(2))
    torchs = torch.utils.data.random_split(theirs, [0.6, 0.4], generator=torch.Generator().manual_seed(2))
    assert [p.indices for p in mine] == [list(p.indices) for p in torchs]


def test_default_collate_as_pytorch(torch):
    samples = [{"a": (1.5, 2), "b": np.ones(2, dtype=np.float32)}, {"a": (2.5, 3), "b": np.zeros(2, dtype=np.float32)}]
    ours, theirs = default_collate(samples), torch.utils.data.default_collate(samples)
    for key in ("b",):
        assert str(ours[key].dtype) == str(theirs[key].dtype).removeprefix("torch.")
    for ta, tb in zip(ours["a"], theirs["a"]):
        assert str(ta.dtype) == str(tb.dtype).removeprefix("torch.") and ta.tolist() == tb.tolist()
    assert type(ours["a"]) is type(theirs["a"]) is list


def test_torch_backend_data_stays_on_torch(torch):
    data = TensorDataset(torch.arange(6.0).reshape(3, 2), torch.arange(3))
    xb, yb = next(iter(DataLoader(data, batch_size=2)))
    assert xb.backend.name == "torch" and isinstance(xb.data, torch.Tensor)


def test_subsets_of_a_tensor_dataset_batch_as_their_samples():
    data = TensorDataset(X, Y)
    inner = Subset(data, [9, 8, 7, 6, 5, 4])
    outer = Subset(inner, [5, 0, 2])
    (xb, yb), = list(DataLoader(outer, batch_size=3))
    assert yb.tolist() == [4, 9, 7]
    np.testing.assert_array_equal(xb.numpy(), X[[4, 9, 7]])


def test_weighted_random_sampler():
    from torchlight.utils.data import WeightedRandomSampler

    draws = list(WeightedRandomSampler([0.0, 3.0, 1.0], 200, generator=np.random.default_rng(0)))
    assert set(draws) == {1, 2} and draws.count(1) > draws.count(2)
    assert sorted(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False,
                                        generator=np.random.default_rng(0))) == [0, 1, 2]
    with pytest.raises(ValueError, match="non-negative"):
        WeightedRandomSampler([-1.0, 1.0], 2)
    with pytest.raises(ValueError, match="without replacement"):
        WeightedRandomSampler([0.0, 1.0], 2, replacement=False)


def test_weighted_random_sampler_with_a_torch_generator_as_pytorch(torch):
    from torchlight.utils.data import WeightedRandomSampler

    weights = [0.1, 0.5, 0.2, 0.2]
    ours = list(WeightedRandomSampler(weights, 12, generator=torch.Generator().manual_seed(3)))
    theirs = list(torch.utils.data.WeightedRandomSampler(weights, 12, generator=torch.Generator().manual_seed(3)))
    assert ours == theirs
