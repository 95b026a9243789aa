"""Each "Coming from" page's ported program computes what the program it ports computes.

A page of docs/coming-from/ holds the original program in a block titled
`<library> (the original)` (plain code) and its port in a block titled
`torchlight (the port)` (a doctest, which tests/docs/test_markdown_examples.py
runs too). This test reads both blocks from the page, so that page and test
cannot drift, runs the original in its own library and the port in
torchlight, and compares the results both define: values and gradients, to
float64 rounding.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

PAGES = Path(__file__).resolve().parents[2] / "docs" / "coming-from"
BLOCK = re.compile(r'^```python title="([^"]+)"\n(.*?)^```', re.MULTILINE | re.DOTALL)

# page, the library its original needs (None: NumPy, always there), the names both programs define
PORTS = [
    pytest.param("pytorch.md", "torch", ("losses", "test_loss", "weights", "grads"), id="pytorch"),
    pytest.param("numpy.md", None, ("losses", "W", "b", "dW", "db"), id="numpy"),
    pytest.param("jax.md", "jax", ("value", "grads", "per_example", "tangent", "params", "final"), id="jax"),
    pytest.param("hips-autograd.md", "autograd",
                 ("slope", "curvature", "slopes", "curvatures", "weights", "trained_loss", "H"), id="hips-autograd"),
]


def _blocks(page: str) -> tuple[str, str]:
    """The page's original program and its port (the doctest's text)."""
    found = {title: code for title, code in BLOCK.findall((PAGES / page).read_text())}
    originals = [code for title, code in found.items() if title.endswith("(the original)")]
    assert len(originals) == 1, f"{page}: expected one block titled '... (the original)', found {len(originals)}"
    assert "torchlight (the port)" in found, f"{page}: no block titled 'torchlight (the port)'"
    return originals[0], found["torchlight (the port)"]


def _run_port(page: str, text: str) -> dict[str, Any]:
    """Run the port as the doctest it is on the page; its expected output is checked too."""
    test = doctest.DocTestParser().get_doctest(text, {}, page, str(PAGES / page), 0)
    assert test.examples, f"{page}: the port block holds no >>> examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, clear_globs=False)
    assert runner.failures == 0, f"{page}: {runner.failures} examples of the port failed (the report is above)"
    return test.globs


def _numpy(value: Any) -> Any:
    """A result as NumPy: a torch, JAX or torchlight array, a float, or a list or dict of them."""
    if isinstance(value, dict):
        return {key: _numpy(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return np.asarray([_numpy(v) for v in value])
    if hasattr(value, "detach"):  # a torch or torchlight tensor
        value = value.detach().numpy()
    return np.asarray(value)


def _assert_agree(name: str, theirs: Any, ours: Any) -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), f"{name}: keys {list(ours)} != {list(theirs)}"
        for key in theirs:
            _assert_agree(f"{name}[{key!r}]", theirs[key], ours[key])
        return
    assert ours.shape == theirs.shape, f"{name}: shape {ours.shape} != {theirs.shape}"
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize(("page", "library", "names"), PORTS)
def test_port_agrees_with_the_original(page: str, library: str | None, names: tuple[str, ...]) -> None:
    if library is not None:
        pytest.importorskip(library, reason=f"{library} is not installed: the original program of "
                                            f"docs/coming-from/{page} runs in it (pip install {library})")
    original, port = _blocks(page)
    theirs: dict[str, Any] = {}
    if library == "jax":
        import jax  # the original turns on float64 for itself: put JAX's setting back afterwards

        x64 = jax.config.read("jax_enable_x64")
        try:
            exec(compile(original, f"{page} (the original)", "exec"), theirs)
        finally:
            jax.config.update("jax_enable_x64", x64)
    else:
        exec(compile(original, f"{page} (the original)", "exec"), theirs)
    ours = _run_port(page, port)
    for name in names:
        assert name in theirs and name in ours, f"{page}: {name!r} is not defined by both programs"
        _assert_agree(name, _numpy(theirs[name]), _numpy(ours[name]))


@pytest.mark.parametrize(("page", "library", "names"), PORTS)
def test_port_does_not_use_the_original_library(page: str, library: str | None, names: tuple[str, ...]) -> None:
    """A port that still imported the library it ports from would prove nothing."""
    _, port = _blocks(page)
    imports = re.findall(r"^(?:>>> )?(?:import|from) ([\w.]+)", port, re.MULTILINE)
    assert "torchlight" in {module.split(".")[0] for module in imports}, f"{page}: the port does not import torchlight"
    if library is not None:
        assert library not in {module.split(".")[0] for module in imports}, f"{page}: the port imports {library}"
