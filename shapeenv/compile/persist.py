"""A compiled function's link to a store (``compile(fn, store=...)``): what it loads, what it saves.

Note [A fresh process traces nothing]
    On a miss in its own cache, a compiled function asks the store for the heads of the
    entries of its fingerprint and input key stored since it last asked (Note [Head and
    body] in :mod:`shapeenv.stores.entry`), installs those whose pinned sources agree
    with the call (the others wait, unparsed, for a call they may serve) in its cache
    (guards compiled, artifact not yet loaded) and looks up again. Only if none
    accepts the call does it compile: under the store's compile lease, after looking
    once more (another process may have stored the entry while this one waited). A
    trace's entries are saved before the lease is released. An installed entry loads
    its program and artifact on its first hit (:class:`StoredArtifact`), so a store
    with many entries costs one indexed query of heads and the guard sets of the
    candidates, not every guard set and program.

    A stored entry is used exactly as an entry traced in this process would be: its
    guard set must hold, and the key (names, types, dtypes, ranks) matched exactly.
    Entries also carry the sources automatic dynamic had made dynamic when they were
    traced; loading them marks those sources changed, so that the first trace of a
    fresh process is already dynamic where an earlier process found it had to be.

Note [A stored entry that fails]
    Whatever goes wrong with a stored entry is a warning and a trace, never an
    exception in the caller and never a served entry: a head that does not verify
    is skipped by the store (Note [A store that fails] in :mod:`shapeenv.stores.base`);
    a head whose provenance or guards do not decode is skipped here; a body or
    artifact that fails to load, with any exception (a damaged program, a kernel the
    backend lacks, a recursion too deep), is loaded before its entry serves its first
    call: the entry is then disabled (its guards replaced by ``False``), a
    :class:`~shapeenv.stores.DamagedEntryWarning` names it, and the call looks up and
    traces again. The fingerprint likewise: any failure to compute it (of any
    exception type) means this miss neither loads nor saves, with one warning.

Note [What is not stored]
    A call whose key has no stable form (a marked input: marks hold callables; a
    constant input that is not a number or string) is neither loaded nor saved. A
    function whose fingerprint cannot be computed, or a backend that does not opt in
    to serialising its artifacts (:class:`StorableBackend`), stores nothing: one
    :class:`~shapeenv.stores.NotStorableWarning` says why. The default backend (the
    program itself) and :func:`shapeenv.backends.numpy_backend` opt in.

>>> from shapeenv.compile.binding import Binder
>>> encode_key(Binder(lambda x, n: None).bind(((4, 3), 2), {}).key)[1]
'x: float32[2-d] spec, n: int'
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import socket
import threading
import time
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable, Protocol, runtime_checkable

from symint.lazy_sympy import sympy

from guards import GuardSet, Source
from guards.runtime.cache import pinned_sources
from guards.text.serialize import decode_guards, encode_guards

from shapeenv.errors import ShapeEnvTypeError
from shapeenv.program.program import ExportedProgram
from shapeenv.program.io import program_from_json, program_to_json
from shapeenv.stores.base import Store
from shapeenv.stores.entry import StoredEntry, canonical_json
from shapeenv.stores.errors import DamagedEntryWarning, NotStorableWarning, StoreFormatError
from shapeenv.stores.fingerprint import CodeDigests, fingerprint_and_reads
from shapeenv.compile.binding import describe_key
from shapeenv.compile.reads import NO_READS, Probe, Reads

__all__ = ["StorableBackend", "Persistence", "StoredArtifact", "Loaded", "encode_key", "PROGRAM_BACKEND", "NEVER"]

#: The guards of a disabled stored entry (Note [A stored entry that fails]): they never hold.
NEVER = GuardSet.of([False], {})

#: The stored name of the default backend (the artifact is the program itself).
PROGRAM_BACKEND = "program"


@runtime_checkable
class StorableBackend(Protocol):
    """A backend that opts in to storing its artifacts.

    Attributes:
        store_name: a stable name (and version) of the backend, part of the fingerprint.
    """

    store_name: str

    def __call__(self, program: ExportedProgram) -> Any:
        """The artifact of ``program``."""

    def dump_artifact(self, artifact: Any) -> Any:
        """What :meth:`load_artifact` needs besides the program, as JSON-ready data."""

    def load_artifact(self, data: Any, program: ExportedProgram) -> Any:
        """The artifact again, from :meth:`dump_artifact` 's data and the loaded program."""


class _Unstorable(Exception):
    pass


def _key_item(v: Any) -> Any:
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, type):
        return {"type": f"{v.__module__}.{v.__qualname__}"}
    if isinstance(v, tuple):
        return [_key_item(x) for x in v]
    if isinstance(v, enum.Enum):
        return {"enum": f"{type(v).__module__}.{type(v).__qualname__}.{v.name}"}
    name = getattr(v, "name", None)
    if isinstance(name, str) and ("dtype" in type(v).__qualname__.lower() or type(v).__qualname__ == "DType"):
        return {"dtype": f"{type(v).__module__}.{type(v).__qualname__}:{v}"}
    raise _Unstorable(f"the cache key holds a {type(v).__qualname__} ({v!r:.60})")


def encode_key(key: tuple) -> tuple[str, str] | None:
    """``(digest, text)`` of a cache key, or None when it has no stable form (Note [What is not stored])."""
    try:
        return key_digest(key)
    except _Unstorable:
        return None


def key_digest(key: tuple) -> tuple[str, str]:
    """``(digest, text)`` of a cache key.

    Raises:
        _Unstorable: the key holds marks or a value with no stable form (the message says which).
    """
    names, marks = key[0], key[1]
    if marks:
        raise _Unstorable("marked inputs (mark_dynamic & co.) are not stored")
    doc = [list(names), [_key_item(item) for item in key[2:]]]
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest(), describe_key(key)


@dataclass(frozen=True, slots=True)
class Loaded:
    """One stored entry, ready to install in a compiled function's cache."""

    entry: StoredEntry
    guards: GuardSet
    artifact: "StoredArtifact"


class StoredArtifact:
    """The artifact of a stored entry, loaded on first use (Note [A fresh process traces nothing]).

    Has the attributes of a freshly compiled entry's artifact: ``artifact``, ``run``, ``program``, ``label``.
    """

    __slots__ = ("entry", "_load", "_lock", "_loaded", "broken")

    def __init__(self, entry: StoredEntry, load: Callable[[StoredEntry], tuple[Any, Callable, ExportedProgram]]):
        self.entry = entry
        self._load = load
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Callable, ExportedProgram] | None = None
        self.broken = False  # its body or artifact failed to load (Note [A stored entry that fails])

    def _get(self) -> tuple[Any, Callable, ExportedProgram]:
        loaded = self._loaded
        if loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = self._load(self.entry)
                    self.broken = self._loaded[2] is None
                loaded = self._loaded
        return loaded

    @property
    def artifact(self) -> Any:
        """The backend's artifact."""
        return self._get()[0]

    @property
    def run(self) -> Callable:
        """What runs on the real inputs."""
        return self._get()[1]

    @property
    def program(self) -> ExportedProgram:
        """The traced program.

        Raises:
            StoreFormatError: the stored program could not be loaded (calls on real inputs then run eagerly).
        """
        program = self._get()[2]
        if program is None:
            raise StoreFormatError(f"the stored entry {self.entry.id[:12]} could not be loaded; clear the store")
        return program

    @property
    def label(self) -> str | None:
        """The ``specialize_on`` condition, if any."""
        return self.entry.label

    @property
    def loaded_program(self) -> ExportedProgram | None:
        """The program if it has been read (and could be), else None; reads nothing."""
        loaded = self._loaded
        return None if loaded is None else loaded[2]

    @property
    def is_loaded(self) -> bool:
        """Whether the program and artifact have been read yet."""
        return self._loaded is not None

    def ready(self) -> bool:
        """Load the program and artifact now; whether they loaded (False: the entry must not serve)."""
        self._get()
        return not self.broken

    def __repr__(self) -> str:
        return f"<stored artifact {self.entry.id[:12]} ({self.entry.inputs})>"


class Persistence:
    """Loads and saves one compiled function's entries (see the module docstring); used under its lock."""

    def __init__(self, store: Store, fn: Callable, name: str, settings: dict, backend: Any):
        if not isinstance(store, Store):
            raise ShapeEnvTypeError(f"store must be a shapeenv.stores store (MemoryStore, DiskStore, RedisStore), got {store!r}",
                                    fix="compile(fn, store=shapeenv.stores.DiskStore('/tmp/cache'))")
        self.store = store
        self._fn = fn
        self._name = name
        self._backend = backend
        self._settings = settings
        self._fingerprint: str | None = None  # computed at the start of each miss (Note [A fingerprint per miss])
        self._fingerprint_reads: list = []  # what it read: Note [Reads behind a fingerprint]
        self._codes = CodeDigests()
        self._disabled: str | None = None
        self._unfingerprintable: str | None = None
        self.retrace: Callable[..., Any] | None = None  # set by the compiled function: (entry id, args, kwargs) -> result
        if backend is not None and not isinstance(backend, StorableBackend):
            self._disabled = (f"its backend {getattr(backend, '__name__', backend)!r} does not opt in to storing "
                              "artifacts (give it store_name, dump_artifact and load_artifact)")
        self._seen: dict[str, int] = {}  # key digest -> last sequence number loaded
        self._ids: set[str] = set()  # entries installed (from the store or traced here)
        self._pending: dict[str, list[tuple[str, tuple]]] = {}  # key digest -> (id, pins) of entries not installed
        self.loaded = 0
        self.saved = 0
        self.load_failures = 0
        self._warned = False

    def forget(self) -> None:
        """Forget what was loaded (after ``reset()``: the next miss loads the stored entries again)."""
        self._seen = {}
        self._ids = set()
        self._pending = {}

    # -- identity ---------------------------------------------------------------------------------
    @property
    def backend_name(self) -> str:
        return PROGRAM_BACKEND if self._backend is None else str(self._backend.store_name)

    def fingerprint(self, fresh: bool = False) -> str | None:
        """The function's fingerprint, or None when nothing can be stored.

        Args:
            fresh: compute it again (at the start of a miss: Note [A fingerprint per miss] in
                :mod:`shapeenv.stores.fingerprint`); else the one of the current miss.
        """
        if self._disabled is not None:
            self._warn_disabled()
            return None
        if fresh or self._fingerprint is None:
            try:
                self._fingerprint, self._fingerprint_reads = fingerprint_and_reads(
                    self._fn, {**self._settings, "backend": self.backend_name}, self._codes)
                self._unfingerprintable = None
            except RecursionError:
                self._fingerprint, self._unfingerprintable = None, "its code or state is nested too deeply to fingerprint"
            except Exception as e:  # Unfingerprintable, or anything the function's state raises when read
                self._fingerprint, self._unfingerprintable = None, f"{type(e).__name__}: {e}"
        if self._fingerprint is None:
            self._note_unstorable(f"its fingerprint cannot be computed ({self._unfingerprintable}); "
                                  "it keeps its in-process cache only")
        return self._fingerprint

    def fingerprint_reads(self) -> Reads:
        """What the current fingerprint read, as checks (Note [Reads behind a fingerprint]).

        A stored entry carries no record of the reads of its trace; it was found under a
        fingerprint that hashed the current values of everything the function reads, so it is
        served on later calls only while those values stay as they were when it was loaded.
        """
        probes = [Probe.of(what, lambda inputs, read=read: read(), value)
                  for what, read, value in self._fingerprint_reads]
        return Reads.of(probes) if probes else NO_READS

    def _warn_disabled(self) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(f"{self._name}: entries are not stored in {self.store.description}: {self._disabled}",
                          NotStorableWarning, stacklevel=6)

    @property
    def disabled(self) -> str | None:
        """Why nothing is stored, if so."""
        return self._disabled or self._unfingerprintable

    # -- loading ----------------------------------------------------------------------------------
    def _key(self, key: tuple) -> tuple[str, str] | None:
        """The key's digest and text; None (with one warning, unless it is only marks) when it has none."""
        try:
            return key_digest(key)
        except _Unstorable as e:
            if not key[1]:
                self._note_unstorable(f"{describe_key(key)}: {e}")
            return None

    def sync(self, key: tuple, inputs: Any) -> list[Loaded]:
        """The stored entries of ``key`` not installed yet whose pins agree with ``inputs`` (Note [A fresh
        process traces nothing]); none for a key with no stable form."""
        fp = self.fingerprint(fresh=True)
        encoded = self._key(key) if fp is not None else None
        if fp is None or encoded is None:
            return []
        digest = encoded[0]
        pending = self._pending.setdefault(digest, [])
        for seq, entry_id, pins in self.store.index(fp, digest, self._seen.get(digest, 0)):
            self._seen[digest] = max(seq, self._seen.get(digest, 0))
            if entry_id not in self._ids:
                pending.append((entry_id, _sources(pins) if pins is not None else ()))
        chosen, keep = [], []
        for entry_id, pins in pending:
            if entry_id in self._ids:
                continue
            (chosen if _agrees(pins, inputs) else keep).append((entry_id, pins))
        self._pending[digest] = keep
        out = []
        for entry in self.store.heads(fp, digest, [entry_id for entry_id, _ in chosen]):
            try:
                guards, sources, domain = decode_guards(entry.guards)
                gs = GuardSet.of(guards, sources, domain)
                entry = replace(entry, provenance=_provenance(entry.provenance))
            except Exception as e:  # GuardError, StoreFormatError, or what a malformed record provokes
                self.store.skip_entry(f"entry {entry.id[:12]}: {type(e).__name__}: {e}")
                continue
            self._ids.add(entry.id)
            out.append(Loaded(entry, gs, StoredArtifact(entry, self._load_artifact)))
        self.loaded += len(out)
        return out

    def _load_artifact(self, entry: StoredEntry) -> tuple[Any, Callable, ExportedProgram]:
        try:
            full = self.store.body(entry)
            if full is None:
                raise StoreFormatError("its program is no longer in the store")
            program = program_from_json(full.program)
            artifact_data = full.artifact or {}
            data = artifact_data.get("data")
            if artifact_data.get("backend") != self.backend_name:
                raise StoreFormatError(f"stored by backend {artifact_data.get('backend')!r}, not {self.backend_name!r}")
            artifact = program if self._backend is None else self._backend.load_artifact(data, program)
        except Exception as e:  # Note [A stored entry that fails]: any exception type
            self.load_failures += 1
            warnings.warn(
                f"{self._name}: the stored entry {entry.id[:12]} of {self.store.description} cannot be loaded "
                f"({type(e).__name__}: {_short(e)}); it is not used and the call is traced again. "
                "Clear the store (shapeenv cache clear PATH)",
                DamagedEntryWarning, stacklevel=5,
            )
            return None, self._broken_run(entry), None  # type: ignore[return-value]
        return artifact, (artifact if callable(artifact) else self._fn), program

    def _broken_run(self, entry: StoredEntry) -> Callable:
        """What a broken entry runs if a call reaches it: the compiled function's retrace, else the function."""
        def run(*args: Any, **kwargs: Any) -> Any:
            retrace = self.retrace
            return retrace(entry.id, args, kwargs) if retrace is not None else self._fn(*args, **kwargs)
        return run

    def dynamic_sources(self, loaded: Loaded) -> list[tuple[str, int | None, str]]:
        """``(base, index, how)`` of the sources automatic dynamic had made dynamic in a loaded entry's trace."""
        return [tuple(x) for x in loaded.entry.provenance.get("automatic_dynamic", [])]  # type: ignore[misc]

    # -- saving -----------------------------------------------------------------------------------
    def lease(self, key: tuple):
        """The store's compile lease for ``key`` (a no-op context when nothing is stored)."""
        fp = self.fingerprint()
        encoded = self._key(key) if fp is not None else None
        if fp is None or encoded is None:
            return contextlib.nullcontext(False)
        return self.store.lease(fp, encoded[0])

    def save(self, key: tuple, program: ExportedProgram, entries: list[tuple[str | None, GuardSet, Any]],
             provenance: dict) -> int:
        """Store a trace's entries (``(label, guards, artifact)`` each); how many were new."""
        fp = self.fingerprint()
        encoded = self._key(key) if fp is not None else None
        if fp is None or encoded is None:
            return 0
        try:
            program_data = program_to_json(program)
        except Exception as e:  # ProgramFormatError, or a program that does not serialise for another reason
            self._note_unstorable(f"its program has no stored form ({e})")
            return 0
        new = 0
        for label, guards, artifact in entries:
            try:
                guard_data = encode_guards(guards.guards, guards.source_map, guards.domain_map)
                data = None if self._backend is None else self._backend.dump_artifact(artifact)
                canonical_json(data)
            except Exception as e:  # GuardError, TypeError, ValueError...: not stored, never a failed call
                self._note_unstorable(f"an entry has no stored form ({type(e).__name__}: {e})")
                continue
            prov = {**provenance, "name": self._name, "host": socket.gethostname(), "pid": os.getpid(),
                    "time": time.time()}
            pins = tuple((guard_data_source(src), value) for src, value in pinned_sources(guards).items())
            entry = StoredEntry.build(fp, encoded[0], encoded[1], label, guard_data, program_data,
                                      {"backend": self.backend_name, "data": data}, prov, pins)
            self._ids.add(entry.id)
            if self.store.save(entry):
                new += 1
        self.saved += new
        return new

    def _note_unstorable(self, why: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(f"{self._name}: an entry was not stored in {self.store.description}: {why}",
                          NotStorableWarning, stacklevel=6)

    def describe(self) -> str:
        """The store, and why nothing is stored if so."""
        state = f"; not stored: {self.disabled}" if self.disabled else ""
        down = "" if self.store.available else " (unavailable: in-process cache only)"
        return f"{self.store.description}{down}{state}"


#: The provenance fields a loaded entry may carry, with their types (Note [A stored entry that fails]).
_PROVENANCE = {"reason": str, "dynamic": str, "seconds": (int, float), "name": str, "host": str, "pid": int,
               "time": (int, float), "automatic_dynamic": list}


def _provenance(prov: dict) -> dict:
    """``prov`` with its known fields checked (others dropped).

    Raises:
        StoreFormatError: a field has the wrong type.
    """
    out = {}
    for name, kind in _PROVENANCE.items():
        if name not in prov:
            continue
        value = prov[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise StoreFormatError(f"its provenance field {name!r} is a {type(value).__name__}")
        out[name] = value
    for item in out.get("automatic_dynamic", []):
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and isinstance(item[2], str)
                and (item[1] is None or (isinstance(item[1], int) and not isinstance(item[1], bool)))):
            raise StoreFormatError("its provenance's automatic_dynamic is not [base, index, how] triples")
    return out


def _short(e: BaseException) -> str:
    try:
        return f"{e}"[:200]
    except Exception:
        return "its message fails"


def guard_data_source(src: Source) -> dict:
    """A source as :mod:`guards.text.serialize` writes it."""
    out: dict[str, Any] = {"base": src.base, "kind": src.kind}
    if src.index is not None:
        out["index"] = src.index
    return out


def _sources(pins: tuple) -> tuple[tuple[Source, int], ...]:
    """The ``[source, value]`` pins of an index row as Sources (unreadable pins: none, a candidate for every call)."""
    out = []
    for src, value in pins:
        try:
            out.append((Source(src["base"], src.get("kind", "value"), src.get("index")), int(value)))
        except (KeyError, TypeError, ValueError, AttributeError):
            return ()
    return tuple(out)


def _agrees(pins: tuple[tuple[Source, int], ...], inputs: Any) -> bool:
    """Whether the call's values equal every pinned constant (an unreadable value: maybe; the guards decide)."""
    for src, value in pins:
        try:
            if src.read(inputs[src.base]) != value:
                return False
        except Exception:  # the index's pins are a hint only: the signed head's guards decide
            continue
    return True

