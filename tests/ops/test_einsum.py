"""tl.einsum where the conformance table cannot say it: gradients against PyTorch's einsum (real, complex,
second order), the contraction order opt_einsum's path chooses (the matmuls that run, and their shapes),
`optimize=` and the explicit paths, the three calling forms, operands lifted, dtypes promoted, and the
errors' messages."""

from __future__ import annotations

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import functions as F
from torchlight.autograd import gradcheck, gradgradcheck, topological_sort
from torchlight.ops.einsum import contraction_path, parse

#: (subscripts, shapes): one of each kind of step (matmul, batch, diagonal, trace, outer, broadcast, chains)
SPELLINGS = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i,j->ij", [(3,), (2,)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),
    ("ij,jk->ijk", [(2, 1), (3, 4)]),
    ("iij,jkk->ik", [(2, 2, 3), (3, 2, 2)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 2), (2, 3), (3, 2)]),
    ("abc,cd,bd,a->", [(2, 3, 2), (2, 3), (3, 3), (2,)]),
]


def arrays(shapes, seed=0, complex_=False):
    rng = np.random.default_rng(seed)
    out = [rng.standard_normal(s) for s in shapes]
    if complex_:
        out = [x + 1j * rng.standard_normal(x.shape) for x in out]
    return out


def leaves(xs, backend=None, device=None):
    return [tl.tensor(x, backend=backend, device=device, requires_grad=True) for x in xs]


def host(t):
    return np.asarray(t.numpy())


def matmul_shapes(out):
    """The (left, right) shapes of every MatMul in the graph that made `out`, in the order they ran."""
    found = []
    for node in topological_sort(out):  # a Tensor, or the History of an intermediate nobody holds
        history = getattr(node, "history", node)
        if history is not None and history.last_fn is F.MatMul:
            found.append(tuple(tuple(t.shape) for t in history.inputs))
    return found


#: the conformance entry checks every spelling; here one of each step, on the default backends
CHECKED = [SPELLINGS[i] for i in (1, 2, 5, 7, 8)]


@pytest.mark.parametrize(("subscripts", "shapes"), CHECKED, ids=[s for s, _ in CHECKED])
def test_values_gradients_and_second_order(backend, device, subscripts, shapes):
    xs = arrays(shapes)
    ts = leaves(xs, backend, device)
    np.testing.assert_allclose(host(tl.einsum(subscripts, *ts)), np.einsum(subscripts, *xs), rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda *a: tl.einsum(subscripts, *a), *ts)
    assert gradgradcheck(lambda *a: tl.einsum(subscripts, *a), *ts)


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize(("subscripts", "shapes"), SPELLINGS, ids=[s for s, _ in SPELLINGS])
def test_gradients_agree_with_pytorch(subscripts, shapes, complex_):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for einsum's gradients")
    xs = arrays(shapes, seed=1, complex_=complex_)
    weights = arrays([np.einsum(subscripts, *xs).shape], seed=2, complex_=complex_)[0]
    ts = leaves(xs)
    out = tl.einsum(subscripts, *ts)
    (out * tl.tensor(weights)).real.sum().backward() if complex_ else (out * tl.tensor(weights)).sum().backward()
    ps = [torch.tensor(x, requires_grad=True) for x in xs]
    ref = torch.einsum(subscripts, *ps) * torch.tensor(weights)
    (ref.real if complex_ else ref).sum().backward()
    for t, p in zip(ts, ps):
        np.testing.assert_allclose(host(t.grad), p.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_second_order_agrees_with_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle for einsum's second derivatives")
    xs = arrays([(3, 4), (4, 5), (5, 3)], seed=3)
    subscripts = "ij,jk,ki->"
    a, b, c = leaves(xs)
    (ga,) = tl.autograd.grad(tl.einsum(subscripts, a, b, c) ** 2, [a], create_graph=True)
    (ga * ga).sum().backward()
    pa, pb, pc = (torch.tensor(x, requires_grad=True) for x in xs)
    (qa,) = torch.autograd.grad(torch.einsum(subscripts, pa, pb, pc) ** 2, [pa], create_graph=True)
    (qa * qa).sum().backward()
    for t, p in zip((a, b, c), (pa, pb, pc)):
        np.testing.assert_allclose(host(t.grad), p.grad.numpy(), rtol=1e-10)


#: left to right, a @ b is 100 x 100 and costs 20 times the best order's flops, which contracts b @ c first
CHAIN = ("ab,bc,cd->ad", [(100, 5), (5, 100), (100, 5)])


def test_the_contraction_order_is_opt_einsums_path():
    opt_einsum = pytest.importorskip("opt_einsum")
    subscripts, shapes = CHAIN
    expected, _ = opt_einsum.contract_path(subscripts, *shapes, shapes=True, optimize="greedy")
    assert contraction_path(parse(subscripts, shapes), "greedy") == [tuple(s) for s in expected] == [(1, 2), (0, 1)]
    a, b, c = leaves(arrays(shapes))
    out = tl.einsum(subscripts, a, b, c, optimize="greedy")
    assert matmul_shapes(out) == [((5, 100), (100, 5)), ((100, 5), (5, 5))]  # b @ c first: no 100 x 100
    naive = tl.einsum(subscripts, a, b, c, optimize=False)
    assert matmul_shapes(naive) == [((100, 5), (5, 100)), ((100, 100), (100, 5))]
    np.testing.assert_allclose(host(out), host(naive), rtol=1e-10)
    assert matmul_shapes(tl.einsum(subscripts, a, b, c)) == matmul_shapes(out)  # "auto", the default, agrees


def test_one_matmul_per_contraction_and_none_without_a_sum():
    a, b, c, d = leaves(arrays([(2, 3), (3, 4), (4, 5), (5, 2)]))
    assert len(matmul_shapes(tl.einsum("ab,bc,cd,de->ae", a, b, c, d))) == 3
    assert matmul_shapes(tl.einsum("ij,ij->ij", a, a)) == []  # a product: nothing is summed
    assert matmul_shapes(tl.einsum("ii->", b[:, :3])) == []  # a diagonal and a sum


def test_explicit_paths_and_optimizers():
    subscripts, shapes = CHAIN
    xs = arrays(shapes)
    want = np.einsum(subscripts, *xs)
    ts = [tl.tensor(x) for x in xs]
    for optimize in (True, "optimal", "dp", "branch-2", [(1, 2), (0, 1)], ["einsum_path", (0, 1), (0, 1)],
                     np.einsum_path(subscripts, *xs, optimize="greedy")[0]):
        np.testing.assert_allclose(host(tl.einsum(subscripts, *ts, optimize=optimize)), want, rtol=1e-10)
    out = tl.einsum(subscripts, *ts, optimize=[(1, 2), (0, 1)])
    assert matmul_shapes(tl.einsum(subscripts, *leaves(xs), optimize=[(1, 2), (0, 1)]))[0] == ((5, 100), (100, 5))
    assert out.shape == (100, 5)
    for bad in ([(0, 1)], [(0, 3), (0, 1)], [(0, 0), (0, 1)], "fastest", 3, [[]]):
        with pytest.raises(ValueError, match="einsum: optimize="):
            tl.einsum(subscripts, *ts, optimize=bad)
    # one operand has nothing to order, and a bad optimize= is refused all the same
    assert tl.einsum("ii->", ts[0][:5, :5], optimize=[(0,)]).shape == ()
    for bad in ("fastest", 3.5, [(0, 1)]):
        with pytest.raises(ValueError, match="einsum: optimize="):
            tl.einsum("ii->", ts[0][:5, :5], optimize=bad)


def test_calling_forms_lifting_and_dtypes():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    want = a @ b
    for out in (tl.einsum("ij,jk->ik", tl.tensor(a), tl.tensor(b)), tl.einsum("ij,jk", [tl.tensor(a), b]),
                tl.einsum(tl.tensor(a), [0, 1], tl.tensor(b), [1, 2], [0, 2]), tl.einsum(a, [0, 1], b, [1, 2]),
                tl.einsum("ij,jk->ik", a, b), tl.einsum("i j , j k -> i k", a, tl.tensor(b))):
        assert isinstance(out, tl.Tensor)
        np.testing.assert_allclose(host(out), want)
    assert tl.einsum(tl.tensor(a), [Ellipsis, 1], [Ellipsis]).shape == (2,)
    scaled = tl.einsum("ij,->ij", tl.tensor(a), 2.0)  # a number is a 0-d operand
    np.testing.assert_allclose(host(scaled), 2 * a)
    mixed = tl.einsum("ij,jk->ik", tl.tensor(a, dtype=tl.float32), tl.tensor(b))
    assert mixed.dtype == tl.float64  # one dtype, NumPy's result type
    assert tl.einsum("ij->", tl.tensor([[1, 2], [3, 4]])).item() == 10  # integers, no gradient


def test_ellipsis_left_out_of_the_output_is_summed_as_pytorch():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(host(tl.einsum("...ij->ij", tl.tensor(x))), x.sum(0))


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: tl.einsum("ij,jk->ik", tl.ones(2, 3)), ValueError,
     "einsum: subscripts 'ij,jk->ik' give 2 operand(s)' subscripts, but 1 operand(s) were given"),
    (lambda: tl.einsum("ij,jk->ik", tl.ones(2, 3), tl.ones(3)), ValueError,
     "einsum: subscript 'jk' of operand 1 names 2 dims, but operand 1 has 1 (shape (3,))"),
    (lambda: tl.einsum("...ijk", tl.ones(2, 3)), ValueError,
     "einsum: subscript '...ijk' of operand 0 names 3 dims and an ellipsis, but operand 0 has 2"),
    (lambda: tl.einsum("ij,jk->ik", tl.ones(2, 3), tl.ones(4, 5)), ValueError,
     "einsum: letter 'j' has size 3 in operand 0 (subscript 'ij', shape (2, 3)) and size 4 in operand 1"),
    (lambda: tl.einsum("ii->i", tl.ones(2, 3)), ValueError, "letter 'i' is repeated in subscript 'ii' of operand 0"),
    (lambda: tl.einsum("i$->i", tl.ones(2, 3)), ValueError, "einsum: invalid character '$'"),
    (lambda: tl.einsum("i.j->i", tl.ones(2, 3)), ValueError, "'.' in subscript 'i.j' of operand 0"),
    (lambda: tl.einsum("ij->k", tl.ones(2, 3)), ValueError, "einsum: output letter 'k' appears in no operand"),
    (lambda: tl.einsum("ij->jj", tl.ones(2, 3)), ValueError, "output letter 'j' appears more than once"),
    (lambda: tl.einsum("...i...", tl.ones(2, 3)), ValueError, "subscript '...i...' of operand 0 has more than one"),
    (lambda: tl.einsum("ij->i->j", tl.ones(2, 3)), ValueError, "more than one '->'"),
    (lambda: tl.einsum("ij"), ValueError, "einsum: subscripts 'ij' but no operands"),
    (lambda: tl.einsum(), TypeError, "einsum: expects the subscripts"),
    (lambda: tl.einsum(tl.ones(2), [52]), ValueError, "einsum: operand 0's sublist holds 52"),
    (lambda: tl.einsum(tl.ones(2), "i"), TypeError, "einsum: operand 0's sublist must be a list"),
    (lambda: tl.einsum("i,i", tl.ones(2), "ab"), TypeError, "einsum: operand 1 is a str"),
    (lambda: tl.einsum("i,i", tl.ones(2), object()), TypeError, "einsum: operand 1 is a object"),
    (lambda: tl.einsum("i,i", tl.ones(2), tl.tensor([1.0, 2.0], backend="array_api_strict")), tl.BackendError,
     "einsum: tensors on two backends"),
])
def test_errors_name_what_is_wrong(call, error, match):
    with pytest.raises(error, match=__import__("re").escape(match)):
        call()
