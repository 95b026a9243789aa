"""Every (op, case) of the database as a test, on each backend and dtype tier; and tests of the database's layout.

The layout tests: every module of `conformance/ops/` is an area (one left
out of `AREAS` would lose its entries); every entry sits in the category
module of the Function it exercises (read off where the Function is defined); every Function exported by
`torchlight.autograd.functions` is exercised by an entry (or is exempt, with
the reason); every op of the hypothesis layer (`conformance/hypothesis.py`)
names an entry of the database (or says why it has none); and the docstring
examples of the table modules run.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import conformance.ops
from conformance import database
from conformance.checks import run_case
from conformance.ops import MODULES, category_of
from torchlight.autograd import Function
from torchlight.autograd import functions as F


def test_case(conformance_case, conformance_target):
    _, op, case, dtype = conformance_case
    result = run_case(op, case, conformance_target, dtype)
    if result.status == "skipped":
        pytest.skip(result.message)
    if result.status == "failed":
        pytest.fail(result.message, pytrace=False)


# ---------------------------------------------------------------- the layout
#: where an entry whose Functions name no category (or another one) belongs, and why
PLACED = {
    "__pos__": ("arithmetic", "unary plus has no Function: it returns the tensor"),
    "detach": ("copies", "no Function: a copy cut from the graph"),
    "float": ("copies", "AsType, or the tensor itself when it is float32 already (PyTorch's float)"),
    "double": ("copies", "AsType, or the tensor itself when it is float64 already (PyTorch's double)"),
    "half": ("copies", "AsType to float16, which has no gradient check (PyTorch's half)"),
    "argmax": ("reductions", "no Function (no gradient): a reduction by the plan"),
    "argmin": ("reductions", "no Function (no gradient): a reduction by the plan"),
    "split": ("shapes", "built on Gather (a piece is an index), a shape op by the plan"),
    "chunk": ("shapes", "built on Gather (a piece is an index), a shape op by the plan"),
    "to_device": ("array_api", "the standard's array method (a move, as `to`), beside the namespace"),
    **{name: ("writes", "a write: the binary op's Function (Add, ...) recorded, and the tensor moved to it")
       for name in ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__", "__imatmul__", "add_", "copy_",
                    "clamp_")},
    "diff": ("reductions", "built on Gather and Sub (slices differenced), a cumulative op by the plan"),
    "tl.diff": ("reductions", "built on Gather, Sub and Concat, a cumulative op by the plan"),
    "sort.indices": ("sorting", "sort's indices: no gradient"),
    "argsort": ("sorting", "no Function (no gradient): sort's indices"),
    "tl.argsort": ("sorting", "no Function (no gradient): sort's indices"),
    "unique_all.indices": ("sets", "no gradient: indices"),
    "unique_all.inverse_indices": ("sets", "no gradient: indices"),
    "unique_all.counts": ("sets", "no gradient: counts"),
    "unique_counts.counts": ("sets", "no gradient: counts"),
    "unique_inverse.inverse_indices": ("sets", "no gradient: indices"),
    "tl.unique.inverse": ("sets", "no gradient: indices"),
    "tl.unique.counts": ("sets", "no gradient: counts"),
    "positive": ("arithmetic", "no Function: it returns the tensor, as __pos__"),
    "tl.positive": ("arithmetic", "no Function: it returns the tensor, as __pos__"),
    "nextafter": ("elementwise", "no Function (no gradient, as PyTorch defines none)"),
    "tl.nextafter": ("elementwise", "no Function (no gradient, as PyTorch defines none)"),
    "matrix_rank": ("decompositions", "no Function (no gradient): an integer count of singular values"),
    **{name: ("linear_algebra", "built on Mul (and Sub, Stack): a linear-algebra function by the plan")
       for name in ("linalg.cross", "xp.linalg.cross", "tl.outer", "xp.linalg.outer")},
    **{name: ("norms", "composed of Abs, Sum, Max/Min, Norm and svdvals: a norm by the plan")
       for name in ("linalg.matrix_norm", "xp.linalg.matrix_norm", "linalg.norm")},
    "tl.fft.fftfreq": ("fft", "no Function (no gradient): a constant made as a factory makes it"),
    "tl.fft.rfftfreq": ("fft", "no Function (no gradient): a constant made as a factory makes it"),
    "tl.einsum": ("einsum", "no Function of its own: pairwise MatMuls, Permute, Reshape, Gather and Sum"),
}

#: the areas of ops with no Function (no gradient: booleans, integers); their entries name none
NO_FUNCTION_AREAS = {"comparisons", "logical", "bitwise", "searching"}

#: areas of functions built on the ops of other categories (the array API namespace): their entries name the
#: Functions they are built on, wherever those live
NAMESPACE_AREAS = {"array_api"}

#: areas of functions built only on the Functions of other categories, with no Function of their own (einsum:
#: MatMul, Permute, Reshape, Gather, Sum); their entries are PLACED by name
COMPOSED_AREAS = {"einsum"}

#: Functions of torchlight.autograd.functions that no entry exercises, and why (none today)
EXEMPT: dict[str, str] = {}


def test_every_module_of_conformance_ops_is_an_area():
    found = {m.name for m in pkgutil.iter_modules(conformance.ops.__path__)} - {"common"}
    assert found == set(MODULES), f"in conformance/ops/ but not an area: {sorted(found - set(MODULES))}"
    assert database.AREAS == tuple(f"conformance.ops.{m}" for m in MODULES)
    assert set(MODULES) == ({category_of(name) for name in exported_functions()} | NO_FUNCTION_AREAS
                            | NAMESPACE_AREAS | COMPOSED_AREAS)


def categories(op) -> set[str]:
    return {"nn" if f.startswith("nn.functional.") else category_of(f) for f in op.functions()}


@pytest.mark.parametrize("module", MODULES)
def test_every_entry_sits_in_the_category_of_its_function(module):
    misplaced = []
    for op in importlib.import_module(f"conformance.ops.{module}").OPS:
        if op.name in PLACED:
            ok = PLACED[op.name][0] == module
        elif module in NAMESPACE_AREAS:
            ok = op.name.startswith("xp.") and all(categories(op))
        elif not op.functions():
            ok = module in NO_FUNCTION_AREAS and not op.differentiable
        else:
            ok = module in categories(op)
        if not ok:
            misplaced.append(f"{op.name} ({', '.join(op.functions()) or 'no Function'})")
    assert not misplaced, f"conformance/ops/{module}.py holds entries of other categories: {misplaced}"


def exported_functions() -> dict[str, type]:
    """The Function classes `torchlight.autograd.functions` exports: defined there, or (after the re-layering)
    in a `torchlight.ops.<category>` / `torchlight.nn.ops` module and re-exported there."""
    return {name: obj for name, obj in inspect.getmembers(F, inspect.isclass)
            if issubclass(obj, Function) and obj is not Function and not name.startswith("_")
            and obj.__module__.startswith("torchlight.")}


def test_every_function_has_an_entry():
    functions = exported_functions()
    assert len(functions) > 50, sorted(functions)
    covered = {f for op in database.all_ops() for f in op.functions()}
    missing = sorted(set(functions) - covered - set(EXEMPT))
    assert not missing, f"Functions without a conformance entry (add one to conformance/ops/<category>.py): {missing}"
    stale = sorted(name for name in EXEMPT if name not in functions or name in covered)
    assert not stale, f"exempt but gone or covered by an entry now (drop them from EXEMPT): {stale}"


def test_every_hypothesis_op_names_its_database_entry():
    pytest.importorskip("hypothesis")
    from conformance.hypothesis import NO_ENTRY, OPS

    names = {op.name for op in database.all_ops()}
    unknown = sorted(f"{op.name} -> {op.entry}" for op in OPS if op.entry is not None and op.entry not in names)
    assert not unknown, f"conformance/hypothesis.py names entries the database does not hold: {unknown}"
    assert {op.name for op in OPS if op.entry is None} == set(NO_ENTRY), "an op without an entry needs a reason"
    assert all(NO_ENTRY.values())


@pytest.mark.parametrize("name", ["conformance", "conformance.database", "conformance.opinfo",
                                  "conformance.domains", "conformance.ops", "conformance.ops.common",
                                  *(f"conformance.ops.{m}" for m in MODULES), "conformance.hypothesis"])
def test_docstring_examples_of_the_table(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0
