"""Nothing computes on Dask until the user asks: every op family of the conformance database (the nn
functions among them), forward and backward, runs under a scheduler that refuses to run anything, on
inputs in several chunks; then the values and gradients are computed and compared with NumPy's.

A value check (labels in range, probabilities in [0, 1], index bounds, a domain) is folded into the
graph: the call returns, and computing the result raises the exception NumPy's call raises, with the
same message. A result whose shape depends on the values (a boolean mask, `nonzero`, `unique`) is
refused at the call, naming the op, before anything is computed. A move to another library
(`.to(backend=...)`) computes by design, as `.numpy()` does, and is not run here.
"""

from __future__ import annotations

import collections
import importlib
import re
from typing import Any

import numpy as np
import pytest

import torchlight as tl
from conformance import database
from conformance.checks import _host, case_seed, host_inputs
from conformance.opinfo import COMPLEX_OF
from conformance.ops import indexing, searching, sets
from conformance.target import resolve

dask = pytest.importorskip("dask", reason="Dask is not installed (the test extra has it)")
da = pytest.importorskip("dask.array", reason="Dask's arrays are not installed (the test extra has them)")

#: the chunk length along every axis of the inputs: several chunks, so chunk-crossing code is run
CHUNK = 2

#: the dask skips that mark a result whose size depends on the values: refused at the call
DATA_DEPENDENT = {indexing.LAZY_MASK["dask"], searching.LAZY["dask"], sets.LAZY["dask"],
                  "an array of repeats gives a data-dependent shape"}

#: regular cases run per op (the first ones; every raising case runs): the whole table takes minutes
CASES_PER_OP = 3


class Computed(AssertionError):
    """The refusing scheduler was asked to run a graph."""


def _refuse(*args: Any, **kwargs: Any) -> None:
    raise Computed("a Dask graph was computed")


def _dtype(op, case) -> str:
    """float64, or float32 for a case that runs in float32 only (a cast to float64)."""
    allowed = [d for d in op.dtypes if case.dtypes is None or d in case.dtypes]
    dtype = "float64" if "float64" in allowed else allowed[0]
    return COMPLEX_OF[dtype] if case.complex else dtype


def _lazy_leaves(op, case, hosts):
    """The case's inputs as Dask tensors in chunks of CHUNK (no compute: from host arrays)."""
    leaves = []
    for i, h in enumerate(hosts):
        data = da.from_array(np.asarray(h, dtype=_dtype(op, case)), chunks=CHUNK if h.ndim else ())
        grad = op.differentiable and case.raises is None and case.requires_grad(i)
        leaves.append(tl.tensor(data, requires_grad=grad))
    return leaves


def _eager_leaves(op, case, hosts):
    target = resolve("numpy")
    return [target.tensor(h, _dtype(op, case),
                          requires_grad=op.differentiable and case.raises is None and case.requires_grad(i))
            for i, h in enumerate(hosts)]


def _forward_backward(op, case, leaves):
    out = op.call(*leaves, **case.kwargs)
    if op.differentiable and not case.forward_only and getattr(out, "requires_grad", False):
        rng = np.random.default_rng(case_seed(op, case) + 7)
        weights = rng.standard_normal(out.shape)
        if out.backend.is_complex(out.dtype):
            weights = weights + 1j * rng.standard_normal(out.shape)
        out.backward(tl.tensor(out.backend.asarray(weights.astype(out.backend.numpy_dtype(out.dtype)))))
    return out


def _kind(op, case) -> str:
    """"skip", "refused" (a data-dependent shape), "raises" or "value"."""
    if case.other_backend is not None or "backend" in case.kwargs:
        return "skip"  # a second library: moving values there computes them, by design
    if case.kwargs.get("as_list"):
        return "skip"  # the case makes a Python list of the tensor first, which computes it
    if case.raises is not None:
        return "raises"
    reasons = {op.skips.get("dask"), case.skips.get("dask")}
    return "refused" if reasons & DATA_DEPENDENT else "value"


def _chosen(op):
    regular = 0
    for case in op.cases:
        kind = _kind(op, case)
        if kind == "value":
            regular += 1
            if regular > CASES_PER_OP:
                continue
        if kind != "skip":
            yield case, kind


def _check_case(op, case, kind: str) -> None:
    hosts = host_inputs(op, case, _dtype(op, case).replace("complex128", "float64").replace("complex64", "float32"))
    with dask.config.set(scheduler=_refuse):
        leaves = _lazy_leaves(op, case, hosts)
        if kind == "refused":
            with pytest.raises((IndexError, ValueError, TypeError)) as refused:
                _forward_backward(op, case, leaves)
            assert not isinstance(refused.value, Computed), refused.value
            return
        expected = case.raises or ()
        try:
            out = _forward_backward(op, case, leaves)
        except expected:  # a check of shapes or arguments: raised at the call, as on NumPy
            return
    grads = [x.grad for x in leaves if x.grad is not None]
    if kind == "raises":
        with pytest.raises(case.raises, match=_escaped(case.match)):
            dask.compute(out.data, *(g.data for g in grads))
        return
    assert isinstance(out.data, da.Array), f"the result is a {type(out.data).__name__}"
    value, *grad_values = dask.compute(out.data, *(g.data for g in grads))
    reference = _eager_leaves(op, case, hosts)
    want = _forward_backward(op, case, reference)
    np.testing.assert_allclose(np.asarray(value), _host(want), rtol=1e-9, atol=1e-12, err_msg="forward")
    wanted = [x.grad for x in reference if x.grad is not None]
    assert len(wanted) == len(grad_values), "inputs with a gradient"
    for i, (g, w) in enumerate(zip(grad_values, wanted)):
        np.testing.assert_allclose(np.asarray(g), _host(w), rtol=1e-8, atol=1e-11, err_msg=f"gradient {i}")


def _escaped(text: str) -> str:
    return re.escape(text)


AREA_NAMES = [area.rsplit(".", 1)[1] for area in database.AREAS]


@pytest.mark.parametrize("area", AREA_NAMES)
def test_every_op_of_the_area_stays_lazy_and_computes_numpys_values(area):
    ops = importlib.import_module(f"conformance.ops.{area}").OPS
    counted = collections.Counter()
    failures = []
    for op in ops:
        for case, kind in _chosen(op):
            counted[kind] += 1
            try:
                _check_case(op, case, kind)
            except (AssertionError, Exception) as exc:  # every failing case of the area, then one report
                failures.append(f"{op.name} [{case.name}] ({kind}): {type(exc).__name__}: {str(exc)[:300]}")
    assert not failures, f"{len(failures)} of {sum(counted.values())} cases:\n" + "\n".join(failures)
    assert sum(counted.values()) > 0 or not ops, f"no case of {area} ran"


def test_the_database_is_covered_family_by_family():
    """Every area of the database is a parameter above, and each op has a case that runs lazily."""
    assert len(AREA_NAMES) == len(set(AREA_NAMES)) == len(database.AREAS)
    missing = [op.name for op in database.all_ops() if not any(True for _ in _chosen(op))]
    moves = {"to", "to_device"}  # every case moves to another library
    assert set(missing) <= moves, f"ops with no case run lazily: {sorted(set(missing) - moves)}"


def test_the_data_dependent_cases_are_refused_at_the_call_naming_the_op():
    x = tl.tensor(da.from_array(np.arange(6.0), chunks=CHUNK))
    with dask.config.set(scheduler=_refuse):
        with pytest.raises(IndexError, match="Gather: on Dask, the key .* unknown until the mask is computed"):
            x[x > 2.0]
        with pytest.raises(ValueError, match="nonzero"):
            x.nonzero()



# ------------------------------------------------------------------ modules, optimizers, a training step
def _model_cases():
    nn = tl.nn
    rng = np.random.default_rng(3)
    seq = rng.standard_normal((3, 2, 3))  # (time, batch, features)
    return {
        "Linear+Tanh+Softmax": (lambda: nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2), nn.Softmax(-1)),
                                rng.standard_normal((6, 3))),
        "Conv2d+BatchNorm2d+ReLU+MaxPool2d": (lambda: nn.Sequential(nn.Conv2d(2, 3, 3, padding=1),
                                                                     nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2)),
                                              rng.standard_normal((2, 2, 4, 4))),
        "BatchNorm1d(momentum=None)": (lambda: nn.BatchNorm1d(3, momentum=None), rng.standard_normal((6, 3))),
        "Conv1d+GroupNorm+GELU": (lambda: nn.Sequential(nn.Conv1d(2, 4, 3), nn.GroupNorm(2, 4), nn.GELU()),
                                  rng.standard_normal((3, 2, 6))),
        "ConvTranspose2d+LayerNorm": (lambda: nn.Sequential(nn.ConvTranspose2d(2, 2, 2, stride=2),
                                                            nn.LayerNorm(4)), rng.standard_normal((1, 2, 2, 2))),
        "LSTM": (lambda: nn.LSTM(3, 4, num_layers=2), seq),
        "GRU": (lambda: nn.GRU(3, 4, bidirectional=True), seq),
        "RNN": (lambda: nn.RNN(3, 4), seq),
        "MultiheadAttention": (lambda: _SelfAttention(nn.MultiheadAttention(3, 1)), seq),
        "TransformerEncoderLayer": (lambda: nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0),
                                    rng.standard_normal((2, 5, 4))),
    }


class _SelfAttention(tl.nn.Module):
    def __init__(self, attention):
        super().__init__()
        self.attention = attention

    def forward(self, x):
        return self.attention(x, x, x)[0]


def _output(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", list(_model_cases()))
def test_each_module_trains_a_step_lazily_and_matches_numpy(name):
    """Forward, backward, clip_grad_norm_ and an SGD step with momentum, with nothing computed; then the loss, the
    new parameters and the running statistics equal the same step on NumPy."""
    make, host = _model_cases()[name]
    results = []
    for lazy in (True, False):
        tl.manual_seed(0)
        model = make()
        x = tl.tensor(da.from_array(host, chunks=CHUNK) if lazy else host)
        if lazy:
            model.to(backend="dask")
        optimizer = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        with dask.config.set(scheduler=_refuse) if lazy else _no_scheduler():
            for _ in range(2):
                optimizer.zero_grad()
                loss = (_output(model(x)) ** 2).mean()
                loss.backward()
                tl.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
        state = [loss.data, *(t.data for t in model.state_dict().values())]
        results.append([np.asarray(v) for v in (dask.compute(*state) if lazy else state)])
    for i, (got, want) in enumerate(zip(*results)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=f"{name}: state {i}")


def _no_scheduler():
    import contextlib

    return contextlib.nullcontext()


def test_the_cross_entropy_of_lazy_labels_raises_numpys_error_when_computed():
    logits = tl.tensor(da.from_array(np.zeros((6, 3)), chunks=2), requires_grad=True)
    labels = tl.tensor(da.from_array(np.array([0, 1, 2, 7, -100, 5]), chunks=2))
    with dask.config.set(scheduler=_refuse):
        loss = tl.nn.functional.cross_entropy(logits, labels)
        loss.backward()
    message = ("cross_entropy: labels [5, 7] out of range for 3 classes (labels must be in [0, 2] or equal "
               "ignore_index=-100)")
    with pytest.raises(ValueError, match=re.escape(message)):
        tl.nn.functional.cross_entropy(tl.tensor(np.zeros((6, 3))), tl.tensor(np.array([0, 1, 2, 7, -100, 5])))
    for lazy in (loss, logits.grad):
        with pytest.raises(ValueError, match=re.escape(message)):
            lazy.numpy()


OPTIMIZERS = {
    "SGD(nesterov)": lambda p: tl.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam": lambda p: tl.optim.Adam(p, lr=0.01, weight_decay=0.01),
    "AdamW": lambda p: tl.optim.AdamW(p, lr=0.01),
    "RMSprop(centered)": lambda p: tl.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "Adagrad": lambda p: tl.optim.Adagrad(p, lr=0.1),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_each_optimizer_steps_lazily_with_a_scheduler_and_matches_numpy(name):
    host = np.random.default_rng(4).standard_normal((8, 3))
    results = []
    for lazy in (True, False):
        tl.manual_seed(0)
        model = tl.nn.Linear(3, 2)
        x = tl.tensor(da.from_array(host, chunks=CHUNK) if lazy else host)
        if lazy:
            model.to(backend="dask")
        optimizer = OPTIMIZERS[name](model.parameters())
        schedule = tl.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
        with dask.config.set(scheduler=_refuse) if lazy else _no_scheduler():
            for _ in range(3):
                optimizer.zero_grad()
                model(x).tanh().sum().backward()
                tl.nn.utils.clip_grad_norm_(model.parameters(), 0.5, error_if_nonfinite=True)
                optimizer.step()
                schedule.step()
        state = [p.data for p in model.parameters()]
        results.append([np.asarray(v) for v in (dask.compute(*state) if lazy else state)])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=name)


def test_a_non_finite_gradient_norm_raises_the_eager_error_when_computed():
    eager = tl.tensor(np.array([1.0, 2.0]), requires_grad=True)
    (eager * tl.tensor(np.array([1.0, np.inf]))).sum().backward()
    with pytest.raises(RuntimeError, match="the total norm of order 2.0 .* is non-finite") as raised:
        tl.nn.utils.clip_grad_norm_([eager], 1.0, error_if_nonfinite=True)
    w = tl.tensor(da.from_array(np.array([1.0, 2.0]), chunks=1), requires_grad=True)
    with dask.config.set(scheduler=_refuse):
        (w * tl.tensor(da.from_array(np.array([1.0, np.inf]), chunks=1))).sum().backward()  # a gradient of inf
        total = tl.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
    for lazy in (total, w.grad):
        with pytest.raises(RuntimeError, match=re.escape(str(raised.value))):
            lazy.numpy()
