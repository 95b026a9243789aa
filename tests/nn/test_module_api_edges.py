"""Regressions found by comparing the Module API (registration, traversal, repr, state) with PyTorch.

PyTorch (2.13, CPU) was only the discovery tool: each test writes the
expected names, layouts and messages out by hand.
"""

from __future__ import annotations

import pytest

import torchlight as tl
from torchlight import nn


class Settings(nn.Module):
    """A module whose extra_repr spans two lines, as PyTorch's BatchNorm-like layers may."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(tl.zeros(2))

    def extra_repr(self):
        return "a=1\nb=2"


class Holder(nn.Module):
    """A one-line extra_repr and a sub-module."""

    def __init__(self):
        super().__init__()
        self.inner = Settings()

    def extra_repr(self):
        return "top=1"


def test_repr_puts_extra_repr_on_its_own_lines_when_it_spans_lines_or_has_children():
    assert repr(Settings()) == "Settings(\n  a=1\n  b=2\n)"
    assert repr(Holder()) == "Holder(\n  top=1\n  (inner): Settings(\n    a=1\n    b=2\n  )\n)"
    assert repr(nn.Linear(2, 3)) == "Linear(in_features=2, out_features=3, bias=True)"
    assert repr(nn.Sequential()) == "Sequential()"


def test_repr_shows_a_sub_module_set_to_none_as_len_counts_it():
    model = nn.Sequential(nn.ReLU(), nn.Tanh())
    setattr(model, "0", None)
    assert len(model) == 2
    assert repr(model) == "Sequential(\n  (0): None\n  (1): Tanh()\n)"


def test_a_plain_setting_may_come_before_super_init_but_a_parameter_may_not():
    class Configured(nn.Module):
        def __init__(self, width):
            self.width = width  # PyTorch allows a plain attribute here
            super().__init__()
            self.w = nn.Parameter(tl.zeros(width))

    model = Configured(3)
    assert model.width == 3 and [name for name, _ in model.named_parameters()] == ["w"]

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(tl.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_load_state_dict_refuses_a_list_of_pairs_instead_of_loading_nothing():
    layer = nn.Linear(1, 1)
    pairs = [("weight", tl.ones(1, 1)), ("bias", tl.ones(1))]
    for strict in (True, False):
        with pytest.raises(TypeError, match="expected a mapping of names to arrays, not list"):
            layer.load_state_dict(pairs, strict=strict)
    assert layer.load_state_dict(dict(pairs)) == ([], [])
    assert layer.weight.item() == 1.0


def test_slicing_a_sequential_keeps_an_entry_set_to_none():
    model = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    setattr(model, "1", None)
    part = model[0:2]
    assert len(part) == 2 and part[0] is model[0] and part[1] is None
    assert [name for name, _ in model[1:].named_children()] == ["2"]
    assert model[1:](tl.tensor([0.0])).item() == 0.5  # the None entry is skipped, Sigmoid(0) = 0.5


def test_train_calls_each_childs_train_so_an_override_holds():
    class FrozenDropout(nn.Module):
        """Keeps its Dropout in eval mode whatever the parent asks (a frozen feature extractor)."""

        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout()

        def train(self, mode=True):
            super().train(mode)
            self.drop.train(False)
            return self

    model = nn.Sequential(FrozenDropout(), nn.Dropout())
    assert model.train() is model
    assert [m.training for m in model.modules()] == [True, True, False, True]
    model.eval()
    assert [m.training for m in model.modules()] == [False, False, False, False]
    model.train()
    assert model[0].drop.training is False and model[1].training is True


def test_append_after_a_slice_adds_a_layer_instead_of_replacing_one():
    relu, tanh, sigmoid, last = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Identity()
    tail = nn.Sequential(relu, tanh, sigmoid)[1:]  # names "1" and "2": len() is 2, "2" is taken
    assert tail.append(last) is tail
    assert [(name, m) for name, m in tail.named_children()] == [("1", tanh), ("2", sigmoid), ("3", last)]
    grown = nn.Sequential(relu).append(tanh)
    assert [name for name, _ in grown.named_children()] == ["0", "1"]


def test_a_module_assigned_over_a_parameter_replaces_it():
    holder = nn.Module()
    holder.t = nn.Parameter(tl.zeros(1))
    holder.t = nn.ReLU()  # (PyTorch: TypeError for this one change of kind; decisions.md)
    assert list(holder.named_parameters()) == [] and [name for name, _ in holder.named_children()] == ["t"]


def test_keyword_arguments_reach_forward_and_layers_name_their_input_x():
    class Scale(nn.Module):
        def forward(self, x, *, factor=1.0, **rest):
            return x * factor, sorted(rest)

    out, rest = Scale()(tl.tensor([2.0]), factor=3.0, note=None)
    assert out.item() == 6.0 and rest == ["note"]
    layer = nn.Linear(2, 1)
    assert layer(x=tl.zeros(1, 2)).shape == (1, 1)
    with pytest.raises(TypeError, match="input"):
        layer(input=tl.zeros(1, 2))  # PyTorch's name (decisions.md)


def test_layer_reprs_leave_out_the_options_torchlight_lacks():
    assert repr(nn.Dropout(0.2)) == "Dropout(p=0.2)"
    assert repr(nn.MaxPool2d(2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0)"
    assert repr(nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True)"
    assert repr(nn.CrossEntropyLoss(label_smoothing=0.1)) == "CrossEntropyLoss(label_smoothing=0.1)"


def test_registering_before_super_init_says_to_call_it():
    class Forgetful(nn.Module):
        def __init__(self, register):
            register(self)

    for register in (lambda m: m.register_buffer("b", tl.zeros(1)),
                     lambda m: m.register_parameter("p", nn.Parameter(tl.zeros(1))),
                     lambda m: m.add_module("c", nn.ReLU())):
        with pytest.raises(AttributeError, match=r"has not run \(call super\(\).__init__\(\) first\)"):
            Forgetful(register)
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nope'"):
        _ = nn.Linear(1, 1).nope


def test_sequential_refuses_none_when_built_and_skips_an_entry_set_to_none_later():
    with pytest.raises(TypeError, match="entry '1' is a NoneType, not a Module"):
        nn.Sequential(nn.ReLU(), None)
    model = nn.Sequential(nn.Tanh(), nn.Sigmoid())
    setattr(model, "1", None)
    assert model(tl.tensor([0.0])).item() == 0.0  # tanh(0), the None entry skipped


def test_unexpected_names_come_in_the_state_dicts_order():
    model = nn.Sequential(nn.Linear(1, 1))
    state = {**model.state_dict(), "0.extra": tl.zeros(1), "1.weight": tl.zeros(1)}
    assert model.load_state_dict(state, strict=False) == ([], ["0.extra", "1.weight"])
