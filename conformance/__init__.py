"""The conformance suite: one op database, the same gradient checks on every backend.

`python -m conformance --backend numpy --device cpu` runs every case of every
op in `conformance.database` (forward against a float64 NumPy reference,
backward against central differences, double backward, gradient metadata,
no mutation, agreement with the NumPy backend, bad-input errors) and ends
with `N passed, N failed, N skipped`; `pytest conformance --backend=cupy`
runs the same cases as tests. See docs/conformance.md.

Example:
    >>> from conformance import database
    >>> len(database.all_ops()) > 50
    True
"""
