"""``Store``: the interface every store implements, and ``MemoryStore``, the in-process one.

A store maps ``(function fingerprint, key digest)`` to the entries stored for it, in
the order they were stored; each has a sequence number so that a process can ask
only for the entries stored since it last looked. Entries are read as heads first,
bodies on demand (Note [Head and body] in :mod:`shapeenv.stores.entry`), and before
heads an *index* of ``(seq, id, pins)`` rows, so that a process decodes only the heads
whose pinned sizes agree with its call. The backends implement eight primitives
(``_index``, ``_heads``, ``_body``, ``_save``, ``_lease``, ``_list``, ``_get``,
``_clear``); the public methods add what every store must do the same way:

Note [A store that fails]
    Reading or writing a store can fail (a Redis server goes away, a disk fills up).
    A compiled function must never fail because of that, nor return a wrong result:
    :meth:`Store.index`, :meth:`Store.heads`, :meth:`Store.body`, :meth:`Store.save`
    and :meth:`Store.lease` catch every exception (the backend's errors and any
    other: a store's content is not trusted to be well-formed), issue ONE
    :class:`StoreUnavailableWarning` per store object, mark the store down, and
    behave as an empty store from then on (the function keeps its in-process cache).
    A write that fails because the store is read-only or the disk is full stops the
    writes only ("disk full" / "read-only" in the warning): the store keeps serving
    what it holds. An entry that does not decode or verify (another version's
    format, a damaged or tampered record: Note [Signed entries] in
    :mod:`shapeenv.stores.entry`) is skipped, counted in :attr:`Store.skipped` and
    reported by one :class:`DamagedEntryWarning`, never used. The listing and
    administration methods (``entries``, ``get``, ``clear``) raise
    :class:`StoreError` instead: their caller asked for the store itself.

Note [Compile leases]
    When several processes miss on the same function and input key at once, only
    one should trace. :meth:`Store.lease` takes a lease on ``(function, key)`` (a
    file lock for :class:`~shapeenv.stores.DiskStore`, ``SET NX PX`` for
    :class:`~shapeenv.stores.RedisStore`); the others wait for it, then look in
    the store again and usually find the entry. A lease is a performance device
    only: when it cannot be had within ``lease_timeout`` seconds the process traces
    anyway (a duplicate trace stores nothing new: entries are content-addressed).

>>> s = MemoryStore()
>>> e = StoredEntry.build("f" * 64, "k" * 64, "x", None, {"guards": []}, {}, {"backend": "program"}, {"name": "f"})
>>> s.save(e), s.save(e), [(seq, got.id == e.id) for seq, got in s.load("f" * 64, "k" * 64)]
(True, False, [(1, True)])
>>> s.body(s.load("f" * 64, "k" * 64)[0][1]) == e
True
"""

from __future__ import annotations

import abc
import contextlib
import errno
import json
import secrets
import threading
import time
import warnings
from typing import Callable, Iterator

from .entry import EntryMeta, StoredEntry, canonical_json
from .errors import (
    DamagedEntryWarning,
    StoreConfigError,
    StoreError,
    StoreFormatError,
    StoreReadOnlyError,
    StoreUnavailableWarning,
)

__all__ = ["Store", "MemoryStore"]


_LEASE_POLL = 0.02  # seconds between attempts at a lease another process holds

class Store(abc.ABC):
    """The store interface (see the module docstring); subclasses implement the ``_`` primitives.

    Attributes:
        lease_timeout: seconds to wait for another process's compile lease (Note [Compile leases]).
    """

    #: The backend errors that mean "the store cannot be used now" (Note [A store that fails]).
    errors: tuple[type[BaseException], ...] = (OSError,)

    def __init__(self, lease_timeout: float = 60.0):
        if lease_timeout < 0:
            raise StoreConfigError(f"lease_timeout must be >= 0 seconds, got {lease_timeout!r}", fix="lease_timeout=60.0  # the default")
        self.lease_timeout = lease_timeout
        self._down: str | None = None
        self._no_writes: str | None = None  # why saves stopped while reads go on (read-only, disk full)
        self._state = threading.Lock()
        self._secret: bytes | None = None
        self.skipped = 0  # entries that did not decode or verify
        self._skip_warned = False

    # -- the primitives ---------------------------------------------------------------------------
    @abc.abstractmethod
    def _index(self, function: str, key: str, after: int) -> list[tuple[int, str, str]]:
        """``(seq, id, pins as canonical JSON)`` of the entries of ``(function, key)`` with ``seq > after``, by ``seq``."""

    @abc.abstractmethod
    def _heads(self, ids: list[str]) -> list[bytes | None]:
        """The head of each entry (None if it is gone)."""

    @abc.abstractmethod
    def _body(self, entry_id: str) -> bytes | None:
        """The body of entry ``entry_id`` (None if it is gone)."""

    @abc.abstractmethod
    def _save(self, entry: StoredEntry, head: bytes, body: bytes) -> bool:
        """Store the head and body under ``entry.id`` unless present; True if it was new."""

    @abc.abstractmethod
    def _lease(self, function: str, key: str) -> "contextlib.AbstractContextManager[bool]":
        """A context holding the compile lease of ``(function, key)``; yields whether it was had."""

    def _poll_lease(self, attempt: "Callable[[], bool]") -> bool:
        """Call ``attempt`` (one try at a lease) until it succeeds or ``lease_timeout`` seconds pass; whether
        it succeeded (Note [Compile leases]: the timeout is a safety net only, the lease never changes a result)."""
        deadline = time.monotonic() + self.lease_timeout
        while not attempt():
            if time.monotonic() >= deadline:
                return False
            time.sleep(_LEASE_POLL)
        return True

    @abc.abstractmethod
    def _list(self) -> list[EntryMeta]:
        """Every entry's listing line, oldest first."""

    @abc.abstractmethod
    def _get(self, prefix: str) -> list[tuple[bytes, bytes | None]]:
        """``(head, body)`` of the entries whose id starts with ``prefix``."""

    @abc.abstractmethod
    def _clear(self, name: str | None) -> int:
        """Remove every entry (of the function called ``name``, if given); how many were removed."""

    @abc.abstractmethod
    def _load_secret(self) -> bytes:
        """The store's signing secret (Note [Signed entries] in :mod:`shapeenv.stores.entry`), created if missing."""

    @property
    @abc.abstractmethod
    def description(self) -> str:
        """Where the store is, in words (``DiskStore('/tmp/cache')``)."""

    # -- what compiled functions call ----------------------------------------------------------------
    @property
    def available(self) -> bool:
        """False once the store failed (Note [A store that fails])."""
        return self._down is None

    @property
    def writable(self) -> bool:
        """False once saving stopped (the store failed, is read-only or its disk is full)."""
        return self._down is None and self._no_writes is None

    def secret(self) -> bytes:
        """The signing secret (read or created on first use).

        Raises:
            the backend's errors: the secret cannot be read or created.
        """
        if self._secret is None:
            key = self._load_secret()
            if not isinstance(key, bytes) or len(key) < 16:
                raise StoreFormatError(f"the signing secret of {self.description} is missing or too short")
            self._secret = key
        return self._secret

    def write_problem(self, exc: BaseException) -> str | None:
        """``"disk full"`` or ``"read-only"`` (a backend may add its own) when a failed write says so: saves stop,
        reads go on (Note [A store that fails]); else None."""
        if isinstance(exc, StoreReadOnlyError):
            return "read-only"
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            return "disk full"
        if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return "read-only"
        return None

    def _failed(self, action: str, exc: BaseException) -> None:
        problem = self.write_problem(exc) if action in ("writing", "taking a compile lease") else None
        with self._state:
            if self._down is not None or (problem is not None and self._no_writes is not None):
                return
            why = f"{type(exc).__name__}: {exc}"
            if problem is None:
                self._down = why
            else:
                self._no_writes = f"{problem} ({why})"
        if problem is not None:
            message = (f"{self.description}: {problem}, entries are no longer saved ({why}); the stored entries are "
                       "still served" + ("; free some space" if problem.endswith("full") else ""))
        else:
            message = (f"{self.description} cannot be used ({action} failed: {why}); compiled functions go on with "
                       "their in-process caches only (nothing is read from or written to the store from now on)")
        warnings.warn(message, StoreUnavailableWarning, stacklevel=4)

    def skip_entry(self, why: str) -> None:
        """Count one entry that did not decode or verify; the first one warns."""
        with self._state:
            self.skipped += 1
            first, self._skip_warned = not self._skip_warned, True
        if first:
            warnings.warn(f"{self.description}: a stored entry was skipped ({why}); it is traced again. "
                          "`shapeenv cache clear` removes such entries", DamagedEntryWarning, stacklevel=5)

    def index(self, function: str, key: str, after: int = 0) -> list[tuple[int, str, tuple | None]]:
        """``(seq, id, pins)`` of the entries of ``(function, key)`` stored after ``after``; ``pins`` is the
        ``[source, value]`` list the head also holds (None when unreadable: a candidate for any call).
        A failing store returns ``[]`` (Note [A store that fails])."""
        if self._down is not None:
            return []
        try:
            rows = self._index(function, key, after)
        except Exception as e:
            self._failed("reading", e)
            return []
        out = []
        for seq, entry_id, pins in rows:
            try:
                parsed = tuple(tuple(p) for p in json.loads(pins))
            except Exception:
                parsed = None
            out.append((seq, entry_id, parsed))
        return out

    def heads(self, function: str, key: str, ids: list[str]) -> list[StoredEntry]:
        """The heads of the entries ``ids`` of ``(function, key)`` that decode and verify, in order.

        Entries of another format, of another function or key, not signed with this store's
        secret, or whose content does not match their id are skipped (counted in :attr:`skipped`).
        """
        if self._down is not None or not ids:
            return []
        try:
            secret = self.secret()
            blobs = self._heads(ids)
        except Exception as e:
            self._failed("reading", e)
            return []
        out = []
        for entry_id, blob in zip(ids, blobs):
            if blob is None:
                continue
            try:
                entry = StoredEntry.decode_head(blob, secret)
            except Exception as e:  # StoreFormatError, or anything a crafted record provokes
                self.skip_entry(f"{type(e).__name__}: {e}")
                continue
            if entry.id != entry_id or entry.function != function or entry.key != key:  # never trust an index
                self.skip_entry(f"entry {entry_id[:12]} is filed under another entry, function or key")
                continue
            out.append(entry)
        return out

    def load(self, function: str, key: str, after: int = 0) -> list[tuple[int, StoredEntry]]:
        """The decodable entries of ``(function, key)`` stored after sequence number ``after``, heads only."""
        rows = self.index(function, key, after)
        seqs = {entry_id: seq for seq, entry_id, _ in rows}
        return [(seqs[e.id], e) for e in self.heads(function, key, [entry_id for _, entry_id, _ in rows])]

    def body(self, entry: StoredEntry) -> StoredEntry | None:
        """``entry`` with its program and artifact read; None if the store has lost it or fails.

        Raises:
            StoreFormatError: the stored body is not the entry's (damaged).
        """
        if entry.has_body:
            return entry
        if self._down is not None:
            return None
        try:
            blob = self._body(entry.id)
        except Exception as e:
            self._failed("reading", e)
            return None
        return None if blob is None else entry.with_body(blob)

    def save(self, entry: StoredEntry) -> bool:
        """Store ``entry`` (once: a second save of the same id does nothing); False if not stored."""
        if self._down is not None or self._no_writes is not None:
            return False
        try:
            return self._save(entry, entry.encode_head(self.secret()), entry.encode_body())
        except Exception as e:
            self._failed("writing", e)
            return False

    @contextlib.contextmanager
    def lease(self, function: str, key: str) -> Iterator[bool]:
        """Hold the compile lease of ``(function, key)`` (Note [Compile leases]); yields whether it was had.

        A store that takes no more writes (read-only, full) gives no lease: nothing would be saved under it."""
        if self._down is not None or self._no_writes is not None:
            yield False
            return
        try:
            cm = self._lease(function, key)
            held = cm.__enter__()
        except Exception as e:
            self._failed("taking a compile lease", e)
            yield False
            return
        try:
            yield held
        finally:
            try:
                cm.__exit__(None, None, None)
            except Exception as e:
                self._failed("releasing a compile lease", e)

    # -- administration (``shapeenv cache``) -----------------------------------------------------------
    def entries(self) -> list[EntryMeta]:
        """Every entry's listing line, oldest first.

        Raises:
            StoreError: the store cannot be read.
        """
        try:
            return self._list()
        except self.errors as e:
            raise StoreError(f"{self.description} cannot be read: {type(e).__name__}: {e}") from e

    def get(self, prefix: str) -> StoredEntry:
        """The entry whose id starts with ``prefix`` (at least 4 hex digits).

        Raises:
            StoreError: no entry, or several, match; or the store cannot be read.
            StoreFormatError: the entry does not decode.
        """
        if len(prefix) < 4:
            raise StoreError(f"give at least 4 characters of the entry id, got {prefix!r}")
        try:
            blobs = self._get(prefix)
        except self.errors as e:
            raise StoreError(f"{self.description} cannot be read: {type(e).__name__}: {e}") from e
        if len(blobs) != 1:
            raise StoreError(f"{len(blobs)} entries of {self.description} have an id starting with {prefix!r}; "
                             "`shapeenv cache ls` lists the ids")
        head, body = blobs[0]
        try:
            entry = StoredEntry.decode_head(head, self.secret())
        except self.errors as e:
            raise StoreError(f"{self.description} cannot be read: {type(e).__name__}: {e}") from e
        if body is None:
            raise StoreError(f"the body of entry {entry.id[:12]} is gone from {self.description}")
        return entry.with_body(body)

    def clear(self, name: str | None = None) -> int:
        """Remove every entry, or those of the function called ``name``; returns how many.

        Raises:
            StoreError: the store cannot be written.
        """
        try:
            return self._clear(name)
        except self.errors as e:
            raise StoreError(f"{self.description} cannot be written: {type(e).__name__}: {e}") from e

    def __repr__(self) -> str:
        if self._down is not None:
            return f"{self.description} (down: {self._down})"
        return self.description if self._no_writes is None else f"{self.description} (not saving: {self._no_writes})"


class MemoryStore(Store):
    """A store in this process's memory: the same interface, shared by the compiled functions given it.

    Useful to share entries between compiled functions of one process and in tests; it
    dies with the process (use :class:`~shapeenv.stores.DiskStore` to persist).
    """

    def __init__(self, lease_timeout: float = 60.0):
        super().__init__(lease_timeout)
        self._lock = threading.Lock()
        self._rows: list[tuple[int, StoredEntry, bytes, float]] = []  # (seq, entry, head, stored at)
        self._bodies: dict[str, bytes] = {}
        self._ids: set[str] = set()
        self._seq = 0
        self._leases: dict[tuple[str, str], threading.Lock] = {}
        self._key = secrets.token_bytes(32)

    @property
    def description(self) -> str:
        """``MemoryStore()``."""
        return "MemoryStore()"

    def _load_secret(self) -> bytes:
        return self._key  # the entries live and die with this object: so does their secret

    def _index(self, function: str, key: str, after: int) -> list[tuple[int, str, str]]:
        with self._lock:
            rows = list(self._rows)
        return [(seq, e.id, canonical_json([list(p) for p in e.pins])) for seq, e, _, _ in rows
                if seq > after and e.function == function and e.key == key]

    def _heads(self, ids: list[str]) -> list[bytes | None]:
        with self._lock:
            heads = {e.id: head for _, e, head, _ in self._rows}
        return [heads.get(i) for i in ids]

    def _body(self, entry_id: str) -> bytes | None:
        with self._lock:
            return self._bodies.get(entry_id)

    def _save(self, entry: StoredEntry, head: bytes, body: bytes) -> bool:
        with self._lock:
            if entry.id in self._ids:
                return False
            self._ids.add(entry.id)
            self._seq += 1
            self._bodies[entry.id] = body
            self._rows.append((self._seq, entry, head, time.time()))
            return True

    @contextlib.contextmanager
    def _lease(self, function: str, key: str) -> Iterator[bool]:
        with self._lock:
            lock = self._leases.setdefault((function, key), threading.Lock())
        held = lock.acquire(timeout=self.lease_timeout)
        try:
            yield held
        finally:
            if held:
                lock.release()

    def _list(self) -> list[EntryMeta]:
        with self._lock:
            rows = list(self._rows)
        return [e.meta(len(blob) + len(self._bodies.get(e.id, b"")), t, t) for _, e, blob, t in rows]

    def _get(self, prefix: str) -> list[bytes]:
        with self._lock:
            return [(blob, self._bodies.get(e.id)) for _, e, blob, _ in self._rows if e.id.startswith(prefix)]

    def _clear(self, name: str | None) -> int:
        with self._lock:
            keep = [r for r in self._rows if name is not None and r[1].provenance.get("name") != name]
            removed = len(self._rows) - len(keep)
            self._rows = keep
            self._ids = {r[1].id for r in keep}
            self._bodies = {k: v for k, v in self._bodies.items() if k in self._ids}
            return removed
