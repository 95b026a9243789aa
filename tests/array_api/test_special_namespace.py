"""`torchlight.special` (torch.special's names) and `torchlight.array_api.special` (scipy.special's):
every name is there, with the signature of the library it follows, and gives that library's values."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import torchlight as tl
import torchlight.array_api as xp

TORCH_NAMES = ["erf", "erfc", "erfinv", "expit", "logit", "log_ndtr", "ndtr", "ndtri", "gammaln", "digamma", "psi",
               "polygamma", "multigammaln", "xlogy", "xlog1py", "entr", "i0", "i0e", "i1", "i1e", "sinc",
               "log_softmax", "softmax", "logsumexp"]
SCIPY_NAMES = ["erf", "erfc", "erfinv", "erfcinv", "expit", "logit", "log_ndtr", "ndtr", "ndtri", "xlogy",
               "xlog1py", "entr", "rel_entr", "sinc", "gammaln", "digamma", "psi", "polygamma", "multigammaln",
               "i0", "i0e", "i1", "i1e"]


def test_torchlight_special_has_torch_specials_names_and_signatures() -> None:
    assert set(TORCH_NAMES) <= set(tl.special.__all__)
    torch = pytest.importorskip("torch", reason="torch.special's names are the reference where it is installed")
    assert all(hasattr(torch.special, name) for name in TORCH_NAMES)
    signatures = {"erf": "(input)", "gammaln": "(input)", "logit": "(input, eps=None)", "polygamma": "(n, input)",
                  "multigammaln": "(input, p)", "softmax": "(input, dim, *, dtype=None)",
                  "log_softmax": "(input, dim, *, dtype=None)", "logsumexp": "(input, dim, keepdim=False)",
                  "xlogy": "(input, other)"}
    for name, expected in signatures.items():
        params = inspect.signature(getattr(tl.special, name)).parameters.values()
        assert str(inspect.Signature([p.replace(annotation=inspect.Parameter.empty) for p in params])) == expected, \
            name
    assert tl.special.psi is tl.special.digamma


def test_the_namespace_special_has_scipys_names_and_values() -> None:
    special = pytest.importorskip("scipy.special", reason="scipy is in the test extra")
    x = np.array([0.3, 0.6])
    for name in SCIPY_NAMES:
        assert name in xp.special.__all__, name
        args = {"xlogy": (x, x + 1.0), "xlog1py": (x, x), "rel_entr": (x, x[::-1]), "polygamma": (1, x),
                "multigammaln": (x + 2.0, 2)}.get(name, (x,))
        ours = getattr(xp.special, name)(*[tl.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        np.testing.assert_allclose(ours.numpy(), getattr(special, name)(*args), rtol=1e-14, err_msg=name)


def test_the_namespace_takes_arrays_and_numbers_and_names_itself_in_errors() -> None:
    np.testing.assert_allclose(xp.special.xlogy(2.0, tl.tensor([np.e])).numpy(), [2.0])
    np.testing.assert_allclose(xp.special.erf(np.array([0.0])).numpy(), [0.0])  # an array of a backend: wrapped
    with pytest.raises(TypeError, match="erf: z must be an array"):
        xp.special.erf([0.5])
    with pytest.raises(TypeError, match="polygamma: n must be one order"):
        xp.special.polygamma(np.array([1, 2]), tl.tensor([0.5, 1.5]))
