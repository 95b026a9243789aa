"""tl.get_rng_state / tl.set_rng_state: every backend's streams put back, also into a backend that
has not drawn yet (a fresh process), one backend's state alone, fork_rng, and bad states refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

import torchlight as tl
from torchlight import backends

STATELESS = "CuPy's generators give no state once they have drawn (test_cupy_state_before_the_first_draw)"


def test_a_state_puts_back_the_draws(backend):
    if backend.name == "cupy":
        pytest.skip(STATELESS)
    tl.manual_seed(0)
    tl.rand(3, backend=backend)
    state = tl.get_rng_state()
    assert state.dtype == tl.uint8 and state.ndim == 1
    first = tl.rand(5, backend=backend).tolist()
    tl.rand(5, backend=backend)
    tl.set_rng_state(state)
    assert tl.rand(5, backend=backend).tolist() == first


def test_a_state_restores_into_a_fresh_backend_as_in_a_new_process(backend):
    if backend.name == "cupy":
        pytest.skip(STATELESS)
    tl.manual_seed(1)
    tl.rand(4, backend=backend)
    state = backend.get_rng_state()
    json.dumps(state)  # plain data: it can go to another process
    expected = backend.native_random("rand", (6,), None, None)
    fresh = backends.backend_class(backend.name)()
    fresh.set_rng_state(state)
    np.testing.assert_array_equal(backend.to_numpy(fresh.native_random("rand", (6,), None, None)),
                                  backend.to_numpy(expected))


def test_torch_backend_generators_restore_into_a_fresh_backend():
    pytest.importorskip("torch", reason="the torch backend's generators need PyTorch")
    torch_backend = tl.backends.get("torch")
    tl.manual_seed(2)
    tl.randn(3, backend="torch")
    state = torch_backend.get_rng_state()
    assert state["generators"]  # the cpu generator has drawn
    expected = tl.randn(4, backend="torch").tolist()
    fresh = backends.backend_class("torch")()
    fresh.set_rng_state(json.loads(json.dumps(state)))
    assert fresh.native_random("randn", (4,), None, None).tolist() == expected


def test_jax_key_restores_into_a_fresh_backend():
    pytest.importorskip("jax", reason="the jax backend's key needs JAX")
    jax_backend = tl.backends.get("jax")
    tl.manual_seed(3)
    tl.rand(2, backend="jax")
    state = jax_backend.get_rng_state()
    expected = np.asarray(jax_backend.native_random("rand", (3,), None, None))
    fresh = backends.backend_class("jax")()
    fresh.set_rng_state(json.loads(json.dumps(state)))
    np.testing.assert_array_equal(np.asarray(fresh.native_random("rand", (3,), None, None)), expected)


def test_cupy_state_before_the_first_draw(backend):
    if backend.name != "cupy":
        pytest.skip("CuPy's own contract (run with --backend cupy)")
    tl.manual_seed(10)
    state = tl.get_rng_state()
    first = tl.rand(3, backend=backend).tolist()
    with pytest.raises(RuntimeError, match="do not give their state"):
        tl.get_rng_state()
    tl.set_rng_state(state)
    assert tl.rand(3, backend=backend).tolist() == first


def test_one_backends_state_touches_that_backend_only():
    tl.manual_seed(4)
    state = tl.get_rng_state(backend="numpy")
    a = tl.rand(3, backend="numpy").tolist()
    strict_before = tl.rand(3, backend="array_api_strict").tolist()
    tl.manual_seed(4)
    tl.rand(3, backend="array_api_strict")  # the strict stream moves on
    tl.set_rng_state(state)
    assert tl.rand(3, backend="numpy").tolist() == a
    assert tl.rand(3, backend="array_api_strict").tolist() != strict_before


def test_a_whole_state_records_the_seed_and_passes_over_a_backend_that_cannot_run_here(monkeypatch):
    def unusable():
        raise tl.BackendUnavailableError("ghost: its library is not installed")

    monkeypatch.setitem(backends._factories, "ghost", unusable)
    tl.manual_seed(5)
    tl.rand(1)
    record = json.loads(tl.get_rng_state().numpy().tobytes())
    assert record["seed"] == 5 and "numpy" in record["backends"]
    expected = tl.rand(3).tolist()
    record["backends"]["ghost"] = {"host": None}  # taken where another backend ran
    record["backends"]["not-registered-here"] = {"host": None}
    tl.rand(3)
    backends.set_rng_states({k: record[k] for k in ("seed", "backends")})
    assert tl.rand(3).tolist() == expected
    with pytest.raises(tl.BackendUnavailableError, match="ghost"):
        backends.set_rng_states({"backends": {"ghost": {"host": None}}})


def test_a_state_taken_before_any_backend_was_made_reseeds_them_from_its_seed():
    tl.manual_seed(12)
    state = backends.get_rng_states()
    state["backends"].clear()  # as in a process where no backend was made yet
    expected = tl.rand(3).tolist()  # the first draws after manual_seed(12)
    tl.rand(5)
    backends.set_rng_states(state)
    assert tl.rand(3).tolist() == expected


def test_fork_rng_puts_the_streams_back():
    tl.manual_seed(6)
    with tl.random.fork_rng():
        inside = tl.rand(3).tolist()
    assert tl.rand(3).tolist() == inside
    with tl.random.fork_rng(enabled=False):
        tl.rand(3)
    assert tl.rand(3).tolist() != inside


def test_seed_and_initial_seed():
    tl.manual_seed(11)
    assert tl.initial_seed() == 11
    s = tl.seed()
    assert isinstance(s, int) and s >= 0 and tl.initial_seed() == s


def test_a_state_survives_a_checkpoint(tmp_path):
    tl.manual_seed(7)
    tl.save({"rng": tl.get_rng_state(), "epoch": 1}, tmp_path / "run.safetensors")
    expected = tl.rand(4).tolist()
    tl.manual_seed(8)
    tl.set_rng_state(tl.load(tmp_path / "run.safetensors")["rng"])
    assert tl.rand(4).tolist() == expected


def test_bad_states_are_refused_before_any_change():
    tl.manual_seed(9)
    expected = tl.get_rng_state()
    with pytest.raises(TypeError, match="uint8 Tensor from get_rng_state, got dtype float64"):
        tl.set_rng_state(tl.zeros(3))
    with pytest.raises(TypeError, match="got a list"):
        tl.set_rng_state([1, 2])
    with pytest.raises(ValueError, match="not a state get_rng_state gave"):
        tl.set_rng_state(tl.tensor(np.frombuffer(b"\xff\xfe junk", dtype=np.uint8).copy()))
    with pytest.raises(ValueError, match="format mark"):
        tl.set_rng_state(tl.tensor(np.frombuffer(b'{"a": 1}', dtype=np.uint8).copy()))
    bad = {"format": "torchlight-rng-state", "version": 1, "seed": 3, "backends": {"numpy": {"host": 5}}}
    with pytest.raises(ValueError, match="numpy backend's host state"):
        tl.set_rng_state(tl.tensor(np.frombuffer(json.dumps(bad).encode(), dtype=np.uint8).copy()))
    with pytest.raises(tl.BackendError, match="unknown backend"):
        backends.set_rng_states({"backends": {"nope": {"host": None}}})
    assert tl.get_rng_state().tolist() == expected.tolist()


def test_generator_has_pytorchs_face_and_goes_where_a_numpy_generator_goes():
    from torchlight.utils.data import DataLoader, TensorDataset

    g = tl.Generator().manual_seed(0)
    assert isinstance(g, np.random.Generator) and g.initial_seed() == 0
    a = tl.randn(4, generator=g).tolist()
    assert tl.randn(4, generator=tl.Generator().manual_seed(0)).tolist() == a
    state = g.get_state()
    assert state.dtype == tl.uint8
    b = tl.rand(3, generator=g).tolist()
    assert tl.rand(3, generator=g.set_state(state)).tolist() == b
    data = TensorDataset(np.arange(10))

    def order(seed):
        return [int(i) for (batch,) in DataLoader(data, batch_size=4, shuffle=True,
                                                  generator=tl.Generator().manual_seed(seed)) for i in batch.tolist()]

    assert order(1) == order(1) and sorted(order(1)) == list(range(10))
    assert isinstance(tl.Generator().seed(), int)
    with pytest.raises(TypeError, match="seed is an int"):
        g.manual_seed(1.5)
    with pytest.raises(ValueError, match="torchlight-generator-state"):
        g.set_state(tl.get_rng_state())
