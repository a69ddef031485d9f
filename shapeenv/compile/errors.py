"""Errors and warnings of compiled functions.

>>> issubclass(RecompileError, RuntimeError), issubclass(RecompileLimitWarning, UserWarning)
(True, True)
"""

from __future__ import annotations

from ..errors import ShapeEnvError

__all__ = ["RecompileError", "RecompileLimitWarning", "UnguardedReadWarning"]


class RecompileError(ShapeEnvError, RuntimeError):
    """A compiled function would recompile under the ``fail_on_recompile`` stance.

    Attributes:
        function: the compiled function's name.
        reason: why no cached entry accepts the inputs (the first failing guard of each entry).
    """

    def __init__(self, function: str, reason: str):
        self.function, self.reason = function, reason
        super().__init__(
            f"{function} would recompile under the stance 'fail_on_recompile': {reason}\n"
            "(mark the changing dims dynamic, or call it under set_stance('eager_on_recompile') to run eagerly)"
        )


class RecompileLimitWarning(UserWarning):
    """A compiled function reached its ``recompile_limit``: inputs no entry accepts now run eagerly."""


class UnguardedReadWarning(UserWarning):
    """A trace read a value whose state the cache cannot check (only its identity): the warning names the read.

    Mutating such a value in place is not seen by the cache; call ``reset()`` on the compiled function after
    doing so (see Note [How a read is checked] in :mod:`shapeenv.compile.reads`).
    """
