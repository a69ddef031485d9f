"""Gone: moved to :mod:`symint.form.transform` (Note [Forwarding modules] in :mod:`symint.boolform`).

>>> from symint.form_transform import transform
>>> from symint.form import sym
>>> transform(sym("x"), lambda a: None, {}) is sym("x")
True
"""

from .form.transform import rebuild_atom, transform

__all__ = ["transform", "rebuild_atom"]
