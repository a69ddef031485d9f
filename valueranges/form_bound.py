"""Gone: the bounds of forms are :mod:`valueranges.bound` (Note [Forwarding modules] in :mod:`symint.boolform`).

>>> from valueranges.form_bound import bound_form
>>> from symint.form import sym
>>> bound_form(sym("x"), {"x": (0, 3)}, {})
(0, 3)
"""

from .bound import Bound, bound_atom, bound_form, interval_mul, mono_bound

__all__ = ["bound_form", "bound_atom", "mono_bound", "Bound", "interval_mul"]
