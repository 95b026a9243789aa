"""RNN, LSTM, GRU and their cells: PyTorch's parameters, layouts, outputs and gradients.

Against PyTorch float64 where it is installed (its state dict loaded, the
forward, and the gradients of the input, the initial states and every
parameter); without it, against a NumPy reference of the gate formulas and
by central differences (gradcheck) on every backend of the fixture.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn
from torchlight.autograd import gradcheck, gradgradcheck
from torchlight.func import functional_call

L, N, IN, H = 4, 2, 3, 5


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="the reference values come from PyTorch (not installed)")


def flat(out):
    if isinstance(out, (tuple, list)):
        return [t for part in out for t in flat(part)]
    return [out]


def against_torch(torch, ours, theirs, arrays, call, rng, atol=1e-12):
    """Load theirs' state dict into ours; compare the outputs of `call(module, *inputs)` and the gradients
    of a random weighting of them for every input array and every parameter."""
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    mine = [tl.tensor(a, requires_grad=True) for a in arrays]
    refs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_mine, out_refs = flat(call(ours, *mine)), flat(call(theirs, *refs))
    assert [o.shape for o in out_mine] == [tuple(o.shape) for o in out_refs]
    weights = [rng.standard_normal(o.shape) for o in out_mine]
    sum(((o * tl.tensor(w)).sum() for o, w in zip(out_mine, weights))).backward()
    sum(((o * torch.tensor(w)).sum() for o, w in zip(out_refs, weights))).backward()
    for o, r in zip(out_mine, out_refs):
        np.testing.assert_allclose(o.numpy(), r.detach().numpy(), atol=atol, rtol=1e-10)
    for k, (m, r) in enumerate(zip(mine, refs)):
        np.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), atol=atol, rtol=1e-10, err_msg=f"input {k}")
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), theirs_params[name].grad.numpy(), atol=atol, rtol=1e-10,
                                   err_msg=name)
    return out_mine


SEQUENCE_CASES = [
    ("RNN", dict(), True),
    ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True, batch_first=True, bias=False), True),
    ("LSTM", dict(num_layers=2, bidirectional=True), True),
    ("LSTM", dict(batch_first=True), False),
    ("LSTM", dict(proj_size=2, num_layers=2, bidirectional=True), True),
    ("GRU", dict(num_layers=2, bidirectional=True, batch_first=True), True),
    ("GRU", dict(bias=False), False),
]


@pytest.mark.parametrize("kind, options, with_state", SEQUENCE_CASES)
def test_sequence_layers_against_torch(torch, kind, options, with_state):
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    theirs = getattr(torch.nn, kind)(IN, H, dtype=torch.float64, **options)
    ours = getattr(nn, kind)(IN, H, **options)
    d = 2 if options.get("bidirectional") else 1
    layers = options.get("num_layers", 1)
    x = rng.standard_normal((N, L, IN) if options.get("batch_first") else (L, N, IN))
    arrays = [x]
    if with_state:
        arrays += [rng.standard_normal((d * layers, N, options.get("proj_size") or H))]
        arrays += [rng.standard_normal((d * layers, N, H))] if kind == "LSTM" else []

    def call(module, x, *states):
        return module(x, tuple(states) if kind == "LSTM" else states[0]) if states else module(x)

    train = against_torch(torch, ours, theirs, arrays, call, rng)
    ours.eval()  # no dropout in these configurations: eval is the same function
    with tl.no_grad():
        evaluated = flat(call(ours, *(tl.tensor(a) for a in arrays)))
    for a, b in zip(train, evaluated):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_unbatched_input_with_state_against_torch(torch, kind):
    rng = np.random.default_rng(1)
    theirs = getattr(torch.nn, kind)(IN, H, num_layers=2, dtype=torch.float64)
    ours = getattr(nn, kind)(IN, H, num_layers=2)
    arrays = [rng.standard_normal((L, IN))] + [rng.standard_normal((2, H)) for _ in range(2 if kind == "LSTM" else 1)]

    def call(module, x, *states):
        return module(x, tuple(states) if kind == "LSTM" else states[0])

    out = against_torch(torch, ours, theirs, arrays, call, rng)
    assert out[0].shape == (L, H) and out[1].shape == (2, H)


@pytest.mark.parametrize("kind, options", [("RNNCell", dict(nonlinearity="relu")), ("LSTMCell", dict()),
                                           ("GRUCell", dict()), ("GRUCell", dict(bias=False))])
def test_cells_against_torch(torch, kind, options):
    rng = np.random.default_rng(2)
    theirs = getattr(torch.nn, kind)(IN, H, dtype=torch.float64, **options)
    ours = getattr(nn, kind)(IN, H, **options)
    states = 2 if kind == "LSTMCell" else 1
    arrays = [rng.standard_normal((N, IN))] + [rng.standard_normal((N, H)) for _ in range(states)]

    def call(module, x, *states):
        return module(x, tuple(states) if kind == "LSTMCell" else states[0])

    against_torch(torch, ours, theirs, arrays, call, rng)
    with tl.no_grad():  # unbatched, no state: zeros
        one = flat(ours(tl.tensor(arrays[0][0])))
        ref = flat(theirs(torch.tensor(arrays[0][0])))
    for a, b in zip(one, ref):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), atol=1e-12)


def test_dropout_only_between_layers_and_eval_against_torch(torch):
    theirs = torch.nn.LSTM(IN, H, num_layers=2, dropout=0.5, dtype=torch.float64).eval()
    ours = nn.LSTM(IN, H, num_layers=2, dropout=0.5)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(3).standard_normal((L, N, IN))
    out, (h, c) = ours.eval()(tl.tensor(x))
    ref, (rh, rc) = theirs(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), atol=1e-12)
    tl.manual_seed(0)
    train_out, (train_h, _) = ours.train()(tl.tensor(x))
    np.testing.assert_allclose(train_h.numpy()[0], h.numpy()[0], atol=1e-12)  # layer 0: no dropout after it
    assert not np.allclose(train_h.numpy()[1], h.numpy()[1])                   # layer 1 saw a dropped input


# ------------------------------------------------------------ without PyTorch
def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def numpy_lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(c), c


def numpy_gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    xr, xz, xn = np.split(x @ w_ih.T + b_ih, 3, axis=-1)
    hr, hz, hn = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    return (1 - z) * n + z * h


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_bidirectional_layer_against_numpy_gate_formulas(backend, kind):
    tl.manual_seed(0)
    module = getattr(nn, kind)(IN, H, bidirectional=True, backend=backend)
    x = np.random.default_rng(4).standard_normal((L, N, IN))
    out, state = module(tl.tensor(x, backend=backend))
    p = {name: t.numpy() for name, t in module.named_parameters()}
    outs, finals = [], []
    for suffix, times in (("_l0", range(L)), ("_l0_reverse", range(L - 1, -1, -1))):
        w = [p[name + suffix] for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        h, c, seq = np.zeros((N, H)), np.zeros((N, H)), [None] * L
        for t in times:
            if kind == "LSTM":
                h, c = numpy_lstm_step(x[t], h, c, *w)
            else:
                h = numpy_gru_step(x[t], h, *w)
            seq[t] = h
        outs.append(np.stack(seq))
        finals.append(h)
    np.testing.assert_allclose(out.numpy(), np.concatenate(outs, -1), atol=1e-12)
    h_n = state[0] if kind == "LSTM" else state
    np.testing.assert_allclose(h_n.numpy(), np.stack(finals), atol=1e-12)


def test_lstm_gradients_by_central_differences(backend):
    tl.manual_seed(0)
    lstm = nn.LSTM(2, 2, num_layers=2, bidirectional=True, batch_first=True, backend=backend)
    names = [name for name, _ in lstm.named_parameters()]
    params = [p.detach().requires_grad_() for _, p in lstm.named_parameters()]
    x = tl.randn(2, 3, 2, backend=backend, requires_grad=True)
    h0 = tl.randn(4, 2, 2, backend=backend, requires_grad=True)
    c0 = tl.randn(4, 2, 2, backend=backend, requires_grad=True)

    def fn(x, h0, c0, *ps):
        out, (h, c) = functional_call(lstm, dict(zip(names, ps)), (x, (h0, c0)))
        return out, h, c

    # grouped directions on numpy; one random direction per input elsewhere (array_api_strict is slow)
    assert gradcheck(fn, x, h0, c0, *params, full_jacobian_max=4 if backend.name == "numpy" else 0)


@pytest.mark.parametrize("kind", ["GRU", "RNN"])
def test_gru_and_rnn_gradients_through_time(backend, kind):
    tl.manual_seed(1)
    module = getattr(nn, kind)(2, 3, backend=backend)
    names = [name for name, _ in module.named_parameters()]
    params = [p.detach().requires_grad_() for _, p in module.named_parameters()]
    x = tl.randn(2, 2, 2, backend=backend, requires_grad=True)
    h0 = tl.randn(1, 2, 3, backend=backend, requires_grad=True)

    def fn(x, h0, *ps):
        return functional_call(module, dict(zip(names, ps)), (x, h0))

    assert gradcheck(fn, x, h0, *params, full_jacobian_max=12)
    assert gradgradcheck(lambda x, h0: module(x, h0)[0], x, h0)


def test_parameter_names_shapes_and_init_as_pytorch():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    got = [(name, p.shape) for name, p in lstm.named_parameters()]
    want = []
    for layer, width in ((0, 3), (1, 8)):
        for suffix in ("", "_reverse"):
            s = f"_l{layer}{suffix}"
            want += [("weight_ih" + s, (16, width)), ("weight_hh" + s, (16, 4)), ("bias_ih" + s, (16,)),
                     ("bias_hh" + s, (16,))]
    assert got == want
    values = np.concatenate([p.numpy().ravel() for p in lstm.parameters()])
    assert np.abs(values).max() <= 0.5 and values.std() > 0.2  # U(-1/sqrt(4), 1/sqrt(4)): std 0.29
    assert [name for name, _ in nn.GRU(3, 4, bias=False).named_parameters()] == ["weight_ih_l0", "weight_hh_l0"]
    assert nn.GRUCell(3, 4).weight_hh.shape == (12, 4)
    assert repr(nn.LSTM(3, 4, num_layers=2, batch_first=True)) == "LSTM(3, 4, num_layers=2, batch_first=True)"
    assert len(lstm.all_weights) == 4 and lstm.all_weights[1][0] is lstm.weight_ih_l0_reverse


def test_bad_input_names_expected_and_got():
    lstm = nn.LSTM(3, 4, num_layers=2)
    with pytest.raises(ValueError, match=r"input.size\(-1\) must be equal to input_size. Expected 3, got 5"):
        lstm(tl.zeros(2, 1, 5))
    with pytest.raises(ValueError, match="Expected input to be 2-D or 3-D, got 4-D"):
        lstm(tl.zeros(2, 1, 1, 3))
    with pytest.raises(ValueError, match=r"Expected hidden\[0\] size \(2, 1, 4\), got \(1, 1, 4\)"):
        lstm(tl.zeros(2, 1, 3), (tl.zeros(1, 1, 4), tl.zeros(2, 1, 4)))
    with pytest.raises(ValueError, match=r"Expected hidden\[1\] size \(2, 1, 4\), got \(2, 1, 3\)"):
        lstm(tl.zeros(2, 1, 3), (tl.zeros(2, 1, 4), tl.zeros(2, 1, 3)))
    with pytest.raises(TypeError, match="pair"):
        lstm(tl.zeros(2, 1, 3), tl.zeros(2, 1, 4))
    with pytest.raises(ValueError, match="unbatched 2-D input, hx should also be 2-D"):
        nn.GRU(3, 4)(tl.zeros(2, 3), tl.zeros(1, 1, 4))
    with pytest.raises(TypeError, match="dtype float32"):
        nn.RNN(3, 4)(tl.zeros(2, 1, 3, dtype="float32"))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match="dropout"):
        nn.GRU(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="num_layers"):
        nn.GRU(3, 4, num_layers=0)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match=r"Expected hidden\[0\] size \(1, 1, 2\), got \(1, 1, 4\)"):
        nn.LSTM(3, 4, proj_size=2)(tl.zeros(2, 1, 3), (tl.zeros(1, 1, 4), tl.zeros(1, 1, 4)))
    with pytest.raises(ValueError, match=r"Expected hx size \(2, 4\), got \(4,\)"):
        nn.GRUCell(3, 4)(tl.zeros(2, 3), tl.zeros(4))


def test_compiled_lstm_without_initial_state_matches_eager():
    tl.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True)  # the zero state makes no tensor: it compiles
    step = tl.compile(lambda x: lstm(x)[0].sum())
    for seed in (1, 2):
        tl.manual_seed(seed)
        x = tl.randn(2, 5, 3)
        assert step(x).item() == lstm(x)[0].sum().item()
