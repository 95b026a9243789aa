"""`Sequential` (modules applied one after the other) and the containers `ModuleList`, `ModuleDict`,
`ParameterList`, `ParameterDict`, which register what they hold (a plain Python list or dict does not,
as in PyTorch: its layers' parameters are not the model's).

Example:
    >>> import torchlight as tl
    >>> model = tl.nn.Sequential(tl.nn.Linear(4, 8), tl.nn.ReLU(), tl.nn.Linear(8, 3))
    >>> model(tl.zeros(2, 4)).shape
    (2, 3)
    >>> len(model), type(model[1]).__name__
    (3, 'ReLU')
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from torchlight.nn.module import Module
from torchlight.nn.parameter import Parameter
from torchlight.tensor import Tensor


class Sequential(Module):
    """Calls its sub-modules in order, named "0", "1", ... (or by an OrderedDict's keys).

    Example:
        >>> import torchlight as tl
        >>> model = tl.nn.Sequential(tl.nn.Linear(4, 8), tl.nn.ReLU(), tl.nn.Linear(8, 2))
        >>> model(tl.ones(5, 4)).shape
        (5, 2)
        >>> [name for name, _ in model.named_parameters()]
        ['0.weight', '0.bias', '2.weight', '2.bias']
    """

    def __init__(self, *modules: Module | OrderedDict) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            items = list(modules[0].items())
        else:
            items = [(str(i), m) for i, m in enumerate(modules)]
        for name, module in items:
            if not isinstance(module, Module):
                raise TypeError(f"Sequential: entry {name!r} is a {type(module).__name__}, not a Module")
            self.add_module(name, module)

    def forward(self, x: Any) -> Any:
        for module in self._modules.values():  # every entry, also a module repeated (children() has it once)
            if module is not None:
                x = module(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, index: int | slice) -> Module:
        items = list(self._modules.items())
        if isinstance(index, slice):  # (add_module, not the constructor: an entry set to None stays, as PyTorch)
            part = Sequential()
            for name, module in items[index]:
                part.add_module(name, module)
            return part
        return items[index][1]

    def append(self, module: Module) -> Sequential:
        """Add `module` at the end, named str(len(self)) or, where a slice or a deletion left that name
        taken, the next free number (PyTorch re-assigns the taken name, silently replacing that layer)."""
        index = len(self)
        while str(index) in self._modules:
            index += 1
        self.add_module(str(index), module)
        return self


def _abs_index(index: Any, length: int, owner: str) -> int:
    """`index` (an int, negative counting from the end) checked to be in range, as PyTorch's IndexError."""
    index = operator.index(index)
    if not -length <= index < length:
        raise IndexError(f"{owner}: index {index} is out of range for {length} entries")
    return index % length if length else index


def _check_iterable(values: Any, owner: str, op: str) -> None:
    if not isinstance(values, Iterable) or isinstance(values, (Tensor, str)):
        raise TypeError(f"{owner}.{op} should be called with an iterable, but got {type(values).__name__}")


def _pairs(values: Any, owner: str) -> list[tuple[Any, Any]]:
    """The (key, value) pairs of a mapping, or of an iterable of pairs (PyTorch's `update`)."""
    if isinstance(values, Mapping):
        return list(values.items())
    _check_iterable(values, owner, "update")
    pairs = []
    for i, item in enumerate(values):
        if not isinstance(item, Iterable) or isinstance(item, (str, Tensor)):
            raise TypeError(f"{owner}.update: entry {i} should be an iterable of a key and a value, "
                            f"not {type(item).__name__}")
        item = tuple(item)
        if len(item) != 2:
            raise ValueError(f"{owner}.update: entry {i} should have length 2 (a key and a value), not {len(item)}")
        pairs.append(item)
    return pairs


class ModuleList(Module):
    """A list of sub-modules, registered under "0", "1", ... as PyTorch's.

    So `named_parameters` gives "0.weight" and the state dict PyTorch's keys. It has no `forward`: call its entries.

    Example:
        >>> import torchlight as tl
        >>> layers = tl.nn.ModuleList([tl.nn.Linear(2, 2) for _ in range(2)])
        >>> layers.append(tl.nn.Linear(2, 1))      # (PyTorch's repr: a run of equal entries on one line)
        ModuleList(
          (0-1): 2 x Linear(in_features=2, out_features=2, bias=True)
          (2): Linear(in_features=2, out_features=1, bias=True)
        )
        >>> [name for name, _ in layers.named_parameters()][:3]
        ['0.weight', '0.bias', '1.weight']
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(_abs_index(index, len(self), "ModuleList"))]

    def __setitem__(self, index: int, module: Module) -> None:
        self.add_module(str(_abs_index(index, len(self), "ModuleList")), module)

    def __delitem__(self, index: int | slice) -> None:
        if isinstance(index, slice):
            for name in list(self._modules)[index]:
                del self._modules[name]
        else:
            del self._modules[str(_abs_index(index, len(self), "ModuleList"))]
        self._renumber(list(self._modules.values()))  # "0", "1", ... again, as PyTorch

    def _renumber(self, modules: list[Any]) -> None:
        self._modules.clear()
        for i, module in enumerate(modules):
            self._modules[str(i)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return type(self)([*self, *other])

    def append(self, module: Module) -> ModuleList:
        """Add `module` at the end; returns the list."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append each of `modules`; returns the list."""
        _check_iterable(modules, "ModuleList", "extend")
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert `module` before `index` (as `list.insert`: a negative index counts from the end)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"ModuleList.insert: expected a Module, not {type(module).__name__}")
        modules = list(self._modules.values())
        modules.insert(operator.index(index), module)
        self._renumber(modules)

    def pop(self, index: int | slice = -1) -> Any:
        """Remove the entry at `index` and return it."""
        module = self[index]
        del self[index]
        return module

    def __repr__(self) -> str:
        """PyTorch's: a run of entries with the same repr is one line, "(0-2): 3 x Linear(...)"."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return f"{type(self).__name__}()"
        runs: list[list[Any]] = []
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [(f"({start}): " if start == end else f"({start}-{end}): {end - start + 1} x ") + text
                 for start, end, text in runs]
        return f"{type(self).__name__}(\n  " + "\n  ".join(line.replace("\n", "\n  ") for line in lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of sub-modules, registered under their keys (PyTorch's `nn.ModuleDict`).

    Example:
        >>> import torchlight as tl
        >>> heads = tl.nn.ModuleDict({"a": tl.nn.Linear(2, 1), "b": tl.nn.Linear(2, 3)})
        >>> list(heads.keys()), "a" in heads, heads["b"](tl.zeros(1, 2)).shape
        (['a', 'b'], True, (1, 3))
        >>> sorted(heads.state_dict())
        ['a.bias', 'a.weight', 'b.bias', 'b.weight']
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Any:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Any:
        """Remove `key` and return its module."""
        module = self[key]
        del self[key]
        return module

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add or replace entries from a mapping (in its order) or an iterable of (key, module) pairs."""
        pairs = list(modules.items()) if isinstance(modules, ModuleDict) else _pairs(modules, "ModuleDict")
        for key, module in pairs:
            self[key] = module


def _as_parameter(value: Any) -> Any:
    """A Tensor that is not yet a Parameter becomes one (sharing its array), as PyTorch's containers do."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _parameter_line(key: Any, value: Any) -> str:
    """One entry of a ParameterList's or ParameterDict's repr, as PyTorch writes it (indented by 2)."""
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        size = "x".join(map(str, value.shape))
        return f"  ({key}): {kind} containing: [{value.dtype} of size {size}]"
    return f"  ({key}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of Parameters, registered as "0", "1", ...; a plain Tensor appended becomes a Parameter.

    Example:
        >>> import torchlight as tl
        >>> weights = tl.nn.ParameterList([tl.zeros(2), tl.ones(3)])
        >>> [name for name, _ in weights.named_parameters()], type(weights[1]).__name__
        (['0', '1'], 'Parameter')
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            part = type(self)()
            for i in range(*index.indices(len(self))):
                part.append(self[i])
            return part
        return getattr(self, str(_abs_index(index, len(self), "ParameterList")))

    def __setitem__(self, index: int, value: Any) -> None:
        setattr(self, str(_abs_index(index, len(self), "ParameterList")), _as_parameter(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def append(self, value: Any) -> ParameterList:
        """Add `value` (a Parameter; a Tensor made one) at the end; returns the list."""
        index = self._size
        self._size += 1
        self[index] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Append each of `values`; returns the list."""
        _check_iterable(values, "ParameterList", "extend")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(i, value) for i, value in enumerate(self))


class ParameterDict(Module):
    """An ordered dict of Parameters, registered under their (str) keys.

    A plain Tensor becomes a Parameter. A plain dict given to the constructor or `update` is read in sorted key
    order, an OrderedDict or a ParameterDict in its own, as PyTorch.

    Example:
        >>> import torchlight as tl
        >>> params = tl.nn.ParameterDict({"scale": tl.ones(2), "shift": tl.zeros(2)})
        >>> list(params), sorted(params.state_dict())
        (['scale', 'shift'], ['scale', 'shift'])
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _check_key(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict: a key must be a str, not {type(key).__name__} ({key!r})")
        return key

    def __getitem__(self, key: str) -> Any:
        if self._check_key(key) not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._check_key(key)
        if hasattr(type(self), key):  # (it would hide a method: d["keys"] = ... and d.keys() breaks)
            raise KeyError(f"ParameterDict: the key {key!r} is the name of a method of ParameterDict")
        value = _as_parameter(value)
        if isinstance(value, Parameter):  # register_parameter checks the name (no "."), as PyTorch
            if key in self._keys and key not in self._parameters:
                delattr(self, key)
            self.register_parameter(key, value)
        else:
            setattr(self, key, value)
        self._keys[key] = None  # (after: a refused value leaves no key behind)

    def __delitem__(self, key: str) -> None:
        if self._check_key(key) not in self._keys:
            raise KeyError(key)
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._keys))

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same Parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        if not self._keys:
            raise KeyError("popitem(): ParameterDict is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return iter([(k, self[k]) for k in self._keys])

    def values(self) -> Iterator[Any]:
        return iter([self[k] for k in self._keys])

    def update(self, parameters: Any) -> None:
        """Add or replace entries from a mapping or an iterable of (key, value) pairs."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = _pairs(parameters, "ParameterDict")
        for key, value in pairs:
            self[key] = value

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, v) for k, v in self.items())
