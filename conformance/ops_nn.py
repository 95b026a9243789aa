"""The `torchlight.nn.functional` ops of the database (filled by the nn area).

Add one `OpInfo` per public function of `torchlight.nn.functional` to `OPS`;
`conformance.database` collects this list with the core one in `ops.py`, and
the coverage test asks for an entry for every name in that module's
`__all__`. Give `function` as "nn.functional.<name>" so coverage finds it.
An entry, for example:

    import numpy as np
    from torchlight.nn import functional as nnF
    from conformance import domains as D
    from conformance.opinfo import Case, OpInfo

    OPS.append(OpInfo(
        "nn.functional.softplus",               # the row name in reports
        lambda x: nnF.softplus(x),              # the call, on Tensors
        lambda x: np.logaddexp(0.0, x),         # float64 NumPy reference
        (Case("1d", ((5,),)),                   # shapes per Tensor input
         Case("batched", ((2, 3, 4),)),
         Case("large", ((3,),), domain=D.fixed([-50.0, 0.0, 50.0]))),
        domain=D.normal,                        # where inputs are drawn
        function="nn.functional.softplus",
    ))

Case kwargs are passed to the call and the reference alike (axes, targets
given as NumPy arrays); `raises=ValueError, match="..."` makes a bad-input
case; `Tol(reason, atol=..., rtol=...)` overrides a check's tolerance.
"""

from __future__ import annotations

from conformance.opinfo import OpInfo

OPS: list[OpInfo] = []
