"""What a store holds: one :class:`StoredEntry` per cache entry, as two compressed JSON records.

An entry is the guard set (the JSON of :mod:`guards.text.serialize`), the traced program
(:mod:`shapeenv.program.io`), the backend's serialised artifact and the provenance
(which function, inputs, host, process and time, how long the trace took, why it was
compiled). It is addressed by two digests: the *function* fingerprint
(:mod:`shapeenv.stores.fingerprint`) and the *key* (the part of the cache key that
guards cannot express: input names, types, dtypes, ranks).

Note [Head and body]
    An entry is stored as a small *head* (key, guards, the sources its guards pin to
    constants, provenance) and a *body* (program and artifact). A process looking for
    entries reads heads only, picks those whose pins agree with its call (as the
    dispatch index of :class:`guards.runtime.cache.GuardedCache` does) and reads a body only
    when an entry serves a call. So a store with 1,000 entries of a function costs a
    fresh process one indexed query of small records, not 1,000 programs.

    The ``id`` is the SHA-256 of the head's content (without the provenance), which
    includes the SHA-256 of the body: two processes that trace the same entry store it
    once. The id is an address, not a seal: anyone can recompute a plain digest
    (Note [Signed entries]).

Note [Signed entries]
    A head is a format tag, then the HMAC-SHA256 under the store's secret of the rest,
    then the rest: the compressed JSON of key, guards, pins, provenance and the body's
    SHA-256 (so the body is signed too). :meth:`StoredEntry.decode_head` checks the
    HMAC before it decompresses or parses anything (a crafted record is never parsed),
    and :meth:`StoredEntry.with_body` checks the body against the signed digest; an
    entry that fails either is skipped, never used.

    Threat model: whoever can write the store's records but cannot read its secret
    (a damaged disk, a process of another version, a crafted record, another user of a
    shared Redis when ``secret=`` is given) cannot make an entry that is served.
    Whoever can read the secret can; a store is trusted as far as its secret is
    (where each store keeps it: :mod:`shapeenv.stores.disk`, :mod:`shapeenv.stores.redis_store`).

>>> key = b"s" * 32
>>> e = StoredEntry.build("f" * 64, "k" * 64, "x: float32[1-d] ndarray", None,
...                       {"guards": []}, {"format": "program/v1"}, {"backend": "program"}, {"name": "f"})
>>> head = StoredEntry.decode_head(e.encode_head(key), key)
>>> head.program is None, head.with_body(e.encode_body()) == e, len(e.id)
(True, True, 64)
>>> try:
...     StoredEntry.decode_head(e.encode_head(b"another store's secret"), key)
... except StoreFormatError as err:
...     print(str(err).split(" (")[0])
a stored entry's signature does not match
"""

from __future__ import annotations

import hashlib
import hmac
import json
import zlib
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import StoreFormatError

__all__ = ["ENTRY_FORMAT", "StoredEntry", "EntryMeta", "canonical_json"]

#: The ``"format"`` tag of a stored entry's head.
ENTRY_FORMAT = "shapeenv-entry/v3"
_HEAD_TAG = b"shapeenv-entry/v3\n"  # then the HMAC (32 bytes), then the compressed JSON
_MAC_SIZE = 32


def canonical_json(data: Any) -> str:
    """Compact JSON with sorted keys: equal data gives equal text (and equal digests).

    >>> canonical_json({"b": 1, "a": [2, 3]})
    '{"a":[2,3],"b":1}'
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _sha(data: Any) -> str:
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()


def _mac(secret: bytes, payload: bytes) -> bytes:
    """HMAC-SHA256 of ``payload`` under ``secret`` (Note [Signed entries])."""
    return hmac.new(secret, payload, hashlib.sha256).digest()


def _unzip(blob: bytes, what: str) -> Any:
    try:
        raw = zlib.decompress(blob)
    except Exception as e:  # zlib.error, TypeError, MemoryError
        raise StoreFormatError(f"a stored entry's {what} is not readable ({type(e).__name__}: {e})") from None
    return _parse(raw, what)


def _parse(raw: bytes, what: str) -> Any:
    try:
        return json.loads(raw.decode())
    except Exception as e:  # UnicodeDecodeError, JSONDecodeError, RecursionError, MemoryError...
        raise StoreFormatError(f"a stored entry's {what} is not readable ({type(e).__name__}: {e})") from None


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One stored cache entry (see the module docstring).

    Attributes:
        id: SHA-256 of the head's content (Note [Head and body]).
        function: the function fingerprint.
        key: the digest of the cache key.
        inputs: the key in words (``x: float32[2-d] ndarray, n: int``).
        label: the ``specialize_on`` condition of a specialised entry, else None.
        guards: the guard set as a :func:`guards.text.serialize.encode_guards` dict.
        pins: ``[source, value]`` for each source the guards pin to a constant (sources as
            :mod:`guards.text.serialize` writes them).
        body_digest: SHA-256 of the body.
        provenance: who stored it and why (function name, host, pid, time, trace seconds, reason, dynamic dims).
        program: the traced program as a :func:`shapeenv.program.io.program_to_json` dict (None: body not read).
        artifact: ``{"backend": name, "data": ...}`` (None: body not read).
    """

    id: str
    function: str
    key: str
    inputs: str
    label: str | None
    guards: dict = field(repr=False)
    pins: tuple = field(repr=False)
    body_digest: str = field(repr=False)
    provenance: dict = field(repr=False, compare=False)
    program: dict | None = field(default=None, repr=False)
    artifact: dict | None = field(default=None, repr=False)

    @staticmethod
    def _digest(function: str, key: str, label: str | None, guards: dict, pins: Any, body_digest: str) -> str:
        return _sha({"function": function, "key": key, "label": label, "guards": guards, "pins": pins,
                     "body": body_digest})

    @classmethod
    def build(cls, function: str, key: str, inputs: str, label: str | None, guards: dict, program: dict,
              artifact: dict, provenance: dict, pins: tuple = ()) -> "StoredEntry":
        """An entry with its digests computed."""
        pins = tuple(tuple(p) for p in pins)
        body_digest = _sha({"program": program, "artifact": artifact})
        digest = cls._digest(function, key, label, guards, [list(p) for p in pins], body_digest)
        return cls(digest, function, key, inputs, label, guards, pins, body_digest, provenance, program, artifact)

    @property
    def has_body(self) -> bool:
        """Whether the program and artifact have been read."""
        return self.program is not None

    def encode_head(self, secret: bytes) -> bytes:
        """The head: a tag, its HMAC under ``secret``, then zlib-compressed canonical JSON (Note [Signed entries])."""
        payload = zlib.compress(canonical_json({
            "format": ENTRY_FORMAT, "id": self.id, "function": self.function, "key": self.key, "inputs": self.inputs,
            "label": self.label, "guards": self.guards, "pins": [list(p) for p in self.pins],
            "body": self.body_digest, "provenance": self.provenance,
        }).encode(), 6)
        return _HEAD_TAG + _mac(secret, payload) + payload

    def encode_body(self) -> bytes:
        """The body (program and artifact) as zlib-compressed canonical JSON."""
        if self.program is None:
            raise StoreFormatError(f"entry {self.id[:12]} was read without its body")
        return zlib.compress(canonical_json({"program": self.program, "artifact": self.artifact}).encode(), 6)

    @classmethod
    def decode_head(cls, blob: bytes, secret: bytes) -> "StoredEntry":
        """Read :meth:`encode_head` 's bytes back (without the body); the signature and the id are checked.

        Raises:
            StoreFormatError: not an entry of this format, not signed with ``secret``, malformed, or its
                content does not match its id.
        """
        blob = bytes(blob)
        if not blob.startswith(_HEAD_TAG):
            raise StoreFormatError(f"a stored entry is not in the format this version reads ({ENTRY_FORMAT!r})")
        mac, payload = blob[len(_HEAD_TAG):len(_HEAD_TAG) + _MAC_SIZE], blob[len(_HEAD_TAG) + _MAC_SIZE:]
        if not hmac.compare_digest(mac, _mac(secret, payload)):  # checked before anything is parsed
            raise StoreFormatError("a stored entry's signature does not match (damaged, tampered with, "
                                   "or signed by another store's secret)")
        data = _unzip(payload, "head")
        if not isinstance(data, dict) or data.get("format") != ENTRY_FORMAT:
            raise StoreFormatError(f"a signed entry is not in the format this version reads ({ENTRY_FORMAT!r})")
        try:
            entry = cls._checked(data)
        except StoreFormatError:
            raise
        except Exception as e:  # signed by this store's secret, yet malformed: never trusted either
            raise StoreFormatError(f"a stored entry's head is malformed ({type(e).__name__}: {e})") from None
        if entry.id != data.get("id"):
            raise StoreFormatError(f"a stored entry's content does not match its id {data.get('id')!r:.80}")
        return entry

    @classmethod
    def _checked(cls, data: dict) -> "StoredEntry":
        """The entry a head's dict describes, its fields' types checked."""
        text = {f: data[f] for f in ("function", "key", "inputs", "body")}
        if not all(isinstance(v, str) for v in text.values()) or not isinstance(data["label"], (str, type(None))):
            raise StoreFormatError("a stored entry's head has a field of the wrong type")
        if not isinstance(data["guards"], dict) or not isinstance(data["provenance"], dict):
            raise StoreFormatError("a stored entry's guards or provenance is not a JSON object")
        if not isinstance(data["pins"], list) or not all(isinstance(p, list) and len(p) == 2 for p in data["pins"]):
            raise StoreFormatError("a stored entry's pins are not [source, value] pairs")
        pins = tuple(tuple(p) for p in data["pins"])
        digest = cls._digest(text["function"], text["key"], data["label"], data["guards"], data["pins"], text["body"])
        return cls(digest, text["function"], text["key"], text["inputs"], data["label"], data["guards"], pins,
                   text["body"], data["provenance"])

    def with_body(self, blob: bytes) -> "StoredEntry":
        """This entry with the body read from :meth:`encode_body` 's bytes; the body's digest is checked.

        Raises:
            StoreFormatError: the body is unreadable or is not this entry's.
        """
        try:
            raw = zlib.decompress(blob)
        except Exception as e:  # zlib.error, TypeError, MemoryError
            raise StoreFormatError(f"the body stored for entry {self.id[:12]} is not readable ({e})") from None
        if not hmac.compare_digest(hashlib.sha256(raw).hexdigest(), self.body_digest):  # before it is parsed
            raise StoreFormatError(f"the body stored for entry {self.id[:12]} is not its body")
        data = _parse(raw, "body")
        program, artifact = (data.get("program"), data.get("artifact")) if isinstance(data, dict) else (None, None)
        if not isinstance(program, dict) or not isinstance(artifact, (dict, type(None))):
            raise StoreFormatError(f"the body stored for entry {self.id[:12]} is malformed")
        return replace(self, program=program, artifact=artifact)

    def meta(self, size: int, created: float, last_used: float) -> "EntryMeta":
        """Its listing line."""
        prov = self.provenance
        return EntryMeta(self.id, self.function, self.key, str(prov.get("name", "?")), self.inputs, self.label,
                         len(self.guards.get("guards", ())), size, created, last_used)


@dataclass(frozen=True, slots=True)
class EntryMeta:
    """One line of a store's listing (``shapeenv cache ls``).

    Attributes:
        id: the entry id.
        function: the function fingerprint.
        key: the key digest.
        name: the function's qualified name.
        inputs: the key in words.
        label: the ``specialize_on`` condition, if any.
        guards: how many guards its set has.
        size: bytes stored.
        created / last_used: seconds since the epoch (last_used: stored, or last loaded by a process).
    """

    id: str
    function: str
    key: str
    name: str
    inputs: str
    label: str | None
    guards: int
    size: int
    created: float
    last_used: float

    def to_json(self) -> dict:
        """The fields as a dict."""
        return {f: getattr(self, f) for f in self.__slots__}
