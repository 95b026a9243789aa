"""`torchlight.array_api.special`: special functions with scipy.special's names and signatures, for
scipy's array-API dispatch (it looks up `xp.special.<name>` on the namespace first)."""

from __future__ import annotations

__all__: list[str] = []
