"""A griffe extension for the documentation site (mkdocs.yml): torchlight's docstrings head their
doctest with "Example:" (the project's convention since the first module); Google style reads only
"Examples:" as code, and would render the `>>>` lines as Markdown text. Renamed here, at load time,
so the sources keep one convention and the site shows every example as a code block."""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE_HEADING = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Reads a docstring's "Example:" heading as Google style's "Examples:" section."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE_HEADING.sub(r"\1Examples:", obj.docstring.value)
