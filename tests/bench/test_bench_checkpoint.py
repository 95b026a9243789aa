"""`python -m bench.checkpoint` stays runnable: on tiny sizes it checks the checkpointed gradients
against the plain run's and prints a row for every way (no numbers asserted)."""

from __future__ import annotations

from bench import checkpoint as bench_checkpoint


def test_the_checkpoint_benchmark_runs_on_tiny_sizes(capsys):
    bench_checkpoint.main(["--quick", "--no-torch"])
    out = capsys.readouterr().out
    for way in ("plain", "each layer checkpointed", "checkpoint_sequential, 2 segments"):
        assert f"\n{way} " in out
    assert "held after forward" in out and "peak fwd+bwd" in out
