"""tl.compute and tl.persist: one pass for a loss and its gradients, and a training loop's graph kept flat."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl

da = pytest.importorskip("dask.array", reason="tl.compute/tl.persist act on Dask tensors (pip install 'dask[array]')")
dask = pytest.importorskip("dask")

CHUNKS = 4


def counted(calls: list, a: np.ndarray, chunk_rows: int) -> tl.Tensor:
    """`a` as a Dask tensor whose every chunk, when computed, appends to `calls` (the forward's cost)."""

    def visit(block: np.ndarray) -> np.ndarray:
        calls.append(block.shape)
        return block

    return tl.tensor(da.from_array(a, chunks=(chunk_rows, a.shape[1])).map_blocks(visit, meta=a[:0, :0]))


def problem(calls: list) -> tuple[tl.Tensor, tl.Tensor, tl.Tensor, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((40, 3)), rng.standard_normal(40)
    X = counted(calls, a, 40 // CHUNKS)
    y = tl.tensor(da.from_array(b, chunks=40 // CHUNKS))
    w = tl.tensor(da.from_array(np.array([0.5, -1.0, 2.0])), requires_grad=True)
    return X, y, w, a, b


def loss_of(X: tl.Tensor, y: tl.Tensor, w: tl.Tensor) -> tl.Tensor:
    r = X @ w - y
    return (r * r).mean() / 2


def test_compute_runs_the_forward_a_loss_and_its_gradient_share_once():
    calls: list = []
    X, y, w, a, b = problem(calls)
    loss = loss_of(X, y, w)
    loss.backward()
    assert calls == []  # building the graphs computed nothing
    value, grad = tl.compute(loss, w.grad)
    assert len(calls) == CHUNKS  # each chunk of X once, for the loss and the gradient together
    r = a @ np.array([0.5, -1.0, 2.0]) - b
    np.testing.assert_allclose(value.item(), (r @ r) / 80, rtol=1e-13)
    np.testing.assert_allclose(grad.numpy(), a.T @ r / 40, rtol=1e-13)
    assert len(calls) == CHUNKS  # reading the computed tensors computes nothing more
    # computed apart, the forward runs twice
    calls.clear()
    loss.item(), w.grad.numpy()
    assert len(calls) == 2 * CHUNKS


def test_computed_tensors_stay_dask_tensors_without_history_and_the_inputs_are_unchanged():
    X, y, w, a, b = problem([])
    loss = loss_of(X, y, w)
    loss.backward()
    lazy_grad = w.grad.data
    value, none, grad = tl.compute(loss, None, w.grad)
    assert none is None
    for t in (value, grad):
        assert t.backend is X.backend and isinstance(t.data, da.Array)
        assert t.history is None and not t.requires_grad
    assert grad.shape == w.grad.shape and grad.dtype == w.grad.dtype
    assert grad.data.chunks == lazy_grad.chunks
    assert w.grad.data is lazy_grad and loss.history is not None  # compute returns new tensors
    # a computed gradient combines with the lazy parameters (the same backend)
    w.grad = grad
    np.testing.assert_allclose((w - grad).numpy(), w.numpy() - grad.numpy())


def test_compute_and_persist_pass_scheduler_to_dask():
    used = []

    def scheduler(graph, keys, **kwargs):
        used.append(len(keys) if isinstance(keys, list) else 1)
        return dask.get(graph, keys, **kwargs)

    X, y, w, a, b = problem([])
    loss = loss_of(X, y, w)
    value, = tl.compute(loss, scheduler=scheduler)
    assert used and value.item() == pytest.approx(loss_of(*(tl.tensor(v) for v in (a, b, w.numpy()))).item())
    used.clear()
    tl.persist(w, scheduler=scheduler)
    assert used


@pytest.mark.parametrize("name", ["numpy", "array_api_strict"])
def test_on_an_eager_backend_both_return_the_tensors_given(name):
    x = tl.tensor([1.0, 2.0], backend=name, requires_grad=True)
    (x * x).sum().backward()
    data = x.data
    for fn in (tl.compute, tl.persist):
        out = fn(x, None, x.grad)
        assert out[0] is x and out[1] is None and out[2] is x.grad and x.data is data


@pytest.mark.parametrize("fn", [tl.compute, tl.persist], ids=["compute", "persist"])
def test_a_non_tensor_argument_is_a_type_error_naming_its_position(fn):
    x = tl.tensor(da.ones(3, chunks=3))
    with pytest.raises(TypeError, match=rf"^{fn.__name__}\(\): argument 'tensors' \(position 2\) must be a Tensor "
                                        r"or None, not ndarray"):
        fn(x, np.ones(3))
    assert x.data.__dask_graph__() is not None


def test_persist_replaces_the_parameters_arrays_in_place_and_a_non_leaf_comes_back_new():
    model = tl.nn.Linear(3, 2).to(backend="dask")
    before = [p.data for p in model.parameters()]
    x = tl.tensor(da.ones((4, 3), chunks=2))
    out = model(x).sum()
    out.backward()
    params = list(model.parameters())
    grads = [p.grad for p in params]
    returned = tl.persist(*params, *grads, out)
    assert all(r is p for r, p in zip(returned, params + grads))  # leaves: the same tensors
    assert all(p.requires_grad and p.grad is g for p, g in zip(params, grads))
    for p, old in zip(params, before):
        assert p.data is not old
        np.testing.assert_array_equal(p.numpy(), np.asarray(old))
    persisted_out = returned[-1]
    assert persisted_out is not out and persisted_out.history is None and out.history is not None
    np.testing.assert_allclose(persisted_out.item(), out.item())


def graph_sizes(persist: bool, steps: int = 4) -> list[int]:
    """The task count of the weights' graph after each step of gradient descent on Dask."""
    X = tl.tensor(da.random.default_rng(0).standard_normal((400, 5), chunks=(100, 5)))
    y = tl.tensor(da.random.default_rng(1).standard_normal(400, chunks=100))
    w = tl.zeros(5, backend="dask", requires_grad=True)
    opt = tl.optim.SGD([w], lr=0.1)
    sizes = []
    for _ in range(steps):
        opt.zero_grad()
        loss_of(X, y, w).backward()
        opt.step()
        if persist:
            tl.persist(w)
        sizes.append(len(w.data.__dask_graph__()))
    return sizes


def test_persist_keeps_a_training_loops_graph_from_growing():
    grown, kept = graph_sizes(persist=False), graph_sizes(persist=True)
    steps = np.diff(grown)
    assert (steps > 0).all() and (steps == steps[0]).all()  # each step adds its whole graph
    assert kept == [kept[0]] * len(kept) and kept[0] <= 2  # the persisted weights' chunk alone
