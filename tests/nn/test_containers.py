"""ModuleList, ModuleDict, ParameterList, ParameterDict: PyTorch's methods (append, extend, insert,
slices, deletion and renumbering, keys/items/values/update/pop ...), the parameters they register and the
state-dict keys (equal to PyTorch's, and loading from it), that a plain list registers nothing (as in
PyTorch), and bad input."""

from __future__ import annotations

import re
from collections import OrderedDict

import numpy as np
import pytest

import torchlight as tl
from torchlight import nn


def _fill(self, lib):
    self.layers = lib.nn.ModuleList([lib.nn.Linear(3, 3) for _ in range(3)])
    self.heads = lib.nn.ModuleDict({"b": lib.nn.Linear(3, 1), "a": lib.nn.Linear(3, 2)})
    self.scales = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(3)) for _ in range(2)])
    self.extra = lib.nn.ParameterDict({"shift": lib.nn.Parameter(lib.zeros(3)),
                                       "gain": lib.nn.Parameter(lib.ones(1))})


def _forward(self, x):
    for layer, scale in zip(self.layers, [*self.scales, self.scales[0]]):
        x = layer(x).tanh() * scale
    x = x * self.extra["gain"] + self.extra["shift"]
    return self.heads["a"](x).sum() + self.heads["b"](x).sum()


class Stack(nn.Module):
    """A model holding each container (the same code builds PyTorch's twin)."""

    def __init__(self, lib: object) -> None:
        super().__init__()
        _fill(self, lib)

    forward = _forward


def _torch_stack():
    torch = pytest.importorskip("torch", reason="PyTorch's containers are the model where it is installed")

    class TorchStack(torch.nn.Module):
        def __init__(self, lib: object) -> None:
            super().__init__()
            _fill(self, lib)

        forward = _forward

    class Lib:
        nn = torch.nn
        ones = staticmethod(lambda n: torch.ones(n, dtype=torch.float64))
        zeros = staticmethod(lambda n: torch.zeros(n, dtype=torch.float64))

    return torch, TorchStack(Lib).double()


def _no_dtypes(text: str) -> str:
    """A repr without its dtype names (PyTorch writes torch.float64 or DoubleTensor, torchlight float64)."""
    return re.sub(r"\[[\w.]+ of size", "[dtype of size", text)


class _Ours:
    nn = tl.nn
    ones = staticmethod(tl.ones)
    zeros = staticmethod(tl.zeros)


def test_containers_register_as_pytorch_and_its_state_dict_loads() -> None:
    torch, theirs = _torch_stack()
    ours = Stack(_Ours)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours.heads) == repr(theirs.heads)
    assert _no_dtypes(repr(ours)) == _no_dtypes(repr(theirs).replace("TorchStack", "Stack"))
    mixed = [tl.nn.Tanh(), tl.nn.Tanh(), tl.nn.Sequential(tl.nn.ReLU()), tl.nn.Tanh()]
    assert repr(tl.nn.ModuleList(mixed)) == repr(torch.nn.ModuleList(
        [torch.nn.Tanh(), torch.nn.Tanh(), torch.nn.Sequential(torch.nn.ReLU()), torch.nn.Tanh()]))
    assert repr(tl.nn.ModuleList()) == repr(torch.nn.ModuleList()) == "ModuleList()"
    ours.load_state_dict(theirs.state_dict())
    x = np.random.default_rng(0).normal(size=(2, 3))
    out, expected = ours(tl.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(out.item(), expected.item(), rtol=1e-12)
    out.backward()
    expected.backward()
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, err_msg=name)


def test_module_list_methods_follow_pytorch() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch's ModuleList is the model")
    ours = nn.ModuleList([nn.Linear(1, i + 1) for i in range(4)])
    theirs = torch.nn.ModuleList([torch.nn.Linear(1, i + 1) for i in range(4)])

    def widths(mods):
        return [m.out_features for m in mods]

    for lib, mods in ((nn, ours), (torch.nn, theirs)):
        mods.append(lib.Linear(1, 9))
        mods.insert(1, lib.Linear(1, 7))
        mods.extend([lib.Linear(1, 8)])
        mods += [lib.Tanh()]
        del mods[2]
        del mods[-2:]
        mods[0] = lib.Linear(1, 5)
    assert widths(ours) == widths(theirs) == [5, 7, 3, 4, 9]
    assert list(ours._modules) == list(theirs._modules) == ["0", "1", "2", "3", "4"]  # renumbered
    assert widths(ours[1:4]) == widths(theirs[1:4]) and isinstance(ours[1:4], nn.ModuleList)
    assert ours[-1].out_features == 9 and len(ours) == 5
    assert ours.pop(1).out_features == theirs.pop(1).out_features == 7
    assert widths(ours) == widths(theirs)
    assert widths(ours + nn.ModuleList([nn.Linear(1, 6)])) == [5, 3, 4, 9, 6]
    assert [n for n, _ in ours.named_parameters()][:2] == ["0.weight", "0.bias"]


def test_module_dict_methods_follow_pytorch() -> None:
    heads = nn.ModuleDict([("x", nn.Linear(2, 1)), ("y", nn.Tanh())])
    heads["z"] = nn.ReLU()
    heads.update({"w": nn.Identity()})
    heads.update(nn.ModuleDict({"v": nn.Sigmoid()}))
    assert list(heads.keys()) == ["x", "y", "z", "w", "v"] and len(heads) == 5
    assert isinstance(heads.pop("y"), nn.Tanh) and "y" not in heads
    del heads["z"]
    assert [k for k, _ in heads.items()] == list(heads) == ["x", "w", "v"]
    assert [type(v).__name__ for v in heads.values()] == ["Linear", "Identity", "Sigmoid"]
    assert list(heads.state_dict()) == ["x.weight", "x.bias"]
    heads.clear()
    assert len(heads) == 0 and list(heads.parameters()) == []


def test_parameter_list_and_dict_methods_follow_pytorch() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch's ParameterList / ParameterDict are the model")
    ours = nn.ParameterList([tl.zeros(2)])
    theirs = torch.nn.ParameterList([torch.zeros(2)])
    for lib, plist, make in ((nn, ours, tl.ones), (torch.nn, theirs, torch.ones)):
        plist.append(make(3))
        plist.extend([lib.Parameter(make(4))])
        plist[0] = make(5)
    assert [p.shape[0] for p in ours] == [p.shape[0] for p in theirs] == [5, 3, 4]
    assert all(isinstance(p, nn.Parameter) for p in ours) and ours[0].requires_grad
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [p.shape[0] for p in ours[1:]] == [3, 4] and isinstance(ours[1:], nn.ParameterList)
    assert _no_dtypes(repr(ours)) == _no_dtypes(repr(theirs))

    plain = {"b": np.zeros(1), "a": np.zeros(2)}
    ours_d = nn.ParameterDict({k: tl.tensor(v) for k, v in plain.items()})
    theirs_d = torch.nn.ParameterDict({k: torch.tensor(v) for k, v in plain.items()})
    assert list(ours_d) == list(theirs_d)  # (PyTorch's order for a plain dict)
    for pdict, make in ((ours_d, tl.ones), (theirs_d, torch.ones)):
        pdict["c"] = make(3)
        pdict.update(OrderedDict([("e", make(1)), ("d", make(2))]))
        pdict.setdefault("f", make(1))
        del pdict["b"]
    assert list(ours_d) == list(theirs_d) and list(ours_d.keys()) == list(theirs_d.keys())
    assert list(ours_d.state_dict()) == list(theirs_d.state_dict())
    assert ours_d.pop("c").shape == (3,) and "c" not in ours_d
    assert ours_d.get("zz") is None and ours_d.get("a").shape == (2,)
    assert ours_d.popitem()[0] == theirs_d.popitem()[0]
    merged = ours_d | nn.ParameterDict({"g": tl.ones(1)})
    assert list(merged) == [*ours_d, "g"] and merged["g"] is not None
    assert [k for k, _ in ours_d.items()] == list(ours_d) and len(list(ours_d.values())) == len(ours_d)


def test_plain_list_of_layers_registers_nothing_as_in_pytorch() -> None:
    class Plain(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(2, 2)]  # a plain list: not part of the model (use nn.ModuleList)

    class Listed(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(2, 2)])

    assert list(Plain().parameters()) == [] and list(Plain().state_dict()) == []
    assert [n for n, _ in Listed().named_parameters()] == ["layers.0.weight", "layers.0.bias"]


def test_containers_train_eval_and_to_reach_their_entries() -> None:
    layers = nn.ModuleList([nn.Dropout(0.5), nn.ModuleDict({"d": nn.Dropout(0.5)})])
    layers.eval()
    assert not layers[0].training and not layers[1]["d"].training
    params = nn.ParameterList([tl.ones(2)])
    params[0].grad = tl.ones(2)
    params.zero_grad()
    assert params[0].grad is None


def test_containers_bad_input() -> None:
    layers = nn.ModuleList([nn.Tanh()])
    with pytest.raises(IndexError, match="ModuleList: index 3 is out of range for 1 entries"):
        layers[3]
    with pytest.raises(IndexError, match="index -2 is out of range"):
        layers[-2] = nn.ReLU()
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got Linear"):
        layers.extend(nn.Linear(1, 1))
    with pytest.raises(TypeError, match="add_module: '1' must be a Module, not int"):
        layers.append(3)
    with pytest.raises(NotImplementedError, match="ModuleList must define forward"):
        layers(tl.zeros(1))
    with pytest.raises(TypeError, match="ModuleDict.update: entry 0 should be an iterable of a key and a value"):
        nn.ModuleDict([nn.Tanh()])
    with pytest.raises(ValueError, match="entry 0 should have length 2"):
        nn.ModuleDict([("a", nn.Tanh(), 1)])
    with pytest.raises(KeyError, match="attribute 'keys' already exists"):
        nn.ModuleDict({"keys": nn.Tanh()})
    with pytest.raises(KeyError, match="contain no '.'"):
        nn.ModuleDict({"a.b": nn.Tanh()})
    with pytest.raises(TypeError, match="ParameterDict: a key must be a str, not int"):
        nn.ParameterDict()[0] = tl.ones(1)
    with pytest.raises(KeyError):
        nn.ParameterDict()["missing"]
    params = nn.ParameterDict()
    with pytest.raises(KeyError, match="contain no '.'"):
        params["a.b"] = tl.ones(1)
    with pytest.raises(KeyError, match="the key 'keys' is the name of a method"):
        params["keys"] = tl.ones(1)
    assert len(params) == 0 and list(params.keys()) == []
    params["a"] = None  # (a declared but absent entry, as PyTorch allows)
    params["a"] = tl.ones(2)
    assert list(params.state_dict()) == ["a"]
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable, but got Tensor"):
        nn.ParameterList(tl.ones(2))
    with pytest.raises(IndexError, match="ParameterList: index 1 is out of range"):
        nn.ParameterList([tl.ones(1)])[1]
