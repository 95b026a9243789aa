"""The entries of the op database, one module per op category of the library (torchlight/ops/<category>.py).

Each category module holds an `OPS` list of `OpInfo`s: an entry lives in the
category of the Function its `function=` field names (the first that has a
category), a Tensor method with no Function of its own with the Function it
is built on (`mean` in reductions, `squeeze` in shapes). `common` holds the
case tables and entry builders the categories share (`UNARY`, `BINARY`,
`unary`, `binary`, `binary_errors`, ...). `category_of` reads a Function's
category off the module that defines it; `conformance.database.AREAS` lists
the modules, and `conformance/test_database.py` checks that every entry sits
in its Function's category and that no module is left out.

Example:
    >>> from conformance.ops import category_of, elementwise
    >>> category_of("Exp"), [op.name for op in elementwise.OPS if op.function == "Exp"]
    ('elementwise', ['exp'])
"""

from __future__ import annotations

#: the category modules, in database order (`nn`: the torchlight.nn.functional entries; `array_api`: the
#: namespace functions that are more than a wrapper of one op, torchlight.array_api)
MODULES = ("arithmetic", "linear_algebra", "elementwise", "activations", "trigonometric", "reductions", "shapes",
           "indexing", "copies", "scalar_map", "comparisons", "logical", "bitwise", "writes", "complex_numbers",
           "sorting", "searching", "sets", "decompositions", "norms", "fft", "einsum", "special",
           "special_gamma", "nn", "array_api")



def category_of(function: str) -> str:
    """The category of the built-in Function called `function`: the `torchlight.ops` module it is
    defined in (`nn` for `torchlight.nn.ops`), read from the code, so no list here can go stale."""
    from torchlight.autograd import functions

    module = getattr(functions, function).__module__
    return "nn" if module == "torchlight.nn.ops" else module.rpartition(".")[2]
