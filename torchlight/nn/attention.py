"""`MultiheadAttention`, `TransformerEncoderLayer` and `TransformerEncoder`, with PyTorch's parameters.

Attention is PyTorch's reference formula (softmax(q k^T / sqrt(d) + mask) v,
per head) in Tensor ops, so every gradient, second derivatives included,
comes from the graph. The names (`in_proj_weight`, `in_proj_bias`,
`out_proj`, `self_attn`, `linear1`, `norm1`, `layers.0`, ...) are PyTorch's,
so its state dicts load.

Example:
    >>> import torchlight as tl
    >>> tl.manual_seed(0)
    >>> attn = tl.nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
    >>> x = tl.randn(3, 5, 8)                                  # (batch, length, embed_dim)
    >>> out, weights = attn(x, x, x)
    >>> out.shape, weights.shape                               # weights averaged over the heads
    ((3, 5, 8), (3, 5, 5))
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from torchlight.nn import functional as F
from torchlight.nn import init
from torchlight.nn._factory import new_parameter
from torchlight.nn.container import Sequential
from torchlight.nn.dropout import Dropout
from torchlight.nn.linear import Linear
from torchlight.nn.module import Module
from torchlight.nn.normalization import LayerNorm
from torchlight.tensor import Tensor

__all__ = ["MultiheadAttention", "TransformerEncoder", "TransformerEncoderLayer"]


def _positive(op: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{op}: {name} must be a positive int, not {value!r}")


class MultiheadAttention(Module):
    """Attention over `num_heads` heads of embed_dim / num_heads features each, PyTorch's module.

    Parameters: `in_proj_weight` (3 E, E) (the query, key and value
    projections stacked; with `kdim`/`vdim` other than E, `q_proj_weight`
    (E, E), `k_proj_weight` (E, kdim), `v_proj_weight` (E, vdim) instead),
    `in_proj_bias` (3 E,), and `out_proj` (a Linear(E, E)). Initialised as
    PyTorch: xavier_uniform_ for the projections, zero biases, out_proj's
    weight as a Linear's. `dropout` drops attention weights while training.

    Example:
        >>> import torchlight as tl
        >>> attn = tl.nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
        >>> x = tl.randn(2, 5, 8)  # (batch, sequence, embed_dim)
        >>> out, weights = attn(x, x, x)
        >>> out.shape, weights.shape  # weights averaged over the heads
        ((2, 5, 8), (2, 5, 5))
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, *, backend: Any = None, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        op = "MultiheadAttention"
        _positive(op, "embed_dim", embed_dim)
        _positive(op, "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"{op}: embed_dim must be divisible by num_heads, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads}")
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{op}: dropout must be in [0, 1], not {dropout!r}")
        if add_bias_kv or add_zero_attn:
            raise ValueError(f"{op}: add_bias_kv and add_zero_attn are not supported here (only False)")
        self.embed_dim = embed_dim
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = float(dropout)
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = new_parameter((3 * embed_dim, embed_dim), backend, device, dtype)
        else:
            self.q_proj_weight = new_parameter((embed_dim, embed_dim), backend, device, dtype)
            self.k_proj_weight = new_parameter((embed_dim, self.kdim), backend, device, dtype)
            self.v_proj_weight = new_parameter((embed_dim, self.vdim), backend, device, dtype)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = new_parameter((3 * embed_dim,), backend, device, dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, backend=backend, device=device, dtype=dtype)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)

    def _projections(self) -> list[tuple[Tensor, Tensor | None]]:
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            weights = [self.in_proj_weight[k * e:(k + 1) * e] for k in range(3)]
        else:
            weights = [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight]
        bias = self.in_proj_bias
        return [(w, None if bias is None else bias[k * e:(k + 1) * e]) for k, w in enumerate(weights)]

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """(attn_output, attn_weights), as PyTorch.

        `query` (L, N, E), `key` (S, N, kdim), `value` (S, N, vdim) ((N, L, E) ...
        with `batch_first`; unbatched (L, E) ...). `key_padding_mask` (N, S)
        and `attn_mask` (L, S) or (N num_heads, L, S): True (boolean) marks a
        key left out, a float mask is added to the scores. The weights are
        (N, L, S) averaged over the heads, or (N, num_heads, L, S) with
        `average_attn_weights=False`; None when `need_weights` is False.
        `is_causal` is a hint, as PyTorch's: it needs the causal `attn_mask` itself.
        """
        op = "MultiheadAttention"
        q_in, k_in, v_in = self._check_inputs(op, query, key, value)
        batched = query.ndim == 3
        if batched and self.batch_first:
            q_in, k_in, v_in = (t.transpose(0, 1) for t in (q_in, k_in, v_in))
        if not batched:
            q_in, k_in, v_in = (t.unsqueeze(1) for t in (q_in, k_in, v_in))
        length, batch, e = q_in.shape
        source = k_in.shape[0]
        if is_causal and attn_mask is None:
            raise ValueError(f"{op}: Need attn_mask if specifying the is_causal hint (as PyTorch)")
        heads, hd = self.num_heads, self.head_dim
        (wq, bq), (wk, bk), (wv, bv) = self._projections()

        def split(t: Tensor, n: int) -> Tensor:  # (n, N, E) -> (N, heads, n, head_dim)
            return t.reshape(n, batch, heads, hd).permute(1, 2, 0, 3)

        q = split(F.linear(q_in, wq, bq), length)
        k = split(F.linear(k_in, wk, bk), source)
        v = split(F.linear(v_in, wv, bv), source)
        scores = (q * (1.0 / hd ** 0.5)) @ k.mT  # (N, heads, L, S)
        if attn_mask is not None:
            scores = self._apply_attn_mask(op, attn_mask, scores)
        if key_padding_mask is not None:
            scores = self._apply_padding_mask(op, key_padding_mask, scores, batched)
        # (PyTorch: a query whose keys are all masked gets NaN weights when they are returned, and zero
        # ones, hence out_proj's bias as its output, when they are not)
        weights = scores.softmax(-1) if need_weights else F.safe_softmax(scores)
        if self.dropout and self.training:
            weights = F.dropout(weights, self.dropout, True)
        out = (weights @ v).permute(2, 0, 1, 3).reshape(length, batch, e)
        out = self.out_proj(out)
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean(1)
        return out, weights if batched else weights.squeeze(0)

    def _check_inputs(self, op: str, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"{op}: {name} must be a Tensor, not {type(t).__name__}")
        if query.ndim not in (2, 3):
            raise ValueError(f"{op}: query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor of shape {query.shape}")
        if key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"{op}: For {'batched (3-D)' if query.ndim == 3 else 'unbatched (2-D)'} `query`, "
                             f"expected `key` and `value` to be {query.ndim}-D but found {key.ndim}-D and "
                             f"{value.ndim}-D tensors respectively")
        like = self.out_proj.weight
        for name, t, width in (("query", query, self.embed_dim), ("key", key, self.kdim),
                               ("value", value, self.vdim)):
            if t.dtype != like.dtype:
                raise TypeError(f"{op}: {name} has dtype {t.dtype} but the parameters {like.dtype}")
            if t.shape[-1] != width:
                raise ValueError(f"{op}: was expecting {name} embedding dimension of {width}, but got "
                                 f"{t.shape[-1]} ({name} of shape {t.shape})")
        if key.shape[:-1] != value.shape[:-1]:
            raise ValueError(f"{op}: key shape {key.shape} does not match value shape {value.shape}")
        if query.ndim == 3:
            batch_axis = 0 if self.batch_first else 1
            if key.shape[batch_axis] != query.shape[batch_axis]:
                raise ValueError(f"{op}: query of shape {query.shape} and key of shape {key.shape} have different "
                                 f"batch sizes")
        return query, key, value

    def _apply_attn_mask(self, op: str, mask: Any, scores: Tensor) -> Tensor:
        batch, heads, length, source = scores.shape
        shape = tuple(getattr(mask, "shape", ()))
        if len(shape) == 2:
            if shape != (length, source):
                raise ValueError(f"{op}: The shape of the 2D attn_mask is {shape}, but should be "
                                 f"{(length, source)}.")
            return F.masked_scores(mask, scores, op, allowed=False)
        if len(shape) == 3:
            if shape != (batch * heads, length, source):
                raise ValueError(f"{op}: The shape of the 3D attn_mask is {shape}, but should be "
                                 f"{(batch * heads, length, source)}.")
            return F.masked_scores(mask, scores, op, allowed=False, shape=(batch, heads, length, source))
        raise ValueError(f"{op}: attn_mask's dimension {len(shape)} is not supported (2-D (L, S) or "
                         f"3-D (N * num_heads, L, S))")

    def _apply_padding_mask(self, op: str, mask: Any, scores: Tensor, batched: bool) -> Tensor:
        batch, _, _, source = scores.shape
        shape = tuple(getattr(mask, "shape", ()))
        expected = (batch, source) if batched else (source,)
        if shape != expected:
            raise ValueError(f"{op}: expecting key_padding_mask shape of {expected}, but got {shape}")
        return F.masked_scores(mask, scores, op, allowed=False, shape=(batch, 1, 1, source))

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}"


def _activation(op: str, activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if isinstance(activation, str) or not callable(activation):
        raise ValueError(f"{op}: activation should be relu/gelu or a callable, not {activation!r}")
    return activation


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and a LayerNorm (PyTorch's layer).

    norm_first=False (post-norm): x = norm1(x + sa(x)); x = norm2(x + ff(x)).
    norm_first=True: x = x + sa(norm1(x)); x = x + ff(norm2(x)).
    ff(x) = linear2(dropout(activation(linear1(x)))); each block's output
    goes through its own dropout (dropout1, dropout2) before the residual.

    Example:
        >>> import torchlight as tl
        >>> layer = tl.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
        >>> layer(tl.zeros(2, 5, 8)).shape
        (2, 5, 8)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, *, backend: Any = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        op = "TransformerEncoderLayer"
        _positive(op, "dim_feedforward", dim_feedforward)
        make = {"backend": backend, "device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **make)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **make)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **make)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, **make)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, **make)
        if not bias:  # PyTorch's LayerNorm(bias=False): a weight only
            self.norm1.register_parameter("bias", None)
            self.norm2.register_parameter("bias", None)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(op, activation)
        self.batch_first = batch_first

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        """`src` (S, N, E) ((N, S, E) with batch_first, or unbatched (S, E)); masks as MultiheadAttention's."""
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, attn_mask: Any, key_padding_mask: Any, is_causal: bool) -> Tensor:
        out, _ = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False, is_causal=is_causal)
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """`num_layers` copies of `encoder_layer` (fresh parameters each, copied from it), then `norm` if given.

    Example:
        >>> import torchlight as tl
        >>> layer = tl.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> encoder = tl.nn.TransformerEncoder(layer, num_layers=2)
        >>> encoder(tl.zeros(5, 2, 8)).shape, len(encoder.layers)
        ((5, 2, 8), 2)
    """

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        _positive("TransformerEncoder", "num_layers", num_layers)
        if not isinstance(encoder_layer, Module):
            raise TypeError(f"TransformerEncoder: encoder_layer must be a Module, not {type(encoder_layer).__name__}")
        self.layers = Sequential(*(copy.deepcopy(encoder_layer) for _ in range(num_layers)))  # names layers.0 ...
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        return x if self.norm is None else self.norm(x)
