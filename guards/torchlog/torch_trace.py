"""Read torch's structured trace (``TORCH_TRACE=dir python model.py``; the files ``tlparse`` reads).

A trace file is a sequence of *records*. Each record is one line: torch's log prefix
(``V1203 09:29:20.400000 11341 torch/_dynamo/guards.py:4552]``) then one JSON object whose
first key names the record (``dynamo_start``, ``dynamo_cpp_guards_str``, ``create_symbol``,
``guard_added_fast``, ``artifact``, ``compilation_metrics``, ...) and whose ``frame_id``,
``frame_compile_id``, ``attempt`` (and ``compiled_autograd_id``) give torch's compile id
(``0/1``, ``0/1_1``, ``!0/0/1``). A record with ``has_payload`` is followed by its payload,
every line indented by one tab.

:func:`read_torch_trace` returns the same :class:`~guards.torchlog.torch_log.TorchLog` as
:func:`~guards.torchlog.torch_log.read_torch_log` does for the ``TORCH_LOGS=recompiles,dynamic,guards``
text of the same run:

* ``dynamo_cpp_guards_str`` payloads are the guard trees (read by the same code as the text log),
  one entry per compile id, each guard's provenance its line in the trace file and torch's comment;
* ``artifact`` records named ``recompile_reasons`` give the recompiles (a JSON list of
  ``"0/0: reason"`` strings, or one plain line), the function and its file coming from the
  compile's ``compilation_metrics`` record;
* ``create_symbol`` and ``guard_added_fast`` records give the ``+dynamic`` symbols and guards.

Note [Suppressed guards in a trace]
    torch 2.13 writes a ``guard_added_fast`` record for every guard its ShapeEnv logs,
    including those the text log prints as ``eval [guard suppressed] ...`` (facts it
    evaluated without installing a guard). The record does not say which; only the verbose
    ``guard_added`` record (``TORCHDYNAMO_EXTENDED_DEBUG``-style dtrace) carries the prefix.
    So the ``+dynamic`` guards of a trace are the text log's plus the suppressed ones (each
    true of the compile's inputs, so a guard set built from them is narrower, never wrong
    about what torch accepted) unless verbose records say otherwise. The guard *trees* --
    what torch installs and checks -- are the same in both formats.

Nothing in a payload is evaluated: metadata is read with :func:`json.loads`.

>>> trace = '''V1203 09:29:20.400000 1 torch/_dynamo/guards.py:4552] {"dynamo_cpp_guards_str": {}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0, "has_payload": "cf"}
... \\tTREE_GUARD_MANAGER:
... \\t+- RootGuardManager
... \\t| +- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # y = x * 2'''
>>> log = read_torch_trace(trace)
>>> log.entries[0].compile_id, [g.origin for g in log.entries[0].guards]
('0/1', ['line 4 LAMBDA_GUARD  # y = x * 2'])
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from guards.errors import GuardParseError
from guards.torchlog.torch_log import (
    DynamicEnv,
    DynamicSymbol,
    Recompile,
    RecompileFailure,
    TorchGuardLine,
    TorchLog,
    _bound,
    _lines,
    _split_comment,
    read_log_messages,
)

__all__ = ["TraceRecord", "looks_like_torch_trace", "read_torch_trace", "trace_records", "read_trace_path"]

_HEADER = re.compile(r"^[VIWEDC]\d{4} [\d:.]+ +\d+ \S+:\d+\] (?=\{)")
_FAILURE = re.compile(r"^(?P<id>!?\d+(?:/\d+)*(?:_\d+)?): (?P<text>.*)$", re.S)
_META_KEYS = frozenset({"frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "has_payload", "rank", "pathname", "lineno"})
_VR = re.compile(r"^\[(?P<lo>-?\w+), (?P<hi>-?\w+)\]$")


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """One record of a trace: its kind, its JSON metadata, compile id and payload lines.

    Attributes:
        kind: the record's name (the first key that is not frame bookkeeping), e.g. ``"create_symbol"``.
        meta: the value under that key (a dict for most records).
        compile_id: torch's compile id (``"0/1"``), or None for records outside a compile.
        line: the 1-based line of the record in the file.
        payload: ``(line number, text without its tab)`` per payload line.
    """

    kind: str
    meta: object
    compile_id: str | None
    line: int
    payload: tuple[tuple[int, str], ...] = ()

    def payload_text(self) -> str:
        """The payload as one string."""
        return "\n".join(text for _, text in self.payload)


def looks_like_torch_trace(text: str) -> bool:
    """Whether ``text`` is a structured trace: its first line is a log prefix followed by a JSON object.

    >>> looks_like_torch_trace('V1203 09:29:19.998000 1 torch/_dynamo/utils.py:2350] {"chromium_event": {}}')
    True
    >>> looks_like_torch_trace("V1203 09:29:19.998000 1 torch/_dynamo/guards.py:4483] [0/0] [__guards] TREE_GUARD_MANAGER:")
    False
    """
    for line in text[:100_000].splitlines():
        if line.strip():
            return _HEADER.match(line) is not None
    return False


def _compile_id(data: dict) -> str | None:
    frame, attempt_of, ca = data.get("frame_id"), data.get("frame_compile_id"), data.get("compiled_autograd_id")
    if frame is None or attempt_of is None:
        return None if ca is None else f"!{ca}"
    base = f"{frame}/{attempt_of}" if ca is None else f"!{ca}/{frame}/{attempt_of}"
    attempt = data.get("attempt") or 0
    return base if not attempt else f"{base}_{attempt}"


def trace_records(text: str) -> Iterator[TraceRecord]:
    """The records of one trace file, in order.

    Raises:
        GuardParseError: a record line whose JSON cannot be read, or a line that is neither a
            record nor a payload line (with its line number).
    """
    lines = _lines(text)
    n, total = 0, len(lines)
    while n < total:
        raw = lines[n]
        n += 1
        if not raw.strip():
            continue
        m = _HEADER.match(raw)
        if m is None:
            raise GuardParseError("a line of a torch trace that is neither a record nor a tab-indented payload", raw[:200], 1, raw[:40], n)
        try:
            data = json.loads(raw[m.end():])
        except ValueError as exc:
            raise GuardParseError(f"a trace record whose JSON cannot be read: {exc}", raw[:200], m.end() + 1, raw[m.end():m.end() + 40], n) from None
        if not isinstance(data, dict):
            raise GuardParseError("a trace record that is not a JSON object", raw[:200], m.end() + 1, raw[m.end():m.end() + 40], n)
        kind = next((k for k in data if k not in _META_KEYS), "?")
        start = n
        while n < total and lines[n].startswith("\t"):
            n += 1
        payload = tuple((k + 1, lines[k][1:]) for k in range(start, n))
        yield TraceRecord(kind, data.get(kind), _compile_id(data), start, payload)


def read_torch_trace(text: str | Iterable[str], *, strict: bool = False) -> TorchLog:
    """Read a structured trace (or several files of one run) into a :class:`~guards.torchlog.torch_log.TorchLog`.

    Args:
        text: the trace file's text, or several files' texts (read one after another; line
            numbers restart in each, so give one file when provenance matters).
        strict: make a guard of an unknown kind an error (as :func:`~guards.torchlog.torch_log.read_torch_log`).

    Raises:
        GuardParseError: a malformed record, or a shape guard that cannot be read.
    """
    texts = [text] if isinstance(text, str) else list(text)
    records = [r for t in texts for r in trace_records(t)]
    lines = sum(len(_lines(t)) for t in texts)
    messages = [
        (n, "\t" + line, line, r.compile_id, 1)
        for r in records
        if r.kind == "dynamo_cpp_guards_str"
        for n, line in r.payload
    ]
    log = read_log_messages(messages, lines, strict=strict)
    functions = {}
    for r in records:
        if r.kind == "compilation_metrics" and isinstance(r.meta, dict) and r.meta.get("co_name"):
            m = r.meta
            functions[m.get("compile_id") or r.compile_id] = (str(m["co_name"]), f"{m.get('co_filename')}:{m.get('co_firstlineno')}")
    recompiles: list[Recompile] = []
    dynamic: dict[str, tuple[list[DynamicSymbol], list[TorchGuardLine]]] = {}
    suppressed: list[str] = []
    for r in records:
        meta = r.meta if isinstance(r.meta, dict) else {}
        if r.kind == "artifact" and meta.get("name") == "recompile_reasons":
            function, where = functions.get(r.compile_id, ("?", "?"))
            recompiles.append(Recompile(function, where, r.compile_id, tuple(_failures(r)), r.line))
        elif r.kind == "create_symbol" and "symbol" in meta:
            vr = _VR.match(str(meta.get("vr", "")))
            val = str(meta.get("val", "None"))
            hint = int(val) if val.lstrip("-").isdigit() else None
            low, high = (_bound(vr.group("lo")), _bound(vr.group("hi"))) if vr else (None, None)
            sym = DynamicSymbol(str(meta["symbol"]), hint, str(meta.get("source", "")), low, high, r.line)
            dynamic.setdefault(r.compile_id or "?", ([], []))[0].append(sym)
        elif r.kind == "guard_added" and "suppressed" in str(meta.get("prefix", "")):
            suppressed.append(str(meta.get("expr")))  # the verbose record says so; the fast one that follows does not
        elif r.kind == "guard_added_fast" and "expr" in meta:
            if suppressed and suppressed[-1] == str(meta["expr"]):
                suppressed.pop()
                continue
            guard = TorchGuardLine(str(meta["expr"]), r.line, "eval", None, 1)
            dynamic.setdefault(r.compile_id or "?", ([], []))[1].append(guard)
    envs = tuple(DynamicEnv(cid, tuple(s), tuple(g)) for cid, (s, g) in dynamic.items() if s)
    stats = {**log.stats, "format": "torch trace", "records": len(records)}
    return TorchLog(log.entries, tuple(recompiles), envs, lines, stats)


def _failures(record: TraceRecord) -> Iterator[RecompileFailure]:
    """The ``0/0: reason`` items of a recompile_reasons artifact (a JSON list, or plain lines)."""
    try:
        items = json.loads(record.payload_text())
    except ValueError:
        items = None
    if isinstance(items, str):
        items = [items]
    if isinstance(items, list):  # one item per payload line between "[" and "]" as torch prints it
        lines = [n for n, t in record.payload if t.strip() not in ("", "[", "]")]
        pairs = [(lines[k] if len(lines) == len(items) else record.line, str(i)) for k, i in enumerate(items)]
    else:
        pairs = [(n, t) for n, t in record.payload if t.strip()]
    for n, item in pairs:
        m = _FAILURE.match(item.strip())
        if m:
            reason, _ = _split_comment(m.group("text"))
            yield RecompileFailure(m.group("id"), reason, n)


def read_trace_path(path: "str | os.PathLike[str]", read_file) -> tuple[str, list[str]]:
    """The trace text at ``path``: a file, or a ``TORCH_TRACE`` directory holding one process's file.

    ``read_file(path) -> str`` reads one file (the caller's checks for size and encoding).
    Returns (the text, the files read). A directory with several trace files (one per rank
    or process) that hold guards is refused: name the file.

    Raises:
        GuardParseError: a directory with no trace file, or with several that hold guards.
    """
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes) or not os.path.isdir(path):
        return read_file(path), [str(path)]  # read_file checks the type and says what is wrong
    names = sorted(n for n in os.listdir(path) if n.endswith(".log") and os.path.isfile(os.path.join(path, n)))
    texts = [(n, read_file(os.path.join(path, n))) for n in names]
    traces = [(n, t) for n, t in texts if looks_like_torch_trace(t)]
    if not traces:
        raise GuardParseError(f"{os.fspath(path)}: a directory without a torch trace file (*.log written by TORCH_TRACE={os.fspath(path)})")
    with_guards = [(n, t) for n, t in traces if "dynamo_cpp_guards_str" in t]
    if len(with_guards) > 1:
        listed = ", ".join(n for n, _ in with_guards)
        raise GuardParseError(f"{os.fspath(path)}: {len(with_guards)} trace files hold guards (one per process: {listed}); give one file")
    name, text = (with_guards or traces)[0]
    return text, [os.path.join(os.fspath(path), name)]
