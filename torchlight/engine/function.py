"""`Function`, `Context` and `History`: how one op joins the graph.

Example (the documented custom Function):
    >>> import torchlight as tl
    >>> from torchlight import scalar
    >>> from torchlight.autograd import Function
    >>> class Square(Function):
    ...     @staticmethod
    ...     def forward(ctx, a):
    ...         ctx.save_for_backward(a)
    ...         return a.backend.zip(scalar.mul)(a, a)
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (a,) = ctx.saved_tensors
    ...         return a.backend.zip(scalar.mul)(a, g) * 2
    >>> x = tl.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).backward()
    >>> x.grad.tolist()
    [6.0]
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from torchlight import grad_mode
from torchlight.backends.checks import check_same_backend
from torchlight.engine.observe import ACTIVE as _OBSERVING
from torchlight.engine.observe import node_made, observation_point
from torchlight.engine.variable import Variable

_new_node = weakref.ref.__new__  # a History's own constructor: a weak reference to its tensor (`History`)


def _no_owner() -> None:
    """The owner of a History built by hand, until a tensor or a stand-in claims it: nobody."""
    return None


class _Nobody:
    """What a History built by hand refers to (it made no tensor): one object, alive for good."""


_NOBODY = _Nobody()
_PACKAGE = __name__.partition(".")[0]  # this library's top package: its own Functions are not a user's

_state = grad_mode._state  # the thread-local grad mode (one object; each thread sees its own fields)

RELEASED = (
    "Trying to backward through the graph a second time (or to read saved tensors after they "
    "were released): the saved tensors of {op} were freed by the first backward(). "
    "Pass retain_graph=True to the first backward() to keep them."
)

MODIFIED = (
    "one of the tensors this backward needs (shape {shape}) has had its values replaced since the forward "
    "saved it (an optimizer's step, or an update such as w -= ... under no_grad): its gradient would be "
    "computed with the new values. Run backward before updating, or run the forward again after it."
)

# How many times a tensor's array has been replaced in place (`Tensor._replace_data`: an
# optimizer's step, `w -= ...`, `.grad` accumulating). A Context notes the count when its
# forward runs and a tensor the count when it was last replaced, so that a backward can tell
# a saved tensor replaced since (what PyTorch's version counters do) for one integer per
# recorded op, and nothing per saved value until a backward reads them.
WRITES = [0]

# One tuple per pattern of `needs_input_grad`, shared by every context with
# that pattern: each surviving object of a graph costs the garbage collector
# a visit per collection (W5's 100,000-add forward: 0.47 s with a tuple per
# op, 0.42 s shared).
_NEEDS: dict[tuple[bool, ...], tuple[bool, ...]] = {n: n for n in ((True,), (True, True), (True, False), (False, True))}

class Context:
    """Scratchpad a Function's forward fills and its backward reads.

    `save_for_backward(*values)` stores what backward needs (nothing when the
    context is `no_grad`); `saved_tensors` returns it; `output` is the
    forward's own result as a Tensor, for ops whose derivative is best written
    with it (exp, tanh, sigmoid): the context keeps the result's array (as
    PyTorch saves it) and, weakly, its History, so `output` carries it (second
    derivatives stay right) without a reference cycle. `needs_input_grad[i]`
    says whether input i wants a gradient (unset, empty, in a Context made by
    hand: then every input that can take one does).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import Context, Function
        >>> class Scale(Function):  # anything else a backward needs goes on the context too
        ...     @staticmethod
        ...     def forward(ctx, a, k):
        ...         ctx.k = k
        ...         return a * k
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g * ctx.k, None  # (no gradient for the number k)
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> Scale.apply(x, 10.0).sum().backward()
        >>> x.grad
        tensor([10., 10.])
        >>> ctx = Context()
        >>> ctx.save_for_backward(tl.tensor([1.0]), 2)
        >>> ctx.saved_tensors
        (tensor([1.]), 2)
        >>> quiet = Context(no_grad=True)  # what an op gets when nothing is recorded: it keeps nothing
        >>> quiet.save_for_backward(1.0)
        >>> quiet.saved_tensors
        ()
    """

    __slots__ = ("no_grad", "saved_values", "needs_input_grad", "released", "_output_data", "_history_ref",
                 "_maker", "_stamp", "__dict__")
    _maker: type[Variable]  # the result's class (set with `_output_data`): what `output` makes

    if TYPE_CHECKING:  # a forward may keep anything else on its context (`ctx.dim = ...`)
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...

    def __init__(self, no_grad: bool = False, saved_values: tuple = ()) -> None:
        self.no_grad = no_grad
        self.saved_values = saved_values
        self.needs_input_grad: tuple[bool, ...] = ()
        self.released = False
        self._output_data: Any = None
        self._history_ref: Any = None  # a weak reference to the History of the result, when kept
        self._stamp = WRITES[0]  # how many arrays had been replaced when the forward ran

    def save_for_backward(self, *values: Any) -> None:
        """Stash values for backward (ignored when this context is no_grad)."""
        if not self.no_grad:
            self.saved_values = values

    @property
    def saved_tensors(self) -> tuple:
        """The values given to `save_for_backward`, as they were then.

        A saved tensor written since the forward by a recorded write (`x[key]
        = v`, `x += y` in the graph) is given as it was then: the version that
        write kept (`Tensor._versions`). One whose array was replaced after the
        forward (by an optimizer's step, or `w -= ...` under no_grad) raises,
        as in PyTorch: the backward would read the new values and give a wrong
        gradient.
        """
        if self.released:
            raise RuntimeError(RELEASED.format(op="this Function"))
        values = self.saved_values
        if WRITES[0] != self._stamp:  # some array was replaced since the forward: was it one of these?
            for value in values:
                if getattr(value, "_replaced_at", 0) > self._stamp:
                    return _as_saved(values, self._stamp)
        return values

    @property
    def output(self) -> Any:
        """The forward's result with its History, for backward (None in a no_grad context)."""
        if self.released:
            raise RuntimeError(RELEASED.format(op="this Function"))
        history = None if self._history_ref is None else self._history_ref()
        if history is None or self._output_data is None:
            if self.no_grad:
                return None
            raise RuntimeError(
                "ctx.output: this Function's output was not kept; set `saves_output = True` "
                "on the Function class (the context keeps it only for a Function that says so)"
            )
        out: Any = self._maker._wrap(self._output_data, history.backend)
        out.requires_grad = True
        out.history = history
        return out

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Say, in forward, that these outputs (the arrays or Tensors it returns) get no gradient:
        they come back with `requires_grad=False`, and backward is given zeros (or None) for them."""
        marked = self.__dict__.setdefault("_non_differentiable", [])
        marked.extend(outputs)

    def set_materialize_grads(self, value: bool) -> None:
        """With True (the default) an output of a Function with several outputs that got no gradient
        is given to backward as zeros; with False, as None."""
        self.__dict__["_materialize_grads"] = bool(value)

    def keep_output(self, data: Any, history: History, maker: type[Variable]) -> None:
        """Keep the forward's result for `output`: its array, its History (weakly: no reference
        cycle) and the class that wraps it. `Function.apply` does this (inlined) for a Function that
        says `saves_output`; a compiled program's opaque nodes call it."""
        self._output_data = data
        self._history_ref = weakref.ref(history)
        self._maker = maker

    def release(self) -> None:
        """Drop the saved values (after a backward without retain_graph); a no_grad context has none."""
        if self.no_grad:
            return
        self.saved_values = ()
        self._output_data = None
        self.released = True
        if self.__dict__:
            self.__dict__.clear()


def _as_saved(values: tuple, stamp: int) -> tuple:
    """`values` with each tensor changed since the forward (stamped `stamp`) replaced by its version of
    then: the snapshot that the first write after the forward kept, or MODIFIED where that was a
    replacement under no_grad (or a write that found no op holding the old value, and kept none).

    A tensor's `_versions` lists `(stamp, snapshot or None)` in the order of its writes; its
    `_replaced_at` is the stamp of its last change, so a replacement after its last recorded write
    is the last change of all.
    """
    out = []
    for value in values:
        changed = getattr(value, "_replaced_at", 0)
        if changed > stamp:
            found = None
            for at, snapshot in getattr(value, "_versions", None) or ():
                if at > stamp:
                    found = snapshot
                    break
            if found is None:
                raise RuntimeError(MODIFIED.format(shape=tuple(value.shape)))
            value = found
        out.append(value)
    return tuple(out)


class History(weakref.ref):
    """A node of the graph: which Function made a tensor, its Context, its inputs.

    `inputs` are the parent tensors, as the seed pages say: the arguments
    given to `apply`, each Tensor as itself while the user holds it. The
    graph itself records a non-leaf parent as its History (`edges`, the
    parent's `Tensor.graph_node`), so it keeps no activation: a History
    keeps only the shape, dtype and backend of the tensor it made and,
    weakly, that tensor. A parent the user dropped comes back from `inputs`
    as a `GraphVariable`: its History, shape and dtype, with no array.
    `parents` are the edges that want a gradient, worked out once here so
    that every graph walk reads them instead of filtering the edges.

    A History speaks the engine's Variable protocol for the tensor it made
    (`chain_rule` runs the Function's backward); after `retain_grad()` it
    hands that tensor its gradient.

    A History is itself the weak reference to the tensor it made (a
    `weakref.ref` whose hash and equality are its identity, as any node's):
    one object for the collector to track per node, not two, where the
    garbage collector's passes over a growing graph are a quarter of a deep
    graph's recording (W5). `_owner`, when set, is the weak reference that
    overrides it: a tensor that took the History over (an in-place op's new
    version, `retain_grad`), or the `GraphVariable` standing in for it.

    Built by hand (`History(F, Context(), [x, x])`, attached with
    `y.history = h`), the inputs are taken as given: each Tensor among them
    is an edge (as its History when it has one) and a fresh Context, whose
    `needs_input_grad` is unset, passes a gradient to every one of them.

    Example:
        >>> import torchlight as tl
        >>> a = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> b = a * 2.0
        >>> c = b + a
        >>> c.history.inputs[0] is b, c.history.inputs[1] is a
        (True, True)
        >>> c.history.edges[0] is b.history, c.history.parents == (b.history, a)
        (True, True)
        >>> b.history
        History(last_fn=Mul, inputs=2, shape=(2,), dtype=float64)
    """

    # `_where` is set only in anomaly mode (where the forward was called)
    __slots__ = ("last_fn", "ctx", "edges", "parents", "shape", "dtype", "backend", "retains_grad", "_owner",
                 "_where", "__weakref__")
    requires_grad = True
    is_leaf = False
    # a node is itself, whatever its tensor: identity, in C (every comparison, so that none is the
    # weak reference's, which compares the tensors referred to)
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    # (the order comparisons too: a slot takes C's function only where all six are object's)
    __lt__, __le__, __gt__, __ge__ = (object.__dict__[name] for name in ("__lt__", "__le__", "__gt__", "__ge__"))

    def __new__(cls, *args: Any, **kwargs: Any) -> History:
        """A History built by hand refers to nobody (`_record_plain` makes its own with `_new_node`)."""
        return _new_node(cls, _NOBODY)

    def __init__(self, last_fn: Any = None, ctx: Context | None = None, inputs: Sequence[Any] = (),
                 parents: tuple | None = None, shape: Any = None, dtype: Any = None, backend: Any = None) -> None:
        self.last_fn = last_fn
        self.ctx: Any = ctx  # a Context; None only in an empty History(), which no walk reaches
        if parents is None:  # built by hand (or by the scalar engine): the inputs as the seed pages give them
            inputs = tuple(getattr(a, "graph_node", a) if isinstance(a, Variable) else a for a in inputs)
            parents = tuple(a for a in inputs if isinstance(a, (Variable, History)) and a.requires_grad)
            if ctx is not None and not ctx.needs_input_grad:  # a fresh Context: every input that can, wants one
                ctx.needs_input_grad = tuple(isinstance(a, (Variable, History)) and a.requires_grad for a in inputs)
        self.edges = inputs
        self.parents = parents
        self.shape = shape
        self.dtype = dtype
        self.backend = backend
        self.retains_grad = False
        self._owner: Any = _no_owner  # (None: the tensor this History refers to; see the class)

    def owner(self) -> Any:
        """The tensor (or stand-in) this History is the node of, while it lives; else None."""
        override = self._owner
        return self() if override is None else override()

    @property
    def inputs(self) -> tuple:
        """The parent tensors (and the other arguments) as given to `apply`: a non-leaf parent as its
        Tensor while it is alive, else as a `GraphVariable` standing for it."""
        return tuple(e.variable if type(e) is History else e for e in self.edges)

    def variable_parents(self) -> tuple:
        """`parents` as Variables (what `Tensor.parents` gives): each as `inputs` gives it."""
        return tuple(p.variable if type(p) is History else p for p in self.parents)

    @property
    def variable(self) -> Variable:
        """The tensor this History made, if it is still alive and still this History's; else the
        `GraphVariable` that stands for it (one per History while the caller holds it)."""
        owner = self.owner()
        if owner is not None and owner.history is self:
            return owner
        stand_in = GraphVariable(self)
        if not self.retains_grad:  # (a retained gradient's owner stays the tensor that asked for it)
            self._owner = weakref.ref(stand_in)
        return stand_in

    def __repr__(self) -> str:
        name = getattr(self.last_fn, "__name__", None)
        freed = ", freed by backward" if self.ctx is not None and self.ctx.released else ""
        shape = "" if self.shape is None else f", shape={tuple(self.shape)}, dtype={self.dtype}"
        return f"History(last_fn={name}, inputs={len(self.edges)}{shape}{freed})"

    def chain_rule(self, d_output: Any, retain_graph: bool = True) -> list[tuple[Any, Any]]:
        """(input, gradient) pairs, each summed back to its input's shape and cast to its dtype."""
        ctx, fn, inputs = self.ctx, self.last_fn, self.edges
        if ctx.released:
            raise RuntimeError(RELEASED.format(op=getattr(fn, "__name__", "an op")))
        raw = fn.raw_backward
        if raw is None or _state.enabled or not d_output.plain_data:  # (most ops: one test, then backward)
            grads = fn.backward(ctx, d_output)
            raw = None
        else:
            grads = raw(ctx, d_output.data, d_output.backend)  # arrays of d_output's backend
            if grads is NotImplemented:
                grads = fn.backward(ctx, d_output)
                raw = None
        if type(grads) is not tuple:
            grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(inputs):
            if len(grads) < len(inputs) or any(g is not None for g in grads[len(inputs):]):
                raise RuntimeError(
                    f"{fn.__name__}.backward returned {len(grads)} gradient(s) for {len(inputs)} input(s)"
                )
            grads = grads[:len(inputs)]  # extra trailing Nones are dropped, as PyTorch does
        if not retain_graph:
            ctx.release()
        pairs = []
        for inp, g, need in zip(inputs, grads, ctx.needs_input_grad):
            if not need or g is None:
                continue
            if type(g) is not type(d_output):  # (the usual case, a Tensor, costs one comparison)
                if raw is not None:
                    g = d_output._wrap(g, d_output.backend)
                else:
                    g = d_output._wrap(g, inp.backend) if not _state.enabled else _raw_gradient(self, g, d_output)
            data = g.data
            ref = inp if type(inp) is History else inp.data  # a leaf's array: no property call per edge
            try:
                reshape = data.shape != ref.shape
            except AttributeError:  # (a try costs nothing until it catches)
                raise TypeError(_not_an_array(fn, "backward", data)) from None
            if reshape and ref.shape is not None:  # (None: a History built by hand, which knows no shape)
                g = g._sum_to(tuple(ref.shape), fn.__name__)
            if data.dtype != ref.dtype and ref.dtype is not None:
                g = g._gradient_as(ref.dtype)  # (a complex gradient of a real input: its real part)
            pairs.append((inp, g))
        return pairs

    def accumulate_derivative(self, d: Any, shared: bool = False) -> None:
        """Hand a retained gradient on to the tensor this History made (if still alive)."""
        owner = self.owner()
        if owner is not None:
            owner.accumulate_derivative(d, shared)


class GraphVariable(Variable):
    """What stands for a non-leaf tensor the user no longer holds: its History, shape, dtype and
    backend, without its array (the graph never kept it).

    `History.inputs` and `topological_sort` give one where the tensor itself is gone, so a walk
    over the graph still finds a Variable at every node.

    Example:
        >>> import torchlight as tl
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> y = (x * 2.0).exp()          # x * 2.0 is not held by anyone
        >>> parent = y.history.inputs[0]
        >>> parent
        GraphVariable(shape=(2,), dtype=float64, last_fn=Mul)
        >>> parent.history.inputs[0] is x, parent.data is None
        (True, True)
    """

    __slots__ = ("history", "__weakref__")
    data = None
    requires_grad = True
    is_leaf = False
    retains_grad = False
    grad = None

    def __init__(self, history: History) -> None:
        self.history = history

    def __repr__(self) -> str:
        name = getattr(self.history.last_fn, "__name__", None)
        return f"GraphVariable(shape={self.shape}, dtype={self.dtype}, last_fn={name})"

    @property
    def shape(self) -> tuple[int, ...]:
        shape = self.history.shape
        return () if shape is None else tuple(shape)

    @property
    def dtype(self) -> Any:
        return self.history.dtype

    @property
    def backend(self) -> Any:  # type: ignore[override]  # (read-only here: the History's)
        return self.history.backend

    @property
    def graph_node(self) -> History:
        return self.history

    @property
    def parents(self) -> tuple:
        return self.history.variable_parents()

    def accumulate_derivative(self, d: Any, shared: bool = False) -> None:
        """A retained gradient reaching a tensor that is gone is dropped."""


class Function:
    """An op: a static `forward(ctx, *inputs)` and `backward(ctx, grad_output)`.

    Call it as `MyFn.apply(*inputs)`. Inputs that are Tensors are the ones
    that can get gradients; anything else (an axis, a shape, a scalar
    function) passes through to forward unchanged and gets `None`. `forward`
    runs with grad mode off and returns a Tensor or a backend array;
    `backward` returns one gradient per input (Tensor, array or None) and is
    written with Tensor ops so that `create_graph=True` can differentiate it.

    Traits: what an op says of itself, as class attributes set where the op
    is defined (every one is read by the engine or by `tl.compile`, never
    guessed from the code):

    - `saves_output` (False): the context keeps the forward's result, so
      that `backward` can read it as `ctx.output` (exp, tanh, sigmoid, sqrt:
      derivatives best written with the result). Reading `ctx.output`
      without it raises, naming this flag.
    - `elementwise` (False): each element of the result is computed from
      the elements at the same position of the inputs alone (Tensors of one
      shape, or 0-d; other arguments are numbers or names), into a new
      array. A compiled program of such ops runs a block of elements at a
      time (`torchlight.compile.blocking`); the test suite checks the claim
      for every op that makes it, and that every unary or binary op whose
      forward behaves so makes it.
    - `overwrites` (()) and `forward_into` (None): `forward_into(ctx,
      *inputs)` is `forward` allowed to overwrite the arrays of the inputs
      at the positions `overwrites` (and return one of them); a compiled
      program calls it only where it has proven those arrays its own and
      read by nothing else (NumPy's reuse of a temporary, across a graph).
    - `kernel` (None): the op as a function of two arrays (`operator.add`),
      which the Tensor operators call directly when nothing is recorded.
    - `complex_grad` (False): the backward is right for complex inputs, in
      PyTorch's convention (for a real loss L, a complex input's gradient is
      the conjugate Wirtinger derivative 2 dL/d(conj z); a holomorphic f's
      vjp is `g * conj(f'(z))`), and checked against PyTorch. Without it, a
      complex input that requires grad is refused with a TypeError naming
      the op when the op is recorded (a user's Function that handles complex
      inputs says `complex_grad = True`). Read only for an op that lacks it,
      so real dtypes on the ops that have it pay nothing.
    - `raw_backward` (None): `raw_backward(ctx, g, backend)` is `backward` on arrays, for a backward
      that records nothing (no `create_graph`): `g` is the incoming gradient's array (of `backend`,
      the result's), the result one
      array (or None) per input, or NotImplemented where it does not apply (a complex dtype), so
      that `backward` runs. It must compute what `backward` does, operation for operation; it
      saves the Tensors, Functions and Contexts of a backward written in Tensor ops (tanh's,
      exp's, a product's: most of a small op's backward). The library's hottest ops have one.
    - `array_forward` (False, never inherited): `forward` computes on its
      inputs' arrays alone (no Tensor op, no `apply`), so the engine runs
      it without turning grad mode off around it (two thread-local writes
      and a `try`: a tenth of a small op's recording). A test records each
      op that says so and counts the graph nodes it made: one.
    - `_shares_context` (False, never inherited): the backward reads nothing
      of its context but `needs_input_grad` (Add's `return g, g`), so every
      such op of a graph shares one context per pattern: a built-in's
      optimisation (a user's Function always gets its own).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import Function
        >>> class Cube(Function):
        ...     @staticmethod
        ...     def forward(ctx, a):
        ...         ctx.save_for_backward(a)
        ...         return a * a * a
        ...     @staticmethod
        ...     def backward(ctx, g):  # in Tensor ops: differentiable again
        ...         (a,) = ctx.saved_tensors
        ...         return 3 * a * a * g
        >>> x = tl.tensor(2.0, requires_grad=True)
        >>> y = Cube.apply(x)
        >>> y
        tensor(8., grad_fn=<Cube>)
        >>> (dx,) = tl.autograd.grad(y, [x], create_graph=True)
        >>> (d2x,) = tl.autograd.grad(dx, [x])
        >>> dx.item(), d2x.item()  # 3 x^2 and 6 x at 2
        (12.0, 12.0)
        >>> tl.autograd.gradgradcheck(Cube.apply, tl.tensor([0.5, -1.0], requires_grad=True))
        True
    """

    saves_output = False
    elementwise = False
    overwrites: tuple[int, ...] = ()
    forward_into: Any = None
    kernel: Any = None
    complex_grad = False
    jvp: Any = None  # optional `jvp(ctx, *tangents)`: the forward-mode product, one tangent per input
    raw_backward: Any = None
    array_forward = False
    _shares_context = False
    _custom = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # never inherited: a subclass's backward may read its context
        cls._shares_context = cls.__dict__.get("_shares_context", False)
        cls.array_forward = cls.__dict__.get("array_forward", False)  # (an override may call Tensor ops)
        # a user's Function (not one of the library's ops): its context may mark outputs non-differentiable
        cls._custom = cls.__module__.partition(".")[0] != _PACKAGE

    @staticmethod
    def forward(ctx: Context, *inputs: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad_output: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def apply(cls, *inputs: Any) -> Any:
        """Run forward; record a History when an input needs a gradient.

        One or two Tensors of one single-device backend (the usual op) take
        a short path here; anything else is sorted out by `_apply`.
        """
        if len(inputs) == 1:
            a = inputs[0]
            if isinstance(a, Variable):  # (one tensor: no backends or devices to match)
                if not (a.requires_grad and _state.enabled):
                    out = cls.forward(_quiet_context(), a)
                    return a._wrap(out, a.backend) if type(out) is not tuple else _wrap_each(a, out)
                edges = (a if a.history is None else a.history,)
                return _record(cls, inputs, _NEEDS[(True,)], edges, edges, a)
        elif len(inputs) == 2:
            a, b = inputs
            if (isinstance(a, Variable) and isinstance(b, Variable) and a.backend is b.backend
                    and not a.backend.multi_device):
                if not ((a.requires_grad or b.requires_grad) and _state.enabled):
                    out = cls.forward(_quiet_context(), a, b)
                    return a._wrap(out, a.backend) if type(out) is not tuple else _wrap_each(a, out)
                return record_pair(cls, a, b)
        return _apply(cls, inputs)


def record_pair(cls: type[Function], a: Any, b: Any) -> Any:
    """`cls.apply(a, b)` for two Tensors of one single-device backend, one of them wanting a
    gradient, with grad mode on: what `apply` and the Tensor operators record."""
    edges = (a if a.history is None else a.history, b if b.history is None else b.history)
    if a.requires_grad and b.requires_grad:
        return _record(cls, (a, b), _NEEDS[(True, True)], edges, edges, a)
    needs = _NEEDS[(a.requires_grad, b.requires_grad)]
    return _record(cls, (a, b), needs, edges, edges[:1] if needs[0] else edges[1:], a)


def _quiet_context() -> Context:
    """This thread's reusable no_grad context: it stores nothing, so one serves every op."""
    ctx = _state.quiet_context
    if ctx is None or ctx.__dict__:  # (a fresh one if a forward set attributes on it)
        ctx = _state.quiet_context = Context(True)
    return ctx


def _apply(cls: type[Function], inputs: tuple) -> Any:
    """`Function.apply` for any inputs: checks their backends, records or runs quietly."""
    first = None
    needs, edges, parents = [], [], []  # one pass: who wants a gradient, what the graph records
    for a in inputs:
        if isinstance(a, Variable):
            if first is None:
                first = a
            elif a.backend is not first.backend or first.backend.multi_device:
                check_same_backend(cls.__name__, first, a)
            if a.requires_grad:
                needs.append(True)
                if a.history is not None:
                    a = a.history
                parents.append(a)
                edges.append(a)
                continue
        needs.append(False)
        edges.append(a)
    if first is None:
        raise TypeError(f"{cls.__name__}.apply needs at least one Tensor input")
    if not parents or not _state.enabled:
        out = cls.forward(_quiet_context(), *inputs)
        return first._wrap(out, first.backend) if type(out) is not tuple else _wrap_each(first, out)
    pattern = tuple(needs)
    recorded = tuple(edges)
    wanted = recorded if len(parents) == len(recorded) else tuple(parents)  # one tuple when all are parents
    return _record(cls, inputs, _NEEDS.setdefault(pattern, pattern), recorded, wanted, first)


def _record_plain(cls: type[Function], inputs: tuple, needs: tuple, edges: tuple, parents: tuple, like: Any) -> Any:
    """Run `cls.forward` with grad mode off and give its result a History (what `_record` is, unless
    anomaly mode has swapped in its own, which calls this one).

    `needs` is the shared tuple of which inputs want a gradient (a big graph
    keeps no tuple per op), `edges` the inputs as the graph records them (a
    non-leaf as its History), `parents` the edges that want a gradient,
    `like` the first Variable input (its backend and class make the result).
    """
    if cls._shares_context:
        ctx = _SHARED.get(needs) or _shared_context(needs)
    else:
        ctx = Context()
        ctx.needs_input_grad = needs
    if cls.array_forward:  # (on arrays alone: nothing in it could record)
        out = cls.forward(ctx, *inputs)
    else:
        state = _state
        state.enabled = False
        try:
            out = cls.forward(ctx, *inputs)
        finally:
            state.enabled = True
    backend = like.backend
    result = like._wrap(out, backend)
    data = result.data
    result.requires_grad = True
    # the History, made here without its __init__: itself the weak reference to the result
    # (History.inputs gives the tensor back while the user holds it)
    history = result.history = _new_node(History, result)
    history.last_fn = cls
    history.ctx = ctx
    history.edges = edges
    history.parents = parents
    history.backend = backend
    history.retains_grad = False
    history._owner = None
    try:
        history.shape = data.shape
        history.dtype = data.dtype
    except AttributeError:
        if type(out) is tuple:
            return _record_several(cls, ctx, out, edges, parents, like)
        raise TypeError(_not_an_array(cls, "forward", data)) from None
    if _OBSERVING:  # (a recording, a checkpoint: told of each node, as History.__init__'s point tells)
        node_made(history)
    if cls._custom and ctx.__dict__ and _marked(ctx, out):  # marked non-differentiable: no history
        result.requires_grad = False
        result.history = None
        return result
    if not cls.complex_grad:  # (an op whose backward is right for complex inputs skips the look)
        _refuse_complex(cls, parents, data.dtype, backend)
    if cls.saves_output:
        ctx._output_data = data  # (Context.keep_output, inlined: this runs once per exp, tanh, ...)
        ctx._history_ref = weakref.ref(history)
        ctx._maker = type(result)
    return result


_record: Callable[..., Any] = _record_plain  # (module global: `apply` and `record_pair` look it up per call)


def record_with(wrapper: Callable[..., Any] | None) -> None:
    """Make every recorded op go through `wrapper(_record_plain, cls, inputs, ...)` (None: back to
    `_record_plain`): anomaly mode's way in, which costs nothing while it is off."""
    global _record
    _record = _record_plain if wrapper is None else functools.partial(wrapper, _record_plain)


def _refuse_complex(cls: type[Function], parents: tuple, dtype: Any, backend: Any) -> None:
    """The TypeError for an op without `complex_grad` that an input requiring grad reaches as a
    complex tensor, or whose result (`dtype`, recorded) is complex: a real input that met a complex one."""
    dtypes = [dtype] + [p.dtype for p in parents]
    if any(backend.is_complex(d) for d in dtypes):
        raise TypeError(f"{cls.__name__}: gradients of complex inputs are not implemented (a complex tensor "
                        "that requires grad meets this op); detach it, or use ops with complex gradients "
                        "(docs/decisions.md, 'Complex numbers')")


def _not_an_array(fn: Any, method: str, value: Any) -> str:
    """The error for a forward or backward that returned something other than a Tensor or an array."""
    if method == "backward":
        what = "one gradient per input is expected: a Tensor, a backend array or None"
    else:
        what = "a Tensor or a backend array is expected (or a tuple of them: one per output)"
    return f"{fn.__name__}.{method} returned a {type(value).__name__} where {what}"


# The contexts of ops whose backward reads nothing from them, one per pattern
# of `needs_input_grad`. No_grad: they save nothing, and a backward never
# releases them (as PyTorch, a node that saved nothing can be run again).
_SHARED: dict[tuple[bool, ...], Context] = {}


def _shared_context(needs: tuple[bool, ...]) -> Context:
    """The shared context of pattern `needs`, made on first use."""
    ctx = Context(True)
    ctx.needs_input_grad = needs
    return _SHARED.setdefault(needs, ctx)


observation_point(History, "__init__", "node", "made a graph node")


# ------------------------------------------------------ Functions with several outputs
# A Function whose forward returns a tuple gets one graph node for the call (its History's last_fn is
# `_SeveralOf[F]`, which calls F.backward with one gradient per output) and one node per differentiable
# output (`_OutputOf[F]`), whose backward hands its gradient to the call's node, for this walk, and
# passes that node a 0-d placeholder so the walk runs it once all outputs are done (a node runs after
# every node it feeds). Both classes are named as F, so errors and pictures name the user's Function.
WALKS = [0]  # how many walks have started: a call's pending gradients belong to one walk


class _Pending:
    """The gradients reaching the outputs of one call in the walk now running."""

    __slots__ = ("function", "metas", "grads", "walk", "last")

    def __init__(self, function: type[Function], metas: list) -> None:
        self.function = function
        self.metas = metas  # per output: (shape, dtype, device), or None for a non-array output
        self.grads: list[Any] = [None] * len(metas)
        self.walk = -1
        self.last: list[Any] = []  # the gradients F.backward was last given (jvp's transpose reads them)


class _OutputOf(Function):
    """The node of one output of a Function with several (see above)."""

    _user_function: type[Function]
    _select = True

    @staticmethod
    def forward(ctx: Context, *inputs: Any) -> Any:
        raise RuntimeError("an output node of a Function with several outputs is made by apply, never run")

    @staticmethod
    def backward(ctx: Context, d: Any) -> Any:
        pending = ctx.pending
        if pending.walk != WALKS[0]:
            pending.grads = [None] * len(pending.metas)
            pending.walk = WALKS[0]
        pending.grads[ctx.index] = d
        backend = d.backend
        return d._wrap(backend.xp.zeros((), dtype=d.data.dtype, device=backend.device_of(d.data)), backend)


class _SeveralOf(Function):
    """The node of one call of a Function with several outputs (see above)."""

    _user_function: type[Function]

    @classmethod
    def backward(cls, ctx: Context, token: Any) -> Any:  # type: ignore[override]  # (a classmethod: reads cls)
        pending: _Pending = ctx._several
        grads = pending.grads if pending.walk == WALKS[0] else [None] * len(pending.metas)
        pending.grads, pending.walk = [None] * len(pending.metas), -1
        if ctx.__dict__.get("_materialize_grads", True):
            grads = [_zeros_for(token, meta) if g is None and meta is not None else g
                     for g, meta in zip(grads, pending.metas)]
        pending.last = grads
        return cls._user_function.backward(ctx, *grads)


_NODE_CLASSES: dict[tuple[type, type], type] = {}


def _node_class(kind: type[Function], fn: type[Function]) -> Any:
    """`kind` (`_OutputOf` or `_SeveralOf`) for the user's Function `fn`, named as `fn`; made once."""
    made = _NODE_CLASSES.get((kind, fn))
    if made is None:
        made = _NODE_CLASSES[kind, fn] = type(fn.__name__, (kind,), {
            "_user_function": fn, "__qualname__": fn.__qualname__, "__module__": fn.__module__,
            "complex_grad": fn.complex_grad})
    return made


def _zeros_for(like: Any, meta: tuple) -> Any:
    shape, dtype, device = meta
    return like._wrap(like.backend.xp.zeros(shape, dtype=dtype, device=device), like.backend)


def _is_array_like(value: Any) -> bool:
    return isinstance(value, Variable) or (hasattr(value, "shape") and hasattr(value, "dtype"))


def _wrap_each(like: Any, out: tuple) -> tuple:
    """A forward's several results, each array as a Tensor (anything else as it is), unrecorded."""
    return tuple(like._wrap(o, like.backend) if _is_array_like(o) else o for o in out)


def _marked(ctx: Context, out: Any) -> bool:
    """Whether forward marked `out` (an array or Tensor it returned) non-differentiable."""
    marks = ctx.__dict__.get("_non_differentiable")
    if not marks:
        return False
    data = out.data if isinstance(out, Variable) else out
    return any(m is out or m is data or getattr(m, "data", None) is data for m in marks)


def _record_several(cls: type[Function], ctx: Context, out: tuple, edges: tuple, parents: tuple, like: Any) -> tuple:
    """`_record` for a forward that returned a tuple: one node for the call, one per output."""
    if cls.saves_output:
        raise TypeError(f"{cls.__name__}: saves_output (ctx.output) is for a Function with one output; "
                        "save the outputs a backward needs with ctx.save_for_backward")
    backend = like.backend
    node = History(_node_class(_SeveralOf, cls), ctx, edges, parents, None, None, backend)
    metas: list[Any] = []
    pending = ctx._several = _Pending(cls, metas)
    output_class = _node_class(_OutputOf, cls)
    results: list[Any] = []
    for i, o in enumerate(out):
        if not _is_array_like(o):
            metas.append(None)
            results.append(o)
            continue
        t = like._wrap(o, backend)
        data = t.data
        metas.append((tuple(data.shape), data.dtype, backend.device_of(data)))
        if not _marked(ctx, o):
            if not cls.complex_grad:
                _refuse_complex(cls, parents, data.dtype, backend)
            select = Context(True)  # (saves nothing: never released, as a shared context)
            select.needs_input_grad = _NEEDS[(True,)]
            select.pending, select.index = pending, i
            t.requires_grad = True
            history = t.history = History(output_class, select, (node,), (node,), data.shape, data.dtype, backend)
            history._owner = weakref.ref(t)
        results.append(t)
    return tuple(results)


# ------------------------------------------------------ backwards recorded for a second derivative
def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a Function's backward as not differentiable again: it runs with grad mode off, and under
    `create_graph=True` its gradients carry a node that raises, naming the Function, if a second
    backward reaches it (PyTorch's `torch.autograd.function.once_differentiable`).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import Function, once_differentiable
        >>> class Cube(Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x.data ** 3
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return g.data * 3 * x.data ** 2     # raw arrays: fine once
        >>> x = tl.tensor(2.0, requires_grad=True)
        >>> (gx,) = tl.autograd.grad(Cube.apply(x), [x], create_graph=True)
        >>> gx.item()
        12.0
        >>> try:
        ...     gx.backward()
        ... except RuntimeError as e:
        ...     print(str(e).split(":")[0])
        Cube.backward is marked @once_differentiable
    """

    @functools.wraps(backward)
    def run_once(*args: Any) -> Any:
        state = _state
        previous, state.enabled = state.enabled, False
        try:
            return backward(*args)
        finally:
            state.enabled = previous

    run_once._once_differentiable = True  # type: ignore[attr-defined]
    return run_once


class _DelayedError(Function):
    """The node a gradient gets whose backward was not recorded: reaching it raises."""

    @staticmethod
    def backward(ctx: Context, grad_output: Any) -> Any:
        raise RuntimeError(ctx.message)


def second_order_pairs(node: History, pairs: list, d_output: Any) -> list:
    """`node`'s (input, gradient) pairs in a backward recorded for a second derivative (create_graph),
    made differentiable where they are not: through the Function's `jvp` in func.jvp's first pass,
    else, for a backward marked @once_differentiable, with a node that raises if a backward reaches
    it. (The walk calls this only with create_graph; a backward that returned raw arrays is caught
    where they are wrapped, in `chain_rule`.)"""
    fn = node.last_fn
    if getattr(fn, "_select", False):
        return pairs
    user = getattr(fn, "_user_function", fn)
    if _state.transposing and getattr(user, "jvp", None) is not None:
        return _transposed(node, user, pairs, d_output)
    if not getattr(user.backward, "_once_differentiable", False):
        return pairs
    name = getattr(user, "__name__", "a Function")
    message = (f"{name}.backward is marked @once_differentiable: it cannot be differentiated again (a "
               "backward through its gradient, made with create_graph=True, reached it)")
    edges = _error_edges(node, d_output)
    return [(inp, _delayed_error(g, d_output, edges, message)) for inp, g in pairs]


def _raw_gradient(node: History, g: Any, d_output: Any) -> Any:
    """A gradient a backward returned as something other than d_output's class, recorded
    (create_graph): another Variable as a plain one, a raw array with a node that raises if reached."""
    if isinstance(g, Variable):
        return d_output._wrap(g, d_output.backend)
    fn = node.last_fn
    name = getattr(getattr(fn, "_user_function", fn), "__name__", "a Function")
    message = (f"{name}.backward returned arrays, not Tensors, so its gradient cannot be differentiated "
               "again: write backward with Tensor ops (then second derivatives work), or mark it "
               "@once_differentiable")
    return _delayed_error(g, d_output, _error_edges(node, d_output), message)


def _error_edges(node: History, d_output: Any) -> tuple:
    """What a not-differentiable-again gradient depends on: the node's inputs and its incoming gradient."""
    return tuple(node.parents) + ((d_output.graph_node,) if d_output.requires_grad else ())


def _delayed_error(g: Any, like: Any, edges: tuple, message: str) -> Any:
    backend = like.backend
    t = like._wrap(g.data if isinstance(g, Variable) else g, backend)
    if not edges:
        return t
    ctx = Context(True)
    ctx.needs_input_grad = (True,) * len(edges)
    ctx.message = message
    data = t.data
    t.requires_grad = True
    t.history = History(_DelayedError, ctx, edges, edges, data.shape, data.dtype, backend)
    return t


class _Transpose(Function):
    """A Function's backward as a function of its output gradients, whose own backward is the
    Function's `jvp` (the transpose of a linear map): func.jvp's second pass differentiates it."""

    complex_grad = True

    @staticmethod
    def forward(ctx: Context, node: History, user: Any, positions: tuple, *cotangents: Any) -> Any:
        ctx.node, ctx.user, ctx.positions = node, user, positions
        return tuple(ctx.grads)

    @staticmethod
    def backward(ctx: Context, *tangents: Any) -> Any:
        n = len(ctx.node.edges)
        full: list[Any] = [None] * n
        for i, t in zip(ctx.positions, tangents):
            full[i] = t
        out = ctx.user.jvp(ctx.node.ctx, *full)
        out = out if isinstance(out, tuple) else (out,)
        return (None, None, None, *out)


def _transposed(node: History, user: Any, pairs: list, d_output: Any) -> list:
    """`pairs`' gradients recorded as `_Transpose` of the cotangents (d_output, or a call's several)."""
    several = getattr(node.last_fn, "_user_function", None) is user
    cotangents = tuple(node.ctx._several.last) if several else (d_output,)
    needs, edges = node.ctx.needs_input_grad, node.edges
    positions, start = [], 0
    for inp, _ in pairs:  # each pair's input position (an input given twice has two)
        i = start
        while not (needs[i] and edges[i] is inp):
            i += 1
        positions.append(i)
        start = i + 1
    grads = [g.data for _, g in pairs]
    made = _transpose_apply(node, user, tuple(positions), grads, cotangents)
    return [(inp, t) for (inp, _), t in zip(pairs, made)]


def _transpose_apply(node: History, user: Any, positions: tuple, grads: list, cotangents: tuple) -> tuple:
    """Record `_Transpose` over `cotangents`, its forward giving `grads` (already computed)."""
    live = [c for c in cotangents if isinstance(c, Variable)]
    like = live[0]
    ctx = Context()
    ctx.grads = grads
    needs = tuple(c.requires_grad for c in cotangents)
    ctx.needs_input_grad = (False, False, False, *needs)
    edges = (node, user, positions, *(c.graph_node if c.requires_grad else c for c in cotangents))
    parents = tuple(c.graph_node for c in cotangents if c.requires_grad)
    if not parents:
        return tuple(like._wrap(g, like.backend) for g in grads)
    out = _Transpose.forward(ctx, node, user, positions, *cotangents)
    return _record_several(_Transpose, ctx, out, edges, parents, like)


@contextlib.contextmanager
def transposing_backward() -> Iterator[None]:
    """The backward run inside is the first pass of a forward-mode product (func.jvp): a Function
    with its own `jvp` records its backward as the transpose of that jvp, so the second pass needs no
    second derivative of it."""
    state = _state
    previous, state.transposing = state.transposing, True
    try:
        yield
    finally:
        state.transposing = previous
