"""Pytrees: the public utility against torch.utils._pytree, and every transform over nested arguments
(dict keys and order kept, namedtuples' types, None leaves, argnums over pytrees) and its errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import torchlight as tl
from torchlight import func
from torchlight.func import tree_flatten, tree_leaves, tree_map, tree_unflatten

Point = collections.namedtuple("Point", "x y")
RNG = np.random.default_rng(3)


TREES = [1, None, (1, 2), [1, (2, 3)], {"b": 1, "a": [2, None]}, Point(1, (2, {"k": 3})), [], {}, ((),)]


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_flatten_and_unflatten_agree_with_torch_pytree(tree):
    pytree = pytest.importorskip("torch.utils._pytree", reason="torch's pytree is the reference")
    leaves, spec = tree_flatten(tree)
    assert leaves == pytree.tree_flatten(tree)[0]
    rebuilt = tree_unflatten(leaves, spec)
    assert rebuilt == tree and type(rebuilt) is type(tree)
    assert tree_map(lambda v: v, tree) == pytree.tree_map(lambda v: v, tree)


def test_tree_map_over_several_trees_and_its_errors():
    assert tree_map(lambda a, b: a * b, {"w": [1, 2]}, {"w": [3, 4]}) == {"w": [3, 8]}
    assert type(tree_map(lambda v: v + 1, Point(1, 2))) is Point
    with pytest.raises(ValueError, match="tree_map: tree 1 has structure"):
        tree_map(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="2 leaves for a structure of 3"):
        tree_unflatten([1, 2], tree_flatten([0, 0, 0])[1])
    assert tree_leaves({"z": 1, "a": 2}) == [1, 2]  # insertion order, as PyTorch (JAX sorts the keys)


def loss(params, x):
    h = x
    for W, b in params:
        h = (h @ W + b).tanh()
    return (h ** 2).sum()


def test_grad_over_a_list_of_pairs_has_the_structure_of_the_argument():
    params = [(RNG.standard_normal((3, 4)), RNG.standard_normal(4)), (RNG.standard_normal((4, 2)), np.zeros(2))]
    x = RNG.standard_normal(3)
    g = func.grad(loss)(params, x)
    assert isinstance(g, list) and all(isinstance(p, tuple) and len(p) == 2 for p in g)
    for (gW, gb), (W, b) in zip(g, params):
        assert gW.shape == W.shape and gb.shape == b.shape and not isinstance(gW, tl.Tensor)
    flat, spec = tree_flatten(params)
    for k in range(len(flat)):  # each leaf against its own scalar gradient
        def one(leaf, k=k):
            leaves = list(flat)
            leaves[k] = leaf
            return loss(tree_unflatten(leaves, spec), tl.tensor(x))
        np.testing.assert_allclose(tree_flatten(g)[0][k], func.grad(one)(flat[k]), rtol=1e-12)


def test_grad_agrees_with_torch_func_on_a_dict_and_a_namedtuple():
    torch = pytest.importorskip("torch", reason="torch.func is the reference")
    params = {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2), "p": Point(RNG.standard_normal(2), 1.5)}
    x = RNG.standard_normal(3)

    def f(p, x):
        return ((x @ p["w"] + p["b"]).sin() * p["p"].x * p["p"].y).sum()

    g = func.grad(f)(params, x)
    assert list(g) == ["w", "b", "p"] and type(g["p"]) is Point
    tp = {"w": torch.tensor(params["w"]), "b": torch.tensor(params["b"]),
          "p": Point(torch.tensor(params["p"].x), torch.tensor(1.5, dtype=torch.float64))}
    expect = torch.func.grad(f)(tp, torch.tensor(x))
    for got, want in zip(tree_leaves(g), tree_leaves(expect)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)


def test_argnums_over_pytrees_and_a_none_leaf():
    a, b = {"u": np.array([1.0, 2.0]), "skip": None}, [np.array(3.0)]
    g = func.grad(lambda a, b: (a["u"] * b[0]).sum(), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(g[0]["u"], [3.0, 3.0])
    assert g[0]["skip"] is None
    np.testing.assert_allclose(g[1][0], 3.0)


def test_value_and_grad_vjp_jvp_hvp_jacobian_over_pytrees():
    p = {"a": np.array([1.0, 2.0]), "b": np.array(0.5)}
    f = lambda p: (p["a"] ** 2 * p["b"]).sum()  # noqa: E731
    value, g = func.value_and_grad(f)(p)
    assert float(value) == 2.5 and list(g) == ["a", "b"]
    out, vjp_fn = func.vjp(lambda p: {"y": p["a"] * p["b"]}, p)
    (back,) = vjp_fn({"y": np.ones(2)})
    np.testing.assert_allclose(back["a"], [0.5, 0.5])
    np.testing.assert_allclose(back["b"], 3.0)
    _, tangent = func.jvp(lambda p: [p["a"] * p["b"]], (p,), ({"a": np.ones(2), "b": np.array(0.0)},))
    np.testing.assert_allclose(tangent[0], [0.5, 0.5])
    _, hv = func.hvp(f, (p,), ({"a": np.array([1.0, 0.0]), "b": np.array(0.0)},))
    np.testing.assert_allclose(hv[0]["a"], [1.0, 0.0])
    np.testing.assert_allclose(hv[0]["b"], 2.0)
    J = func.jacobian(lambda p: p["a"] * p["b"])(p)
    assert J["a"].shape == (2, 2) and J["b"].shape == (2,)
    np.testing.assert_allclose(J["b"], [1.0, 2.0])


def test_a_string_leaf_is_a_type_error_naming_the_transform_argnum_and_path():
    bad = [(np.ones(2), {"b": "oops"})]
    for name, transform in [("grad", func.grad), ("jacobian", func.jacobian), ("jacfwd", func.jacfwd)]:
        with pytest.raises(TypeError, match=rf"{name}: argument 0\[0\]\[1\]\['b'\] is a str"):
            transform(lambda p: p[0][0].sum())(bad)
    with pytest.raises(TypeError, match=r"vjp: argument 1\['k'\] is a str"):
        func.vjp(lambda a, b: a, np.ones(2), {"k": "x"})


def test_a_tangent_of_another_structure_is_a_value_error():
    with pytest.raises(ValueError, match="jvp: tangents 0 has structure"):
        func.jvp(lambda p: p["a"], ({"a": np.ones(2)},), ({"b": np.ones(2)},))
    with pytest.raises(ValueError, match=r"jvp: tangent 0\['a'\] has shape \(3,\)"):
        func.jvp(lambda p: p["a"], ({"a": np.ones(2)},), ({"a": np.ones(3)},))


def test_hessian_of_a_dict_agrees_with_torch_func():
    torch = pytest.importorskip("torch", reason="torch.func is the reference")
    f = lambda p: (p["a"] ** 2 * p["b"].sin()).sum()  # noqa: E731
    p = {"a": RNG.standard_normal(2), "b": RNG.standard_normal(2)}
    H = func.hessian(f)(p)
    expect = torch.func.hessian(f)({k: torch.tensor(v) for k, v in p.items()})
    for k in p:
        for j in p:
            np.testing.assert_allclose(H[k][j], expect[k][j].numpy(), rtol=1e-12, atol=1e-14)
