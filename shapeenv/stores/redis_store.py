"""``RedisStore``: entries on a Redis server, shared by every process and machine that reaches it.

The Python client is the ``redis`` package (``pip install "shapeenv[redis]"``); it is imported
when a RedisStore is created, so the library does not need it otherwise.

Note [Redis layout]
    Under the prefix ``NS`` (default ``shapeenv``):

    * ``NS:body:<id>`` and ``NS:entry:<id>``: the entry's body and head
      (Note [Head and body] in :mod:`shapeenv.stores.entry`);
    * ``NS:index:<function>:<key>``: a list of ``<id>|<pins>`` in the order stored (the
      pins let a process pick the heads worth reading); the sequence number of an entry
      is its position in the list (1-based), so a process asks for ``LRANGE index after -1``;
    * ``NS:meta:<id>``: a hash with the listing fields (name, inputs, size, ...);
    * ``NS:indexes``: the set of index keys, for ``shapeenv cache ls``;
    * ``NS:secret``: the signing secret, unless ``secret=`` is given (Note [The Redis secret]);
    * ``NS:lease:<function>:<key>``: a compile lease, ``SET NX PX`` with a random token,
      released only by its holder (a Lua compare-and-delete); it expires by itself
      if its holder dies.

    The size limit is the server's: configure ``maxmemory`` with an LRU policy
    (``maxmemory-policy allkeys-lru``). An index may then name an evicted entry; it is
    skipped (a fresh process traces again), never misread.

Note [Atomic saves]
    An entry is saved by one Lua script (:data:`_SAVE`): body, head, meta, index row and
    index set are written together or not at all (Redis runs a script to its end before
    any other command; a connection that drops delivers all of it or none). The meta
    hash marks a complete entry: the script writes nothing when it exists with its head
    and body, and otherwise writes everything again. So a half-written entry, an
    *orphan* (a head without meta and index row, left by an older version that wrote
    head and index in separate commands, or by a crash), is completed by the next
    process that traces the entry and saves it, and ``entries()`` (``shapeenv cache ls``)
    finds orphans by a scan and completes those that verify with its secret;
    ``clear()`` removes them. An index row or meta field that is not UTF-8 (written
    by something else) is skipped when loading and removed by ``clear()``.
    (On Redis Cluster the keys of one entry would need one hash slot: not supported.)

Note [The Redis secret]
    Entries are signed (Note [Signed entries] in :mod:`shapeenv.stores.entry`). With
    ``secret=`` (the same bytes on every machine sharing the store, e.g. read from a file
    only the service account can read) a client that can write to the server but does not
    hold the secret cannot make an entry that is served. Without it, the secret is kept in
    the server itself (``NS:secret``, created once with ``SET NX``): that still rejects
    damaged records and entries of another store, but anyone who can read the server can
    sign entries; use it only on a server you trust as much as the code you run.

When the server cannot be reached (refused, timed out, gone mid-run) the store
degrades as every store does (Note [A store that fails] in :mod:`shapeenv.stores.base`):
one :class:`~shapeenv.stores.StoreUnavailableWarning`, then the in-process cache only.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from typing import Any, Iterator

from .base import Store
from .entry import EntryMeta, StoredEntry, canonical_json
from .errors import StoreConfigError, StoreFormatError

__all__ = ["RedisStore"]

_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
#: Note [Atomic saves]. KEYS: body, head, meta, index, index set; ARGV: body, head, index row, meta fields and values.
_SAVE = """
local complete = redis.call('exists', KEYS[3]) == 1
if complete and redis.call('exists', KEYS[2]) == 1 and redis.call('exists', KEYS[1]) == 1 then return 0 end
redis.call('set', KEYS[1], ARGV[1])
redis.call('set', KEYS[2], ARGV[2])
if not complete then
  redis.call('hset', KEYS[3], unpack(ARGV, 4))
  redis.call('rpush', KEYS[4], ARGV[3])
  redis.call('sadd', KEYS[5], KEYS[4])
end
return 1
"""


class RedisStore(Store):
    """A store on the Redis server at ``url`` (``redis://localhost:6379/0``); see the module docstring.

    Args:
        url: the server's URL.
        namespace: the prefix of every key.
        secret: the signing secret shared by every client of the store (Note [The Redis secret]);
            None: kept in the server.
        socket_timeout: seconds to wait for the server (connecting and each command) before degrading.
        lease_timeout: seconds to wait for another process's compile lease.

    Raises:
        StoreConfigError: the ``redis`` package is not installed, ``url`` is malformed, or ``secret``
            is shorter than 16 bytes.
    """

    def __init__(self, url: str = "redis://localhost:6379/0", *, namespace: str = "shapeenv",
                 secret: bytes | str | None = None, socket_timeout: float = 2.0, lease_timeout: float = 60.0):
        super().__init__(lease_timeout)
        try:
            import redis  # the optional client: imported only by those who use a RedisStore
        except ImportError:
            raise StoreConfigError('RedisStore needs the redis client: pip install "shapeenv[redis]"') from None
        self.url = url
        self.namespace = namespace
        self.errors = (redis.exceptions.RedisError, OSError)
        self._refusals = {"read-only": (redis.exceptions.ReadOnlyError, redis.exceptions.NoPermissionError),
                          "memory full": (redis.exceptions.OutOfMemoryError,)}
        try:
            self._client: Any = redis.Redis.from_url(url, socket_timeout=socket_timeout,
                                                     socket_connect_timeout=socket_timeout)
        except ValueError as e:
            raise StoreConfigError(f"bad Redis URL {url!r}: {e}") from None
        if isinstance(secret, str):
            secret = secret.encode()
        if secret is not None and (not isinstance(secret, bytes) or len(secret) < 16):
            raise StoreConfigError("a RedisStore secret must be at least 16 bytes",
                                   fix="secret=open('/etc/shapeenv/redis.key', 'rb').read()")
        self._given_secret = secret
        self._save_script = self._client.register_script(_SAVE)

    @property
    def description(self) -> str:
        """``RedisStore('redis://...')``."""
        ns = "" if self.namespace == "shapeenv" else f", namespace={self.namespace!r}"
        return f"RedisStore({self.url!r}{ns})"

    def _k(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    def ping(self) -> bool:
        """Whether the server answers now (records nothing)."""
        try:
            return bool(self._client.ping())
        except self.errors:
            return False

    def write_problem(self, exc: BaseException) -> str | None:
        """``"read-only"`` (a replica, an ACL without writes) or ``"memory full"`` (``maxmemory`` without eviction)."""
        for problem, kinds in self._refusals.items():
            if isinstance(exc, kinds):
                return problem
        return super().write_problem(exc)

    def _load_secret(self) -> bytes:
        if self._given_secret is not None:
            return self._given_secret
        name = self._k("secret")
        self._client.set(name, secrets.token_hex(32), nx=True)
        return bytes(self._client.get(name) or b"")

    def _index(self, function: str, key: str, after: int) -> list[tuple[int, str, str]]:
        out = []
        for n, raw in enumerate(self._client.lrange(self._k("index", function, key), after, -1), after + 1):
            row = _row(raw)
            if row is not None:  # a row that is not ours: skipped here, removed by clear()
                out.append((n, *row))
        return out

    def _heads(self, ids: list[str]) -> list[bytes | None]:
        return self._client.mget([self._k("entry", i) for i in ids])

    def _body(self, entry_id: str) -> bytes | None:
        return self._client.get(self._k("body", entry_id))

    def _save(self, entry: StoredEntry, head: bytes, body: bytes) -> bool:
        now = time.time()
        size = len(head) + len(body)
        meta = entry.meta(size, now, now)
        fields = {"function": entry.function, "key": entry.key, "name": meta.name, "inputs": entry.inputs,
                  "label": entry.label or "", "guards": meta.guards, "size": size, "created": now}
        index = self._k("index", entry.function, entry.key)
        row = f"{entry.id}|{canonical_json([list(p) for p in entry.pins])}"
        keys = [self._k("body", entry.id), self._k("entry", entry.id), self._k("meta", entry.id), index,
                self._k("indexes")]
        args: list[Any] = [body, head, row]
        for name, value in fields.items():
            args += [name, value]
        return bool(self._save_script(keys=keys, args=args, client=self._client))

    @contextlib.contextmanager
    def _lease(self, function: str, key: str) -> Iterator[bool]:
        name = self._k("lease", function, key)
        token = secrets.token_hex(16)
        ttl_ms = max(1000, int(self.lease_timeout * 1000))
        held = self._poll_lease(lambda: bool(self._client.set(name, token, nx=True, px=ttl_ms)))
        try:
            yield held
        finally:
            if held:
                self._client.eval(_RELEASE, 1, name, token)

    def _orphans(self) -> list[str]:
        """Ids of heads with no meta (Note [Atomic saves]), found by a scan."""
        out = []
        for k in self._client.scan_iter(match=self._k("entry", "*"), count=1000):
            entry_id = k.decode("utf-8", "replace").rsplit(":", 1)[1]
            if not self._client.exists(self._k("meta", entry_id)):
                out.append(entry_id)
        return out

    def _heal(self) -> None:
        """Complete the orphans that verify with this client's secret (Note [Atomic saves]); the others are
        left to ``clear()`` (a client given another secret must not delete what it cannot read)."""
        for entry_id in self._orphans():
            head, body = self._client.mget([self._k("entry", entry_id), self._k("body", entry_id)])
            try:
                if head is None or body is None:
                    raise StoreFormatError("half an entry")
                entry = StoredEntry.decode_head(head, self.secret()).with_body(body)
                if entry.id != entry_id:
                    raise StoreFormatError("filed under another id")
            except StoreFormatError:
                continue
            self._save(entry, head, body)

    def _list(self) -> list[EntryMeta]:
        self._heal()
        out = []
        for index in sorted(self._client.smembers(self._k("indexes"))):
            for raw in self._client.lrange(index, 0, -1):
                row = _row(raw)
                if row is None:
                    continue
                m = {k.decode("utf-8", "replace"): v.decode("utf-8", "replace")
                     for k, v in self._client.hgetall(self._k("meta", row[0])).items()}
                try:
                    created = float(m.get("created", 0))
                    out.append(EntryMeta(row[0], m["function"], m["key"], m["name"], m["inputs"], m["label"] or None,
                                         int(m["guards"]), int(m["size"]), created, created))
                except (KeyError, ValueError):
                    continue  # no meta (evicted) or not ours
        out.sort(key=lambda e: e.created)
        return out

    def _get(self, prefix: str) -> list[tuple[bytes, bytes | None]]:
        keys = sorted(self._client.scan_iter(match=self._k("entry", prefix) + "*", count=1000))
        out = []
        for k in keys:
            head = self._client.get(k)
            if head is not None:
                entry_id = k.decode("utf-8", "replace").rsplit(":", 1)[1]
                out.append((head, self._client.get(self._k("body", entry_id))))
        return out

    def _clear(self, name: str | None) -> int:
        removed = 0
        for index in list(self._client.smembers(self._k("indexes"))):
            raws = self._client.lrange(index, 0, -1)
            doomed, doomed_raw = [], []
            for raw in raws:
                row = _row(raw)
                if row is None:  # not ours: removed whatever the name
                    doomed_raw.append(raw)
                elif name is None or self._client.hget(self._k("meta", row[0]), "name") == name.encode():
                    doomed.append(row[0])
                    doomed_raw.append(raw)
            if not doomed_raw:
                continue
            pipe = self._client.pipeline(transaction=True)
            for entry_id in doomed:
                pipe.delete(self._k("entry", entry_id), self._k("body", entry_id), self._k("meta", entry_id))
            if len(doomed_raw) == len(raws):
                pipe.delete(index)
                pipe.srem(self._k("indexes"), index)
            else:
                for raw in doomed_raw:
                    pipe.lrem(index, 0, raw)
            pipe.execute()
            removed += len(doomed)
        removed += self._clear_orphans(name)
        return removed

    def _clear_orphans(self, name: str | None) -> int:
        """Delete orphan heads (of ``name``, if given; unreadable ones always) and, clearing all, stray bodies."""
        removed = 0
        for entry_id in self._orphans():
            try:
                head = self._client.get(self._k("entry", entry_id))
                entry: StoredEntry | None = StoredEntry.decode_head(head, self.secret())
            except StoreFormatError:
                entry = None  # not an entry: removed whatever the name, and not counted
            if name is not None and entry is not None and entry.provenance.get("name") != name:
                continue
            deleted = self._client.delete(self._k("entry", entry_id), self._k("body", entry_id))
            removed += bool(deleted) and entry is not None
        if name is None:
            for k in self._client.scan_iter(match=self._k("body", "*"), count=1000):
                entry_id = k.decode("utf-8", "replace").rsplit(":", 1)[1]
                if not self._client.exists(self._k("entry", entry_id)):
                    self._client.delete(k)
        return removed


def _row(raw: bytes) -> tuple[str, str] | None:
    """``(id, pins)`` of an index row, or None when it is not one of ours (not UTF-8, not ``<hex id>|...``)."""
    try:
        entry_id, sep, pins = raw.decode("utf-8").partition("|")
    except (UnicodeDecodeError, AttributeError):
        return None
    if not sep or len(entry_id) != 64 or any(c not in "0123456789abcdef" for c in entry_id):
        return None
    return entry_id, pins
