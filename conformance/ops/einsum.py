"""The einsum entries: tl.einsum (torchlight/ops/einsum.py), built on MatMul (each pairwise contraction),
Permute, Reshape, Gather (a repeated letter's diagonal) and Sum; einsum has no Function of its own, so its
entry is placed here by name (conformance/test_database.py's PLACED).

Each case's `subscripts` keyword is the spelling; the reference is `np.einsum` in float64, except where
torchlight follows PyTorch over NumPy (an explicit output without the ellipsis sums the ellipsis's dims,
which NumPy refuses): `reference` sums them after NumPy's einsum with the ellipsis kept. `optimize`
picks the path optimiser (the value must not depend on it), `form` the calling convention: the operands
as varargs (default), as one list, or PyTorch's sublist form.

Example:
    >>> from conformance.ops.einsum import OPS
    >>> [op.name for op in OPS], [c.name for c in OPS[0].cases][:3]
    (['tl.einsum'], ['matmul', 'batched_matmul', 'trace'])
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance.opinfo import Case, OpInfo
from torchlight.ops.einsum import LETTERS


def call(*operands: Any, subscripts: str, optimize: Any = "auto", form: str = "varargs") -> Any:
    if form == "list":
        return tl.einsum(subscripts, list(operands), optimize=optimize)
    if form == "sublist":  # "ab,bc->ac" as a, [0, 1], b, [1, 2], [0, 2]
        lhs, _, rhs = subscripts.partition("->")
        args: list[Any] = []
        for x, term in zip(operands, lhs.split(",")):
            args += [x, [LETTERS.index(ch) for ch in term]]
        return tl.einsum(*args, [LETTERS.index(ch) for ch in rhs], optimize=optimize)
    return tl.einsum(subscripts, *operands, optimize=optimize)


def reference(*operands: np.ndarray, subscripts: str, optimize: Any = "auto", form: str = "varargs") -> np.ndarray:
    """np.einsum, with an ellipsis left out of an explicit output summed (PyTorch's rule; NumPy raises)."""
    lhs, arrow, rhs = subscripts.partition("->")
    if arrow and "..." in lhs and "..." not in rhs:
        out = np.einsum(f"{lhs}->...{rhs}", *operands)
        return np.sum(out, axis=tuple(range(out.ndim - len(rhs))))
    return np.einsum(subscripts, *operands)


def case(name: str, subscripts: str, *shapes: tuple[int, ...], **extra: Any) -> Case:
    kwargs = {"subscripts": subscripts, **extra.pop("kwargs", {})}
    return Case(name, tuple(shapes), kwargs=kwargs, **extra)


#: four factors whose left-to-right order costs far more than the best path (the benchmark's shape, small)
CHAIN = ((4, 2), (2, 3), (3, 2), (2, 4))

CASES = (
    case("matmul", "ij,jk->ik", (3, 4), (4, 2)),
    case("batched_matmul", "bij,bjk->bik", (2, 3, 4), (2, 4, 2)),
    case("trace", "ii->", (4, 4)),
    case("diagonal", "ii->i", (3, 3)),
    case("diagonal_implicit_trace", "ii", (3, 3), note="no '->': a letter twice is summed"),
    case("diagonal_of_three", "iii->i", (3, 3, 3)),
    case("diagonal_with_contraction", "iij,jk->ik", (3, 3, 2), (2, 4)),
    case("outer", "i,j->ij", (3,), (4,)),
    case("dot", "i,i->", (5,), (5,)),
    case("hadamard", "ij,ij->ij", (3, 4), (3, 4), note="nothing summed: a broadcast product, no matmul"),
    case("transpose", "ij->ji", (3, 4)),
    case("sum_all", "ijk->", (2, 3, 4)),
    case("implicit_output", "ij,jk", (3, 4), (4, 2), note="no '->': the letters that appear once, sorted"),
    case("implicit_sorted", "ba", (3, 4), note="implicit output sorted: 'ab', a transpose"),
    case("ellipsis_batched", "...ij,...jk->...ik", (2, 3, 4), (2, 4, 2)),
    case("ellipsis_broadcast", "...ij,...jk->...ik", (2, 1, 3, 4), (5, 4, 2), note="the ellipsis's dims broadcast"),
    case("ellipsis_implicit", "...ij,jk", (2, 3, 4), (4, 2)),
    case("ellipsis_summed", "...ij->ij", (2, 3, 4), note="the ellipsis left out of the output is summed (PyTorch)"),
    case("ellipsis_middle", "i...j,j->i...", (2, 3, 4), (4,)),
    case("size_one_broadcast", "ij,jk->ik", (3, 1), (5, 2), note="a letter of size 1 broadcasts, as NumPy"),
    case("size_one_kept", "ij,jk->ijk", (3, 1), (5, 2)),
    case("three_operands", "ij,jk,kl->il", (3, 4), (4, 5), (5, 2)),
    case("three_batched", "bij,bjk,bk->bi", (2, 3, 2), (2, 2, 3), (2, 3)),
    case("four_operands", "ab,bc,cd,de->ae", *CHAIN),
    case("four_operands_left_to_right", "ab,bc,cd,de->ae", *CHAIN, kwargs={"optimize": False}),
    case("four_operands_greedy", "ab,bc,cd,de->ae", *CHAIN, kwargs={"optimize": "greedy"}),
    case("four_mixed", "abc,cd,bd,a->", (2, 3, 2), (2, 3), (3, 3), (2,)),
    case("bilinear", "bn,anm,bm->ba", (2, 3), (2, 3, 4), (2, 4)),
    case("operands_as_list", "ij,jk->ik", (3, 4), (4, 2), kwargs={"form": "list"}),
    case("sublist_form", "ij,jk->ik", (3, 4), (4, 2), kwargs={"form": "sublist"}),
    case("empty", "ij,jk->ik", (0, 3), (3, 2)),
    case("one_side_grad", "ij,jk->ik", (3, 4), (4, 2), grad=(False, True)),
    case("three_operands_complex", "ij,jk,kl->il", (3, 2), (2, 3), (3, 2), complex=True,
         note="complex inputs: gradients in PyTorch's convention"),
    case("trace_complex", "ii->", (3, 3), complex=True, note="complex inputs: gradients in PyTorch's convention"),
    # bad input: each a ValueError naming what is wrong
    case("operand_count", "ij,jk->ik", (3, 4), raises=ValueError,
         match="einsum: subscripts 'ij,jk->ik' give 2 operand(s)' subscripts, but 1 operand(s)"),
    case("operand_dims", "ij,jk->ik", (3, 4), (4, 2, 2), raises=ValueError,
         match="einsum: subscript 'jk' of operand 1 names 2 dims, but operand 1 has 3"),
    case("letter_sizes", "ij,jk->ik", (3, 4), (5, 2), raises=ValueError,
         match="einsum: letter 'j' has size 4 in operand 0"),
    case("diagonal_sizes", "ii->i", (3, 4), raises=ValueError,
         match="einsum: letter 'i' is repeated in subscript 'ii'"),
    case("ellipsis_sizes", "...i,...i->...", (2, 3), (4, 3), raises=ValueError,
         match="einsum: the dims '...' stands for"),
    case("invalid_character", "ij,j1->i", (3, 4), (4, 1), raises=ValueError, match="einsum: invalid character '1'"),
    case("unknown_output_letter", "ij->k", (3, 4), raises=ValueError, match="einsum: output letter 'k'"),
    case("repeated_output_letter", "ij->ii", (3, 4), raises=ValueError,
         match="einsum: output letter 'i' appears more than once"),
    case("two_ellipses", "...i...->i", (3, 4), raises=ValueError, match="more than one ellipsis"),
    case("unknown_optimizer", "ij,jk->ik", (3, 4), (4, 2), kwargs={"optimize": "fastest"}, raises=ValueError,
         match="einsum: optimize='fastest' names no path optimiser"),
    case("two_backends", "ij,jk->ik", (3, 4), (4, 2), other_backend=1, raises=tl.BackendError,
         match="einsum: tensors on two backends"),
)

OPS: list[OpInfo] = [
    OpInfo("tl.einsum", call, reference, CASES, function="MatMul"),
]
