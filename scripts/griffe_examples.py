"""A griffe extension for the documentation site (mkdocs.yml), two fixes to what griffe reads from the
imported objects:

- torchlight's docstrings head their doctest with "Example:" (the project's convention since the first
  module); Google style reads only "Examples:" as code, and would render the `>>>` lines as Markdown
  text. Renamed here, at load time, so the sources keep one convention and the site shows every
  example as a code block.
- An attribute whose value is a plain object (`retains_grad = True`) would show its type's docstring
  ("bool(x) -> bool ..."): that text is dropped, the attribute keeps its own documentation or none.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import griffe

_EXAMPLE_HEADING = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Reads "Example:" as Google style's "Examples:"; drops a type's docstring shown for a value."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE_HEADING.sub(r"\1Examples:", obj.docstring.value)

    def on_attribute_instance(self, *, node: Any, attr: griffe.Attribute, **kwargs: Any) -> None:
        value = getattr(node, "obj", None)
        inherited = getattr(type(value), "__doc__", None)  # (a descriptor on some builtin types)
        if attr.docstring is not None and not callable(value) and isinstance(inherited, str) and inherited:
            if attr.docstring.value.strip() == inspect.cleandoc(inherited).strip():
                attr.docstring = None
