"""`torchlight.autograd.to_dot`: the graph of a Tensor or a Value as Graphviz DOT text, and its rendering.

The DOT text is read back with a small parser (node id -> label and attributes, and the edges), so the
tests check the picture's structure: which ops, which tensors with which shapes, dtypes and names, which
edges. Rendering needs the `graphviz` Python package and the `dot` program: those tests skip without
them, and the error path is checked with both hidden.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import graph as graph_module
from torchlight.autograd import to_dot
from torchlight.autograd.graph import Dot, GraphvizNotFound, draw_dot
from torchlight.engine import GraphVariable
from torchlight.scalar import Value

NODE = re.compile(r'^\t"([^"]+)" \[label="((?:[^"\\]|\\.)*)"(.*)\]$')
EDGE = re.compile(r'^\t"([^"]+)" -> "([^"]+)"(?: \[.*\])?$')


class Picture:
    """The nodes and edges of a DOT text as `to_dot` writes it (one statement a line)."""

    def __init__(self, source: str) -> None:
        self.labels: dict[str, str] = {}
        self.attrs: dict[str, str] = {}
        self.edges: list[tuple[str, str]] = []
        for line in source.splitlines():
            if m := EDGE.match(line):
                self.edges.append((m[1], m[2]))
            elif m := NODE.match(line):
                assert m[1] not in self.labels, f"node {m[1]} defined twice"
                self.labels[m[1]] = m[2]
                self.attrs[m[1]] = m[3]
        for tail, head in self.edges:
            assert tail in self.labels and head in self.labels, f"an edge to an undefined node: {tail} -> {head}"

    def ops(self) -> list[str]:
        """The op boxes' first lines (the Functions' names), in the order drawn."""
        return [label.split("\\n")[0] for n, label in self.labels.items() if "shape=box" in self.attrs[n]]

    def node(self, label: str) -> str:
        """The one node whose label is `label`."""
        found = [n for n, text in self.labels.items() if text == label]
        assert len(found) == 1, f"{len(found)} nodes labelled {label!r} in {sorted(self.labels.values())}"
        return found[0]

    def op_named(self, name: str) -> str:
        found = [n for n, text in self.labels.items() if text.split("\\n")[0] == name and "shape=box" in self.attrs[n]]
        assert len(found) == 1, f"{len(found)} ops named {name}"
        return found[0]

    def inputs(self, node: str) -> list[str]:
        return [tail for tail, head in self.edges if head == node]

    def outputs(self, node: str) -> list[str]:
        return [head for tail, head in self.edges if tail == node]


def strings_and_braces_close(source: str) -> bool:
    """Graphviz's lexer on a quoted string: `\\"` is a quote inside it, any other backslash is one
    character; every string must close on its own line, and braces and brackets must balance."""
    depth = 0
    for line in source.splitlines():
        i, brackets, inside = 0, 0, False
        while i < len(line):
            ch = line[i]
            if inside:
                if ch == "\\" and line[i + 1:i + 2] == '"':
                    i += 2
                    continue
                inside = ch != '"'
            elif ch == '"':
                inside = True
            elif ch in "{}":
                depth += 1 if ch == "{" else -1
            elif ch in "[]":
                brackets += 1 if ch == "[" else -1
            i += 1
        if inside or brackets:
            return False
    return depth == 0


def mlp_loss():
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.ReLU(), tl.nn.Linear(4, 1))
    x, y = tl.randn(5, 3), tl.randn(5, 1)
    return model, tl.nn.functional.mse_loss(model(x), y)


def needs_graphviz():
    pytest.importorskip("graphviz", reason="the graphviz Python package is not installed: rendering is not checked")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's `dot` program is not installed (apt install graphviz): rendering is not checked")


# ------------------------------------------------------------------ Tensor graphs
def test_a_small_graph_has_its_ops_tensors_and_edges():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = tl.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    y = (x @ w).exp()
    pic = Picture(to_dot(y).source)
    assert pic.ops() == ["Exp", "MatMul"]
    matmul, exp = pic.op_named("MatMul"), pic.op_named("Exp")
    x_node, w_node = pic.node("{(3,)|float64}"), pic.node("{(3, 1)|float64}")
    assert pic.inputs(matmul) == [x_node, w_node]  # in the order of the arguments
    (middle,) = pic.outputs(matmul)
    assert pic.labels[middle] == "{(1,)|float64}" and pic.inputs(exp) == [middle]
    (root,) = pic.outputs(exp)
    assert pic.labels[root] == "{(1,)|float64}" and "darkolivegreen1" in pic.attrs[root]  # the root stands out
    assert "lightblue" in pic.attrs[x_node] and "lightblue" in pic.attrs[w_node]  # leaves
    assert len(pic.labels) == 6 and len(pic.edges) == 5


def test_the_parameters_of_a_linear_layer_are_labelled_by_name():
    model, loss = mlp_loss()
    pic = Picture(to_dot(loss, params=dict(model.named_parameters())).source)
    weight, bias = pic.node("{0.weight|(4, 3)|float64}"), pic.node("{0.bias|(4,)|float64}")
    first = pic.outputs(weight)
    assert len(first) == 1 and pic.labels[first[0]].startswith("Linear") and pic.outputs(bias) == first
    assert pic.node("{2.weight|(1, 4)|float64}") and pic.node("{2.bias|(1,)|float64}")
    assert sorted(pic.ops()) == ["Linear", "Linear", "Mul", "Mul", "ReLU", "Sub", "Sum"]
    data = pic.node("{(5, 3)|float64}")  # the batch: a constant, drawn lightly
    assert "dashed" in pic.attrs[data] and pic.outputs(data) == first
    # a generator of pairs (model.named_parameters() as it is) names them too
    assert "{0.weight|" in to_dot(loss, params=model.named_parameters()).source


def test_unnamed_leaves_are_their_shape_and_dtypes_are_named():
    x = tl.tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    pic = Picture(to_dot((x * x).sum()).source)
    assert "{(2, 3)|float32}" in pic.labels.values() and "{()|float32}" in pic.labels.values()


def test_constants_are_drawn_lightly_with_their_value_or_left_out():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3.0
    pic = Picture(to_dot(y).source)
    three = pic.node("{()|float64|3}")
    assert "dashed" in pic.attrs[three] and pic.outputs(three) == [pic.op_named("Mul")]
    pic = Picture(to_dot(y, show_constants=False).source)
    (only,) = pic.inputs(pic.op_named("Mul"))
    assert len(pic.labels) == 3 and pic.labels[only] == "{(2,)|float64}" and "lightblue" in pic.attrs[only]


def test_saved_sizes_and_dtypes_of_a_backend_whose_arrays_have_no_nbytes():
    x = tl.tensor([1.0, 2.0], backend="array_api_strict", dtype="float32", requires_grad=True)
    assert not hasattr(x.data, "nbytes")
    pic = Picture(to_dot(x * x).source)
    assert pic.labels[pic.op_named("Mul")] == "Mul\\nsaved: (2,) float32 8 B"
    assert "{(2,)|float32}" in pic.labels.values()


def test_saved_tensor_sizes_per_op_and_their_total():
    x = tl.tensor(np.ones((4, 3)), requires_grad=True)
    w = tl.tensor(np.ones((3, 2)), requires_grad=True)
    y = (x @ w).sum()
    source = to_dot(y).source
    matmul = Picture(source).labels[Picture(source).op_named("MatMul")]
    assert matmul == "MatMul\\nsaved: (4, 3) float64 96 B\\nsaved: (3, 2) float64 48 B"
    assert 'label="saved for backward: 144 B in 2 array(s)"' in source
    assert "saved" not in Picture(to_dot(y, show_saved=False).source).labels[Picture(source).op_named("MatMul")]
    z = x.exp()  # Exp keeps its result, not its input
    assert "Exp\\nsaved: output (4, 3) float64 96 B" in to_dot(z).source
    x2 = (x * x).sum()  # one array saved twice by one op: listed once
    assert Picture(to_dot(x2).source).labels[Picture(to_dot(x2).source).op_named("Mul")].count("saved") == 1


def test_a_freed_graph_is_still_drawn_without_saved_sizes():
    model, loss = mlp_loss()
    before = Picture(to_dot(loss).source)
    loss.backward()  # retain_graph=False: the saved tensors are released
    source = to_dot(loss, params=dict(model.named_parameters())).source
    after = Picture(source)
    assert sorted(after.ops()) == sorted(before.ops()) and len(after.edges) == len(before.edges)
    assert "saved:" not in source and "saved for backward" not in source
    saved_before = sorted(label.split("\\n")[0] for label in before.labels.values() if "\\nsaved:" in label)
    freed_after = sorted(label.split("\\n")[0] for label in after.labels.values() if "\\nfreed by backward" in label)
    assert saved_before == ["Linear", "Linear", "Mul", "Mul", "ReLU"] and set(saved_before) <= set(freed_after)


def test_a_dropped_tensor_is_drawn_from_its_history_and_a_graph_variable_can_be_the_root():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2.0).exp()  # nobody holds x * 2.0
    parent = y.history.inputs[0]
    assert isinstance(parent, GraphVariable)
    pic = Picture(to_dot(y).source)
    mul, exp = pic.op_named("Mul"), pic.op_named("Exp")
    (middle,) = pic.outputs(mul)
    assert pic.labels[middle] == "{(2,)|float64}" and pic.inputs(exp) == [middle]
    for root in (parent, parent.history):  # a GraphVariable, or the History itself
        pic = Picture(to_dot(root).source)
        assert pic.ops() == ["Mul"] and "darkolivegreen1" in pic.attrs[pic.outputs(pic.op_named("Mul"))[0]]


def test_several_roots_share_their_nodes():
    x = tl.tensor([1.0], requires_grad=True)
    y = x * 2.0
    z = y + 1.0
    pic = Picture(to_dot([y, z], show_constants=False).source)
    assert sorted(pic.ops()) == ["Add", "Mul"] and len(pic.labels) == 5  # x, y, z once each
    assert sum("darkolivegreen1" in a for a in pic.attrs.values()) == 2


def test_a_leaf_root_and_a_constant_root_are_one_record():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    pic = Picture(to_dot(x, params={"x": x}).source)
    assert list(pic.labels.values()) == ["{x|(2,)|float64}"] and pic.edges == []
    assert len(Picture(to_dot(tl.tensor(1.0)).source).labels) == 1


def test_show_attrs_lists_the_non_tensor_arguments_by_name():
    x = tl.tensor(np.ones((3, 2)), requires_grad=True)
    pic = Picture(to_dot(x.sum(0), show_attrs=True).source)
    assert pic.labels[pic.op_named("Sum")].startswith("Sum\\ndims: (0,)\\nkeepdim: False")
    assert "dims" not in to_dot(x.sum(0)).source


def test_rankdir_top_to_bottom_lays_record_fields_across():
    x = tl.tensor([1.0], requires_grad=True)
    source = to_dot(x * x, params={"x": x}, rankdir="TB").source
    assert "rankdir=TB" in source and 'label="x|(1,)|float64"' in source


def test_max_nodes_stops_expanding_and_says_how_many_ops_were_left_out():
    x = tl.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(50):
        y = y.sin()
    pic = Picture(to_dot(y, max_nodes=10).source)
    assert 10 <= len(pic.labels) - 1 <= 11  # (an op and its input's record at a time, then the note)
    (more,) = [n for n, label in pic.labels.items() if "not drawn" in label]
    drawn = len(pic.ops())
    assert pic.labels[more] == f"{50 - drawn} more op(s) not drawn (max_nodes=10)"
    assert len(Picture(to_dot(y).source).ops()) == 50


def test_labels_are_escaped_for_dot():
    w = tl.tensor([1.0], requires_grad=True)
    v = tl.tensor([1.0], requires_grad=True)
    names = {'w{1}|<a> "q"': w, "trail\\": v}
    source = to_dot(w * v, params=names).source
    assert strings_and_braces_close(source)
    assert '"{w\\{1\\}\\|\\<a\\> \\"q\\"|(1,)|float64}"' in source
    assert '"{trail\\\\|(1,)|float64}"' in source
    # the check itself: an unescaped quote, or a label ending in a lone backslash, does not close
    assert not strings_and_braces_close('digraph {\n\t"a" [label="x"y"]\n}')
    assert not strings_and_braces_close('digraph {\n\t"a" [label="x\\"]\n}')


def test_the_dot_text_parses_with_graphviz():
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's `dot` program is not installed: the DOT text is checked by strings_and_braces_close")
    model, loss = mlp_loss()
    w = tl.tensor([1.0], requires_grad=True)
    nasty = to_dot(w * 2.0, params={'w{1}|<a> "q" \\': w}, show_attrs=True).source
    value = to_dot(Value(2.0) * Value(3.0)).source
    for source in (to_dot(loss, params=dict(model.named_parameters())).source, nasty, value):
        run = subprocess.run(["dot", "-Tcanon"], input=source, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and run.stderr == "", run.stderr


# ------------------------------------------------------------------- Value graphs
def test_micrograds_draw_dot_demo():
    a = Value(2.0)
    b = Value(-3.0)
    c = Value(10.0)
    e = a * b
    d = e + c
    f = Value(-2.0)
    L = d * f
    L.backward()
    source = to_dot(L, params=dict(a=a, b=b, c=c, d=d, e=e, f=f, L=L)).source
    pic = Picture(source)
    assert len(pic.labels) == 10 and len(pic.edges) == 9
    root = pic.node("{L|data -8.0000|grad 1.0000}")
    assert "darkolivegreen1" in pic.attrs[root]
    (last,) = pic.inputs(root)
    assert pic.labels[last] == "mul"
    assert [pic.labels[n] for n in pic.inputs(last)] == ["{d|data 4.0000|grad -2.0000}", "{f|data -2.0000|grad 4.0000}"]
    (add,) = pic.inputs(pic.node("{d|data 4.0000|grad -2.0000}"))
    assert [pic.labels[n] for n in pic.inputs(add)] == ["{e|data -6.0000|grad -2.0000}",
                                                        "{c|data 10.0000|grad -2.0000}"]
    (first,) = pic.inputs(pic.node("{e|data -6.0000|grad -2.0000}"))
    assert [pic.labels[n] for n in pic.inputs(first)] == ["{a|data 2.0000|grad 6.0000}",
                                                          "{b|data -3.0000|grad -4.0000}"]
    assert f'"{id(a)}' not in source and f'"v{id(a)}"' in source  # ids: the nodes' own, within this call


def test_a_value_graph_draws_constants_lightly_and_unnamed_values_without_a_name():
    x = Value(2.0)
    y = (x * 3.0).tanh()
    pic = Picture(to_dot(y).source)
    three = pic.node("{data 3.0000|grad 0.0000}")
    assert "dashed" in pic.attrs[three] and [pic.labels[n] for n in pic.outputs(three)] == ["mul"]
    assert sorted(label for label in pic.labels.values() if "|" not in label) == ["mul", "tanh"]
    assert len(Picture(to_dot(y, show_constants=False).source).labels) == 5


def test_a_ten_thousand_node_chain_draws_without_recursion():
    x = tl.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0
    limit = sys.getrecursionlimit()
    assert limit < 10_000  # a recursive walk would fail on this chain
    dot = to_dot(y)
    assert dot.source.count("shape=box") == 10_000
    v = Value(1.0)
    z = v
    for _ in range(10_000):
        z = z + v
    assert to_dot(z).source.count('label="add"') == 10_000


# ------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: to_dot(3.0), TypeError, "to_dot: root must be a Tensor or a Value"),
    (lambda: to_dot([]), ValueError, "to_dot: root is an empty list"),
    (lambda: to_dot([tl.tensor(1.0), Value(1.0)]), TypeError, "mixes Tensors and Values"),
    (lambda: to_dot(tl.tensor(1.0), params=3), TypeError, "to_dot: params must be a dict"),
    (lambda: to_dot(tl.tensor(1.0), params={1: tl.tensor(1.0)}), TypeError, "params' names must be str"),
    (lambda: to_dot(tl.tensor(1.0), params={"w": 1.0}), TypeError, r"params\['w'\] must be a Tensor"),
    (lambda: to_dot(tl.tensor(1.0), rankdir="XY"), ValueError, "to_dot: rankdir must be one of LR, TB"),
    (lambda: to_dot(tl.tensor(1.0), max_nodes=0), ValueError, "to_dot: max_nodes must be None or a positive"),
    (lambda: to_dot(tl.tensor(1.0), show_saved="yes"), TypeError, "to_dot: show_saved must be True or False"),
    (lambda: to_dot(tl.tensor(1.0)).render("g.bmp2", format="bmp2"), ValueError, "Dot.render: format must be"),
    (lambda: draw_dot(Value(1.0), format="svgz2"), ValueError, "draw_dot: format must be"),
    (lambda: Dot(b"digraph {}"), TypeError, "Dot: source must be a str"),
])
def test_bad_input_names_the_function_and_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------- rendering
def hide_graphviz(monkeypatch, package: bool, program: bool) -> None:
    if package:
        monkeypatch.setitem(sys.modules, "graphviz", None)  # `import graphviz` raises ImportError
    if program:
        monkeypatch.setattr(graph_module.shutil, "which", lambda name: None)


@pytest.mark.parametrize(("package", "program"), [(True, True), (True, False), (False, True)])
def test_without_graphviz_render_says_what_is_missing_and_how_to_render_by_hand(monkeypatch, tmp_path,
                                                                                package, program):
    package_missing = package or importlib.util.find_spec("graphviz") is None  # (before hiding anything)
    program_missing = program or shutil.which("dot") is None
    hide_graphviz(monkeypatch, package, program)
    x = tl.tensor([1.0], requires_grad=True)
    dot = to_dot(x * x)  # the DOT text needs nothing
    assert dot.source.startswith("digraph")
    with pytest.raises(GraphvizNotFound) as info:
        dot.render(tmp_path / "graph.svg")
    message = str(info.value)
    assert isinstance(info.value, RuntimeError) and "Dot.render" in message
    assert "pip install graphviz" in message and "`dot` program" in message and "apt install graphviz" in message
    assert ".source" in message and "dot -Tsvg graph.dot -o graph.svg" in message
    assert ("graphviz Python package" in message.split("missing here:")[1]) is package_missing
    assert ("`dot` program" in message.split("missing here:")[1]) is program_missing
    assert not (tmp_path / "graph.svg").exists()
    assert dot._repr_svg_() is None and "pip install graphviz" in dot._repr_mimebundle_()["text/plain"]
    assert dot.save(tmp_path / "graph.dot").read_text() == dot.source  # what to render by hand


def test_draw_dot_without_the_package_names_it(monkeypatch):
    hide_graphviz(monkeypatch, package=True, program=False)
    with pytest.raises(GraphvizNotFound, match="draw_dot needs the graphviz Python package"):
        draw_dot(Value(1.0) * 2.0)


def test_render_writes_svg_and_png(tmp_path):
    needs_graphviz()
    model, loss = mlp_loss()
    dot = to_dot(loss, params=dict(model.named_parameters()))
    svg = dot.render(tmp_path / "loss.svg")
    assert svg == tmp_path / "loss.svg" and "<svg" in svg.read_text() and "0.weight" in svg.read_text()
    png = dot.render(tmp_path / "loss", format="png")
    assert png == tmp_path / "loss.png" and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in dot._repr_svg_() and "image/svg+xml" in dot._repr_mimebundle_()


def test_draw_dot_gives_a_graphviz_digraph_like_micrograds():
    graphviz = pytest.importorskip("graphviz", reason="the graphviz Python package is not installed")
    a, b = Value(2.0), Value(-3.0)
    digraph = draw_dot(a * b, params={"a": a, "b": b})
    assert isinstance(digraph, graphviz.Digraph) and digraph.format == "svg"
    assert "rankdir=LR" in digraph.source and '"{a|data 2.0000|grad 0.0000}"' in digraph.source
    assert strings_and_braces_close(digraph.source)
    pic = Picture(digraph.source)
    assert len(pic.labels) == 4 and len(pic.edges) == 3
    x = tl.tensor([1.0], requires_grad=True)
    tensor_graph = draw_dot(x * 2.0, format="png", rankdir="TB", params={"x": x})
    assert tensor_graph.format == "png" and "rankdir=TB" in tensor_graph.source
    assert '"x|(1,)|float64"' in tensor_graph.source and 'label="Mul' in tensor_graph.source
