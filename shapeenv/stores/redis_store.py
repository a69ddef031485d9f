"""``RedisStore``: entries on a Redis server, shared by every process and machine that reaches it.

The Python client is the ``redis`` package (``pip install "shapeenv[redis]"``); it is imported
when a RedisStore is created, so the library does not need it otherwise.

Note [Redis layout]
    Under the prefix ``NS`` (default ``shapeenv``):

    * ``NS:body:<id>`` then ``NS:entry:<id>``: the entry's body and head
      (Note [Head and body] in :mod:`shapeenv.stores.entry`), written with ``SET NX``:
      an entry is stored once however many processes trace it;
    * ``NS:index:<function>:<key>``: a list of ``<id>|<pins>`` in the order stored (the
      pins let a process pick the heads worth reading); the sequence number of an entry
      is its position in the list (1-based), so a process asks for ``LRANGE index after -1``;
    * ``NS:meta:<id>``: a hash with the listing fields (name, inputs, size, ...);
    * ``NS:indexes``: the set of index keys, for ``shapeenv cache ls``;
    * ``NS:lease:<function>:<key>``: a compile lease, ``SET NX PX`` with a random token,
      released only by its holder (a Lua compare-and-delete); it expires by itself
      if its holder dies.

    The size limit is the server's: configure ``maxmemory`` with an LRU policy
    (``maxmemory-policy allkeys-lru``). An index may then name an evicted entry; it is
    skipped (a fresh process traces again), never misread.

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
from .errors import StoreConfigError

__all__ = ["RedisStore"]

_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
_POLL = 0.02


class RedisStore(Store):
    """A store on the Redis server at ``url`` (``redis://localhost:6379/0``); see the module docstring.

    Args:
        url: the server's URL.
        namespace: the prefix of every key.
        socket_timeout: seconds to wait for the server (connecting and each command) before degrading.
        lease_timeout: seconds to wait for another process's compile lease.

    Raises:
        StoreConfigError: the ``redis`` package is not installed, or ``url`` is malformed.
    """

    def __init__(self, url: str = "redis://localhost:6379/0", *, namespace: str = "shapeenv",
                 socket_timeout: float = 2.0, lease_timeout: float = 60.0):
        super().__init__(lease_timeout)
        try:
            import redis  # the optional client: imported only by those who use a RedisStore
        except ImportError:
            raise StoreConfigError('RedisStore needs the redis client: pip install "shapeenv[redis]"') from None
        self.url = url
        self.namespace = namespace
        self.errors = (redis.exceptions.RedisError, OSError)
        try:
            self._client: Any = redis.Redis.from_url(url, socket_timeout=socket_timeout,
                                                     socket_connect_timeout=socket_timeout)
        except ValueError as e:
            raise StoreConfigError(f"bad Redis URL {url!r}: {e}") from None

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

    def _index(self, function: str, key: str, after: int) -> list[tuple[int, str, str]]:
        out = []
        for n, raw in enumerate(self._client.lrange(self._k("index", function, key), after, -1), after + 1):
            entry_id, _, pins = raw.decode().partition("|")
            out.append((n, entry_id, pins))
        return out

    def _heads(self, ids: list[str]) -> list[bytes | None]:
        return self._client.mget([self._k("entry", i) for i in ids])

    def _body(self, entry_id: str) -> bytes | None:
        return self._client.get(self._k("body", entry_id))

    def _save(self, entry: StoredEntry, head: bytes, body: bytes) -> bool:
        self._client.set(self._k("body", entry.id), body, nx=True)  # the body first: a head implies its body
        if not self._client.set(self._k("entry", entry.id), head, nx=True):
            return False
        now = time.time()
        size = len(head) + len(body)
        meta = entry.meta(size, now, now)
        index = self._k("index", entry.function, entry.key)
        pipe = self._client.pipeline(transaction=True)
        pipe.hset(self._k("meta", entry.id), mapping={
            "function": entry.function, "key": entry.key, "name": meta.name, "inputs": entry.inputs,
            "label": entry.label or "", "guards": meta.guards, "size": size, "created": now,
        })
        pipe.rpush(index, f"{entry.id}|{canonical_json([list(p) for p in entry.pins])}")
        pipe.sadd(self._k("indexes"), index)
        pipe.execute()
        return True

    @contextlib.contextmanager
    def _lease(self, function: str, key: str) -> Iterator[bool]:
        name = self._k("lease", function, key)
        token = secrets.token_hex(16)
        ttl_ms = max(1000, int(self.lease_timeout * 1000))
        deadline = time.monotonic() + self.lease_timeout  # a safety net only: the lease never changes a result
        held = False
        while True:
            if self._client.set(name, token, nx=True, px=ttl_ms):
                held = True
                break
            if time.monotonic() >= deadline:
                break
            time.sleep(_POLL)
        try:
            yield held
        finally:
            if held:
                self._client.eval(_RELEASE, 1, name, token)

    def _list(self) -> list[EntryMeta]:
        out = []
        for index in sorted(self._client.smembers(self._k("indexes"))):
            for raw in self._client.lrange(index, 0, -1):
                entry_id = raw.decode().partition("|")[0]
                m = {k.decode(): v.decode() for k, v in self._client.hgetall(self._k("meta", entry_id)).items()}
                if not m:
                    continue
                created = float(m.get("created", 0))
                out.append(EntryMeta(entry_id, m["function"], m["key"], m["name"], m["inputs"], m["label"] or None,
                                     int(m["guards"]), int(m["size"]), created, created))
        out.sort(key=lambda e: e.created)
        return out

    def _get(self, prefix: str) -> list[tuple[bytes, bytes | None]]:
        keys = sorted(self._client.scan_iter(match=self._k("entry", prefix) + "*", count=1000))
        out = []
        for k in keys:
            head = self._client.get(k)
            if head is not None:
                entry_id = k.decode().rsplit(":", 1)[1]
                out.append((head, self._client.get(self._k("body", entry_id))))
        return out

    def _clear(self, name: str | None) -> int:
        removed = 0
        for index in list(self._client.smembers(self._k("indexes"))):
            raws = self._client.lrange(index, 0, -1)
            ids = [raw.decode().partition("|")[0] for raw in raws]
            doomed, doomed_raw = [], []
            for raw, entry_id in zip(raws, ids):
                if name is None or self._client.hget(self._k("meta", entry_id), "name") == name.encode():
                    doomed.append(entry_id)
                    doomed_raw.append(raw)
            if not doomed:
                continue
            pipe = self._client.pipeline(transaction=True)
            for entry_id in doomed:
                pipe.delete(self._k("entry", entry_id), self._k("body", entry_id), self._k("meta", entry_id))
            if len(doomed) == len(ids):
                pipe.delete(index)
                pipe.srem(self._k("indexes"), index)
            else:
                for raw in doomed_raw:
                    pipe.lrem(index, 0, raw)
            pipe.execute()
            removed += len(doomed)
        return removed
