"""`functional_call`: a Module called with other parameters and buffers, for that call only.

Example:
    >>> import numpy as np
    >>> import torchlight as tl
    >>> from torchlight import func, nn
    >>> model = nn.Linear(2, 1)
    >>> params = {"weight": np.array([[1.0, 2.0]]), "bias": np.array([0.5])}
    >>> func.functional_call(model, params, (tl.tensor([1.0, 1.0]),)).tolist()
    [3.5]
    >>> func.grad(lambda p: func.functional_call(model, p, (tl.tensor([1.0, 1.0]),)).sum())(params)["weight"]
    array([[1., 1.]])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from torchlight.creation import _is_array
from torchlight.creation import tensor as make_tensor
from torchlight.tensor import Tensor

__all__ = ["functional_call"]


def functional_call(module: Any, parameter_and_buffer_dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """`module(*args, **kwargs)` with the named parameters and buffers replaced, as `torch.func.functional_call`.

    `parameter_and_buffer_dicts` maps names as `module.named_parameters()`
    and `named_buffers()` give them (`"0.weight"`, `"bn.running_mean"`) to
    Tensors or arrays (arrays are wrapped without a copy); a sequence of
    such dicts is merged (a name in two of them is a ValueError). The
    module's own tensors are put back afterwards, also when the call
    raises, so `func.grad(lambda p: loss(functional_call(model, p, (x,))))(p)`
    differentiates with respect to `p` and leaves `model` as it was.

    - `args`: one positional argument, or a tuple of them; `kwargs`: keywords.
    - `tie_weights=True`: a tensor the module holds under two names (tied
      weights) is replaced under both when one is given (giving both with
      different values is a ValueError); with False only the named slot.
    - `strict=True`: every parameter and buffer must be given.
    - A name that is no parameter or buffer of `module` is a ValueError
      naming it.

    Example:
        >>> import torchlight as tl
        >>> from torchlight import func
        >>> model = tl.nn.Linear(2, 1)
        >>> x = tl.tensor([[1.0, 1.0]])
        >>> params = {"weight": tl.tensor([[1.0, 2.0]]), "bias": tl.tensor([0.5])}
        >>> func.functional_call(model, params, (x,)).tolist()
        [[3.5]]
        >>> model.weight.tolist() == [[1.0, 2.0]]  # the model keeps its own parameters
        False
        >>> grads = func.grad(lambda p: func.functional_call(model, p, (x,)).sum())(params)
        >>> grads["weight"].tolist(), grads["bias"].tolist()
        ([[1.0, 1.0]], [1.0])
    """
    merged = _merge(parameter_and_buffer_dicts)
    slots = _slots(module)  # name -> (owner module, table name, key)
    unknown = sorted(k for k in merged if k not in slots)
    if unknown:
        raise ValueError(f"functional_call: no parameter or buffer {', '.join(map(repr, unknown))} in "
                         f"{type(module).__name__} (it has {', '.join(slots) or 'none'})")
    if tie_weights:
        merged = _tied(merged, slots)
    if strict:
        missing = [k for k in slots if k not in merged]
        if missing:
            raise ValueError(f"functional_call: with strict=True every parameter and buffer must be given; "
                             f"missing {', '.join(map(repr, missing))}")
    values = {k: _as_tensor(k, v) for k, v in merged.items()}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = [(slots[k], slots[k][0].__dict__[slots[k][1]][slots[k][2]]) for k in values]
    try:
        for k, v in values.items():
            owner, table, key = slots[k]
            owner.__dict__[table][key] = v
        return module(*args, **(kwargs or {}))
    finally:
        for (owner, table, key), old in reversed(saved):
            owner.__dict__[table][key] = old


def _merge(dicts: Any) -> dict[str, Any]:
    if isinstance(dicts, Mapping):
        return dict(dicts)
    merged: dict[str, Any] = {}
    for d in dicts:
        if not isinstance(d, Mapping):
            raise TypeError(f"functional_call: parameter_and_buffer_dicts must be a dict or a sequence of dicts, "
                            f"got a {type(d).__name__} in it")
        twice = sorted(set(d) & set(merged))
        if twice:
            raise ValueError(f"functional_call: {', '.join(map(repr, twice))} given in more than one dict")
        merged.update(d)
    return merged


def _slots(module: Any) -> dict[str, tuple[Any, str, str]]:
    """Every parameter and buffer of `module` by its dotted name, tied names included."""
    if not hasattr(module, "named_modules"):
        raise TypeError(f"functional_call: module must be a Module, not a {type(module).__name__}")
    slots: dict[str, tuple[Any, str, str]] = {}
    for prefix, owner in module.named_modules(remove_duplicate=False):
        for table in ("_parameters", "_buffers"):
            for key, value in owner.__dict__[table].items():
                if value is not None:
                    slots.setdefault(f"{prefix}.{key}" if prefix else key, (owner, table, key))
    return slots


def _tied(given: dict[str, Any], slots: dict[str, tuple[Any, str, str]]) -> dict[str, Any]:
    """`given` with each value also under the other names of the tensor it replaces."""
    by_tensor: dict[int, list[str]] = {}
    for name, (owner, table, key) in slots.items():
        by_tensor.setdefault(id(owner.__dict__[table][key]), []).append(name)
    out = dict(given)
    for names in by_tensor.values():
        chosen = [n for n in names if n in given]
        if not chosen:
            continue
        if any(given[n] is not given[chosen[0]] for n in chosen[1:]):
            raise ValueError(f"functional_call: the tied names {', '.join(map(repr, chosen))} were given different "
                             "values (pass tie_weights=False to replace them separately)")
        for n in names:
            out[n] = given[chosen[0]]
    return out


def _as_tensor(name: str, value: Any) -> Any:
    if isinstance(value, Tensor) or value is None:
        return value
    if _is_array(value):
        return make_tensor(value)
    raise TypeError(f"functional_call: the value for {name!r} is a {type(value).__name__}; give a Tensor or an array")
