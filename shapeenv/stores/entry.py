"""What a store holds: one :class:`StoredEntry` per cache entry, as compressed JSON bytes.

An entry is the guard set (the JSON of :mod:`guards.serialize`), the traced program
(:mod:`shapeenv.program_io`), the backend's serialised artifact and the provenance
(which function, inputs, host, process and time, how long the trace took, why it was
compiled). It is addressed by two digests: the *function* fingerprint
(:mod:`shapeenv.stores.fingerprint`) and the *key* (the part of the cache key that
guards cannot express: input names, types, dtypes, ranks). Its ``id`` is the SHA-256
of its content without the provenance, so two processes that trace the same entry
store it once.

>>> e = StoredEntry.build("f" * 64, "k" * 64, "x: float32[1-d] ndarray", None,
...                       {"guards": []}, {"format": "program/v1"}, {"backend": "program"}, {"name": "f"})
>>> back = StoredEntry.decode(e.encode())
>>> back == e, len(e.id)
(True, 64)
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from .errors import StoreFormatError

__all__ = ["ENTRY_FORMAT", "StoredEntry", "EntryMeta", "canonical_json"]

#: The ``"format"`` tag of a stored entry.
ENTRY_FORMAT = "shapeenv-entry/v1"


def canonical_json(data: Any) -> str:
    """Compact JSON with sorted keys: equal data gives equal text (and equal digests).

    >>> canonical_json({"b": 1, "a": [2, 3]})
    '{"a":[2,3],"b":1}'
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One stored cache entry (see the module docstring).

    Attributes:
        id: SHA-256 of the content (everything but ``provenance``).
        function: the function fingerprint.
        key: the digest of the cache key.
        inputs: the key in words (``x: float32[2-d] ndarray, n: int``).
        label: the ``specialize_on`` condition of a specialised entry, else None.
        guards: the guard set as a :func:`guards.serialize.encode_guards` dict.
        program: the traced program as a :func:`shapeenv.program_io.program_to_json` dict.
        artifact: ``{"backend": name, "data": ...}``: what the backend needs to rebuild its artifact.
        provenance: who stored it and why (function name, host, pid, time, trace seconds, reason, dynamic dims).
    """

    id: str
    function: str
    key: str
    inputs: str
    label: str | None
    guards: dict = field(repr=False, compare=True)
    program: dict = field(repr=False, compare=True)
    artifact: dict = field(repr=False, compare=True)
    provenance: dict = field(repr=False, compare=False)

    @classmethod
    def build(cls, function: str, key: str, inputs: str, label: str | None, guards: dict, program: dict,
              artifact: dict, provenance: dict) -> "StoredEntry":
        """An entry with its content digest computed."""
        content = {"function": function, "key": key, "label": label, "guards": guards, "program": program,
                   "artifact": artifact}
        digest = hashlib.sha256(canonical_json(content).encode()).hexdigest()
        return cls(digest, function, key, inputs, label, guards, program, artifact, provenance)

    def encode(self) -> bytes:
        """The entry as zlib-compressed canonical JSON."""
        data = {
            "format": ENTRY_FORMAT, "id": self.id, "function": self.function, "key": self.key, "inputs": self.inputs,
            "label": self.label, "guards": self.guards, "program": self.program, "artifact": self.artifact,
            "provenance": self.provenance,
        }
        return zlib.compress(canonical_json(data).encode(), 6)

    @classmethod
    def decode(cls, blob: bytes) -> "StoredEntry":
        """Read :meth:`encode` 's bytes back; the content digest is checked.

        Raises:
            StoreFormatError: not an entry of this format, or its content does not match its id.
        """
        try:
            data = json.loads(zlib.decompress(blob).decode())
        except (zlib.error, UnicodeDecodeError, json.JSONDecodeError, RecursionError, TypeError) as e:
            raise StoreFormatError(f"a stored entry is not readable ({type(e).__name__}: {e})") from None
        if not isinstance(data, dict) or data.get("format") != ENTRY_FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise StoreFormatError(f"a stored entry has format {got!r}; this version reads {ENTRY_FORMAT!r}")
        try:
            entry = cls.build(data["function"], data["key"], data["inputs"], data["label"], data["guards"],
                              data["program"], data["artifact"], data.get("provenance", {}))
        except KeyError as e:
            raise StoreFormatError(f"a stored entry lacks the field {e}") from None
        if entry.id != data.get("id"):
            raise StoreFormatError(f"a stored entry's content does not match its id {data.get('id')!r}")
        return entry

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
