"""Draw the graph pictures of docs/autograd.md ("Graph pictures") into docs/images/.

    python scripts/graph_pictures.py          # needs the graphviz package and Graphviz's `dot` program

Two pictures, made with `torchlight.autograd.to_dot`: the loss graph of a small MLP (two
`tl.nn.Linear` layers, a ReLU between them, the mean squared error), its parameters named by
`named_parameters()`, and micrograd's `draw_dot` demo on the scalar engine's `Value`s after
`backward()`. The demo's DOT text is printed too.
"""

from __future__ import annotations

from pathlib import Path

import torchlight as tl
from torchlight.autograd import to_dot
from torchlight.autograd.graph import Dot
from torchlight.scalar import Value

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"


def mlp_loss_picture() -> Dot:
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(2, 8), tl.nn.ReLU(), tl.nn.Linear(8, 1))
    x, y = tl.randn(16, 2), tl.randn(16, 1)
    loss = tl.nn.functional.mse_loss(model(x), y)
    return to_dot(loss, params=dict(model.named_parameters()), rankdir="TB")


def micrograd_picture() -> Dot:
    a = Value(2.0)
    b = Value(-3.0)
    c = Value(10.0)
    e = a * b
    d = e + c
    f = Value(-2.0)
    L = d * f
    L.backward()
    return to_dot(L, params=dict(a=a, b=b, c=c, d=d, e=e, f=f, L=L))


def main() -> None:
    IMAGES.mkdir(exist_ok=True)
    print(mlp_loss_picture().render(IMAGES / "mlp_loss_graph.svg"))
    demo = micrograd_picture()
    print(demo.render(IMAGES / "micrograd_draw_dot.svg"))
    print(demo.source)


if __name__ == "__main__":
    main()
