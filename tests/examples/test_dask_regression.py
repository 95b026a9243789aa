"""A short run of examples/dask_regression.py: the lazy fit's losses are NumPy's, and an unreachable
scheduler fails fast with its address named."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from example_modules import load_example

pytest.importorskip("dask.array", reason="the example runs on Dask (pip install 'dask[array]')")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "dask_regression.py"


def test_the_lazy_fit_on_threads_gives_numpys_losses(capsys):
    example = load_example(EXAMPLE)
    args = ["--rows", "2000", "--features", "5", "--chunk-rows", "500", "--steps", "2"]
    lazy = example.main(args)
    eager = example.main([*args, "--backend", "numpy", "--no-progress"])
    printed = capsys.readouterr()
    out = printed.out
    assert "\r" not in printed.err and "step/s" not in printed.err  # no bar drawn into what is not a terminal
    assert "on Dask's threads" in out and "on NumPy" in out and out.count("peak RSS: client") == 2
    assert len(lazy["losses"]) == 2 and lazy["losses"][1] < lazy["losses"][0] / 2
    np.testing.assert_allclose(lazy["losses"], eager["losses"], rtol=1e-12)
    np.testing.assert_allclose(lazy["w"], eager["w"], rtol=1e-12)
    # the first loss is the data's, checked from outside: X generated again, and w = 0
    X, y, w_true = example.design(2000, 5, 500)
    assert lazy["losses"][0] == pytest.approx(float((y ** 2).mean().compute()) / 2, rel=1e-12)


def test_an_unreachable_scheduler_fails_fast_naming_its_address(capsys):
    pytest.importorskip("distributed", reason="--scheduler needs `distributed` (pip install 'torchlight[dask]')")
    example = load_example(EXAMPLE)
    address = "tcp://127.0.0.1:9"  # the discard port: nothing listens there
    start = time.monotonic()
    with pytest.raises(SystemExit) as exit_:
        example.main(["--scheduler", address, "--timeout", "2", "--rows", "1000", "--no-progress"])
    assert time.monotonic() - start < 20
    # SystemExit with a message: Python prints it to stderr, no traceback, and exits with status 1
    message = exit_.value.code
    assert isinstance(message, str) and message.startswith(f"error: cannot reach the Dask scheduler at {address} "
                                                           "within 2 s")
    assert exit_.value.__suppress_context__ and exit_.value.__cause__ is None
