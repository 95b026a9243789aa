"""The benchmark stays runnable: torchlight (eager and compiled) and the minimal tape agree with the
hand-written gradients.

PyTorch and micrograd are not test dependencies, so only torchlight, the
minimal tape and the NumPy-by-hand reference run here, on the cheap
workloads (about 3 s).
"""

from __future__ import annotations

import numpy as np
import pytest

from bench import report
from bench.peers import Env, compiled_peer, minimal_tape, numpy_hand, torchlight_peer
from bench.timing import Timing, agreement, peak_extra_bytes, round_robin
from bench.workloads import MINTAPE, NUMPY, TL, TL_0D, TL_0D_COMPILED, TL_COMPILED, TORCH, WORKLOADS


@pytest.mark.parametrize("key,scalar_engine", [("W1", False), ("W2", False), ("W4", True), ("W6", False)])
def test_torchlight_matches_hand_written_gradients(key: str, scalar_engine: bool) -> None:
    w = WORKLOADS[key]
    data = w.data()
    env = Env(xp=np)
    reference = numpy_hand.make(key, data, env).grads()
    got = torchlight_peer.make(key, data, env, scalar_engine=scalar_engine).grads()
    assert sorted(got) == sorted(reference)
    assert agreement(reference, got) <= w.tolerance


def _small_w6_data() -> dict[str, np.ndarray]:
    """W6's chain on (4, 16, 16) matrices instead of (32, 128, 128)."""
    rng = np.random.default_rng(6)
    return {"a": rng.standard_normal((4, 16, 16)), "b": rng.standard_normal((4, 16, 16)) / 4.0}


@pytest.mark.parametrize("key,data", [("W1", None), ("W2", None), ("W6", _small_w6_data)])
def test_compiled_torchlight_matches_hand_written_gradients(key: str, data) -> None:
    """The compiled losses replay right (W6 on small matrices: the program does not care, the test's time does)."""
    w = WORKLOADS[key]
    data = (data or w.data)()
    env = Env(xp=np)
    reference = numpy_hand.make(key, data, env).grads()
    case = compiled_peer.make(key, data, env)
    got = case.grads()
    assert sorted(got) == sorted(reference)
    assert agreement(reference, got) <= w.tolerance
    assert agreement(reference, case.grads()) <= w.tolerance  # a replay does not accumulate either


def test_the_compiled_loss_is_recorded_once_and_its_first_run_timed_apart() -> None:
    """Every case of a workload replays one recorded program: later cases neither record nor time again."""
    data = _small_w3_data()
    env = Env(xp=np)
    first = compiled_peer.make("W3", data, env)
    fn = compiled_peer.compiled("W3", "numpy")
    recorded = compiled_peer.RECORDING[("W3", "numpy")]
    assert recorded > 0 and len(fn.programs) == 1
    for _ in range(3):
        compiled_peer.make("W3", data, env).run()
    first.run()
    assert compiled_peer.compiled("W3", "numpy") is fn and len(fn.programs) == 1
    assert compiled_peer.RECORDING[("W3", "numpy")] == recorded
    assert agreement(numpy_hand.make("W3", data, env).grads(), first.grads()) <= WORKLOADS["W3"].tolerance
    assert peak_extra_bytes(lambda: compiled_peer.make("W3", data, env)) > 0
    assert len(fn.programs) == 1


def _small_w3_data() -> dict[str, np.ndarray]:
    """W3's float32 data, 1,000 values instead of 4,000,000."""
    rng = np.random.default_rng(3)
    return {k: rng.standard_normal(1000, dtype=np.float32) for k in ("x", "w")}


@pytest.mark.parametrize("key,data", [("W1", None), ("W3", _small_w3_data), ("W5", None)])
def test_minimal_tape_matches_hand_written_gradients(key: str, data) -> None:
    """The floor runs the shared expressions (W5: all 100,000 additions, no recursion) and gets them right."""
    w = WORKLOADS[key]
    data = (data or w.data)()
    env = Env(xp=np)
    reference = numpy_hand.make(key, data, env).grads()
    case = minimal_tape.make(key, data, env)
    got = case.grads()
    assert sorted(got) == sorted(reference)
    assert all(g.dtype == data[k].dtype for k, g in got.items())
    assert agreement(reference, got) <= w.tolerance
    assert agreement(reference, case.grads()) <= w.tolerance  # a second run does not accumulate


def test_minimal_tape_frees_its_graph_and_sums_shared_inputs() -> None:
    x = minimal_tape.Var(np.array([0.5, -1.0]))
    y = (-x * x).exp() + x.tanh() * x.sigmoid()
    z = y.sum()
    z.backward()
    s = 1.0 / (1.0 + np.exp(-x.data))
    t = np.tanh(x.data)
    want = -2.0 * x.data * np.exp(-x.data * x.data) + (1.0 - t * t) * s + t * s * (1.0 - s)
    np.testing.assert_allclose(x.grad, want, rtol=1e-14)
    assert z.parents is None and y.backward_fn is None and x.parents == ()


def test_agreement_sees_a_wrong_gradient() -> None:
    ref = {"x": np.array([1.0, 2.0])}
    assert agreement(ref, {"x": np.array([1.0, 2.0])}) == 0.0
    assert agreement(ref, {"x": np.array([1.0, 2.5])}) == pytest.approx(0.25)
    assert agreement(ref, {"x": np.array([1.0])}) == float("inf")


def test_ratios_are_taken_round_by_round_and_targets_judged() -> None:
    w = WORKLOADS["W6"]
    timings = {"torchlight": Timing([2.0, 6.0, 3.0]), "torchlight compiled": Timing([2.0, 6.0, 4.0]),
               "pytorch": Timing([1.0, 2.0, 3.0]), "numpy-by-hand": Timing([2.0, 5.0, 3.0])}
    s = report.summarize(w, timings, {}, {})
    assert s["ratios"]["torchlight/pytorch"] == {"median": 2.0, "min": 1.0, "max": 3.0}
    assert s["ratios"]["torchlight/numpy-by-hand"]["median"] == pytest.approx(1.0)
    assert s["ratios"]["torchlight compiled/numpy-by-hand"]["median"] == pytest.approx(1.2)
    assert [(t["what"], t["met"]) for t in s["targets"]] == [("time torchlight/numpy-by-hand", True),
                                                             ("time torchlight compiled/numpy-by-hand", False)]
    assert "W6" in report.markdown({"command": "python -m bench"}, [s])


def test_eager_and_compiled_rows_are_told_apart_and_the_recording_shown() -> None:
    """The tables say which torchlight is eager; the compiled row's recording is shown beside its replays."""
    w = WORKLOADS["W5"]
    timings = {TL_0D: Timing([1.0, 1.0]), TL_0D_COMPILED: Timing([0.25, 0.5]), TORCH: Timing([1.0, 1.0])}
    s = report.summarize(w, timings, {}, {}, recording={TL_0D_COMPILED: 3.25})
    assert s["frameworks"][TL_0D_COMPILED]["recording_ms"] == pytest.approx(3250.0)
    assert "recording_ms" not in s["frameworks"][TL_0D]
    text = report.text_table(s)
    assert "torchlight 0-d eager/pytorch = 1.00x" in text and f"{TL_0D_COMPILED}/pytorch = 0.38x" in text
    assert f"MET  time {TL_0D_COMPILED}/pytorch = 0.38x" in text and "3250 ms" in text
    row = next(line for line in report.markdown({"command": "python -m bench"}, [s]).splitlines()
               if line.startswith("| W5 "))
    assert "torchlight 0-d eager: 1<br>" in row and f"{TL_0D_COMPILED}: 0.375 (recording: 3250 ms)" in row
    assert TL_COMPILED.startswith(TL) and report.label(TL) == "torchlight eager"


def test_the_minimal_tape_is_reported_beside_the_others_without_a_target() -> None:
    w = WORKLOADS["W1"]
    timings = {TL: Timing([8.0, 8.0]), TORCH: Timing([6.0, 6.0]), NUMPY: Timing([2.0, 1.0]),
               MINTAPE: Timing([3.0, 3.0])}
    s = report.summarize(w, timings, {}, {})
    assert s["ratios"][f"{MINTAPE}/{TORCH}"]["median"] == pytest.approx(0.5)
    assert s["ratios"][f"{MINTAPE}/{NUMPY}"] == {"median": 2.25, "min": 1.5, "max": 3.0}
    assert all(MINTAPE not in t["what"] for t in s["targets"])
    row = next(line for line in report.markdown({"command": "python -m bench"}, [s]).splitlines()
               if line.startswith("| W1 "))
    assert f"| {MINTAPE}: {3.0 * w.per_run:.0f} |" in row and f"{MINTAPE}/{TORCH} = 0.50x" in row


def test_round_robin_records_a_failing_case() -> None:
    from bench.peers import Case

    def boom() -> None:
        raise RecursionError("deep")

    out = round_robin({"ok": Case(lambda: None, dict), "bad": Case(boom, dict)}, reps=2, inner=1)
    assert len(out["ok"].seconds) == 2
    assert out["bad"].error.startswith("RecursionError")


def test_a_peer_timed_apart_takes_its_ratios_from_its_own_round_robin() -> None:
    w = WORKLOADS["W5"]
    assert w.apart == (TL_0D_COMPILED,)
    timings = {TL_0D: Timing([1.0, 1.0]), TL_0D_COMPILED: Timing([0.5, 0.5]), TORCH: Timing([1.0, 1.0])}
    apart = {TL_0D_COMPILED: Timing([0.5, 0.5]), TORCH: Timing([2.0, 2.0])}
    s = report.summarize(w, timings, {}, {}, apart=apart)
    assert s["ratios"][f"{TL_0D_COMPILED}/{TORCH}"]["median"] == pytest.approx(0.25)
    assert s["ratios"][f"{TL_0D}/{TORCH}"]["median"] == pytest.approx(1.0)


def test_a_peer_apart_is_made_only_once_the_others_are_timed_and_let_go(monkeypatch) -> None:
    """W5's compiled case, alive, slows the others' garbage collections: it is made (checked,
    recorded, timed) after their round-robin, when their cases are gone, beside a fresh partner."""
    import argparse
    import dataclasses
    import gc
    import weakref

    import bench.__main__ as main
    from bench.peers import Case

    events: list[tuple[str, str]] = []
    made: list[weakref.ref] = []
    alive_then: list[list[Case]] = []  # the cases still alive each time the peer apart is made

    def maker(name: str):
        def make(key, data, env) -> Case:
            events.append(("make", name))
            if name == "apart":
                gc.collect()
                alive_then.append([r() for r in made if r() is not None])
            case = Case(lambda: events.append(("run", name)), lambda: {"x": np.ones(2)})
            made.append(weakref.ref(case))
            return case
        return make

    names = (NUMPY, "other", "partner", "apart")
    monkeypatch.setattr(main, "load_peers", lambda names_, threads: {n: maker(n) for n in names})
    w = dataclasses.replace(WORKLOADS["W5"], key="WX", peers=names, ratios=(("apart", "partner"), ("other", NUMPY)),
                            targets=(), apart=("apart",), reps=2, quick_reps=2, data=lambda: {})
    args = argparse.Namespace(quick=True, threads=1, torch_compile=False)
    s = main.run_workload(w, args, Env())
    first_apart = events.index(("make", "apart"))
    assert ("run", "apart") not in events[:first_apart]
    assert all(e != ("run", "other") for e in events[first_apart:])  # the others were done first
    assert events[first_apart:].count(("make", "partner")) >= 1  # its partner made again beside it
    assert alive_then and all(not cases for cases in alive_then)
    assert set(s["frameworks"]) == set(names) and "apart/partner" in s["ratios"]


@pytest.mark.parametrize("name", ["bench.workloads", "bench.timing", "bench.report", "bench.peers.numpy_hand",
                                  "bench.peers.torchlight_peer", "bench.peers.compiled_peer",
                                  "bench.peers.minimal_tape",
                                  "bench.peers.scalar_mlp", "bench.profile", "bench.anomaly"])
def test_docstring_examples(name):
    """The bench's docstring examples run (the peers that need torch or micrograd aside)."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_the_profile_walks_w3_node_by_node_and_counts_w5_objects() -> None:
    """bench.profile on small sizes: every W3 node timed once, in walk order; the W5 graph's objects counted."""
    from bench.profile import w3_nodes, w5_gc

    result = w3_nodes(size=1000, repeat=1)
    names = [name for name, _ in result["nodes"]]
    assert names == ["Sum", "Add", "Exp", "Mul", "Neg", "Mul", "Sigmoid", "Tanh", "Mul"]
    assert 0 < sum(s for _, s in result["nodes"]) <= result["total"]
    assert result["backward_peak_mb"] > 0
    counts = w5_gc(length=2000, repeat=1)
    # a History (itself the weak reference to the tensor it made: History.inputs) and its edges
    # tuple per node: Add's backward reads nothing of its context, so every Add shares one (as they
    # share the needs_input_grad tuple)
    assert 1.9 < counts["tracked objects per node"] < 2.1


def test_the_profile_counts_w3_page_faults() -> None:
    """Fresh memory touched shows as faults (where `resource` exists); W3's three counts come back."""
    pytest.importorskip("resource")
    from bench.profile import _faults, w3_faults

    before = _faults()
    fresh = np.ones(8_000_000)  # 64 MB from mmap: new pages (2 MB each where huge pages are on)
    assert _faults() - before >= 32 and fresh[-1] == 1.0
    counts = w3_faults(size=1000, repeat=1)
    assert sorted(counts) == ["backward", "by hand", "forward"]
    assert all(v >= 0 for v in counts.values())
