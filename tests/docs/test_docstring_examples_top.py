"""The docstring examples of the top-level face (`torchlight`'s free functions, factories, grad mode,
checkpoints, errors), of `torchlight.autograd` and of `torchlight.backends` run and print what they say.

Each module is run as `doctest.testmod` runs it (the functions and classes whose `__module__` is that
module), so the torch-style free functions that `torchlight.torch_functions` makes at import are
counted too: every public name of those modules must bring at least one example of its own.
"""

from __future__ import annotations

import doctest
import importlib

import pytest

from torchlight.backends import dtypes

# the modules whose public names `torchlight`, `torchlight.autograd` and `torchlight.backends` export
MODULES = [
    "torchlight", "torchlight.torch_functions", "torchlight.creation", "torchlight.grad_mode",
    "torchlight.serialization", "torchlight.tensor", "torchlight.backends", "torchlight.backends.base",
    "torchlight.backends.dtypes", "torchlight.backends.errors", "torchlight.engine.function",
    "torchlight.engine.variable", "torchlight.engine.graph", "torchlight.engine.anomaly",
    "torchlight.autograd.gradcheck", "torchlight.autograd.functional",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, registry_restored):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


def _examples_by_name(module) -> dict[str, int]:
    """Each docstring doctest finds in `module`, by its object's name: the number of its examples."""
    found = doctest.DocTestFinder().find(module)
    return {test.name.removeprefix(module.__name__ + "."): len(test.examples) for test in found}


@pytest.mark.parametrize("public", ["torchlight", "torchlight.autograd", "torchlight.backends"])
def test_every_public_function_and_class_has_an_example_that_runs(public):
    """Each function or class in `public.__all__` has examples where it is defined, and doctest,
    run on that module, finds them (a generated function counts once its `__module__` says where)."""
    module = importlib.import_module(public)
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        if not callable(obj) or isinstance(obj, dtypes.DType):
            continue
        home = importlib.import_module(obj.__module__)
        if home.__name__ == "torchlight.array_functions" and name in {"erfc", "erfinv", "logit", "sinc"}:
            continue  # (torchlight.special's four, documented there: that module's examples are its own)
        if _examples_by_name(home).get(obj.__qualname__, 0) == 0:
            missing.append(f"{name} ({obj.__module__})")
    assert not missing, f"{public}: no example doctest runs for {missing}"
