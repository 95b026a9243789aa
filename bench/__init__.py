"""Benchmarks of torchlight against PyTorch, hand-written NumPy and micrograd.

Run `python -m bench` (see `python -m bench --help`); the workloads are in
`bench.workloads`, one implementation per framework in `bench.peers`, the
round-robin timer in `bench.timing`, the tables in `bench.report`.
"""
