"""`torchlight.compile`: record a function of Tensors once, replay it as a flat program (see `api`).

The package is the pipeline of one compiled call, a module per stage:
`api` (`compile`, the programs kept per signature) calls `record` (one
call of `fn` and its backward, recorded, observing what leaves no trace in
the graph through the engine's observation points, and through `derive` how
each tensor without History was made: a mask, an index, a factory's) and
`build` (the recording turned into step lists, its rewrites and buffer
reuse), whose result is a `program.Program` (its replay); `flat` turns
several results into a list and back, `steps` holds the records those lists
are made of, `blocking` the replay of elementwise lists a block of
elements at a time, `fusion` their fused kernels, `straight` the
replay of a list as generated straight-line code, and `small_kernels` the
loops that a warm list's elementwise runs on small arrays become.

After `import torchlight`, `torchlight.compile` is the function (this
package's `compile`, bound over the package's name); import a module of
the package with `from torchlight.compile import blocking` (not
`import torchlight.compile.blocking as blocking`, which looks the module
up as an attribute of the function, and fails).

Example:
    >>> import torchlight as tl
    >>> from torchlight.compile import Compiled
    >>> type(tl.compile(lambda x: x.sum())) is Compiled
    True
"""

from __future__ import annotations

from torchlight.compile.api import Compiled, CompileError, compile  # noqa: A004 (torch.compile's name)

__all__ = ["CompileError", "Compiled", "compile"]
