"""Run one (op, case, target, dtype) and say how it went.

`run_case` makes the inputs from the case's domains (seeded by the op and
case names, so every backend sees the same numbers), then checks in turn:

- forward: the value against the op's float64 NumPy reference, and the
  result's dtype, backend and device;
- backward: each gradient's shape, dtype, backend and device equal its
  input's; inputs and the upstream gradient are not mutated; the gradient
  agrees with central differences (`torchlight.autograd.gradcheck`: element
  by element for inputs of up to 16 elements in float64, on 16 random groups
  of elements for larger ones, one random-sign direction per input in
  float32), or with the case's `grad_reference` at a kink;
- double backward (float64): `gradgradcheck`, in the inputs and in the
  incoming gradient;
- agreement: value and gradients equal the NumPy backend's within tolerance;
- bad-input cases: the documented exception, with the inputs untouched.

A complex case (`Case.complex`, the twins an entry with `complex=True` gets)
runs in complex128 (float64 tier) or complex64 (float32), and checks the
gradients in PyTorch's convention: for the real loss L = Re(sum(conj(w) *
f(z))) of a random complex w, the gradient of z is dL/dRe z + i dL/dIm z,
so along a random complex direction d the derivative of L is
Re(sum(conj(grad) * d)); central differences of L along d (the real and
imaginary parts moved together) must give the same, for three directions,
and likewise for the second derivative (the real loss Re(sum(conj(u) *
grad))) in complex128.

Example:
    >>> from conformance import database
    >>> from conformance.checks import run_case
    >>> from conformance.target import resolve
    >>> op = database.get("exp")
    >>> run_case(op, op.cases[0], resolve("numpy"), "float64").status
    'passed'
"""

from __future__ import annotations

import time
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import torchlight as tl
from conformance.opinfo import COMPLEX_OF, Case, OpInfo
from conformance.target import Target, Unusable, resolve
from torchlight.autograd import GradcheckError, gradcheck, gradgradcheck

#: (atol, rtol) for the forward value and for agreement with NumPy, per dtype
VALUE_TOL = {"float64": (1e-9, 1e-7), "float32": (1e-5, 1e-4)}
#: the largest input (elements) whose full Jacobian is checked in float64
FULL_JACOBIAN_MAX = 16


class CheckFailure(AssertionError):
    """One check of one case failed; the message says which and by how much."""


@dataclass
class Result:
    """The outcome of one (op, case, dtype) on one target."""

    op: str
    case: str
    dtype: str
    status: str = "passed"
    message: str = ""
    errors: dict[str, float] = field(default_factory=dict)
    checks: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"op": self.op, "case": self.case, "dtype": self.dtype, "status": self.status,
                "message": self.message, "errors": self.errors, "checks": self.checks,
                "seconds": round(self.seconds, 4)}


def case_seed(op: OpInfo, case: Case) -> int:
    """A seed that depends only on the op and case names."""
    return zlib.crc32(f"{op.name}/{case.name}".encode())


def host_inputs(op: OpInfo, case: Case, dtype: str) -> list[np.ndarray]:
    """The case's inputs as float64 host arrays, already rounded to `dtype` (complex128 ones rounded
    to its complex counterpart for a complex case, the imaginary parts drawn from the domain too)."""
    rng = np.random.default_rng(case_seed(op, case))
    hosts = [case.domain_of(i, op.domain)(rng, tuple(shape)) for i, shape in enumerate(case.shapes)]
    if case.complex:
        hosts = [h + 1j * case.domain_of(i, op.domain)(rng, tuple(h.shape)) for i, h in enumerate(hosts)]
        return [np.asarray(h, dtype=np.dtype(COMPLEX_OF[dtype])).astype(np.complex128) for h in hosts]
    return [np.asarray(h, dtype=np.dtype(dtype)).astype(np.float64) for h in hosts]


def _case_dtype(case: Case, dtype: str) -> str:
    """The dtype the case's inputs have in the tier `dtype`."""
    return COMPLEX_OF[dtype] if case.complex else dtype


def skip_reason(op: OpInfo, case: Case, target: Target, dtype: str) -> str | None:
    """Why this case does not run here, or None."""
    if dtype not in op.dtypes:
        return f"{op.name} is not defined for {dtype}"
    if case.dtypes is not None and dtype not in case.dtypes:
        return f"case {case.name} runs in {', '.join(case.dtypes)} only"
    for skips in (op.skips, case.skips):
        if target.name in skips:
            return skips[target.name]
    # the dtype the op computes in, one it casts to (`dtype=`), and a cast's target (`x.double()`; the
    # standard's dtypes only: float16, which it does not name, is skipped by name where a library lacks it)
    cast = case.kwargs.get("target")  # (a loss's `target` is an array: only a name is a cast's dtype)
    cast = cast if isinstance(cast, str) and cast != "float16" else None
    for wanted in (_case_dtype(case, dtype), case.kwargs.get("dtype"), cast):
        if isinstance(wanted, str) and not target.has_dtype(wanted):
            return f"device {target.device_name} of {target.name} has no {wanted}"
    if case.other_backend is not None:
        try:
            resolve(_other_backend(target))
        except Unusable as exc:
            return f"needs a second backend: {exc}"
    return None


def run_case(op: OpInfo, case: Case, target: Target, dtype: str) -> Result:
    """All checks of one case; never raises for a failing op (see `Result`)."""
    result = Result(op.name, case.name, dtype)
    start = time.perf_counter()
    reason = skip_reason(op, case, target, dtype)
    if reason is not None:
        result.status, result.message = "skipped", reason
        return result
    check = "setup"
    quiet = np.errstate(divide="ignore", invalid="ignore", over="ignore") if case.ieee else nullcontext()
    try:
        with quiet:
            for check in _plan(op, case, target, dtype):
                result.checks.append(check)
                error = _CHECKS[check](op, case, target, dtype)
                if error is not None:
                    result.errors[check] = float(error)
    except Exception as exc:  # a failing check, or the op itself raising
        result.status = "failed"
        detail = str(exc) if isinstance(exc, (CheckFailure, GradcheckError)) else f"{type(exc).__name__}: {exc}"
        result.message = f"{op.name} [{case.name}] on {target.label} {dtype}: {check}: {detail}"
    result.seconds = time.perf_counter() - start
    return result


def _plan(op: OpInfo, case: Case, target: Target, dtype: str) -> list[str]:
    if case.raises is not None:
        return ["raises"]
    plan = ["forward"]
    if not op.differentiable or case.forward_only:
        return plan + (["agreement"] if target.name != "numpy" else [])
    plan.append("backward")
    double = op.double_backward if case.double_backward is None else case.double_backward
    if dtype == "float64" and double:
        plan.append("double_backward")
    if target.name != "numpy":
        plan.append("agreement")
    return plan


# ------------------------------------------------------------------ helpers
def _host(t: Any) -> np.ndarray:
    host = t.backend.to_numpy(t.data)
    return np.asarray(host, dtype=np.complex128 if np.iscomplexobj(host) else np.float64)


def _leaves(op: OpInfo, case: Case, target: Target, dtype: str, hosts: list[np.ndarray]) -> list[Any]:
    leaves = []
    for i, h in enumerate(hosts):
        place = target if case.other_backend != i else resolve(_other_backend(target))
        grad = op.differentiable and case.raises is None and case.requires_grad(i)
        leaves.append(place.tensor(h, _case_dtype(case, dtype), requires_grad=grad))
    return leaves


def _other_backend(target: Target) -> str:
    return "array_api_strict" if target.name == "numpy" else "numpy"


def _tolerances(op: OpInfo, case: Case, check: str, dtype: str, default: tuple) -> tuple[float, float]:
    tol = op.tolerance(check, dtype, case)
    atol, rtol = default
    if tol is not None:
        atol = atol if tol.atol is None else tol.atol
        rtol = rtol if tol.rtol is None else tol.rtol
    return atol, rtol


def _compare(what: str, got: np.ndarray, want: np.ndarray, atol: float, rtol: float) -> float:
    """Max abs error of `got` against `want`; CheckFailure when out of tolerance."""
    kind = np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(want) else np.float64
    got, want = np.asarray(got, dtype=kind), np.asarray(want, dtype=kind)
    if got.shape != want.shape:
        raise CheckFailure(f"{what}: shape {got.shape}, expected {want.shape}")
    if got.size == 0:
        return 0.0
    same_nan = np.array_equal(np.isnan(got), np.isnan(want))
    close = np.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
    finite = np.isfinite(got) & np.isfinite(want)
    error = float(np.max(np.abs(got - want)[finite], initial=0.0))
    if not (same_nan and close.all()):
        worst = int(np.argmax(np.where(close, 0.0, 1.0)))
        raise CheckFailure(f"{what}: max abs error {error:.3g} exceeds atol={atol:g}, rtol={rtol:g} "
                           f"(element {worst}: got {got.reshape(-1)[worst]!r}, expected {want.reshape(-1)[worst]!r})")
    return error


def _check_unmutated(leaves: list[Any], hosts: list[np.ndarray], by: str) -> None:
    for i, (leaf, h) in enumerate(zip(leaves, hosts)):
        if not np.array_equal(_host(leaf), h, equal_nan=True):
            raise CheckFailure(f"input {i} was modified by {by}")


def _dtype_name(dtype: Any) -> str:
    return str(dtype).split(".")[-1]


def _check_meta(what: str, t: Any, like: Any, dtype: Any = None) -> None:
    """`t` has `like`'s shape (unless None), dtype, backend and device."""
    if t.backend is not like.backend:
        raise CheckFailure(f"{what}: backend {t.backend.name!r}, expected {like.backend.name!r}")
    if t._device != like._device:
        raise CheckFailure(f"{what}: device {t._device}, expected {like._device}")
    want = like.dtype if dtype is None else dtype
    if t.dtype != want:
        raise CheckFailure(f"{what}: dtype {t.dtype}, expected {want}")


def _check_result_meta(op: OpInfo, out: Any, like: Any) -> None:
    """The result's dtype is the input's (or the kind `op.output_dtype` says), on its backend and device;
    of a complex input, its real counterpart may be (abs, angle, real, imag)."""
    if op.same_backend:
        _check_meta("result", out, like, out.dtype)
    if like.backend.is_complex(like.dtype) and not out.backend.is_complex(out.dtype):
        if _dtype_name(out.dtype) != {"complex128": "float64", "complex64": "float32"}[_dtype_name(like.dtype)]:
            raise CheckFailure(f"result: dtype {out.dtype}, expected the real counterpart of {like.dtype}")
        return
    if op.output_dtype is None:
        if _dtype_name(out.dtype) != _dtype_name(like.dtype):
            raise CheckFailure(f"result: dtype {out.dtype}, expected the input's {like.dtype}")
        return
    kind = {"bool": "bool", "int": "integral", "float": "real floating"}[op.output_dtype]
    if not out.backend.xp.isdtype(out.dtype, kind):
        raise CheckFailure(f"result: dtype {out.dtype}, expected a {kind} dtype")


# ------------------------------------------------------------------- checks
def _check_raises(op: OpInfo, case: Case, target: Target, dtype: str) -> None:
    hosts = host_inputs(op, case, dtype)
    leaves = _leaves(op, case, target, dtype, hosts)
    try:
        out = op.call(*leaves, **case.kwargs)
        if target.backend.lazy:  # (Dask checks values as it computes them: the error comes when read)
            for t in out if isinstance(out, (tuple, list)) else (out,):
                if hasattr(t, "backend"):
                    t.backend.to_numpy(t.data)
    except case.raises as exc:
        if case.match not in str(exc):
            raise CheckFailure(f"raised {type(exc).__name__} without {case.match!r} in its message: {exc}") from exc
    else:
        raise CheckFailure(f"expected {case.raises.__name__} ({case.match!r}); nothing was raised")
    _check_unmutated(leaves, hosts, "the failing call")


def _check_forward(op: OpInfo, case: Case, target: Target, dtype: str) -> float:
    hosts = host_inputs(op, case, dtype)
    leaves = _leaves(op, case, target, dtype, hosts)
    out = op.call(*leaves, **case.kwargs)
    _check_unmutated(leaves, hosts, "forward")
    if not isinstance(out, tl.Tensor):
        raise CheckFailure(f"the result is a {type(out).__name__}, not a Tensor")
    want = np.asarray(op.reference(*hosts, **case.kwargs))
    _check_result_meta(op, out, leaves[0])
    if not op.differentiable and out.requires_grad:
        raise CheckFailure("result requires grad, but this op has no gradient")
    atol, rtol = _tolerances(op, case, "forward", dtype, VALUE_TOL[dtype])
    return _compare("forward value vs the float64 NumPy reference", _host(out), want, atol, rtol)


def _evaluate(op: OpInfo, case: Case, target: Target, dtype: str, weights: np.ndarray | None = None,
              ) -> tuple[Any, list[Any], list[np.ndarray], float]:
    """Forward and backward once: (out, leaves, host inputs, directional derivative)."""
    hosts = host_inputs(op, case, dtype)
    leaves = _leaves(op, case, target, dtype, hosts)
    out = op.call(*leaves, **case.kwargs)
    rng = np.random.default_rng(case_seed(op, case) + 7)
    complex_out = out.backend.is_complex(out.dtype)
    if weights is None:
        weights = np.ones(out.shape) if case.grad_reference is not None else rng.standard_normal(out.shape)
        if complex_out:
            weights = weights + 1j * rng.standard_normal(out.shape)
    wanted = np.dtype(COMPLEX_OF[dtype] if complex_out else dtype)
    upstream = tl.tensor(out.backend.asarray(np.asarray(weights, dtype=wanted), device=out._device))
    sent = _host(upstream)
    out.backward(upstream)
    if not np.array_equal(_host(upstream), sent):
        raise CheckFailure("the upstream gradient passed to backward() was modified")
    _check_unmutated(leaves, hosts, "forward or backward")
    return out, leaves, hosts, weights


def _grads(leaves: list[Any]) -> list[np.ndarray | None]:
    out = []
    for x in leaves:
        if not x.requires_grad:
            out.append(None)
        elif x.grad is None:
            out.append(np.zeros(x.shape))
        else:
            out.append(_host(x.grad))
    return out


def _check_backward(op: OpInfo, case: Case, target: Target, dtype: str) -> float:
    out, leaves, hosts, weights = _evaluate(op, case, target, dtype)
    for i, x in enumerate(leaves):
        if x.requires_grad and x.grad is not None:
            if x.grad.shape != x.shape:
                raise CheckFailure(f"gradient of input {i}: shape {x.grad.shape}, expected {x.shape}")
            _check_meta(f"gradient of input {i}", x.grad, x)
    grads = _grads(leaves)
    tol = op.tolerance("backward", dtype, case)
    if case.complex:
        return _complex_directional_error(op, case, leaves, grads, weights, dtype, tol)
    if case.grad_reference is not None:
        want = case.grad_reference(*hosts, **case.kwargs)
        atol, rtol = _tolerances(op, case, "backward", dtype, VALUE_TOL[dtype])
        errors = [_compare(f"gradient of input {i} vs the documented convention", g, w, atol, rtol)
                  for i, (g, w) in enumerate(zip(grads, want)) if g is not None]
        return max(errors, default=0.0)
    kwargs = {} if tol is None else {k: getattr(tol, k) for k in ("eps", "atol", "rtol") if getattr(tol, k) is not None}
    full = FULL_JACOBIAN_MAX if dtype == "float64" else 0
    gradcheck(_bound(op, case), *leaves, full_jacobian_max=full, seed=case_seed(op, case), **kwargs)
    return _directional_error(op, case, leaves, grads, weights, dtype, kwargs.get("eps"))


def _directional_error(op: OpInfo, case: Case, leaves: list[Any], grads: list, weights: np.ndarray,
                       dtype: str, eps: float | None) -> float:
    """|vjp . d - central difference| for one random d (the reported backward error)."""
    rng = np.random.default_rng(case_seed(op, case) + 11)
    direction = [rng.standard_normal(x.shape) if g is not None else None for x, g in zip(leaves, grads)]
    eps = eps or (1e-6 if dtype == "float64" else 1e-3)

    def value(t: float) -> float:
        moved = [tl.tensor(x.backend.asarray(np.asarray(_host(x) + t * d, dtype=np.dtype(dtype)), device=x._device))
                 if d is not None else x.detach() for x, d in zip(leaves, direction)]
        with tl.no_grad():
            return float(np.sum(_host(op.call(*moved, **case.kwargs)) * weights))

    numeric = (value(eps) - value(-eps)) / (2 * eps)
    analytic = sum(float(np.sum(g * d)) for g, d in zip(grads, direction) if g is not None)
    return abs(analytic - numeric)


#: (eps, atol, rtol) of the complex directional checks, per tier
COMPLEX_TOL = {"float64": (1e-6, 1e-6, 1e-5), "float32": (1e-2, 5e-2, 5e-2)}


def _real_loss(op: OpInfo, case: Case, leaves: list[Any], hosts: list[np.ndarray], weights: np.ndarray,
               dtype: str) -> float:
    """Re(sum(conj(weights) * f(hosts))) without grad, the inputs on the leaves' backends and devices."""
    moved = [tl.tensor(x.backend.asarray(np.asarray(h, dtype=_np_dtype(x)), device=x._device))
             for x, h in zip(leaves, hosts)]
    with tl.no_grad():
        return float(np.real(np.sum(np.conj(weights) * _host(op.call(*moved, **case.kwargs)))))


def _np_dtype(t: Any) -> np.dtype:
    return np.dtype(_dtype_name(t.dtype))


def _directions(op: OpInfo, case: Case, leaves: list[Any], grads: list, k: int) -> list[list]:
    """Three random complex directions (one entry per input that has a gradient, else None)."""
    rng = np.random.default_rng(case_seed(op, case) + 11 + k)
    return [[rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape) if g is not None else None
             for x, g in zip(leaves, grads)] for _ in range(3)]


def _along(op: OpInfo, case: Case, leaves: list[Any], f: Any, grads: list, dtype: str, tol: Any, what: str,
           k: int = 0) -> float:
    """Central differences of the real function `f(hosts)` along random complex directions against
    Re(sum(conj(grad) * d)); the worst error, or CheckFailure."""
    eps, atol, rtol = COMPLEX_TOL[dtype]
    if tol is not None:
        eps, atol, rtol = (tol.eps or eps), (tol.atol or atol), (tol.rtol or rtol)
    base = [_host(x) for x in leaves]
    worst = 0.0
    for direction in _directions(op, case, leaves, grads, k):
        up = [b + eps * d if d is not None else b for b, d in zip(base, direction)]
        down = [b - eps * d if d is not None else b for b, d in zip(base, direction)]
        numeric = (f(up) - f(down)) / (2 * eps)
        analytic = sum(float(np.real(np.sum(np.conj(g) * d))) for g, d in zip(grads, direction) if d is not None)
        error = abs(analytic - numeric)
        if error > atol + rtol * abs(numeric):
            raise CheckFailure(f"{what}: the directional derivative {analytic!r} (in PyTorch's convention) "
                               f"differs from central differences {numeric!r} by {error:.3g}")
        worst = max(worst, error)
    return worst


def _complex_directional_error(op: OpInfo, case: Case, leaves: list[Any], grads: list, weights: np.ndarray,
                               dtype: str, tol: Any) -> float:
    """A complex case's backward: the gradients against central differences of the real loss."""
    def loss(hosts: list[np.ndarray]) -> float:
        return _real_loss(op, case, leaves, hosts, weights, dtype)

    return _along(op, case, leaves, loss, grads, dtype, tol, "complex gradient")


def _complex_double_backward(op: OpInfo, case: Case, target: Target, dtype: str) -> None:
    """A complex case's second derivative: of the real loss Re(sum(conj(u) * grad(z))), against
    central differences of the first-order gradients."""
    hosts = host_inputs(op, case, dtype)
    leaves = _leaves(op, case, target, dtype, hosts)
    wanted = [x for x in leaves if x.requires_grad]
    out = op.call(*leaves, **case.kwargs)
    rng = np.random.default_rng(case_seed(op, case) + 13)
    complex_out = out.backend.is_complex(out.dtype)
    w = rng.standard_normal(out.shape) + (1j * rng.standard_normal(out.shape) if complex_out else 0)
    w_dtype = np.dtype(COMPLEX_OF[dtype] if complex_out else dtype)
    seed = tl.tensor(out.backend.asarray(np.asarray(w, dtype=w_dtype), device=out._device))
    firsts = tl.autograd.grad(out, wanted, seed, create_graph=True, allow_unused=True)
    us = [rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape) for x in wanted]
    total = None
    for u, g in zip(us, firsts):
        if g is None or not g.requires_grad:
            continue
        term = (tl.tensor(g.backend.asarray(np.asarray(u, dtype=_np_dtype(g)), device=g._device)).conj() * g).real.sum()
        total = term if total is None else total + term
    if total is None:  # a linear op: its gradients do not depend on the inputs
        return
    seconds = tl.autograd.grad(total, wanted, allow_unused=True)
    second_hosts = iter([None if s is None else _host(s) for s in seconds])
    grads2 = [next(second_hosts) if x.requires_grad else None for x in leaves]
    grads2 = [np.zeros(x.shape) if x.requires_grad and g is None else g for x, g in zip(leaves, grads2)]

    def first_order_loss(moved: list[np.ndarray]) -> float:
        xs = [tl.tensor(x.backend.asarray(np.asarray(h, dtype=_np_dtype(x)), device=x._device),
                        requires_grad=x.requires_grad) for x, h in zip(leaves, moved)]
        o = op.call(*xs, **case.kwargs)
        s = tl.tensor(o.backend.asarray(np.asarray(w, dtype=w_dtype), device=o._device))
        gs = tl.autograd.grad(o, [x for x in xs if x.requires_grad], s, allow_unused=True)
        return sum(float(np.real(np.sum(np.conj(u) * _host(g)))) for u, g in zip(us, gs) if g is not None)

    _along(op, case, leaves, first_order_loss, grads2, dtype, op.tolerance("double_backward", dtype, case),
           "complex second derivative", k=1)


def _bound(op: OpInfo, case: Case) -> Any:
    def fn(*xs: Any) -> Any:
        return op.call(*xs, **case.kwargs)

    return fn


def _check_double_backward(op: OpInfo, case: Case, target: Target, dtype: str) -> None:
    if case.complex:
        return _complex_double_backward(op, case, target, dtype)
    hosts = host_inputs(op, case, dtype)
    leaves = _leaves(op, case, target, dtype, hosts)
    tol = op.tolerance("double_backward", dtype, case)
    kwargs = {} if tol is None else {k: getattr(tol, k) for k in ("eps", "atol", "rtol") if getattr(tol, k) is not None}
    gradgradcheck(_bound(op, case), *leaves, seed=case_seed(op, case), full_jacobian_max=FULL_JACOBIAN_MAX, **kwargs)


def _check_agreement(op: OpInfo, case: Case, target: Target, dtype: str) -> float:
    """Value and gradients equal the NumPy backend's for the same inputs."""
    reference = resolve("numpy")
    atol, rtol = _tolerances(op, case, "agreement", dtype, VALUE_TOL[dtype])
    if not op.differentiable or case.forward_only:  # the value alone, as the case's own checks
        hosts = host_inputs(op, case, dtype)
        got = op.call(*_leaves(op, case, target, dtype, hosts), **case.kwargs)
        want = op.call(*_leaves(op, case, reference, dtype, hosts), **case.kwargs)
        return _compare("value vs the NumPy backend", _host(got), _host(want), atol, rtol)
    out, leaves, _, weights = _evaluate(op, case, target, dtype)
    ref_out, ref_leaves, _, _ = _evaluate(op, case, reference, dtype, weights)
    error = _compare("value vs the NumPy backend", _host(out), _host(ref_out), atol, rtol)
    for i, (g, w) in enumerate(zip(_grads(leaves), _grads(ref_leaves))):
        if g is not None:
            error = max(error, _compare(f"gradient of input {i} vs the NumPy backend", g, w, atol, rtol))
    return error


_CHECKS = {
    "raises": _check_raises,
    "forward": _check_forward,
    "backward": _check_backward,
    "double_backward": _check_double_backward,
    "agreement": _check_agreement,
}
