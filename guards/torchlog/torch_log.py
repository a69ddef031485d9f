"""Read what torch prints: ``TORCH_LOGS=guards`` trees, ``recompiles`` reasons and ``+dynamic`` symbols.

:func:`read_torch_log` takes a whole log as torch wrote it (torch's log prefix
``V1201 12:00:00.000 123 .../guards.py:4483] [0/1] [__guards]`` optional, tree prefixes
``| | +-``, trailing ``# ...`` comments) and returns plain values: one :class:`TorchEntry`
per ``TREE_GUARD_MANAGER`` block (one compiled cache entry, in the order torch printed
them), the :class:`Recompile` events, and per compile id the :class:`DynamicSymbol` s of
the ``create_symbol`` lines with the ``eval ... [guard added]`` guards.

What an entry keeps, as guard text torch's parser reads back (:mod:`guards.text.parse`):

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
and :mod:`guards.torchlog.torch_check` build guard sets and check real inputs from them.

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

from guards.errors import GuardParseError, UnknownEntryError
from guards.text.parse import parse_source, parse_guards_text

__all__ = [
    "TorchGuardLine",
    "TensorMatch",
    "ValueMatch",
    "SkippedGuard",
    "TorchEntry",
    "Recompile",
    "RecompileFailure",
    "DynamicSymbol",
    "DynamicEnv",
    "TorchLog",
    "read_torch_log",
    "read_log_messages",
    "strip_log_prefix",
    "looks_like_torch_log",
    "literal_value",
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


#: Kinds whose payload may be ``source == True/False/None`` (read as a :class:`ValueMatch`).
_VALUE_KINDS = frozenset({"TRUE_MATCH", "FALSE_MATCH", "NONE_MATCH"})


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
    i = _unquoted(text).find("#")
    if i < 0:
        return text.rstrip(), None
    return text[:i].rstrip(), text[i + 1 :].strip() or None


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
class ValueMatch:
    """A guard that a local or attribute equals a value that is not an int: a float, bool, str or None.

    ``EQUALS_MATCH: L['self']._modules['ln1'].eps == 1e-05`` and ``L['self'].training == False``
    say nothing about sizes, but a call with another value is not reused: they are checked
    against real arguments with their own type (a float is never read as the int 0), and
    kept out of the integer guard algebra.

    >>> vm = ValueMatch.of("L['self'].training", "False", 3, "EQUALS_MATCH")
    >>> vm.value, vm.matches(False), vm.matches(0), vm.matches(True)
    (False, True, False, False)
    """

    base: str
    source_text: str
    value: float | bool | str | None
    literal: str
    line: int
    kind: str
    comment: str | None = None

    @classmethod
    def of(cls, source_text: str, literal: str, line: int, kind: str, comment: str | None = None) -> "ValueMatch":
        """Read ``source == literal``; raises GuardParseError if ``literal`` is not a float, bool, str or None."""
        ok, value = literal_value(literal)
        if not ok:
            raise GuardParseError(f"not a float, bool, str or None literal: {literal!r}", literal, 1, literal, line)
        return cls(parse_source(source_text).base, source_text, value, literal, line, kind, comment)

    def matches(self, obj: object) -> bool:
        """Whether a real value equals this one, with the same type (``False`` is not ``0``, ``1e-05`` not ``0``)."""
        v = self.value
        if v is None or isinstance(v, bool):
            return obj is v or (type(obj).__name__ == "bool_" and bool(obj) is v)  # numpy's bool_
        if isinstance(v, float):
            return isinstance(obj, float) and (obj == v or (obj != obj and v != v))
        return isinstance(obj, str) and obj == v

    def text(self) -> str:
        """The guard as torch printed it."""
        return f"{self.source_text} == {self.literal}"


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
        values: the float, bool, str and None matches (:class:`ValueMatch`), checked on real arguments.
    """

    compile_id: str
    guards: tuple[TorchGuardLine, ...]
    tensors: tuple[TensorMatch, ...]
    skipped: tuple[SkippedGuard, ...]
    first_line: int
    last_line: int
    structure_lines: int = 0
    values: tuple[ValueMatch, ...] = ()

    def skipped_counts(self) -> dict[str, int]:
        """Skipped guard lines by kind, most frequent first (ties by name)."""
        counts: dict[str, int] = {}
        for s in self.skipped:
            counts[s.kind] = counts.get(s.kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def guard_lines(self) -> int:
        """How many guard lines the block holds (kept + skipped; TENSOR_MATCH lines once)."""
        return len({g.line for g in self.guards} | {t.line for t in self.tensors}) + len(self.skipped) + len(self.values)


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
        self.values: list[ValueMatch] = []
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
        elif kind in _VALUE_KINDS and self.value_match(n, expr, comment, kind):
            pass
        elif kind in NON_SHAPE_KINDS:
            self.skipped.append(SkippedGuard(n, kind, expr))
        elif self.strict:
            raise GuardParseError(f"unknown torch guard kind {kind!r} (strict mode)", raw, column, kind, n)
        else:
            self.skipped.append(SkippedGuard(n, f"unrecognised {kind}", expr))

    def value_match(self, n: int, expr: str, comment: str | None, kind: str) -> bool:
        """Record ``source == <float, bool, str or None>``; False if ``expr`` is not one."""
        left, right = _top_level_eq(expr)
        if left is None or not left.startswith("L[") or _INT.match(right) or not literal_value(right)[0]:
            return False
        try:
            src = parse_source(left)
        except GuardParseError:
            return False
        if src.kind != "value":
            return False
        self.values.append(ValueMatch(src.base, left, literal_value(right)[1], right, n, kind, comment))
        return True

    def lambda_guard(self, n: int, raw: str, expr: str, comment: str | None, column: int) -> None:
        if self.value_match(n, expr, comment, "LAMBDA_GUARD"):
            return
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
        if self.value_match(n, expr, comment, "EQUALS_MATCH"):
            return
        self.skipped.append(SkippedGuard(n, "EQUALS_MATCH (not a value of a local)", expr))

    def build(self) -> TorchEntry:
        return TorchEntry(self.compile_id, tuple(self.guards), tuple(self.tensors), tuple(self.skipped),
                          self.first, self.last, self.structure, tuple(self.values))  # fmt: skip


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
    """The skip kind of a LAMBDA_GUARD that is not about sizes, or None if it may be one.

    The words are looked for outside quoted strings only: ``L['a is b'].size()[0] == 2``
    is a shape guard (a dict key may hold any text).

    >>> _non_shape_lambda("L['a is b'].size()[0] == 2"), _non_shape_lambda("L['a'] is L['b']")
    (None, 'LAMBDA_GUARD (object identity)')
    """
    code = _unquoted(expr)
    if " is " in code or code.startswith(("not ___", "___")):
        return "LAMBDA_GUARD (object identity)"
    if "math.isnan" in code or "__math_isnan" in code or "__numpy_isnan" in code:
        return "LAMBDA_GUARD (float NaN check)"
    if code.endswith(("== None", "!= None")) or code.startswith(("torch.", "utils_device.")):
        return "LAMBDA_GUARD (global state)"
    if code.startswith("G[") and not _SHAPE_WORDS.search(code):
        return "LAMBDA_GUARD (global value)"
    return None


def _unquoted(text: str) -> str:
    """``text`` with the inside of every quoted string replaced by ``_`` (same length; one scan, in C, for quotes and backslashes)."""
    out: list[str] = []
    last, quote, skip = 0, None, -1
    for m in _SPECIAL.finditer(text):
        i = m.start()
        if i < skip:  # the character after a backslash inside quotes
            continue
        c = text[i]
        if quote is None:
            if c != "\\":
                out.append(text[last : i + 1])
                quote, last = c, i + 1
        elif c == "\\":
            skip = i + 2
        elif c == quote:
            out.append("_" * (i - last) + c)
            quote, last = None, i + 1
    tail = text[last:]
    out.append(tail if quote is None else "_" * len(tail))
    return "".join(out)


_SPECIAL = re.compile(r"[\\'\"]")


def _top_level_eq(expr: str) -> tuple[str | None, str]:
    """Split ``left == right`` at its one ``==`` outside quotes: (left, right), or (None, "") if there is not exactly one."""
    code = _unquoted(expr)
    at = code.find(" == ")
    if at < 0 or code.find(" == ", at + 1) >= 0 or any(op in code for op in (" != ", " <= ", " >= ", " < ", " > ", " and ", " or ")):
        return None, ""
    return expr[:at].strip(), expr[at + 4 :].strip()


_FLOAT = re.compile(r"^[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?$")


def literal_value(text: str) -> tuple[bool, float | bool | str | None]:
    """Read a Python literal torch prints in a guard: a float, ``True``/``False``, ``None`` or a quoted str.

    Nothing is evaluated: the text is read by rules. Returns (whether it is one, the value).

    >>> literal_value("1e-05"), literal_value("False"), literal_value("'gelu'"), literal_value("x")
    ((True, 1e-05), (True, False), (True, 'gelu'), (False, None))
    """
    text = text.strip()
    if text in ("True", "False"):
        return True, text == "True"
    if text == "None":
        return True, None
    if text in ("inf", "-inf", "nan", "math.inf", "-math.inf", "math.nan"):
        return True, float(text.replace("math.", ""))
    if _FLOAT.match(text):
        return True, float(text)
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        return _string_body(text[1:-1], text[0])
    return False, None


def _string_body(body: str, quote: str) -> tuple[bool, str | None]:
    """Decode a quoted string's body as Python does (``\\n``, ``\\x41``, ``\\u00e9``); refuse an unescaped quote inside.

    The escapes are decoded by the ``unicode_escape`` codec (no evaluation; one pass in C).
    """
    if quote in body and _unquoted(quote + body + quote)[1:-1].strip("_"):
        return False, None  # an unescaped quote inside: not one literal
    if "\\" not in body:
        return True, body
    try:
        return True, body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return False, None


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
    messages = ((n, raw, *strip_log_prefix(raw)) for n, raw in enumerate(lines, 1))
    return read_log_messages(messages, len(lines), strict=strict)


def read_log_messages(messages: Iterable[tuple[int, str, str, str | None, int]], lines: int, *, strict: bool = False) -> TorchLog:
    """The reader behind :func:`read_torch_log`, over messages already split from their log prefix.

    Each message is ``(line number, raw line, message, compile id or None, column where the message
    starts)``; :mod:`guards.torchlog.torch_trace` feeds the payload lines of a structured trace this way,
    so both formats read guard trees with the same code.

    >>> read_log_messages([(7, "x", "TREE_GUARD_MANAGER:", "0/1", 0)], 7).entries[0].compile_id
    '0/1'
    """
    entries: list[TorchEntry] = []
    recompiles: list[Recompile] = []
    dynamic: dict[str, tuple[list[DynamicSymbol], list[TorchGuardLine]]] = {}
    current: _EntryBuilder | None = None
    pending: Recompile | None = None
    counts = {"tree_lines": 0, "structure_lines": 0, "other_lines": 0}
    for n, raw, message, compile_id, start in messages:
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
    counts["lines"] = lines
    return TorchLog(tuple(entries), tuple(recompiles), envs, lines, counts)


_NEWLINES = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> list[str]:
    return _NEWLINES.split(text.removesuffix("\r\n").removesuffix("\n").removesuffix("\r")) if text else []


def _bound(text: str) -> int | None:
    if _INT.match(text):
        return int(text)
    return None  # int_oo, -int_oo, oo
