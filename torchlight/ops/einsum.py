"""einsum: Einstein summation in NumPy's and PyTorch's spelling, contracted pairwise in the order
opt_einsum chooses.

A call runs in four steps, each an existing differentiable op, so gradients of every order (and
complex gradients) come from those ops and einsum has no backward of its own:

1. `parse` reads the subscripts against the operands' shapes: one label per dim (a letter, or one of
   the dims an ellipsis stands for, right-aligned and broadcast as NumPy does), the output's labels
   (implicit: the ellipsis, then the letters that appear once, in sorted order), one size per label.
2. Each operand alone: a letter repeated in it becomes its diagonal (a reshape and a strided slice), a
   dim of size 1 that another operand gives a larger size is squeezed away (it broadcasts), and a
   letter no other operand and not the output has is summed.
3. `contraction_path` asks opt_einsum's `contract_path` for the order of the pairwise contractions
   (`optimize="auto"` by default; `False` contracts left to right; an explicit path is taken as
   given); each pair is a permute, a reshape and a batched matmul (`@`), or a broadcast product
   where the pair sums nothing.
4. A last permute puts the result's dims in the output's order.

Example:
    >>> import torchlight as tl
    >>> a = tl.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> b = tl.tensor([[1.0, 0.0], [0.0, 2.0]])
    >>> out = tl.einsum("ij,jk->ik", a, b)
    >>> out.sum().backward()
    >>> out.tolist(), a.grad.tolist()
    ([[1.0, 4.0], [3.0, 8.0]], [[1.0, 2.0], [1.0, 2.0]])
"""

from __future__ import annotations

import functools
import math
import operator
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from torchlight.backends.checks import check_same_backend

if TYPE_CHECKING:
    from torchlight.tensor import Tensor

#: the letters a subscript may use (NumPy's and PyTorch's: a-z, A-Z); a sublist's int i is LETTERS[i]
LETTERS = string.ascii_lowercase + string.ascii_uppercase

#: the label of the k-th dim (from the right) an ellipsis stands for; letters are labelled by their ord()
_ELLIPSIS = 1 << 20

#: the path optimisers `optimize=` may name (opt_einsum's), besides True (auto), False (left to right) or a path
OPTIMIZERS = ("auto", "auto-hq", "optimal", "branch-all", "branch-2", "branch-1", "greedy", "eager",
              "opportunistic", "dp", "dynamic-programming", "random-greedy", "random-greedy-128")


@dataclass(frozen=True)
class Parsed:
    """Subscripts read against shapes: a label per dim of each operand, the output's labels, each label's size
    (the broadcast size: a letter of size 1 in one operand and n in another has size n)."""

    inputs: tuple[tuple[int, ...], ...]
    output: tuple[int, ...]
    sizes: dict[int, int]
    shapes: tuple[tuple[int, ...], ...]


def label_name(label: int) -> str:
    """A letter, or which dim of the ellipsis a label stands for."""
    return chr(label) if label < _ELLIPSIS else f"the ellipsis's dim {-(label - _ELLIPSIS) - 1}"


def split_arguments(args: Sequence[Any]) -> tuple[str, list[Any]]:
    """(subscripts, operands) of an einsum call in any of torch's three forms: `("ij,jk", a, b)`,
    `("ij,jk", [a, b])` and the sublist form `(a, [0, 1], b, [1, 2], [0, 2])` (ints 0-51 for
    a-z, A-Z, `...` as Ellipsis), which becomes the string form.

    Example:
        >>> split_arguments([1.0, [0, 1], 2.0, [1, 2], [0, 2]])
        ('ab,bc->ac', [1.0, 2.0])
    """
    if not args:
        raise TypeError("einsum: expects the subscripts and at least one operand")
    first, rest = args[0], list(args[1:])
    if isinstance(first, str):
        if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
            rest = list(rest[0])
        if not rest:
            raise ValueError(f"einsum: subscripts {first!r} but no operands")
        return first, rest
    # the sublist form: operand, sublist, operand, sublist, ..., [output sublist]
    operands, terms = list(args[0::2]), list(args[1::2])
    output = None
    if len(operands) > len(terms):
        output = operands.pop()
        if not isinstance(output, (list, tuple)):
            raise TypeError("einsum: the sublist form is operand, sublist, operand, sublist, ..., an optional output "
                            f"sublist; the last argument is a {type(output).__name__}")
    text = ",".join(_sublist(term, f"operand {i}'s sublist") for i, term in enumerate(terms))
    if output is not None:
        text += "->" + _sublist(output, "the output sublist")
    return text, operands


def _sublist(term: Any, what: str) -> str:
    if isinstance(term, str) or not isinstance(term, (list, tuple)):
        raise TypeError(f"einsum: {what} must be a list of ints (0-51) and Ellipsis, not {type(term).__name__}")
    out = []
    for item in term:
        if item is Ellipsis:
            out.append("...")
        elif hasattr(item, "__index__") and not isinstance(item, bool) and 0 <= operator.index(item) < len(LETTERS):
            out.append(LETTERS[operator.index(item)])
        else:
            raise ValueError(f"einsum: {what} holds {item!r}; a sublist holds ints 0-51 (a-z, A-Z) and Ellipsis")
    return "".join(out)


def _tokens(term: str, what: str, subscripts: str) -> list[str]:
    """The letters of one term and "..." where its ellipsis is; a ValueError for anything else."""
    out: list[str] = []
    i = 0
    while i < len(term):
        ch = term[i]
        if ch in LETTERS:
            out.append(ch)
            i += 1
        elif ch == ".":
            if term[i:i + 3] != "...":
                raise ValueError(f"einsum: '.' in subscript {term!r} of {what} is not part of an ellipsis '...' "
                                 f"(subscripts {subscripts!r})")
            if "..." in out:
                raise ValueError(f"einsum: subscript {term!r} of {what} has more than one ellipsis '...'")
            out.append("...")
            i += 3
        else:
            raise ValueError(f"einsum: invalid character {ch!r} in subscripts {subscripts!r} (a subscript is made of "
                             "letters a-z, A-Z and one '...' at most, operands separated by ',', then '->' and the "
                             "output)")
    return out


def parse(subscripts: str, shapes: Sequence[tuple[int, ...]]) -> Parsed:
    """The labels and sizes `subscripts` gives operands of `shapes`; a ValueError naming the subscript and the
    operand where they do not fit.

    Example:
        >>> p = parse("ij,jk", [(2, 3), (3, 4)])
        >>> [''.join(map(chr, t)) for t in p.inputs], ''.join(map(chr, p.output)), p.sizes[ord('j')]
        (['ij', 'jk'], 'ik', 3)
    """
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: the subscripts must be a str, not {type(subscripts).__name__}")
    text = "".join(subscripts.split())  # spaces are allowed, as NumPy and PyTorch
    if text.count("->") > 1:
        raise ValueError(f"einsum: subscripts {subscripts!r} have more than one '->'")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: subscripts {subscripts!r} give {len(terms)} operand(s)' subscripts, but "
                         f"{len(shapes)} operand(s) were given")
    inputs: list[tuple[int, ...]] = []
    ellipsis_ndim = 0
    any_ellipsis = False
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        tokens = _tokens(term, f"operand {i}", subscripts)
        letters = len(tokens) - tokens.count("...")
        if "..." in tokens:
            any_ellipsis = True
            if len(shape) < letters:
                raise ValueError(f"einsum: subscript {term!r} of operand {i} names {letters} dims and an ellipsis, but "
                                 f"operand {i} has {len(shape)} dims (shape {tuple(shape)})")
        elif len(shape) != letters:
            raise ValueError(f"einsum: subscript {term!r} of operand {i} names {letters} dims, but operand {i} has "
                             f"{len(shape)} (shape {tuple(shape)})")
        extra = len(shape) - letters
        ellipsis_ndim = max(ellipsis_ndim, extra)
        labels: list[int] = []
        for token in tokens:
            if token == "...":
                labels += [_ELLIPSIS + k for k in reversed(range(extra))]
            else:
                labels.append(ord(token))
        inputs.append(tuple(labels))
    sizes = _sizes(subscripts, terms, inputs, shapes)
    counts = Counter(label for labels in inputs for label in labels if label < _ELLIPSIS)
    ellipsis_out = tuple(_ELLIPSIS + k for k in reversed(range(ellipsis_ndim)))
    if not arrow:  # implicit: the ellipsis, then the letters that appear once, sorted
        output = (ellipsis_out if any_ellipsis else ()) + tuple(sorted(label for label, n in counts.items() if n == 1))
    else:
        tokens = _tokens(rhs, "the output", subscripts)
        out: list[int] = []
        for token in tokens:
            if token == "...":
                out += ellipsis_out
                continue
            label = ord(token)
            if label not in counts:
                raise ValueError(f"einsum: output letter {token!r} appears in no operand's subscript "
                                 f"(subscripts {subscripts!r})")
            if label in out:
                raise ValueError(f"einsum: output letter {token!r} appears more than once in the output {rhs!r}")
            out.append(label)
        output = tuple(out)
    return Parsed(tuple(inputs), output, sizes, tuple(tuple(shape) for shape in shapes))


def _sizes(subscripts: str, terms: list[str], inputs: list[tuple[int, ...]],
           shapes: Sequence[tuple[int, ...]]) -> dict[int, int]:
    """Each label's size: equal within an operand (a diagonal), equal or 1 across operands (broadcast)."""
    sizes: dict[int, int] = {}
    where: dict[int, int] = {}  # the first operand that gave a label a size other than 1
    for i, (labels, shape) in enumerate(zip(inputs, shapes)):
        own: dict[int, int] = {}
        for label, n in zip(labels, shape):
            if label in own and own[label] != n:
                raise ValueError(f"einsum: letter {chr(label)!r} is repeated in subscript {terms[i]!r} of operand {i} "
                                 f"(shape {tuple(shape)}) with sizes {own[label]} and {n}: a repeated letter takes a "
                                 "diagonal, which needs equal sizes")
            own[label] = n
        for label, n in own.items():
            if n == 1:
                sizes.setdefault(label, 1)
                continue
            if label in where and sizes[label] != n:
                j = where[label]
                what = (f"letter {chr(label)!r}" if label < _ELLIPSIS
                        else f"the dims '...' stands for ({label_name(label)})")
                raise ValueError(f"einsum: {what} has size {sizes[label]} in operand {j} (subscript {terms[j]!r}, "
                                 f"shape {tuple(shapes[j])}) and size {n} in operand {i} (subscript {terms[i]!r}, "
                                 f"shape {tuple(shape)}); sizes must agree or be 1 (subscripts {subscripts!r})")
            where.setdefault(label, i)
            sizes[label] = n
    return sizes


def contraction_path(parsed: Parsed, optimize: Any = "auto") -> list[tuple[int, ...]]:
    """The order of the pairwise contractions of `parsed`'s operands (after each operand's own diagonals,
    squeezes and sums), in opt_einsum's convention: each step names positions in the current list of
    operands, which it removes, appending their contraction at the end.

    `optimize` is an opt_einsum path optimiser's name (`"auto"`, `"greedy"`, `"optimal"`, ...; True is
    "auto"), False for left to right, or an explicit path (a list of tuples of positions; NumPy's
    `["einsum_path", ...]` too).

    Example:
        >>> p = parse("ab,bc,cd->ad", [(10, 100), (100, 5), (5, 100)])
        >>> contraction_path(p, "greedy"), contraction_path(p, False)
        ([(0, 1), (0, 1)], [(0, 1), (1, 0)])
        >>> contraction_path(parse("ab,bc,cd->ad", [(100, 5), (5, 100), (100, 5)]), "greedy")
        [(1, 2), (0, 1)]
    """
    return _path(_prepared_labels(parsed), parsed, optimize)


def _prepared_labels(parsed: Parsed) -> list[tuple[int, ...]]:
    """The operands' labels once each has its diagonals taken, its broadcast size-1 dims squeezed and its own
    letters summed: what `einsum` contracts (as `_prepare` and `_sum_out` leave them)."""
    labels = [tuple(x for x in dict.fromkeys(t) if shape[t.index(x)] != 1 or parsed.sizes[x] == 1)
              for t, shape in zip(parsed.inputs, parsed.shapes)]
    counts = Counter(x for t in labels for x in t)
    return [tuple(x for x in t if counts[x] > 1 or x in parsed.output) for t in labels]


def _path(labels: list[tuple[int, ...]], parsed: Parsed, optimize: Any) -> list[tuple[int, ...]]:
    n = len(labels)
    if n < 2:  # nothing to order, but a bad optimize= is still refused, as for more operands
        if isinstance(optimize, str) and optimize not in OPTIMIZERS:
            raise ValueError(_unknown_optimizer(optimize))
        if n == 1 and not (isinstance(optimize, (bool, str)) or optimize is None):
            return _explicit_path(optimize, 1)
        return [(0,)] if n == 1 else []
    if n == 2 and (isinstance(optimize, (bool, str)) or optimize is None):  # one way to contract two
        if isinstance(optimize, str) and optimize not in OPTIMIZERS:
            raise ValueError(_unknown_optimizer(optimize))
        return [(0, 1)]
    if optimize is False or optimize is None:  # ((a b) c) d: the last result (at the end) with the next operand
        steps: list[tuple[int, ...]] = [(0, 1)]
        return steps + [(n - 2 - s, 0) for s in range(n - 2)]
    if optimize is True:
        optimize = "auto"
    if isinstance(optimize, str):
        if optimize not in OPTIMIZERS:
            raise ValueError(_unknown_optimizer(optimize))
        try:
            import opt_einsum
        except ImportError as exc:  # a core dependency; a broken install gets told what to do
            raise ImportError("einsum: needs opt_einsum to choose the contraction order (pip install opt_einsum), "
                              "or pass optimize=False to contract left to right") from exc
        symbols = {label: opt_einsum.get_symbol(k) for k, label in enumerate(parsed.sizes)}
        out = _keep_output(labels, parsed)
        equation = ",".join("".join(symbols[x] for x in t) for t in labels) + "->" + "".join(symbols[x] for x in out)
        shapes = [tuple(parsed.sizes[x] for x in t) for t in labels]
        path, _ = opt_einsum.contract_path(equation, *shapes, shapes=True, optimize=optimize)
        return [tuple(step) for step in path]
    return _explicit_path(optimize, n)


def _unknown_optimizer(optimize: str) -> str:
    return (f"einsum: optimize={optimize!r} names no path optimiser (one of {', '.join(OPTIMIZERS)}; True for "
            "'auto', False for left to right, or a path)")


def _keep_output(labels: list[tuple[int, ...]], parsed: Parsed) -> tuple[int, ...]:
    present = {x for t in labels for x in t}
    return tuple(x for x in parsed.output if x in present)


def _explicit_path(optimize: Any, n: int) -> list[tuple[int, ...]]:
    steps = list(optimize) if isinstance(optimize, (list, tuple)) else None
    if steps and steps[0] == "einsum_path":  # NumPy's np.einsum_path spelling
        steps = steps[1:]
    bad = ValueError(f"einsum: optimize={optimize!r} is not a path optimiser's name, a bool, or a contraction path "
                     f"for {n} operands (a list of tuples of positions, as opt_einsum's and NumPy's paths)")
    if steps is None:
        raise bad
    path, count = [], n
    for step in steps:
        if not isinstance(step, (list, tuple)) or not step:
            raise bad
        try:
            positions = tuple(operator.index(p) for p in step)
        except TypeError:
            raise bad from None
        if len(set(positions)) != len(positions) or any(not 0 <= p < count for p in positions):
            raise bad
        path.append(positions)
        count -= len(positions) - 1
    if count != 1:
        raise bad
    return path


def einsum(subscripts: str, operands: Sequence[Tensor], optimize: Any = "auto") -> Tensor:
    """Einstein summation of Tensors (`tl.einsum` lifts its arguments and calls this); see the module's
    docstring for the steps and `contraction_path` for `optimize`.

    Example:
        >>> import torchlight as tl
        >>> from torchlight.ops.einsum import einsum
        >>> einsum("ii->", [tl.tensor([[1.0, 2.0], [3.0, 4.0]])]).item()
        5.0
    """
    operands = list(operands)
    parsed, path = _planned(subscripts, tuple(tuple(t.shape) for t in operands), optimize)
    first = operands[0]
    for t in operands[1:]:
        if t.backend is not first.backend or first.backend.multi_device:
            check_same_backend("einsum", first, t)
    if len({t.dtype for t in operands}) > 1:  # one dtype, as np.einsum's result type
        dtype = first.backend.xp.result_type(*(t.dtype for t in operands))
        operands = [t if t.dtype == dtype else t.astype(dtype) for t in operands]
    work = [_prepare(t, labels, parsed) for t, labels in zip(operands, parsed.inputs)]
    counts = Counter(x for _, labels in work for x in labels)
    output = set(parsed.output)
    work = [_sum_out(t, labels, {x for x in labels if counts[x] == 1 and x not in output}) for t, labels in work]
    for step in path:
        taken = [work[p] for p in step]
        for p in sorted(step, reverse=True):
            del work[p]
        rest = {x for _, labels in work for x in labels} | output
        t, labels = taken[0]
        for k, (u, other) in enumerate(taken[1:], start=2):
            keep = rest | {x for _, more in taken[k:] for x in more}
            t, labels = _pair(t, labels, u, other, keep, parsed.sizes)
        work.append((t, labels))
    (t, labels), = work
    t, labels = _sum_out(t, labels, set(labels) - output)
    return _permute(t, labels, parsed.output)


def _planned(subscripts: str, shapes: tuple[tuple[int, ...], ...], optimize: Any) -> tuple[Parsed, list]:
    """(parse, contraction_path) of a call, remembered per subscripts, shapes and optimiser: a loop calling one
    einsum pays for the parsing and the path search once."""
    try:
        key = (subscripts, shapes, _key(optimize))
        hash(key)
    except TypeError:  # an unusual `optimize` (parse and _path say what is wrong with it)
        parsed = parse(subscripts, shapes)
        return parsed, _path(_prepared_labels(parsed), parsed, optimize)
    return _cached_plan(*key)


def _key(optimize: Any) -> Any:
    if isinstance(optimize, list):
        return tuple(x if isinstance(x, str) else tuple(x) for x in optimize)
    return optimize


@functools.lru_cache(maxsize=512)
def _cached_plan(subscripts: str, shapes: tuple[tuple[int, ...], ...], optimize: Any) -> tuple[Parsed, list]:
    parsed = parse(subscripts, shapes)
    return parsed, _path(_prepared_labels(parsed), parsed, optimize)


def _prepare(t: Tensor, labels: tuple[int, ...], parsed: Parsed) -> tuple[Tensor, tuple[int, ...]]:
    """One operand with its repeated labels made diagonals and its broadcast size-1 dims squeezed away."""
    while len(set(labels)) != len(labels):
        label = next(x for x in labels if labels.count(x) > 1)
        at = [p for p, x in enumerate(labels) if x == label]
        others = [p for p in range(len(labels)) if p not in at]
        n, m = t.shape[at[0]], len(at)
        step = sum(n ** k for k in range(m)) if n > 1 else 1  # the flat offset from (i, ..., i) to (i+1, ..., i+1)
        t = _permute_axes(t, others + at).reshape(*(t.shape[p] for p in others), n ** m)
        t = t[..., ::step]
        labels = tuple(labels[p] for p in others) + (label,)
    squeeze = [p for p, x in enumerate(labels) if t.shape[p] == 1 and parsed.sizes[x] != 1]
    if squeeze:
        t = t.reshape(*(n for p, n in enumerate(t.shape) if p not in squeeze))
        labels = tuple(x for p, x in enumerate(labels) if p not in squeeze)
    return t, labels


def _sum_out(t: Tensor, labels: tuple[int, ...], gone: set[int]) -> tuple[Tensor, tuple[int, ...]]:
    if not gone:
        return t, labels
    dims = tuple(p for p, x in enumerate(labels) if x in gone)
    return t.sum(dims), tuple(x for x in labels if x not in gone)


def _permute(t: Tensor, labels: tuple[int, ...], order: tuple[int, ...]) -> Tensor:
    return _permute_axes(t, [labels.index(x) for x in order])


def _permute_axes(t: Tensor, axes: list[int]) -> Tensor:
    return t if axes == list(range(t.ndim)) else t.permute(*axes)


def _pair(a: Tensor, la: tuple[int, ...], b: Tensor, lb: tuple[int, ...], keep: set[int],
          sizes: dict[int, int]) -> tuple[Tensor, tuple[int, ...]]:
    """Contract two operands, keeping the labels in `keep`: (batch, a's own, b's own) as a batched matmul over
    the labels both have and nothing later needs, or a broadcast product where there are none."""
    a, la = _sum_out(a, la, {x for x in la if x not in lb and x not in keep})
    b, lb = _sum_out(b, lb, {x for x in lb if x not in la and x not in keep})
    batch = [x for x in la if x in lb and x in keep]
    summed = [x for x in la if x in lb and x not in keep]
    own_a = [x for x in la if x not in lb]
    own_b = [x for x in lb if x not in la]
    size = [sizes[x] for x in batch]
    fa, fb = [sizes[x] for x in own_a], [sizes[x] for x in own_b]
    if not summed:  # an outer or elementwise product: broadcast, no matmul
        left = _reshape(_permute(a, la, (*batch, *own_a)), (*size, *fa, *(1 for _ in fb)))
        right = _reshape(_permute(b, lb, (*batch, *own_b)), (*size, *(1 for _ in fa), *fb))
        return left * right, (*batch, *own_a, *own_b)
    k = math.prod(sizes[x] for x in summed)
    left = _reshape(_permute(a, la, (*batch, *own_a, *summed)), (*size, math.prod(fa), k))
    right = _reshape(_permute(b, lb, (*batch, *summed, *own_b)), (*size, k, math.prod(fb)))
    return _reshape(left @ right, (*size, *fa, *fb)), (*batch, *own_a, *own_b)


def _reshape(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    return t if t.shape == shape else t.reshape(shape)


class EinsumMethods:
    """The Tensor methods of this category (`Tensor` inherits them): none, as PyTorch's Tensor has no einsum
    method; `tl.einsum` is the free function."""

    __slots__ = ()
