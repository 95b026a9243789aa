"""`vmap`: a function of one sample made a function of a batch, as `torch.func.vmap`.

`f` runs once over the whole batch: its batched arguments arrive as
`BatchedTensor`s (`torchlight.func._batching`), whose ops batch natively
(elementwise ops with broadcasting, matmul, reductions, indexing, shape
ops, `func.grad`). When `f` calls an op that has no batching rule (or
converts a sample to a Python value), the call is abandoned and `f` runs
once per sample instead, the results stacked: always right, only slower.
`vmap_fallback(False)` turns the loop off, so that a test can prove that a
function batches natively.

Example:
    >>> import numpy as np
    >>> from torchlight import func
    >>> x = np.arange(6.0).reshape(3, 2)
    >>> func.vmap(lambda row: (row * row).sum())(x)
    array([ 1., 13., 41.])
    >>> func.vmap(lambda a, b: a @ b, in_dims=(0, None))(x, np.array([1.0, -1.0]))
    array([-1., -1., -1.])
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from torchlight import backends
from torchlight.creation import _is_array
from torchlight.creation import tensor as make_tensor
from torchlight.func import _batching
from torchlight.func._batching import BatchedTensor, Level, Unbatchable
from torchlight.func._pytree import broadcast_prefix, leaves_with_paths, tree_flatten, tree_unflatten
from torchlight.tensor import Tensor

__all__ = ["vmap", "vmap_fallback"]


class _Settings(threading.local):
    def __init__(self) -> None:
        self.fallback = True


_SETTINGS = _Settings()
_FAILED = object()  # (the batched call raised: run the loop)


@contextlib.contextmanager
def vmap_fallback(enabled: bool) -> Iterator[None]:
    """Whether `vmap` may fall back to a loop over the batch (default True), for the block.

    With `False`, an op without a batching rule raises RuntimeError naming
    it, instead of being run once per sample: the way to check that a
    function batches natively.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> with func.vmap_fallback(False):
        ...     func.vmap(lambda x: x.exp().sum())(np.zeros((4, 3)))
        array([3., 3., 3., 3.])
    """
    before = _SETTINGS.fallback
    _SETTINGS.fallback = bool(enabled)
    try:
        yield
    finally:
        _SETTINGS.fallback = before


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """`func` mapped over a dimension of its arguments: `vmap(f)(xs)[i] == f(xs[i])`, as `torch.func.vmap`.

    - `in_dims`: for each positional argument, the dimension to map over,
      or None for an argument shared by all samples; an int or None for
      all of them, or a tuple with one entry per argument, each an int,
      None, or a pytree matching that argument (a prefix of it: one entry
      stands for the whole subtree). Keyword arguments are never mapped.
    - `out_dims`: where the batch dimension goes in each output (an int, or
      a pytree prefix of the output); None for an output that does not
      depend on the batch.
    - Arrays in, arrays out, as the other transforms: `func` receives
      Tensors (one sample each), and returns Tensors (a pytree of them).
    - `chunk_size`: run the batch `chunk_size` samples at a time (less
      memory), the results joined.
    - `randomness` is `torch.func`'s argument ('error', 'different',
      'same'); torchlight does not see random calls inside `func`: a random
      op without a batching rule runs once per sample ('different').

    Nesting works (`vmap(vmap(f))`), and so do transforms inside: with
    `vmap(func.grad(loss), in_dims=(None, 0, 0))(params, x, y)` each sample
    gets its own gradient, in one backward pass over the batch.

    Example:
        >>> import numpy as np
        >>> from torchlight import func
        >>> w = np.array([1.0, 2.0])
        >>> xs = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> func.vmap(func.grad(lambda w, x: (w * x).sum() ** 2), in_dims=(None, 0))(w, xs)
        array([[2., 0.],
               [0., 4.],
               [6., 6.]])
    """
    if randomness not in ("error", "different", "same"):
        raise ValueError(f"vmap: randomness must be 'error', 'different' or 'same', not {randomness!r}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be None or a positive int, not {chunk_size!r}")
    _check_dims_spec("in_dims", in_dims)
    _check_dims_spec("out_dims", out_dims)

    @functools.wraps(func)
    def vmapped(*args: Any, **kwargs: Any) -> Any:
        if not args:
            raise ValueError("vmap: the function was called with no positional arguments; at least one must be "
                             "batched (keyword arguments are not)")
        dims_tree = tuple(in_dims) if isinstance(in_dims, list) else in_dims
        if isinstance(dims_tree, tuple) and len(dims_tree) != len(args):
            raise ValueError(f"vmap: in_dims has {len(dims_tree)} entries but the function got {len(args)} "
                             "positional argument(s)")
        dims = broadcast_prefix("vmap", "in_dims", dims_tree, tuple(args))
        leaves = leaves_with_paths(tuple(args))
        spec = tree_flatten(tuple(args))[1]
        as_arrays = not any(isinstance(leaf, Tensor) for _, leaf in leaves)
        values, size = _batched_leaves(leaves, dims)
        if chunk_size is None or chunk_size >= size:
            out = _run(func, spec, values, dims, size, kwargs, out_dims, randomness)
        else:
            parts = []
            for start in range(0, size, chunk_size):
                stop = min(start + chunk_size, size)
                chunk = [v if d is None else v[(slice(None),) * d + (slice(start, stop),)]
                         for v, d in zip(values, dims)]
                parts.append(_run(func, spec, chunk, dims, stop - start, kwargs, out_dims, randomness))
            out = _join(parts, out_dims)
        return _export(out, as_arrays)

    return vmapped


def _check_dims_spec(what: str, dims: Any) -> None:
    for path, d in leaves_with_paths(dims):
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(f"vmap: {what}{path} is {d!r}; each entry must be an int or None")


def _batched_leaves(leaves: list[tuple[str, Any]], dims: list[Any]) -> tuple[list[Any], int]:
    """The argument leaves as Tensors where arrays, the batched ones checked; and the batch size."""
    values, sizes = [], []
    for (path, leaf), d in zip(leaves, dims):
        where = f"args{path}"
        if _is_array(leaf) and not isinstance(leaf, Tensor):
            leaf = make_tensor(leaf)
        if d is not None:
            if not isinstance(leaf, Tensor):
                raise ValueError(f"vmap: in_dim={d} for {where}, a {type(leaf).__name__}; only Tensors and "
                                 "arrays can be batched (give None for it)")
            if not -leaf.ndim <= d < leaf.ndim or leaf.ndim == 0:
                raise ValueError(f"vmap: in_dim={d} for {where} of shape {leaf.shape} is out of range (it has "
                                 f"{leaf.ndim} dimension(s))")
            sizes.append((where, leaf.shape[d]))
        values.append(leaf)
    if not sizes:
        raise ValueError("vmap: no argument is batched (every in_dim is None, or the arguments hold no Tensor "
                         "or array)")
    if len({n for _, n in sizes}) > 1:
        listed = ", ".join(f"{where} (size {n})" for where, n in sizes)
        raise ValueError(f"vmap: the batched arguments have different sizes along their in_dims: {listed}")
    return values, sizes[0][1]


def _run(func: Callable, spec: Any, values: list[Any], dims: list[Any], size: int, kwargs: dict,
         out_dims: Any, randomness: str) -> Any:
    """`func` over the batch: natively if it can, else once per sample.

    Random draws are seen by the backends' random streams moving: with
    randomness='error' they raise (as torch.func.vmap); 'different' needs a
    draw per sample, so a batched call that drew is redone as the loop
    (from the same stream position); 'same' keeps the batched call's one
    draw for all, and in the loop puts the stream back before each sample.
    """
    states = _random_states()
    level = Level(size)
    wrapped = [v if d is None else BatchedTensor(v.movedim(d, 0) if d % v.ndim else v, level)
               for v, d in zip(values, dims)]
    _batching.push(level)
    try:
        result = func(*tree_unflatten(wrapped, spec), **kwargs)
    except Unbatchable as missing:
        if not _SETTINGS.fallback:
            raise RuntimeError(f"vmap: no batching rule for {missing} (with vmap_fallback(False))") from None
        result = _FAILED
    except Exception:
        if not _SETTINGS.fallback:
            raise
        result = _FAILED  # (a rule's gap surfacing as another error: the loop shows the function's own)
    finally:
        _batching.pop(level)
    if result is not _FAILED and _drew(states):
        if randomness == "error":
            raise RuntimeError(_RANDOM_ERROR)
        if randomness == "different":
            _restore(states)
            result = _FAILED
    if result is _FAILED:
        out = _loop(func, spec, values, dims, size, kwargs, out_dims, states if randomness == "same" else None)
        if randomness == "error" and _drew(states):
            raise RuntimeError(_RANDOM_ERROR)
        return out
    return _outputs_of_batch(result, level, out_dims)


_RANDOM_ERROR = ("vmap: the function drew random numbers, with randomness='error' (the default, as torch.func.vmap); "
                 "pass randomness='different' (a draw per sample) or 'same' (one draw for all)")


def _random_states() -> list[tuple[Any, Any]]:
    return [(b, b.random_state()) for b in backends.instances()]


def _drew(states: list[tuple[Any, Any]]) -> bool:
    """Whether a backend's random stream moved since `states` (or one was made)."""
    if len(backends.instances()) != len(states):
        return True
    for backend, before in states:
        now = backend.random_state()
        try:
            if not bool(now == before):
                return True
        except Exception:  # (a state without a comparison: moved unless it is the same object)
            if now is not before:
                return True
    return False


def _restore(states: list[tuple[Any, Any]]) -> None:
    for backend, state in states:
        backend.set_random_state(state)


def _outputs_of_batch(result: Any, level: Level, out_dims: Any) -> Any:
    leaves, spec = tree_flatten(result)
    outs = broadcast_prefix("vmap", "out_dims", out_dims, result)
    done = []
    for (path, leaf), od in zip(leaves_with_paths(result), outs):
        _check_output(path, leaf)
        batched = isinstance(leaf, BatchedTensor) and leaf.level is level
        if od is None:
            if batched:
                raise ValueError(f"vmap: out_dims is None for output{path}, but it depends on the batch")
            done.append(leaf)
            continue
        value = leaf.value if batched else _batching.expand_to(leaf, level)
        ndim = value.ndim
        if not -ndim <= od < ndim:
            raise ValueError(f"vmap: out_dim={od} for output{path} of {ndim - 1} dimension(s) is out of range")
        done.append(value.movedim(0, od) if od % ndim else value)
    return spec.unflatten(iter(done))


def _check_output(path: str, leaf: Any) -> None:
    if not isinstance(leaf, Tensor):
        raise TypeError(f"vmap: the function must return Tensors (or a pytree of them); output{path} is a "
                        f"{type(leaf).__name__}")


def _loop(func: Callable, spec: Any, values: list[Any], dims: list[Any], size: int, kwargs: dict,
          out_dims: Any, same_draws: list[tuple[Any, Any]] | None = None) -> Any:
    """`func` once per sample, the results stacked along their out_dims (the random streams put back to
    `same_draws` before each sample, when given)."""
    results = []
    for b in range(size):
        if same_draws is not None:
            _restore(same_draws)
        sample = [v if d is None else v[(slice(None),) * (d % v.ndim) + (b,)] for v, d in zip(values, dims)]
        results.append(func(*tree_unflatten(sample, spec), **kwargs))
    first_leaves, first_spec = tree_flatten(results[0])
    outs = broadcast_prefix("vmap", "out_dims", out_dims, results[0])
    per_sample = []
    for r in results:
        leaves, s = tree_flatten(r)
        if s != first_spec:
            raise ValueError(f"vmap: the function returned different structures for different samples "
                             f"({first_spec} and {s})")
        per_sample.append(leaves)
    done = []
    for k, ((path, leaf), od) in enumerate(zip(leaves_with_paths(results[0]), outs)):
        _check_output(path, leaf)
        parts = [leaves[k] for leaves in per_sample]
        if od is None:
            done.append(parts[0])
            continue
        ndim = leaf.ndim + 1
        if not -ndim <= od < ndim:
            raise ValueError(f"vmap: out_dim={od} for output{path} of {ndim - 1} dimension(s) is out of range")
        done.append(_batching.stack(parts, od % ndim))
    return first_spec.unflatten(iter(done))


def _join(parts: list[Any], out_dims: Any) -> Any:
    """The chunks' results joined along their out_dims."""
    first_leaves, spec = tree_flatten(parts[0])
    outs = broadcast_prefix("vmap", "out_dims", out_dims, parts[0])
    columns = [tree_flatten(p)[0] for p in parts]
    done = []
    for k, od in enumerate(outs):
        pieces = [c[k] for c in columns]
        done.append(pieces[0] if od is None else _batching.concat(pieces, od))
    return spec.unflatten(iter(done))


def _export(value: Any, as_arrays: bool) -> Any:
    """Arrays for a caller that gave arrays (a Tensor that requires grad stays one)."""
    if not as_arrays:
        return value

    def one(v: Any) -> Any:
        if isinstance(v, Tensor) and not isinstance(v, BatchedTensor) and not v.requires_grad:
            return v.backend.asarray(v.data)
        return v

    leaves, spec = tree_flatten(value)
    return spec.unflatten(iter(one(v) for v in leaves))
