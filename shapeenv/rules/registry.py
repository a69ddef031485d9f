"""The op registry: one shape rule per op name, applied with graph recording and provenance.

A rule is a plain function from fake values to fake values that validates its
inputs and computes output shapes. :func:`call` runs it inside
``env.operation(name)`` (so any guard it records names the op) and, while a graph
is being traced, appends one node for the call.

>>> from shapeenv.rules.registry import registered
>>> "add" in registered()
True
"""

from __future__ import annotations

from typing import Any, Callable

from ..active import current_eager, current_env
from ..errors import ShapeEnvError, ShapeEnvValueError, ShapeError
from ..core.messages import annotate

__all__ = ["rule", "call", "registered", "eager_kernel", "env_of", "is_tensor", "describe"]

Rule = Callable[..., Any]
_RULES: dict[str, Rule] = {}  # filled once, at import time, by the @rule decorators of shapeenv.rules.*
_EAGER: dict[str, Callable[..., Any]] = {}  # filled by shapeenv.backends when it is imported (real arrays)
#: Called once, the first time real arrays reach an op: imports shapeenv.backends (so numpy is
#: imported only by programs that use it). Set by ``shapeenv/__init__``.
_EAGER_LOADERS: list[Callable[[], None]] = []


def load_eager_kernels() -> None:
    """Import the eager kernels now if they are not loaded yet (a no-op without numpy)."""
    while _EAGER_LOADERS:
        _EAGER_LOADERS.pop()()


def on_first_eager_use(loader: Callable[[], None]) -> None:
    """Run ``loader`` the first time an op is called on real arrays (it registers the eager kernels)."""
    _EAGER_LOADERS.append(loader)


def rule(name: str) -> Callable[[Rule], Rule]:
    """Register ``fn`` as the shape rule of op ``name`` (each name once)."""

    def register(fn: Rule) -> Rule:
        if name in _RULES:
            raise ShapeEnvValueError(f"op {name!r} already has a shape rule ({_RULES[name].__module__})", fix="register the rule under another name")
        _RULES[name] = fn
        return fn

    return register


def eager_kernel(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the kernel that runs op ``name`` on real arrays when it is called outside a trace.

    This is what lets a function written with :mod:`shapeenv.ops` run eagerly on numpy
    arrays (``compile``'s eager stances, the first call of ``eager_then_compile``).
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        _EAGER.setdefault(name, fn)
        return fn

    return register


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


def registered() -> tuple[str, ...]:
    """The names of all ops with a shape rule, sorted."""
    return tuple(sorted(_RULES))


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
        short = {"float": "f", "int": "i", "bool": "b"}[value.dtype.kind]
        prefix = "b8" if value.dtype.kind == "bool" else f"{short}{value.dtype.bits}"
        if value.dtype.name == "bfloat16":
            prefix = "bf16"
        return f"{prefix}[{', '.join(str(d) for d in value.shape)}]"
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
        tensor (``env`` None; see :mod:`shapeenv.active`). Its sizes are ints, valid in every
        environment, so the first op that meets it together with a tensor (or SymInt) of an
        environment, or inside a trace, moves it there before the rule runs; ops on detached
        tensors alone give detached results. This is sound because nothing about a detached
        tensor is symbolic: adopting it records nothing and changes no decision.

    Raises:
        ShapeError: no rule is registered for ``name`` (the message lists the known ops),
            or the rule rejects its inputs.
    """
    fn = _RULES.get(name)
    if fn is None:
        raise ShapeError(f"no shape rule for op {name!r}; known ops: {', '.join(registered())}")
    env = env_of(args, kwargs)
    if env is None and kwargs.get("env") is not None:  # creation ops with plain-int sizes
        env = kwargs["env"]
    if env is None:
        running = current_eager()
        if _EAGER_LOADERS and (running is not None or _has_real_array((args, kwargs))):
            load_eager_kernels()
        eager = _EAGER.get(name)
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
