"""Persistent and shared caches for compiled functions: ``compile(fn, store=DiskStore(path))``.

Three stores with one interface (:class:`Store`):

* :class:`MemoryStore`: in this process (the entries die with it);
* :class:`DiskStore`: an SQLite database in WAL mode in a directory, shared by every process
  on the machine, crash-safe, with a size limit and LRU eviction (:mod:`shapeenv.stores.disk`);
* :class:`RedisStore`: a Redis server, shared across machines (:mod:`shapeenv.stores.redis_store`).

An entry is a guard set, the traced program, the backend's artifact and its provenance, keyed
by the fingerprint of the function (:mod:`shapeenv.stores.fingerprint`) and the input key; see
:mod:`shapeenv.compile.persist` for how a compiled function uses a store. Without ``store=``,
a compiled function keeps its cache in its own memory, as before.

>>> import tempfile, numpy as np
>>> from shapeenv import compile
>>> with tempfile.TemporaryDirectory() as d:
...     f = compile(lambda x: x * 2, store=DiskStore(d))
...     _ = f(np.ones(3))
...     g = compile(lambda x: x * 2, store=DiskStore(d))     # the same function, as a fresh process sees it
...     _ = g(np.ones(3))
...     print(f.cache_info().stored, g.cache_info().compilations, g.cache_info().loaded)
1 0 1
"""

from .base import MemoryStore, Store
from .disk import DiskStore
from .entry import EntryMeta, StoredEntry
from .errors import (
    DamagedEntryWarning,
    NotStorableWarning,
    StoreConfigError,
    StoreError,
    StoreFormatError,
    StoreReadOnlyError,
    StoreUnavailableWarning,
)
from .fingerprint import Unfingerprintable, function_fingerprint
from .redis_store import RedisStore

__all__ = [
    "Store",
    "MemoryStore",
    "DiskStore",
    "RedisStore",
    "StoredEntry",
    "EntryMeta",
    "StoreError",
    "StoreFormatError",
    "StoreConfigError",
    "StoreReadOnlyError",
    "StoreUnavailableWarning",
    "NotStorableWarning",
    "DamagedEntryWarning",
    "Unfingerprintable",
    "function_fingerprint",
    "open_store",
]


def open_store(spec: str, secret: bytes | None = None) -> Store:
    """The store a command-line argument names: a ``redis://`` URL (``#name`` after it: the key
    namespace, default ``shapeenv``; ``secret``: its signing secret, Note [The Redis secret] in
    :mod:`shapeenv.stores.redis_store`), else a DiskStore directory (whose secret is beside it).

    >>> open_store("redis://127.0.0.1:1/0#tests").description
    "RedisStore('redis://127.0.0.1:1/0', namespace='tests')"
    """
    if spec.startswith(("redis://", "rediss://", "unix://")):
        url, _, namespace = spec.partition("#")
        return RedisStore(url, namespace=namespace or "shapeenv", secret=secret)
    return DiskStore(spec)
