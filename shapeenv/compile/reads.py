"""What a traced call read besides its inputs, and the checks that it still reads the same.

A trace bakes into its program everything the function read: the module globals it
looked up (``SCALE``), attributes of modules and objects (``config.SCALE``), its
closure cells, its default arguments, the state of object arguments. Torch's Dynamo
guards each such read (GLOBAL / CLOSURE sources, ID_MATCH, EQUALS_MATCH, TYPE_MATCH,
DICT_KEYS, LIST_LENGTH...); :func:`recording` and :func:`reads_of` build the same
checks here, and :class:`Reads` is what a cache entry runs after its shape guards.

Note [How reads are recorded]
    Dynamo reads bytecode as it runs it and knows where every value came from. This
    library runs the user's function on fake tensors instead, so it records reads in two
    steps, both sound over-approximations of what the trace read:

    1. *Which code ran*: while the function is traced, a ``sys.settrace`` hook (chained to
       any tracer already installed, e.g. coverage) notes every code object that starts,
       with its globals, keeping the user's code (not this library, torch, the standard
       library or site-packages). It asks for no line events and costs nothing on a cache
       hit, but a trace runs in CPython 3.11's tracing mode: an op-heavy trace takes ~1.6x
       as long (30 -> 48 ms for 60 ops). On 3.12+, ``sys.monitoring`` ``PY_START``
       returning ``DISABLE`` for library code would remove most of that.
    2. *What that code reads*: each such code object's bytecode is scanned for the loads
       whose value does not come from the call: ``LOAD_GLOBAL name`` (from the frame's
       globals, else the builtins), ``LOAD_DEREF`` of a free variable (a closure cell of
       the function), each followed by its ``LOAD_ATTR``/``LOAD_METHOD`` chain
       (``config.SCALE``, ``np.float32``). Every prefix of a chain is a read. Reads on
       branches the trace did not take are guarded too: harmless (at worst a recompile
       when something the function did not use changes).

    The functions whose code ran (found among the values read, the methods of ``self``,
    or, for a closure reached otherwise, by the garbage collector's referrers) add their
    closure cells and ``__defaults__``/``__kwdefaults__``. Object arguments (leaves that
    are not arrays, ints or plain constants) are guarded by their state (below), since
    the code that reads their attributes may be anywhere in the call tree.

    Alternatives considered: a ``RecordingGlobals`` dict subclass in place of the
    function's globals sees only the function's own globals (not those of the functions
    it calls, nor module attributes); proxies around object arguments break ``type(o)``
    and ``is``; opcode tracing cannot read the value stack from Python.

Note [How a read is checked]
    Each read value gets the cheapest check that is exact for it:

    * ``ID``: modules, classes, functions, builtins, ``None``, arrays: ``value is expected``
      (the entry holds ``expected`` alive, so its id cannot be reused);
    * ``EQUALS``: ints, floats, strs, bytes, bound methods and hashable values with their
      own ``__eq__`` (dtypes, enums): ``value is expected or (type(value) is T and value ==
      expected)``; the type check keeps ``2`` and ``2.0`` apart;
    * ``STATE``: containers (list, tuple, dict, set: types, lengths, keys and items),
      objects with a ``__dict__`` or ``__slots__`` (their attributes, and the plain
      attributes of their user-defined classes): a frozen snapshot compared with one
      ``==``, so an in-place mutation (``o.v = 7``, ``cfg.append(...)``) is seen.

    Unchanged reads cost a dict lookup and an ``is`` each (the identity short-cuts every
    comparison), so lookup stays flat. A value the snapshot cannot see into (a C object
    without ``__eq__``, a container past :data:`STATE_LIMIT` items, or nested deeper than
    :data:`DEPTH_LIMIT`) is checked by identity and named in an
    :class:`~shapeenv.compile.errors.UnguardedReadWarning` when traced: mutating it in
    place is not seen; call ``reset()`` after doing so.

>>> SCALE = 2
>>> reads = Reads.of([Probe.of("global SCALE", lambda inputs: SCALE, SCALE)])
>>> reads.check({}), reads.explain({})
(True, None)
>>> SCALE = 3
>>> reads.check({}), reads.explain({})
(False, 'global SCALE == 2 failed: got 3')
"""

from __future__ import annotations

import contextlib
import dis
import enum
import gc
import operator
import sys
import sysconfig
import types
import warnings
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from shapeenv.core.provenance import library_code
from shapeenv.program.program import is_tensor_like
from shapeenv.compile.errors import UnguardedReadWarning

__all__ = ["Probe", "Reads", "Recorder", "recording", "MISSING", "NO_READS"]

#: A container or object graph with more items than this is checked by identity (with a warning).
STATE_LIMIT = 512
#: Objects nested deeper than this are checked by identity (with a warning).
DEPTH_LIMIT = 8


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


#: What a read of a name or attribute that does not exist gives (a value of its own, so it is guarded too).
MISSING = _Missing()

_ID, _EQ, _STATE = 0, 1, 2
_EQ_TYPES = frozenset({int, float, complex, str, bytes, bool, range, slice})
_ID_TYPES = (types.ModuleType, type, types.FunctionType, types.CodeType, type(None), _Missing,
             types.WrapperDescriptorType, types.MethodDescriptorType)


def _bound(v: Any) -> bool:
    """A method bound to an object (``[].append``, ``o.f``): a new object on every attribute read, so compared
    by its function and its object; builtin functions of modules (``len``) are compared by identity."""
    if isinstance(v, types.MethodType):
        return True
    return isinstance(v, types.BuiltinFunctionType) and not isinstance(v.__self__, (types.ModuleType, type(None)))


class _Id:
    """A value compared by identity inside a frozen snapshot."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is _Id and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"<{type(self.value).__name__} at {id(self.value):#x}>"


class _Freezer:
    """Builds the frozen snapshot of a value (Note [How a read is checked]); remembers what it could not see into."""

    __slots__ = ("budget", "opaque", "functions")

    def __init__(self) -> None:
        self.budget = STATE_LIMIT
        self.opaque: list[str] = []
        self.functions: list[types.FunctionType] = []

    def freeze(self, v: Any, where: str, depth: int = 0) -> Any:
        t = type(v)
        if t in _EQ_TYPES:
            return (t, v)
        if isinstance(v, types.BuiltinFunctionType) and not _bound(v):
            return _Id(v)
        if isinstance(v, _ID_TYPES) or v is None:
            if t is types.FunctionType:
                self.functions.append(v)
            return _Id(v)
        if is_tensor_like(v):
            return _Id(v)
        self.budget -= 1
        if self.budget < 0 or depth > DEPTH_LIMIT:
            self.opaque.append(f"{where} ({'too many items' if self.budget < 0 else 'nested too deep'})")
            return _Id(v)
        if isinstance(v, (tuple, list)):
            return (t, tuple([self.freeze(x, f"{where}[{i}]", depth + 1) for i, x in enumerate(v)]))
        if isinstance(v, dict):
            return (t, tuple([(self.freeze(k, where, depth + 1), self.freeze(x, f"{where}[{k!r}]", depth + 1))
                              for k, x in v.items()]))
        if isinstance(v, (set, frozenset)):
            return (t, frozenset([self.freeze(x, f"{where} item", depth + 1) for x in v]))
        if _bound(v):
            return (t, self.freeze(getattr(v, "__func__", v.__name__), where, depth + 1), _Id(v.__self__))
        if isinstance(v, enum.Enum) or _value_type(t):
            return (t, v)
        if t is object:  # a bare object() has no state: its identity is all there is
            return _Id(v)
        state = _attributes(v)
        if state is None:
            self.opaque.append(f"{where} (of type {t.__qualname__}, whose state is not visible)")
            return _Id(v)
        parts = [(name, self.freeze(x, f"{where}.{name}", depth + 1)) for name, x in state]
        return (t, tuple(parts), self._class_state(t, where, depth))

    def _class_state(self, cls: type, where: str, depth: int) -> tuple:
        out = []
        for klass in cls.__mro__:
            if klass.__module__ == "builtins":
                continue
            for name, x in vars(klass).items():
                if name.startswith("__") and name.endswith("__"):
                    continue
                if isinstance(x, (staticmethod, classmethod)):
                    x = x.__func__
                if isinstance(x, (property, types.MemberDescriptorType, types.GetSetDescriptorType)):
                    out.append((klass.__qualname__, name, _Id(x)))
                    continue
                out.append((klass.__qualname__, name, self.freeze(x, f"{klass.__qualname__}.{name}", depth + 1)))
        return tuple(out)


#: Immutable C types compared by identity (they have no ``__eq__`` of their own): interned singletons.
_INTERNED = frozenset({("torch", "dtype"), ("torch", "layout"), ("torch", "memory_format")})


def _value_type(t: type) -> bool:
    """Hashable with an ``__eq__`` of its own and no instance ``__dict__`` (a numpy dtype, a Fraction, a
    ``torch.device``), or one of the interned immutable C types (``torch.float32``): a value, compared by
    ``==`` (the same object, for the interned ones)."""
    if (t.__module__, t.__qualname__) in _INTERNED:
        return True
    return t.__hash__ is not None and t.__eq__ is not object.__eq__ and not t.__dictoffset__ and not hasattr(t, "__slots__")


def _attributes(v: Any) -> list[tuple[str, Any]] | None:
    """The instance attributes of ``v`` (``__dict__`` and ``__slots__``), or None when it has neither."""
    found: list[tuple[str, Any]] = []
    seen = False
    d = getattr(v, "__dict__", None)
    if isinstance(d, dict):
        found += d.items()
        seen = True
    for klass in type(v).__mro__:
        slots = klass.__dict__.get("__slots__")
        if slots is None:
            continue
        seen = True
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__"):
                found.append((name, getattr(v, name, MISSING)))
    return found if seen else None


def _quiet_freeze(v: Any) -> Any:
    return _Freezer().freeze(v, "")


@dataclass(frozen=True, slots=True)
class Probe:
    """One read: what it is in words, how to read it again, and the value (or snapshot) the trace saw.

    Attributes:
        what: ``global SCALE``, ``config.SCALE``, ``closure cell k of g``, ``g.__defaults__``, ``L['o']``.
        read: reads the current value; takes the call's inputs (name -> leaf).
        expected: the value the trace read (``ID``/``EQUALS``) or its frozen snapshot (``STATE``).
        mode: ``ID``, ``EQUALS`` or ``STATE`` (Note [How a read is checked]).
        shown: the value the trace read, for messages.
    """

    what: str
    read: Callable[[Mapping[str, Any]], Any] = field(repr=False)
    expected: Any = field(repr=False)
    mode: int = _EQ
    shown: Any = field(default=None, repr=False)
    path: tuple = field(default=(), repr=False)

    @classmethod
    def of(cls, what: str, read: Callable[[Mapping[str, Any]], Any], value: Any,
           freezer: _Freezer | None = None, path: tuple = ()) -> "Probe":
        """The probe of a read of ``value``, with the check that fits it; ``path``: ``(globals dict, name,
        dotted attributes)`` for a read of a global (or an attribute chain on one), which lets the combined
        check read many at once (Note [How a read is checked]).

        >>> Probe.of("global N", lambda inputs: 3, 3).kind, Probe.of("global L", lambda inputs: [3], [3]).kind
        ('EQUALS_MATCH', 'STATE')
        """
        t = type(value)
        if t in _EQ_TYPES or isinstance(value, enum.Enum) or _bound(value) or _value_type(t):
            return cls(what, read, value, _EQ, value, path)
        if isinstance(value, (_ID_TYPES, types.BuiltinFunctionType)) or is_tensor_like(value):
            return cls(what, read, value, _ID, value, path)
        freezer = freezer if freezer is not None else _Freezer()
        return cls(what, read, freezer.freeze(value, what), _STATE, value, path)

    @property
    def kind(self) -> str:
        """Dynamo's name for the check: ``ID_MATCH``, ``EQUALS_MATCH`` or ``STATE`` (type, lengths, keys, items)."""
        return ("ID_MATCH", "EQUALS_MATCH", "STATE")[self.mode]

    def holds(self, inputs: Mapping[str, Any]) -> bool:
        """Whether the read still gives what the trace saw."""
        v = self.read(inputs)
        exp = self.expected
        if self.mode == _ID:
            return v is exp
        if self.mode == _EQ:
            return v is exp or (type(v) is type(exp) and v == exp)
        return _quiet_freeze(v) == exp

    def failure(self, inputs: Mapping[str, Any]) -> str | None:
        """``global SCALE == 2 failed: got 3`` if the read changed, else None."""
        if self.holds(inputs):
            return None
        v = self.read(inputs)
        if self.mode == _STATE:
            changed = _first_change(self.what, self.expected, _quiet_freeze(v))
            if changed is not None:
                return changed
        op = "is" if self.mode == _ID else "=="
        return f"{self.what} {op} {_short(self.shown)} failed: got {_short(v)}"


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _first_change(where: str, old: Any, new: Any) -> str | None:
    """``L['o'].v == 2 failed: got 7``: the first attribute, key or item whose snapshot differs (None: say the
    whole value)."""
    if not (type(old) is tuple and type(new) is tuple and len(old) >= 2 and len(new) >= 2):
        return None
    if old[0] is not new[0]:
        return f"type({where}) is {_thaw(_Id(old[0]))} failed: got {_thaw(_Id(new[0]))}"
    cls, a, b = old[0], old[1], new[1]
    if type(a) is not tuple or type(b) is not tuple:
        return None
    if len(old) == 3:  # an object: (type, attributes, class state)
        return _first_named(where + ".", dict(a), dict(b)) or _first_named(
            "", {f"{k}.{n}": x for k, n, x in old[2]}, {f"{k}.{n}": x for k, n, x in new[2]})
    if issubclass(cls, dict):
        return _first_named(where, {f"[{_thaw(k)}]": x for k, x in a}, {f"[{_thaw(k)}]": x for k, x in b})
    if issubclass(cls, (list, tuple)):
        if len(a) != len(b):
            return f"len({where}) == {len(a)} failed: got {len(b)}"
        return _first_named(where, {f"[{i}]": x for i, x in enumerate(a)}, {f"[{i}]": x for i, x in enumerate(b)})
    return None


def _first_named(prefix: str, old: dict, new: dict) -> str | None:
    for name in dict.fromkeys([*old, *new]):
        x, y = old.get(name, MISSING), new.get(name, MISSING)
        if x != y:
            return _first_change(prefix + name, x, y) or f"{prefix}{name} == {_thaw(x)} failed: got {_thaw(y)}"
    return None


def _thaw(frozen: Any) -> str:
    """A snapshot in words: the value for plain values and identities, ``<list>`` for a container or object."""
    if isinstance(frozen, _Id):
        v = frozen.value
        return v.__qualname__ if isinstance(v, type) else _short(v)
    if type(frozen) is tuple and len(frozen) == 2 and frozen[0] in _EQ_TYPES:
        return repr(frozen[1])
    if type(frozen) is tuple and frozen and isinstance(frozen[0], type):
        return f"<{frozen[0].__qualname__}>"
    return repr(frozen)


@dataclass(frozen=True, slots=True)
class Reads:
    """The reads of one trace; :meth:`check` is the cache entry's extra check (Note [How a read is checked]).

    Attributes:
        probes: the reads, in the order they were found.
        opaque: reads checked by identity only (named in the warning).
        check: ``inputs -> bool``, all probes at once (built by :meth:`of`).
    """

    probes: tuple[Probe, ...]
    opaque: tuple[str, ...] = ()
    check: Callable[[Mapping[str, Any]], bool] = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @classmethod
    def of(cls, probes: list[Probe] | tuple[Probe, ...], opaque: tuple[str, ...] = ()) -> "Reads":
        """The reads with their combined check."""
        return cls(tuple(probes), opaque, _combined(tuple(probes)))

    def explain(self, inputs: Mapping[str, Any]) -> str | None:
        """The first read that changed, in words (None if all hold)."""
        for p in self.probes:
            why = p.failure(inputs)
            if why is not None:
                return why
        return None

    def describe(self) -> list[str]:
        """One line per read: ``global SCALE: EQUALS_MATCH 2``."""
        return [f"{p.what}: {p.kind} {_short(p.shown)}" for p in self.probes]

    def __len__(self) -> int:
        return len(self.probes)


#: Up to this many probes, checking each in turn is cheaper than the grouped reads (0.4 µs for 3 probes
#: against 0.6 µs: an ``itemgetter`` and ``all(map(...))`` cost more than they save on few reads).
_FEW = 6


def _combined(probes: tuple[Probe, ...]) -> Callable[[Mapping[str, Any]], bool]:
    """One function checking every probe (each in turn when there are few).

    Reads of globals and of attribute chains on them are read many at once (an ``itemgetter`` per globals
    dict, an ``attrgetter`` per global with chains) and pass if each value *is* the one the trace read:
    an unchanged global still holds the same object, so this fast path decides almost every hit. When some
    value is another object (or a read fails), every probe is checked exactly (:func:`_exact`).
    """
    exact = _exact(probes)
    if len(probes) <= _FEW:
        return exact
    names: dict[int, tuple[dict, list[str], list[Any]]] = {}
    chains: dict[tuple[int, str], tuple[dict, str, list[str], list[Any]]] = {}
    rest = []
    for p in probes:
        if not p.path or p.mode == _STATE or p.expected is MISSING:  # (getters raise on what is missing)
            rest.append(p)
            continue
        g, name, dotted = p.path
        if dotted:
            chains.setdefault((id(g), name), (g, name, [], []))
            chains[(id(g), name)][2].append(dotted)
            chains[(id(g), name)][3].append(p.expected)
        else:
            names.setdefault(id(g), (g, [], []))
            names[id(g)][1].append(name)
            names[id(g)][2].append(p.expected)
    groups = tuple((itemgetter(*ns, ns[0]), g, tuple(exp) + (exp[0],)) for g, ns, exp in names.values())
    chained = tuple((g, name, attrgetter(*ds, ds[0]), tuple(exp) + (exp[0],)) for g, name, ds, exp in chains.values())
    others = _exact(tuple(rest)) if rest else None
    is_ = operator.is_

    def check(inputs: Mapping[str, Any]) -> bool:
        try:
            for get, g, exp in groups:
                if not all(map(is_, get(g), exp)):
                    return exact(inputs)
            for g, name, get, exp in chained:
                if not all(map(is_, get(g[name]), exp)):
                    return exact(inputs)
        except Exception:  # noqa: BLE001 - a read that fails now: the exact check says what it means
            return exact(inputs)
        return others is None or others(inputs)

    return check


def _exact(probes: tuple[Probe, ...]) -> Callable[[Mapping[str, Any]], bool]:
    """Every probe checked as its mode says: identities first (cheapest), then equalities, then snapshots."""
    plain = [p for p in probes if p.path and not p.path[2] and p.mode != _STATE]  # a global: read inline
    gids = tuple((p.path[0].get, p.path[1], p.expected) for p in plain if p.mode == _ID)
    geqs = tuple((p.path[0].get, p.path[1], p.expected, type(p.expected)) for p in plain if p.mode == _EQ)
    ids = tuple((p.read, p.expected) for p in probes if p.mode == _ID and p not in plain)
    eqs = tuple((p.read, p.expected, type(p.expected)) for p in probes if p.mode == _EQ and p not in plain)
    states = tuple((p.read, p.expected) for p in probes if p.mode == _STATE)
    missing = MISSING

    def check(inputs: Mapping[str, Any]) -> bool:
        for get, name, exp in gids:
            if get(name, missing) is not exp:
                return False
        for read, exp in ids:
            if read(inputs) is not exp:
                return False
        for get, name, exp, t in geqs:
            v = get(name, missing)
            if v is not exp and (type(v) is not t or v != exp):
                return False
        for read, exp, t in eqs:
            v = read(inputs)
            if v is not exp and (type(v) is not t or v != exp):
                return False
        for read, exp in states:
            if _quiet_freeze(read(inputs)) != exp:
                return False
        return True

    return check


#: The reads of a trace that read nothing (its entry gets no extra check).
NO_READS = Reads.of(())


# -- recording which code ran, and what it read -----------------------------------------------------
def _skipped_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {str(Path(paths[k]).resolve()) + "/" for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    dirs |= {str(Path(p).resolve()) + "/" for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    return tuple(sorted(dirs))


_CHAIN = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


# Note [Code made by exec]
#     A library may make functions by ``exec`` on first use (sympy does, imported on first use:
#     Note [sympy on first use] in symint.lazy_sympy); their file is ``<string>``, so the file
#     prefixes of the installed packages do not tell they are not the user's. Their globals
#     do: the ``__file__`` of the module they were made for. Code a user runs by ``exec``
#     (a notebook cell, ``exec(text)`` in a script) keeps the user's globals, so stays the user's.


class Recorder:
    """The ``sys.settrace`` hook of :func:`recording`: probes the reads of the user's code as it starts
    (Note [How reads are recorded]), so each probe holds the value from before the code ran."""

    def __init__(self, fn: Any, chained: Callable | None):
        self.chained = chained
        self.fn = fn
        self.codes: dict[types.CodeType, None] = {}
        self._skip = _skipped_dirs()
        self._judged: dict[types.CodeType, bool] = {}
        self._freezer = _Freezer()
        self._probes: list[Probe] = []
        self._seen: set[tuple] = set()
        self._functions: dict[types.CodeType, list[types.FunctionType]] = {}
        self._note_function(fn)
        self._top_code = getattr(fn, "__code__", None)
        self._top: types.FrameType | None = None
        self._changed: list[bool] | None = None  # per probe, frozen when the traced function returns

    def __call__(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        user = self._judged.get(code)
        if user is None:
            filename = code.co_filename
            if filename == "<string>":  # made by exec: its module says whose (Note [Code made by exec])
                filename = str(frame.f_globals.get("__file__") or filename)
            user = self._judged[code] = not filename.startswith(self._skip) and not library_code(frame)
        if user and code not in self.codes:
            self.codes[code] = None
            self._started(frame, code)
        chained = self.chained
        local = chained(frame, event, arg) if chained is not None else None
        if code is self._top_code and self._top is None and local is None:
            # The state a trace writes is restored when the trace ends
            # (shapeenv.export.state), so what the function changed is judged when it returns, before that.
            self._top = frame
            frame.f_trace_lines = False
            return self._on_return
        return local

    def _on_return(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        if event == "return" and frame is self._top and self._changed is None:
            self._changed = [self._changed_by_trace(p) for p in self._probes]
        return self._on_return

    @staticmethod
    def _changed_by_trace(p: Probe) -> bool:
        return p.mode == _STATE and _quiet_freeze(p.read({}) if not p.what.startswith("L[") else p.shown) != p.expected

    # -- probes ------------------------------------------------------------------------------------
    def _add(self, key: tuple, what: str, read: Callable, value: Any, path: tuple = ()) -> None:
        if key not in self._seen:
            self._seen.add(key)
            self._probes.append(Probe.of(what, read, value, self._freezer, path))
            self._note_function(value)
            self._note_function(getattr(value, "__func__", None))

    def _note_function(self, f: Any) -> None:
        if isinstance(f, types.FunctionType) and f not in self._functions.setdefault(f.__code__, []):
            self._functions[f.__code__].append(f)

    def inputs(self, objects: Mapping[str, Any]) -> None:
        """Probe the state of the object arguments (leaf name -> value), before the trace reads them."""
        for leaf, value in objects.items():
            self._add(("input", leaf), f"L[{leaf!r}]", _input_reader(leaf), value)

    def _started(self, frame: types.FrameType, code: types.CodeType) -> None:
        g, b = frame.f_globals, frame.f_builtins
        self._note_function(_method_of(frame, code))
        cells: list[tuple[str, tuple[str, ...]]] = []
        for kind, root, attrs in _chains(code):
            if kind == "cell":
                cells.append((root, attrs))
                continue
            if root in g or root not in b:
                read, text, key, where = _global_reader(g, root), f"global {root}", ("global", id(g), root), g
            else:
                self._add(("global", id(g), root), f"global {root}", _global_reader(g, root), MISSING)
                read, text, key, where = _global_reader(b, root), f"builtin {root}", ("builtin", id(b), root), b
            self._chain(read, text, key, attrs, (where, root))
        for f in self._freezer.functions:
            self._note_function(f)
        self._freezer.functions.clear()
        for f in self._function_of(code, frame):
            label = f.__qualname__
            for var, cell in zip(code.co_freevars, f.__closure__ or ()):
                text, key = f"closure cell {var} of {label}", ("cell", id(cell))
                self._chain(_cell_reader(cell), text, key, ())
                for root, attrs in cells:
                    if root == var:
                        self._chain(_cell_reader(cell), text, key, attrs)
            if f.__defaults__ is not None:  # a function without defaults gets all its arguments from the call
                self._add(("defaults", id(f)), f"{label}.__defaults__", _attr_reader(lambda _, f=f: f, "__defaults__"),
                          f.__defaults__)
            if f.__kwdefaults__ is not None:
                self._add(("kwdefaults", id(f)), f"{label}.__kwdefaults__",
                          _attr_reader(lambda _, f=f: f, "__kwdefaults__"), f.__kwdefaults__)

    def _chain(self, read: Callable, text: str, key: tuple, attrs: tuple[str, ...], where: tuple = ()) -> None:
        """Probe a read and each prefix of its attribute chain; ``where``: ``(globals dict, name)`` of a global."""
        self._add(key, text, read, read({}), (*where, "") if where else ())
        dotted = []
        for attr in attrs:
            dotted.append(attr)
            read, text, key = _attr_reader(read, attr), f"{text}.{attr}", key + (attr,)
            self._add(key, text, read, read({}), (*where, ".".join(dotted)) if where else ())

    def _function_of(self, code: types.CodeType, frame: types.FrameType) -> list[types.FunctionType]:
        """The functions that may be running ``code``: known from the reads, else (for a closure) the referrers
        of the code whose cells hold what the frame's free variables hold; none for a function made in the trace."""
        found = self._functions.get(code)
        if found or not code.co_freevars or any(k is code for c in self.codes for k in c.co_consts):
            return found or []
        local = frame.f_locals
        out = []
        for r in gc.get_referrers(code):
            if type(r) is types.FunctionType and r.__code__ is code and all(
                    local.get(v, MISSING) is _cell_reader(c)({}) for v, c in zip(code.co_freevars, r.__closure__ or ())):
                out.append(r)
        return out

    def reads(self, name: str) -> Reads:
        """The reads of the trace (Note [How a read is checked]); warns about what cannot be checked.

        A value the trace itself changed (a list it appended to: the function's side effect, which the
        cached program does not replay) is checked by identity from then on.

        Warns:
            UnguardedReadWarning: a read is checked by identity only (its state is not visible).
        """
        probes = []
        changed = self._changed or []
        for i, p in enumerate(self._probes):
            if changed[i] if i < len(changed) else self._changed_by_trace(p):
                p = Probe(p.what + " (changed by the trace itself: checked by identity)", p.read, p.shown, _ID, p.shown)
            probes.append(p)
        opaque = tuple(dict.fromkeys(self._freezer.opaque))
        if opaque:
            warnings.warn(
                f"{name}: the trace read {', '.join(opaque)}; these are checked by identity only, so changing them "
                f"in place is not seen by the cache (call reset() on the compiled function after doing so)",
                UnguardedReadWarning,
                stacklevel=_user_level(),
            )
        return Reads.of(probes, opaque) if probes else NO_READS


def _user_level() -> int:
    """The ``stacklevel`` of the innermost caller outside this library, for a warning from the caller of this."""
    frame, level = sys._getframe(2), 2
    while frame is not None and library_code(frame):
        frame, level = frame.f_back, level + 1
    return level


def _method_of(frame: types.FrameType, code: types.CodeType) -> types.FunctionType | None:
    """The function running ``code`` when it is a method of its first argument's class (``self.forward``)."""
    if not code.co_argcount:
        return None
    first = frame.f_locals.get(code.co_varnames[0])
    cls = first if isinstance(first, type) else type(first)
    for klass in getattr(cls, "__mro__", ()):
        for v in vars(klass).values():
            v = getattr(v, "__func__", v)
            if getattr(v, "__code__", None) is code and isinstance(v, types.FunctionType):
                return v
    return None


@contextlib.contextmanager
def recording(fn: Any, objects: Mapping[str, Any]) -> Iterator[Recorder]:
    """Record what the user's code running inside the block reads (Note [How reads are recorded]);
    ``objects``: the object arguments (leaf name -> value), whose state is probed first."""
    old = sys.gettrace()
    rec = Recorder(fn, old)
    rec.inputs(objects)
    sys.settrace(rec)
    try:
        yield rec
    finally:
        sys.settrace(old)


def _chains(code: types.CodeType) -> list[tuple[str, str, tuple[str, ...]]]:
    """``(root kind, name, attribute chain)`` per global or free-variable load in ``code`` (Note [How reads are recorded])."""
    out: list[tuple[str, str, tuple[str, ...]]] = []
    current: tuple[str, str, list[str]] | None = None
    free = set(code.co_freevars)
    for ins in dis.get_instructions(code):
        if ins.opname in _CHAIN and current is not None:
            current[2].append(ins.argval)
            continue
        if current is not None:
            out.append((current[0], current[1], tuple(current[2])))
            current = None
        if ins.opname == "LOAD_GLOBAL":
            current = ("global", ins.argval, [])
        elif ins.opname in ("LOAD_DEREF", "LOAD_CLASSDEREF") and ins.argval in free:
            current = ("cell", ins.argval, [])
    if current is not None:
        out.append((current[0], current[1], tuple(current[2])))
    return out


def _attr_reader(base: Callable[[Mapping[str, Any]], Any], name: str) -> Callable[[Mapping[str, Any]], Any]:
    def read(inputs: Mapping[str, Any]) -> Any:
        obj = base(inputs)
        if obj is MISSING:
            return MISSING
        try:
            return getattr(obj, name)
        except Exception:  # noqa: BLE001 - any failure to read is a value of its own (MISSING), guarded as such
            return MISSING

    return read


def _global_reader(g: dict, name: str) -> Callable[[Mapping[str, Any]], Any]:
    get = g.get
    return lambda inputs: get(name, MISSING)


def _cell_reader(cell: types.CellType) -> Callable[[Mapping[str, Any]], Any]:
    def read(inputs: Mapping[str, Any]) -> Any:
        try:
            return cell.cell_contents
        except ValueError:
            return MISSING

    return read


def _input_reader(name: str) -> Callable[[Mapping[str, Any]], Any]:
    return lambda inputs: inputs.get(name, MISSING)
