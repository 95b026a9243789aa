"""The docstring examples of the modules that no other test runs, and of the scalar functions (objects,
not functions, so `doctest.testmod` does not see them); and every public name of scalar, special, nn,
nn.functional, nn.init, nn.utils, optim, lr_scheduler, func, linalg and utils has an example to run
(and so do tl.erfc, tl.erfinv, tl.logit and tl.sinc).

The other modules' examples run beside their layer: tests/nn/test_modules.py (nn, nn.functional,
nn.init, optim), tests/nn/test_loss_and_conv_options.py (nn.loss), tests/optim/test_lr_schedulers.py
and tests/docs/test_doc_examples.py (special, linalg, the ops modules that define linalg's results).
"""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import torchlight as tl
from torchlight import scalar

NOT_RUN_ELSEWHERE = [
    "torchlight.scalar", "torchlight.scalar.value",
    "torchlight.func", "torchlight.func._functional_call", "torchlight.func._pytree",
    "torchlight.func._transforms", "torchlight.func._vmap", "torchlight.func._batching",
    "torchlight.nn.attention", "torchlight.nn.recurrent", "torchlight.nn.hooks",
    "torchlight.nn.utils", "torchlight.nn.utils.clip_grad", "torchlight.nn.utils.convert_parameters",
    "torchlight.utils", "torchlight.utils.checkpoint", "torchlight.utils.data", "torchlight.utils.data.collate",
    "torchlight.utils.data.dataloader", "torchlight.utils.data.dataset", "torchlight.utils.data.sampler",
]

PUBLIC_MODULES = [
    "torchlight.scalar", "torchlight.special", "torchlight.nn", "torchlight.nn.functional", "torchlight.nn.init",
    "torchlight.nn.utils", "torchlight.optim", "torchlight.optim.lr_scheduler", "torchlight.func",
    "torchlight.linalg", "torchlight.utils.data", "torchlight.utils.checkpoint",
]


@pytest.mark.parametrize("name", NOT_RUN_ELSEWHERE)
def test_docstring_examples_of_the_modules_no_other_test_runs(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


SCALAR_FUNCTIONS = sorted(n for n in scalar.__all__ if isinstance(getattr(scalar, n), scalar.ScalarFunction))


@pytest.mark.parametrize("name", SCALAR_FUNCTIONS)
def test_each_scalar_function_runs_its_own_example(name):
    fn = getattr(scalar, name)
    assert fn.__doc__ is not type(fn).__doc__, f"scalar.{name} shows ScalarFunction's docstring, not its own"
    tests = doctest.DocTestFinder().find(fn, f"torchlight.scalar.{name}", module=False, globs={})
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def _public_objects(module_name):
    module = importlib.import_module(module_name)
    for name in module.__all__:
        obj = getattr(module, name)
        if not inspect.ismodule(obj):
            yield name, obj


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_name_has_a_docstring_with_an_example(module_name):
    missing = [name for name, obj in _public_objects(module_name) if ">>>" not in (obj.__doc__ or "")]
    assert missing == [], f"{module_name}: no docstring example for {missing}"


@pytest.mark.parametrize("name", ["erfc", "erfinv", "logit", "sinc"])
def test_the_top_level_special_functions_have_their_own_examples(name):
    # tl.erfc and the others are torchlight.array_functions' functions (doctested with the core), not
    # the torchlight.special objects of the same names
    top, special = getattr(tl, name), getattr(tl.special, name)
    assert top is not special and f"tl.{name}(" in top.__doc__ and f"tl.special.{name}(" in special.__doc__



@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_docstring_opens_with_a_one_line_summary(module_name):
    # (what the API reference and `help` show first; digamma's docstring is its op's, in torchlight.ops)
    long = [name for name, obj in _public_objects(module_name) if name not in ("digamma", "psi")
            and len(lines := inspect.cleandoc(obj.__doc__ or "").splitlines()) > 1 and lines[1].strip()]
    assert long == [], f"{module_name}: the summary runs on past the first line in {long}"
