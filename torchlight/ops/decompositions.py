"""Matrix decompositions and what is computed through them: cholesky, qr, eigh, svd, solve,
solve_triangular, cholesky_solve, inv, det, slogdet, pinv, matrix_rank (batched over leading dims)."""

from __future__ import annotations


class DecompositionsMethods:
    """The Tensor methods of this category (`Tensor` inherits them)."""

    __slots__ = ()
