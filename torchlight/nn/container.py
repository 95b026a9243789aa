"""`Sequential`: modules applied one after the other.

Example:
    >>> import torchlight as tl
    >>> model = tl.nn.Sequential(tl.nn.Linear(4, 8), tl.nn.ReLU(), tl.nn.Linear(8, 3))
    >>> model(tl.zeros(2, 4)).shape
    (2, 3)
    >>> len(model), type(model[1]).__name__
    (3, 'ReLU')
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from torchlight.nn.module import Module


class Sequential(Module):
    """Calls its sub-modules in order, named "0", "1", ... (or by an OrderedDict's keys)."""

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
