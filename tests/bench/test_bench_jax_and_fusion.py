"""The bench's JAX peer and its fused and unfused compiled rows (bench/peers/jax_peer.py,
bench/peers/compiled_peer.py), and how the report shows them.

JAX and numba are not test dependencies: what needs one skips without it.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from bench import __main__ as bench_main
from bench import report
from bench.peers import Env, compiled_peer, numpy_hand
from bench.timing import Timing, agreement
from bench.workloads import JAX, NUMPY, TL_COMPILED, TL_UNFUSED, TORCH, TORCH_COMPILED, WORKLOADS
from torchlight.compile import fusion


@pytest.fixture
def jax_x64():
    """JAX, with its x64 flag put back after the test (the peer switches it on)."""
    jax = pytest.importorskip("jax", reason="jax is not installed: the bench reports its row as not installed")
    before = jax.config.jax_enable_x64
    yield jax
    jax.config.update("jax_enable_x64", before)


def small(key: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    if key == "W3":
        return {k: rng.standard_normal(1000, dtype=np.float32) for k in ("x", "w")}
    if key == "W6":
        return {"a": rng.standard_normal((4, 16, 16)), "b": rng.standard_normal((4, 16, 16)) / 4.0}
    return WORKLOADS[key].data()


@pytest.mark.parametrize("key", ["W1", "W2", "W3", "W6"])
def test_jax_jit_matches_hand_written_gradients(key: str, jax_x64) -> None:
    from bench.peers import jax_peer

    data = small(key)
    reference = numpy_hand.make(key, data, Env()).grads()
    case = jax_peer.make(key, data, Env())
    case.run()
    got = case.grads()
    assert sorted(got) == sorted(reference)
    assert agreement(reference, got) <= WORKLOADS[key].tolerance


def test_a_missing_jax_is_reported_not_installed(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # (an import of it then raises ImportError)
    peers = bench_main.load_peers((JAX,), 1)
    assert peers[JAX].startswith("not installed (pip install jax")


def test_the_unfused_row_replays_a_program_without_kernels() -> None:
    pytest.importorskip("numba", reason="numba is not installed: nothing is fused, and the row says so")
    rng = np.random.default_rng(4)
    data = {k: rng.standard_normal(fusion.MIN_ELEMENTS + 10, dtype=np.float32) for k in ("x", "w")}
    env = Env()
    reference = numpy_hand.make("W3", data, env).grads()
    fused, unfused = compiled_peer.make("W3", data, env), compiled_peer.make_unfused("W3", data, env)
    for case in (fused, unfused):
        assert agreement(reference, case.grads()) <= WORKLOADS["W3"].tolerance
    def kernels(fused: bool) -> int:  # (in every program recorded, other tests' smaller ones too)
        programs = [p for ps in compiled_peer.compiled("W3", "numpy", fused).programs.values() for p in ps]
        return max(sum(fusion.fused_steps(s) for s in (p.infer, p.train, p.backward, p.backward_one))
                   for p in programs)

    assert kernels(True) > 0 and kernels(False) == 0
    assert fusion.ENABLED  # (put back after the unfused recording)


def test_without_a_kernel_library_the_unfused_row_says_why(monkeypatch) -> None:
    monkeypatch.setattr(fusion, "NUMPY_KERNELS", ())
    with pytest.raises(RuntimeError, match="pip install numba"):
        compiled_peer.make_unfused("W3", small("W3"), Env())


def test_the_report_shows_jax_and_the_unfused_row() -> None:
    w = WORKLOADS["W3"]
    timings = {TL_COMPILED: Timing([2.0, 2.0]), TL_UNFUSED: Timing([3.0, 3.0]), TORCH: Timing([4.0, 4.0]),
               NUMPY: Timing([4.0, 4.0]), JAX: Timing([1.0, 1.0])}
    s = report.summarize(w, timings, {}, {})
    text = report.text_table(s)
    assert f"{TL_COMPILED}/{JAX} = 2.00x" in text and f"{TL_COMPILED}/{TL_UNFUSED} = 0.67x" in text
    assert f"MET  time {TL_COMPILED}/{NUMPY} = 0.50x (target <= 0.55x)" in text
    md = report.markdown({"command": "python -m bench"}, [s])
    row = next(line for line in md.splitlines() if line.startswith("| W3 "))
    assert f"{JAX}: 1000" in row and f"{TL_UNFUSED}: 3000" in row
    assert "jax.jit(jax.grad(loss))" in md and "fused kernels off" in md


def test_scale_sizes_the_big_workloads_and_torch_compile_is_asked_for(monkeypatch) -> None:
    """`--scale` (the GPU check's 100: W3 at 4e8 elements) multiplies W2's batch, W3's length and W6's
    batch; torch.compile runs only with `--torch-compile`."""
    from bench import workloads

    args = bench_main.parse(["--scale", "3", "--only", "W3"])
    assert args.scale == 3 and not args.torch_compile
    monkeypatch.setattr(workloads, "SCALE", 3)
    assert workloads.w3_data()["x"].shape == (12_000_000,) and workloads.w2_data()["X"].shape == (768, 784)
    assert workloads.w6_data()["a"].shape == (96, 128, 128)
    assert bench_main.parse(["--torch-compile"]).torch_compile
    seen = []
    monkeypatch.setattr(bench_main, "load_peers", lambda names, threads: seen.append(names) or {})
    with pytest.raises(KeyError):  # (no peers, so no reference: the run stops at once, after asking for them)
        bench_main.run_workload(WORKLOADS["W6"], bench_main.parse([]), Env())
    assert TORCH_COMPILED not in seen[0] and TORCH in seen[0]
