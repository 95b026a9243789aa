"""Devices are real without a GPU: array_api_strict's fake devices.

`device1` is a second device (arrays of two devices cannot be combined: the
strict library raises), `no_float64` a device that has no float64 at all.
Every op runs forward, backward and double backward there, and every Tensor
made on the way is recorded: each must live on the input's device, and on
`no_float64` none may be float64. Arrays that never become a Tensor are
covered by the strict library itself: combining one made on the default
device with a `device1` array raises, and asking `no_float64` for float64
raises.

The op list is this file's table of the built-in ops, plus every case of the
conformance op database when it can be imported (so a new op is covered
here by its conformance entry).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest

import torchlight as tl
from torchlight import backends, scalar
from torchlight.autograd import functions as F
from torchlight.tensor import Tensor

STRICT = backends.get("array_api_strict")
XP = STRICT.xp
#: (device, dtype of the inputs): a second device, and one without float64
PLACES = [("device1", "float64"), ("no_float64", "float32")]


@contextmanager
def recorded_tensors(monkeypatch):
    """Every Tensor made while the block runs (through __init__ or _wrap)."""
    made: list[Tensor] = []
    wrap = Tensor.__dict__["_wrap"].__func__
    init = Tensor.__init__

    def recording_wrap(cls, out, backend):
        t = wrap(cls, out, backend)
        made.append(t)
        return t

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    with monkeypatch.context() as m:
        m.setattr(Tensor, "_wrap", classmethod(recording_wrap))
        m.setattr(Tensor, "__init__", recording_init)
        yield made


def assert_all_on(made, device, dtype):
    assert made, "nothing was recorded"
    for t in made:
        where = t.history.last_fn.__name__ if t.history is not None else "a history-free tensor"
        assert STRICT.device_of(t.data) == device, f"{where} made an array on {STRICT.device_of(t.data)}"
        if dtype == "float32":
            assert t.dtype != XP.float64, f"{where} made a float64 array on no_float64"


def run_everywhere(fn, inputs, device, dtype, monkeypatch, double=True):
    """fn(*inputs) forward, backward and (optionally) double backward on
    `device`, recording every Tensor made; returns the first-order grads."""
    with recorded_tensors(monkeypatch) as made:
        leaves = [tl.tensor(XP.asarray(x.astype(dtype), device=device), requires_grad=True) for x in inputs]
        out = fn(*leaves)
        assert out.device == device
        if out.requires_grad:
            out.sum().backward(create_graph=double)
        grads = [x.grad for x in leaves]
        for x, g in zip(leaves, grads):
            if g is not None:
                assert g.device == x.device and g.dtype == x.dtype and type(g.data) is type(x.data)
        if double:
            second = [(g * g).sum() for g in grads if g is not None and g.requires_grad]
            if second:
                sum(second[1:], second[0]).backward()
    assert_all_on(made, device, dtype)
    return [None if g is None else g.numpy() for g in grads]


# --------------------------------------------------------- the built-in ops
def _idx(x, values):
    return tl.tensor(x.backend.asarray(np.array(values), device=x.device))


CORE = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: 1.0 - a - b,
    "Mul": lambda a, b: a * b * 2.0,
    "Div": lambda a, b: a / b + 1.0 / b,
    "Neg": lambda a, b: -a,
    "Pow(number)": lambda a, b: a**3 + b**0.5,
    "Pow(tensor)": lambda a, b: b**a,
    "MatMul": lambda a, b: a @ b.T,
    "MatMul(matrix, vector)": lambda a, b: a @ b[0],
    "MatMul(vector, matrix)": lambda a, b: a[0] @ b.T,
    "MatMul(vector, vector)": lambda a, b: a[0] @ b[0],
    "Sum": lambda a, b: a.sum(1) + a.sum((0, 1), keepdim=True),
    "SumTo(broadcast)": lambda a, b: a + b[0],
    "Mean": lambda a, b: a.mean(0),
    "Max": lambda a, b: a.amax(1) + a.max(),
    "Exp": lambda a, b: a.exp(),
    "Log": lambda a, b: b.log(),
    "Inv": lambda a, b: b.inv(),
    "Sqrt": lambda a, b: b.sqrt(),
    "Sigmoid": lambda a, b: a.sigmoid(),
    "Tanh": lambda a, b: a.tanh(),
    "ReLU": lambda a, b: a.relu(),
    "Abs": lambda a, b: abs(a),
    "Where": lambda a, b: F.Where.apply(a > 0, a, b),
    "Softmax": lambda a, b: a.softmax(1),
    "LogSoftmax": lambda a, b: a.log_softmax(0),
    "Permute": lambda a, b: a.permute(1, 0) * b.T,
    "Reshape": lambda a, b: a.reshape(-1),
    "BroadcastView": lambda a, b: a[0:1].expand(3, 4),
    "Gather(slices)": lambda a, b: a[1:, ::-2],
    "Gather(integer)": lambda a, b: a[1],
    "Gather(rows)": lambda a, b: a[_idx(a, [0, 2, 0])],
    "Gather(columns)": lambda a, b: a[:, [1, 1, 3]],
    "Gather(mask)": lambda a, b: a[a > 0],
    "Clone": lambda a, b: a.clone(),
    "AsType": lambda a, b: a.astype("float32") * 2.0,
    "Map": lambda a, b: a.backend.map(scalar.exp)(a),
    "Zip": lambda a, b: a.backend.zip(scalar.mul)(a, b),
    "Map(plain function)": lambda a, b: a.backend.map(lambda v: v * v)(a),
    "reduce": lambda a, b: a.backend.reduce(scalar.add, 0.0)(a, 1),
    "mse_loss": lambda a, b: a.mse_loss(b),
    "To(same device)": lambda a, b: a.to(device=a.device) * b,
}
#: a plain Python function's derivative has no graph: first order only
FIRST_ORDER_ONLY = {"Map(plain function)"}


def _inputs():
    rng = np.random.default_rng(7)
    a = rng.uniform(-2.0, 2.0, (3, 4))
    a[np.abs(a) < 0.2] = 0.5  # away from the kinks of relu and abs
    return a, rng.uniform(0.5, 2.0, (3, 4))


def _numpy_grads(fn):
    leaves = [tl.tensor(x, requires_grad=True) for x in _inputs()]
    fn(*leaves).sum().backward()
    return [None if x.grad is None else x.grad.numpy() for x in leaves]


@pytest.mark.parametrize("device, dtype", PLACES, ids=[p[0] for p in PLACES])
@pytest.mark.parametrize("name", list(CORE))
def test_builtin_op_stays_on_its_device(name, device, dtype, monkeypatch):
    device = XP.Device(device)
    fn = CORE[name]
    grads = run_everywhere(fn, _inputs(), device, dtype, monkeypatch, double=name not in FIRST_ORDER_ONLY)
    tol = 1e-12 if dtype == "float64" else 2e-5
    for got, want in zip(grads, _numpy_grads(fn)):
        assert (got is None) == (want is None)
        if got is not None:
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_every_core_function_is_exercised(monkeypatch):
    """The table above reaches each Function of the core list in DESIGN.md."""
    seen = set()
    for name, fn in CORE.items():
        with recorded_tensors(monkeypatch) as made:
            leaves = [tl.tensor(x, requires_grad=True) for x in _inputs()]
            out = fn(*leaves)
            out.sum().backward(create_graph=name not in FIRST_ORDER_ONLY)
        seen |= {t.history.last_fn.__name__ for t in made if t.history is not None}
    core = {"Add", "Sub", "Mul", "Div", "Neg", "Pow", "MatMul", "Sum", "SumTo", "Max", "Map", "Zip", "Exp",
            "Log", "LogBack", "Inv", "InvBack", "Sqrt", "Sigmoid", "SigmoidBack", "Tanh", "TanhBack", "ReLU",
            "ReluBack", "Abs", "Where", "Softmax", "LogSoftmax", "Permute", "Reshape", "BroadcastView",
            "Gather", "GatherBack", "Clone", "AsType"}
    assert core <= seen, f"not exercised: {sorted(core - seen)}"


def test_to_another_device_moves_the_gradient_back(monkeypatch):
    x = tl.tensor(XP.asarray([1.0, -2.0, 3.0]), requires_grad=True)
    y = x.to(device="device1")
    assert y.device == XP.Device("device1")
    (y.exp() * y).sum().backward()
    assert x.grad.device == XP.Device("CPU_DEVICE")
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, -2.0, 3.0]) * (1 + np.array([1.0, -2.0, 3.0])))


def test_strict_refuses_mixed_devices_so_the_checks_have_teeth():
    a = XP.asarray([1.0], device=XP.Device("device1"))
    with pytest.raises(ValueError, match="different devices"):
        a + XP.asarray([1.0])
    with pytest.raises(ValueError, match="does not support dtype"):
        XP.asarray([1.0], dtype=XP.float64, device=XP.Device("no_float64"))


def test_a_forgotten_device_is_caught(monkeypatch):
    """A backward that makes an array without `device=` fails on device1."""

    class Forgetful(F.Function):
        @staticmethod
        def forward(ctx, a):
            return a.data * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * Tensor._wrap(XP.full(tuple(g.shape), 2.0, dtype=g.dtype), g.backend)

    x = tl.tensor(XP.asarray([1.0, 2.0], device=XP.Device("device1")), requires_grad=True)
    with pytest.raises(Exception, match="device"):
        Forgetful.apply(x).sum().backward()


def test_scatter_add_accumulates_in_float32_where_there_is_no_float64(monkeypatch):
    device = XP.Device("no_float64")
    values = XP.asarray(np.full(7, 0.5, dtype=np.float32), device=device)
    key = XP.asarray(np.array([0, 1, 0, 0, 2, 2, 0]), device=device)
    assert STRICT._accumulate_dtype(XP.float32, device) == XP.float32
    assert STRICT._accumulate_dtype(XP.float32, XP.Device("device1")) == XP.float64
    out = STRICT.scatter_add((4,), key, values)
    assert out.device == device and out.dtype == XP.float32
    assert STRICT.to_numpy(out).tolist() == [2.0, 0.5, 1.0, 0.0]


@pytest.mark.parametrize("device, dtype", PLACES, ids=[p[0] for p in PLACES])
def test_factories_and_randomness_on_each_device(device, dtype):
    device = XP.Device(device)
    made = [tl.zeros(2, 3, backend=STRICT, device=device), tl.ones(2, backend=STRICT, device=device),
            tl.full((2,), 1.5, backend=STRICT, device=device), tl.rand(3, backend=STRICT, device=device),
            tl.randn(3, backend=STRICT, device=device, dtype=dtype), tl.arange(3, backend=STRICT, device=device),
            tl.tensor([1.0, 2.0], backend=STRICT, device=device)]
    for t in made:
        assert t.device == device
        if dtype == "float32":
            assert t.dtype != XP.float64
    z = tl.zeros_like(made[0])
    assert z.device == device and z.dtype == made[0].dtype


LIKE = {"zeros_like": lambda t, **k: tl.zeros_like(t, **k), "ones_like": lambda t, **k: tl.ones_like(t, **k),
        "empty_like": lambda t, **k: tl.empty_like(t, **k), "full_like": lambda t, **k: tl.full_like(t, 2.5, **k),
        "rand_like": lambda t, **k: tl.rand_like(t, **k), "randn_like": lambda t, **k: tl.randn_like(t, **k)}


@pytest.mark.parametrize("name", list(LIKE))
def test_a_like_factory_takes_a_device_as_pytorch_does(name):
    """`tl.zeros_like(t, device=...)`: t's shape and dtype on that device (a device of t's backend,
    a `Device`, or a PyTorch device string as the factories read them); t's own device without one."""
    like = LIKE[name]
    t = tl.tensor(np.ones((2, 3)), backend=STRICT)
    moved = like(t, device=XP.Device("device1"), requires_grad=True)
    assert moved.device == XP.Device("device1") and moved.shape == (2, 3) and moved.dtype == t.dtype
    assert moved.requires_grad and moved.is_leaf
    assert like(t).device == t.device
    n = tl.tensor(np.ones(4, dtype=np.float32))
    assert like(t, device=n.device).backend is n.backend  # (a Device of another backend: there)
    on_cpu = like(n, device="cpu")
    assert on_cpu.backend is n.backend and on_cpu.dtype == np.float32 and on_cpu.shape == (4,)
    with pytest.raises(ValueError, match="has only the device 'cpu', not 'gpu7'"):
        like(n, device="gpu7")
    if name == "full_like":
        assert like(t, device=XP.Device("device1")).numpy().tolist() == [[2.5] * 3] * 2


# ----------------------------------------- the conformance database, if any
def _conformance_cases():
    try:
        from conformance import database

        ops = database.all_ops()
    except Exception as exc:  # not written yet, or broken: say so in the skip
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=f"conformance database: {exc!r}"))]
    params = []
    for op in ops:
        if not op.differentiable or not op.same_backend:
            continue
        for case in op.cases:
            if case.raises is not None or case.other_backend is not None or case.forward_only or case.ieee:
                continue
            params.append(pytest.param(op, case, id=f"{op.name}-{case.name}"))
    return params


@pytest.mark.parametrize("device, dtype", PLACES, ids=[p[0] for p in PLACES])
@pytest.mark.parametrize("op, case", _conformance_cases())
def test_conformance_op_stays_on_its_device(op, case, device, dtype, monkeypatch):
    dtypes = case.dtypes or op.dtypes
    if dtype not in dtypes:
        pytest.skip(f"{op.name} does not run in {dtype}")
    if device == "no_float64" and "float64" in repr(case.kwargs):
        pytest.skip("the case asks for float64, which no_float64 does not have")
    rng = np.random.default_rng(0)
    inputs = [case.domain_of(i, op.domain)(rng, shape) for i, shape in enumerate(case.shapes)]
    double = op.double_backward if case.double_backward is None else case.double_backward

    def call(*tensors):
        tensors = [t if case.requires_grad(i) else t.detach() for i, t in enumerate(tensors)]
        return op.call(*tensors, **case.kwargs)

    run_everywhere(call, inputs, XP.Device(device), dtype, monkeypatch, double=double)


@pytest.mark.parametrize("name", list(CORE))
def test_builtin_op_never_writes_into_its_inputs(name):
    """Read-only NumPy inputs and seed: a write in place (which JAX forbids) raises."""
    arrays = []
    for x in _inputs():
        x.flags.writeable = False
        arrays.append(x)
    leaves = [tl.tensor(a, requires_grad=True) for a in arrays]
    out = CORE[name](*leaves)
    seed = np.ones(out.shape)
    seed.flags.writeable = False
    out.backward(seed, create_graph=name not in FIRST_ORDER_ONLY)
    assert any(x.grad is not None for x in leaves)
    for a, fresh in zip(arrays, _inputs()):
        np.testing.assert_array_equal(a, fresh)
