"""Applying an op: its shape rule with graph recording and provenance, or its eager kernel on real arrays.

:func:`call` runs the rule of an op name (:mod:`shapeenv.ops.registry`) inside
``env.operation(name)`` (so any guard it records names the op) and, while a graph is being
traced, appends one node for the call. Outside a trace, on real arrays, it runs the op's
eager kernel instead.

What is running now, for ops that get no tensor to ask: the ShapeEnv being traced, or eager
execution. Most ops find their environment on an argument (a fake tensor, a SymInt). Creation
ops with plain-int sizes (``ops.zeros(B, H)`` where ``B`` and ``H`` are ints) have none, so
they ask :func:`current`:

* inside ``env.tracing(graph)`` (``export``, ``compile``, the torch frontend) the innermost
  traced environment: the new tensor belongs to the trace and is recorded in its graph;
* inside an eager run of a compiled function (:func:`shapeenv.backends.eager.wrap_call`) the
  wrapper class: the op runs its numpy kernel and returns a wrapped real array;
* otherwise nothing: the tensor is *detached* (``env`` is None). Its sizes are plain ints, so
  it is valid in any environment, and the first op that meets it with a tensor of an
  environment adopts it there (see Note [Detached tensors] in :func:`call`).

That state is a :class:`contextvars.ContextVar` holding a tuple (a stack), so threads and
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

from shapeenv.errors import ShapeEnvError, ShapeError
from shapeenv.core.messages import annotate
from shapeenv.ops.registry import eager_kernel_of, has_eager_loaders, load_eager_kernels, registered, rule_of

__all__ = ["call", "env_of", "is_tensor", "describe", "graph_arg", "activated", "current", "current_env", "current_eager"]

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


def _has_real_array(values: Any) -> bool:
    return any(hasattr(v, "shape") and hasattr(v, "dtype") and not is_tensor(v) for v in _walk(values))


def _wrapper_type(values: Any) -> type | None:
    """The class of the first eager tensor wrapper (``_is_eager_tensor``) among ``values``, if any."""
    for v in _walk(values):
        if getattr(v, "_is_eager_tensor", False):
            return type(v)
    return None


def _unwrap(value: Any) -> Any:
    if getattr(value, "_is_eager_tensor", False):
        return value.array
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _rewrap(value: Any, wrapper: type) -> Any:
    """Kernel results (arrays, nested in tuples/lists) wrapped again, so methods chain: ``x.t().contiguous()``."""
    if hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "strides"):
        return wrapper(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_rewrap(v, wrapper) for v in value)
    return value


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a fake tensor (duck-typed to keep this module below the tensor class)."""
    return getattr(value, "_is_fake_tensor", False)


def _walk(value: Any):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    else:
        yield value


def env_of(*values: Any):
    """The ShapeEnv of the first fake tensor (or symbolic value) found in ``values`` (nested), else None."""
    for value in _walk(values):
        if is_tensor(value):
            if value.env is not None:  # a detached tensor (plain-int sizes, no environment) has none to offer
                return value.env
            continue
        node = getattr(value, "node", None)
        if node is not None and getattr(node, "env", None) is not None:
            return node.env
    return None


def describe(value: Any) -> str:
    """A short description of a value for graph listings: ``f32[s0, 4]``, ``s0 + 1``, ``(f32[2], f32[3])``."""
    if is_tensor(value):
        return f"{value.dtype.short}[{', '.join(str(d) for d in value.shape)}]"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value)
        return f"({inner})"
    return str(value)


def graph_arg(graph, value: Any) -> Any:
    """``value`` as a graph argument: tensors become nodes (captured if they come from outside)."""
    if is_tensor(value):
        node = graph.node_of(value)
        return node if node is not None else graph.capture(value, describe(value), "const" if graph.is_root else "captured")
    if isinstance(value, list):
        return [graph_arg(graph, v) for v in value]
    if isinstance(value, tuple):
        return tuple(graph_arg(graph, v) for v in value)
    if isinstance(value, dict):
        return {k: graph_arg(graph, v) for k, v in value.items()}
    return value


def _adopt(values: Any, env) -> None:
    """Move the detached fake tensors among ``values`` into ``env`` (see Note [Detached tensors])."""
    for value in _walk(values):
        if is_tensor(value) and value.env is None:
            value.env = env


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Apply the shape rule of ``name`` and record it in the graph being traced, if any.

    Note [Detached tensors]
        A creation op with plain-int sizes and no ``env=`` outside any trace makes a *detached*
        tensor (``env`` None; see :mod:`shapeenv.ops.dispatch`). Its sizes are ints, valid in every
        environment, so the first op that meets it together with a tensor (or SymInt) of an
        environment, or inside a trace, moves it there before the rule runs; ops on detached
        tensors alone give detached results. This is sound because nothing about a detached
        tensor is symbolic: adopting it records nothing and changes no decision.

    Raises:
        ShapeError: no rule is registered for ``name`` (the message lists the known ops),
            or the rule rejects its inputs.
    """
    fn = rule_of(name)
    if fn is None:
        raise ShapeError(f"no shape rule for op {name!r}; known ops: {', '.join(registered())}")
    env = env_of(args, kwargs)
    if env is None and kwargs.get("env") is not None:  # creation ops with plain-int sizes
        env = kwargs["env"]
    if env is None:
        running = current_eager()
        if has_eager_loaders() and (running is not None or _has_real_array((args, kwargs))):
            load_eager_kernels()
        eager = eager_kernel_of(name)
        if eager is not None and (_has_real_array((args, kwargs)) or running is not None):
            wrapper = _wrapper_type((args, kwargs)) or running
            if wrapper is None:
                return eager(*args, **kwargs)
            return _rewrap(eager(*_unwrap(args), **_unwrap(kwargs)), wrapper)
        env = current_env()
        if env is None:  # detached tensors only (see Note [Detached tensors])
            return fn(*args, **kwargs)
    _adopt((args, kwargs), env)
    with env.operation(name):
        try:
            result = fn(*args, **kwargs)
        except ShapeEnvError as e:  # word it in the user's terms: their names for the inputs, sources of symbols
            annotate(e, env, args, kwargs)
            raise
    graph = env.current_graph()
    if graph is not None:
        node = graph.call(name, graph_arg(graph, args), graph_arg(graph, kwargs), describe(result), result)
        if isinstance(result, (tuple, list)):
            for i, item in enumerate(result):
                if is_tensor(item):
                    graph.call("getitem", (node, i), {}, describe(item), item)
    return result
