"""A trace leaves the user's objects as it found them: what it writes to their state is undone and reported.

Tracing runs the user's Python on fake values. Whatever that Python stores outside its
own frame (a cache in a module attribute, ``self.calls += 1``, an item appended to a
list, a global, a closure variable, an attribute of an argument) would otherwise keep a
traced tensor or SymInt that has no data, and break the next eager call
(``TracedTensorError``), or count the trace as a real call. :func:`preserved_state`
snapshots the state reachable from the traced function and its arguments before the
trace and, when the trace ends (returns, raises, or is interrupted), restores every
container the trace changed and warns with a :class:`~shapeenv.errors.TraceStateWarning`
that names each write, as ``torch.export`` does ("The tensor attributes
self.stages.1.attn.attention_bias_cache['cpu'] were assigned during export. Such
attributes must be registered as buffers...").

Note [What a trace snapshot covers]
    The walk starts at the traced function's ``self`` (the ``nn.Module``, for
    ``shapeenv.torch``) and at each argument, and follows instance ``__dict__`` s and
    ``__slots__``, dicts (``OrderedDict``, ``_modules``, ``_parameters``, ``_buffers``),
    lists, deques, sets and tuples. Every mutable container it reaches is copied
    shallowly (one ``dict.copy`` per ``__dict__``); comparison after the trace is by
    identity, so the cost is one pass over the reachable entries, never a deep copy or
    an ``__eq__``. Globals: the names the traced code can read or write are the
    ``co_names`` of its code objects (nested ones included) that its module defines,
    plus every name of its module the code could create; the code is the function's,
    that of the helpers of the same module it names, and the methods of every class
    whose instance the walk met (``forward`` and what it calls on ``self``). Those
    globals are recorded, and the containers they hold are walked; an object a global
    holds has its ``__dict__`` and the containers in it recorded, but the objects it holds
    are not followed (a logger would lead to every logger). Closure cells of those functions are recorded and walked like
    arguments. The walk stops after :data:`MAX_OBJECTS` objects and says so in the
    warning, should the trace have written past that point.

    The scan: after restoring, what those global objects hold (the part the snapshot did
    not record) is searched for traced values, :data:`MAX_SCANNED` objects at most. One
    found there cannot be restored; the warning names it (``"left"``, not restored), so a
    later ``TracedTensorError`` has an explanation. Everything else the walk reached holds,
    after the restore, what it held before the trace: new objects are reachable only
    through the containers that were restored.

    Not covered: a module other than the traced code's that a helper of another module
    writes, class attributes, the inside of C objects (an ``lru_cache``, an ``array``),
    and state another thread changes during the trace, which a restore would undo.

    Recorders: an object whose class sets ``__shapeenv_trace_recorder__ = True`` is left
    alone, with everything reached only through it. It is for code that observes traces on
    purpose (a harness recording the branch decisions of a trace, a trace counter).

Note [Mutations torch keeps]
    Restoring is what ``torch.export`` does (it restores every module attribute). A
    buffer updated in place (BatchNorm's running statistics in train mode) is never
    written by the trace: in-place ops on a module's tensors are mapped to the fake
    tensors that stand for them. ``shapeenv.compile`` and ``shapeenv.torch.compile`` run
    the function itself on the real inputs after tracing (unless a backend returned
    another artifact), so the writes the trace made and this module undid happen there,
    once per call and with real values, as torch's compiled code replays side effects.

>>> class Model:
...     def __init__(self):
...         self.cache = {}
...     def __call__(self, n):
...         self.cache[n] = "traced"
...         return n
>>> import warnings
>>> m = Model()
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     with preserved_state(m, (("n", 3),), "Model"):
...         _ = m(3)
>>> m.cache, [w.message.writes[0].path for w in caught]
({}, ['self.cache[3]'])
"""

from __future__ import annotations

import collections
import contextlib
import functools
import sys
import types
import warnings
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Mapping

from symint import SymBool, SymFloat, SymInt

from shapeenv.core.provenance import code_names, user_frame_object
from shapeenv.errors import TraceStateWarning
from shapeenv.ops.dispatch import describe, is_tensor

__all__ = ["preserved_state", "StateSnapshot", "StateWrite", "is_traced", "MAX_OBJECTS", "MAX_SCANNED"]

#: How many objects a snapshot records at most (Note [What a trace snapshot covers]).
MAX_OBJECTS = 200_000
#: How many objects the scan after a restore searches for traced values at most (same Note).
MAX_SCANNED = 20_000

_MISSING = object()
_SYMBOLIC = (SymInt, SymBool, SymFloat)
#: Values never walked: immutable atoms, and code or classes (state reached through them is found as globals).
_ATOMS = frozenset({
    int, float, bool, str, bytes, complex, type(None), type(...), range, slice, frozenset,
    types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.BuiltinMethodType, types.ModuleType,
    types.CodeType, types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType,
    types.GetSetDescriptorType, types.MemberDescriptorType, property, staticmethod, classmethod,
})


def is_traced(value: Any) -> bool:
    """Whether ``value`` exists only inside a trace: a fake tensor, a SymInt / SymBool / SymFloat, or a
    frontend's stand-in for one (a class marked ``_shapeenv_traced``, or torch's ``SymInt`` over such a node).

    >>> from shapeenv import ShapeEnv
    >>> is_traced(ShapeEnv().fake_tensor((2, 3))), is_traced(3)
    (True, False)
    """
    kind = type(value)
    if kind in _ATOMS:
        return False
    # class attributes only: an instance look-up would run __getattr__ (an nn.Module's builds an error message)
    if isinstance(value, _SYMBOLIC) or getattr(kind, "_is_fake_tensor", False) or getattr(kind, "_shapeenv_traced", False):
        return True
    node = getattr(value, "node", None) if kind.__module__ == "torch" else None
    return getattr(type(node), "_shapeenv_traced", False)


def _describe(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    if is_tensor(value):
        return f"a traced tensor {describe(value)}"
    kind = type(value)
    if getattr(kind, "_shapeenv_traced", False) and is_tensor(getattr(value, "fake", None)):
        return f"a traced tensor {describe(value.fake)}"
    if is_traced(value):
        return f"a traced {kind.__name__} ({value})" if isinstance(value, _SYMBOLIC) else f"a traced {kind.__name__}"
    return f"{'an' if kind.__name__[:1].lower() in 'aeiou' else 'a'} {kind.__name__}"


@dataclass(frozen=True, slots=True)
class StateWrite:
    """One write a trace made to the user's state (and that was undone).

    Attributes:
        path: where, as the user reaches it (``self.blocks.0.cache['cpu']``, ``mymodule.COUNTER``).
        what: ``"assigned"`` (a new value), ``"added"`` (a new key, attribute or global), ``"removed"``,
            ``"changed"`` (a set whose items changed), or ``"left"`` (a traced value the scan found where
            the snapshot did not record: not restored).
        value: the value the trace left there, described (``a traced tensor f32[4, 196, 196]``, ``a int``).
        traced: whether that value is a traced tensor or symbolic value (it would have broken eager calls).
        tensor: whether that value is a tensor (a traced one, or a real one the trace stored).
        restored: False when undoing it failed (then ``value`` is still there).
        kind: what was written: ``"attribute"``, ``"item"`` (of a dict, list, deque or set), ``"global"``,
            ``"closure variable"``, or what the traced function's ``attribute_dicts`` name (``"buffer"``,
            ``"parameter"``, ``"submodule"`` for torch).
    """

    path: str
    what: str
    value: str
    traced: bool
    tensor: bool
    restored: bool = True
    kind: str = "attribute"

    def __str__(self) -> str:
        tail = "" if self.restored else " (could not be restored)"
        return f"{self.path} ({self.what}: {self.value}){tail}"


#: A path as the user reaches a value: ``(parent, key, attr)``, rendered ``parent.key`` (``attr``) or
#: ``parent[key]``; a root is ``(None, label, False)``. Tuples, rendered on demand: a snapshot makes thousands
#: and reports a few.
_Path = tuple


def _render(path: _Path) -> str:
    steps = []
    while path[0] is not None:
        steps.append(f".{path[1]}" if path[2] else f"[{path[1]!r}]")
        path = path[0]
    steps.append(str(path[1]))
    return "".join(reversed(steps))


#: One recorded container: ``(how, target, saved, path, entries)``; ``entries`` says what its entries are to the
#: user (``"item"``: ``path[key]``; ``"attribute"``, ``"buffer"``, ``"global"``, ...: ``path.key``).
#: Plain tuples: a snapshot makes thousands, and a tuple is the cheapest record to build.
_Record = tuple

#: How the walk treats a type (computed once per type and snapshot, see ``_kind_of``).
_SKIP, _DICT, _LIST, _TUPLE, _DEQUE, _SET, _OBJECT = range(7)
_CONTAINERS = (_DICT, _LIST, _TUPLE, _DEQUE, _SET)
_PLAIN_MAPPINGS = frozenset({dict, collections.OrderedDict})
_NO_ITEMS: Mapping = MappingProxyType({})  # what an empty dict held (shared: it is never changed)


def _at(path: _Path, entries: str, key: Any) -> str:
    return f"{_render(path)}[{key!r}]" if entries == "item" else f"{_render(path)}.{key}"


def _kind_of(kind: type) -> tuple:
    """``(how, slots, scan)`` for a type: how to walk its instances, their slot names, whether to scan its methods."""
    if issubclass(kind, (type, BaseException, frozenset)) or getattr(kind, "__shapeenv_trace_recorder__", False) \
            or issubclass(kind, _SYMBOLIC) or getattr(kind, "_is_fake_tensor", False) or getattr(kind, "_shapeenv_traced", False) \
            or (kind.__module__ == "torch" and kind.__name__ in ("SymInt", "SymFloat", "SymBool")):
        return _SKIP, (), False  # an exception raised through the trace gets notes: not the user's state
    for base, how in ((dict, _DICT), (list, _LIST), (tuple, _TUPLE), (collections.deque, _DEQUE), (set, _SET)):
        if issubclass(kind, base):
            return how, (), False
    tensor_like = hasattr(kind, "shape") and hasattr(kind, "dtype")
    return _OBJECT, _slot_names(kind), not tensor_like and kind.__module__ != "builtins"


class StateSnapshot:
    """The state reachable from a traced function and its arguments, as it was before the trace.

    Build it with :meth:`take`; :meth:`restore` puts back every container the trace changed and
    returns the writes it undid. See Note [What a trace snapshot covers].

    Args:
        attribute_dicts: instance attributes holding dicts whose keys read as attributes, and what their
            entries are (``{"_buffers": "buffer", ...}`` for torch: ``self.stages.1.attn``, a buffer ``self.bn.running_mean``).
    """

    def __init__(self, attribute_dicts: Mapping[str, str] | None = None):
        self._attribute_dicts = dict(attribute_dicts or {})
        self._records: list[tuple] = []
        self._seen: set[int] = set()
        self._kinds: dict[type, tuple] = {}
        self._types: dict[type, None] = {}
        self._functions: dict[int, Callable] = {}
        self._globals: dict[int, tuple[dict, _Path, dict[str, None]]] = {}
        self._shallow: list[tuple[dict, _Path]] = []  # the __dict__ s recorded but not followed (objects of globals)
        self.truncated = False

    @classmethod
    def take(cls, roots: Iterable[tuple[str, Any]], functions: Iterable[Callable] = (),
             attribute_dicts: Mapping[str, str] | None = None) -> "StateSnapshot":
        """Record the state reachable from ``roots`` (``(label, object)`` pairs) and from ``functions``' globals.

        >>> state = {"calls": 0}
        >>> snap = StateSnapshot.take([("state", state)])
        >>> state["calls"] = 1
        >>> [str(w) for w in snap.restore()], state
        (["state['calls'] (assigned: an int)"], {'calls': 0})
        """
        snap = cls(attribute_dicts)
        stack: list[tuple] = [(obj, (None, label, False), True) for label, obj in reversed(list(roots))]
        pending, scanned = list(functions), 0
        while True:
            snap._walk(stack)
            kinds = list(snap._types)[scanned:]  # classes met since the last round: their methods run in the trace
            scanned += len(kinds)
            pending += [fn for kind in kinds for fn in _methods(kind)]
            if not pending:
                break
            for fn in pending:
                snap._add_function(fn, stack)  # closure cells go on the stack: walked as arguments are
            pending = []
        snap._record_globals(stack)
        snap._walk(stack)
        return snap

    # -- the walk ------------------------------------------------------------------------------------
    def _walk(self, stack: list[tuple]) -> None:
        """Record what the stack's ``(value, path, deep)`` reach; ``deep`` False: an object's ``__dict__`` and the
        containers in it, not the objects it holds (objects of globals). Atoms are never pushed."""
        seen, records, kinds = self._seen, self._records, self._kinds
        while stack:
            value, path, deep = stack.pop()
            if id(value) in seen:
                continue
            kind = type(value)
            info = kinds.get(kind)
            if info is None:
                info = kinds[kind] = _kind_of(kind)
            how = info[0]
            if how == _SKIP:
                continue
            if len(seen) >= MAX_OBJECTS:
                self.truncated = True
                stack.clear()
                return
            seen.add(id(value))
            if how == _DICT:
                records.append((_DICT, value, _raw_items(value), path, "item"))
                if value:
                    stack.extend(reversed([(v, (path, k, False), deep) for k, v in dict.items(value) if type(v) not in _ATOMS]))
            elif how == _LIST or how == _DEQUE or how == _TUPLE:
                saved = list(value)
                if how != _TUPLE:
                    records.append((how, value, saved, path, "item"))
                stack.extend(reversed([(v, (path, i, False), deep) for i, v in enumerate(saved) if type(v) not in _ATOMS]))
            elif how == _SET:
                records.append((_SET, value, set.copy(value), path, "item"))
            else:
                self._instance(value, kind, info, path, deep, stack)

    def _instance(self, value: Any, kind: type, info: tuple, path: _Path, deep: bool, stack: list) -> None:
        attrs = _instance_dict(value)
        if attrs is not None:
            self._records.append((_DICT, attrs, attrs.copy(), path, "attribute"))
            if not deep:  # an object of a global: its containers are followed, the objects it holds are not
                self._shallow.append((attrs, path))
                kinds = self._kinds
                stack.extend(reversed([(v, (path, k, True), False) for k, v in attrs.items() if type(v) not in _ATOMS
                                       and (kinds.get(type(v)) or _kind_of(type(v)))[0] in _CONTAINERS]))
            else:
                children = []
                flat, seen = self._attribute_dicts, self._seen
                for k, v in attrs.items():
                    kind_v = type(v)
                    if kind_v in _ATOMS:
                        continue
                    if not v and kind_v in _PLAIN_MAPPINGS and id(v) not in seen:
                        seen.add(id(v))  # an empty hook dict of a module: recorded without a trip through the stack
                        self._records.append((_DICT, v, _NO_ITEMS, (path, k, True), "item"))
                        continue
                    if k in flat and kind_v is dict and id(v) not in seen:
                        seen.add(id(v))  # torch's _modules / _parameters / _buffers: keys read as attributes
                        self._records.append((_DICT, v, v.copy(), path, flat[k]))
                        children += [(x, (path, n, True), True) for n, x in v.items() if type(x) not in _ATOMS]
                    else:
                        children.append((v, (path, k, True), True))
                stack.extend(reversed(children))
        slots = info[1]
        if slots:
            saved = tuple(_get_slot(value, n) for n in slots)
            self._records.append((_OBJECT, value, (slots, saved), path, "attribute"))
            if deep:
                stack.extend(reversed([(v, (path, n, True), True) for n, v in zip(slots, saved)
                                       if v is not _MISSING and type(v) not in _ATOMS]))
        if deep and info[2]:
            self._types.setdefault(kind)

    def _add_function(self, fn: Any, stack: list) -> None:
        """Record ``fn``'s closure cells and the globals its code names (and those of the helpers it names)."""
        fn = getattr(fn, "__func__", fn)
        if not isinstance(fn, types.FunctionType) or id(fn) in self._functions:
            return
        self._functions[id(fn)] = fn
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:
                contents = _MISSING
            label = f"{fn.__name__}.<closure>.{name}"
            path = (None, label, False)
            self._records.append((_CELL, cell, contents, path, "closure variable"))
            if contents is not _MISSING and type(contents) not in _ATOMS:
                stack.append((contents, path, True))
        space = fn.__globals__
        entry = self._globals.get(id(space))
        if entry is None:
            entry = (space, (None, str(space.get("__name__", "<globals>")), False), {})
            self._globals[id(space)] = entry
        names = entry[2]
        for name in code_names(fn.__code__):
            if name not in names:
                names[name] = None
                helper = space.get(name)
                if isinstance(helper, types.FunctionType) and helper.__globals__ is space:
                    self._add_function(helper, stack)

    def _record_globals(self, stack: list) -> None:
        """Record the globals the scanned code names; the values they hold are walked shallowly."""
        for space, path, names in self._globals.values():
            ordered = tuple(names)
            saved = tuple(space.get(n, _MISSING) for n in ordered)
            self._records.append((_GLOBALS, space, (ordered, saved), path, "global"))
            stack.extend(reversed([(v, (path, n, True), False) for n, v in zip(ordered, saved)
                                   if v is not _MISSING and type(v) not in _ATOMS]))

    # -- after the trace -----------------------------------------------------------------------------
    def restore(self) -> tuple[StateWrite, ...]:
        """Put back every recorded container the trace changed; the writes undone, in walk order."""
        writes: list[StateWrite] = []
        for how, target, saved, path, entries in self._records:
            if how == _DICT and len(target) == len(saved) and (not saved or _same_items(target, saved)):
                continue  # the common case, without a call per record
            found = _CHANGES[how](target, saved, path, entries)
            if not found:
                continue
            try:
                _RESTORE[how](target, saved)
                restored = True
            except Exception:  # noqa: BLE001 - a container that refuses (a frozen mapping): reported, not raised
                restored = False
            writes += [StateWrite(p, what, _describe(v), is_traced(v), _is_tensor(v), restored, entries)
                       for p, what, v in found]
        return tuple(writes) + self._leftovers()

    def _leftovers(self) -> tuple[StateWrite, ...]:
        """Traced values in what the objects of globals hold beyond their recorded ``__dict__`` (the scan of
        Note [What a trace snapshot covers]); each is reported as not restored."""
        found: list[StateWrite] = []
        seen = set(self._seen)
        stack = [(v, path, k, "attribute") for attrs, path in reversed(self._shallow) for k, v in reversed(list(attrs.items()))]
        while stack and len(seen) < len(self._seen) + MAX_SCANNED:
            value, parent, key, entries = stack.pop()
            kind = type(value)
            if kind in _ATOMS or id(value) in seen:
                continue
            seen.add(id(value))
            if is_traced(value):
                found.append(StateWrite(_at(parent, entries, key), "left", _describe(value), True, _is_tensor(value),
                                        False, entries))
                continue
            how = (self._kinds.get(kind) or _kind_of(kind))[0]
            path = (parent, key, entries != "item")
            if how == _DICT:
                stack.extend((v, path, k, "item") for k, v in reversed(list(dict.items(value))))
            elif how in _CONTAINERS:
                stack.extend((v, path, i, "item") for i, v in reversed(list(enumerate(value))))
            elif how == _OBJECT:
                attrs = _instance_dict(value)
                if attrs is not None:
                    stack.extend((v, path, k, "attribute") for k, v in reversed(list(attrs.items())))
        return tuple(found)


def _is_tensor(value: Any) -> bool:
    kind = type(value)
    return is_tensor(value) or (hasattr(kind, "shape") and hasattr(kind, "dtype") and not isinstance(value, type))


# -- comparing and restoring each kind of container (by identity) -----------------------------------------
_CELL, _GLOBALS = _OBJECT + 1, _OBJECT + 2  # record kinds beside the walk's: a closure cell, a module's globals


def _raw_items(d: dict) -> dict:
    """A plain copy of a dict's stored items, bypassing a subclass's ``__getitem__``/``items``.

    ``dict.copy`` of an OrderedDict subclass reads through ``__getitem__``, and transformers'
    ``ACT2FN`` builds a new module there: copying it that way, then restoring the copy, would
    replace its classes by instances (found by the real-model suite).

    >>> class Making(dict):
    ...     def __getitem__(self, k): return "made"
    >>> _raw_items(Making(a=1))
    {'a': 1}
    """
    return dict(dict.items(d))


def _same_items(now: dict, saved: Mapping) -> bool:
    """Whether ``now`` holds each of ``saved``'s keys with the same object (lengths already compared)."""
    get = dict.get
    return all(get(now, k, _MISSING) is v for k, v in saved.items())


def _dict_changes(now: dict, saved: dict, path: _Path, entries: str) -> list[tuple[str, str, Any]]:
    if len(now) == len(saved) and _same_items(now, saved):
        return []
    out = []
    for k, v in dict.items(now):
        old = saved.get(k, _MISSING)
        if old is not v:
            out.append((_at(path, entries, k), "added" if old is _MISSING else "assigned", v))
    return out + [(_at(path, entries, k), "removed", _MISSING) for k in saved if k not in now]


def _dict_restore(target: dict, saved: dict) -> None:
    target.clear()
    target.update(saved)


def _sequence_changes(target: Any, saved: list, path: _Path, entries: str) -> list[tuple[str, str, Any]]:
    now = list(target)
    if len(now) == len(saved) and all(a is b for a, b in zip(now, saved)):
        return []
    out = [(_at(path, "item", i), "added" if i >= len(saved) else "assigned", v)
           for i, v in enumerate(now) if i >= len(saved) or saved[i] is not v]
    return out + [(_at(path, "item", i), "removed", _MISSING) for i in range(len(now), len(saved))]


def _list_restore(target: list, saved: list) -> None:
    target[:] = saved


def _refill(target: Any, saved: Any) -> None:
    """A deque or a set, emptied and refilled."""
    target.clear()
    (target.extend if isinstance(target, collections.deque) else target.update)(saved)


def _set_changes(now: set, saved: set, path: _Path, entries: str) -> list[tuple[str, str, Any]]:
    if len(now) == len(saved) and all(v in now for v in saved):
        return []
    return [(_render(path), "changed", v) for v in now if v not in saved][:1] or [(_render(path), "changed", _MISSING)]


def _cell_changes(cell: Any, saved: Any, path: _Path, entries: str) -> list[tuple[str, str, Any]]:
    try:
        now = cell.cell_contents
    except ValueError:
        now = _MISSING
    return [] if now is saved else [(_render(path), "assigned", now)]


def _cell_restore(cell: Any, saved: Any) -> None:
    if saved is _MISSING:
        del cell.cell_contents
    else:
        cell.cell_contents = saved


def _named_changes(get: Callable[[Any, str], Any]) -> Callable[..., list[tuple[str, str, Any]]]:
    def changes(target: Any, saved: tuple, path: _Path, entries: str) -> list[tuple[str, str, Any]]:
        out = []
        for name, old in zip(*saved):
            now = get(target, name)
            if now is not old:
                what = "added" if old is _MISSING else "removed" if now is _MISSING else "assigned"
                out.append((_at(path, "attribute", name), what, now))
        return out

    return changes


def _globals_restore(space: dict, saved: tuple) -> None:
    for name, old in zip(*saved):
        if space.get(name, _MISSING) is not old:
            if old is _MISSING:
                space.pop(name, None)
            else:
                space[name] = old


def _slots_restore(obj: Any, saved: tuple) -> None:
    for name, old in zip(*saved):
        if _get_slot(obj, name) is not old:
            if old is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, old)


_CHANGES: dict[int, Callable[..., list[tuple[str, str, Any]]]] = {
    _DICT: _dict_changes,
    _LIST: _sequence_changes,
    _DEQUE: _sequence_changes,
    _SET: _set_changes,
    _CELL: _cell_changes,
    _GLOBALS: _named_changes(lambda space, name: space.get(name, _MISSING)),
    _OBJECT: _named_changes(lambda obj, name: _get_slot(obj, name)),
}
_RESTORE: dict[int, Callable[[Any, Any], None]] = {
    _DICT: _dict_restore,
    _LIST: _list_restore,
    _DEQUE: _refill,
    _SET: _refill,
    _CELL: _cell_restore,
    _GLOBALS: _globals_restore,
    _OBJECT: _slots_restore,
}


# -- code and classes -------------------------------------------------------------------------------------
def _methods(kind: type) -> Iterator[Callable]:
    """The Python functions of ``kind``'s classes (methods, static and class methods, properties)."""
    for klass in kind.__mro__:
        if klass is object or klass.__module__ == "builtins":
            continue
        for member in vars(klass).values():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property):
                yield from (f for f in (member.fget, member.fset) if isinstance(f, types.FunctionType))
            elif isinstance(member, types.FunctionType):
                yield member


def _slot_names(kind: type) -> tuple[str, ...]:
    if kind.__module__ == "builtins":
        return ()
    names: list[str] = []
    for klass in kind.__mro__:
        slots = vars(klass).get("__slots__", ())
        names += [s for s in ((slots,) if isinstance(slots, str) else slots) if s not in ("__dict__", "__weakref__")]
    return tuple(dict.fromkeys(names))


def _instance_dict(obj: Any) -> dict | None:
    """``obj.__dict__`` if it is a plain dict (never through ``__getattr__``), else None."""
    try:
        attrs = object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return None
    return attrs if type(attrs) is dict else None


def _get_slot(obj: Any, name: str) -> Any:
    try:
        return object.__getattribute__(obj, name)
    except AttributeError:
        return _MISSING


# -- the roots of a traced function ------------------------------------------------------------------------
def _roots(fn: Callable, arguments: Iterable[tuple[str, Any]]) -> tuple[list[tuple[str, Any]], list[Callable]]:
    """``self`` (a bound method's object or a callable object), the arguments, and the functions whose code runs."""
    target = fn
    for _ in range(8):  # a wrapper (functools.wraps, shapeenv's TorchFunction, a CompiledFunction) names the user's code
        inner = getattr(target, "__wrapped__", None)
        if inner is None or inner is target:
            break
        target = inner
    roots: list[tuple[str, Any]] = []
    functions: list[Callable] = []
    owner = getattr(target, "__self__", None)
    if isinstance(target, types.MethodType):
        roots.append(("self", owner))
        functions.append(target.__func__)
    elif isinstance(target, types.FunctionType):
        functions.append(target)
    elif isinstance(target, functools.partial):
        roots.append(("self", target))
        functions.append(target.func)
    elif not isinstance(target, types.BuiltinFunctionType):
        roots.append(("self", target))  # a callable object (an nn.Module): its class's methods are scanned
    roots += [(name, value) for name, value in arguments]
    return roots, functions


@contextlib.contextmanager
def preserved_state(fn: Callable, arguments: Iterable[tuple[str, Any]], title: str) -> Iterator[StateSnapshot]:
    """Snapshot the state ``fn`` and its ``arguments`` reach; on exit restore it and warn about each write.

    Args:
        fn: the traced function (its ``attribute_dicts``, if any, are :class:`StateSnapshot` 's).
        arguments: ``(name, value)`` of each argument the user passed (their real values).
        title: the trace's name, for the warning.

    Warns:
        TraceStateWarning: the trace wrote to the user's state (the warning's ``writes`` lists each one).
        On a failed trace, the error also gets a note naming the writes.
    """
    roots, functions = _roots(fn, arguments)
    snapshot = StateSnapshot.take(roots, functions, getattr(fn, "attribute_dicts", None))
    try:
        yield snapshot
    except BaseException as error:
        writes = snapshot.restore()
        if writes:
            warning = TraceStateWarning.of(title, writes, snapshot.truncated)
            if hasattr(error, "add_note"):
                error.add_note(f"({warning.summary})")
            try:
                warnings.warn(warning, stacklevel=_user_stacklevel())
            except Warning:  # warnings turned into errors: the trace's own error is the one to see
                pass
        raise
    writes = snapshot.restore()
    if writes:
        warnings.warn(TraceStateWarning.of(title, writes, snapshot.truncated), stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the user's line (the innermost frame outside the library)."""
    user = user_frame_object(2)
    frame, level = sys._getframe(1), 1
    while frame is not None and frame is not user:
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 2
