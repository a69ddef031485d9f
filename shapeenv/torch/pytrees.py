"""Objects registered as torch pytree nodes (transformers' ``DynamicCache``, ...) as inputs and outputs of a trace.

``torch.export`` takes and returns any type registered with
``torch.utils._pytree.register_pytree_node``: an input is flattened into its children (its
tensors become inputs, each with a ``dynamic_shapes`` entry in the children's structure),
and an output into its leaves. This module does the same for ``shapeenv.torch``:

* :func:`flatten_inputs` replaces each registered object among the example inputs by the
  list of its children (recursively), which :func:`shapeenv.export.export` traces like any list,
  and returns a :class:`Template` of what it replaced; inside the trace,
  :meth:`Template.rebuild` calls the type's ``unflatten`` on the traced children, so the
  model receives a ``DynamicCache`` of traced tensors, as under torch.export;
* :func:`flatten_output` turns each registered object among the traced outputs into the list
  of its children; :func:`holder_of` finds an unregistered object that holds tensors
  (:func:`refuse_opaque_inputs`; torch.export refuses those too).

Note [Which pytree nodes are flattened here]
    Lists, tuples (named ones too), dicts and their subclasses are containers
    :func:`shapeenv.export.export` already walks, so only the other registered types are
    flattened here (a ``ModelOutput`` is a dict). The registry is torch's own: a type is
    flattened exactly when torch.export would flatten it, e.g. ``DynamicCache`` after
    ``transformers.integrations.executorch.register_dynamic_cache_export_support()``.

>>> import torch
>>> flatten_inputs(([torch.zeros(2)], {"n": 3}))[1].empty
True
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch.utils._pytree as pytree

from ..errors import TorchInteropError

__all__ = ["Template", "plain_leaves", "flatten_inputs", "flatten_output", "holder_of", "is_custom_node", "refuse_opaque_inputs",
           "REGISTER_FIX"]

_LEAVES = (torch.Tensor, int, float, str, type(None))

#: How to make an object's tensors inputs or outputs (the fix of the errors below).
REGISTER_FIX = ("register its type with torch.utils._pytree.register_pytree_node (for transformers' DynamicCache: "
                "transformers.integrations.executorch.register_dynamic_cache_export_support())")


def is_custom_node(value: Any) -> bool:
    """Whether ``value`` is of a type registered as a torch pytree node other than the plain containers.

    >>> is_custom_node([1]), is_custom_node({"a": 1})
    (False, False)
    """
    return type(value) in pytree.SUPPORTED_NODES and not isinstance(value, (list, tuple, dict, collections.deque))


@dataclass(frozen=True, slots=True)
class _Node:
    """A registered object replaced by its children: its type and its flatten context."""

    kind: type
    context: Any


@dataclass(frozen=True, slots=True)
class Template:
    """Where :func:`flatten_inputs` replaced registered objects: ``(path, node)`` pairs, outermost first.

    A path is a tuple of keys from the ``(args, kwargs)`` pair down to the replaced value.
    """

    nodes: tuple

    @property
    def empty(self) -> bool:
        """Nothing was replaced."""
        return not self.nodes

    def rebuild(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """``(args, kwargs)`` with each replaced object built again from its (traced) children."""
        if self.empty:
            return args, kwargs
        nodes = dict(self.nodes)

        def walk(v: Any, path: tuple) -> Any:
            if isinstance(v, list):
                v = [walk(c, path + (i,)) for i, c in enumerate(v)]
            elif isinstance(v, tuple) and not hasattr(v, "_fields"):
                v = tuple(walk(c, path + (i,)) for i, c in enumerate(v))
            elif isinstance(v, dict):
                v = {k: walk(c, path + (k,)) for k, c in v.items()}
            node = nodes.get(path)
            return v if node is None else pytree.SUPPORTED_NODES[node.kind].unflatten_fn(list(v), node.context)

        return tuple(walk(a, (0, i)) for i, a in enumerate(args)), {k: walk(v, (1, k)) for k, v in kwargs.items()}


def plain_leaves(args: tuple, kwargs: dict) -> bool:
    """Whether every input is a tensor, a number, a string or None (nothing to flatten or refuse: the fast path).

    >>> plain_leaves((1, "a"), {"b": None}), plain_leaves(([1],), {})
    (True, False)
    """
    for v in args:
        if not isinstance(v, _LEAVES):
            return False
    for v in kwargs.values():
        if not isinstance(v, _LEAVES):
            return False
    return True


def flatten_inputs(value: tuple[tuple, dict]) -> tuple[tuple[tuple, dict], Template]:
    """``(args, kwargs)`` with each registered object replaced by the list of its children, and the template."""
    nodes: list = []

    def walk(v: Any, path: tuple) -> Any:
        if is_custom_node(v):
            children, context = pytree.SUPPORTED_NODES[type(v)].flatten_fn(v)
            nodes.append((path, _Node(type(v), context)))
            return [walk(c, path + (i,)) for i, c in enumerate(children)]
        if isinstance(v, list):
            return [walk(c, path + (i,)) for i, c in enumerate(v)]
        if isinstance(v, tuple) and not hasattr(v, "_fields"):
            return tuple(walk(c, path + (i,)) for i, c in enumerate(v))
        if isinstance(v, dict):
            return {k: walk(c, path + (k,)) for k, c in v.items()}
        return v

    args, kwargs = value
    flat_args = tuple(walk(a, (0, i)) for i, a in enumerate(args))
    flat_kwargs = {k: walk(v, (1, k)) for k, v in kwargs.items()}
    return (flat_args, flat_kwargs), Template(tuple(nodes))


def flatten_output(value: Any) -> Any:
    """Outputs with each registered object replaced by the list of its children (recursively).

    Lists stay lists, named tuples keep their type, other tuples and dicts become plain ones.

    >>> flatten_output({"a": (1, [2])})
    {'a': (1, [2])}
    """
    if is_custom_node(value):
        children, _ = pytree.SUPPORTED_NODES[type(value)].flatten_fn(value)
        return [flatten_output(c) for c in children]
    if isinstance(value, list):
        return [flatten_output(c) for c in value]
    if isinstance(value, tuple):
        items = [flatten_output(c) for c in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, dict):
        return {k: flatten_output(c) for k, c in value.items()}
    return value


def holder_of(value: Any, is_traced: Callable[[Any], bool], depth: int = 4) -> Any:
    """An object (not a plain container) among ``value`` whose attributes hold a value ``is_traced`` picks, or None.

    Looks ``depth`` levels into attributes, lists, tuples and dicts.

    >>> class Box:
    ...     def __init__(self, x): self.x = x
    >>> type(holder_of([Box([7])], lambda v: v == 7)).__name__
    'Box'
    """

    def holds(v: Any, d: int) -> bool:
        if is_traced(v):
            return True
        if d == 0:
            return False
        if isinstance(v, (list, tuple)):
            return any(holds(c, d - 1) for c in v)
        if isinstance(v, dict):
            return any(holds(c, d - 1) for c in v.values())
        attrs = getattr(v, "__dict__", None)
        return isinstance(attrs, dict) and any(holds(c, d - 1) for c in attrs.values())

    def find(v: Any) -> Any:
        if is_traced(v):
            return None  # a leaf is not a holder (a tensor's own attributes are not looked into)
        if isinstance(v, (list, tuple)):
            return next((h for h in map(find, v) if h is not None), None)
        if isinstance(v, dict):
            return next((h for h in map(find, v.values()) if h is not None), None)
        attrs = getattr(v, "__dict__", None)
        if isinstance(attrs, dict) and not isinstance(v, type) and any(holds(c, depth - 1) for c in attrs.values()):
            return v
        return None

    return find(value)


def refuse_opaque_inputs(name: str, flat: Any) -> None:
    """Raise if flattened inputs still hold an object with tensors inside (a trace would write into it).

    Raises:
        TorchInteropError: names the object's type and how to register it.

    >>> import torch
    >>> refuse_opaque_inputs("f", ((torch.zeros(2), [1]), {}))
    """
    holder = holder_of(flat, lambda v: isinstance(v, torch.Tensor))
    if holder is not None:
        kind = type(holder)
        raise TorchInteropError(
            f"{name}: an input is a {kind.__module__}.{kind.__qualname__} holding tensors, which is not a registered "
            "pytree node: its tensors cannot become inputs of the trace (torch.export refuses it too), and the "
            "trace would write traced tensors into it", fix=REGISTER_FIX)
