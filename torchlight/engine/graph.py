"""The graph walk shared by `Value` and `Tensor`: sort, then chain-rule back.

Both kinds of node speak one small Variable protocol:

- `parents`: the input nodes (anything else in `history.inputs` is skipped);
- `requires_grad` (False for a constant), `is_leaf` (a property), `retains_grad`;
- `chain_rule(d_output, retain_graph)`: pairs `(parent, d_parent)`;
- `accumulate_derivative(d)` and `seed_derivative(deriv)`;
- hashing by identity (the default for a class without `__eq__`): the
  sort and the walk key their sets and dicts by the nodes themselves;
- optionally `graph_node`: the object that stands for a root or a captured
  node in its consumers' inputs (a non-leaf Tensor's History), so that
  each node is walked once; a node without it stands for itself;
- optionally `add_gradients(a, b)`: two gradients of one node summed when
  no graph is recorded (a fast path past the op machinery; `a + b` otherwise),
  and `add_gradient_into(total, d)`: `d` added in place into a sum that
  `add_gradients` made during this walk (only the engine holds it), so a
  node with many consumers costs one new array, not one per consumer.

Example:
    >>> from torchlight.scalar import variable
    >>> from torchlight.autograd import backpropagate, topological_sort
    >>> x = variable(2.0)
    >>> y = x * x + 1.0
    >>> [v.data for v in topological_sort(y)]
    [2.0, 4.0, 5.0]
    >>> backpropagate(y, 1.0); x.grad
    4.0
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from torchlight import grad_mode
from torchlight.engine import anomaly
from torchlight.engine.function import WALKS, History, second_order_pairs
from torchlight.engine.hooks import POST_ACCUMULATE_HOOKS, TENSOR_HOOKS, hooks_of, run_tensor_hooks

_EMIT = object()  # on the sort's stack: "the node below me has had its parents pushed; emit it"


def topological_sort(variable: Any) -> list[Any]:
    """The non-constant Variables feeding `variable` (Tensors, or Values), leaves first, root last.

    `variable` may also be a sequence of roots. Each node of the graph
    comes back as its Variable: a leaf as itself, a root as given, an inner
    node as its Tensor while the user holds it, else as the `GraphVariable`
    standing for it (its History, shape and dtype). The engine itself walks
    the graph's nodes (`sort_nodes`).

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import topological_sort
        >>> x = tl.tensor(2.0, requires_grad=True)
        >>> y = x * x
        >>> z = y + 1.0
        >>> topological_sort(z) == [x, y, z]
        True
    """
    roots = list(variable) if isinstance(variable, (list, tuple)) else [variable]
    given: dict[Any, Any] = {}
    for root in roots:
        given.setdefault(getattr(root, "graph_node", root), root)
    order = sort_nodes(list(given))
    return [given[node] if node in given else node.variable if type(node) is History else node for node in order]


def sort_nodes(variable: Any) -> list[Any]:
    """The non-constant nodes feeding `variable`, leaves first, root last: what the walk runs on
    (a non-leaf Tensor's node is its History; `topological_sort` maps them back to Variables).

    Iterative (an explicit stack), so a 100,000-node chain is fine.
    `variable` may also be a sequence of roots. A node is pushed, then the
    `_EMIT` marker, then its parents: when the marker comes back up, all of
    the node's ancestors are in `order`. Parents are pushed last-first, so
    the walk back (which runs `order` from the end) takes a node's last
    input's branch first: usually the one built last, as hand-written code
    unwinds, which frees its saved arrays before the other branches make
    their gradients (on the benchmark's W3 this is six full-size arrays at
    the peak rather than seven). No object is made per node, which
    keeps the walk of a large graph fast and out of the cyclic garbage
    collector's way.
    """
    roots = list(variable) if isinstance(variable, (list, tuple)) else [variable]
    order: list[Any] = []
    visited: set[Any] = set()  # the nodes themselves: they hash by identity (no id() call per edge)
    stack = [getattr(r, "graph_node", r) for r in reversed(roots) if r.requires_grad]  # (a Tensor: its node)
    push, pop, mark, emit = stack.append, stack.pop, visited.add, order.append
    while stack:
        node = pop()
        if node is _EMIT:
            emit(pop())
            continue
        if node in visited:
            continue
        mark(node)
        push(node)
        push(_EMIT)
        for parent in reversed(node.parents):
            if parent not in visited and parent.requires_grad:
                push(parent)
    return order


def backpropagate(variable: Any, deriv: Any, *, retain_graph: bool = True, create_graph: bool = False) -> None:
    """Chain-rule `deriv` from `variable` back, adding into leaf `.grad`s.

    `deriv` is a number (broadcast to the root's shape) or an array/Tensor of
    the root's shape. Leaf gradients are committed only once the whole walk
    has succeeded, so a walk that raises leaves every `.grad` as it was.
    With `retain_graph=False` each node's saved tensors are freed as soon as
    its backward has run; `create_graph=True` records the backward pass.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.autograd import backpropagate
        >>> x = tl.tensor([1.0, 2.0], requires_grad=True)
        >>> backpropagate(x * 3, tl.tensor([1.0, 10.0]))  # the seed: d(loss)/d(x * 3)
        >>> x.grad
        tensor([ 3., 30.])
        >>> backpropagate((x * x).sum(), 1.0)  # a number is broadcast; gradients add up
        >>> x.grad
        tensor([ 5., 34.])
    """
    run_backward([variable], [deriv], retain_graph=retain_graph, create_graph=create_graph)


def run_backward(roots: Sequence[Any], derivs: Sequence[Any], *, retain_graph: bool,
                 create_graph: bool = False, capture: Iterable[Any] | None = None) -> list[Any] | None:
    """The engine behind `backpropagate`, `Tensor.backward` and `autograd.grad`.

    Grad mode is `create_graph` during the walk. With `capture` (a list of
    nodes), nothing is accumulated: the summed gradient reaching each
    captured node is returned instead (None where no gradient arrives).
    """
    state = grad_mode._state
    previous, previous_retain = state.enabled, state.retain_graph
    state.enabled = bool(create_graph)
    state.retain_graph = bool(retain_graph)
    try:
        if anomaly.ENABLED[0] and anomaly.ENABLED[1]:
            with warnings.catch_warnings():  # (the check names the op that went NaN: NumPy's warning cannot)
                warnings.simplefilter("ignore", RuntimeWarning)
                return _walk(roots, derivs, retain_graph, capture, create_graph)
        return _walk(roots, derivs, retain_graph, capture, create_graph)
    finally:
        state.enabled, state.retain_graph = previous, previous_retain


def _walk(roots: Sequence[Any], derivs: Sequence[Any], retain_graph: bool,
          capture: Iterable[Any] | None, create_graph: bool = False) -> list[Any] | None:
    # Nodes (Histories, leaf Tensors, Values) hash by identity: they key the dicts
    # themselves, with no id() call per edge.
    WALKS[0] += 1  # (a Function with several outputs keeps its pending gradients per walk)
    grads: dict[Any, Any] = {}
    seed_ids = set()  # ids only: a seed is dropped, like any gradient, once passed on
    nodes = []
    for root, deriv in zip(roots, derivs):
        d = root.seed_derivative(deriv)
        seed_ids.add(id(getattr(d, "data", d)))
        node = getattr(root, "graph_node", root)
        nodes.append(node)
        grads[node] = _add(grads.get(node), d)
    wanted = None if capture is None else [getattr(c, "graph_node", c) for c in capture]
    captured: Any = None if wanted is None else set(wanted)  # (a set whenever feeding is one)
    order = sort_nodes(nodes)
    add: Any = operator.add
    add_into: Any = None  # (set whenever `owned` gets a sum)
    if not create_graph and nodes:
        add = getattr(roots[0], "add_gradients", add)
        add_into = getattr(roots[0], "add_gradient_into", None)
    owned: set[Any] = set()  # the sums the engine made (only it holds them): updated in place
    feeding = None if captured is None else feeding_nodes(order, captured)
    results: dict[Any, Any] = {}
    # two parallel lists, not a list of pairs: no object per node (see topological_sort)
    commit_nodes: list[Any] = []
    commit_grads: list[Any] = []
    pop, get = grads.pop, grads.get
    hooked = TENSOR_HOOKS or None  # (a walk without hooks anywhere looks nothing up)
    watch = anomaly.ENABLED[0]  # anomaly mode: every gradient is checked as it is made
    while order:
        node = order.pop()  # popped, not iterated: a finished node can be freed mid-walk
        d = pop(node, None)
        if d is None:
            continue
        if owned:
            owned.discard(d)  # passed on from here: no longer the engine's alone
        if hooked is not None and id(node) in hooked:
            d = run_tensor_hooks(node, d)
        leaf = node.is_leaf
        if captured is not None:
            if node in captured:
                results[node] = d
        elif leaf or node.retains_grad:
            commit_nodes.append(node)
            commit_grads.append(d)
        if leaf or feeding is not None and node not in feeding:
            continue
        pairs = node.chain_rule(d, retain_graph)
        if create_graph and type(node) is History:
            pairs = second_order_pairs(node, pairs, d)
        if watch:
            anomaly.check_gradients(node, pairs)
        for parent, d_parent in pairs:
            if feeding is None or parent in feeding or parent in captured:
                total = get(parent)  # _add inlined: this runs once per edge
                if total is None:
                    grads[parent] = d_parent
                elif owned and total in owned:
                    add_into(total, d_parent)
                else:
                    total = grads[parent] = add(total, d_parent)
                    if add_into is not None:
                        owned.add(total)
        d = total = d_parent = None  # let go before the next node's backward makes its arrays
    if wanted is not None:
        return [results.get(c) for c in wanted]
    _commit(commit_nodes, commit_grads, seed_ids)
    return None


def _commit(nodes: list[Any], grads: list[Any], seed_ids: set[int]) -> None:
    """Hand each gradient to its node, never one array to two `.grad`s.

    A backward may pass one gradient on unchanged to several inputs (Add,
    Clone), and a seed given by the caller may reach a leaf as it is: such an
    array (one already handed out, or a seed) is committed as `shared`, and
    the node copies it. Scalar gradients (plain floats) have no array.
    """
    _accumulate(nodes, grads, seed_ids)
    if POST_ACCUMULATE_HOOKS:  # each leaf's hooks, once every .grad of this backward is in
        for node in nodes:
            for fn in hooks_of(POST_ACCUMULATE_HOOKS, node):
                fn(node)


def _accumulate(nodes: list[Any], grads: list[Any], seed_ids: set[int]) -> None:
    """`_commit`'s accumulation: each gradient into its node's `.grad`."""
    handed = set(seed_ids)
    for node, d in zip(nodes, grads):
        if isinstance(d, float):  # a Value's gradient (and no getattr miss, which is slow)
            node.accumulate_derivative(d)
            continue
        data = getattr(d, "data", None)
        if data is None:
            node.accumulate_derivative(d)
            continue
        node.accumulate_derivative(d, shared=id(data) in handed)
        handed.add(id(data))


def feeding_nodes(order: list[Any], captured: set[Any]) -> set[Any]:
    """The nodes with a captured node among their ancestors.

    With `capture`, only these pass gradients on: the rest of the graph is
    neither run nor freed (as in PyTorch's autograd.grad), so a part that
    another computation still needs is left alone.
    """
    feeding: set[Any] = set()
    for node in order:  # leaves first: a node's parents are settled before it
        if any(p in captured or p in feeding for p in node.parents):
            feeding.add(node)
    return feeding


def _add(total: Any, d: Any) -> Any:
    """Functional accumulation (`+=` would rebind NumPy 0-d and JAX arrays)."""
    return d if total is None else total + d
