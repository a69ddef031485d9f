"""Errors and warnings of the persistent stores (:mod:`shapeenv.stores`).

Each error subclasses :class:`StoreError` (itself a :class:`~shapeenv.errors.ShapeEnvError`) and the
built-in it resembles. A store that cannot be reached is not an error of the compiled function: it
warns once (:class:`StoreUnavailableWarning`) and the function goes on with its in-process cache.

>>> issubclass(StoreFormatError, ValueError), issubclass(StoreUnavailableWarning, UserWarning)
(True, True)
"""

from __future__ import annotations

from ..errors import ShapeEnvError

__all__ = ["StoreError", "StoreFormatError", "StoreConfigError", "StoreUnavailableWarning", "NotStorableWarning",
           "DamagedEntryWarning", "StoreReadOnlyError"]


class StoreError(ShapeEnvError):
    """Base class of the store errors."""


class StoreFormatError(StoreError, ValueError):
    """A stored entry is not in the format this version reads (it is skipped, never used)."""


class StoreConfigError(StoreError, ValueError):
    """A store was configured wrongly (a bad path, URL or size limit); the message says what to change."""


class StoreReadOnlyError(StoreError, PermissionError):
    """A store this process may only read was asked to save (compiled functions only warn: saves stop)."""


class StoreUnavailableWarning(UserWarning):
    """The store could not be read or written: the compiled function goes on with its in-process cache only."""


class NotStorableWarning(UserWarning):
    """A compiled function's entries cannot be stored (its fingerprint or artifacts have no stable form)."""


class DamagedEntryWarning(UserWarning):
    """A stored entry did not decode or verify (damaged, tampered with, another version's): it is skipped and traced again."""
