"""The derivative transforms of `torchlight.func` (see the package's docstring and docs/func.md).

Each transform runs `f` once through a `_Trace`: the leaves of the
differentiated arguments (pytrees) enter as new nodes of the graph, the
results are flattened, and the derivatives come from `autograd.grad`
passes over that one graph: reverse mode directly (`grad`, `vjp`,
`jacobian`), forward mode by the double-vjp construction (`jvp`, `jacfwd`,
`linearize`, sharing `_first_backward`), second order by reverse over
reverse (`hvp`, `hessian`).

Example:
    >>> import numpy as np
    >>> from torchlight.func import _transforms
    >>> _transforms.jacfwd(lambda x: x.exp())(np.zeros(2))
    array([[1., 0.],
           [0., 1.]])
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from torchlight import grad_mode
from torchlight.autograd import functions as F
from torchlight.autograd.functional import grad as autograd_grad
from torchlight.creation import _is_array as is_array
from torchlight.creation import tensor
from torchlight.engine import sort_nodes, transposing_backward
from torchlight.func import _batching
from torchlight.func._batching import BatchedTensor, Unbatchable
from torchlight.func._pytree import TreeSpec, leaves_with_paths, tree_flatten, tree_map
from torchlight.tensor import Tensor

__all__ = ["grad", "hessian", "hvp", "jacfwd", "jacobian", "jacrev", "jvp", "linearize", "value_and_grad", "vjp"]

Argnums = int | tuple[int, ...]

# Leaves a transform made whose f has returned (its differentiated arguments; jvp's and the
# Jacobian columns' placeholder cotangents), by id: no enclosing transform differentiates with
# respect to them, so reaching one does not make it nested. An enclosing transform's own leaves
# join only once its f has returned, so a transform inside f that reaches them is nested.
_DONE_LEAVES: weakref.WeakValueDictionary[int, Tensor] = weakref.WeakValueDictionary()


# ------------------------------------------------------------------ the transforms
def grad(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """The gradient of a scalar-valued `f` with respect to argument(s) `argnums`.

    Returns a function of the same arguments as `f`. With a tuple `argnums`
    it returns a tuple of gradients; with `has_aux=True`, `f` returns
    `(output, aux)` and the new function returns `(gradient, aux)`.
    Keyword arguments go to `f` as they are (arrays as constant Tensors) and
    are never differentiated, as in `torch.func.grad` and `jax.grad`; the
    same holds for `value_and_grad`, `jacobian` and `hessian`.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> func.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(np.ones(2), np.full(2, 3.0))
        (array([3., 3.]), array([1., 1.]))
    """
    value_and_grad_f = value_and_grad(f, argnums, has_aux)

    @functools.wraps(f)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, g = value_and_grad_f(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


def value_and_grad(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """Like `grad`, but the new function returns `(value, gradient)`.

    With `has_aux=True` it returns `((value, aux), gradient)`, as JAX does.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> value, g = func.value_and_grad(lambda x: (x * x).sum())(np.array([1.0, 2.0]))
        >>> float(value), g
        (5.0, array([2., 4.]))
    """

    @functools.wraps(f)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), "grad")
        trace = _Trace("grad", f, args, nums, has_aux, kwargs)
        out = trace.scalar_output()
        grads = trace.pullback([out], [None], create_graph=trace.nested, retain_graph=False)
        grads = trace.per_argnum([trace.export(trace.logical(g)) for g in grads])
        value = trace.export(trace.result)
        if has_aux:
            value = (value, trace.export(trace.aux))
        return value, (grads[0] if isinstance(argnums, int) else tuple(grads))

    return value_and_grad_f


def vjp(f: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """`f(*primals)` and a function mapping a cotangent to the vector-Jacobian products.

    Returns `(value, vjp_fn)`, or `(value, vjp_fn, aux)` with `has_aux`.
    `vjp_fn(cotangent)` takes a cotangent shaped like `value` (the same
    pytree when `f` returns one) and returns a tuple with one entry per
    primal, each shaped like its primal (a pytree for a pytree). It can be
    called many times: the graph of `f` is kept until `vjp_fn` is dropped.
    A cotangent that is a Tensor requiring grad gives results that are
    differentiable in it (the double-vjp construction that `jvp` uses).

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> value, vjp_fn = func.vjp(lambda x: x * x, np.array([1.0, 2.0]))
        >>> vjp_fn(np.array([1.0, 10.0]))
        (array([ 2., 40.]),)
    """
    if not primals:
        raise ValueError("vjp: no primals")
    trace = _Trace("vjp", f, primals, tuple(range(len(primals))), has_aux)

    def vjp_fn(cotangent: Any) -> tuple:
        cotangents = trace.unflatten_like("vjp", cotangent)
        seeds = [_like("vjp", "cotangent", i, c, o) for i, (c, o) in enumerate(zip(cotangents, trace.outputs))]
        create = grad_mode.is_grad_enabled() and (trace.nested or _any_requires_grad(seeds))
        grads = trace.pullback(trace.outputs, seeds, create_graph=create, retain_graph=True)
        return tuple(trace.per_argnum([trace.export(g, keep=create) for g in grads]))

    value = trace.export(trace.result)
    return (value, vjp_fn, trace.export(trace.aux)) if has_aux else (value, vjp_fn)


def jvp(f: Callable, primals: Any, tangents: Any, *, has_aux: bool = False) -> tuple:
    """`(f(*primals), J @ tangents)`: the Jacobian-vector product, by double vjp.

    `primals` and `tangents` are tuples with one entry per primal, each
    an array, a Tensor or a pytree of them (or one such entry each, not in
    a tuple), the tangents shaped like the primals. The product is
    d/du <vjp(u), tangents>: the vjp is linear in the cotangent `u`, so one
    more reverse pass through it gives J @ tangents. It costs
    about three passes of `f`. With `has_aux`, returns `(value, jvp, aux)`.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> func.jvp(lambda x: x ** 2, (np.array([1.0, 3.0]),), (np.array([1.0, 1.0]),))
        (array([1., 9.]), array([2., 6.]))
    """
    primals, tangents = _pair_up("jvp", primals, tangents)
    trace = _Trace("jvp", f, primals, tuple(range(len(primals))), has_aux)
    tangents = trace.flat_like("jvp", "tangents", tangents)
    forward = _Forward(trace)
    create = trace.grad_enabled and (trace.nested or _any_requires_grad(tangents))
    products = forward.products(tangents, create_graph=create, retain_graph=create or trace.outside)
    tangent_out = trace.rebuild([trace.export(p, keep=create) for p in products])
    value = trace.export(trace.result)
    return (value, tangent_out, trace.export(trace.aux)) if has_aux else (value, tangent_out)


class _Forward:
    """Jacobian-vector products of one trace by double vjp: u -> J^T u is built once (with
    create_graph; it is linear in the placeholder cotangents u), then d<J^T u, t>/du = J t for each
    tangent t, one more backward pass each."""

    def __init__(self, trace: _Trace) -> None:
        self.trace = trace
        self.live = [o for o in trace.outputs if o.requires_grad]
        self.dummies = _done(*(_zeros(o).requires_grad_(True) for o in self.live))
        self.vjps: list[Tensor | None] = [None] * len(trace.inputs)
        if self.live:
            self.vjps = list(_first_backward(self.live, trace.inputs, self.dummies))

    def products(self, tangents: list[Tensor], *, create_graph: bool, retain_graph: bool) -> list[Tensor]:
        """J @ tangents (one tangent per input), one product per output of the trace."""
        products = {id(o): _zeros(o) for o in self.trace.outputs}
        pairs = [(g, t) for g, t in zip(self.vjps, tangents) if g is not None and g.requires_grad]
        if pairs:
            jvps = autograd_grad([g for g, _ in pairs], self.dummies, [t for _, t in pairs],
                                 create_graph=create_graph, retain_graph=retain_graph, materialize_grads=True)
            products.update({id(o): j for o, j in zip(self.live, jvps)})
        return [products[id(o)] for o in self.trace.outputs]

    def exact(self) -> bool:
        """Whether every vjp that is there is differentiable in u (else J t would come out as zeros)."""
        return all(g is None or g.requires_grad for g in self.vjps)


def _first_backward(live: list[Tensor], inputs: list[Tensor], dummies: list[Tensor]) -> Sequence[Tensor | None]:
    """J^T u for placeholder cotangents u (`dummies`), built with create_graph: the first backward
    of the double-vjp construction of forward mode (jvp, jacfwd, linearize). A Function with its own
    `jvp` records its backward here as the transpose of that jvp (`transposing_backward`), so the
    second pass differentiates it without needing its backward to be differentiable."""
    with transposing_backward():
        return autograd_grad(live, inputs, dummies, create_graph=True, retain_graph=True, allow_unused=True)


def linearize(f: Callable, *primals: Any) -> tuple:
    """`(f(*primals), jvp_fn)`: `jvp_fn(*tangents)` gives J @ tangents at `primals`, as `torch.func.linearize`.

    `f` runs once, and so does the first backward of the double-vjp
    construction (see `jvp`); each call of `jvp_fn` is one more backward
    pass. The tangents are shaped like the primals (pytrees for pytrees), the
    result like `f`'s output.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> value, jvp_fn = func.linearize(lambda x: x.sin(), np.array([0.0, np.pi]))
        >>> jvp_fn(np.array([1.0, 2.0]))
        array([ 1., -2.])
    """
    if not primals:
        raise ValueError("linearize: no primals")
    trace = _Trace("linearize", f, primals, tuple(range(len(primals))), False)
    forward = _Forward(trace)

    def jvp_fn(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise ValueError(f"linearize: jvp_fn takes {len(primals)} tangent(s), one per primal; got {len(tangents)}")
        flat = trace.flat_like("linearize", "tangents", tangents)
        create = grad_mode.is_grad_enabled() and (trace.nested or _any_requires_grad(flat))
        products = forward.products(flat, create_graph=create, retain_graph=True)
        return trace.rebuild([trace.export(p, keep=create) for p in products])

    return trace.export(trace.result), jvp_fn


def jacobian(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """The Jacobian of `f` in argument(s) `argnums`, by reverse mode.

    The new function returns an array (or Tensor) of shape
    `output.shape + input.shape`: a tuple over inputs for a tuple `argnums`,
    and a tuple over outputs (outermost) when `f` returns a tuple (nested tuples
    and lists keep their nesting); with
    `has_aux`, `(jacobian, aux)`. `f` runs once, then its graph is walked
    once per output element (one vjp per row, the graph retained between
    them). When an output has more elements than the inputs, it goes by
    columns instead: u -> J^T u is built once with `create_graph=True`,
    and one more backward pass per input element gives J e_j. Either way
    the cost is about min(outputs, inputs) backward passes.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> func.jacobian(lambda x: x[0] * x)(np.array([2.0, 3.0]))
        array([[4., 0.],
               [3., 2.]])
    """

    @functools.wraps(f)
    def jacobian_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), "jacobian")
        trace = _Trace("jacobian", f, args, nums, has_aux, kwargs)
        blocks = []
        for o in trace.outputs:
            per_input = trace.per_argnum([trace.export(j) for j in _jacobian_blocks(trace, o)])
            blocks.append(per_input[0] if isinstance(argnums, int) else tuple(per_input))
        result = trace.rebuild(blocks)
        return (result, trace.export(trace.aux)) if has_aux else result

    return jacobian_f


def jacrev(f: Callable, argnums: Argnums = 0, *, has_aux: bool = False, chunk_size: int | None = None) -> Callable:
    """The Jacobian by reverse mode, under `torch.func`'s name: `jacobian(f, argnums, has_aux)`.

    `chunk_size` is accepted for `torch.func`'s signature; the rows are
    computed one backward pass at a time whatever it is.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> func.jacrev(lambda x: x ** 2)(np.array([1.0, 2.0]))
        array([[2., 0.],
               [0., 4.]])
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"jacrev: chunk_size must be None or a positive int, not {chunk_size!r}")
    return jacobian(f, argnums, has_aux)


def jacfwd(f: Callable, argnums: Argnums = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    """The Jacobian of `f` in argument(s) `argnums` by forward mode: J e_j for each input element j.

    Shaped as `jacobian`'s result (`output.shape + input.shape`, pytrees
    kept). `f` runs once; the products J e_j come from the double-vjp
    construction of `jvp` over the standard basis, the first backward
    built once for all of them, then one backward pass per input element:
    the cheaper mode when inputs are fewer than outputs. A backward that
    is not differentiable in its incoming gradient (written on raw arrays)
    makes it go by rows instead, which is always right.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> func.jacfwd(lambda x: x[0] * x)(np.array([2.0, 3.0]))
        array([[4., 0.],
               [3., 2.]])
    """
    if randomness not in ("error", "different", "same"):
        raise ValueError(f"jacfwd: randomness must be 'error', 'different' or 'same', not {randomness!r}")

    @functools.wraps(f)
    def jacfwd_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), "jacfwd")
        trace = _Trace("jacfwd", f, args, nums, has_aux, kwargs)
        forward = _Forward(trace)
        per_output: list[list[Tensor]]
        if forward.exact():
            columns: list[list[list[Tensor]]] = [[] for _ in trace.outputs]  # [output][input] -> columns
            for i, x in enumerate(trace.inputs):
                for c in columns:
                    c.append([])
                for j in range(x.size):
                    tangents = [_onehot(x, j) if k == i else _zeros(y) for k, y in enumerate(trace.inputs)]
                    products = forward.products(tangents, create_graph=trace.nested, retain_graph=True)
                    for c, p in zip(columns, products):
                        c[i].append(p)
            per_output = [[_from_columns(cols, o, x) for cols, x in zip(by_input, trace.inputs)]
                          for by_input, o in zip(columns, trace.outputs)]
        else:
            per_output = [_jacobian_blocks(trace, o, by="rows") for o in trace.outputs]
        blocks = []
        for per_input in per_output:
            grouped = trace.per_argnum([trace.export(j) for j in per_input])
            blocks.append(grouped[0] if isinstance(argnums, int) else tuple(grouped))
        result = trace.rebuild(blocks)
        return (result, trace.export(trace.aux)) if has_aux else result

    return jacfwd_f


def _from_columns(columns: list[Tensor], out: Tensor, x: Tensor) -> Tensor:
    """Columns J e_j (each shaped like `out`) as the block shaped out.shape + x.shape."""
    if not columns:
        return _zeros_of(x, out.shape + x.shape)
    return _stack(columns).reshape(x.size, out.size).T.reshape(out.shape + x.shape)


def hessian(f: Callable, argnums: Argnums = 0) -> Callable:
    """The second derivatives of `f` in argument(s) `argnums`: `jacobian(jacobian(f))`.

    For a scalar `f` of an input of shape s this is the Jacobian of its
    gradient, shaped `s + s`; for a non-scalar `f`, `output.shape + s + s`.
    A tuple `argnums` gives the nested tuple of blocks `H[i][j]`.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> A = np.array([[1.0, 2.0], [0.0, 3.0]])
        >>> func.hessian(lambda x: x @ A @ x)(np.zeros(2))
        array([[2., 2.],
               [2., 6.]])
    """
    return jacobian(jacobian(f, argnums), argnums)


def hvp(f: Callable, primals: Any, tangents: Any) -> tuple:
    """`(f(*primals), H @ tangents)` for a scalar `f`, without forming H.

    Reverse-over-reverse: the gradient is built with `create_graph=True`,
    then one more reverse pass of `<gradient, tangents>` gives H^T v = H v.
    About three passes of `f`. `primals` and `tangents` are tuples (the
    product is then a tuple, one entry per primal) or one array, Tensor or
    pytree each.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> value, hv = func.hvp(lambda x: (x ** 3).sum(), np.array([1.0, 2.0]), np.array([1.0, 0.0]))
        >>> float(value), hv
        (9.0, array([6., 0.]))
    """
    single = not isinstance(primals, tuple)
    primals, tangents = _pair_up("hvp", primals, tangents)
    trace = _Trace("hvp", f, primals, tuple(range(len(primals))), False)
    tangents = trace.flat_like("hvp", "tangents", tangents)
    out = trace.scalar_output()
    create = trace.grad_enabled and (trace.nested or _any_requires_grad(tangents))
    products = [_zeros(x) for x in trace.inputs]
    if out.requires_grad:
        grads = autograd_grad([out], trace.inputs, create_graph=True, retain_graph=True, allow_unused=True)
        pairs = [(g, t) for g, t in zip(grads, tangents) if g is not None and g.requires_grad]
        if pairs:
            products = list(autograd_grad([g for g, _ in pairs], trace.inputs, [t for _, t in pairs],
                                          create_graph=create, retain_graph=create or trace.outside,
                                          materialize_grads=True))
    products = trace.per_argnum([trace.export(p, keep=create) for p in products])
    return trace.export(out), (products[0] if single else tuple(products))


# ---------------------------------------------------------------- one run of f
class _Trace:
    """One run of `f`, each differentiated leaf entering as a new node of the graph.

    The differentiated arguments are pytrees; `inputs` holds one Tensor per
    leaf of them (a `None` leaf has none and gets a `None` derivative),
    sharing its data: a new leaf, or an identity op on a Tensor of an
    enclosing differentiable computation, which keeps the link. `groups`
    says which inputs rebuild which argument. `nested` says whether `f`'s
    results depend on some Tensor requiring grad outside this trace: then
    the derivatives are built with `create_graph=True` and stay Tensors.

    Inside the one batched call of a `vmap` (`levels`), each input is the
    whole batch (an unbatched argument expanded to it), `f` gets it as a
    `BatchedTensor`, and the derivatives are per sample: one backward pass
    of the batch's outputs gives each sample's gradient, since no batched op
    mixes samples.
    """

    def __init__(self, name: str, f: Callable, args: Sequence[Any], argnums: tuple[int, ...],
                 has_aux: bool, kwargs: dict[str, Any] | None = None) -> None:
        self.name = name
        self.grad_enabled = grad_mode.is_grad_enabled()
        self.levels = _batching.active_levels()
        if self.levels and name != "grad":
            raise Unbatchable(f"func.{name} inside vmap")
        self.as_arrays = not any(isinstance(leaf, Tensor) for i in argnums for leaf in tree_flatten(args[i])[0])
        call = [tree_map(_constant, a) for a in args]
        keywords = {k: tree_map(_constant, v) for k, v in kwargs.items()} if kwargs else {}  # never differentiated
        self.inputs: list[Tensor] = []
        self.groups: list[tuple[TreeSpec, list[int | None]]] = []
        with grad_mode.enable_grad():
            for i in argnums:
                spec = tree_flatten(args[i])[1]
                slots: list[int | None] = []
                passed: list[Any] = []
                for path, leaf in leaves_with_paths(args[i]):
                    if leaf is None:
                        slots.append(None)
                        passed.append(None)
                        continue
                    x, given = _enter(name, i, path, leaf, self.grad_enabled, self.levels)
                    slots.append(len(self.inputs))
                    self.inputs.append(x)
                    passed.append(given)
                self.groups.append((spec, slots))
                call[i] = spec.unflatten(iter(passed))
            if not self.inputs:
                raise ValueError(f"{name}: argument(s) {', '.join(map(str, argnums))} hold no array or number "
                                 "to differentiate")
            result = f(*call, **keywords)
        _done(*(x for x in self.inputs if x.is_leaf))
        self.aux = None
        if has_aux:
            if not isinstance(result, tuple) or len(result) != 2:
                raise TypeError(f"{name}: with has_aux=True, f must return a pair (output, aux)")
            result, self.aux = result
        self.result = result
        parts, self.spec = tree_flatten(result)
        self.outputs = [_output(name, p, self.inputs[0]) for p in parts]
        own = {id(x) for x in self.inputs if x.is_leaf}
        self.outside = _reaches_outside([_unwrapped(t) for t in self.outputs + _tensors_in(self.aux)], own)
        self.nested = self.grad_enabled and self.outside

    def scalar_output(self) -> Tensor:
        """The single one-element output of a scalar function (all the batch's, inside vmap)."""
        if not self.spec.is_leaf() or self.outputs[0].size != 1:
            shape = "a pytree" if not self.spec.is_leaf() else f"shape {self.outputs[0].shape}"
            raise ValueError(f"{self.name}: f must return a one-element Tensor (a scalar), got {shape}; "
                             "use jacobian or vjp for other outputs")
        return _batching.physical(self.outputs[0], self.levels) if self.levels else self.outputs[0]

    def pullback(self, outputs: list[Tensor], seeds: list[Any], *, create_graph: bool,
                 retain_graph: bool) -> list[Tensor]:
        """sum_k <seeds[k], d outputs[k] / d inputs>, zeros for inputs f does not use."""
        live = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
        if not live:
            return [_zeros(x) for x in self.inputs]
        if self.levels:  # the batch's outputs: each sample's seed is 1
            live = [(o, _ones(o) if s is None else s) for o, s in live]
        return list(autograd_grad([o for o, _ in live], self.inputs, [s for _, s in live],
                                  create_graph=create_graph, retain_graph=retain_graph or self.outside,
                                  materialize_grads=True))

    def logical(self, value: Tensor) -> Tensor:
        """A derivative of the whole batch as the per-sample value `f`'s caller sees (inside vmap)."""
        return _batching.rewrap(value, self.levels) if self.levels else value

    def export(self, value: Any, keep: bool | None = None) -> Any:
        """A result in the caller's kind: arrays for array callers, Tensors for Tensor callers.

        A Tensor still differentiable with respect to an enclosing
        computation (`keep`, default `nested`) is returned as it is.
        """
        keep = self.nested if keep is None else keep

        def one(v: Any) -> Any:
            if not isinstance(v, Tensor):
                return v
            if keep and v.requires_grad:
                return v
            v = v.detach()
            if isinstance(v, BatchedTensor) or not self.as_arrays:
                return v
            # asarray: a NumPy reduction gives a NumPy scalar; callers get a 0-d array (no copy otherwise)
            return v.backend.asarray(v.data)

        return tree_map(one, value)

    def rebuild(self, parts: list[Any]) -> Any:
        """`parts` (one per output) in the structure `f` returned."""
        return self.spec.unflatten(iter(parts))

    def per_argnum(self, flat: list[Any]) -> list[Any]:
        """One value per input (`flat`) regrouped as the differentiated arguments: a pytree each."""
        return [spec.unflatten(iter(None if s is None else flat[s] for s in slots)) for spec, slots in self.groups]

    def flat_like(self, name: str, what: str, values: Sequence[Any]) -> list[Tensor]:
        """Tangents (one pytree per differentiated argument) as one Tensor per input, checked against them."""
        flat = []
        for i, (value, (spec, slots)) in enumerate(zip(values, self.groups)):
            if tree_flatten(value)[1] != spec:
                raise ValueError(f"{name}: {what} {i} has structure {tree_flatten(value)[1]}, but the primal has "
                                 f"{spec}")
            for (path, t), slot in zip(leaves_with_paths(value), slots):
                if slot is not None:
                    flat.append(_like(name, what[:-1], f"{i}{path}", t, self.inputs[slot]))
        return flat

    def unflatten_like(self, name: str, value: Any) -> list[Any]:
        """A value shaped like f's result (one entry, or a pytree of them) as a flat list."""
        if self.spec.is_leaf():
            return [value]
        parts, spec = tree_flatten(value)
        if spec.is_leaf() or len(parts) != len(self.outputs):
            raise ValueError(f"{name}: f returned {len(self.outputs)} outputs; give a tuple of as many cotangents "
                             "(a pytree shaped as f's result)")
        return parts


# ------------------------------------------------------------------ helpers
def _argnums(argnums: Argnums, nargs: int, name: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise ValueError(f"{name}: argnums is empty")
    for a in nums:
        if not isinstance(a, int) or not -nargs <= a < nargs:
            raise ValueError(f"{name}: argnums={argnums!r} is out of range for {nargs} positional argument(s)")
    out = tuple(a % nargs for a in nums)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: argnums={argnums!r} names an argument twice")
    return out


def _is_array(value: Any) -> bool:
    return not isinstance(value, Tensor) and is_array(value)


def _constant(arg: Any) -> Any:
    """An array argument as a constant Tensor (no copy); anything else as it is."""
    if _is_array(arg):
        return tensor(arg)
    return arg


def _enter(name: str, i: int, path: str, primal: Any, grad_enabled: bool,
           levels: Sequence[Any]) -> tuple[Tensor, Any]:
    """A new differentiable node for a leaf `primal` (an array, a number or a Tensor), and what `f` gets
    for it: the node itself, or inside vmap the node of the whole batch as a BatchedTensor."""
    if not levels:
        x = _new_node(name, i, path, primal, grad_enabled)
        return x, x
    if not isinstance(primal, Tensor):
        primal = _new_node(name, i, path, primal, False).detach()
    x = _new_node(name, i, path, _batching.physical(primal, levels), grad_enabled)
    return x, _batching.rewrap(x, levels)


def _new_node(name: str, i: int, path: str, primal: Any, grad_enabled: bool) -> Tensor:
    if isinstance(primal, Tensor):
        if primal.requires_grad and grad_enabled:
            return F.Reshape.apply(primal, primal.shape)  # an identity: keeps the enclosing graph
        x = primal.detach()
    elif isinstance(primal, (int, float)) and not isinstance(primal, bool):
        x = tensor(float(primal))
    elif _is_array(primal):
        x = tensor(primal)
    else:
        raise TypeError(f"{name}: argument {i}{path} is a {type(primal).__name__}; "
                        "differentiate with respect to arrays, Tensors or numbers (in tuples, lists and dicts)")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{name}: argument {i}{path} has dtype {x.dtype}; derivatives need a floating-point "
                        "dtype (cast it first)")
    return x.requires_grad_(True)


def _output(name: str, value: Any, like: Tensor) -> Tensor:
    """One output of f as a Tensor (an array or a number is a constant)."""
    if isinstance(value, Tensor):
        return value
    if _is_array(value):
        return tensor(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        xp = like.backend.xp
        return Tensor._wrap(xp.asarray(float(value), dtype=like.dtype, device=like._device), like.backend)
    raise TypeError(f"{name}: f returned a {type(value).__name__}; it must return Tensors "
                    "(or a tuple of them)")


def _tensors_in(value: Any) -> list[Tensor]:
    return [t for t in tree_flatten(value)[0] if isinstance(t, Tensor)]


def _unwrapped(t: Tensor) -> Tensor:
    """The plain Tensor of the whole batch under a BatchedTensor (the one the graph holds)."""
    while isinstance(t, BatchedTensor):
        t = t.value
    return t


def _ones(like: Tensor) -> Tensor:
    return Tensor._wrap(like.backend.xp.ones_like(like.data), like.backend)


def _reaches_outside(roots: list[Tensor], own: set[int]) -> bool:
    """Whether the graph of `roots` has a leaf requiring grad that is not in `own`, nor made by a
    transform whose f has returned."""
    live = [t for t in roots if t.requires_grad]
    return bool(live) and any(node.is_leaf and id(node) not in own and _DONE_LEAVES.get(id(node)) is not node
                              for node in sort_nodes(live))


def _done(*leaves: Tensor) -> list[Tensor]:
    """Note `leaves` as made by a transform whose f has returned (see `_DONE_LEAVES`)."""
    for leaf in leaves:
        _DONE_LEAVES[id(leaf)] = leaf
    return list(leaves)


def _any_requires_grad(tensors: Sequence[Tensor]) -> bool:
    return any(t.requires_grad for t in tensors)


def _zeros(like: Tensor) -> Tensor:
    return Tensor._wrap(like.backend.xp.zeros_like(like.data), like.backend)


def _like(name: str, what: str, i: int | str, value: Any, like: Tensor) -> Tensor:
    """A tangent or cotangent as a Tensor of `like`'s backend, device, dtype and shape."""
    if not isinstance(value, Tensor):
        value = Tensor._wrap(like.backend.asarray(value, dtype=like.dtype, device=like._device), like.backend)
    elif value.dtype != like.dtype:
        value = value.astype(like.dtype)
    if value.shape != like.shape:
        raise ValueError(f"{name}: {what} {i} has shape {value.shape}, but it must match shape {like.shape}")
    return value


def _pair_up(name: str, primals: Any, tangents: Any) -> tuple[tuple, tuple]:
    """`primals` and `tangents` as tuples of equal length (a tuple holds one primal per entry; anything
    else, a list or a dict included, is one primal, as in torch.func)."""
    single = not isinstance(primals, tuple)
    primals = (primals,) if single else tuple(primals)
    tangents = (tangents,) if single else tuple(tangents) if isinstance(tangents, tuple) else (tangents,)
    if len(primals) != len(tangents):
        raise ValueError(f"{name}: {len(primals)} primals but {len(tangents)} tangents")
    if not primals:
        raise ValueError(f"{name}: no primals")
    return primals, tangents


def _jacobian_blocks(trace: _Trace, out: Tensor, by: str | None = None) -> list[Tensor]:
    """d out / d input for each input of `trace`, shaped out.shape + input.shape.

    By rows (one vjp per output element) unless the output has more elements
    than the inputs (plus the one extra pass the columns need): then by
    columns, which costs one backward pass per input element instead.
    """
    if not out.requires_grad or out.size == 0:
        return [_zeros_of(x, out.shape + x.shape) for x in trace.inputs]
    if by is None:
        by = "columns" if out.size > sum(x.size for x in trace.inputs) + 2 else "rows"
    if by == "columns":
        try:
            blocks = _jacobian_by_columns(trace, out)
        except NotImplementedError:  # a backward that cannot be recorded (a user's Function may say so)
            blocks = None
        if blocks is not None:
            return blocks
    rows: list[list[Tensor]] = [[] for _ in trace.inputs]
    for k in range(out.size):
        grads = trace.pullback([out], [_onehot(out, k)], create_graph=trace.nested, retain_graph=True)
        for row, g in zip(rows, grads):
            row.append(g)
    return [_stack(row).reshape(out.shape + x.shape) for row, x in zip(rows, trace.inputs)]


def _jacobian_by_columns(trace: _Trace, out: Tensor) -> list[Tensor] | None:
    """The Jacobian one column at a time: u -> J^T u is built once (it is linear
    in u), then d<J^T u, e_j>/du = J e_j for each input element j. None when
    J^T u does not depend on u (then only rows are right)."""
    (u,) = _done(_zeros(out).requires_grad_(True))
    vjps = autograd_grad([out], trace.inputs, [u], create_graph=True, retain_graph=True, allow_unused=True)
    blocks = []
    for x, g in zip(trace.inputs, vjps):
        if g is None or x.size == 0:  # out does not depend on x; an empty x has no column to stack
            blocks.append(_zeros_of(x, out.shape + x.shape))
            continue
        columns = _columns(g, u, x, trace.nested) if g.requires_grad else None
        if columns is None:  # a backward not differentiable in its gradient (written on arrays), or
            return None  # only step functions on the path
        blocks.append(_stack(columns).reshape(x.size, out.size).T.reshape(out.shape + x.shape))
    return blocks


def _columns(g: Tensor, u: Tensor, x: Tensor, create_graph: bool) -> list[Tensor] | None:
    """J e_j = d<g, e_j>/du for each element j of x, where g = J^T u; None if g does not depend on u."""
    columns = []
    for j in range(x.size):
        (column,) = autograd_grad([g], [u], [_onehot(x, j)], retain_graph=True, create_graph=create_graph,
                                  allow_unused=True)
        if column is None:
            return None
        columns.append(column)
    return columns


def _onehot(like: Tensor, k: int) -> Tensor:
    """The k-th basis vector (flat index) in `like`'s shape, backend, device and dtype."""
    xp = like.backend.xp
    positions = xp.reshape(xp.arange(like.size, device=like._device), like.shape)
    return Tensor._wrap(xp.astype(positions == k, like.dtype), like.backend)


def _zeros_of(like: Tensor, shape: tuple[int, ...]) -> Tensor:
    return Tensor._wrap(like.backend.xp.zeros(shape, dtype=like.dtype, device=like._device), like.backend)


def _stack(parts: list[Tensor]) -> Tensor:
    """Same-shaped parts stacked along a new first axis (differentiably if any part needs it)."""
    if _any_requires_grad(parts):
        return F.Stack.apply(*parts, 0)
    like = parts[0]
    return Tensor._wrap(like.backend.xp.stack([p.data for p in parts], axis=0), like.backend)
