"""``CompiledFunction``: the guarded cache in front of a function, and what happens on a miss.

A call binds its inputs (:mod:`shapeenv.compile.binding`), picks the
:class:`~guards.runtime.cache.GuardedCache` of its key and looks up the first entry whose
guards hold. A hit runs the entry's artifact (or, when the backend gave nothing
runnable, the function itself) on the real inputs; a call with shape specs gets
the output shapes instead. A miss, under the stance of the calling thread,
compiles (traces with :mod:`shapeenv.compile.trace`, installs one entry per
``specialize_on`` predicate plus the generic one), runs eagerly, or raises.

Note [Threads and the cache]
    Lookups take no lock: the key -> cache dict and the list of entry records are
    replaced, never mutated, and a :class:`GuardedCache` publishes each insertion
    as one immutable snapshot. A miss takes the function's lock, looks up again
    (another thread may have compiled that entry meanwhile) and only then
    compiles, so two threads never trace the same miss twice and every published
    entry is complete. Entries are never removed (``reset`` starts a new cache),
    so no call runs a stale entry.

Note [Eager runs]
    Running eagerly (``force_eager``, ``eager_on_recompile``, past the recompile limit, the
    first call of ``eager_then_compile``, and a hit on an entry whose backend returned nothing
    callable) calls the function on the real inputs, with the
    semantics it was traced with: numpy arrays are wrapped in
    :class:`shapeenv.backends.eager.EagerTensor` (torch's methods and layouts over the numpy
    kernels), and results unwrapped. Torch tensors already have those methods and are passed
    as they are.

Note [Simplified guards swapped in]
    An entry is installed with the trace's exact reduced guard set, so the compiled
    function serves calls as soon as the trace ends. When the trace's
    :class:`~shapeenv.core.deferred.ProducedGuards` has proven its Z3-simplified set
    equivalent (in a worker thread), each entry of that trace gets the simplified set
    (with the same int pins and ``specialize_on`` predicate) through
    :meth:`GuardedCache.replace_guards`, one atomic snapshot per entry. Records keep the
    entry's index; introspection reads the current entry from the cache.
    :meth:`CompiledFunction.wait_simplified` waits for every pending swap.

Note [Store-served calls are observed]
    Automatic dynamic compares each miss with the first call the function observed. A
    miss served by an entry another process stored is observed too: otherwise a process
    whose call at 8 was served by a stored static entry would take its call at 9 for its
    first, trace a static entry for 9 (stored, and serving the others' 9) and leave a
    third trace for 10, where one process alone traces twice (8 static, then dynamic).
    Whether a call is served from the store or traced here then makes no difference to
    what later misses trace. (A stored entry's automatic-dynamic sources are carried over
    as well: :meth:`CompiledFunction._install_loaded`.)

Note [hint_override]
    ``mark_dynamic(x, 0, hint_override=32)`` makes the *first* trace of that input
    key decide branches as if the size were 32. The entry it yields serves the
    sizes that take the same decisions; if the call at hand is not one of them
    (the branch went the other way), that call's own sizes are traced right away
    into a second entry, so no entry ever runs on inputs its guards reject. Later
    misses trace with the real sizes (the override said what to optimise for
    first; repeating it would only duplicate that entry).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from guards import Source
from guards.runtime.cache import CacheEntry, GuardedCache
from guards.runtime.explain import explain_inputs

from shapeenv.program.program import ExportedProgram
from shapeenv.ops.registry import load_eager_kernels
from shapeenv.core.provenance import user_frame
from shapeenv.compile.stance import Stance, stance_now
from shapeenv.compile.binding import INLINE, Binder, Call, describe_key, key_differences
from shapeenv.compile.budget import Fallback, Forced, GuardBudget, charged_sources, guards_per_source
from shapeenv.errors import ShapeEnvTypeError
from shapeenv.compile.errors import RecompileError, RecompileLimitWarning
from shapeenv.compile.info import CacheInfo, EntryInfo, RecompileReason, suggest_from
from shapeenv.compile.persist import NEVER, Loaded, Persistence, StoredArtifact
from shapeenv.compile.plan import CompileOptions, Dynamism, make_plan
from shapeenv.compile.reads import NO_READS, Reads
from shapeenv.compile.trace import Traced, output_shapes, trace_call

__all__ = ["CompiledFunction", "Backend"]

#: A backend takes the traced program and returns the artifact to cache; a callable
#: artifact runs in place of the function on real inputs.
Backend = Callable[[ExportedProgram], Any]

_FORCE_EAGER = Stance.FORCE_EAGER


class _Artifact:
    """What a cache entry holds: the backend's artifact, what to run, the program and its label."""

    __slots__ = ("artifact", "run", "program", "label")

    def __init__(self, artifact: Any, run: Callable, program: ExportedProgram, label: str | None):
        self.artifact, self.run, self.program, self.label = artifact, run, program, label

    def __repr__(self) -> str:
        return f"<artifact of {self.program.signature()}{' [' + self.label + ']' if self.label else ''}>"


@dataclass(frozen=True, slots=True)
class _Record:
    index: int
    key: tuple
    entry: CacheEntry
    reason: RecompileReason
    dynamic: str
    label: str | None
    seconds: float
    notes: tuple[str, ...] = ()
    reads: Reads = NO_READS

    @property
    def program(self) -> ExportedProgram | None:
        """The entry's program (None for a stored entry no call has used yet: it is loaded on first use)."""
        art = self.entry.artifact
        return art.loaded_program if isinstance(art, StoredArtifact) else art.program


class CompiledFunction:
    """A function behind a guarded compilation cache; build it with :func:`shapeenv.compile.compile`.

    Attributes:
        options: the frozen :class:`~shapeenv.compile.plan.CompileOptions`.
    """

    def __init__(self, fn: Callable, options: CompileOptions, backend: Backend | None = None, store=None,
                 budget: GuardBudget | None = None):
        if not callable(fn):
            raise ShapeEnvTypeError(f"compile() takes a function, got {fn!r}", fix="compile(f), or @compile above def f(...)")
        if backend is not None and not callable(backend):
            raise ShapeEnvTypeError(f"backend must be a callable taking the traced program, got {backend!r}",
                                    fix="compile(f, backend=my_backend)  # def my_backend(program): return a callable")
        if budget is not None and not isinstance(budget, GuardBudget):
            raise ShapeEnvTypeError(f"budget must be a GuardBudget, got {budget!r}", fix="compile(f, budget=GuardBudget(max_guards_per_source=8))")
        self._fn = fn
        self.options = options
        self._backend = backend
        self._budget = budget if budget is not None and budget.active else None
        self._persist = None if store is None else Persistence(store, fn, options.name, _trace_settings(options, budget),
                                                                backend)
        if self._persist is not None:
            self._persist.retrace = self._retrace_broken
        self._binder = Binder(fn)
        self._lock = threading.RLock()
        self._reset_state()
        functools.update_wrapper(self, fn)

    def _reset_state(self) -> None:
        self._caches: dict[tuple, GuardedCache] = {}  # replaced, never mutated (Note [Threads and the cache])
        self._records: tuple[_Record, ...] = ()
        self._pending: tuple = ()  # the ProducedGuards of every trace, for wait_simplified
        self._reasons: tuple[RecompileReason, ...] = ()
        self._dynamism = Dynamism()
        self._compilations = 0
        self._misses = 0
        self._eager_calls = 0
        self._ran_eager_first = False
        self._limit_warned = False
        self._fallbacks: tuple[Fallback, ...] = ()
        if self._persist is not None:
            self._persist.forget()

    # -- the hot path -----------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        stance = stance_now()
        if stance is _FORCE_EAGER:
            return self._run_eagerly(args, kwargs)
        bound = None if kwargs else self._binder.fast(args)
        if bound is None:
            call = self._binder.bind(args, kwargs)
            if call is INLINE:  # traced inside another trace: the function is part of that trace
                return self._fn(*args, **kwargs)
            key, inputs = call.key, call.inputs
        else:
            call = None
            key, inputs = bound
        cache = self._caches.get(key)
        if cache is not None:
            entry = cache.lookup(inputs)
            if entry is not None:
                if call is not None and call.spec:
                    return self._shapes(entry, inputs, args, kwargs)
                return entry.artifact.run(*args, **kwargs)
        return self._miss(args, kwargs, call if call is not None else self._binder.bind(args, kwargs), stance)

    # -- misses -----------------------------------------------------------------------------------
    def _run_eagerly(self, args: tuple, kwargs: dict, call: Call | None = None) -> Any:
        """Run ``fn`` itself; for shape specs (nothing to run on) trace once, uncached, for the output shapes."""
        if call is None and (kwargs or self._binder.fast(args) is None):
            try:
                bound = self._binder.bind(args, kwargs)
            except TypeError:  # let the function itself say what is wrong with its arguments
                bound = INLINE
            call = None if bound is INLINE else bound  # type: ignore[assignment]
        if call is not None and call.spec:
            plan = make_plan(call, self.options, Dynamism(), overrides=False)
            traced = trace_call(self._fn, call, plan, self.options.name, *self._arguments(args, kwargs))
            return output_shapes(traced.program, call.inputs)
        return self._call_fn(*args, **kwargs)

    def _call_fn(self, *args: Any, **kwargs: Any) -> Any:
        """The function itself on real inputs, numpy arrays wrapped with torch's methods (Note [Eager runs])."""
        if _has_numpy_array((args, kwargs)):
            load_eager_kernels()  # imports shapeenv.backends on first use (see shapeenv/__init__)
            eager = sys.modules.get("shapeenv.backends.eager")
            if eager is not None:
                return eager.wrap_call(self._fn, args, kwargs)
        return self._fn(*args, **kwargs)

    def _miss(self, args: tuple, kwargs: dict, call: Call, stance: Stance) -> Any:
        entry = self._resolve(args, kwargs, call, stance)
        if entry is None:
            return self._run_eagerly(args, kwargs, call)
        if call.spec:
            return self._shapes(entry, call.inputs, args, kwargs)
        return entry.artifact.run(*args, **kwargs)

    def _resolve(self, args: tuple, kwargs: dict, call: Call, stance: Stance) -> CacheEntry | None:
        """The entry to run (found or compiled), or None to run eagerly; under the lock."""
        with self._lock:
            cache = self._caches.get(call.key)
            if cache is not None:
                entry = cache.lookup(call.inputs)
                if entry is not None:  # another thread compiled it meanwhile
                    return entry
            entry = self._from_store(call)
            if entry is not None:  # Note [Store-served calls are observed]
                self._dynamism.observe(call)
                return entry
            self._misses += 1
            first = self._compilations == 0
            if first and stance is Stance.EAGER_THEN_COMPILE and not self._ran_eager_first:
                self._ran_eager_first = True
                self._dynamism.observe(call)
                self._eager_calls += 1
                return None
            reason = RecompileReason() if not self._records else self._reason(call)
            if not first:
                if stance is Stance.FAIL_ON_RECOMPILE:
                    raise RecompileError(self.options.name, reason.text)
                if stance is Stance.EAGER_ON_RECOMPILE:
                    self._eager_calls += 1
                    return None
                if self._compilations >= self.options.recompile_limit:
                    self._eager_calls += 1
                    self._warn_limit(reason)
                    return None
            self._dynamism.observe(call)
            if not first and _log.isEnabledFor(logging.INFO):
                _log.info("Recompiling %s: %s  # called at %s", self.options.name, reason.text, reason.call_site)
            if not first and self._budget is not None:
                self._charge(reason)
            with self._persist.lease(call.key) if self._persist is not None else contextlib.nullcontext(False):
                entry = self._from_store(call)  # stored by another process while this one waited for the lease
                if entry is not None:
                    return entry
                entry = self._compile(call, args, kwargs, reason)
            if not first:
                self._reasons += (reason,)
            return entry

    def _arguments(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, list[str]]:
        top = self._binder.top_level(args, kwargs)
        return args, kwargs, [name for name, _ in top[: len(args)]]

    def _compile(self, call: Call, args: tuple, kwargs: dict, reason: RecompileReason) -> CacheEntry:
        first_of_key = call.key not in self._caches
        overrides = first_of_key and any(m.hint_override is not None for ms in call.marks.values() for _, m in ms.dims)
        plan = make_plan(call, self.options, self._dynamism, overrides=overrides)
        arguments = self._arguments(args, kwargs)
        traced = trace_call(self._fn, call, plan, self.options.name, *arguments)
        if self._budget is not None:
            traced = self._within_guard_budget(call, traced, arguments)
        self._compilations += 1
        installed = self._install(call.key, traced, reason)
        entry = _accepting(installed, call)
        if entry is None and traced.plan.overrides:
            why = explain_inputs(installed[-1].guards, call.inputs, first_only=True)
            hints = ", ".join(f"{s.text()}={h}" for s, h in traced.plan.overrides.items())
            again = RecompileReason(
                ((len(self._records) - 1, str(why)),), reason.pins,
                f"the trace with hint_override {hints} rejects this call; traced again with its sizes",
                call_site=reason.call_site,
            )
            traced = trace_call(self._fn, call, plan.without_overrides(), self.options.name, *arguments)
            entry = _accepting(self._install(call.key, traced, again), call)
        if entry is None:
            raise RuntimeError(  # an invariant (the traced guards hold on their own inputs), not a user error
                f"internal error: the guards traced for {describe_key(call.key)} reject the inputs they were traced on"
            )
        return entry

    def _install(self, key: tuple, traced: Traced, reason: RecompileReason) -> list[CacheEntry]:
        cache = self._caches.get(key)
        fresh = cache is None
        if fresh:
            cache = GuardedCache()
        program = traced.program
        dynamic = traced.plan.describe()
        new: list[CacheEntry] = []
        records = list(self._records)
        reads = traced.reads
        extra = reads.check if reads.probes else None
        for label, guards in [(s.label, s.guards) for s in traced.specializations] + [(None, traced.guards)]:
            entry = cache.add(guards, self._artifact(program, label), reason.text, extra)
            new.append(entry)
            notes = traced.skipped if label is None else ()
            records.append(_Record(len(records), key, entry, reason, dynamic, label, traced.seconds, notes, reads))
        if fresh:
            self._caches = {**self._caches, key: cache}
        self._records = tuple(records)
        produced = program.produced
        if produced is not None:  # Note [Simplified guards swapped in]
            indices = [e.index for e in new]

            def swap(simplified, cache=cache, indices=indices, traced=traced) -> None:
                for index, (_, guards) in zip(indices, traced.entry_guards(simplified)):
                    cache.replace_guards(index, guards)

            self._pending += (produced,)
            produced.on_simplified(swap)
        if self._persist is not None:
            self._save(key, traced, reason, new)
        return new

    def wait_simplified(self, timeout: float | None = None) -> bool:
        """Wait until every entry has its Z3-simplified guard set (or kept its reduced one); True if all done.

        >>> import numpy as np
        >>> from shapeenv.compile import compile
        >>> f = compile(lambda x: x.reshape(-1, 4), dynamic=True)
        >>> _ = f(np.zeros(8)); f.wait_simplified()
        True
        """
        for produced in self._pending:
            produced.wait(timeout)
        return all(p.done for p in self._pending)

    def _entry(self, rec: _Record) -> CacheEntry:
        """The current form of a record's entry (its guards may have been swapped for simplified ones)."""
        return self._caches[rec.key].entries[rec.entry.index]

    # -- the store (shapeenv.compile.persist) -------------------------------------------------------
    def _from_store(self, call: Call) -> CacheEntry | None:
        """Install the entries stored for ``call.key`` since the last look; the one accepting ``call``, if any."""
        if self._persist is None:
            return None
        loaded = self._persist.sync(call.key, call.inputs)
        if not loaded:
            return None
        self._install_loaded(call.key, loaded)
        cache = self._caches[call.key]
        entry = cache.lookup(call.inputs)
        while entry is not None and isinstance(entry.artifact, StoredArtifact) and not entry.artifact.ready():
            cache.replace_guards(entry.index, NEVER)  # Note [A stored entry that fails]: never serves
            entry = cache.lookup(call.inputs)
        return entry

    def _shapes(self, entry: CacheEntry, inputs: Mapping[str, Any], args: tuple, kwargs: dict) -> Any:
        """The output shapes of a shape-spec call served by ``entry`` (a stored one that fails to load: traced again)."""
        art = entry.artifact
        if isinstance(art, StoredArtifact) and not art.ready():
            return self._retrace_broken(art.entry.id, args, kwargs)
        return output_shapes(art.program, inputs)

    def _retrace_broken(self, entry_id: str, args: tuple, kwargs: dict) -> Any:
        """A call reached a stored entry whose body failed to load: disable it and call again (it traces)."""
        with self._lock:
            for cache in self._caches.values():
                for e in cache.entries:
                    if isinstance(e.artifact, StoredArtifact) and e.artifact.entry.id == entry_id:
                        cache.replace_guards(e.index, NEVER)
        return self(*args, **kwargs)

    def _install_loaded(self, key: tuple, loaded: list[Loaded]) -> None:
        cache = self._caches.get(key)
        fresh = cache is None
        if fresh:
            cache = GuardedCache()
        records = list(self._records)
        where = self._persist.store.description if self._persist is not None else "a store"
        reads = self._persist.fingerprint_reads() if self._persist is not None else NO_READS
        extra = reads.check if reads.probes else None  # Note [Reads behind a fingerprint]
        for item in loaded:
            prov = item.entry.provenance
            reason = RecompileReason(note=f"loaded from {where} (traced by process {prov.get('pid', '?')} on "
                                          f"{prov.get('host', '?')}: {prov.get('reason', '?')})")
            entry = cache.add(item.guards, item.artifact, reason.text, extra)
            records.append(_Record(len(records), key, entry, reason, str(prov.get("dynamic", "?")), item.entry.label,
                                   float(prov.get("seconds", 0.0)), reads=reads))
            for base, index, how in prov.get("automatic_dynamic", []):
                src = Source.size(base, index) if index is not None else Source.value(base)
                self._dynamism.changed.setdefault(src, f"{how} (in the process that stored entry {item.entry.id[:12]})")
        if fresh:
            self._caches = {**self._caches, key: cache}
        self._records = tuple(records)

    def _save(self, key: tuple, traced: Traced, reason: RecompileReason, new: list[CacheEntry]) -> None:
        automatic = [
            [d.source.base, d.source.index, d.why.removeprefix("automatic dynamic: ").split(" (in the process ")[0]]
            for d in traced.plan.decisions.values() if d.dynamic and d.why.startswith("automatic dynamic")
        ]
        provenance = {"reason": reason.text, "dynamic": traced.plan.describe(), "seconds": traced.seconds,
                      "automatic_dynamic": automatic}
        entries = [(e.artifact.label, e.guards, e.artifact.artifact) for e in new]
        self._persist.save(key, traced.program, entries, provenance)  # type: ignore[union-attr]

    # -- the guard budget (shapeenv.compile.budget) -----------------------------------------------
    def _fall_back(self, source: Source, dynamic: bool, limit: str, why: str) -> None:
        observed = self._dynamism.observed.get(source)
        seen = f"; observed {observed[0]}..{observed[1]}" if observed else ""
        to = "dynamic" if dynamic else "static"
        text = f"guard budget: {why} ({limit}); traced {to}{seen}"
        self._dynamism.forced[source] = Forced(dynamic, text)
        self._fallbacks += (Fallback(source, to, limit, why + seen, self._compilations, observed),)

    def _charge(self, reason: RecompileReason) -> None:
        """Apply the recompile limits of the budget before a recompile (Note [Budget fallbacks])."""
        budget = self._budget
        assert budget is not None
        charged = charged_sources(self._reasons + (reason,))
        over = []
        if budget.max_recompiles_per_source is not None:
            over += [(s, "max_recompiles_per_source", f"{s.text()} caused {n} recompiles, more than "
                      f"{budget.max_recompiles_per_source}") for s, n in charged.items() if n > budget.max_recompiles_per_source]
        if budget.max_recompiles is not None and len(self._reasons) + 1 > budget.max_recompiles:
            over += [(s, "max_recompiles", f"{self.options.name} recompiled {len(self._reasons) + 1} times, more than "
                      f"{budget.max_recompiles}; {s.text()} caused {n}") for s, n in charged.items()]
        for source, limit, why in over:  # explicit static_sources beat the budget (Note [Budget fallbacks])
            if source not in self._dynamism.forced and self.options.static_sources.match(source) is None:
                self._fall_back(source, True, limit, why)

    def _within_guard_budget(self, call: Call, traced: Traced, arguments: tuple) -> Traced:
        """Retrace with sources static until the entry's guards fit the budget (Note [Budget fallbacks])."""
        budget = self._budget
        assert budget is not None
        while True:
            dynamic = [s for s, d in traced.plan.decisions.items() if d.dynamic and not d.strong]
            counts = guards_per_source(traced.guards, dynamic)
            over = []
            if budget.max_guards_per_source is not None:
                over = [(s, "max_guards_per_source", f"{n} guards mention {s.text()}, more than "
                         f"{budget.max_guards_per_source}") for s, n in counts.items() if n > budget.max_guards_per_source]
            if not over and budget.max_guards is not None and len(traced.guards) > budget.max_guards and counts:
                worst = max(counts, key=lambda s: (counts[s], -list(counts).index(s)))
                over = [(worst, "max_guards", f"the entry has {len(traced.guards)} guards, more than {budget.max_guards}; "
                         f"{counts[worst]} mention {worst.text()}")]
            if not over:
                return traced
            for source, limit, why in over:
                self._fall_back(source, False, limit, why)
            plan = traced.plan.with_static([s for s, _, _ in over], self._dynamism.forced[over[0][0]].why)
            for s, _, _ in over[1:]:
                plan = plan.with_static([s], self._dynamism.forced[s].why)
            traced = trace_call(self._fn, call, plan, self.options.name, *arguments)

    def _artifact(self, program: ExportedProgram, label: str | None) -> _Artifact:
        artifact = program if self._backend is None else self._backend(program)
        run = artifact if callable(artifact) else self._call_fn
        return _Artifact(artifact, run, program, label)

    def _reason(self, call: Call) -> RecompileReason:
        """The first failed check of every entry on ``call`` (see :mod:`shapeenv.compile.info`)."""
        failures: list[tuple[int, str]] = []
        closest: tuple[int, int, tuple] | None = None
        explained = {}
        cache = self._caches.get(call.key)
        if cache is not None:
            explained = {e.index: why for e, why in cache.explain_miss(call.inputs)}
        for rec in self._records:
            if rec.key != call.key:
                diffs = key_differences(rec.key, call.key)
                failures.append((rec.index, diffs[0] if diffs else "the input key differs"))
                continue
            why = explained.get(rec.entry.index)
            if why is not None and why.failures:
                failures.append((rec.index, _with_line(why.failures[0])))
            else:  # the guards hold: something the trace read changed (Note [How a read is checked])
                failures.append((rec.index, rec.reads.explain(call.inputs) or "its guards reject the inputs"))
            pins = tuple(  # sizes and ints: what suggest_dynamic can make dynamic (strides follow the sizes)
                (src, const, got)
                for src, const in self._entry(rec).pins.items()
                if src.kind in ("size", "value") and (got := src.read(call.inputs[src.base])) != const
            )
            rank = (len(pins), -rec.index)
            if closest is None or rank < closest[:2]:
                closest = (*rank, pins)
        return RecompileReason(tuple(failures), closest[2] if closest else (), call_site=user_frame())

    def _warn_limit(self, reason: RecompileReason) -> None:
        if self._limit_warned:
            return
        self._limit_warned = True
        suggestions = suggest_from(self._reasons + (reason,), min_count=1)
        if suggestions:
            patterns = ",".join(s.pattern for s in suggestions)
            advice = (
                f"To stop recompiling, make dynamic: {'; '.join(s.code for s in suggestions)} "
                f"(or compile(..., dynamic_sources={patterns!r}))."
            )
        else:
            advice = "No size was pinned to different constants; see cache_info() for the guards that fail."
        warnings.warn(
            f"{self.options.name} reached its recompile_limit ({self.options.recompile_limit}): calls no cached entry "
            f"accepts now run eagerly. This call: {reason}. {advice}",
            RecompileLimitWarning,
            stacklevel=5,
        )

    # -- introspection ----------------------------------------------------------------------------
    def cache_info(self) -> CacheInfo:
        """A frozen snapshot of the entries (guards, hits, reasons) and counters.

        >>> import numpy as np
        >>> from shapeenv.compile import compile
        >>> f = compile(lambda x: x * 2)
        >>> _ = f(np.zeros(8)); _ = f(np.zeros(9)); _ = f(np.zeros(10))
        >>> info = f.cache_info()
        >>> [(e.index, e.hits, e.reason.text) for e in info.entries]
        [(0, 0, 'first call'), (1, 1, 'x.size()[0] == 8 failed: got 9')]
        """
        with self._lock:
            records, caches = self._records, self._caches
            counters = (self._compilations, self._misses, self._eager_calls)
            limit_reached = self._limit_warned
            fallbacks = self._fallbacks
        entries = tuple(
            EntryInfo(
                r.index, describe_key(r.key), caches[r.key].entries[r.entry.index].guards, caches[r.key].hits(r.entry),
                r.reason, r.dynamic,
                r.label, r.seconds, r.program, r.notes, tuple(r.reads.describe()),
            )
            for r in records
        )
        p = self._persist
        stored = (p.describe(), p.loaded, p.saved) if p is not None else (None, 0, 0)
        return CacheInfo(self.options.name, entries, *counters, self.options.recompile_limit, limit_reached,
                         fallbacks, *stored)

    def caches(self) -> Mapping[str, GuardedCache]:
        """The guarded cache of each input key (described in words), with its dispatch index.

        >>> import numpy as np
        >>> from shapeenv.compile import compile
        >>> f = compile(lambda x: x + 1, dynamic=False)
        >>> _ = f(np.zeros(2)); _ = f(np.zeros(3))
        >>> f.caches()
        {'x: float64[1-d] ndarray': GuardedCache(2 entries, dispatch on x.size()[0])}
        """
        return {describe_key(key): cache for key, cache in self._caches.items()}

    def recompile_reasons(self) -> tuple[RecompileReason, ...]:
        """The reason of every recompilation (not of the first compilation), in order.

        >>> import numpy as np
        >>> from shapeenv.compile import compile
        >>> f = compile(lambda x: x + 1, dynamic=False)
        >>> _ = f(np.zeros(2)); _ = f(np.zeros(3))
        >>> [r.text for r in f.recompile_reasons()]
        ['x.size()[0] == 2 failed: got 3']
        """
        return self._reasons

    def reset(self) -> None:
        """Forget every entry, counter and automatic-dynamic observation (calls in flight finish on the old cache).

        >>> import numpy as np
        >>> from shapeenv.compile import compile
        >>> f = compile(lambda x: x + 1); _ = f(np.zeros(2)); f.reset(); f.cache_info().entries
        ()
        """
        with self._lock:
            self._reset_state()

    def __repr__(self) -> str:
        return f"<compiled {self.options.name}: {len(self._records)} entries>"


def _has_numpy_array(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_numpy_array(v) for v in value)
    if isinstance(value, dict):
        return any(_has_numpy_array(v) for v in value.values())
    return type(value).__module__ == "numpy" and hasattr(value, "strides")


_log = logging.getLogger("shapeenv.recompiles")  # a topic of SHAPEENV_LOGS (shapeenv.logs); off by default
_USER_LINE = re.compile(r"(\S+:\d+ in [\w<>.]+)")


def _with_line(failure) -> str:
    """``x.size()[0] >= 5 failed: got 3 (guard from model.py:4 in f)``: the failure and the user lines it came from."""
    lines = list(dict.fromkeys(_USER_LINE.findall(failure.guard.origin or "")))
    return f"{failure} (guard from {', '.join(lines)})" if lines else str(failure)



def _trace_settings(options: CompileOptions, budget: GuardBudget | None) -> dict:
    """What changes a trace, for a stored function's fingerprint (Note [What the fingerprint covers])."""
    return {
        "name": options.name,
        "dynamic": options.dynamic,
        "dynamic_sources": [p[0] for p in options.dynamic_sources.patterns],
        "static_sources": [p[0] for p in options.static_sources.patterns],
        "budget": budget.settings() if budget is not None else None,
    }


def _accepting(entries: list[CacheEntry], call: Call) -> CacheEntry | None:
    for entry in entries:
        if entry.checker.check(call.inputs) and (entry.extra is None or entry.extra(call.inputs)):
            return entry
    return None
