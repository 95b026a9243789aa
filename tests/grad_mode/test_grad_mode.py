"""Grad mode: no_grad / enable_grad / set_grad_enabled, as context managers and decorators, per thread.

The tests of set_grad_enabled in every form and of decorated generators were found by a
differential hunt against PyTorch.
"""

from __future__ import annotations

import threading

import pytest

import torchlight as tl


def test_no_grad_stops_recording_and_restores(backend, device):
    x = tl.tensor([1.0], backend=backend, device=device, requires_grad=True)
    assert tl.is_grad_enabled()
    with tl.no_grad():
        assert not tl.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.history is None
        with tl.enable_grad():
            assert tl.is_grad_enabled()
            assert (x * 2).requires_grad
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled() and (x * 2).requires_grad


def test_grad_mode_is_restored_when_the_body_raises():
    with pytest.raises(KeyError):
        with tl.no_grad():
            raise KeyError
    assert tl.is_grad_enabled()


@pytest.mark.parametrize("parentheses", [True, False])
def test_no_grad_as_a_decorator(parentheses):
    x = tl.tensor([1.0], requires_grad=True)

    def double(t):
        assert not tl.is_grad_enabled()
        return t * 2

    wrapped = tl.no_grad()(double) if parentheses else tl.no_grad(double)
    assert wrapped.__name__ == "double"
    assert not wrapped(x).requires_grad
    assert tl.is_grad_enabled()


def test_enable_grad_as_a_decorator_inside_no_grad():
    x = tl.tensor([1.0], requires_grad=True)

    @tl.enable_grad()
    def double(t):
        return t * 2

    with tl.no_grad():
        assert double(x).requires_grad
        assert not tl.is_grad_enabled()


def test_set_grad_enabled():
    tl.set_grad_enabled(False)
    try:
        assert not tl.is_grad_enabled()
        assert not (tl.tensor([1.0], requires_grad=True) * 2).requires_grad
    finally:
        tl.set_grad_enabled(True)
    assert tl.is_grad_enabled()


def test_grad_mode_is_thread_local():
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def worker():
        with tl.no_grad():
            seen["worker"] = tl.is_grad_enabled()
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert inside.wait(10)
        # the worker is inside no_grad right now; this thread still records
        assert tl.is_grad_enabled()
        assert (tl.tensor([1.0], requires_grad=True) * 2).requires_grad
    finally:
        release.set()
        thread.join()
    assert seen["worker"] is False


def test_a_new_thread_starts_with_grad_enabled():
    seen = []
    with tl.no_grad():
        thread = threading.Thread(target=lambda: seen.append(tl.is_grad_enabled()))
        thread.start()
        thread.join()
    assert seen == [True]


def test_backward_inside_no_grad_still_computes_gradients(backend, device):
    x = tl.tensor([1.0, 2.0], backend=backend, device=device, requires_grad=True)
    y = (x * x).sum()
    with tl.no_grad():
        y.backward()
        assert not tl.is_grad_enabled()
    assert x.grad.tolist() == [2.0, 4.0]


def test_one_instance_entered_twice_and_from_two_threads():
    quiet = tl.no_grad()
    with quiet:
        with quiet:
            assert not tl.is_grad_enabled()
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled()
    entered = threading.Barrier(2, timeout=10)
    seen = []

    def worker():
        with quiet:
            entered.wait()  # both threads are inside the same instance at once
            seen.append(tl.is_grad_enabled())
            entered.wait()
        seen.append(tl.is_grad_enabled())

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == [False, False, True, True]
    assert tl.is_grad_enabled()


# -------------------- set_grad_enabled in every form, decorated generators
def test_set_grad_enabled_as_a_function_a_context_manager_and_a_decorator():
    x = tl.tensor([1.0], requires_grad=True)
    tl.set_grad_enabled(False)
    assert not tl.is_grad_enabled()
    tl.set_grad_enabled(True)
    with tl.set_grad_enabled(False):
        assert not tl.is_grad_enabled() and not (x * 2).requires_grad
        with tl.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled()

    @tl.set_grad_enabled(False)
    def quiet(t):
        return t * 2

    assert tl.is_grad_enabled()  # decorating does not change the mode
    assert not quiet(x).requires_grad and tl.is_grad_enabled()


@pytest.mark.parametrize("mode", [tl.no_grad, tl.enable_grad])
def test_a_decorated_generator_runs_each_step_in_its_mode(mode):
    x = tl.tensor([1.0], requires_grad=True)

    @mode()
    def steps():
        for _ in range(2):
            yield tl.is_grad_enabled(), (x * 2).requires_grad

    outside = not mode.mode
    with tl.set_grad_enabled(outside):
        seen = list(steps())
        assert tl.is_grad_enabled() is outside
    assert seen == [(mode.mode, mode.mode)] * 2
