"""`python -m bench.einsum` stays runnable: on tiny shapes (two rounds, no timing asserted) it checks
torchlight's values against np.einsum and its gradients against PyTorch's, and prints every table; without
PyTorch it still runs its other peers."""

from __future__ import annotations

from bench import einsum as bench_einsum


def test_the_einsum_benchmark_runs_on_tiny_shapes(capsys):
    assert bench_einsum.main(["--quick", "--only", "E1,E3"]) == 0
    out = capsys.readouterr().out
    assert "E1:" in out and "E3:" in out and "E2:" not in out
    assert "forward (values vs np.einsum:" in out
    assert "torchlight left to right / torchlight" in out and "torchlight / NumPy optimize=True" in out


def test_the_einsum_benchmark_runs_without_pytorch():
    lines = bench_einsum.run_workload(bench_einsum.WORKLOADS[1], quick=True, torch=None)
    assert any("PyTorch not installed" in line for line in lines)
    assert not any(line.strip().startswith(bench_einsum.TORCH) for line in lines)
    assert any("flops: the path" in line for line in lines)
