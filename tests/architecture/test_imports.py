"""The layer rule's other half: no module of torchlight imports one of its own inside a function.

`lint-imports` (in .ci/run) checks which layer may import which; an import
written inside a function is how a cycle used to be held open, so none may
remain. Imports of optional libraries (cupy, torch, jax, dask, safetensors,
matplotlib, ...) inside functions are what keeps `import torchlight` light,
and stay.
"""

from __future__ import annotations

import ast
import pathlib

import torchlight

ROOT = pathlib.Path(torchlight.__file__).parent


def own_imports_inside_functions(path: pathlib.Path) -> list[str]:
    """`file:line` of each `import torchlight...` / `from torchlight... import` inside a def."""
    tree = ast.parse(path.read_text())
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n == "torchlight" or n.startswith("torchlight.") for n in names):
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_module_imports_its_own_package_inside_a_function():
    found = [hit for path in sorted(ROOT.rglob("*.py")) for hit in own_imports_inside_functions(path)]
    assert found == [], f"function-local imports of torchlight modules (move them to the top): {found}"


def test_the_check_finds_a_function_local_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from torchlight.tensor import Tensor\n    import numpy\n")
    assert len(own_imports_inside_functions(sample)) == 1
