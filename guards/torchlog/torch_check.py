"""Check real inputs against torch's own guard dumps, and say why torch recompiled.

:func:`load_torch_guards` turns a ``TORCH_LOGS=guards`` output into one :class:`TorchGuards`
per cache entry: the entry's :class:`~guards.guardset.GuardSet` (shape guards, TENSOR_MATCH
sizes and strides, int EQUALS_MATCH) plus the TENSOR_MATCH records (rank, dtype,
requires_grad, tensor type). :meth:`TorchGuards.explain` binds real arguments -- numpy arrays,
torch tensors, nested lists, dicts and objects with attributes, reached by torch's access
paths (``L['xs'][0]``, ``L['self']._modules['fc']._parameters['weight']``) -- and says, in
words, what rejects them. :func:`explain_call` answers "why did this recompile?" over all
entries, as torch's cache does (an input is reused if *some* entry accepts it), and
:func:`explain_recompiles` reads a ``TORCH_LOGS=recompiles`` log back into the guards it names.

>>> import numpy as np
>>> log = '''TREE_GUARD_MANAGER:
... +- TENSOR_MATCH: check_tensor(L['xs'][0], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[None, 3], stride=[3, 1])
... +- LAMBDA_GUARD: 2 <= L['xs'][0].size()[0]  # b = xs[0].shape[0]'''
>>> [entry] = load_torch_guards(log)
>>> print(entry.explain({"xs": [np.zeros((4, 3), np.float32)]}))
accepted by entry #0
>>> print(entry.explain({"xs": [np.zeros((1, 3), np.float32)]}))
rejected by entry #0: 2 <= L['xs'][0].size()[0] failed: got 1  (line 3 LAMBDA_GUARD  # b = xs[0].shape[0])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from symint.lazy_sympy import sympy

from symint.build import le, symbol_expr

from guards.errors import GuardError, GuardTypeError, UnknownSourceError
from guards.runtime.explain import explain as explain_values
from guards.torchlog.export_text import MODULE_STATE
from guards.guard import Guard, form_key, view_symbol
from guards.guardset import GuardSet, read_torch_output
from guards.text.parse import parse_guard, parse_guards_text, parse_source
from guards.text.printers import to_torch_text
from guards.source import Source
from guards.torchlog.torch_log import DynamicEnv, Recompile, TensorMatch, TorchEntry, TorchLog, read_torch_log
from guards.text.torch_sources import parse_path, resolve

__all__ = [
    "TorchGuards",
    "Verdict",
    "CallExplanation",
    "RecompileExplanation",
    "load_torch_guards",
    "read_arguments",
    "pinned_values",
    "explain_call",
    "explain_recompiles",
    "dynamic_guard_set",
    "tensor_mismatch",
]

_PINNED_KINDS = (" TENSOR_MATCH", " EQUALS_MATCH", f" {MODULE_STATE} ")


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether one entry accepts some inputs, and the reasons (in words) if not."""

    compile_id: str
    accepted: bool
    reasons: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.accepted:
            return f"accepted by entry {self.compile_id}"
        return f"rejected by entry {self.compile_id}: " + "; ".join(self.reasons)


def read_arguments(
    guardset: GuardSet, arguments: Mapping[str, object], globals_: Mapping[str, object] | None = None
) -> dict[sympy.Symbol, int]:
    """Read every source of ``guardset`` from real arguments, following torch's access paths.

    Raises:
        UnknownSourceError: an argument the guards read is missing.
        GuardTypeError: an argument has no such element, attribute, size or stride.

    >>> import numpy as np
    >>> gs = GuardSet.parse("L['d']['w'].stride()[1] == 2")
    >>> read_arguments(gs, {"d": {"w": np.zeros((3, 4))[:, ::2]}})
    {s0: 2}
    """
    out: dict[sympy.Symbol, int] = {}
    for sym, src in guardset.sources:
        obj = resolve(src.base, arguments, globals_)
        try:
            out[sym] = src.read(obj)
        except (LookupError, AttributeError, TypeError, ValueError) as exc:
            raise GuardTypeError(f"cannot read {src.torch_text()} from {type(obj).__name__}: {exc}") from None
    return out


def pinned_values(guardset: GuardSet) -> dict[sympy.Symbol, int]:
    """Symbols a TENSOR_MATCH or EQUALS_MATCH line, or an export program's module state, pins (``source == constant``).

    These are the sizes and strides of parameters and the ints of module attributes, which
    a command line seldom gives; the CLI (and ``assume_traced``) take them as traced and say
    so. Every other guard on them is still checked.

    >>> gs = GuardSet.from_torch_log("TREE_GUARD_MANAGER:\\n+- EQUALS_MATCH: L['self'].heads == 2\\n+- LAMBDA_GUARD: 2 <= L['x']")
    >>> pinned_values(gs[0])
    {s0: 2}
    """
    pinned: dict[sympy.Symbol, int] = {}
    clash: set[sympy.Symbol] = set()
    for g in guardset.guards:
        e = g.form  # read from the form: no sympy view is built
        lhs = e.args[1].atom() if e.kind == "rel" and e.args[0] == "==" else None
        is_pin = (
            lhs is not None and g.origin is not None and any(k in g.origin for k in _PINNED_KINDS)
            and lhs.kind == "sym" and e.args[2].is_const
        )  # fmt: skip
        if is_pin:
            sym, value = view_symbol(lhs.name), e.args[2].const
            if pinned.setdefault(sym, value) != value:
                clash.add(sym)
    return {s: v for s, v in pinned.items() if s not in clash}


def _dtype_name(obj: object) -> str | None:
    dtype = getattr(obj, "dtype", None)
    if dtype is None:
        return None
    text = str(dtype)
    return text if text.startswith("torch.") else f"torch.{getattr(dtype, 'name', text)}"


def _tensor_mismatch(tm: TensorMatch, obj: object) -> str | None:
    """torch's TENSOR_MATCH checks other than sizes and strides, in its words; None if they pass."""
    name = tm.base
    shape = getattr(obj, "shape", None)
    if shape is None:
        return f"{tm.source_text} is a {type(obj).__name__}, not a tensor"
    if len(shape) != tm.ndim:
        return f"tensor {name!r} rank mismatch. expected {tm.ndim}, actual {len(shape)}"
    dtype = _dtype_name(obj)
    if dtype is not None and dtype != tm.dtype:
        return f"tensor {name!r} dtype mismatch. expected {tm.dtype}, actual {dtype}"
    requires_grad = bool(getattr(obj, "requires_grad", False))
    if requires_grad != tm.requires_grad:
        return f"tensor {name!r} requires_grad mismatch. expected requires_grad={int(tm.requires_grad)}"
    return None


@dataclass(frozen=True, slots=True)
class TorchGuards:
    """One torch cache entry: its guard set and the TENSOR_MATCH records."""

    entry: TorchEntry
    guards: GuardSet

    @classmethod
    def of(cls, entry: TorchEntry) -> "TorchGuards":
        """Build from a parsed entry."""
        return cls(entry, GuardSet.from_torch_entry(entry))

    @property
    def compile_id(self) -> str:
        """torch's id of the entry (``"0/1"``)."""
        return self.entry.compile_id

    def explain(
        self, arguments: Mapping[str, object], globals_: Mapping[str, object] | None = None, *, assume_traced: bool = False
    ) -> Verdict:
        """Whether this entry accepts real ``arguments`` (name -> value), and why not.

        TENSOR_MATCH's rank, dtype and requires_grad are checked first (as torch does),
        then the float, bool, str and None matches (:class:`~guards.torchlog.torch_log.ValueMatch`, with
        their types), then every guard; a source that cannot be read rejects the call. With
        ``assume_traced``, an input not given (typically ``self``, the module) is taken as
        traced: its pinned sizes, strides and ints (:func:`pinned_values`) hold.

        Raises:
            UnknownSourceError: an argument the guards read is missing (and not assumed).
        """
        gs = self.guards
        assumed: dict[sympy.Symbol, int] = {}
        if assume_traced:
            missing = {src for _, src in gs.sources if _root(src.base) not in arguments}
            assumed = {s: v for s, v in pinned_values(gs).items() if gs.source_map[s] in missing}
            gs = GuardSet.of(gs.guards, {s: src for s, src in gs.sources if s not in assumed}, gs.domain_map)
        reasons = []
        for tm in self.entry.tensors:
            if assume_traced and _root(tm.base) not in arguments:
                continue
            obj = resolve(tm.base, arguments, globals_)
            why = _tensor_mismatch(tm, obj)
            if why:
                reasons.append(why)
        for vm in self.entry.values:
            if assume_traced and _root(vm.base) not in arguments:
                continue
            try:
                obj = resolve(vm.base, arguments, globals_)
            except GuardTypeError as exc:
                reasons.append(f"{vm.text()} failed: {exc}")
                continue
            if not vm.matches(obj):
                reasons.append(f"{vm.text()} failed: got {obj!r} ({type(obj).__name__})  (line {vm.line} {vm.kind})")
        if reasons:
            return Verdict(self.compile_id, False, tuple(reasons))
        try:
            values = read_arguments(gs, arguments, globals_)
        except GuardTypeError as exc:
            return Verdict(self.compile_id, False, (str(exc),))
        return self.explain_values({**values, **assumed})

    def explain_values(self, values: Mapping[sympy.Symbol, int]) -> Verdict:
        """Whether this entry's guards hold for ``values`` (symbol -> int), and the failures in words."""
        ex = explain_values(self.guards, dict(values))
        reasons = tuple(f"{_torch_words(f.guard, self.guards, f.message())}  ({f.guard.origin})" for f in ex)
        return Verdict(self.compile_id, ex.accepted, reasons)

    def accepts(self, arguments: Mapping[str, object], globals_: Mapping[str, object] | None = None) -> bool:
        """Whether this entry would be reused for ``arguments``."""
        return self.explain(arguments, globals_).accepted


def _root(base: str) -> str:
    """The argument a base starts from: ``xs`` for ``xs[0]``, ``self`` for ``self._modules['fc']``."""
    path = parse_path(base)
    return base if path is None or path.scope != "L" else path.root


def _torch_words(guard: Guard, gs: GuardSet, message: str) -> str:
    """The failure message with sources in torch's spelling (``L['xs'][0]`` rather than ``xs[0]``)."""
    try:
        text = to_torch_text(guard.form, gs.source_map)
    except GuardError:
        return message
    _, sep, got = message.partition(" failed: ")
    for _, src in gs.sources:
        got = got.replace(f"{src.text()} = ", f"{src.torch_text()} = ")
    return f"{text} failed: {got}" if sep else message


def load_torch_guards(text: str | Iterable[str], *, strict: bool = False) -> list[TorchGuards]:
    """One :class:`TorchGuards` per cache entry of a torch guard log or ``TORCH_TRACE`` file, in torch's order.

    >>> [e.compile_id for e in load_torch_guards("TREE_GUARD_MANAGER:\\nTREE_GUARD_MANAGER:")]
    ['#0', '#1']
    """
    return [TorchGuards.of(e) for e in read_torch_output(text, strict=strict).entries]


@dataclass(frozen=True, slots=True)
class CallExplanation:
    """What torch's cache does with one call: which entry (if any) is reused, and every entry's verdict."""

    verdicts: tuple[Verdict, ...]

    @property
    def reused(self) -> str | None:
        """The compile id of the entry that accepts the call (the latest one, as torch checks newest first), or None."""
        for v in reversed(self.verdicts):
            if v.accepted:
                return v.compile_id
        return None

    def __str__(self) -> str:
        if self.reused is not None:
            return f"reused: entry {self.reused} accepts these inputs"
        lines = [f"recompile: none of the {len(self.verdicts)} entries accepts these inputs"]
        for v in reversed(self.verdicts):
            if len(v.reasons) <= 1:
                lines.append(f"  {v}")
            else:
                lines.append(f"  rejected by entry {v.compile_id}:")
                lines += [f"    - {r}" for r in v.reasons]
        return "\n".join(lines)


def explain_call(
    entries: Sequence[TorchGuards],
    arguments: Mapping[str, object],
    globals_: Mapping[str, object] | None = None,
    *,
    assume_traced: bool = False,
) -> CallExplanation:
    """Would torch reuse a cache entry for ``arguments``? Every entry's verdict, newest last.

    ``assume_traced``: inputs not given (the module) are as traced (see :meth:`TorchGuards.explain`).

    >>> import numpy as np
    >>> log = "TREE_GUARD_MANAGER:\\n+- LAMBDA_GUARD: L['x'].size()[0] == 2\\nTREE_GUARD_MANAGER:\\n+- LAMBDA_GUARD: 2 <= L['x'].size()[0] <= 8"
    >>> print(explain_call(load_torch_guards(log), {"x": np.zeros(9)}))
    recompile: none of the 2 entries accepts these inputs
      rejected by entry #1: 2 <= L['x'].size()[0] <= 8 failed: got 9  (line 4 LAMBDA_GUARD)
      rejected by entry #0: L['x'].size()[0] == 2 failed: got 9  (line 2 LAMBDA_GUARD)
    """
    return CallExplanation(tuple(e.explain(arguments, globals_, assume_traced=assume_traced) for e in entries))


# -- recompile logs ----------------------------------------------------------------------------------

_TENSOR_REASON = re.compile(r"^tensor '(?P<name>.+)' (?P<what>size|stride) mismatch at index (?P<i>\d+)\. expected (?P<e>-?\d+), actual (?P<a>-?\d+)$")


@dataclass(frozen=True, slots=True)
class RecompileExplanation:
    """One recompile event read back: for each entry that rejected the call, the guard line it names."""

    recompile: Recompile
    reasons: tuple[tuple[str, str, int | None], ...]  # (compile id, reason in words, guard line in the log or None)

    def __str__(self) -> str:
        r = self.recompile
        head = f"recompiled {r.function} ({r.where})" + (f" as entry {r.compile_id}" if r.compile_id else "") + " because:"
        body = [f"  entry {cid}: {text}" + (f"  (guard at line {line})" if line else "") for cid, text, line in self.reasons]
        return "\n".join([head, *body])


def explain_recompiles(log: TorchLog) -> list[RecompileExplanation]:
    """Each recompile of ``log`` with torch's reasons tied to the guard lines of the entries they name.

    >>> text = '''TREE_GUARD_MANAGER:
    ... +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[2], stride=[1])
    ... Recompiling function f in m.py:3
    ...     triggered by the following guard failure(s):
    ...     - 0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3'''
    >>> print(explain_recompiles(read_torch_log(text))[0])
    recompiled f (m.py:3) because:
      entry 0/0: L['x'].size()[0] == 2 failed: got 3  (guard at line 2)
    """
    by_id = {e.compile_id: e for e in log.entries}
    if len(log.entries) == 1 and log.entries[0].compile_id.startswith("#"):
        by_id.setdefault("0/0", log.entries[0])
    out = []
    for r in log.recompiles:
        reasons = []
        for f in r.failures:
            entry = by_id.get(f.compile_id)
            reasons.append((f.compile_id, *_reason(f.text, entry)))
        out.append(RecompileExplanation(r, tuple(reasons)))
    return out


def tensor_mismatch(text: str) -> tuple[Source, int, int] | None:
    """A size or stride mismatch reason of a recompile, as (source, expected, actual).

    torch writes it ``tensor 'x' size mismatch at index 1. expected 4, actual 6``.

    >>> tensor_mismatch("tensor 'x' size mismatch at index 1. expected 4, actual 6")
    (Source(base='x', kind='size', index=1), 4, 6)
    """
    m = _TENSOR_REASON.match(text)
    if m is None:
        return None
    # torch names the tensor in our dialect (``d['w']``, ``xs[0]``), which reads as a path
    src = Source(parse_source(m.group("name")).base, m.group("what"), int(m.group("i")))  # type: ignore[arg-type]
    return src, int(m.group("e")), int(m.group("a"))


def _reason(text: str, entry: TorchEntry | None) -> tuple[str, int | None]:
    mismatch = tensor_mismatch(text)
    if mismatch:
        src, expected, actual = mismatch
        guard = f"{src.torch_text()} == {expected}"
        line = next((g.line for g in entry.guards if g.text == guard), None) if entry else None
        return f"{guard} failed: got {actual}", line
    if entry is not None and entry.guards:
        parsed = parse_guards_text([g.text for g in entry.guards])
        try:
            mine = parse_guard(text, parsed.source_map, dialect="source")
        except (GuardError, ValueError):
            return text, None
        for g, e in zip(entry.guards, parsed.forms):
            if form_key(e) == form_key(mine):
                return f"{g.text} failed" + (f"  # {g.comment}" if g.comment else ""), g.line
    return f"{text} failed", None


# -- +dynamic logs ------------------------------------------------------------------------------------


def dynamic_guard_set(env: DynamicEnv) -> GuardSet:
    """The guards a ``TORCH_LOGS=+dynamic`` log added for one compile, over torch's own symbols.

    ``create_symbol`` lines give each symbol its source and range (the range becomes
    guards, as torch's produce_guards does); ``eval ... [guard added]`` lines give the guards.

    >>> log = read_torch_log('''create_symbol s77 = 3 for L['x'].size()[0] [2, int_oo] at m.py:3
    ... eval s77 < 16 [guard added] at m.py:4''')
    >>> print(dynamic_guard_set(log.dynamic[0]))
    2 <= L['x'].size()[0]
    L['x'].size()[0] < 16
    """
    sources: dict[sympy.Symbol, Source] = {}
    guards: list[Guard] = []
    for s in env.symbols:
        sym = symbol_expr(s.name)
        sources[sym] = parse_source(s.source_text)
        if s.low is not None:
            guards.append(Guard.of(le(s.low, sym), f"line {s.line} create_symbol"))
        if s.high is not None:
            guards.append(Guard.of(le(sym, s.high), f"line {s.line} create_symbol"))
    parsed = parse_guards_text([g.text for g in env.guards], "auto", sources)
    guards += [Guard.of(e, f"line {g.line} eval") for e, g in zip(parsed.forms, env.guards)]
    return GuardSet.of(guards, parsed.source_map)
