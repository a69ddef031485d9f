"""``DiskStore``: entries in an SQLite database in WAL mode, shared by every process that opens the directory.

Note [Why SQLite in WAL mode]
    The store is one SQLite file, ``PATH/entries.sqlite3``, opened in write-ahead-log
    mode with ``synchronous=NORMAL``. That gives what the cache needs without a
    server:

    * concurrent processes: readers never block, writers take turns (each insert is
      one short transaction; ``busy_timeout`` waits for the others);
    * crash safety: a transaction is either wholly in the database or not at all.
      A process killed in the middle of a write (SIGKILL, OOM) leaves the database
      as it was before that transaction; the next process to open it reads every
      committed entry (the WAL is replayed or ignored as SQLite decides). Only a power
      loss can lose the last transactions (``synchronous=NORMAL``), never corrupt it;
    * one file to copy, inspect (``shapeenv cache ls PATH``) or delete.

    Files with atomic rename would give crash safety too, but listing, LRU order and a
    size limit would need a scan of the directory on every write.

Note [Size limit and LRU]
    Each entry records its size and when it was last used: stored, or used by a
    process (reading its body, on the first call it serves in that process, updates
    ``last_used``; later hits served from the process's own memory do not touch the disk). After an insert makes the total
    exceed ``max_bytes``, the least recently used entries are deleted, in the same
    transaction, until it fits again. A process holding an evicted entry keeps using
    it; a fresh process traces again. The file itself does not shrink (SQLite reuses
    the freed pages); ``shapeenv cache clear PATH`` and ``VACUUM`` return them.

Compile leases are ``flock`` s on ``PATH/locks/<digest>.lock``: the kernel releases
them when their process dies, so a killed compiler never blocks the others.

Note [The secret beside the store]
    Entries are signed (Note [Signed entries] in :mod:`shapeenv.stores.entry`) with 32
    random bytes in ``PATH/secret.key``, created by the first process to open the store,
    with permissions 0600 (written to a temporary file, then linked into place: two
    processes creating it at once agree on one). Whoever can write the database but not
    read this file cannot make an entry that is served; to share a store between users,
    give them read access to the secret (``chmod 640`` and a common group), knowing that
    each of them can then sign entries. Copying the directory copies the trust.

Note [A read-only store]
    A store whose directory or database this process cannot write (a read-only mount, a
    cache baked into a container image, another user's files) is opened read-only
    (SQLite ``mode=ro``, or ``immutable=1`` when even the write-ahead log cannot be
    opened). It serves its entries as any store does; saves stop with one
    :class:`~shapeenv.stores.StoreUnavailableWarning` that says "read-only", no lease
    is taken and the LRU order is not updated. A full disk likewise stops saves with a
    warning that says "disk full", while the stored entries are still served.

>>> import tempfile
>>> from shapeenv.stores.entry import StoredEntry
>>> with tempfile.TemporaryDirectory() as d:
...     s = DiskStore(d)
...     e = StoredEntry.build("f" * 64, "k" * 64, "x", None, {"guards": []}, {}, {"backend": "program"}, {"name": "f"})
...     print(s.save(e), s.save(e), [seq for seq, _ in s.load("f" * 64, "k" * 64)], len(s.entries()))
True False [1] 1
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
import urllib.parse
import threading
import time
from pathlib import Path
from typing import Iterator

from .base import Store
from .entry import EntryMeta, StoredEntry, canonical_json
from .errors import StoreConfigError, StoreReadOnlyError

try:  # POSIX; elsewhere leases are not taken (Note [Compile leases] in shapeenv.stores.base)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["DiskStore", "DB_NAME", "SECRET_NAME"]

#: The database file inside a DiskStore's directory.
DB_NAME = "entries-v3.sqlite3"
#: The signing secret beside it (Note [The secret beside the store]).
SECRET_NAME = "secret.key"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    function TEXT NOT NULL,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    inputs TEXT NOT NULL,
    label TEXT,
    guards INTEGER NOT NULL,
    pins TEXT NOT NULL,
    size INTEGER NOT NULL,
    created REAL NOT NULL,
    last_used REAL NOT NULL,
    head BLOB NOT NULL,
    body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_key ON entries (function, key, seq);
CREATE INDEX IF NOT EXISTS entries_by_use ON entries (last_used);
"""

_SCHEMA_VERSION = 3
_SQLITE_READONLY, _SQLITE_FULL = 8, 13  # SQLite's primary result codes


class DiskStore(Store):
    """A persistent store in the directory ``path`` (created if missing); see the module docstring.

    Args:
        path: the directory.
        max_bytes: the size limit of the stored entries (Note [Size limit and LRU]).
        lease_timeout: seconds to wait for another process's compile lease.
        busy_timeout: seconds SQLite waits for another writer before failing.

    Raises:
        StoreConfigError: ``path`` exists and is not a directory, or ``max_bytes`` is not positive.
    """

    errors = (sqlite3.Error, OSError)

    def __init__(self, path: "str | os.PathLike[str]", *, max_bytes: int = 256 * 2**20, lease_timeout: float = 60.0,
                 busy_timeout: float = 30.0):
        super().__init__(lease_timeout)
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise StoreConfigError(f"DiskStore path {str(self.path)!r} is a file; give a directory (it holds {DB_NAME})")
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
            raise StoreConfigError(f"max_bytes must be a positive int, got {max_bytes!r}")
        self.max_bytes = max_bytes
        self.busy_timeout = busy_timeout
        self.evicted = 0
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self.read_only = False  # set when the store could be opened for reading only (Note [A read-only store])

    @property
    def description(self) -> str:
        """``DiskStore('/path')``."""
        return f"DiskStore({str(self.path)!r})"

    @property
    def db_path(self) -> Path:
        """The database file."""
        return self.path / DB_NAME

    def _connection(self) -> sqlite3.Connection:
        """This process's connection (reopened after a fork); call with ``self._lock`` held."""
        if self._conn is None or self._pid != os.getpid():
            try:
                conn = self._open_writable()
            except (sqlite3.Error, OSError) as e:
                if self.write_problem(e) != "read-only" and not self._looks_read_only():
                    raise
                conn = self._open_read_only(e)
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def _open_writable(self) -> sqlite3.Connection:
        self.path.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.db_path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            if conn.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
                conn.executescript(_SCHEMA + f"PRAGMA user_version = {_SCHEMA_VERSION};")
        except BaseException:
            conn.close()
            raise
        self.read_only = False
        return conn

    def _looks_read_only(self) -> bool:
        """Whether the database exists but this process may not write it or its directory."""
        return self.db_path.is_file() and not (os.access(self.path, os.W_OK) and os.access(self.db_path, os.W_OK))

    def _open_read_only(self, why: BaseException) -> sqlite3.Connection:
        """The database opened for reading (Note [A read-only store]); ``why`` is re-raised if it cannot be."""
        uri = "file:" + urllib.parse.quote(str(self.db_path.resolve()))
        for params in ("?mode=ro", "?mode=ro&immutable=1"):  # immutable: no -wal/-shm files needed
            conn = sqlite3.connect(uri + params, uri=True, timeout=self.busy_timeout, isolation_level=None,
                                   check_same_thread=False)
            try:
                if conn.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
                    conn.close()
                    raise StoreConfigError(f"{self.description} is read-only and of another version; "
                                           "it cannot be used (nor upgraded)")
                conn.execute("SELECT COUNT(*) FROM entries").fetchone()
            except sqlite3.Error:
                conn.close()
                continue
            self.read_only = True
            return conn
        raise why

    def write_problem(self, exc: BaseException) -> str | None:
        """``"disk full"`` / ``"read-only"`` for SQLite's SQLITE_FULL / SQLITE_READONLY too."""
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF == _SQLITE_FULL:
            return "disk full"
        if isinstance(code, int) and code & 0xFF == _SQLITE_READONLY:
            return "read-only"
        return super().write_problem(exc)

    def _load_secret(self) -> bytes:
        """``PATH/secret.key``, created (0600) if missing (Note [The secret beside the store])."""
        path = self.path / SECRET_NAME
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.path / f".{SECRET_NAME}.{os.getpid()}.{secrets.token_hex(6)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            try:
                os.write(fd, secrets.token_bytes(32))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, path)  # atomic, and never replaces a secret another process made meanwhile
            except FileExistsError:
                pass
        finally:
            tmp.unlink(missing_ok=True)
        return path.read_bytes()

    def close(self) -> None:
        """Close this process's connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def _index(self, function: str, key: str, after: int) -> list[tuple[int, str, str]]:
        with self._lock:
            return self._connection().execute(
                "SELECT seq, id, pins FROM entries WHERE function = ? AND key = ? AND seq > ? ORDER BY seq",
                (function, key, after),
            ).fetchall()

    def _heads(self, ids: list[str]) -> list[bytes | None]:
        found: dict[str, bytes] = {}
        with self._lock:
            conn = self._connection()
            for start in range(0, len(ids), 500):  # SQLite limits the number of parameters
                chunk = ids[start:start + 500]
                marks = ",".join("?" * len(chunk))
                found.update((i, bytes(h)) for i, h in conn.execute(f"SELECT id, head FROM entries WHERE id IN ({marks})",
                                                                     chunk))
        return [found.get(i) for i in ids]

    def _body(self, entry_id: str) -> bytes | None:
        with self._lock:
            conn = self._connection()
            row = conn.execute("SELECT body FROM entries WHERE id = ?", (entry_id,)).fetchone()
            if row is not None and not self.read_only:  # a use: it moves up in the LRU order (Note [Size limit and LRU])
                conn.execute("UPDATE entries SET last_used = ? WHERE id = ?", (time.time(), entry_id))
        return None if row is None else bytes(row[0])

    def _save(self, entry: StoredEntry, head: bytes, body: bytes) -> bool:
        now = time.time()
        size = len(head) + len(body)
        meta = entry.meta(size, now, now)
        with self._lock:
            conn = self._connection()
            if self.read_only:
                raise StoreReadOnlyError(f"{self.description} is read-only for this process",
                                         fix="open a store in a directory this process can write to save entries")
            conn.execute("BEGIN IMMEDIATE")
            try:
                cur = conn.execute(
                    "INSERT OR IGNORE INTO entries (id, function, key, name, inputs, label, guards, pins, size, "
                    "created, last_used, head, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (entry.id, entry.function, entry.key, meta.name, entry.inputs, entry.label, meta.guards,
                     canonical_json([list(p) for p in entry.pins]), size, now, now, head, body),
                )
                new = cur.rowcount == 1
                if new:
                    self._evict(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # SQLite ends the transaction itself on some errors (SQLITE_FULL)
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
        return new

    def _evict(self, conn: sqlite3.Connection) -> None:
        """Delete least recently used entries until the total fits ``max_bytes`` (Note [Size limit and LRU])."""
        (total,) = conn.execute("SELECT COALESCE(SUM(size), 0) FROM entries").fetchone()
        if total <= self.max_bytes:
            return  # (a sum over the rows: cheap next to the write it follows)
        doomed = []
        for seq, size in conn.execute("SELECT seq, size FROM entries ORDER BY last_used, seq"):
            if total <= self.max_bytes:
                break
            doomed.append(seq)
            total -= size
        conn.executemany("DELETE FROM entries WHERE seq = ?", [(s,) for s in doomed])
        self.evicted += len(doomed)

    @contextlib.contextmanager
    def _lease(self, function: str, key: str) -> Iterator[bool]:
        with self._lock:
            self._connection()  # decides whether the store is read-only
        if fcntl is None or self.read_only:  # no lease where nothing will be saved
            yield False
            return
        locks = self.path / "locks"
        locks.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(f"{function}:{key}".encode()).hexdigest()[:32]
        fd = os.open(locks / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            def attempt() -> bool:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return False
                return True

            held = self._poll_lease(attempt)
            try:
                yield held
            finally:
                if held:
                    fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _list(self) -> list[EntryMeta]:
        with self._lock:
            rows = self._connection().execute(
                "SELECT id, function, key, name, inputs, label, guards, size, created, last_used FROM entries "
                "ORDER BY seq"
            ).fetchall()
        return [EntryMeta(*row) for row in rows]

    def _get(self, prefix: str) -> list[tuple[bytes, bytes | None]]:
        with self._lock:
            rows = self._connection().execute(
                "SELECT head, body FROM entries WHERE id >= ? AND id < ? ORDER BY seq", (prefix, prefix + "\uffff")
            ).fetchall()
        return [(bytes(h), bytes(b)) for h, b in rows]

    def _clear(self, name: str | None) -> int:
        with self._lock:
            conn = self._connection()
            if name is None:
                cur = conn.execute("DELETE FROM entries")
            else:
                cur = conn.execute("DELETE FROM entries WHERE name = ?", (name,))
            removed = cur.rowcount
            if name is None:
                conn.execute("VACUUM")
        return removed

    def total_bytes(self) -> int:
        """The size of the stored entries (what ``max_bytes`` limits)."""
        with self._lock:
            (total,) = self._connection().execute("SELECT COALESCE(SUM(size), 0) FROM entries").fetchone()
        return int(total)

    def integrity(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` of the database: ``"ok"`` when sound."""
        with self._lock:
            return str(self._connection().execute("PRAGMA integrity_check").fetchone()[0])
