"""Pytrees for the higher-order ops: nested tuples, lists and dicts whose other values are leaves.

``None`` is a leaf (the HOPs check where it may stand), so are tensors, ints
and SymInts. A :class:`TreeSpec` records the containers; :func:`flatten` and
:func:`unflatten` convert between a tree and ``(leaves, spec)``; leaf paths
print like torch's ``keystr`` (``[1]['h']``).

>>> leaves, spec = flatten((1, {"h": 2, "c": None}))
>>> leaves, unflatten([10, 20, 30], spec)
([1, 2, None], (10, {'h': 20, 'c': 30}))
>>> paths(spec), structure_diff(spec, flatten((1, [2, 3]))[1])
(['[0]', "[1]['h']", "[1]['c']"], "at [1]: here has a dict with keys ['h', 'c'], there has a list of 2")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..errors import HigherOrderOpError

__all__ = ["TreeSpec", "flatten", "unflatten", "paths", "leaf_items", "tree_map", "any_leaf", "structure_diff"]


@dataclass(frozen=True, slots=True)
class TreeSpec:
    """The container structure of a pytree; ``kind is None`` marks a leaf.

    Attributes:
        kind: ``tuple``, ``list``, ``dict``, a namedtuple class, or None for a leaf.
        keys: the dict keys in order (empty for sequences and leaves).
        children: one spec per child.
    """

    kind: type | None
    keys: tuple = ()
    children: tuple["TreeSpec", ...] = ()

    @property
    def is_leaf(self) -> bool:
        """Whether this spec is a single leaf."""
        return self.kind is None

    @property
    def num_leaves(self) -> int:
        """How many leaves the tree has."""
        return 1 if self.kind is None else sum(c.num_leaves for c in self.children)

    def describe(self) -> str:
        """A short description of the top container, for error messages."""
        if self.kind is None:
            return "a leaf"
        if self.kind is dict:
            return f"a dict with keys {list(self.keys)}"
        return f"a {self.kind.__name__} of {len(self.children)}"


_LEAF = TreeSpec(None)


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """``(leaves, spec)`` of ``tree``: leaves in depth-first order (dicts in insertion order)."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> TreeSpec:
    if isinstance(tree, dict):
        return TreeSpec(dict, tuple(tree), tuple(_flatten(v, leaves) for v in tree.values()))
    if isinstance(tree, (list, tuple)):
        kind = type(tree) if _is_namedtuple(tree) else (list if isinstance(tree, list) else tuple)
        return TreeSpec(kind, (), tuple(_flatten(v, leaves) for v in tree))
    leaves.append(tree)
    return _LEAF


def unflatten(leaves: list[Any], spec: TreeSpec) -> Any:
    """The tree of ``spec`` with ``leaves`` in place of its leaves.

    Raises:
        HigherOrderOpError: the number of leaves does not match the spec (a ``ValueError``).
    """
    if len(leaves) != spec.num_leaves:
        raise HigherOrderOpError(f"expected {spec.num_leaves} leaves, got {len(leaves)}",
                                 fix="pass one leaf per leaf of the structure that flatten() returned")
    it = iter(leaves)
    return _build(spec, it)


def _build(spec: TreeSpec, it: Iterator[Any]) -> Any:
    if spec.kind is None:
        return next(it)
    children = [_build(c, it) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.keys, children))
    if spec.kind is list:
        return children
    if spec.kind is tuple:
        return tuple(children)
    return spec.kind(*children)  # a namedtuple


def paths(spec: TreeSpec, prefix: str = "") -> list[str]:
    """The path of each leaf, like torch's ``keystr``: ``[0]``, ``['h']``; the root leaf is ``''``."""
    if spec.kind is None:
        return [prefix]
    out: list[str] = []
    labels = [repr(k) for k in spec.keys] if spec.kind is dict else [str(i) for i in range(len(spec.children))]
    for label, child in zip(labels, spec.children):
        out += paths(child, f"{prefix}[{label}]")
    return out


def leaf_items(tree: Any) -> list[tuple[str, Any]]:
    """``(path, leaf)`` pairs of ``tree``.

    >>> leaf_items({"a": [1, 2]})
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    leaves, spec = flatten(tree)
    return list(zip(paths(spec), leaves))


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with ``fn`` applied to every leaf (``unflatten`` of the mapped ``flatten``, in one walk).

    >>> tree_map(lambda v: v * 10, (1, {"h": [2, 3]}))
    (10, {'h': [20, 30]})
    """
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [tree_map(fn, v) for v in tree]
    if isinstance(tree, tuple):
        mapped = [tree_map(fn, v) for v in tree]
        return type(tree)(*mapped) if _is_namedtuple(tree) else tuple(mapped)
    return fn(tree)


def any_leaf(pred: Callable[[Any], bool], tree: Any) -> bool:
    """Whether ``pred`` holds for some leaf of ``tree`` (it stops at the first that does).

    >>> any_leaf(lambda v: v is None, [1, {"h": (2, None)}]), any_leaf(lambda v: v is None, (1, [2]))
    (True, False)
    """
    if isinstance(tree, dict):
        return any(any_leaf(pred, v) for v in tree.values())
    if isinstance(tree, (list, tuple)):
        return any(any_leaf(pred, v) for v in tree)
    return pred(tree)


def structure_diff(a: TreeSpec, b: TreeSpec, a_name: str = "here", b_name: str = "there",
                   prefix: str = "") -> str | None:
    """Where two structures first differ, in words naming ``a`` and ``b``, or None if they are equal.

    >>> structure_diff(flatten([1])[1], flatten((1,))[1], "init", "next_carry")
    'at the top level: init has a list of 1, next_carry has a tuple of 1'
    """
    same_kind = a.kind is b.kind and a.keys == b.keys and len(a.children) == len(b.children)
    if not same_kind:
        where = prefix or "the top level"
        return f"at {where}: {a_name} has {a.describe()}, {b_name} has {b.describe()}"
    labels = [repr(k) for k in a.keys] if a.kind is dict else [str(i) for i in range(len(a.children))]
    for label, ca, cb in zip(labels, a.children, b.children):
        diff = structure_diff(ca, cb, a_name, b_name, f"{prefix}[{label}]")
        if diff is not None:
            return diff
    return None
