"""``GuardedCache``: compiled artifacts keyed by guard sets, with a dispatch index.

An entry is an artifact (a compiled program, anything) plus the :class:`GuardSet`
that says for which inputs it may be reused. :meth:`GuardedCache.lookup` returns
the first entry (in insertion order) whose guards hold for the inputs.

Note [Dispatch without a linear scan]
    Checking every entry's guards in turn costs time linear in the number of
    entries; torch.compile pays about 1.9 us per entry skipped. Most entries pin
    some sources to constants (``x.size()[0] == 8``: a static dim, a 0/1
    specialisation, a ``specialize_on`` predicate). The cache picks the sources
    pinned by the most entries as its *key*, reads their values from the inputs
    once, and keeps a dict from key values to the entries consistent with them;
    entries that do not pin every key source are *wildcards*, candidates for any
    key. A lookup reads the key, takes the bucket (its entries and the wildcards,
    merged in insertion order, precomputed) and runs only those entries' compiled
    checkers. The index is rebuilt on every insertion (inserts are rare: each is a
    compilation). First-match semantics are unchanged, because every skipped entry
    pins a key source to a different value, so its guards could not hold.

Note [Threads]
    The index, entry list and buckets are one immutable snapshot replaced
    atomically (under a lock) by :meth:`GuardedCache.add`; a lookup reads one
    snapshot, so a concurrent insertion can never show it a half-built index.
    Hit counters are updated under a lock. :meth:`GuardedCache.replace_guards` swaps
    one entry's guard set for an equivalent one (a simplified set proven equivalent,
    see Note [Deferred simplification] in ``shapeenv.core.deferred``) the same way: the new
    checker is compiled first, then one new snapshot is published. A lookup sees the
    entry with either set, never a mix; since the sets are equivalent it answers alike.

>>> from symint.build import symbol_expr, eq, ge
>>> from guards.guardset import GuardSet
>>> from guards.source import Source
>>> s0 = symbol_expr("s0")
>>> src = {s0: Source.size("x", 0)}
>>> cache = GuardedCache()
>>> _ = cache.add(GuardSet.of([eq(s0, 8)], src), "static-8")
>>> _ = cache.add(GuardSet.of([ge(s0, 2)], src), "dynamic")
>>> class T: shape = (8,)
>>> class U: shape = (9,)
>>> cache.lookup({"x": T()}).artifact, cache.lookup({"x": U()}).artifact
('static-8', 'dynamic')
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any, Callable, Mapping

from guards.runtime.codegen import CompiledGuards, compile_guards
from guards.runtime.explain import Explanation, explain_inputs
from guards.guardset import GuardSet
from guards.source import Source

__all__ = ["GuardedCache", "CacheEntry", "pinned_sources"]


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One cached artifact with its guards.

    Attributes:
        index: insertion order (0 for the first entry).
        guards: the guard set under which ``artifact`` may be reused.
        checker: ``guards`` compiled.
        artifact: what was cached.
        reason: why it was created (e.g. the guard of another entry that failed).
        pins: the sources its guards pin to a constant.
        extra: a check of what the guards cannot say (``inputs -> bool``: the values a traced
            function read besides its inputs), run after the guards hold; None for none.
    """

    index: int
    guards: GuardSet
    checker: CompiledGuards = field(repr=False)
    artifact: Any = field(repr=False)
    reason: str | None = None
    pins: Mapping[Source, int] = field(default_factory=dict)
    extra: Callable[[Mapping[str, object]], bool] | None = field(default=None, repr=False)


def pinned_sources(guards: GuardSet) -> dict[Source, int]:
    """The sources ``guards`` pin to a constant with a top-level ``Eq(symbol, constant)``.

    >>> from symint.build import symbol_expr, eq
    >>> s0 = symbol_expr("s0")
    >>> pinned_sources(GuardSet.of([eq(s0, 8)], {s0: Source.size("x", 0)}))
    {Source(base='x', kind='size', index=0): 8}
    """
    sources = dict(guards.named_sources)
    pins: dict[Source, int] = {}
    for g in guards:
        e = g.form  # read from the form: no sympy view is built
        if e.kind == "rel" and e.args[0] == "==":
            _, a, b = e.args
            if a.is_const:
                a, b = b, a
            atom = a.atom()
            if atom is not None and atom.kind == "sym" and atom.name in sources and b.is_const:
                pins[sources[atom.name]] = b.const
    return pins


_CHEAP = ("size", "value")


@dataclass(frozen=True, slots=True)
class _Index:
    entries: tuple[CacheEntry, ...] = ()
    key: tuple[Source, ...] = ()
    read_key: Callable[[Mapping[str, object]], tuple] | None = None
    buckets: Mapping[tuple, tuple[CacheEntry, ...]] = field(default_factory=dict)
    wildcards: tuple[CacheEntry, ...] = ()


def _key_reader(key: tuple[Source, ...]) -> Callable[[Mapping[str, object]], tuple]:
    if all(s.kind == "size" for s in key):
        pairs = tuple((s.base, s.index) for s in key)
        if len({b for b, _ in pairs}) == 1:
            base = pairs[0][0]
            dims = tuple(i for _, i in pairs)
            if len(dims) == 1:  # the common case, read without building a list (this is the hot path)
                (dim,) = dims

                def read_dim(inputs: Mapping[str, object]) -> tuple:
                    return (inputs[base].shape[dim],)  # type: ignore[attr-defined]

                return read_dim
            getter = itemgetter(*dims)  # returns a tuple for two or more dims

            def read_one(inputs: Mapping[str, object]) -> tuple:
                return getter(inputs[base].shape)  # type: ignore[attr-defined]

            return read_one

        def read_sizes(inputs: Mapping[str, object]) -> tuple:
            return tuple([inputs[b].shape[i] for b, i in pairs])  # type: ignore[attr-defined]

        return read_sizes

    if all(s.kind in ("size", "value") for s in key):  # sizes and int inputs (a compiled function's pins)
        mixed = tuple((s.base, s.index if s.kind == "size" else None) for s in key)

        def read_mixed(inputs: Mapping[str, object]) -> tuple:
            return tuple([int(inputs[b]) if i is None else inputs[b].shape[i] for b, i in mixed])  # type: ignore

        return read_mixed

    def read_any(inputs: Mapping[str, object]) -> tuple:
        return tuple([s.read(inputs[s.base]) for s in key])

    return read_any


def _build_index(entries: tuple[CacheEntry, ...]) -> _Index:
    counts = Counter(src for e in entries for src in e.pins)
    if any(s.kind in _CHEAP for s in counts):  # sizes and ints are cheaper to read than strides (layout pins)
        counts = Counter({s: n for s, n in counts.items() if s.kind in _CHEAP})
    if not counts:
        return _Index(entries, wildcards=entries)
    best = max(counts.values())
    key = tuple(sorted((s for s, n in counts.items() if n == best), key=lambda s: (s.base, s.kind, s.index or 0)))
    keyed: dict[tuple, list[CacheEntry]] = {}
    wildcards = []
    for e in entries:
        if all(s in e.pins for s in key):
            keyed.setdefault(tuple(e.pins[s] for s in key), []).append(e)
        else:
            wildcards.append(e)
    buckets = {
        k: tuple(sorted(v + wildcards, key=lambda e: e.index)) for k, v in keyed.items()
    }
    return _Index(entries, key, _key_reader(key), buckets, tuple(wildcards))


class GuardedCache:
    """Artifacts with guard sets; :meth:`lookup` finds the first entry whose guards hold."""

    def __init__(self) -> None:
        self._index = _Index()
        self._lock = threading.Lock()
        self._hits: list[int] = []

    def add(self, guards: GuardSet, artifact: Any, reason: str | None = None,
            extra: Callable[[Mapping[str, object]], bool] | None = None) -> CacheEntry:
        """Insert an entry (compiling its guards) and rebuild the dispatch index.

        ``extra``, if given, must also hold for the entry to serve a lookup (see :class:`CacheEntry`).
        """
        checker = compile_guards(guards)
        with self._lock:
            old = self._index
            entry = CacheEntry(len(old.entries), guards, checker, artifact, reason, pinned_sources(guards), extra)
            self._hits.append(0)
            self._index = _build_index(old.entries + (entry,))
        return entry

    def replace_guards(self, index: int, guards: GuardSet) -> CacheEntry:
        """Swap entry ``index``'s guards for ``guards``, which the caller proved equivalent; atomically.

        The artifact, reason, index and hit count stay; the checker and pins are rebuilt.

        >>> from symint.build import symbol_expr, ge, gt
        >>> s0 = symbol_expr("s0")
        >>> src = {s0: Source.size("x", 0)}
        >>> cache = GuardedCache()
        >>> _ = cache.add(GuardSet.of([ge(s0, 2), gt(s0, 3)], src), "a")
        >>> cache.replace_guards(0, GuardSet.of([ge(s0, 4)], src)).guards
        GuardSet(x.size()[0] >= 4)
        """
        checker = compile_guards(guards)
        with self._lock:
            old = self._index
            new = replace(old.entries[index], guards=guards, checker=checker, pins=pinned_sources(guards))
            self._index = _build_index(old.entries[:index] + (new,) + old.entries[index + 1 :])
        return new

    def candidates(self, inputs: Mapping[str, object]) -> tuple[CacheEntry, ...]:
        """The entries whose pinned values agree with ``inputs``, in insertion order."""
        index = self._index
        if index.read_key is None:
            return index.entries
        try:
            key = index.read_key(inputs)
        except (KeyError, IndexError, AttributeError, TypeError):
            return index.entries  # let the checkers report the unreadable input
        return index.buckets.get(key, index.wildcards)

    def lookup(self, inputs: Mapping[str, object]) -> CacheEntry | None:
        """The first entry whose guards hold for ``inputs`` (input name -> array or int), else None."""
        for entry in self.candidates(inputs):
            if entry.checker.check(inputs) and (entry.extra is None or entry.extra(inputs)):
                with self._lock:
                    self._hits[entry.index] += 1
                return entry
        return None

    def explain_miss(self, inputs: Mapping[str, object]) -> list[tuple[CacheEntry, Explanation]]:
        """For each entry, why its guards reject ``inputs`` (the first failing guard)."""
        return [(e, explain_inputs(e.guards, inputs, first_only=True)) for e in self._index.entries]

    @property
    def entries(self) -> tuple[CacheEntry, ...]:
        """All entries, in insertion order."""
        return self._index.entries

    @property
    def key(self) -> tuple[Source, ...]:
        """The sources the dispatch index hashes on."""
        return self._index.key

    def hits(self, entry: CacheEntry) -> int:
        """How many lookups ``entry`` has served."""
        return self._hits[entry.index]

    def __len__(self) -> int:
        return len(self._index.entries)

    def __repr__(self) -> str:
        key = ", ".join(s.text() for s in self.key) or "nothing"
        return f"GuardedCache({len(self)} entries, dispatch on {key})"
