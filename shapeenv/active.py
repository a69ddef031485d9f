"""What is running now, for ops that get no tensor to ask: the ShapeEnv being traced, or eager execution.

Most ops find their environment on an argument (a fake tensor, a SymInt). Creation ops with
plain-int sizes (``ops.zeros(B, H)`` where ``B`` and ``H`` are ints) have none, so they ask here:

* inside ``env.tracing(graph)`` (``export``, ``compile``, the torch frontend) the innermost
  traced environment: the new tensor belongs to the trace and is recorded in its graph;
* inside an eager run of a compiled function (:func:`shapeenv.backends.eager.wrap_call`) the
  wrapper class: the op runs its numpy kernel and returns a wrapped real array;
* otherwise nothing: the tensor is *detached* (``env`` is None). Its sizes are plain ints, so
  it is valid in any environment, and the first op that meets it with a tensor of an
  environment adopts it there (:func:`shapeenv.rules.registry.call`).

The state is a :class:`contextvars.ContextVar` holding a tuple (a stack), so threads and
asyncio tasks each see their own, and nothing is global.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> with activated(env):
...     current() is env
True
>>> current() is None
True
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator

__all__ = ["activated", "current", "current_env", "current_eager"]

_STACK: contextvars.ContextVar[tuple] = contextvars.ContextVar("shapeenv_active", default=())


@contextlib.contextmanager
def activated(what: Any) -> Iterator[Any]:
    """Make ``what`` (a ShapeEnv being traced, or an eager wrapper class) the innermost active context."""
    token = _STACK.set(_STACK.get() + (what,))
    try:
        yield what
    finally:
        _STACK.reset(token)


def current() -> Any:
    """The innermost active context, or None."""
    stack = _STACK.get()
    return stack[-1] if stack else None


def current_env() -> Any:
    """The innermost active context if it is a ShapeEnv (anything with ``current_graph``), else None."""
    top = current()
    return top if top is not None and hasattr(top, "current_graph") else None


def current_eager() -> type | None:
    """The eager wrapper class if the innermost active context is an eager run, else None."""
    top = current()
    return top if isinstance(top, type) and getattr(top, "_is_eager_tensor", False) else None
