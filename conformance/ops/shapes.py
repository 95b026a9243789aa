"""The shape entries: permute/transpose, reshape/view, expand, squeeze/unsqueeze/flatten, flip, roll, tile,
repeat, split, chunk, stack and cat.

`split` and `chunk` are built on Gather (each piece an index) but belong to
the shapes category of the plan; their value joins the pieces, scaled by
their position, so a wrong bound or order shows.

Example:
    >>> from conformance.ops.shapes import OPS
    >>> sorted(op.name for op in OPS if op.function == "Concat")
    ['tl.cat', 'tl.concat']
"""

from __future__ import annotations

from typing import Any

import numpy as np

import torchlight as tl
from conformance.opinfo import Case, OpInfo
from conformance.ops.common import complex_twins
from torchlight.autograd import functions as F


def shaped(name: str, call: Any, ref: Any, function: str, cases: tuple[Case, ...], **extra: Any) -> OpInfo:
    return OpInfo(name, call, ref, cases, method=name, function=function, **extra)


def squeeze_ref(x: np.ndarray, dim: Any = None) -> np.ndarray:
    """PyTorch's squeeze: a listed dim whose size is not 1 stays."""
    dims = range(x.ndim) if dim is None else [d % max(x.ndim, 1) for d in np.atleast_1d(dim)]
    return np.squeeze(x, axis=tuple(d for d in dims if x.ndim and x.shape[d] == 1))


def flatten_ref(x: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    if x.ndim == 0:
        return x.reshape(1)
    start, end = start_dim % x.ndim, end_dim % x.ndim
    return x.reshape(x.shape[:start] + (int(np.prod(x.shape[start:end + 1])),) + x.shape[end + 1:])


def expand_ref(x: np.ndarray, shape: tuple) -> np.ndarray:
    shape = tuple(n if n != -1 else x.shape[i - len(shape) + x.ndim] for i, n in enumerate(shape))
    return np.broadcast_to(x, shape)


RESHAPE_CASES = (
    Case("2d", ((2, 3),), kwargs={"shape": (3, 2)}),
    Case("infer", ((2, 3, 4),), kwargs={"shape": (-1, 4)}),
    Case("0d_to_1d", ((),), kwargs={"shape": (1,)}),
    Case("to_0d", ((1,),), kwargs={"shape": ()}),
    Case("empty", ((0, 3),), kwargs={"shape": (3, 0)}),
    Case("bad_size", ((2, 3),), kwargs={"shape": (4,)}, raises=ValueError, match="cannot reshape"),
)


EXPAND_CASES = (
    Case("column", ((3, 1),), kwargs={"shape": (3, 4)}),
    Case("new_dims", ((4,),), kwargs={"shape": (2, 3, 4)}),
    Case("0d", ((),), kwargs={"shape": (3,)}),
    Case("keep_with_minus_one", ((3, 1),), kwargs={"shape": (-1, 4)}),
    Case("bad_shape", ((3,),), kwargs={"shape": (4,)}, raises=ValueError, match="(3,)"),
)


def join_cases(errors: tuple[Case, ...]) -> tuple[Case, ...]:
    """The cases stack and cat share: two or three parts, any dim, one part constant."""
    return (
        Case("two_1d", ((3,), (3,))),
        Case("three_2d", ((2, 3), (2, 3), (2, 3))),
        Case("dim1", ((2, 3), (2, 3)), kwargs={"dim": 1}),
        Case("negative_dim", ((2, 3), (2, 3)), kwargs={"dim": -1}),
        Case("one", ((2, 3),)),
        Case("one_side_grad", ((4,), (4,)), grad=(True, False)),
        Case("empty_list", (), raises=ValueError, match="expects a non-empty sequence"),
        Case("two_backends", ((3,), (3,)), raises=tl.BackendError, match="two backends", other_backend=1),
    ) + errors


def flip_call(x: Any, dims: Any = None, as_sequence: bool = False) -> Any:
    """`x.flip()` (every dim), `x.flip(*dims)` or `x.flip(dims)` (one sequence)."""
    return x.flip() if dims is None else x.flip(dims) if as_sequence else x.flip(*dims)


def flip_ref(x: np.ndarray, dims: Any = None, as_sequence: bool = False) -> np.ndarray:
    return np.flip(x, axis=None if dims is None else tuple(d % max(x.ndim, 1) for d in dims) if x.ndim else ())


def torch_split_sizes(n: int, arg: Any) -> list[int]:
    """PyTorch's piece sizes: an int is each piece's size (the last smaller), a list the sizes."""
    if not isinstance(arg, int):
        return list(arg)
    return [min(arg, n - start) for start in range(0, n, arg)] if n else [0]


def pieces_value(pieces: Any, join: Any) -> Any:
    """Piece i flattened and scaled by i + 1, joined, times the count: a piece's bounds or order,
    or the number of pieces, changes the value."""
    return join([p.reshape(-1) * float(i + 1) for i, p in enumerate(pieces)]) * float(len(pieces))


def split_ref(x: np.ndarray, size: Any, dim: int = 0) -> np.ndarray:
    sizes = torch_split_sizes(x.shape[dim], size)
    return pieces_value(np.split(x, np.cumsum(sizes)[:-1], axis=dim), np.concatenate)


def chunk_ref(x: np.ndarray, chunks: int, dim: int = 0) -> np.ndarray:
    n = x.shape[dim]
    return split_ref(x, [0] * chunks if n == 0 else -(-n // chunks), dim)


def sum_to_ref(g: np.ndarray, shape: tuple) -> np.ndarray:
    lead = g.ndim - len(shape)
    out = np.sum(g, axis=tuple(range(lead))) if lead else g
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and out.shape[i] != 1)
    return np.sum(out, axis=dims, keepdims=True).reshape(shape)


OPS: list[OpInfo] = [
    shaped("permute", lambda x, dims: x.permute(*dims), lambda x, dims: np.transpose(x, dims), "Permute", (
        Case("3d", ((2, 3, 4),), kwargs={"dims": (2, 0, 1)}),
        Case("negative_dims", ((2, 3),), kwargs={"dims": (-1, 0)}),
        Case("0d", ((),), kwargs={"dims": ()}),
        Case("1d", ((4,),), kwargs={"dims": (0,)}),
    )),
    shaped("transpose", lambda x, dims=(-2, -1): x.transpose(*dims), lambda x, dims=(-2, -1): np.swapaxes(x, *dims),
           "Permute", (Case("2d", ((3, 4),)), Case("3d_outer", ((2, 3, 4),), kwargs={"dims": (0, 2)}))),
    shaped("T", lambda x: x.T, lambda x: x.T, "Permute", (Case("2d", ((3, 4),)), Case("3d", ((2, 3, 4),)),
                                                          Case("0d", ((),)))),
    shaped("mT", lambda x: x.mT, lambda x: np.swapaxes(x, -1, -2), "Permute",
           (Case("2d", ((3, 4),)), Case("batched", ((2, 3, 4),)))),
    shaped("reshape", lambda x, shape: x.reshape(shape), lambda x, shape: np.reshape(x, shape), "Reshape",
           RESHAPE_CASES),
    shaped("view", lambda x, shape: x.view(*shape), lambda x, shape: np.reshape(x, shape), "Reshape",
           RESHAPE_CASES[:2]),
    shaped("expand", lambda x, shape: x.expand(*shape), expand_ref, "BroadcastView", EXPAND_CASES),
    shaped("broadcast_to", lambda x, shape: x.broadcast_to(shape), expand_ref, "BroadcastView", EXPAND_CASES[:2]),
    shaped("squeeze", lambda x, dim=None: x.squeeze(dim), squeeze_ref, "Reshape", (
        Case("all", ((1, 3, 1),)),
        Case("dim0", ((1, 3),), kwargs={"dim": 0}),
        Case("negative_dim", ((2, 1),), kwargs={"dim": -1}),
        Case("dims", ((1, 3, 1, 2),), kwargs={"dim": (0, 2)}),
        Case("not_size_one", ((2, 3),), kwargs={"dim": 0}, note="a no-op, as PyTorch (the array API raises)"),
        Case("0d", ((),)),
        Case("empty", ((0, 1),)),
        Case("bad_dim", ((1, 3),), kwargs={"dim": 2}, raises=IndexError, match="dim 2 is out of range"),
    )),
    shaped("unsqueeze", lambda x, dim: x.unsqueeze(dim), lambda x, dim: np.expand_dims(x, dim), "Reshape", (
        Case("dim0", ((3, 4),), kwargs={"dim": 0}),
        Case("middle", ((3, 4),), kwargs={"dim": 1}),
        Case("last", ((3, 4),), kwargs={"dim": -1}),
        Case("0d", ((),), kwargs={"dim": 0}),
        Case("empty", ((0, 3),), kwargs={"dim": 2}),
        Case("bad_dim", ((3,),), kwargs={"dim": 2}, raises=IndexError, match="unsqueeze: dim 2 is out of range"),
    )),
    shaped("flatten", lambda x, start_dim=0, end_dim=-1: x.flatten(start_dim, end_dim), flatten_ref, "Reshape", (
        Case("all", ((2, 3, 4),)),
        Case("from1", ((2, 3, 4),), kwargs={"start_dim": 1}),
        Case("range", ((2, 3, 4, 5),), kwargs={"start_dim": 1, "end_dim": -2}),
        Case("1d", ((5,),)),
        Case("0d", ((),), note="a 0-d tensor becomes 1-d, as PyTorch"),
        Case("empty", ((2, 0, 3),), kwargs={"start_dim": 1}),
        Case("start_after_end", ((2, 3, 4),), kwargs={"start_dim": 2, "end_dim": 1}, raises=ValueError,
             match="flatten: start_dim 2 comes after end_dim 1"),
    )),
    shaped("flip", flip_call, flip_ref, "Flip", (
        Case("1d", ((5,),), kwargs={"dims": (0,)}),
        Case("rows", ((3, 4),), kwargs={"dims": (1,)}),
        Case("two_dims", ((2, 3, 4),), kwargs={"dims": (0, 2)}),
        Case("every_dim", ((2, 3, 4),), note="no dims: every dim, as np.flip(x)"),
        Case("sequence", ((3, 4),), kwargs={"dims": [-1, 0], "as_sequence": True}, note="x.flip([-1, 0])"),
        Case("0d", ((),), kwargs={"dims": (0,)}),
        Case("empty", ((0, 3),), kwargs={"dims": (0,)}),
        Case("bad_dim", ((3, 4),), kwargs={"dims": (2,)}, raises=IndexError, match="dim 2 is out of range"),
        Case("dim_twice", ((3, 4),), kwargs={"dims": (0, -2)}, raises=ValueError, match="names a dimension twice"),
    )),
    shaped("roll", lambda x, shifts, dims=None: x.roll(shifts, dims),
           lambda x, shifts, dims=None: np.roll(x, shifts, axis=dims), "Roll", (
               Case("1d", ((5,),), kwargs={"shifts": 2, "dims": 0}),
               Case("flattened", ((3, 4),), kwargs={"shifts": 5}, note="no dims: the flattened tensor rolls"),
               Case("negative", ((3, 4),), kwargs={"shifts": -1, "dims": 1}),
               Case("two_dims", ((2, 3, 4),), kwargs={"shifts": (1, -2), "dims": (0, 2)}),
               Case("one_shift_two_dims", ((3, 4),), kwargs={"shifts": 1, "dims": (0, 1)},
                    note="one int for every dim, as NumPy (PyTorch raises)"),
               Case("past_the_end", ((5,),), kwargs={"shifts": 7, "dims": -1}),
               Case("0d", ((),), kwargs={"shifts": 3}),
               Case("empty", ((0, 3),), kwargs={"shifts": 1, "dims": 0}),
               Case("shifts_dims_mismatch", ((3, 4),), kwargs={"shifts": (1, 2), "dims": (0,)}, raises=ValueError,
                    match="roll: 2 shifts (1, 2) for 1 dims (0,)"),
               Case("bad_dim", ((3, 4),), kwargs={"shifts": 1, "dims": 2}, raises=IndexError, match="out of range"),
           )),
    shaped("tile", lambda x, reps: x.tile(*reps), np.tile, "Tile", (
        Case("1d", ((3,),), kwargs={"reps": (2,)}),
        Case("2d", ((2, 3),), kwargs={"reps": (2, 3)}),
        Case("fewer_reps", ((2, 3),), kwargs={"reps": (2,)}, note="padded with 1s in front (the last dim repeats)"),
        Case("more_reps", ((3,),), kwargs={"reps": (2, 1, 2)}, note="new leading dims"),
        Case("0d", ((),), kwargs={"reps": (3,)}),
        Case("zero_reps", ((2, 3),), kwargs={"reps": (0, 2)}),
        Case("empty", ((0, 3),), kwargs={"reps": (2, 2)}),
        Case("negative", ((3,),), kwargs={"reps": (-1,)}, raises=ValueError, match="tile: repetitions (-1,)"),
    )),
    shaped("repeat", lambda x, sizes: x.repeat(*sizes), lambda x, sizes: np.tile(x, sizes), "Tile", (
        Case("2d", ((2, 3),), kwargs={"sizes": (2, 3)}),
        Case("new_dims", ((2, 3),), kwargs={"sizes": (2, 1, 2)}),
        Case("0d", ((),), kwargs={"sizes": (2, 3)}),
        Case("fewer_sizes", ((2, 3),), kwargs={"sizes": (2,)}, raises=ValueError, match="repeat: 1 sizes (2,)",
             note="PyTorch raises too; NumPy's element-wise repeat is another op"),
    )),
    shaped("split", lambda x, size, dim=0: pieces_value(x.split(size, dim), tl.cat), split_ref, "Gather", (
        Case("size", ((5,),), kwargs={"size": 2}, note="pieces of 2, the last of 1"),
        Case("size_divides", ((6, 2),), kwargs={"size": 3}),
        Case("sections", ((5,),), kwargs={"size": [1, 4]}),
        Case("dim1", ((3, 5),), kwargs={"size": 2, "dim": 1}),
        Case("sections_negative_dim", ((2, 3, 4),), kwargs={"size": [1, 3], "dim": -1}),
        Case("empty_section", ((4,),), kwargs={"size": [0, 4]}),
        Case("empty", ((0, 3),), kwargs={"size": 2}, note="one empty piece, as PyTorch"),
        Case("sections_sum", ((5,),), kwargs={"size": [2, 2]}, raises=ValueError,
             match="must be non-negative and sum to 5"),
        Case("zero_size", ((5,),), kwargs={"size": 0}, raises=ValueError, match="split: split_size 0 must be positive"),
        Case("0d", ((),), kwargs={"size": 1}, raises=ValueError, match="split: a 0-d tensor"),
        Case("bad_dim", ((3, 4),), kwargs={"size": 1, "dim": 2}, raises=IndexError, match="out of range"),
    )),
    shaped("chunk", lambda x, chunks, dim=0: pieces_value(x.chunk(chunks, dim), tl.cat), chunk_ref, "Gather", (
        Case("even", ((6,),), kwargs={"chunks": 3}),
        Case("uneven", ((5,),), kwargs={"chunks": 4}, note="3 pieces of ceil(5 / 4) = 2, 2, 1, as PyTorch"),
        Case("more_chunks_than_elements", ((2, 3),), kwargs={"chunks": 5}),
        Case("dim1", ((3, 5),), kwargs={"chunks": 2, "dim": 1}),
        Case("empty", ((0, 3),), kwargs={"chunks": 2}, note="two empty pieces, as PyTorch"),
        Case("zero_chunks", ((4,),), kwargs={"chunks": 0}, raises=ValueError, match="chunk: chunks must be positive"),
    )),
    OpInfo("Stack", lambda *parts: F.Stack.apply(*parts, 0), lambda *parts: np.stack(parts), (
        Case("two_1d", ((3,), (3,))),
        Case("three_2d", ((2, 3), (2, 3), (2, 3))),
        Case("0d", ((), ())),
        Case("one_side_grad", ((4,), (4,)), grad=(True, False)),
    ), function="Stack"),
    OpInfo("tl.stack", lambda *parts, dim=0: tl.stack(parts, dim), lambda *parts, dim=0: np.stack(parts, axis=dim),
           join_cases((
               Case("0d", ((), ())),
               Case("new_last_dim", ((2, 3), (2, 3)), kwargs={"dim": 2}),
               Case("empty", ((0, 3), (0, 3)), kwargs={"dim": 1}),
               Case("shape_mismatch", ((2, 3), (2, 4)), raises=ValueError, match="stack: shapes (2, 3) and (2, 4)"),
               Case("bad_dim", ((2, 3), (2, 3)), kwargs={"dim": 3}, raises=IndexError,
                    match="stack: dim 3 is out of range"),
           )), function="Stack"),
    OpInfo("tl.cat", lambda *parts, dim=0: tl.cat(parts, dim), lambda *parts, dim=0: np.concatenate(parts, axis=dim),
           join_cases((
               Case("sizes_differ", ((1, 3), (4, 3), (2, 3))),
               Case("sizes_differ_dim1", ((2, 1), (2, 3)), kwargs={"dim": 1}),
               Case("empty_part", ((0, 3), (2, 3)), note="a part of size 0 along dim gets an empty gradient"),
               Case("shape_mismatch", ((2, 3), (2, 4)), raises=ValueError,
                    match="cat: shapes (2, 3) and (2, 4) (tensors 0 and 1) differ outside dim 0"),
               Case("rank_mismatch", ((2, 3), (3,)), raises=ValueError, match="cat: shapes (2, 3) and (3,)"),
               Case("0d", ((), ()), raises=ValueError, match="cat: 0-d tensors"),
               Case("bad_dim", ((2, 3), (2, 3)), kwargs={"dim": 2}, raises=IndexError,
                    match="cat: dim 2 is out of range"),
           )), function="Concat"),
    OpInfo("tl.concat", lambda *parts, dim=0: tl.concat(parts, dim),
           lambda *parts, dim=0: np.concatenate(parts, axis=dim),
           (Case("two", ((2, 3), (1, 3))), Case("dim1", ((2, 3), (2, 2)), kwargs={"dim": 1})), function="Concat"),
    OpInfo("SumTo", lambda g, shape: F.SumTo.apply(g, shape), sum_to_ref, (
        Case("rows", ((3, 4),), kwargs={"shape": (1, 4)}),
        Case("leading", ((2, 3, 4),), kwargs={"shape": (3, 1)}),
        Case("to_0d", ((4,),), kwargs={"shape": ()}),
        Case("identity", ((3, 4),), kwargs={"shape": (3, 4)}),
    ), function="SumTo"),
]


def _stacked(parts: Any) -> Any:
    """The tuple a tuple-returning op gives, stacked into one Tensor (what a case checks)."""
    return tl.stack(list(parts))


MOVEDIM_CASES = (
    Case("one", ((2, 3, 4),), kwargs={"source": 0, "destination": -1}),
    Case("two", ((2, 3, 4),), kwargs={"source": (0, 1), "destination": (2, 0)}),
    Case("negative", ((2, 3, 4, 5),), kwargs={"source": (-1, 1), "destination": (0, -1)}),
    Case("same", ((2, 3),), kwargs={"source": 1, "destination": 1}),
    Case("0d", ((),), kwargs={"source": (), "destination": ()}),
    Case("lengths_differ", ((2, 3),), kwargs={"source": (0, 1), "destination": (0,)}, raises=ValueError,
         match="movedim: source (0, 1) and destination (0,)"),
    Case("repeated", ((2, 3),), kwargs={"source": (0, 0), "destination": (0, 1)}, raises=ValueError,
         match="names a dimension twice"),
    Case("out_of_range", ((2, 3),), kwargs={"source": 2, "destination": 0}, raises=IndexError,
         match="movedim: source dim 2 is out of range"),
)


def movedim_entry(name: str, call: Any) -> OpInfo:
    return OpInfo(name, call, lambda x, source, destination: np.moveaxis(x, source, destination), MOVEDIM_CASES,
                  method=None if name.startswith("tl.") else name, function="Permute")


TRIANGLE_CASES = (
    Case("square", ((4, 4),)),
    Case("wide_k1", ((3, 5),), kwargs={"diagonal": 1}),
    Case("tall_k_neg", ((5, 3),), kwargs={"diagonal": -2}),
    Case("batched", ((2, 3, 4),)),
    Case("k_beyond", ((3, 3),), kwargs={"diagonal": 5}),
    Case("empty", ((0, 3),)),
    Case("vector", ((3,),), raises=ValueError, match="needs a matrix"),
)


def triangle_entry(name: str, call: Any, ref: Any) -> OpInfo:
    return OpInfo(name, call, lambda x, diagonal=0: ref(x, k=diagonal), TRIANGLE_CASES,
                  method=None if name.startswith("tl.") else name, function="Triangle")


UNBIND_CASES = (
    Case("dim0", ((3, 4),)),
    Case("dim1", ((3, 4),), kwargs={"dim": 1}),
    Case("last", ((2, 3, 4),), kwargs={"dim": -1}),
    Case("0d", ((),), raises=ValueError, match="unbind: a 0-d tensor"),
    Case("bad_dim", ((3, 4),), kwargs={"dim": 2}, raises=IndexError, match="out of range"),
)


def broadcast_ref(*xs: np.ndarray) -> np.ndarray:
    return np.stack(np.broadcast_arrays(*xs))


def meshgrid_ref(*xs: np.ndarray, indexing: str = "ij") -> np.ndarray:
    return np.stack(np.meshgrid(*xs, indexing=indexing))


OPS += [
    movedim_entry("movedim", lambda x, source, destination: x.movedim(source, destination)),
    movedim_entry("moveaxis", lambda x, source, destination: x.moveaxis(source, destination)),
    movedim_entry("tl.movedim", lambda x, source, destination: tl.movedim(x, source, destination)),
    movedim_entry("tl.moveaxis", lambda x, source, destination: tl.moveaxis(x, source, destination)),
    triangle_entry("tril", lambda x, diagonal=0: x.tril(diagonal), np.tril),
    triangle_entry("triu", lambda x, diagonal=0: x.triu(diagonal), np.triu),
    triangle_entry("tl.tril", lambda x, diagonal=0: tl.tril(x, diagonal), np.tril),
    triangle_entry("tl.triu", lambda x, diagonal=0: tl.triu(x, diagonal), np.triu),
    OpInfo("Triangle", lambda x, k, upper: F.Triangle.apply(x, k, upper),
           lambda x, k, upper: np.triu(x, k) if upper else np.tril(x, k),
           (Case("lower", ((3, 4),), kwargs={"k": 0, "upper": False}),
            Case("upper", ((3, 4),), kwargs={"k": -1, "upper": True})), function="Triangle"),
    OpInfo("unbind", lambda x, dim=0: _stacked(x.unbind(dim)), lambda x, dim=0: np.stack(np.moveaxis(x, dim, 0)),
           UNBIND_CASES, method="unbind", function=("Gather", "Stack")),
    OpInfo("tl.unbind", lambda x, dim=0: _stacked(tl.unbind(x, dim)),
           lambda x, dim=0: np.stack(np.moveaxis(x, dim, 0)), UNBIND_CASES[:3], function=("Gather", "Stack")),
    OpInfo("tl.broadcast_tensors", lambda *xs: _stacked(tl.broadcast_tensors(*xs)), broadcast_ref, (
        Case("two", ((3, 1), (4,))),
        Case("three", ((2, 1, 1), (3, 1), (4,))),
        Case("same", ((2, 3), (2, 3))),
        Case("one", ((2, 3),)),
        Case("0d", ((), (3,))),
        Case("one_side_grad", ((3, 1), (4,)), grad=(False, True)),
        Case("mismatch", ((2, 3), (4,)), raises=ValueError, match="broadcast_tensors: shapes (2, 3) and (4,)"),
    ), function=("BroadcastView", "Stack")),
    OpInfo("tl.meshgrid", lambda *xs, indexing="ij": _stacked(tl.meshgrid(*xs, indexing=indexing)), meshgrid_ref, (
        Case("ij", ((3,), (4,))),
        Case("xy", ((3,), (4,)), kwargs={"indexing": "xy"}),
        Case("three_xy", ((2,), (3,), (4,)), kwargs={"indexing": "xy"}),
        Case("three_ij", ((2,), (3,), (4,))),
        Case("one", ((3,),)),
        Case("empty", ((0,), (3,))),
        Case("one_side_grad", ((3,), (4,)), grad=(True, False)),
        Case("matrix", ((2, 2), (3,)), raises=ValueError, match="meshgrid: expects 0-d or 1-d tensors"),
        Case("bad_indexing", ((2,), (3,)), kwargs={"indexing": "ji"}, raises=ValueError, match="meshgrid: indexing"),
    ), function=("Reshape", "BroadcastView", "Stack")),
]
# gradients right for complex inputs too (PyTorch's convention): their first cases run again complex
OPS = complex_twins(OPS, {"permute", "T", "reshape", "expand", "flip", "roll", "tile", "tl.stack", "tl.cat", "SumTo"})
