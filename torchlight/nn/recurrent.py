"""`RNN`, `LSTM`, `GRU` and their one-step cells, with PyTorch's parameters, layouts and outputs.

Each layer projects the whole sequence through `weight_ih` in one matmul,
then loops over the time steps with Tensor ops (`h @ weight_hh.T` and the
gates), so backward goes through time by the ordinary graph and second
derivatives come with it. The parameter names (`weight_ih_l0`,
`bias_hh_l1_reverse`, ...) and gate layouts (LSTM: i, f, g, o; GRU: r, z, n)
are PyTorch's, so its state dicts load.

Example:
    >>> import torchlight as tl
    >>> tl.manual_seed(0)
    >>> lstm = tl.nn.LSTM(input_size=3, hidden_size=5, num_layers=2, batch_first=True)
    >>> output, (h_n, c_n) = lstm(tl.randn(4, 7, 3))       # (batch, time, features)
    >>> output.shape, h_n.shape, c_n.shape
    ((4, 7, 5), (2, 4, 5), (2, 4, 5))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from torchlight.array_functions import cat, stack
from torchlight.nn import functional as F
from torchlight.nn import init
from torchlight.nn._factory import new_parameter
from torchlight.nn.module import Module
from torchlight.tensor import Tensor

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
_NAMES = {"RNN_TANH": "RNN", "RNN_RELU": "RNN", "LSTM": "LSTM", "GRU": "GRU"}


# ------------------------------------------------------------- one step of each kind
# A state of None is the zero state: its terms are left out (h W_hh^T is 0, f c is 0), which gives the
# same values bit for bit and makes no zeros tensor (so a compiled call needs no constant for it).
def _hidden_part(h: Tensor | None, w_hh: Tensor, b_hh: Tensor | None) -> Tensor | None:
    return b_hh if h is None else F.linear(h, w_hh, b_hh)


def _plus(a: Tensor, b: Tensor | None) -> Tensor:
    return a if b is None else a + b


def _rnn_step(x_part: Tensor, h: Tensor | None, w_hh: Tensor, b_hh: Tensor | None, relu: bool) -> Tensor:
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh); `x_part` is the first half, already computed."""
    pre = _plus(x_part, _hidden_part(h, w_hh, b_hh))
    return pre.relu() if relu else pre.tanh()


def _lstm_step(x_part: Tensor, h: Tensor | None, c: Tensor | None, w_hh: Tensor,
               b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    """PyTorch's LSTM: gates i, f, g, o (in that order along the 4 H rows); c' = f c + i g, h' = o tanh(c')."""
    i, f, g, o = _plus(x_part, _hidden_part(h, w_hh, b_hh)).chunk(4, -1)
    c = i.sigmoid() * g.tanh() if c is None else f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(x_part: Tensor, h: Tensor | None, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """PyTorch's GRU: r, z, n; n = tanh(W_in x + b_in + r (W_hn h + b_hn)), h' = (1 - z) n + z h."""
    xr, xz, xn = x_part.chunk(3, -1)
    hidden = _hidden_part(h, w_hh, b_hh)
    hr, hz, hn = (None, None, None) if hidden is None else hidden.chunk(3, -1)
    r = _plus(xr, hr).sigmoid()
    z = _plus(xz, hz).sigmoid()
    n = xn.tanh() if hn is None else (xn + r * hn).tanh()
    return n - z * n if h is None else n + z * (h - n)


def _check_sizes(op: str, input_size: Any, hidden_size: Any) -> None:
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < (1 if name == "hidden_size" else 0):
            raise ValueError(f"{op}: {name} must be a positive int, not {value!r}")


def _check_input(op: str, x: Tensor, like: Tensor, input_size: int, dims: tuple[int, ...]) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: the input must be a Tensor, not {type(x).__name__}")
    if x.ndim not in dims:
        wanted = " or ".join(f"{d}-D" for d in dims)
        raise ValueError(f"{op}: Expected input to be {wanted}, got {x.ndim}-D tensor of shape {x.shape} instead")
    if x.dtype != like.dtype:
        raise TypeError(f"{op}: the input has dtype {x.dtype} but the parameters {like.dtype} (as PyTorch, "
                        f"no implicit cast: convert the input or the module)")
    if x.shape[-1] != input_size:
        raise ValueError(f"{op}: input.size(-1) must be equal to input_size. Expected {input_size}, "
                         f"got {x.shape[-1]} (input of shape {x.shape})")


def _check_state(op: str, name: str, state: Any, expected: tuple[int, ...], like: Tensor) -> Tensor:
    if not isinstance(state, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, not {type(state).__name__}")
    if state.shape != expected:
        raise ValueError(f"{op}: Expected {name} size {expected}, got {state.shape}")
    if state.dtype != like.dtype:
        raise TypeError(f"{op}: {name} has dtype {state.dtype} but the parameters {like.dtype}")
    return state


# ------------------------------------------------------------------ the sequence layers
class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrent layer behind RNN, LSTM and GRU.

    Parameters per layer k and direction (suffix "" or "_reverse"), PyTorch's:
    `weight_ih_lk` (G H, input), `weight_hh_lk` (G H, H), `bias_ih_lk`,
    `bias_hh_lk` (G H,), G = 1 (RNN), 4 (LSTM), 3 (GRU); layer k > 0 takes
    the D H outputs of the layer below (D = 2 when bidirectional). All start
    U(-1/sqrt(H), 1/sqrt(H)), as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> issubclass(tl.nn.LSTM, tl.nn.RNNBase)
        True
        >>> gru = tl.nn.GRU(input_size=4, hidden_size=6, num_layers=2, batch_first=True)
        >>> gru.weight_ih_l0.shape, gru.weight_hh_l1.shape  # G = 3 gates for a GRU
        ((18, 4), (18, 6))
        >>> output, h_n = gru(tl.zeros(3, 5, 4))
        >>> output.shape, h_n.shape
        ((3, 5, 6), (2, 3, 6))
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, *, backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        op = _NAMES.get(mode, "RNNBase")
        if mode not in _GATES:
            raise ValueError(f"RNNBase: unknown mode {mode!r} (one of {', '.join(map(repr, _GATES))})")
        _check_sizes(op, input_size, hidden_size)
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{op}: num_layers must be an int >= 1, not {num_layers!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{op}: dropout should be a number in range [0, 1] representing the probability of "
                             f"an element being zeroed, not {dropout!r}")
        if isinstance(proj_size, bool) or not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError(f"{op}: proj_size should be a positive integer or zero to disable projections, "
                             f"not {proj_size!r}")
        if proj_size and mode != "LSTM":
            raise ValueError(f"{op}: proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size >= hidden_size:
            raise ValueError(f"{op}: proj_size has to be smaller than hidden_size, got proj_size={proj_size} "
                             f"and hidden_size={hidden_size}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        real_hidden = proj_size or hidden_size  # the width of h (c keeps hidden_size)
        gates = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            width = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes: list[tuple[str, tuple[int, ...]]] = [("weight_ih", (gates, width)),
                                                             ("weight_hh", (gates, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + suffix, new_parameter(shape, backend, device, dtype))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size)
        for name in self._flat_weights_names:
            init.uniform_(getattr(self, name), -bound, bound)

    def flatten_parameters(self) -> None:
        """A no-op (PyTorch packs the weights for cuDNN; nothing here needs it)."""

    @property
    def all_weights(self) -> list[list[Tensor]]:
        """The parameters per layer and direction: [[w_ih, w_hh, b_ih, b_hh(, w_hr)], ...], PyTorch's order."""
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        flat = [getattr(self, name) for name in self._flat_weights_names]
        return [flat[k:k + per] for k in range(0, len(flat), per)]

    def _layer_weights(self, layer: int, direction: int) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        get = getattr
        if self.bias:
            return (get(self, "weight_ih" + suffix), get(self, "weight_hh" + suffix), get(self, "bias_ih" + suffix),
                    get(self, "bias_hh" + suffix))
        return get(self, "weight_ih" + suffix), get(self, "weight_hh" + suffix), None, None

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        """(output, h_n), or (output, (h_n, c_n)) for LSTM, as PyTorch.

        `input` is (L, N, input_size), (N, L, input_size) with `batch_first`,
        or unbatched (L, input_size); `hx` (D num_layers, N, H) (for LSTM a
        pair (h_0, c_0); with `proj_size` h is (D num_layers, N, proj_size)),
        zeros when None. `output` holds the last layer's
        h_t for every t (both directions concatenated), `h_n` each layer's
        and direction's last state (the reverse direction's is at t = 0).
        """
        op = _NAMES[self.mode]
        like = self.weight_ih_l0
        _check_input(op, input, like, self.input_size, (2, 3))
        batched = input.ndim == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        length, batch = x.shape[:2]
        directions = 2 if self.bidirectional else 1
        states = directions * self.num_layers
        real_hidden = self.proj_size or self.hidden_size
        expected = (states, batch, real_hidden) if batched else (states, real_hidden)
        expected_c = (states, batch, self.hidden_size) if batched else (states, self.hidden_size)
        lstm = self.mode == "LSTM"
        if length == 0:
            raise ValueError(f"{op}: Expected sequence length to be larger than 0, got input of shape {input.shape}")
        first_h: Sequence[Tensor | None] = [None] * states  # the zero state
        first_c: Sequence[Tensor | None] = first_h
        if hx is not None:
            if lstm and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
                raise TypeError(f"LSTM: hx must be a pair (h_0, c_0), not {type(hx).__name__}")
            if not lstm and isinstance(hx, (tuple, list)):
                raise TypeError(f"{op}: hx must be one Tensor h_0, not a {type(hx).__name__}")
            pair = tuple(hx) if lstm else (hx, hx)
            if not batched and isinstance(pair[0], Tensor) and pair[0].ndim != 2:
                raise ValueError(f"{op}: For unbatched 2-D input, hx should also be 2-D but got "
                                 f"{pair[0].ndim}-D tensor")
            h0 = _check_state(op, "hidden[0]" if lstm else "hidden", pair[0], expected, like)
            c0 = _check_state(op, "hidden[1]", pair[1], expected_c, like) if lstm else h0
            if not batched:
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
            first_h, first_c = h0.unbind(0), c0.unbind(0)
        last_h: list[Tensor] = []
        last_c: list[Tensor] = []
        layer_input = x
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                w_ih, w_hh, b_ih, b_hh = self._layer_weights(layer, direction)
                w_hr = getattr(self, f"weight_hr_l{layer}" + ("_reverse" if direction else "")) if self.proj_size \
                    else None
                steps = F.linear(layer_input, w_ih, b_ih).unbind(0)  # the input's part of every step, one matmul
                h: Any = first_h[k]
                c: Any = first_c[k]
                sequence: list[Any] = [None] * length
                for t in (range(length) if direction == 0 else range(length - 1, -1, -1)):
                    if lstm:
                        h, c = _lstm_step(steps[t], h, c, w_hh, b_hh)
                        if w_hr is not None:  # the projection: h = o tanh(c) W_hr^T
                            h = F.linear(h, w_hr)
                    elif self.mode == "GRU":
                        h = _gru_step(steps[t], h, w_hh, b_hh)
                    else:
                        h = _rnn_step(steps[t], h, w_hh, b_hh, self.mode == "RNN_RELU")
                    sequence[t] = h
                outs.append(stack(sequence, 0))
                last_h.append(h)
                last_c.append(c)
            layer_input = outs[0] if directions == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output, h_n = layer_input, stack(last_h, 0)
        if batched and self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
        if not lstm:
            return output, h_n
        c_n = stack(last_c, 0)
        return output, (h_n, c_n if batched else c_n.squeeze(1))

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (`nonlinearity="relu"`: relu).

    PyTorch's signature: RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
    batch_first=False, dropout=0.0, bidirectional=False).

    Example:
        >>> import torchlight as tl
        >>> rnn = tl.nn.RNN(3, 4, num_layers=2, bidirectional=True)
        >>> out, h_n = rnn(tl.zeros(6, 2, 3))
        >>> out.shape, h_n.shape
        ((6, 2, 8), (4, 2, 4))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 *, backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: Unknown nonlinearity {nonlinearity!r}. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, backend=backend, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def extra_repr(self) -> str:
        text = super().extra_repr()
        return text if self.nonlinearity == "tanh" else text + f", nonlinearity={self.nonlinearity}"


class LSTM(RNNBase):
    """Long short-term memory: returns (output, (h_n, c_n)); gates i, f, g, o as PyTorch's.

    `proj_size` > 0 projects each h_t through `weight_hr_l{k}` (proj_size, hidden_size), as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> lstm = tl.nn.LSTM(3, 4)
        >>> sorted(name for name, _ in lstm.named_parameters())
        ['bias_hh_l0', 'bias_ih_l0', 'weight_hh_l0', 'weight_ih_l0']
        >>> lstm.weight_ih_l0.shape                    # 4 gates x hidden_size rows
        (16, 3)
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 *, backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, backend=backend, device=device, dtype=dtype)


class GRU(RNNBase):
    """Gated recurrent unit: gates r, z, n with PyTorch's n = tanh(W_in x + b_in + r (W_hn h + b_hn)).

    Example:
        >>> import torchlight as tl
        >>> out, h_n = tl.nn.GRU(3, 4, batch_first=True)(tl.zeros(2, 5, 3))
        >>> out.shape, h_n.shape
        ((2, 5, 4), (1, 2, 4))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 *, backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         backend=backend, device=device, dtype=dtype)


# ------------------------------------------------------------------------- the cells
class RNNCellBase(Module):
    """One step: `weight_ih` (G H, input), `weight_hh` (G H, H), `bias_ih`, `bias_hh` (G H,).

    All start U(-1/sqrt(H), 1/sqrt(H)), as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> issubclass(tl.nn.LSTMCell, tl.nn.RNNCellBase)
        True
        >>> cell = tl.nn.LSTMCell(input_size=4, hidden_size=6)
        >>> cell.weight_ih.shape  # G = 4 gates for an LSTM
        (24, 4)
        >>> h, c = cell(tl.zeros(3, 4))
        >>> h.shape, c.shape
        ((3, 6), (3, 6))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool, gates: int, *, backend: Any = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        _check_sizes(type(self).__name__, input_size, hidden_size)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = new_parameter((gates * hidden_size, input_size), backend, device, dtype)
        self.weight_hh = new_parameter((gates * hidden_size, hidden_size), backend, device, dtype)
        if bias:
            self.bias_ih = new_parameter((gates * hidden_size,), backend, device, dtype)
            self.bias_hh = new_parameter((gates * hidden_size,), backend, device, dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh):
            if p is not None:
                init.uniform_(p, -bound, bound)

    def _prepare(self, input: Tensor, states: tuple[Any, ...]) -> tuple[Tensor, list[Any], bool]:
        """The input as (N, input_size), the states as (N, H) (None: the zero state), and whether it was batched."""
        op = type(self).__name__
        _check_input(op, input, self.weight_ih, self.input_size, (1, 2))
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        expected = (x.shape[0], self.hidden_size) if batched else (self.hidden_size,)
        out: list[Tensor | None] = []
        for k, state in enumerate(states):
            if state is None:  # the zero state (see _hidden_part)
                out.append(None)
                continue
            name = "hx" if len(states) == 1 else f"hx[{k}]"
            state = _check_state(op, name, state, expected, self.weight_ih)
            out.append(state if batched else state.unsqueeze(0))
        return x, out, batched

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        return text if self.bias else text + ", bias=False"


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (`nonlinearity="relu"`: relu); input (N, in) or (in,).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.RNNCell(3, 4)(tl.zeros(2, 3)).shape
        (2, 4)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", *,
                 backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: Unknown nonlinearity {nonlinearity!r}. Select from 'tanh' or 'relu'.")
        super().__init__(input_size, hidden_size, bias, 1, backend=backend, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), batched = self._prepare(input, (hx,))
        h = _rnn_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                      self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        return text if self.nonlinearity == "tanh" else text + f", nonlinearity={self.nonlinearity}"


class LSTMCell(RNNCellBase):
    """One LSTM step: (h', c') from x and (h, c) (zeros when hx is None).

    Example:
        >>> import torchlight as tl
        >>> h, c = tl.nn.LSTMCell(3, 4)(tl.zeros(2, 3))
        >>> h.shape, c.shape
        ((2, 4), (2, 4))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, *, backend: Any = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, backend=backend, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        if hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
            raise TypeError(f"LSTMCell: hx must be a pair (h, c), not {type(hx).__name__}")
        x, (h, c), batched = self._prepare(input, (None, None) if hx is None else tuple(hx))
        h, c = _lstm_step(F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n as GRU's).

    Example:
        >>> import torchlight as tl
        >>> tl.nn.GRUCell(3, 4)(tl.zeros(3)).shape
        (4,)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, *, backend: Any = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, backend=backend, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), batched = self._prepare(input, (hx,))
        h = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
