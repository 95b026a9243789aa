"""Gradients on a `distributed` LocalCluster of two worker processes: the same as on threads and on NumPy,
and a failed value check raised on a worker reaches the client as NumPy's error.

Bounded in time: the cluster's start and each computation wait at most `LIMIT` seconds (a computation
runs in a thread whose result is awaited with a timeout), and the module checks its own wall clock.
Nothing computes on the client: the default scheduler is one that fails the test if called, and the
cluster's client is passed as `scheduler=` (it is not made Dask's default).
"""

from __future__ import annotations

import concurrent.futures
import importlib
import re
import time

import numpy as np
import pytest

import torchlight as tl
import torchlight.nn.functional as F

distributed = pytest.importorskip("distributed", reason="the cluster test needs `distributed` "
                                                        "(pip install 'torchlight[dask]')")
da = pytest.importorskip("dask.array", reason="the cluster test needs Dask (pip install 'dask[array]')")
dask = pytest.importorskip("dask")

LIMIT = 30.0  # seconds for the cluster's start, for one computation, and (x 2) for the whole module
# with no dashboard the scheduler still serves HTTP (metrics), on 8787 by default: a free port instead, so that
# another cluster on this machine does not make it warn (and fail the test)
QUIET = {"dashboard_address": "127.0.0.1:0"}


def on_the_client(*args, **kwargs):
    raise AssertionError("a Dask array was computed on the client, not on the cluster")


@pytest.fixture(scope="module")
def client():
    start = time.monotonic()
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, scheduler_kwargs=QUIET, timeout=LIMIT,
                                  death_timeout=LIMIT) as cluster, \
            distributed.Client(cluster, timeout=LIMIT, set_as_default=False) as c, \
            dask.config.set(scheduler=on_the_client):
        c.wait_for_workers(2, timeout=LIMIT)
        c.run(importlib.import_module, "torchlight")  # both workers at once, not each at its first task
        yield c
    assert time.monotonic() - start < 2 * LIMIT, "the cluster tests took too long"


def bounded(fn, *args, **kwargs):
    """`fn(*args, **kwargs)`, failing the test (not hanging it) after LIMIT seconds."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(fn, *args, **kwargs)
        try:
            return future.result(timeout=LIMIT)
        except concurrent.futures.TimeoutError:
            pytest.fail(f"{getattr(fn, '__name__', fn)} on the cluster took over {LIMIT:g} s")


def data():
    rng = np.random.default_rng(7)
    return rng.standard_normal((60, 4)), rng.standard_normal(60), rng.standard_normal((4, 3)), rng.standard_normal(3)


def gradients(arrays, to_tensor, compute):
    """The loss and gradients of a small two-layer regression, computed by `compute`."""
    a, b, w1, w2 = arrays
    X, y = to_tensor(a, (15, 4)), to_tensor(b, (15,))
    W1, W2 = (to_tensor(v, v.shape).requires_grad_() for v in (w1, w2))
    loss = ((tl.tanh(X @ W1) @ W2 - y) ** 2).mean()
    loss.backward()
    return [here(t) for t in compute(loss, W1.grad, W2.grad)]


def here(t):
    """A computed tensor's values, read in this process (its chunks are here: nothing is recomputed)."""
    return np.asarray(dask.compute(t.data, scheduler="sync")[0])


def dask_tensor(a, chunks):
    return tl.tensor(da.from_array(a, chunks=chunks))


def test_a_gradient_on_the_cluster_is_the_threaded_schedulers_and_numpys(client):
    arrays = data()
    on_cluster = bounded(gradients, arrays, dask_tensor, lambda *t: tl.compute(*t, scheduler=client))
    on_threads = gradients(arrays, dask_tensor, lambda *t: tl.compute(*t, scheduler="threads"))
    on_numpy = gradients(arrays, lambda a, chunks: tl.tensor(a), tl.compute)
    for c, t, n in zip(on_cluster, on_threads, on_numpy):
        np.testing.assert_allclose(c, t, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(c, n, rtol=1e-12, atol=1e-14)


def test_parameters_persisted_on_the_cluster_are_held_by_its_workers(client):
    w = dask_tensor(np.arange(6.0), (3,)).requires_grad_()
    tl.persist(w, scheduler=client)
    with client.as_current():
        distributed.wait(w.data, timeout=LIMIT)
    assert w.requires_grad and w.is_leaf
    assert sum(len(keys) for keys in client.has_what().values()) >= 2  # its two chunks, on the workers
    (value,) = bounded(tl.compute, (w * w).sum(), scheduler=client)
    assert here(value) == 55.0


def numpy_error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 (what NumPy raises, whatever its type)
        return exc
    raise AssertionError("NumPy raised nothing")


def test_an_index_out_of_range_raises_on_a_worker_as_numpys_index_error(client):
    x = dask_tensor(np.arange(6.0), (3,))
    index = tl.tensor(da.from_array(np.array([0, 2, 7, 1]), chunks=2))
    picked = x[index] * 2  # lazy: the bounds check is in the graph
    expected = numpy_error(lambda: np.arange(6.0)[np.array([0, 2, 7, 1])])
    with pytest.raises(type(expected), match="^" + re.escape(str(expected)) + "$"):
        bounded(tl.compute, picked, scheduler=client)


def test_a_label_out_of_range_in_cross_entropy_raises_on_a_worker_as_on_numpy(client):
    logits, labels = np.zeros((4, 3)), np.array([0, 2, 3, 1])
    expected = numpy_error(lambda: F.cross_entropy(tl.tensor(logits), tl.tensor(labels)))
    scores = dask_tensor(logits, (2, 3)).requires_grad_()
    loss = F.cross_entropy(scores, dask_tensor(labels, (2,)))
    loss.backward()  # lazy too: the check waits in the loss and in the gradient
    for computed in (loss, scores.grad):
        with pytest.raises(type(expected), match="^" + re.escape(str(expected)) + "$"):
            bounded(tl.compute, computed, scheduler=client)
