"""The site's API reference covers the public surface: every public name of every public module has a
docstring with a runnable example and an entry on a page of docs/api/, every entry names a public
thing, and every page is in the site's navigation.

A public module is torchlight or one reached from it through `__all__`; its public names are its
`__all__`. The pages list their entries by hand, grouped for a reader (`::: torchlight.nn.Linear`
lines, read by mkdocstrings from the docstrings at build time); data (dtypes, constants) are named in a
table. A module whose names are all documented under another path (`torchlight.nn.modules`) needs no
page of its own.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import torchlight as tl
from torchlight.scalar.value import ScalarFunction

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api"
DIRECTIVE = re.compile(r"^::: ([\w.]+)\s*$", re.MULTILINE)


def page_of(module: str) -> Path:
    """docs/api/torchlight.md for the top level, docs/api/nn.functional.md for torchlight.nn.functional."""
    return API / f"{module.removeprefix('torchlight.') if module != 'torchlight' else 'torchlight'}.md"


def public_modules() -> dict[str, ModuleType]:
    """torchlight, every module reached from it through `__all__`, and every module with a page (an
    extension outside the standard's namespace, `torchlight.array_api.special`), by name."""
    found: dict[str, ModuleType] = {}
    todo = [tl, *(importlib.import_module(f"torchlight.{p.stem}") for p in API.glob("*.md")
                  if p.stem not in ("torchlight", "tensor", "index"))]
    while todo:
        module = todo.pop()
        if module.__name__ in found:
            continue
        found[module.__name__] = module
        todo += [value for name in getattr(module, "__all__", ()) if inspect.ismodule(value := getattr(module, name))]
    return found


MODULES = public_modules()
PAGED = sorted(name for name in MODULES if page_of(name).exists())


def public_names(module: ModuleType) -> list[str]:
    return [name for name in module.__all__ if not inspect.ismodule(getattr(module, name))]


def is_documented_code(value: Any) -> bool:
    """Functions, classes and the scalar engine's functions carry docstrings; dtypes and numbers do not."""
    return inspect.isfunction(value) or inspect.isclass(value) or isinstance(value, ScalarFunction)


def entries() -> dict[str, Path]:
    """Every `::: dotted.name` line of the API pages, with its page."""
    return {name: page for page in sorted(API.glob("*.md")) for name in DIRECTIVE.findall(page.read_text())}


def defined_at(value: Any) -> str:
    """Where a function or class is defined (`torchlight.scalar.value.value`): an entry may name that
    path where the public one is ambiguous (the function `torchlight.scalar.value` and the module)."""
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"


def resolve(dotted: str) -> Any:
    """The public object an entry names, by its public path or where it is defined (None: nothing public)."""
    module, _, attribute = dotted.rpartition(".")
    if module in MODULES and attribute in getattr(MODULES[module], "__all__", ()):
        return getattr(MODULES[module], attribute)
    for m in MODULES.values():
        for n in public_names(m):
            if defined_at(getattr(m, n)) == dotted:
                return getattr(m, n)
    return None


def test_the_public_modules_are_found():
    assert {"torchlight", "torchlight.nn", "torchlight.nn.functional", "torchlight.array_api", "torchlight.linalg",
            "torchlight.fft", "torchlight.special", "torchlight.optim.lr_scheduler", "torchlight.utils.data",
            "torchlight.func", "torchlight.scalar", "torchlight.backends", "torchlight.autograd"} <= set(MODULES)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_public_module_has_a_page_or_only_names_documented_elsewhere(name):
    if name in PAGED:
        return
    documented = {id(resolve(dotted)) for dotted in entries()}
    documented |= {id(getattr(MODULES[m], n)) for m in PAGED for n in public_names(MODULES[m])}
    missing = [n for n in public_names(MODULES[name]) if id(getattr(MODULES[name], n)) not in documented]
    assert not missing, f"{name} has no page ({page_of(name).relative_to(ROOT)}) and these are on none: {missing}"


@pytest.mark.parametrize("name", PAGED)
def test_every_public_name_has_an_entry(name):
    module, listed = MODULES[name], entries()
    text = page_of(name).read_text()
    shown = {id(resolve(dotted)) for dotted in listed}
    missing = []
    for n in public_names(module):
        if is_documented_code(value := getattr(module, n)):
            # an alias (`torchlight.scalar.value` is `variable`) is named on the page beside its entry
            alias = id(value) in shown and f"`{name}.{n}`" in text
            if f"{name}.{n}" not in listed and defined_at(value) not in listed and not alias:
                missing.append(n)
        elif f"`{name}.{n}`" not in text:
            missing.append(n)
    assert not missing, f"{page_of(name).relative_to(ROOT)} lacks an entry for {missing}"


@pytest.mark.parametrize("page", sorted({p.name for p in entries().values()}))
def test_every_entry_has_a_docstring_with_an_example(page):
    values = {dotted: resolve(dotted) for dotted, where in entries().items() if where.name == page}
    values = {dotted: value for dotted, value in values.items() if value is not None}
    undocumented = [n for n, v in values.items() if not (v.__doc__ or "").strip()]
    assert not undocumented, f"{page}: no docstring for {undocumented}"
    without_example = [n for n, v in values.items() if ">>>" not in (v.__doc__ or "")]
    assert not without_example, f"{page}: no example in the docstring of {without_example}"


@pytest.mark.parametrize("page", sorted({p.name for p in entries().values()}))
def test_every_entrys_example_runs_and_prints_what_it_says(page, registry_restored):
    # the example on the page is the docstring's own: run it here, whichever module's tests also do
    parser, failures, attempted = doctest.DocTestParser(), [], 0
    for dotted, where in entries().items():
        value = resolve(dotted)
        if where.name != page or value is None or ">>>" not in (value.__doc__ or ""):
            continue
        # the globals doctest.testmod would give it: its defining module's
        defining = importlib.import_module(getattr(value, "__module__", None) or dotted.rpartition(".")[0])
        test = parser.get_doctest(value.__doc__, dict(vars(defining)), dotted, None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        result = runner.run(test, out=lambda text: None)
        attempted += result.attempted
        if result.failed:
            failures.append(dotted)
    assert not failures, f"{page}: the examples of {failures} fail (run them with doctest to see how)"
    assert attempted > 0


def test_every_entry_names_a_public_thing():
    wrong = [f"{dotted} ({page.name})" for dotted, page in entries().items() if resolve(dotted) is None]
    assert not wrong, f"entries that are not a public name of a public module: {wrong}"


def test_no_entry_is_also_a_module_path():
    # `::: torchlight.tensor` would render the module torchlight.tensor, not the function tl.tensor:
    # such an entry names the function where it is defined (`::: torchlight.creation.tensor`)
    clashes = []
    for dotted, page in entries().items():
        try:
            spec = importlib.util.find_spec(dotted)
        except (ImportError, AttributeError, ValueError):
            spec = None
        if spec is not None and not inspect.ismodule(resolve(dotted)):
            clashes.append(f"{dotted} ({page.name}): write ::: {defined_at(resolve(dotted))}")
    assert not clashes, f"entries that mkdocstrings would read as a module: {clashes}"


def test_every_page_is_in_the_navigation():
    yaml = pytest.importorskip("yaml", reason="PyYAML reads mkdocs.yml (it comes with dask and mkdocs)")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def paths(nav: Any) -> list[str]:
        if isinstance(nav, str):
            return [nav]
        if isinstance(nav, dict):
            return [p for value in nav.values() for p in paths(value)]
        return [p for item in nav for p in paths(item)]

    in_nav = set(paths(config["nav"]))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert not pages - in_nav, f"pages missing from mkdocs.yml's nav: {sorted(pages - in_nav)}"
    assert not in_nav - pages, f"nav entries with no page: {sorted(in_nav - pages)}"
