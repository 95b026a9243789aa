"""The gamma and Bessel functions (torchlight/ops/special_gamma.py) beyond the conformance entries:
gradcheck and gradgradcheck of each on every backend of the fixture, third derivatives (each
derivative is another function of the family), values and gradients against SciPy and PyTorch,
SciPy's values outside the domain, the dtype rules (integers promoted, float32 kept, complex refused),
the bad orders, multigammaln's domain error (Dask's when computed), and tl.compile of a program using them."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlight as tl
from torchlight.autograd import grad, gradcheck, gradgradcheck
from torchlight.ops import special_gamma as G

sc = pytest.importorskip("scipy.special")

#: clear of the poles (0 and the negative integers) and of i0e/i1e's kink at 0
POINTS = [0.35, 1.7, 4.2, -0.4, -2.6]

FUNCTIONS = {
    "gammaln": G.gammaln,
    "digamma": G.digamma,
    "polygamma1": lambda x: G.polygamma(1, x),
    "polygamma3": lambda x: G.polygamma(3, x),
    "multigammaln": lambda x: G.multigammaln(x * x + 1.5, 2),
    "i0": G.i0,
    "i0e": G.i0e,
    "i1": G.i1,
    "i1e": G.i1e,
}

REFERENCES = {
    "gammaln": sc.gammaln, "digamma": sc.digamma, "polygamma1": lambda x: sc.polygamma(1, x),
    "polygamma3": lambda x: sc.polygamma(3, x), "multigammaln": lambda x: sc.multigammaln(x * x + 1.5, 2),
    "i0": sc.i0, "i0e": sc.i0e, "i1": sc.i1, "i1e": sc.i1e,
}


def host(t: tl.Tensor) -> np.ndarray:
    return np.asarray(t.numpy())


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gradcheck_and_gradgradcheck(backend, device, name):
    x = tl.tensor(POINTS, backend=backend, device=device, dtype="float64", requires_grad=True)
    assert gradcheck(FUNCTIONS[name], x)
    assert gradgradcheck(FUNCTIONS[name], x)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_values_match_scipy(backend, device, name):
    x = tl.tensor(POINTS, backend=backend, device=device, dtype="float64")
    got = host(FUNCTIONS[name](x))
    np.testing.assert_allclose(got, REFERENCES[name](np.asarray(POINTS)), rtol=1e-13)


def nth_derivative(fn, x: tl.Tensor, n: int) -> tl.Tensor:
    out = fn(x)
    for _ in range(n):
        (out,) = grad(out.sum(), x, create_graph=True)
    return out


@pytest.mark.parametrize("name, order, reference", [
    ("gammaln", 3, lambda x: sc.polygamma(2, x)),      # d^3 gammaln = psi''
    ("digamma", 2, lambda x: sc.polygamma(2, x)),
    ("i0", 2, lambda x: sc.i0(x) - sc.i1(x) / x),      # i0'' = i1' = i0 - i1 / x
    ("i1", 1, lambda x: sc.i0(x) - sc.i1(x) / x),
])
def test_higher_derivatives_are_the_family(backend, device, name, order, reference):
    x = tl.tensor(POINTS, backend=backend, device=device, dtype="float64", requires_grad=True)
    got = host(nth_derivative(FUNCTIONS[name], x, order))
    np.testing.assert_allclose(got, reference(np.asarray(POINTS)), rtol=1e-12)


@pytest.mark.parametrize("name, at_zero", [("i0", 0.0), ("i1", 0.5), ("i0e", 0.0), ("i1e", 0.5)])
def test_bessel_gradient_at_zero_is_the_limit(backend, device, name, at_zero):
    """i1(x)/x in i1' and i1e' is 1/2 at 0 (its limit); sign(0) = 0 in i0e' (the kink of exp(-|x|))."""
    x = tl.tensor([0.0, 1e-9], backend=backend, device=device, dtype="float64", requires_grad=True)
    FUNCTIONS[name](x).sum().backward()
    assert host(x.grad)[0] == at_zero
    if name in ("i0", "i1"):  # continuous there: beside 0 it is the limit too
        assert host(x.grad)[1] == pytest.approx(at_zero, abs=1e-8)
    # the second derivative of i1 at 0 is 0 (i1 is odd), as the limit's constant branch gives
    (g,) = grad(G.i1(x).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x)
    assert host(h)[0] == 0.0


def test_gradients_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle of the gradients")
    points = np.asarray(POINTS)
    pairs = {
        "gammaln": (G.gammaln, torch.lgamma), "digamma": (G.digamma, torch.digamma),
        "polygamma2": (lambda x: G.polygamma(2, x), lambda x: torch.polygamma(2, x)),
        "multigammaln": (lambda x: G.multigammaln(x * x + 1.5, 3), lambda x: torch.mvlgamma(x * x + 1.5, 3)),
        "i0": (G.i0, torch.special.i0), "i0e": (G.i0e, torch.special.i0e),
        "i1": (G.i1, torch.special.i1), "i1e": (G.i1e, torch.special.i1e),
    }
    for name, (ours, theirs) in pairs.items():
        x = tl.tensor(points, requires_grad=True)
        ours(x).sum().backward()
        t = torch.tensor(points, requires_grad=True)
        theirs(t).sum().backward()
        np.testing.assert_allclose(host(x.grad), t.grad.numpy(), rtol=1e-9, err_msg=name)


EDGES = np.array([0.0, -0.0, -1.0, -3.0, np.inf, -np.inf, np.nan, 1e-300, -1e20, 1e6])


@pytest.mark.parametrize("name, reference", [
    ("gammaln", sc.gammaln), ("digamma", sc.digamma),
    ("polygamma1", lambda x: sc.polygamma(1, x)), ("polygamma3", lambda x: sc.polygamma(3, x)),
    ("i0", sc.i0), ("i0e", sc.i0e), ("i1", sc.i1), ("i1e", sc.i1e),
])
def test_outside_the_domain_values_are_scipys(backend, device, name, reference):
    """Poles, +-0, +-inf and NaN give SciPy's NaN or +-inf (signs included), never an exception or a
    floating-point warning (pytest turns those into errors)."""
    x = tl.tensor(EDGES, backend=backend, device=device, dtype="float64")
    got = host(FUNCTIONS[name](x))
    with np.errstate(all="ignore"):
        want = reference(EDGES)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_integers_are_promoted_to_the_default_float_and_float32_stays(backend, device):
    ints = tl.tensor([1, 2, 5], backend=backend, device=device)
    out = G.gammaln(ints)
    assert out.dtype == backend.default_float(device)
    np.testing.assert_allclose(host(out), [0.0, 0.0, math.log(24.0)], atol=1e-15)
    assert ints.polygamma(1).dtype == backend.default_float(device)
    x32 = tl.tensor([0.5, 2.5], backend=backend, device=device, dtype="float32")
    for fn in FUNCTIONS.values():
        assert fn(x32).dtype == x32.dtype


def test_complex_inputs_and_bad_orders_are_refused():
    z = tl.tensor([1.0 + 1.0j])
    with pytest.raises(TypeError, match="gammaln: complex inputs are not supported"):
        G.gammaln(z)
    with pytest.raises(TypeError, match="i0: complex"):
        z.i0()
    x = tl.tensor([1.0])
    with pytest.raises(ValueError, match="polygamma: n must be at least 0"):
        x.polygamma(-1)
    with pytest.raises(TypeError, match="polygamma: n must be an int"):
        tl.polygamma(True, x)
    with pytest.raises(ValueError, match="multigammaln: p must be at least 1"):
        x.mvlgamma(0)
    with pytest.raises(TypeError, match="gammaln: the input must be a Tensor"):
        G.gammaln(np.ones(2))


def test_multigammaln_domain_error(backend, device):
    a = tl.tensor([2.0, 0.9], backend=backend, device=device, dtype="float64")
    with pytest.raises(ValueError, match=r"multigammaln: every element of a must be greater than \(p - 1\)/2 = 1.0"):
        host(a.mvlgamma(3))
    assert np.isnan(host(tl.tensor([np.nan], backend=backend, device=device).mvlgamma(3))).all()  # as SciPy


def test_dask_raises_multigammaln_domain_error_when_computed():
    pytest.importorskip("dask")
    a = tl.tensor(np.array([2.0, 0.9]), backend="dask")
    out = a.mvlgamma(3)  # lazy: nothing is checked yet
    with pytest.raises(ValueError, match="multigammaln: every element of a"):
        out.numpy()


def test_the_free_functions_are_the_methods():
    x = tl.tensor([0.7, 3.5])
    for free, method in [(tl.lgamma(x), x.lgamma()), (tl.digamma(x), x.digamma()),
                         (tl.polygamma(2, x), x.polygamma(2)), (tl.mvlgamma(x + 1.0, 2), (x + 1.0).mvlgamma(2)),
                         (tl.i0(x), x.i0())]:
        np.testing.assert_array_equal(host(free), host(method))


def test_compiled_program_matches_eager():
    def loss(x):
        return (x.lgamma() + x.digamma() * x.polygamma(1) + G.i1e(x) + x.mvlgamma(2)).sum()

    x = tl.tensor(np.linspace(0.8, 4.0, 7), requires_grad=True)
    compiled = tl.compile(loss)
    for _ in range(2):
        x.grad = None
        value = compiled(x)
        value.backward()
    got = host(x.grad)
    x.grad = None
    loss(x).backward()
    np.testing.assert_allclose(got, host(x.grad), rtol=1e-13)
    assert value.item() == pytest.approx(loss(x).item(), rel=1e-13)
