"""The benchmark stays runnable: torchlight agrees with the hand-written gradients.

PyTorch and micrograd are not test dependencies, so only torchlight and the
NumPy-by-hand reference run here, on the cheap workloads (about 1 s).
"""

from __future__ import annotations

import numpy as np
import pytest

from bench import report
from bench.peers import Env, numpy_hand, torchlight_peer
from bench.timing import Timing, agreement, round_robin
from bench.workloads import WORKLOADS


@pytest.mark.parametrize("key,scalar_engine", [("W1", False), ("W2", False), ("W4", True), ("W6", False)])
def test_torchlight_matches_hand_written_gradients(key: str, scalar_engine: bool) -> None:
    w = WORKLOADS[key]
    data = w.data()
    env = Env(xp=np)
    reference = numpy_hand.make(key, data, env).grads()
    got = torchlight_peer.make(key, data, env, scalar_engine=scalar_engine).grads()
    assert sorted(got) == sorted(reference)
    assert agreement(reference, got) <= w.tolerance


def test_agreement_sees_a_wrong_gradient() -> None:
    ref = {"x": np.array([1.0, 2.0])}
    assert agreement(ref, {"x": np.array([1.0, 2.0])}) == 0.0
    assert agreement(ref, {"x": np.array([1.0, 2.5])}) == pytest.approx(0.25)
    assert agreement(ref, {"x": np.array([1.0])}) == float("inf")


def test_ratios_are_taken_round_by_round_and_targets_judged() -> None:
    w = WORKLOADS["W6"]
    timings = {"torchlight": Timing([2.0, 6.0, 3.0]), "pytorch": Timing([1.0, 2.0, 3.0]),
               "numpy-by-hand": Timing([2.0, 5.0, 3.0])}
    s = report.summarize(w, timings, {}, {})
    assert s["ratios"]["torchlight/pytorch"] == {"median": 2.0, "min": 1.0, "max": 3.0}
    assert s["ratios"]["torchlight/numpy-by-hand"]["median"] == pytest.approx(1.0)
    assert [t["met"] for t in s["targets"]] == [True]
    assert "W6" in report.markdown({"command": "python -m bench"}, [s])


def test_round_robin_records_a_failing_case() -> None:
    from bench.peers import Case

    def boom() -> None:
        raise RecursionError("deep")

    out = round_robin({"ok": Case(lambda: None, dict), "bad": Case(boom, dict)}, reps=2, inner=1)
    assert len(out["ok"].seconds) == 2
    assert out["bad"].error.startswith("RecursionError")
