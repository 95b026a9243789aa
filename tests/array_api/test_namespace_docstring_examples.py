"""Every public function of the array API namespace (`torchlight.array_api` and its `linalg`, `fft`
and `special`) has a docstring example, and the examples run and print what they say.

doctest finds a function in the module whose `__dict__` holds it and whose globals are that module's,
so each module is tested where its functions are defined (`xp.sin` in `_elementwise`, not in the
package's `__init__`); the count of examples run is checked against the public functions' own."""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import torchlight.array_api as xp

_elementwise = importlib.import_module("torchlight.array_api._elementwise")  # (xp._elementwise is a list of names)

NAMESPACES = (xp, xp.linalg, xp.fft, xp.special)


def public_functions() -> dict[str, list[object]]:
    """The public functions and classes of the namespaces, by the module that defines them."""
    found: dict[str, list[object]] = {}
    for namespace in NAMESPACES:
        for name in namespace.__all__:
            obj = getattr(namespace, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                objects = found.setdefault(obj.__module__, [])
                if not any(obj is seen for seen in objects):
                    objects.append(obj)
    return found


PUBLIC = public_functions()


def test_the_package_docstring_example_runs() -> None:
    # (its globals are the namespace's: `round`, `abs`, `max`, ... are the standard's functions there)
    result = doctest.testmod(xp, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0 and result.attempted >= 6


def test_every_module_of_the_namespace_is_covered() -> None:
    assert {"torchlight.array_api._elementwise", "torchlight.array_api._creation", "torchlight.array_api.fft",
            "torchlight.array_api.special", "torchlight.array_api.linalg"} <= set(PUBLIC)
    assert sum(len(objects) for objects in PUBLIC.values()) >= 189  # each function once (digamma is psi)


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_each_public_function_has_an_example_that_runs(module_name: str) -> None:
    module = importlib.import_module(module_name)
    tests = {test.name: test for test in doctest.DocTestFinder().find(module) if test.examples}
    missing = [obj.__name__ for obj in PUBLIC[module_name] if f"{module_name}.{obj.__name__}" not in tests]
    assert not missing, f"{module_name}: no docstring example in {missing}"
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0
    assert result.attempted == sum(len(test.examples) for test in tests.values())
    own = sum(len(tests[f"{module_name}.{obj.__name__}"].examples) for obj in PUBLIC[module_name])
    assert result.attempted >= own >= 2 * len(PUBLIC[module_name])  # an import line and a call, at least


def test_each_elementwise_example_calls_its_own_function_on_its_own_input() -> None:
    generated = set(_elementwise.__all__) - {"clip", "real", "imag"}  # (the three written out by hand)
    assert set(_elementwise._DOCS) == generated
    calls = [call for _, call, _ in _elementwise._DOCS.values()]
    assert len(set(calls)) == len(calls)
    for name in generated:
        doc = getattr(xp, name).__doc__
        summary = doc.splitlines()[0]
        assert summary.endswith(".") and "`x" in summary, summary  # one line, naming the Tensor spelling
        assert f"xp.{name}(" in _elementwise._DOCS[name][1], name


def test_the_inspection_namespace_and_each_of_its_methods_have_an_example_that_runs() -> None:
    # `Info` names the package as its module (as users see it), so doctest skips it in `_info`: found here
    info_module = importlib.import_module("torchlight.array_api._info")
    tests = doctest.DocTestFinder().find(info_module.Info, "Info", module=info_module)
    methods = {name for name, member in vars(info_module.Info).items() if inspect.isfunction(member)}
    assert {test.name for test in tests if test.examples} == {"Info", *(f"Info.{name}" for name in methods)}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted == sum(len(test.examples) for test in tests) >= 6 * 3

