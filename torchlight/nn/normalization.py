"""`LayerNorm`, `BatchNorm1d`, `BatchNorm2d`, `GroupNorm`: normalise, then scale and shift.

Example:
    >>> import torchlight as tl
    >>> norm = tl.nn.LayerNorm(4)
    >>> y = norm(tl.tensor([[1.0, 2.0, 3.0, 4.0]]))
    >>> round(y.mean().item(), 6)
    0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchlight.creation import ones, tensor, zeros
from torchlight.nn import functional as F
from torchlight.nn import init
from torchlight.nn._factory import new_parameter
from torchlight.nn.module import Module
from torchlight.tensor import Tensor


class LayerNorm(Module):
    """(x - mean) / sqrt(var + eps) * weight + bias over `normalized_shape` (weight 1, bias 0 at first).

    Example:
        >>> import torchlight as tl
        >>> norm = tl.nn.LayerNorm(3)
        >>> [round(v, 4) for v in norm(tl.tensor([[1.0, 2.0, 3.0]]))[0].tolist()]
        [-1.2247, 0.0, 1.2247]
        >>> norm.weight.tolist(), norm.bias.tolist()
        ([1.0, 1.0, 1.0], [0.0, 0.0, 0.0])
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5, elementwise_affine: bool = True,
                 *, backend: Any = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = new_parameter(shape, backend, device, dtype)
            self.bias = new_parameter(shape, backend, device, dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class _BatchNorm(Module):
    """PyTorch's batch norm over axis 1: `weight`, `bias` (affine), and the buffers `running_mean`,
    `running_var` and `num_batches_tracked` (track_running_stats), so that its state dict loads."""

    _expected: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *, bias: bool = True,
                 backend: Any = None) -> None:
        super().__init__()
        name = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int) or num_features < 1:
            raise ValueError(f"{name}: num_features must be an int >= 1, not {num_features!r}")
        if momentum is not None and (isinstance(momentum, bool) or not isinstance(momentum, (int, float))):
            raise TypeError(f"{name}: momentum must be a number or None (a cumulative average), not {momentum!r}")
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        shape = (num_features,)
        if affine:
            self.weight = new_parameter(shape, backend, device, dtype)
            if bias:
                self.bias = new_parameter(shape, backend, device, dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(shape, backend=backend, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(shape, backend=backend, device=device, dtype=dtype))
            count = tensor(0, backend=backend, device=device)
            self.register_buffer("num_batches_tracked", count.astype(count.backend.xp.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batch tracked."""
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            xp = self.num_batches_tracked.backend.xp
            self.num_batches_tracked._replace_data(xp.zeros_like(self.num_batches_tracked.data))

    def reset_parameters(self) -> None:
        """The running statistics reset; weight 1 and bias 0 (PyTorch's initialisation)."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def _check_input(self, x: Tensor) -> None:
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: the input must be a Tensor, not {type(x).__name__}")
        if x.ndim not in self._expected:
            expected = " or ".join(f"{n}D" for n in self._expected)
            raise ValueError(f"{name}: expected {expected} input, got {x.ndim}D input of shape {x.shape}")
        if x.shape[1] != self.num_features:
            raise ValueError(f"{name}: expected an input with {self.num_features} features (channels, axis 1), "
                             f"got shape {x.shape} with {x.shape[1]}")
        param = self.weight if self.weight is not None else self.running_mean
        if param is not None and x.dtype != param.dtype:
            raise TypeError(f"{name}: expected an input of dtype {param.dtype} (the layer's), got {x.dtype}")

    def forward(self, x: Tensor) -> Tensor:
        self._check_input(x)
        factor = 0.0 if self.momentum is None else self.momentum
        count = self.num_batches_tracked if self.training and self.track_running_stats else None
        if count is not None and self.momentum is None:  # a cumulative average: 1 / (batches so far)
            factor = 1.0 / (count + 1) if count.backend.lazy else 1.0 / (int(count.item()) + 1)  # (lazy: no compute)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        out = F.batch_norm(x, self.running_mean if track else None, self.running_var if track else None,
                           self.weight, self.bias, use_batch, factor, self.eps)
        if count is not None:  # (after F.batch_norm's checks: a refused batch changes no state)
            count._replace_data(count.data + 1)
        return out

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm of an (N, C) or (N, C, L) input, as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> norm = tl.nn.BatchNorm1d(2)
        >>> y = norm(tl.tensor([[1.0, 10.0], [3.0, 30.0]]))
        >>> y.numpy().round(4).tolist(), norm.running_mean.tolist(), int(norm.num_batches_tracked.item())
        ([[-1.0, -1.0], [1.0, 1.0]], [0.2, 2.0], 1)
    """

    _expected = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm of an (N, C, H, W) input, per channel over N, H and W, as PyTorch's.

    Example:
        >>> import torchlight as tl
        >>> norm = tl.nn.BatchNorm2d(3).eval()      # running statistics 0 and 1: nearly the identity
        >>> norm(tl.ones(1, 3, 2, 2)).shape
        (1, 3, 2, 2)
    """

    _expected = (4,)


class GroupNorm(Module):
    """`F.group_norm` over `num_groups` groups of the `num_channels` channels.

    With a weight and a bias per channel (1 and 0 at first) when `affine`.

    Example:
        >>> import torchlight as tl
        >>> tl.nn.GroupNorm(2, 4)
        GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True, backend: Any = None) -> None:
        super().__init__()
        for name, value in (("num_groups", num_groups), ("num_channels", num_channels)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"GroupNorm: {name} must be an int >= 1, not {value!r}")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels={num_channels} must be divisible by num_groups={num_groups}")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = new_parameter((num_channels,), backend, device, dtype)
            if bias:
                self.bias = new_parameter((num_channels,), backend, device, dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor):
            raise TypeError(f"GroupNorm: the input must be a Tensor, not {type(x).__name__}")
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"GroupNorm: expected an input (N, {self.num_channels}, *), got shape {x.shape}")
        if self.weight is not None and x.dtype != self.weight.dtype:
            raise TypeError(f"GroupNorm: expected an input of dtype {self.weight.dtype} (the layer's), got {x.dtype}")
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")
