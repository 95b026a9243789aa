"""PyTorch's "Learning PyTorch with Examples" (the tensor, autograd, nn and optim versions), each
with only `import torch` changed to `import torchlight as torch` (examples/learning_pytorch/): each
runs and fits the cubic (the loss falls, the result is printed)."""

from __future__ import annotations

import contextlib
import io
import runpy
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[2] / "examples" / "learning_pytorch").glob("*_version.py"))


def test_the_four_versions_are_there():
    assert [s.stem for s in SCRIPTS] == ["autograd_version", "nn_version", "optim_version", "tensor_version"]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_a_version_runs_with_only_its_import_changed(script):
    lines = script.read_text().splitlines()
    assert "import torchlight as torch" in lines and not any(line.startswith("import torch\n") for line in lines)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(script), run_name="__main__")
    printed = out.getvalue().splitlines()
    losses = [float(line.split()[1]) for line in printed if line[:1].isdigit()]
    assert len(losses) == 20 and losses[-1] < losses[0], printed[:3]
    assert printed[-1].startswith("Result: y = ")
