"""`python -m torchlight`: the version, Python, each backend (usable or why not), BLAS."""

from __future__ import annotations

import torchlight
from torchlight.backends.report import report

if __name__ == "__main__":
    print(report(version=torchlight.__version__))
