"""Read what torch prints: ``TORCH_LOGS=guards`` trees, ``recompiles`` reasons and ``+dynamic`` symbols.

:func:`read_torch_log` takes a whole log as torch wrote it (torch's log prefix
``V1201 12:00:00.000 123 .../guards.py:4483] [0/1] [__guards]`` optional, tree prefixes
``| | +-``, trailing ``# ...`` comments) and returns plain values: one :class:`TorchEntry`
per ``TREE_GUARD_MANAGER`` block (one compiled cache entry, in the order torch printed
them), the :class:`Recompile` events, and per compile id the :class:`DynamicSymbol` s of
the ``create_symbol`` lines with the ``eval ... [guard added]`` guards.

What an entry keeps, as guard text torch's parser reads back (:mod:`guards.parse`):

* ``LAMBDA_GUARD`` shape lines (``2 <= L['x'].size()[0]``, strides, ``.item()``, nested sources);
* ``TENSOR_MATCH``: one ``==`` per static size and stride (``size=[None, 12]`` pins only
  dim 1), and a :class:`TensorMatch` with the dtype, device, requires_grad and rank;
* ``EQUALS_MATCH`` of a local's int (``L['n'] == 3``, ``L['self'].heads == 2``).

Every other guard is recognised and *skipped*, with its kind and line number
(``TYPE_MATCH``, ``ID_MATCH``, ``GLOBAL_STATE``, ``G[...] is ...``, non-int ``EQUALS_MATCH``,
``LENGTH_CHECK``, ...). With ``strict=True`` a guard line of an unknown kind is an error.
A line that looks like a shape guard (it reads ``.size()``, ``.stride()``, ...) but does
not parse is always an error naming its line and column.

This module only reads text into plain values; :meth:`guards.guardset.GuardSet.from_torch_log`
and :mod:`guards.torch_check` build guard sets and check real inputs from them.

>>> log = '''TREE_GUARD_MANAGER:
... +- RootGuardManager
... | +- GLOBAL_STATE: ___check_global_state() against {}
... | +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=0)
... | | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[None, 12], stride=[12, 1])  # y = x @ w
... +- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # b = x.shape[0]'''
>>> entry = read_torch_log(log).entries[0]
>>> [g.text for g in entry.guards]
["L['x'].size()[1] == 12", "L['x'].stride()[0] == 12", "L['x'].stride()[1] == 1", "2 <= L['x'].size()[0]"]
>>> entry.skipped_counts()
{'GLOBAL_STATE': 1}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from .errors import GuardParseError, UnknownEntryError
from .parse import parse_source, parse_guards_text

__all__ = [
    "TorchGuardLine",
    "TensorMatch",
    "SkippedGuard",
    "TorchEntry",
    "Recompile",
    "RecompileFailure",
    "DynamicSymbol",
    "DynamicEnv",
    "TorchLog",
    "read_torch_log",
    "strip_log_prefix",
    "looks_like_torch_log",
]

# torch's log prefix: level+date, time, pid, file:line], then [compile id] and [__artifact] tags.
_PREFIX = re.compile(r"^[VIWEDC]\d{4} [\d:.]+ +\d+ \S+:\d+\] ?")
_COMPILE_ID = re.compile(r"^\[(\d+/\d+(?:_\d+)?)\] ?")
_ARTIFACT = re.compile(r"^\[__\w+\] ?")
# A guard line is ``+- KIND: payload``; a structure line is ``+- GuardManager: ...`` or, for the
# entries of a dict guard manager (``nn.Sequential``, ``ModuleList``), ``+- KeyValueManager pair at index=0``.
_TREE = re.compile(r"^(?P<bars>(?:\| )*)\+- (?P<kind>[A-Za-z_]+)(?::(?: (?P<payload>.*))?| (?P<rest>[^:]*))?$")
_TENSOR = re.compile(
    r"^check_tensor\((?P<src>.+?), (?P<type>[\w.]+), DispatchKeySet\((?P<keys>[^)]*)\), (?P<dtype>[\w.]+), "
    r"device=(?P<device>[^,]+), requires_grad=(?P<rg>True|False), size=\[(?P<size>[^\]]*)\], stride=\[(?P<stride>[^\]]*)\]\)$"
)
_INT = re.compile(r"^-?\d+$")
_SHAPE_WORDS = re.compile(r"\.(size|stride)\(\)|\.storage_offset\(\)|\.numel\(\)|\.shape\[")
_CREATE_SYMBOL = re.compile(r"^create_symbol (?P<sym>\w+) = (?P<hint>-?\d+|None) for (?P<src>.+?) \[(?P<lo>-?\w+), (?P<hi>-?\w+)\]")
_EVAL_ADDED = re.compile(r"^eval (?P<expr>.+?) \[guard added\]")
_RECOMPILE = re.compile(r"^Recompiling function (?P<fn>\S+) in (?P<where>\S+)")
_FAILURE = re.compile(r"^\s*- (?P<id>\d+/\d+(?:_\d+)?): (?P<text>.*)$")

#: Guard kinds that are understood and never about sizes: reported as skipped.
NON_SHAPE_KINDS = frozenset(
    """TYPE_MATCH ID_MATCH GLOBAL_STATE TORCH_FUNCTION_MODE_STACK DEFAULT_DEVICE DICT_CONTAINS
    DIMENSION_DYNAMIC_MARKING_GUARD LENGTH_CHECK NONE_MATCH TRUE_MATCH FALSE_MATCH NO_TENSOR_ALIASING
    DUPLICATE_INPUT DICT_VERSION DICT_KEYS_MATCH DICT_KEYS DUAL_LEVEL FUNCTORCH_STACK_MATCH
    NOT_NONE_MATCH NOT_PRESENT_IN_GENERIC_DICT HASATTR GRAD_MODE DETERMINISTIC_ALGORITHMS
    TORCH_FUNCTION_STATE FSDP_TRAINING_STATE BACKEND_MATCH AUTOGRAD_SAVED_TENSORS_HOOKS
    WEAKREF_ALIVE CLOSURE_MATCH FUNCTION_MATCH BUILTIN_MATCH SEQUENCE_LENGTH TUPLE_ITERATOR_LEN
    RANGE_ITERATOR_MATCH MAPPING_KEYS_CHECK SET_CONTAINS OBJECT_ALIASING""".split()
)


def strip_log_prefix(line: str) -> tuple[str, str | None, int]:
    """Drop torch's log prefix; return (the message, its compile id or None, the column the message starts at).

    >>> strip_log_prefix("V1201 15:44:51.549000 9713 torch/_dynamo/guards.py:4483] [0/1] [__guards] +- RootGuardManager")
    ('+- RootGuardManager', '0/1', 74)
    >>> strip_log_prefix("+- LAMBDA_GUARD: 2 <= L['x'].size()[0]")[1:]
    (None, 0)
    """
    start, compile_id = 0, None
    m = _PREFIX.match(line)
    if m:
        start = m.end()
        c = _COMPILE_ID.match(line[start:])
        if c:
            compile_id, start = c.group(1), start + c.end()
    a = _ARTIFACT.match(line[start:])
    if a:
        start += a.end()
    return line[start:], compile_id, start


def looks_like_torch_log(text: str) -> bool:
    """Whether ``text`` is torch log output (a guard tree, a recompile reason, or a create_symbol line).

    >>> looks_like_torch_log("TREE_GUARD_MANAGER:\\n+- RootGuardManager"), looks_like_torch_log("L['x'].size()[0] == 2")
    (True, False)
    """
    head = text[:200_000]
    return any(marker in head for marker in ("TREE_GUARD_MANAGER", "+- LAMBDA_GUARD:", "+- TENSOR_MATCH:", "Recompiling function", "create_symbol "))


def _split_comment(text: str) -> tuple[str, str | None]:
    """``expr  # comment`` -> (``expr``, ``comment``); a ``#`` inside quotes is not a comment."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == "\\":
                continue
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#":
            return text[:i].rstrip(), text[i + 1 :].strip() or None
    return text.rstrip(), None


# -- values ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TorchGuardLine:
    """One guard an entry keeps: its text (torch's spelling), where it came from and why.

    Attributes:
        text: the guard, e.g. ``"2 <= L['x'].size()[0]"``.
        line: its 1-based line number in the log.
        kind: the torch guard kind it came from (``LAMBDA_GUARD``, ``TENSOR_MATCH``, ``EQUALS_MATCH``).
        comment: torch's ``# ...`` comment on that line (the user code), if any.
        column: the 1-based column in the log line where ``text`` starts.
    """

    text: str
    line: int
    kind: str
    comment: str | None = None
    column: int = 1

    @property
    def origin(self) -> str:
        """Provenance for a :class:`~guards.guard.Guard`: ``line 12 TENSOR_MATCH # y = x @ w``."""
        return f"line {self.line} {self.kind}" + (f"  # {self.comment}" if self.comment else "")


@dataclass(frozen=True, slots=True)
class TensorMatch:
    """What a ``TENSOR_MATCH`` line checks besides sizes and strides (those become guards).

    ``size`` and ``stride`` hold None for a dynamic dim (checked by shape guards instead).
    """

    base: str
    source_text: str
    tensor_type: str
    dispatch_keys: str
    dtype: str
    device: str
    requires_grad: bool
    size: tuple[int | None, ...]
    stride: tuple[int | None, ...]
    line: int

    @property
    def ndim(self) -> int:
        """The rank the tensor must have."""
        return len(self.size)


@dataclass(frozen=True, slots=True)
class SkippedGuard:
    """A guard line that says nothing about sizes (or that this reader does not translate)."""

    line: int
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class TorchEntry:
    """One compiled cache entry: the guards of one ``TREE_GUARD_MANAGER`` block.

    Attributes:
        compile_id: torch's ``frame/attempt`` id (``"0/1"``) from the log prefix, or ``"#k"``.
        guards: the shape guards, as text, with provenance.
        tensors: the ``TENSOR_MATCH`` records (dtype, device, flags, rank).
        skipped: the guard lines recognised as non-shape (or, when not strict, not understood).
        first_line, last_line: where the block is in the log.
        structure_lines: ``GuardManager`` / ``RootGuardManager`` lines (the tree itself).
    """

    compile_id: str
    guards: tuple[TorchGuardLine, ...]
    tensors: tuple[TensorMatch, ...]
    skipped: tuple[SkippedGuard, ...]
    first_line: int
    last_line: int
    structure_lines: int = 0

    def skipped_counts(self) -> dict[str, int]:
        """Skipped guard lines by kind, most frequent first (ties by name)."""
        counts: dict[str, int] = {}
        for s in self.skipped:
            counts[s.kind] = counts.get(s.kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def guard_lines(self) -> int:
        """How many guard lines the block holds (kept + skipped; TENSOR_MATCH lines once)."""
        return len({g.line for g in self.guards} | {t.line for t in self.tensors}) + len(self.skipped)


@dataclass(frozen=True, slots=True)
class RecompileFailure:
    """One ``- 0/1: reason`` line of a recompile: which entry rejected the call, and torch's reason."""

    compile_id: str
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class Recompile:
    """One recompile event torch logged, with the guard failures that triggered it."""

    function: str
    where: str
    compile_id: str | None
    failures: tuple[RecompileFailure, ...]
    line: int


@dataclass(frozen=True, slots=True)
class DynamicSymbol:
    """A ``create_symbol s3 = 5 for L['x'].size()[0] [2, int_oo]`` line."""

    name: str
    hint: int | None
    source_text: str
    low: int | None
    high: int | None
    line: int


@dataclass(frozen=True, slots=True)
class DynamicEnv:
    """What ``TORCH_LOGS=+dynamic`` said about one compile: its symbols and the guards it added (sympy text)."""

    compile_id: str
    symbols: tuple[DynamicSymbol, ...]
    guards: tuple[TorchGuardLine, ...]


@dataclass(frozen=True, slots=True)
class TorchLog:
    """Everything :func:`read_torch_log` found, with counts.

    Attributes:
        entries: one per guard tree, in the order torch printed them.
        recompiles: the recompile events.
        dynamic: per compile id, the +dynamic symbols and guards (only ids that created symbols).
        lines: how many lines the log has.
    """

    entries: tuple[TorchEntry, ...]
    recompiles: tuple[Recompile, ...] = ()
    dynamic: tuple[DynamicEnv, ...] = ()
    lines: int = 0
    stats: dict = field(default_factory=dict, compare=False)

    def entry(self, compile_id: str) -> TorchEntry:
        """The entry torch calls ``compile_id`` (``"0/1"``).

        Raises:
            UnknownEntryError: no guard tree has that id (a ``KeyError``).

        >>> read_torch_log("V1201 15:44:51.5 9713 guards.py:4483] [0/1] [__guards] TREE_GUARD_MANAGER:").entry("0/1").first_line
        1
        """
        for e in self.entries:
            if e.compile_id == compile_id:
                return e
        raise UnknownEntryError(f"no guard tree for compile id {compile_id!r} (ids: {', '.join(e.compile_id for e in self.entries)})")

    def skipped_counts(self) -> dict[str, int]:
        """Skipped guard lines by kind over all entries."""
        counts: dict[str, int] = {}
        for e in self.entries:
            for k, n in e.skipped_counts().items():
                counts[k] = counts.get(k, 0) + n
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# -- reading ------------------------------------------------------------------------------------------


class _EntryBuilder:
    def __init__(self, compile_id: str, first: int, strict: bool):
        self.compile_id, self.first, self.strict = compile_id, first, strict
        self.guards: list[TorchGuardLine] = []
        self.tensors: list[TensorMatch] = []
        self.skipped: list[SkippedGuard] = []
        self.structure = 0
        self.last = first

    def add(self, n: int, raw: str, kind: str, payload: str, column: int) -> None:
        self.last = n
        expr, comment = _split_comment(payload)
        if kind == "LAMBDA_GUARD":
            self.lambda_guard(n, raw, expr, comment, column)
        elif kind == "TENSOR_MATCH":
            self.tensor_match(n, raw, expr, comment, column)
        elif kind == "EQUALS_MATCH":
            self.equals_match(n, expr, comment, column)
        elif kind in NON_SHAPE_KINDS:
            self.skipped.append(SkippedGuard(n, kind, expr))
        elif self.strict:
            raise GuardParseError(f"unknown torch guard kind {kind!r} (strict mode)", raw, column, kind, n)
        else:
            self.skipped.append(SkippedGuard(n, f"unrecognised {kind}", expr))

    def lambda_guard(self, n: int, raw: str, expr: str, comment: str | None, column: int) -> None:
        kind = _non_shape_lambda(expr)
        if kind is not None:
            self.skipped.append(SkippedGuard(n, kind, expr))
            return
        try:
            parse_guards_text([expr])
        except GuardParseError as exc:
            if _SHAPE_WORDS.search(expr) or expr.startswith(("L[", "(L[")):
                raise GuardParseError(
                    f"a shape guard that cannot be read: {exc.message}", raw, column + max(exc.column, 1) - 1, exc.fragment, n
                ) from None
            if self.strict:
                raise GuardParseError(f"unrecognised LAMBDA_GUARD (strict mode): {exc.message}", raw, column, expr[:60], n) from None
            self.skipped.append(SkippedGuard(n, "unrecognised LAMBDA_GUARD", expr))
            return
        except (TypeError, ValueError) as exc:  # GuardTypeError: not a condition
            raise GuardParseError(f"a shape guard that cannot be read: {exc}", raw, column, expr[:60], n) from None
        self.guards.append(TorchGuardLine(expr, n, "LAMBDA_GUARD", comment, column))

    def tensor_match(self, n: int, raw: str, expr: str, comment: str | None, column: int) -> None:
        m = _TENSOR.match(expr)
        if m is None:
            raise GuardParseError("a TENSOR_MATCH line this reader does not understand", raw, column, expr[:60], n)
        src_text = m.group("src")
        try:
            base = parse_source(src_text).base
        except GuardParseError as exc:
            raise GuardParseError(f"TENSOR_MATCH names a source that cannot be read: {exc.message}", raw, column + 13, src_text, n) from None
        size, stride = _dims(m.group("size"), raw, n, column), _dims(m.group("stride"), raw, n, column)
        self.tensors.append(
            TensorMatch(base, src_text, m.group("type"), m.group("keys"), m.group("dtype"), m.group("device"),
                        m.group("rg") == "True", size, stride, n)  # fmt: skip
        )
        for what, dims in (("size", size), ("stride", stride)):
            for i, v in enumerate(dims):
                if v is not None:
                    self.guards.append(TorchGuardLine(f"{src_text}.{what}()[{i}] == {v}", n, "TENSOR_MATCH", comment, column))

    def equals_match(self, n: int, expr: str, comment: str | None, column: int) -> None:
        left, sep, right = expr.rpartition(" == ")
        if sep and _INT.match(right.strip()) and left.startswith("L["):
            try:
                src = parse_source(left)
            except GuardParseError:
                src = None
            if src is not None and src.kind == "value":
                self.guards.append(TorchGuardLine(expr, n, "EQUALS_MATCH", comment, column))
                return
        self.skipped.append(SkippedGuard(n, "EQUALS_MATCH (not an int of a local)", expr))

    def build(self) -> TorchEntry:
        return TorchEntry(self.compile_id, tuple(self.guards), tuple(self.tensors), tuple(self.skipped),
                          self.first, self.last, self.structure)  # fmt: skip


def _dims(text: str, raw: str, n: int, column: int) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if part == "None":
            out.append(None)
        elif _INT.match(part):
            out.append(int(part))
        else:
            raise GuardParseError("a TENSOR_MATCH size or stride that is not an int or None", raw, column, part, n)
    return tuple(out)


def _non_shape_lambda(expr: str) -> str | None:
    """The skip kind of a LAMBDA_GUARD that is not about sizes, or None if it may be one."""
    if " is " in expr or expr.startswith("not ___") or expr.startswith("___"):
        return "LAMBDA_GUARD (object identity)"
    if "math.isnan" in expr or "__math_isnan" in expr or "__numpy_isnan" in expr:
        return "LAMBDA_GUARD (float NaN check)"
    if expr.endswith("== None") or expr.endswith("!= None") or expr.startswith(("torch.", "utils_device.")):
        return "LAMBDA_GUARD (global state)"
    if expr.startswith("G[") and not _SHAPE_WORDS.search(expr):
        return "LAMBDA_GUARD (global value)"
    return None


def read_torch_log(text: str | Iterable[str], *, strict: bool = False) -> TorchLog:
    """Read a whole torch log: guard trees, recompile reasons and +dynamic symbols (see the module docstring).

    Args:
        text: the log (or its lines), with or without torch's log prefixes.
        strict: make a guard line of an unknown kind an error instead of a skipped line.

    Returns:
        A :class:`TorchLog`.

    Raises:
        GuardParseError: a shape guard (or TENSOR_MATCH) that cannot be read, with its line and column;
            in strict mode, also a guard of an unknown kind.

    >>> log = read_torch_log("Recompiling function f in m.py:3\\n    triggered by the following guard failure(s):\\n    - 0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3")
    >>> log.recompiles[0].failures[0].text
    "tensor 'x' size mismatch at index 0. expected 2, actual 3"
    """
    # Lines end at \n, \r\n or \r only: str.splitlines would also cut at U+2028 inside a quoted name.
    lines = _lines(text) if isinstance(text, str) else [l for item in text for l in (_lines(item) or [""])]
    entries: list[TorchEntry] = []
    recompiles: list[Recompile] = []
    dynamic: dict[str, tuple[list[DynamicSymbol], list[TorchGuardLine]]] = {}
    current: _EntryBuilder | None = None
    pending: Recompile | None = None
    counts = {"tree_lines": 0, "structure_lines": 0, "other_lines": 0}
    for n, raw in enumerate(lines, 1):
        message, compile_id, start = strip_log_prefix(raw)
        stripped = message.strip()
        if stripped == "TREE_GUARD_MANAGER:":
            if current is not None:
                entries.append(current.build())
            current = _EntryBuilder(compile_id or f"#{len(entries)}", n, strict)
            counts["tree_lines"] += 1
            continue
        if current is not None:
            m = _TREE.match(message)
            if m:
                counts["tree_lines"] += 1
                kind, payload = m.group("kind"), m.group("payload") or ""
                if not kind.isupper():  # RootGuardManager, GuardManager, DictGuardManager, KeyValueManager, ...
                    current.structure += 1
                    counts["structure_lines"] += 1
                    current.last = n
                    continue
                column = start + (m.start("payload") if m.group("payload") is not None else m.start("kind")) + 1
                current.add(n, raw, kind, payload, column)
                continue
            entries.append(current.build())
            current = None
        counts["other_lines"] += 1
        r = _RECOMPILE.match(stripped)
        if r:
            if pending is not None:
                recompiles.append(pending)
            pending = Recompile(r.group("fn"), r.group("where"), compile_id, (), n)
            continue
        f = _FAILURE.match(message)
        if pending is not None and f:
            reason, _ = _split_comment(f.group("text"))
            pending = Recompile(pending.function, pending.where, pending.compile_id,
                                pending.failures + (RecompileFailure(f.group("id"), reason, n),), pending.line)  # fmt: skip
            continue
        if pending is not None and not stripped.startswith(("triggered by", "- User stack", "File ", "  ")) and stripped:
            recompiles.append(pending)
            pending = None
        c = _CREATE_SYMBOL.match(stripped)
        if c:
            syms, _ = dynamic.setdefault(compile_id or "?", ([], []))
            hint = None if c.group("hint") == "None" else int(c.group("hint"))
            syms.append(DynamicSymbol(c.group("sym"), hint, c.group("src"), _bound(c.group("lo")), _bound(c.group("hi")), n))
            continue
        e = _EVAL_ADDED.match(stripped)
        if e and not e.group("expr").startswith("[guard suppressed]"):
            _, guards = dynamic.setdefault(compile_id or "?", ([], []))
            column = start + len(message) - len(message.lstrip()) + 6
            guards.append(TorchGuardLine(e.group("expr"), n, "eval", None, column))
    if current is not None:
        entries.append(current.build())
    if pending is not None:
        recompiles.append(pending)
    envs = tuple(DynamicEnv(cid, tuple(s), tuple(g)) for cid, (s, g) in dynamic.items() if s)
    counts["lines"] = len(lines)
    return TorchLog(tuple(entries), tuple(recompiles), envs, len(lines), counts)


_NEWLINES = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> list[str]:
    return _NEWLINES.split(text.removesuffix("\r\n").removesuffix("\n").removesuffix("\r")) if text else []


def _bound(text: str) -> int | None:
    if _INT.match(text):
        return int(text)
    return None  # int_oo, -int_oo, oo
