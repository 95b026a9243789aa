"""torchlight compiled: the eager peer's losses, each through `tl.compile`, recorded once per process.

The loss of each workload is the very function the eager torchlight peer
runs (`torchlight_peer.LOSSES`: for W2 the whole loss, cross-entropy
included, with the SGD update outside it, as in the eager step). It is
compiled once per workload and backend and kept here, so that every case
made later, for the agreement check, the timing rounds and the memory run,
replays the recorded program instead of recording again. The first runs of
the first case made are the recording (its graph and backward traced, then
replayed once) and the replays up to the one that makes its small-array
kernels (`tl.compile(..., kernels=True)`: what a long training loop reaches,
`torchlight.compile.small_kernels`): they are timed alone, into
`RECORDING`, since a user pays them once per process (as JAX's peer pays its
compiling in its warm-up), and the report shows them beside the replays.

Example:
    >>> from bench.peers import Env
    >>> from bench.peers.compiled_peer import RECORDING, make
    >>> from bench.workloads import w1_data
    >>> sorted(make("W1", w1_data(), Env()).grads())
    ['b', 'w', 'x']
    >>> RECORDING[("W1", "numpy")] > 0
    True
"""

from __future__ import annotations

import time

import torchlight as tl
from bench.peers import Case, Env, torchlight_peer
from torchlight.compile import fusion, straight
from torchlight.compile.api import Compiled

_COMPILED: dict[tuple[str, str, bool], Compiled] = {}
#: (workload, backend) -> seconds of the first run: recording, then one replay (the fused one's)
RECORDING: dict[tuple[str, str], float] = {}


def compiled(key: str, backend: str, fused: bool = True) -> Compiled:
    """`tl.compile` of workload `key`'s loss: made on the first request, the same object after
    (`fused=False`: another one, whose programs are recorded without fused kernels)."""
    fn = _COMPILED.get((key, backend, fused))
    if fn is None:
        fn = _COMPILED[(key, backend, fused)] = tl.compile(torchlight_peer.LOSSES[key], kernels=fused)
    return fn


def make(key: str, data: dict, env: Env, fused: bool = True) -> Case:
    """The compiled torchlight case of workload `key` (W5 on 0-d tensors; no W4: Values are not Tensors).

    The first case made for `key` and `env.backend` runs here until its
    program's lists have made their kernels (`straight.WARM` + 1 runs after
    the recording), timed into `RECORDING` (a CompileError, if the loss
    cannot be compiled, is raised from here). With `fused=False` its program
    is recorded with fusion off (`torchlight.compile.fusion.ENABLED`) and
    makes no kernels, to show what the fused kernels gain.
    """
    fn = compiled(key, env.backend, fused)
    case = torchlight_peer.make(key, data, env, loss=fn)
    if not fn.programs:
        before, fusion.ENABLED = fusion.ENABLED, fused
        try:
            start = time.perf_counter()
            for _ in range(straight.WARM + 2):  # (the recording, then the replays up to the kernels)
                case.run()
            env.sync()
            seconds = time.perf_counter() - start
        finally:
            fusion.ENABLED = before
        if fused:
            RECORDING[(key, env.backend)] = seconds
    return case


def make_unfused(key: str, data: dict, env: Env) -> Case:
    """`make(..., fused=False)`, or a RuntimeError where nothing would be fused anyway."""
    if fusion.kernel_maker(tl.backends.get(env.backend)) is None:
        raise RuntimeError("no fused kernels to compare with: pip install numba (NumPy's kernel library)")
    return make(key, data, env, fused=False)
