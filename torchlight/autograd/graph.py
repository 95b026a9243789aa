r"""Pictures of the graph: `to_dot(root)` gives a Tensor's or a `Value`'s graph as Graphviz DOT text.

A Tensor's graph is drawn as PyTorch users know it from their own graph
pictures: one box per recorded op (the Function's name: Mul, MatMul,
Linear) with, below the name, what its backward saved (shapes, dtypes and
bytes) while the graph is not freed; one record per tensor with its shape
and dtype, the leaves in blue (by name when `params` names them, e.g.
`params=dict(model.named_parameters())`), the constants (inputs that do not
require grad, such as a batch of data or the `3.0` of `x * 3.0`) dashed and
grey, the root in green; edges run from each op's inputs to the op and from
the op to the tensor it made. A tensor the user no longer holds is drawn
all the same: its History keeps its shape and dtype.

A `Value`'s graph (the scalar engine) is drawn as micrograd's `draw_dot`
draws it: one record per value with its data and grad, one small node per
op named for the scalar function (`mul`, `add`, `tanh`).

Both walks are iterative (a graph of any depth draws), and the node ids are
the `id()` of the graph's nodes, stable within one call. Rendering to SVG
or PNG needs the `graphviz` Python package (`pip install graphviz`, or the
`graph` extra: `pip install torchlight[graph]`) and Graphviz's `dot`
program; without them `to_dot` still works and `.source` holds the text.

Example:
    >>> import torchlight as tl
    >>> from torchlight.autograd import to_dot
    >>> w = tl.tensor([1.0, 2.0], requires_grad=True)
    >>> loss = (w * w).sum()
    >>> dot = to_dot(loss, params={"w": w})
    >>> dot.source.startswith("digraph")
    True
    >>> '"{w|(2,)|float64}"' in dot.source          # w, a leaf: its name, shape and dtype
    True
    >>> '"Mul\\nsaved: (2,) float64 16 B"' in dot.source   # the op, and what its backward saved
    True
    >>> dot.render("loss.svg")                        # doctest: +SKIP
    PosixPath('loss.svg')
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
import shutil
from collections import deque
from collections.abc import Iterable, Mapping
from os import PathLike, fspath
from pathlib import Path
from typing import Any

import numpy as np

from torchlight.engine import History, Variable
from torchlight.scalar import Value

__all__ = ["Dot", "GraphvizNotFound", "draw_dot", "to_dot"]

RANKDIRS = ("LR", "TB", "RL", "BT")
#: the output formats `render` accepts (Graphviz's `-T` names; all need the `dot` program)
FORMATS = ("svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "json", "plain", "dot")

HOW_TO_RENDER = (
    "{what} needs the graphviz Python package (pip install graphviz, or pip install 'torchlight[graph]') "
    "and Graphviz's `dot` program on the PATH (apt install graphviz, brew install graphviz, conda install "
    "graphviz); missing here: {missing}. The DOT text is in `.source` without either: save it with "
    "`.save('graph.dot')` and render it by hand with `dot -Tsvg graph.dot -o graph.svg`."
)

# The look: op boxes grey, leaves blue, the root green, constants grey and dashed, saved notes small.
_GRAPH_ATTRS = 'fontname="Helvetica" fontsize=10'
_NODE_DEFAULTS = 'fontname="Helvetica" fontsize=10 height=0.2'
_OP_STYLE = 'style="rounded,filled" fillcolor=lightgrey'
_LEAF_STYLE = 'style=filled fillcolor=lightblue'
_ROOT_STYLE = 'style=filled fillcolor=darkolivegreen1'
_CONSTANT_STYLE = 'style=dashed color=gray60 fontcolor=gray40'


class GraphvizNotFound(RuntimeError):
    """Rendering a graph picture needs the `graphviz` Python package and Graphviz's `dot` program."""


class Dot:
    """A graph picture: `.source` is its Graphviz DOT text; `.render(path)` draws it to SVG or PNG.

    `str(dot)` is the source too. In a notebook the picture shows itself
    (`_repr_svg_`, `_repr_mimebundle_`) when the `graphviz` package and the
    `dot` program are installed, else the cell shows the text repr.

    Example:
        >>> from torchlight.autograd.graph import Dot
        >>> dot = Dot('digraph { "a" -> "b"; }')
        >>> str(dot) == dot.source, dot
        (True, Dot(2 nodes, 1 edge))
    """

    def __init__(self, source: str, *, nodes: int | None = None, edges: int | None = None) -> None:
        if not isinstance(source, str):
            raise TypeError(f"Dot: source must be a str of DOT text, got {type(source).__name__}")
        self.source = source
        self._counts = (nodes, edges)

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        nodes, edges = self._counts
        if nodes is None or edges is None:  # made from text: count its statements
            lines = [line.strip() for line in self.source.splitlines()]
            edges = sum(" -> " in line for line in lines)
            names = {part.strip().split(" ")[0] for line in lines if " -> " in line for part in line.split(" -> ")}
            names |= {line.split(" [")[0] for line in lines if line.startswith('"') and " -> " not in line}
            nodes = len(names)
        return f"Dot({nodes} node{'s' * (nodes != 1)}, {edges} edge{'s' * (edges != 1)})"

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the DOT text to `path` (a `.dot` file to render by hand); return the path."""
        path = Path(fspath(path))
        path.write_text(self.source, encoding="utf-8")
        return path

    def pipe(self, format: str = "svg") -> bytes:
        """The picture in `format` ("svg", "png", ...), as bytes, drawn by Graphviz's `dot`."""
        format = _check_format("Dot.pipe", format)
        graphviz = _graphviz(f"Dot.pipe(format={format!r})")
        try:
            return graphviz.Source(self.source).pipe(format=format)
        except graphviz.ExecutableNotFound:  # (`dot` left the PATH since the check, or is not runnable)
            raise GraphvizNotFound(HOW_TO_RENDER.format(what=f"Dot.pipe(format={format!r})",
                                                        missing="the `dot` program")) from None

    def render(self, path: str | PathLike[str], format: str | None = None) -> Path:
        """Draw the picture into the file `path`; return the path written.

        `format` defaults to the path's suffix (`graph.png`), else "svg"; a
        path without a suffix gets the format's. Raises `GraphvizNotFound`
        (a RuntimeError), naming what is missing, without the `graphviz`
        package or the `dot` program.
        """
        path = Path(fspath(path))
        suffix = path.suffix[1:].lower()
        if format is None:
            format = suffix if suffix in FORMATS else "svg"
        format = _check_format("Dot.render", format)
        if not suffix:
            path = path.with_suffix("." + format)
        _graphviz(f"Dot.render({str(path)!r})")  # (before drawing: the error names the call)
        path.write_bytes(self.pipe(format))
        return path

    def to_graphviz(self) -> Any:
        """The picture as a `graphviz.Source` (needs the `graphviz` package; `dot` only to draw it)."""
        return _graphviz("Dot.to_graphviz()", need_program=False).Source(self.source)

    def _repr_svg_(self) -> str | None:
        """The SVG a notebook shows (None without graphviz: the notebook shows the text repr)."""
        if _missing():
            return None
        return self.pipe("svg").decode("utf-8")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        missing = _missing()
        if missing:
            return {"text/plain": f"{self!r}: {HOW_TO_RENDER.format(what='Showing the picture', missing=missing)}"}
        return {"image/svg+xml": self.pipe("svg").decode("utf-8"), "text/plain": repr(self)}


def to_dot(root: Any, params: Any = None, *, show_saved: bool = True, show_attrs: bool = False,
           show_constants: bool = True, max_nodes: int | None = None, rankdir: str = "LR") -> Dot:
    """The graph feeding `root` (a Tensor, a `Value`, or a list of either) as a `Dot` picture.

    `root` may also be a `GraphVariable` or a `History` (a node met while
    walking `History.inputs` or `topological_sort`).

    - `params`: names for tensors (or Values), matched by identity: a dict
      name -> tensor, or pairs, so `model.named_parameters()` as it is;
      unnamed leaves are labelled by their shape alone.
    - `show_saved`: list under each op what its backward saved (the
      Context's saved tensors, and the result for an op that saves it:
      shape, dtype, bytes), and the total at the foot of the picture
      (each array once). A graph freed by `backward()` without
      `retain_graph` is still drawn; its ops say "freed by backward".
    - `show_attrs`: list under each op its non-tensor arguments (an axis,
      a shape) and what its forward kept on the context (`ctx.dim = ...`).
    - `show_constants`: draw the inputs that do not require grad (dashed,
      grey; a 0-d one with its value); False leaves them out.
    - `max_nodes`: stop expanding ops once this many nodes are drawn (the
      ones nearest the root first); one more node says how many ops were
      left out. None (the default) draws the whole graph.
    - `rankdir`: "LR" (left to right, the default), "TB", "RL" or "BT".

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import to_dot
        >>> layer = tl.nn.Linear(3, 2)
        >>> loss = layer(tl.ones(4, 3)).relu().sum()
        >>> source = to_dot(loss, params=dict(layer.named_parameters())).source
        >>> "{weight|(2, 3)|float64}" in source, "{bias|(2,)|float64}" in source
        (True, True)
        >>> [op for op in ("Linear", "ReLU", "Sum") if f'label="{op}' in source]
        ['Linear', 'ReLU', 'Sum']
    """
    roots = _roots("to_dot", root)
    names = _names("to_dot", params)
    for flag, value in (("show_saved", show_saved), ("show_attrs", show_attrs), ("show_constants", show_constants)):
        if not isinstance(value, bool):
            raise TypeError(f"to_dot: {flag} must be True or False, got {value!r}")
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(f"to_dot: max_nodes must be None or a positive int, got {max_nodes!r}")
    rankdir = _check_rankdir("to_dot", rankdir)
    drawing = _Drawing(rankdir, names, show_saved, show_attrs, show_constants, max_nodes)
    if isinstance(roots[0], Value):
        drawing.values(roots)
    else:
        drawing.tensors(roots)
    return Dot(drawing.source(), nodes=drawing.node_count, edges=drawing.edge_count)


def draw_dot(root: Any, format: str = "svg", rankdir: str = "LR", *, params: Any = None) -> Any:
    """micrograd's `draw_dot`: the graph of `root` as a `graphviz.Digraph` (`.render()`, or show it
    in a notebook). Needs the `graphviz` Python package; drawing it needs the `dot` program.
    `to_dot` gives the same picture without the package.

    Example (where the package is installed):
        >>> from torchlight.scalar import Value
        >>> from torchlight.autograd.graph import draw_dot
        >>> a, b = Value(2.0), Value(-3.0)
        >>> dot = draw_dot(a * b)                         # doctest: +SKIP
        >>> dot.render("graph")                           # doctest: +SKIP
        'graph.svg'
    """
    format = _check_format("draw_dot", format)
    rankdir = _check_rankdir("draw_dot", rankdir)
    roots = _roots("draw_dot", root)
    drawing = _Drawing(rankdir, _names("draw_dot", params), True, False, True, None)
    if isinstance(roots[0], Value):
        drawing.values(roots)
    else:
        drawing.tensors(roots)
    graphviz = _graphviz("draw_dot", need_program=False)
    digraph = graphviz.Digraph(format=format, graph_attr={"rankdir": rankdir, "fontname": "Helvetica",
                                                          "fontsize": "10"},
                               node_attr={"fontname": "Helvetica", "fontsize": "10", "height": "0.2"})
    digraph.body.extend(f"\t{statement}\n" for statement in drawing.statements)
    return digraph


# ------------------------------------------------------------------ the drawing
class _Drawing:
    """The statements of one picture, built by one iterative walk."""

    def __init__(self, rankdir: str, names: dict[int, str], show_saved: bool, show_attrs: bool,
                 show_constants: bool, max_nodes: int | None) -> None:
        self.rankdir = rankdir
        self.horizontal = rankdir in ("LR", "RL")  # (a record's fields run across the flow: braces flip them)
        self.names = names
        self.show_saved = show_saved
        self.show_attrs = show_attrs
        self.show_constants = show_constants
        self.max_nodes = max_nodes
        self.statements: list[str] = []
        self.node_count = 0
        self.edge_count = 0
        self.signatures: dict[Any, list[str]] = {}  # Function -> its forward's argument names (show_attrs)
        self.saved: dict[int, int] = {}  # id(array) -> bytes: what all drawn ops saved, each array once

    # ------------------------------------------------------------- statements
    def node(self, name: str, label: str, style: str, shape: str = "record") -> None:
        self.statements.append(f'"{name}" [label={label} shape={shape}' + (f" {style}]" if style else "]"))
        self.node_count += 1

    def edge(self, tail: str, head: str, style: str = "") -> None:
        self.statements.append(f'"{tail}" -> "{head}"' + (f" [{style}]" if style else ""))
        self.edge_count += 1

    def record(self, fields: list[str]) -> str:
        """A record label whose fields lie side by side along the picture's flow (escaped)."""
        body = "|".join(_record_field(f) for f in fields)
        return _quote("{" + body + "}" if self.horizontal else body, escaped=True)

    def source(self) -> str:
        head = ["digraph torchlight {", f'\tgraph [rankdir={self.rankdir} {_GRAPH_ATTRS}]',
                f"\tnode [{_NODE_DEFAULTS}]"]
        return "\n".join(head + [f"\t{s}" for s in self.statements] + ["}"]) + "\n"

    # ---------------------------------------------------------------- tensors
    def tensors(self, roots: list[Any]) -> None:
        drawn: set[int] = set()  # ids of the drawn tensor records (a History's stands for its tensor)
        queue: deque[History] = deque()
        for root in roots:
            node = _node_of(root)
            key = id(node)
            if key in drawn:
                continue
            drawn.add(key)
            if type(node) is History:
                self.node(f"t{key}", self.tensor_label(node, None), _ROOT_STYLE)
                queue.append(node)
            else:
                self.node(f"t{key}", self.tensor_label(None, node), _ROOT_STYLE)
        left_out: list[History] = []
        expanded: set[int] = set()
        while queue:
            history = queue.popleft()
            if id(history) in expanded:
                continue
            if self.max_nodes is not None and self.node_count >= self.max_nodes:
                left_out.append(history)
                continue
            expanded.add(id(history))
            op = f"op{id(history)}"
            args: list[str] = []
            inputs: list[str] = []
            for position, edge in enumerate(history.edges):
                node = _node_of(edge) if isinstance(edge, Variable) else edge
                if type(node) is History:
                    key = id(node)
                    if key not in drawn:
                        drawn.add(key)
                        self.node(f"t{key}", self.tensor_label(node, None), "")
                    queue.append(node)
                    inputs.append(f"t{key}")
                elif isinstance(node, Variable):  # a leaf, or a constant
                    key = id(node)
                    if not node.requires_grad and not self.show_constants:
                        continue
                    if key not in drawn:
                        drawn.add(key)
                        style = _LEAF_STYLE if node.requires_grad else _CONSTANT_STYLE
                        self.node(f"t{key}", self.tensor_label(None, node), style)
                    inputs.append(f"t{key}")
                elif self.show_attrs:
                    args.append(f"{self.argument_name(history.last_fn, position)}: {_short(repr(node))}")
            self.node(op, _quote(self.op_label(history, args), escaped=True), _OP_STYLE, "box")
            for tail in inputs:
                self.edge(tail, op)
            self.edge(op, f"t{id(history)}")
        left_out = [h for h in dict.fromkeys(left_out) if id(h) not in expanded]  # (each once, in order)
        if left_out:
            more = f"more{id(left_out[0])}"
            count = _count_ops(left_out, expanded)
            self.node(more, _quote(f"{count} more op(s) not drawn (max_nodes={self.max_nodes})"),
                      _CONSTANT_STYLE, "plaintext")
            for history in left_out:
                self.edge(more, f"t{id(history)}", "style=dashed color=gray60")
        if self.show_saved and self.saved:
            total = sum(self.saved.values())
            label = f"saved for backward: {_bytes(total)} in {len(self.saved)} array(s)"
            self.statements.insert(0, f"graph [label={_quote(label)} labelloc=b]")

    def tensor_label(self, history: History | None, tensor: Any) -> str:
        """The record of a tensor: [its name |] shape | dtype (| value, for a 0-d constant)."""
        if history is not None:
            name = self.names.get(id(history))
            shape, dtype = history.shape, history.dtype
            fields = [] if name is None else [name]
            fields += ["?" if shape is None else str(tuple(shape)), _dtype_name(dtype)]
            return self.record(fields)
        name = self.names.get(id(tensor))
        fields = [] if name is None else [name]
        fields += [str(tuple(tensor.shape)), _dtype_name(tensor.dtype)]
        if not tensor.requires_grad and tensor.shape == ():
            value = _number(tensor)
            if value is not None:
                fields.append(value)
        return self.record(fields)

    def argument_name(self, fn: Any, position: int) -> str:
        """The name of `fn.forward`'s argument at `position` (after ctx), else 'argument i'."""
        names = self.signatures.get(fn)
        if names is None:
            try:
                names = [p.name for p in inspect.signature(fn.forward).parameters.values()
                         if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]
            except (AttributeError, TypeError, ValueError):
                names = []
            self.signatures[fn] = names
        return names[position] if position < len(names) else f"argument {position}"

    def op_label(self, history: History, args: list[str]) -> str:
        """The op's box: its Function's name, then (when asked) its arguments and saved tensors (escaped)."""
        fn = history.last_fn
        lines = [_escape(getattr(fn, "__name__", None) or repr(fn))]
        ctx = history.ctx
        if self.show_attrs:
            lines += [_escape(a) for a in args]
            kept = getattr(ctx, "__dict__", None) or {}
            kept_lines = (f"{k}: {_short(repr(v))}" for k, v in kept.items() if not k.startswith("_"))
            lines += [_escape(line) for line in kept_lines if line not in args]  # (ctx.dim = dim: once)
        if not self.show_saved or ctx is None:
            return "\\n".join(lines)
        if ctx.released:
            lines.append("freed by backward")
            return "\\n".join(lines)
        seen: set[int] = set()
        for value in ctx.saved_values:
            line = self.saved_line(value, seen)
            if line is not None:
                lines.append(_escape("saved: " + line))
        if getattr(fn, "saves_output", False) and not ctx.no_grad and history.shape is not None:
            size = _nbytes(None, history.shape, history.dtype)
            self.saved[id(history)] = size or 0
            lines.append(_escape(f"saved: output {tuple(history.shape)} {_dtype_name(history.dtype)}"
                                 + ("" if size is None else f" {_bytes(size)}")))
        return "\\n".join(lines)

    def saved_line(self, value: Any, seen: set[int]) -> str | None:
        """'shape dtype bytes' of one saved array or Tensor (None for what is not an array)."""
        data = value.data if isinstance(value, Variable) else value
        shape, dtype = getattr(data, "shape", None), getattr(data, "dtype", None)
        if data is None or shape is None or dtype is None or id(data) in seen:
            return None
        seen.add(id(data))
        size = _nbytes(data, shape, dtype)
        self.saved[id(data)] = size or 0
        return f"{tuple(shape)} {_dtype_name(dtype)}" + ("" if size is None else f" {_bytes(size)}")

    # ----------------------------------------------------------------- values
    def values(self, roots: list[Value]) -> None:
        """micrograd's picture: a record per Value (data, grad), a node per op, iteratively."""
        stack = list(reversed(roots))
        drawn: set[int] = set()
        root_ids = {id(r) for r in roots}
        left_out = 0
        while stack:
            v = stack.pop()
            key = id(v)
            if key in drawn:
                continue
            if self.max_nodes is not None and self.node_count >= self.max_nodes:
                left_out += 1
                continue
            drawn.add(key)
            name = self.names.get(key)
            fields = ([] if name is None else [name]) + [f"data {v.data:.4f}", f"grad {v.grad:.4f}"]
            style = _ROOT_STYLE if key in root_ids else "" if v.requires_grad else _CONSTANT_STYLE
            self.node(f"v{key}", self.record(fields), style)
            if v.is_leaf:
                continue
            op = f"v{key}_op"
            fn = v.history.last_fn  # type: ignore[union-attr]  # (a non-leaf Value has one)
            self.node(op, _quote(getattr(fn, "__name__", repr(fn))), "", "ellipse")
            self.edge(op, f"v{key}")
            for parent in v.parents:
                if not parent.requires_grad and not self.show_constants:
                    continue
                self.edge(f"v{id(parent)}", op)
                if id(parent) not in drawn:
                    stack.append(parent)
        if left_out:  # (edges into the nodes left out name nodes Graphviz then draws bare)
            self.node("more", _quote(f"{left_out} more value(s) not drawn (max_nodes={self.max_nodes})"),
                      _CONSTANT_STYLE, "plaintext")


# ---------------------------------------------------------------- helpers
def _count_ops(frontier: list[History], expanded: set[int]) -> int:
    """How many ops feed `frontier` (themselves included) that were not drawn (iteratively)."""
    seen = {id(h) for h in frontier}
    stack = list(frontier)
    while stack:
        for edge in stack.pop().edges:
            node = _node_of(edge) if isinstance(edge, Variable) else edge
            if type(node) is History and id(node) not in seen and id(node) not in expanded:
                seen.add(id(node))
                stack.append(node)
    return len(seen)


def _node_of(variable: Any) -> Any:
    """The graph's node for a Tensor or GraphVariable: its History, or itself for a leaf."""
    history = getattr(variable, "history", None)
    return variable if history is None else history


def _roots(fn: str, root: Any) -> list[Any]:
    roots = list(root) if isinstance(root, (list, tuple)) else [root]
    if not roots:
        raise ValueError(f"{fn}: root is an empty {type(root).__name__}; give a Tensor or a Value")
    kinds = set()
    for r in roots:
        if isinstance(r, Value):
            kinds.add("Value")
        elif isinstance(r, (Variable, History)):  # (a Tensor, a GraphVariable, or a graph node itself)
            kinds.add("Tensor")
        else:
            raise TypeError(f"{fn}: root must be a Tensor or a Value (or a list of them), got {type(r).__name__}")
    if len(kinds) > 1:
        raise TypeError(f"{fn}: root mixes Tensors and Values; draw each engine's graph on its own")
    return roots


def _names(fn: str, params: Any) -> dict[int, str]:
    """id -> name for the named tensors or Values (a non-leaf tensor is keyed by its History)."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        pairs: Iterable[Any] = params.items()
    elif isinstance(params, Iterable) and not isinstance(params, (str, bytes)):
        pairs = params
    else:
        raise TypeError(f"{fn}: params must be a dict of name -> tensor (dict(model.named_parameters())), "
                        f"got {type(params).__name__}")
    names: dict[int, str] = {}
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(f"{fn}: params must be a dict of name -> tensor or (name, tensor) pairs, got {pair!r}")
        name, tensor = pair
        if not isinstance(name, str):
            raise TypeError(f"{fn}: params' names must be str, got {type(name).__name__} ({name!r})")
        if not isinstance(tensor, (Variable, Value)):
            raise TypeError(f"{fn}: params[{name!r}] must be a Tensor or a Value, got {type(tensor).__name__}")
        names.setdefault(id(_node_of(tensor) if isinstance(tensor, Variable) else tensor), name)
    return names


def _check_rankdir(fn: str, rankdir: Any) -> str:
    if not isinstance(rankdir, str) or rankdir.upper() not in RANKDIRS:
        raise ValueError(f"{fn}: rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    return rankdir.upper()


def _check_format(fn: str, format: Any) -> str:
    if not isinstance(format, str) or format.lower() not in FORMATS:
        raise ValueError(f"{fn}: format must be one of {', '.join(FORMATS)}, got {format!r}")
    return format.lower()


def _missing(need_program: bool = True) -> str:
    """What a picture needs that is not installed, in words ('' when nothing is missing)."""
    missing = []
    try:
        importlib.import_module("graphviz")
    except ImportError:
        missing.append("the graphviz Python package")
    if need_program and shutil.which("dot") is None:
        missing.append("the `dot` program")
    return " and ".join(missing)


def _graphviz(what: str, need_program: bool = True) -> Any:
    """The `graphviz` package (imported on first use), or GraphvizNotFound naming what is missing."""
    missing = _missing(need_program)
    if missing:
        raise GraphvizNotFound(HOW_TO_RENDER.format(what=what, missing=missing))
    return importlib.import_module("graphviz")


_NEEDS_ESCAPE = re.compile(r'[\\"\r\n]')
_RECORD_SPECIAL = re.compile(r'[\\"\r\n{}|<>]')


def _escape(text: str) -> str:
    """`text` for a DOT quoted string: backslashes, quotes and line breaks escaped."""
    if _NEEDS_ESCAPE.search(text) is None:  # (the usual case: a shape, a dtype, a name)
        return text
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "\\n")


def _record_field(text: str) -> str:
    """One field of a record label: escaped, and the record's own characters taken literally."""
    if _RECORD_SPECIAL.search(text) is None:
        return text
    text = _escape(text)
    for ch in "{}|<>":
        text = text.replace(ch, "\\" + ch)
    return text


def _quote(text: str, escaped: bool = False) -> str:
    """A DOT quoted string. Graphviz reads `\\"` as a quote even after an escaped backslash, so a text
    ending in a backslash gets a space after it (else its closing quote would be taken as text)."""
    body = text if escaped else _escape(text)
    if body.endswith("\\"):
        body += " "
    return f'"{body}"'


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


_DTYPE_NAMES: dict[tuple, str] = {}  # (type, dtype) -> name: str() of a NumPy dtype is slow; a graph has few


def _dtype_name(dtype: Any) -> str:
    """'float64' for NumPy's, torch's (torch.float64) and array_api_strict's dtypes alike."""
    key = (type(dtype), dtype)  # (the type first: libraries' dtypes are not compared with each other)
    try:
        return _DTYPE_NAMES[key]
    except (KeyError, TypeError):  # (TypeError: an unhashable dtype)
        pass
    name = "?" if dtype is None else str(dtype).rsplit(".", 1)[-1]
    try:
        _DTYPE_NAMES[key] = name
    except TypeError:
        pass
    return name


def _nbytes(data: Any, shape: Any, dtype: Any) -> int | None:
    """The bytes of an array (its `nbytes`, else its size times its dtype's itemsize; None if unknown)."""
    nbytes = getattr(data, "nbytes", None) if data is not None else None
    if isinstance(nbytes, int) and not isinstance(nbytes, bool):
        return nbytes
    itemsize = getattr(dtype, "itemsize", None)
    if not isinstance(itemsize, int):
        try:
            itemsize = np.dtype(_dtype_name(dtype)).itemsize
        except TypeError:
            return None
    try:
        return math.prod(int(n) for n in shape) * itemsize
    except TypeError:  # (an unknown dimension: a lazy array's None)
        return None


def _bytes(n: int) -> str:
    """'16 B', '1.5 KiB', '3.0 MiB'."""
    if n < 1024:
        return f"{n} B"
    size = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        size /= 1024
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}"
    return f"{n} B"  # (unreachable)


def _number(tensor: Any) -> str | None:
    """The value of a 0-d real constant, short (None where it is not a plain real number)."""
    try:
        value = float(tensor.data)
    except (TypeError, ValueError):
        return None
    return f"{value:.6g}"
