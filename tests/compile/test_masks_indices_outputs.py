"""`tl.compile` of what a training step does beside its differentiable ops: masks from comparisons,
argmax for accuracy, index tensors made inside fn, several results, random draws.

Each was refused once (a tensor made without History, an array among an
op's arguments, a result that is not one Tensor); each is checked here
against eager torchlight: the same values, the same `requires_grad` on each
result, the same gradients, on several calls with new values and on a
second signature. What must stay refused (a boolean mask as an index, a
generator made inside fn, seeding inside fn) is checked with its message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.compile.flat import flatten
from torchlight.nn import functional as F
from torchlight.tensor import Tensor


def _leaves(out: Any) -> list[Tensor]:
    return flatten(out)[0]


def _same(fn: Callable[..., Any], make: Callable[[np.random.Generator, int], tuple], params: tuple = (),
          sizes: tuple[int, ...] = (3, 5), calls: int = 3) -> tl.compile:
    """fn compiled and eager on `calls` calls of each size: the same results (values, structure,
    requires_grad), and the same gradients of the arguments and `params` for a random weighting
    of the results that have one."""
    compiled = tl.compile(fn)
    rng = np.random.default_rng(0)
    for n in sizes:
        for _ in range(calls):
            args = make(rng, n)
            got, want = {}, {}
            for f, into in ((fn, want), (compiled, got)):
                leaves_in = [tl.tensor(a.numpy(), requires_grad=a.requires_grad) if isinstance(a, Tensor) else a
                             for a in args]
                for p in params:
                    p.grad = None
                out = f(*leaves_in)
                leaves = _leaves(out)
                into["structure"] = flatten(out)[1]
                into["values"] = [o.numpy() for o in leaves]
                into["requires_grad"] = [o.requires_grad for o in leaves]
                weights = np.random.default_rng(n).standard_normal(len(leaves))
                total = sum((o.astype("float64").sum() * float(w) for o, w in zip(leaves, weights)
                             if o.requires_grad), start=tl.tensor(0.0))
                if total.requires_grad:
                    total.backward()
                into["grads"] = [None if t.grad is None else t.grad.numpy()
                                 for t in [*[a for a in leaves_in if isinstance(a, Tensor)], *params]]
            assert got["structure"] == want["structure"]
            assert got["requires_grad"] == want["requires_grad"]
            for g, w in zip(got["values"], want["values"]):
                assert g.dtype == w.dtype
                np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)
            for g, w in zip(got["grads"], want["grads"], strict=True):
                assert (g is None) == (w is None)
                if g is not None:
                    np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)
    assert len(compiled.programs) == len(sizes)
    return compiled


def _x(rng: np.random.Generator, n: int) -> tuple:
    return (tl.tensor(rng.standard_normal((n, 4)), requires_grad=True),)


# ---------------------------------------------------------------- masks
@pytest.mark.parametrize("fn", [
    lambda x: tl.where(x > 0, x, 0.0).sum(),
    lambda x: ((x > 0) * x * x).sum(),
    lambda x: (x * (x.abs() < 1.0).float()).mean(),
    lambda x: x.where((x > -0.5) & ~(x > 0.5), x * 3.0).sum(),
    lambda x: (x * x.logical_not()).sum() + (x >= x.mean()).sum(),
], ids=["where", "mask_product", "float_of_mask", "combined_masks", "logical_and_count"])
def test_masks_from_comparisons_compile_and_equal_eager(fn):
    _same(fn, _x)


def test_a_mask_of_a_parameter_follows_its_updates():
    w = tl.tensor(np.array([1.0, -1.0, 2.0, -2.0]), requires_grad=True)
    f = _same(lambda x: (x * tl.where(w > 0, w, 0.0)).sum(), _x, params=(w,))
    with tl.no_grad():
        w.mul_(-1.0)
    x = tl.tensor(np.ones((3, 4)), requires_grad=True)
    assert f(x).item() == ((x * tl.where(w > 0, w, 0.0)).sum()).item() == 9.0


# ---------------------------------------------------------------- argmax, accuracy
def test_argmax_and_argmin_results_have_no_gradient():
    _same(lambda x: (x.argmax(1), x.argmin(0), x.sum()), _x)


def test_accuracy_of_argmax_against_labels():
    """(logits.argmax(1) == y).float().mean(): float32, as eager (and PyTorch), without a gradient."""
    def make(rng, n):
        return (tl.tensor(rng.standard_normal((n, 3)), requires_grad=True), tl.tensor(rng.integers(0, 3, n)))

    f = _same(lambda z, y: (z.argmax(1) == y).float().mean(), make)
    out = f(tl.tensor([[0.0, 1.0], [2.0, 1.0]], requires_grad=True), tl.tensor([1, 1]))
    assert out.item() == 0.5 and out.dtype == tl.float32 and not out.requires_grad


# ---------------------------------------------------------------- index tensors
def test_an_index_made_inside_fn_from_argmax_and_arange():
    _same(lambda x: x[tl.arange(x.shape[0]), x.argmax(1)].sum() * 2.0, _x)


def test_an_index_tensor_passed_as_an_argument():
    def make(rng, n):
        return (tl.tensor(rng.standard_normal((n, 4)), requires_grad=True), tl.tensor(rng.integers(0, n, 7)))

    _same(lambda x, i: (x[i] * x[i]).sum(), make)


def test_an_index_tensor_inside_a_key_of_slices_and_none():
    def make(rng, n):
        return (tl.tensor(rng.standard_normal((n, 4)), requires_grad=True), tl.tensor(rng.integers(0, n, 2)))

    _same(lambda x, i: (x[None, i, 1:3] * 2.0).sum() + (x[..., x[0].argsort()] * x).sum(), make)


def test_an_index_of_an_argument_changes_nothing_baked_in():
    f = tl.compile(lambda x, i: x[i].sum())
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert f(x, tl.tensor([0, 0])).item() == 2.0
    y = f(x, tl.tensor([2, 1]))
    y.backward()
    assert y.item() == 5.0 and x.grad.tolist() == [0.0, 1.0, 1.0]


def test_nll_loss_and_embedding_with_labels_and_indices_as_arguments():
    emb = nn.Embedding(6, 4)

    def make(rng, n):
        return (tl.tensor(rng.standard_normal((n, 3)), requires_grad=True), tl.tensor(rng.integers(0, 3, n)),
                tl.tensor(rng.integers(0, 6, (n, 2))))

    _same(lambda z, y, i: F.nll_loss(z.log_softmax(1), y) + (emb(i).sum(2) * z[:, :2]).sum(), make,
          params=(emb.weight,))


def test_labels_and_indices_are_checked_on_every_call_as_eager():
    """A bad index or label on a later call raises the ValueError eager raises (embedding's -1 is not
    read as the last row), and an ignored label the program was not recorded for raises too."""
    emb = nn.Embedding(6, 2)
    lookup = tl.compile(lambda i: emb(i).sum())
    loss = tl.compile(lambda z, y: F.nll_loss(z, y))
    z = tl.tensor(np.zeros((2, 3)), requires_grad=True)
    lookup(tl.tensor([0, 5])), loss(z, tl.tensor([0, 2]))
    for bad, match in (([1, -1], r"indices \[-1\] out of range"), ([6, 0], r"indices \[6\] out of range")):
        with pytest.raises(ValueError, match=match):
            emb(tl.tensor(bad))
        with pytest.raises(ValueError, match=match):
            lookup(tl.tensor(bad))
    with pytest.raises(ValueError, match=r"labels \[3\] out of range"):
        loss(z, tl.tensor([3, 0]))
    with pytest.raises(ValueError, match="a label equal to ignore_index reached a program recorded"):
        loss(z, tl.tensor([-100, 0]))


def test_a_boolean_mask_as_an_index_stays_refused():
    """x[x > 0]: the result's shape depends on the values, which a replay cannot follow (as jax.jit)."""
    with pytest.raises(tl.CompileError, match=r"boolean mask: x\[mask\]"):
        tl.compile(lambda x: x[x > 0].sum())(tl.tensor([1.0, -1.0], requires_grad=True))


# ---------------------------------------------------------------- made without a graph
@pytest.mark.parametrize("fn", [
    lambda x: (x * x.detach()).sum(),
    lambda x: (x * tl.ones(4)).sum() + (x * tl.arange(4)).sum(),
    lambda x: x.astype("int64"),
    lambda x: (x * tl.zeros_like(x) + x * tl.full_like(x, 2.0)).sum(),
    lambda x: (x * (x > 0).T.T).sum() + (x.argmax(1).T == 1).sum(),
], ids=["detach", "factories", "to_integers", "like_factories", "property_of_a_mask"])
def test_tensors_made_without_a_graph_are_replayed(fn):
    _same(fn, _x)


def test_an_op_under_no_grad_inside_fn():
    def fn(x):
        with tl.no_grad():
            y = x * 2.0
        return (x * y).sum()

    _same(fn, _x)


# ---------------------------------------------------------------- several results
def test_several_results_tuple_list_dict():
    _same(lambda x: (x.sum(), [x * 2.0, {"m": x > 0, "t": x.tanh()}]), _x)


def test_a_result_twice_and_an_argument_among_results():
    _same(lambda x: (x * 2.0, x * 2.0, x), _x)
    y = tl.compile(lambda x: (lambda z: (z, z))(x.exp()))(tl.tensor([0.0, 1.0], requires_grad=True))
    assert y[0].requires_grad and y[1].requires_grad


def test_a_training_step_returning_loss_logits_and_accuracy_equals_eager():
    """(loss, logits, accuracy): loss.backward() through the compiled node gives the eager
    gradients; logits carries its own gradient (as eager), the accuracy none."""
    def train(compiled: bool) -> tuple[list, list]:
        tl.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
        opt = tl.optim.SGD(model.parameters(), lr=0.1)

        def step(x, y):
            logits = model(x)
            return F.cross_entropy(logits, y), logits, (logits.argmax(1) == y).float().mean()

        f = tl.compile(step) if compiled else step
        rng = np.random.default_rng(1)
        seen = []
        for _ in range(4):
            x, y = tl.tensor(rng.standard_normal((6, 4))), tl.tensor(rng.integers(0, 3, 6))
            opt.zero_grad()
            loss, logits, acc = f(x, y)
            assert logits.requires_grad and not acc.requires_grad and loss.requires_grad
            loss.backward()
            opt.step()
            seen.append((loss.item(), acc.item(), logits.numpy().tolist()))
        return seen, [p.numpy().tolist() for p in model.parameters()]

    eager, compiled = train(False), train(True)
    np.testing.assert_allclose(np.array([s[:2] for s in compiled[0]]), np.array([s[:2] for s in eager[0]]),
                               rtol=1e-12)
    for a, b in zip(compiled[1], eager[1]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_backward_through_two_results_at_once_and_through_each_alone():
    w = tl.tensor([0.5, -1.5], requires_grad=True)

    def fn(x):
        h = (x * w).tanh()
        return h.sum() * 3.0, h * h

    f = tl.compile(fn)
    for backward in (lambda a, b: (a + b.sum()).backward(), lambda a, b: a.backward(),
                     lambda a, b: b.backward(tl.tensor([1.0, 2.0]))):
        grads = []
        for g in (fn, f):
            w.grad = None
            backward(*g(tl.tensor([1.0, 2.0])))
            grads.append(w.grad.numpy())
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-13)


def test_several_results_under_no_grad_have_no_graph():
    f = tl.compile(lambda x: (x.sum(), x * 2.0))
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with tl.no_grad():
        a, b = f(x)
    assert not a.requires_grad and not b.requires_grad and b.tolist() == [2.0, 4.0]


def test_a_result_that_is_not_a_tensor_is_refused():
    with pytest.raises(tl.CompileError, match="not tuple holding a float"):
        tl.compile(lambda x: (x.sum(), 1.0))(tl.tensor([1.0]))


# ---------------------------------------------------------------- random draws
def test_random_draws_inside_fn_are_drawn_afresh_as_eager():
    def fn(x):
        return (x * (tl.rand(x.shape) > 0.5) + tl.randn(x.shape) * 0.1).sum()

    runs = []
    for f in (fn, tl.compile(fn)):
        tl.manual_seed(3)
        runs.append([f(tl.tensor(np.ones((2, 3)), requires_grad=True)).item() for _ in range(3)])
    assert runs[0] == pytest.approx(runs[1], rel=1e-13) and len(set(runs[0])) == 3


def test_a_generator_from_outside_draws_on_as_eager():
    def run(compiled: bool) -> list[float]:
        g = tl.Generator().manual_seed(5)

        def fn(x):
            return (x * tl.rand(3, generator=g)).sum()

        f = tl.compile(fn) if compiled else fn
        return [f(tl.tensor([1.0, 2.0, 3.0], requires_grad=True)).item() for _ in range(3)]

    assert run(True) == pytest.approx(run(False), rel=1e-13)


def test_a_generator_made_inside_fn_and_seeding_inside_fn_are_refused():
    def made_inside(x):
        g = tl.Generator().manual_seed(0)
        return (x * tl.rand(3, generator=g)).sum()

    def seeds(x):
        tl.manual_seed(0)
        return (x * tl.rand(3)).sum()

    x = tl.tensor([1.0, 2.0, 3.0])
    with pytest.raises(tl.CompileError, match="a generator made inside it"):
        tl.compile(made_inside)(x)
    with pytest.raises(tl.CompileError, match=r"seeded the random streams \(manual_seed\)"):
        tl.compile(seeds)(x)


def test_eager_work_on_another_thread_while_recording_is_not_recorded():
    """The methods are wrapped for the recording thread only: another thread's ops run as they are."""
    import threading

    stop = threading.Event()
    errors: list[str] = []

    def eager() -> None:
        y = tl.tensor([1.0, -1.0, 2.0])
        while not stop.is_set():
            if (y > 0).tolist() != [True, False, True] or y.argmax().item() != 2:
                errors.append("wrong")

    worker = threading.Thread(target=eager)
    worker.start()
    try:
        for k in range(5):
            f = tl.compile(lambda x: tl.where(x > 0, x, 0.0).sum() * 1.0)
            assert f(tl.tensor([1.0, -2.0, 3.0 + k], requires_grad=True)).item() == 4.0 + k
    finally:
        stop.set()
        worker.join()
    assert not errors


def test_recording_puts_back_every_method_it_wraps():
    names = ("__gt__", "argmax", "astype", "detach", "__getitem__", "where")
    before = {name: getattr(Tensor, name) for name in names}
    transpose = Tensor.__dict__.get("T") or next(c.__dict__["T"] for c in Tensor.__mro__ if "T" in c.__dict__)
    factories = (tl.arange, tl.ones, tl.rand, tl.manual_seed)
    tl.compile(lambda x: tl.where(x > 0, x, 0.0).sum())(tl.tensor([1.0, -1.0], requires_grad=True))
    with pytest.raises(tl.CompileError):
        tl.compile(lambda x: x[x > 0].sum())(tl.tensor([1.0, -1.0], requires_grad=True))
    assert all(getattr(Tensor, name) is value for name, value in before.items())
    assert (Tensor.__dict__.get("T") or next(c.__dict__["T"] for c in Tensor.__mro__ if "T" in c.__dict__)) \
        is transpose
    assert (tl.arange, tl.ones, tl.rand, tl.manual_seed) == factories
    assert not hasattr(tl.arange, "__wrapped__")


def test_a_bad_label_on_the_recording_call_raises_the_eager_error_and_the_next_call_records():
    # the range check formats its message from the labels' array, not through Tensor.numpy (which a
    # recording refuses as a value a replay would reuse)
    loss = tl.compile(lambda x, y: F.cross_entropy(x, y))
    x = tl.tensor(np.random.default_rng(0).normal(size=(4, 3)), requires_grad=True)
    with pytest.raises(ValueError, match=r"cross_entropy: labels \[5\] out of range for 3 classes"):
        loss(x, tl.tensor([0, 1, 5, 1]))
    labels = tl.tensor([0, 1, 2, 1])
    assert loss(x, labels).item() == pytest.approx(F.cross_entropy(x, labels).item(), rel=1e-12)
    lookup = tl.compile(lambda w, i: F.embedding(i, w))
    with pytest.raises(ValueError, match=r"embedding: indices \[4\] out of range for 4 embeddings"):
        lookup(tl.tensor(np.ones((4, 2)), requires_grad=True), tl.tensor([0, 4]))
