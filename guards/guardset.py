"""``GuardSet``: a conjunction of guards over symbols, and the input sources the symbols stand for.

A guard set answers "may a cached compilation be reused for these inputs?". Its
meaning is the conjunction of its guards. ``domain`` holds what is *assumed* of
every input and never checked (by default: a size, stride, offset or element
count is ``>= 0``); reasoning (implication, simplification) may rely on it.

>>> from symint.build import symbol_expr, eq, ge
>>> from guards.source import Source
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> gs = GuardSet.of([eq(s0, s1), ge(s0, 2)], {s0: Source.size("x", 0), s1: Source.size("y", 0)})
>>> len(gs), gs.holds({"x.size()[0]": 3, "y.size()[0]": 3}), gs.holds({s0: 3, s1: 4})
(2, True, False)
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator, Mapping

from symint.lazy_sympy import sympy
from symint.form import bool_const

from valueranges import ValueRanges

from guards.runtime.codegen import CompiledGuards, compile_guards
from guards.solver.conflict import Conflict, conflict
from guards.runtime.explain import Explanation, explain
from guards.errors import AmbiguousSourceError, GuardError, GuardParseError, GuardTypeError, UnknownSourceError
from guards.guard import Guard, view_symbol
from guards.progress import Progress
from guards.solver.prove import (
    ProofResult,
    RedundancyReport,
    counterexample,
    equivalent,
    implies,
    is_satisfiable,
    overlap,
    redundant,
    redundant_with_report,
)
from guards.simplify.passes import SimplifyReport, simplify_with_report
from guards.solver.z3_solver import SolverConfig
from guards.text.parse import Dialect, parse_guards_text
from guards.text.escape import sympy_str
from guards.text.printers import TextStyle, render_html, render_latex, to_text, to_text_lines
from guards.protocols import Bindings
from guards.text.serialize import decode_guards, encode_guards, loads_json
from guards.source import Source
from guards.torchlog.export_text import looks_like_export_program, read_export_text
from guards.torchlog.torch_log import TorchEntry, TorchLog, looks_like_torch_log, read_torch_log
from guards.torchlog.torch_trace import looks_like_torch_trace, read_torch_trace, read_trace_path
from guards.validate import by_symbol_name, need_choice, need_config, need_guardset, need_iterable

__all__ = [
    "GuardSet",
    "Bindings",
    "parse_guards",
    "load_guards",
    "read_guard_file",
    "decode_guard_bytes",
    "MAX_FILE_BYTES",
    "looks_like_torch_output",
    "read_torch_output",
    "no_guards_message",
]


_SIZE_DOMAIN = ValueRanges.of(0, math.inf)

# Note [A guard set names its symbols]
#     A guard set keeps its sources and domain by symbol name, as its guards' forms name their
#     symbols: producing a guard set from a trace builds no sympy (Note [sympy on first use] in
#     symint.lazy_sympy). ``sources``/``domain``/``source_map``/``domain_map`` are the sympy views
#     the readers, printers and callers of the public API use, built once per guard set on first
#     read; ``of`` takes either kind of key. Two sets are equal when their names are.


@dataclass(frozen=True, slots=True)
class GuardSet:
    """An immutable conjunction of :class:`Guard` s with the sources of its symbols.

    Attributes:
        guards: the guards, deduplicated by expression, in insertion order.
        named_sources: ``(symbol name, source)`` pairs sorted by name.
        named_domain: ``(symbol name, range)`` pairs: facts assumed (not checked) for every input.

    ``sources`` and ``domain`` are the same pairs keyed by sympy Symbols, built on first read
    (Note [A guard set names its symbols]).
    """

    guards: tuple[Guard, ...] = ()
    named_sources: tuple[tuple[str, Source], ...] = ()
    named_domain: tuple[tuple[str, ValueRanges], ...] = ()
    _lookup: dict = field(default=None, compare=False, repr=False, hash=False)  # type: ignore[assignment]
    _views: dict = field(default=None, compare=False, repr=False, hash=False)  # type: ignore[assignment]

    @classmethod
    def of(
        cls,
        guards: Iterable[Guard | sympy.Basic] = (),
        sources: "Mapping[sympy.Symbol | str, Source] | None" = None,
        domain: "Mapping[sympy.Symbol | str, ValueRanges] | None" = None,
    ) -> "GuardSet":
        """Build a guard set; ``True`` guards are dropped and duplicates merged.

        ``sources`` and ``domain`` are keyed by symbol: a sympy Symbol or its name.
        ``domain`` defaults to ``[0, oo]`` for every symbol whose source is size-like.

        >>> from symint.build import symbol_expr, lt
        >>> GuardSet.of([lt(symbol_expr("n"), 5), True, lt(symbol_expr("n"), 5)])
        GuardSet(n < 5)
        """
        seen: dict[object, Guard] = {}
        for g in need_iterable(guards, "guards"):
            if not isinstance(g, Guard):
                g = Guard.of(bool_const(g) if isinstance(g, bool) else g)  # True/False: the constant forms
            if g.key is True or g.key in seen:
                continue
            seen[g.key] = g
        named = by_symbol_name(sources, "sources", Source, "Source objects", optional=True)
        _check_sources(named)
        if domain is None:
            named_domain = {name: _SIZE_DOMAIN for name, src in named.items() if src.is_size_like}
        else:
            named_domain = by_symbol_name(domain, "domain", ValueRanges, "ValueRanges")
        return cls(tuple(seen.values()), tuple(sorted(named.items())), tuple(sorted(named_domain.items())))

    # -- views -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.guards)

    def __iter__(self) -> Iterator[Guard]:
        return iter(self.guards)

    @property
    def exprs(self) -> tuple[sympy.Basic, ...]:
        """The guards' expressions."""
        return tuple(g.expr for g in self.guards)

    def _view(self, key: str, pairs: tuple) -> tuple:
        views = self._views
        if views is None:
            views = {}
            object.__setattr__(self, "_views", views)  # a cache of derived data only
        found = views.get(key)
        if found is None:
            found = views[key] = tuple((view_symbol(name), value) for name, value in pairs)
        return found

    @property
    def sources(self) -> tuple[tuple[sympy.Symbol, Source], ...]:
        """``(symbol, source)`` pairs sorted by symbol name: the sympy view of ``named_sources``."""
        return self._view("sources", self.named_sources)

    @property
    def domain(self) -> tuple[tuple[sympy.Symbol, ValueRanges], ...]:
        """``(symbol, range)`` pairs: the sympy view of ``named_domain``."""
        return self._view("domain", self.named_domain)

    @property
    def source_map(self) -> dict[sympy.Symbol, Source]:
        """Symbol -> source."""
        return dict(self.sources)

    @property
    def domain_map(self) -> dict[sympy.Symbol, ValueRanges]:
        """Symbol -> assumed range (symbols not listed are unconstrained)."""
        return dict(self.domain)

    @property
    def names(self) -> frozenset[str]:
        """The name of every symbol read by a guard or given a source (``symbols`` without sympy).

        >>> from symint.build import symbol_expr, lt
        >>> sorted(GuardSet.of([lt(symbol_expr("n"), 5)], {"m": Source.value("k")}).names)
        ['m', 'n']
        """
        out = {n for n, _ in self.named_sources}
        for g in self.guards:
            out |= g.form.symbols
        return frozenset(out)

    @property
    def symbols(self) -> frozenset[sympy.Symbol]:
        """Every symbol read by a guard or given a source."""
        syms: set[sympy.Symbol] = {s for s, _ in self.sources}
        for g in self.guards:
            syms |= g.free_symbols
        return frozenset(syms)

    def with_guards(self, guards: Iterable[Guard | sympy.Basic]) -> "GuardSet":
        """The same sources and domain with other guards.

        >>> from symint.build import symbol_expr, lt
        >>> GuardSet.of().with_guards([lt(symbol_expr("n"), 3)])
        GuardSet(n < 3)
        """
        other = GuardSet.of(guards)
        return replace(self, guards=other.guards, _lookup=None)

    def __and__(self, other: "GuardSet") -> "GuardSet":
        """Conjunction of two guard sets (their sources must agree where they overlap)."""
        if not isinstance(other, GuardSet):
            return NotImplemented
        sources = dict(self.named_sources)
        for sym, src in other.named_sources:
            if sources.setdefault(sym, src) != src:
                raise UnknownSourceError(f"symbol {sym} stands for {sources[sym]} in one set and {src} in the other")
        domain = dict(self.named_domain)
        for sym, rng in other.named_domain:
            domain[sym] = domain[sym] & rng if sym in domain else rng
        return GuardSet.of(self.guards + other.guards, sources, domain)

    # -- binding -------------------------------------------------------------------------------
    def _keys(self) -> dict[object, sympy.Symbol | None]:
        lookup = self._lookup
        if lookup is None:
            lookup = {}

            def claim(key: object, sym: sympy.Symbol) -> None:
                # A text key two symbols answer to (a symbol named like another's source) is ambiguous: None.
                old = lookup.setdefault(key, sym)
                if old is not sym:
                    lookup[key] = None

            for sym in self.symbols:
                lookup[sym] = sym
            for sym in self.symbols:
                claim(sym.name, sym)
            for sym, src in self.sources:
                claim(src, sym)
                claim(src.text(), sym)
                claim(src.torch_text(), sym)
            object.__setattr__(self, "_lookup", lookup)  # a cache of derived data only
        return lookup

    def _describe(self, sym: sympy.Symbol) -> str:
        src = self.source_map.get(sym)
        return f"{sym.name} ({src.torch_text()})" if src is not None else sym.name

    def symbol_for(self, key: "sympy.Symbol | Source | str") -> sympy.Symbol:
        """The symbol a binding key names (a symbol, a Source, a symbol name or source text).

        Raises:
            UnknownSourceError: nothing in this guard set is called ``key``.
            AmbiguousSourceError: ``key`` names two symbols (e.g. a symbol ``s0`` and an input named ``s0``).
        """
        try:
            sym = self._keys()[key]
        except (KeyError, TypeError):
            known = ", ".join(sorted(src.text() for _, src in self.sources) or sorted(s.name for s in self.symbols))
            raise UnknownSourceError(f"{_short(key)} is not a symbol or source of this guard set (known: {known})") from None
        if sym is None:
            named = sorted(self._describe(s) for s in self.symbols if key in (s.name, *self._texts(s)))
            raise AmbiguousSourceError(
                f"{_short(key)} names more than one symbol ({', '.join(named)}); bind a Symbol or a Source object, "
                "or torch's spelling L['...']"
            )
        return sym

    def _texts(self, sym: sympy.Symbol) -> tuple[str, ...]:
        src = self.source_map.get(sym)
        return (src.text(), src.torch_text()) if src is not None else ()

    def bind(self, bindings: Bindings) -> dict[sympy.Symbol, int]:
        """Translate ``bindings`` to ``{symbol: value}``.

        >>> from symint.build import symbol_expr, lt
        >>> from guards.source import Source
        >>> n = symbol_expr("n")
        >>> GuardSet.of([lt(n, 3)], {n: Source.value("k")}).bind({"L['k']": 2})
        {n: 2}
        """
        if not isinstance(bindings, Mapping):
            raise GuardTypeError(f"bindings must be a mapping of sources or symbols to ints, got {type(bindings).__name__}")
        out: dict[sympy.Symbol, int] = {}
        given: dict[sympy.Symbol, object] = {}
        for key, value in bindings.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise GuardTypeError(f"the value bound to {_short(key)} must be an int, got {type(value).__name__} {_short(value)}")
            sym = self.symbol_for(key)
            if sym in out and out[sym] != value:
                raise AmbiguousSourceError(
                    f"{_short(given[sym])} and {_short(key)} both name {self._describe(sym)} but give it different values "
                    f"({out[sym]} and {value})"
                )
            out[sym], given[sym] = value, key
        return out

    def failures(self, bindings: Bindings) -> list[Guard]:
        """The guards that do not hold for ``bindings`` (slow path: walks the expressions).

        Raises:
            UnknownSourceError: a guard reads a symbol that ``bindings`` does not give.
        """
        values = self.bind(bindings)
        missing = {s for s in self.symbols if s not in values and any(s in g.free_symbols for g in self.guards)}
        if missing:
            names = ", ".join(sorted(self.source_map[s].text() if s in self.source_map else s.name for s in missing))
            raise UnknownSourceError(f"no value given for {names}")
        failed = []
        by_name = {s.name: v for s, v in values.items()}
        for g in self.guards:
            try:
                ok = bool(g.form.evaluate(by_name))  # left to right, as the compiled checker and Z3 read it
            except (ArithmeticError, ValueError):  # as the compiled checker: Note [Guards that raise]
                ok = False
            if not ok:
                failed.append(g)
        return failed

    def holds(self, bindings: Bindings) -> bool:
        """Whether every guard holds for ``bindings``."""
        return not self.failures(bindings)

    # -- compiled checkers and explanations (guards/runtime/codegen.py, guards/runtime/explain.py) ---------------
    def compile(self) -> "CompiledGuards":
        """Compile to a fast checker over concrete sizes (see :func:`guards.runtime.codegen.compile_guards`).

        >>> from symint.build import symbol_expr, ge
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 2)], {n: Source.value("n")}).compile().check({"n": 1})
        False
        """
        return compile_guards(self)

    def explain(self, bindings: Bindings, *, first_only: bool = False) -> "Explanation":
        """Which guards fail for ``bindings``, in words (see :func:`guards.runtime.explain.explain`).

        >>> from symint.build import symbol_expr, eq
        >>> s0 = symbol_expr("s0")
        >>> print(GuardSet.of([eq(s0, 8)], {s0: Source.size("x", 0)}).explain({"x.size()[0]": 9}))
        x.size()[0] == 8 failed: got 9
        """
        return explain(self, bindings, first_only=first_only)

    # -- text, JSON and notebook views (guards/text/parse.py, guards/text/printers.py, guards/text/serialize.py) --
    @classmethod
    def parse(
        cls,
        text: str | Iterable[str],
        dialect: Dialect = "auto",
        symbols: Mapping[sympy.Symbol, Source] | None = None,
        origin: str | None = None,
    ) -> "GuardSet":
        """Parse guard text, one guard per line (``#`` comments and blank lines are skipped).

        Sources (``L['x'].size()[0]``, ``x.shape[0]``) become symbols ``s0, s1, ...`` by
        first appearance unless ``symbols`` maps one to them. With ``origin`` set,
        each guard's origin is ``"<origin>:<line>"``. See :func:`guards.text.parse.parse_guards_text`.

        Raises:
            GuardParseError: malformed text (with the line and column).
            GuardTypeError: a line is not a condition.

        >>> print(GuardSet.parse("L['x'].size()[0] == L['y'].size()[0]  # from torch\\n2 <= L['x'].size()[0]"))
        L['x'].size()[0] == L['y'].size()[0]
        2 <= L['x'].size()[0]
        """
        parsed = parse_guards_text(text, dialect, symbols)
        guards = [Guard.of(e, f"{origin}:{n}" if origin else None) for e, n in zip(parsed.forms, parsed.lines)]
        return cls.of(guards, parsed.source_map)

    @classmethod
    def from_file(cls, path: "str | os.PathLike[str]", dialect: Dialect = "auto") -> "GuardSet":
        """Read a guard file: JSON, guard text, or torch's own output (the newest entry of a log or trace).

        JSON is detected by content (see :mod:`guards.text.serialize`). A ``TORCH_LOGS=guards`` log, a
        ``TORCH_TRACE`` file (or its directory) and a printed ``torch.export`` program are read
        as :meth:`from_torch_log` reads them; for a log or trace this is its newest cache entry
        (:meth:`from_torch_log` gives every entry). Each guard read from guard text gets the
        origin ``"<path>:<line>"``.

        Raises:
            GuardParseError: malformed content (with the line number), a binary or non-UTF-8 file,
                or a file that holds no guards in any format this library reads.
            GuardTypeError: ``path`` is not a str or path.
            OSError: the file cannot be read.
        """
        text, _ = read_trace_path(path, read_guard_file)
        try:
            if text.lstrip().startswith("{"):
                return cls.from_json(text)
            if looks_like_torch_output(text):
                return cls.from_torch_log(text)[-1]
            gs = cls.parse(text, dialect, origin=str(path))
        except GuardParseError as exc:
            raise exc.in_file(path) from None
        if not gs.guards:
            raise GuardParseError(f"{path}: holds no guards in any format shapeenv reads (guard text, JSON, a TORCH_LOGS log, "
                                  "a TORCH_TRACE file or directory, a printed torch.export program)")  # fmt: skip
        return gs

    @classmethod
    def from_torch_log(cls, text: str | Iterable[str], *, strict: bool = False) -> list["GuardSet"]:
        """One guard set per compiled entry of torch's output, in the order torch printed them.

        ``text`` is a ``TORCH_LOGS=guards`` log, a ``TORCH_TRACE`` file (its payload guard trees
        read as the log's), or a printed ``torch.export`` program (one guard set, see
        :func:`guards.torchlog.torch_export.read_exported_program`). Shape guards (``LAMBDA_GUARD``
        lines), ``TENSOR_MATCH`` sizes and strides and int ``EQUALS_MATCH`` lines are kept,
        each guard's origin being its line and torch's comment; non-shape guards are skipped
        (see :mod:`guards.torchlog.torch_log`, whose :func:`~guards.torchlog.torch_log.read_torch_log` also
        reports what was skipped, and :mod:`guards.torchlog.torch_check` for dtypes, ranks and real arguments).

        Raises:
            GuardParseError: a shape guard that cannot be read (its line and column), in strict mode an
                unknown guard kind, or text that holds no guard tree, trace or export program at all.

        >>> [str(gs) for gs in GuardSet.from_torch_log("TREE_GUARD_MANAGER:\\n+- LAMBDA_GUARD: 2 <= L['xs'][0].size()[0]")]
        ["2 <= L['xs'][0].size()[0]"]
        """
        if isinstance(text, str) and looks_like_export_program(text):
            return [cls.from_exported_program(text)]
        log = read_torch_output(text, strict=strict)
        if not log.entries:
            raise GuardParseError(no_guards_message(log, "the text"))
        return [cls.from_torch_entry(e) for e in log.entries]

    @classmethod
    def from_exported_program(cls, text: str) -> "GuardSet":
        """The guard set of ``print(exported_program)`` text (see :mod:`guards.torchlog.export_text`)."""
        e = read_export_text(text)
        return cls.of(e.guards, dict(e.sources))

    @classmethod
    def from_torch_entry(cls, entry: TorchEntry) -> "GuardSet":
        """The guard set of one :class:`~guards.torchlog.torch_log.TorchEntry` (symbols ``s0, s1, ...`` by first appearance)."""
        parsed = parse_guards_text([g.text for g in entry.guards])
        guards = [Guard.of(e, line.origin) for e, line in zip(parsed.forms, entry.guards)]
        return cls.of(guards, parsed.source_map)

    def to_text(self, dialect: TextStyle = "torch") -> str:
        """One guard per line, in ``"torch"`` (``L['x'].size()[0]``), ``"sympy"`` or ``"source"`` text.

        >>> from symint.build import symbol_expr, eq, mod
        >>> s0 = symbol_expr("s0")
        >>> gs = GuardSet.of([eq(mod(s0, 8), 0)], {s0: Source.size("x", 0)})
        >>> gs.to_text(), gs.to_text("sympy"), gs.to_text("source")
        ("(L['x'].size()[0] % 8) == 0", 'Eq(Mod(s0, 8), 0)', '(x.size()[0] % 8) == 0')
        """
        need_choice(dialect, ("torch", "sympy", "source"), "text style")
        return "\n".join(to_text_lines([g.form for g in self.guards], dict(self.named_sources), dialect))

    def __str__(self) -> str:
        try:
            return self.to_text("torch")
        except GuardError:  # an expression with no guard syntax: fall back to sympy's printing
            return "\n".join(sympy_str(g.expr) for g in self.guards)

    def to_json(self) -> str:
        """The guard set as JSON; :meth:`from_json` reads it back as an equal guard set.

        >>> from symint.build import symbol_expr, ge
        >>> s0 = symbol_expr("s0")
        >>> gs = GuardSet.of([Guard.of(ge(s0, 2), "f.py:3")], {s0: Source.size("x", 0)})
        >>> back = GuardSet.from_json(gs.to_json())
        >>> back == gs, back.guards[0].origin
        (True, 'f.py:3')
        """
        return json.dumps(encode_guards(self.guards, self.source_map, self.domain_map), indent=2)

    @classmethod
    def from_json(cls, text: str) -> "GuardSet":
        """Read the JSON written by :meth:`to_json` (or a ``{"guards": [...]}`` object of guard strings).

        Raises:
            GuardParseError: malformed JSON or fields.
        """
        guards, sources, domain = decode_guards(loads_json(text))
        return cls.of(guards, sources, domain)

    def _repr_html_(self) -> str:
        """Notebook view: a table of torch text, sympy form, sources and origin per guard (escaped)."""
        return render_html(self.guards, self.source_map)

    def _repr_latex_(self) -> str:
        """Notebook view: the conjunction in LaTeX with the symbol -> source legend."""
        return render_latex(self.guards, self.source_map)

    # -- reasoning with Z3 (guards/solver/prove.py, guards/simplify/passes.py) ---------------------------------
    # Each answer is three-valued (Verdict.YES/NO/UNKNOWN); every Z3 check is bounded by
    # ``config.rlimit`` and each question by ``config.budget_rlimit``/``max_checks`` (deterministic
    # counts; see Note [Deterministic limits] in guards.solver.z3_solver), and says what it spent. Two sets are compared over the same inputs: symbols are matched
    # by source when both have one, else by name; both domains are assumed.
    def is_satisfiable(self, config: SolverConfig = SolverConfig()) -> ProofResult:
        """Whether some input passes every guard (YES comes with a witness).

        >>> from symint.build import symbol_expr, ge, lt
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 3), lt(n, 3)]).is_satisfiable().verdict.value
        'no'
        """
        return is_satisfiable(self, need_config(config))

    def unsat_core(self, config: SolverConfig = SolverConfig()) -> Conflict:
        """Which guards conflict: a minimal subset (with any domain ranges involved) that cannot hold together.

        >>> from symint.build import symbol_expr, ge, lt
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 3), ge(n, 1), lt(n, 3)]).unsat_core().indices
        (0, 2)
        """
        return conflict(self, config)

    def implies(self, other: "GuardSet", config: SolverConfig = SolverConfig()) -> ProofResult:
        """Whether every input this set accepts, ``other`` accepts (NO comes with a counterexample).

        >>> from symint.build import symbol_expr, ge
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 3)]).implies(GuardSet.of([ge(n, 2)])).verdict.value
        'yes'
        """
        return implies(self, need_guardset(other, "the other guard set"), need_config(config))

    def equivalent(self, other: "GuardSet", config: SolverConfig = SolverConfig()) -> ProofResult:
        """Whether both sets accept exactly the same inputs.

        >>> from symint.build import symbol_expr, ge, gt
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 3)]).equivalent(GuardSet.of([gt(n, 2)])).verdict.value
        'yes'
        """
        return equivalent(self, need_guardset(other, "the other guard set"), need_config(config))

    def counterexample(self, other: "GuardSet", config: SolverConfig = SolverConfig()) -> ProofResult:
        """An input accepted by one set only (YES: found; ``accepted_by`` says which set accepts it).

        >>> from symint.build import symbol_expr, ge
        >>> n = symbol_expr("n")
        >>> r = GuardSet.of([ge(n, 3)]).counterexample(GuardSet.of([ge(n, 4)]))
        >>> dict(r.witness), r.accepted_by
        ({'n': 3}, 'self')
        """
        return counterexample(self, need_guardset(other, "the other guard set"), need_config(config))

    def overlap(self, other: "GuardSet", config: SolverConfig = SolverConfig()) -> ProofResult:
        """Whether some input passes both sets (YES comes with it: the two are ambiguous there).

        >>> from symint.build import symbol_expr, ge, lt
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 3)]).overlap(GuardSet.of([lt(n, 3)])).verdict.value
        'no'
        """
        return overlap(self, need_guardset(other, "the other guard set"), need_config(config))

    def redundant(self, config: SolverConfig = SolverConfig()) -> tuple[Guard, ...]:
        """Guards implied by the others and the domain (they may all be dropped together).

        >>> from symint.build import symbol_expr, ge
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 3), ge(n, 2)]).redundant()
        (Guard(n >= 2),)
        """
        return redundant(self, need_config(config))

    def redundant_with_report(self, config: SolverConfig = SolverConfig()) -> RedundancyReport:
        """:meth:`redundant`, with the guards left undecided and what the search spent (checks, rlimit, budget).

        >>> from symint.build import symbol_expr, ge
        >>> n = symbol_expr("n")
        >>> r = GuardSet.of([ge(n, 3), ge(n, 2)]).redundant_with_report()
        >>> r.redundant, r.budget_exhausted
        ((Guard(n >= 2),), False)
        """
        return redundant_with_report(self, config)

    def simplify(self, config: SolverConfig = SolverConfig()) -> "GuardSet":
        """An equivalent guard set without implied guards, bounds merged, in canonical order.

        The result is proven equivalent by Z3; what could not be proven is kept as it was.
        :meth:`simplify_with_report` also says what was dropped and merged.

        >>> from symint.build import symbol_expr, ge, gt
        >>> n = symbol_expr("n")
        >>> GuardSet.of([ge(n, 2), gt(n, 3)]).simplify()
        GuardSet(n >= 4)
        """
        return simplify_with_report(self, need_config(config))[0]

    def simplify_with_report(
        self, config: SolverConfig = SolverConfig(), progress: Progress | None = None
    ) -> tuple["GuardSet", SimplifyReport]:
        """:meth:`simplify`, and a :class:`~guards.simplify.passes.SimplifyReport` of what it did (``progress``: a display)."""
        return simplify_with_report(self, need_config(config), progress)

    def __repr__(self) -> str:
        """The guards in source text where the symbols have sources (``x.size()[0] >= 2``), else sympy's.

        >>> from symint.build import symbol_expr, ge
        >>> s0, n = symbol_expr("s0"), symbol_expr("n")
        >>> GuardSet.of([ge(s0, 2), ge(n, 1)], {s0: Source.size("x", 0)})
        GuardSet(x.size()[0] >= 2, n >= 1)
        """
        sources = self.source_map
        texts = []
        for g in self.guards:
            try:
                texts.append(to_text(g.form, sources, "source") if sources else sympy_str(g.expr))
            except GuardError:  # an expression with no guard syntax
                texts.append(sympy_str(g.expr))
        return "GuardSet(" + ", ".join(texts) + ")"


#: Largest guard file read, in bytes.
MAX_FILE_BYTES = 256 << 20


def read_guard_file(path: "str | os.PathLike[str]") -> str:
    """The text of a guard file, checked: UTF-8, no NUL bytes, at most :data:`MAX_FILE_BYTES`.

    Raises:
        GuardTypeError: ``path`` is not a str or ``os.PathLike`` (an int would be a file descriptor).
        GuardParseError: the file is binary, not UTF-8, or too large.
        OSError: the file cannot be read.
    """
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise GuardTypeError(f"a guard file path must be a str or os.PathLike, got {type(path).__name__}")
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise GuardParseError(f"{path}: the file is larger than {MAX_FILE_BYTES >> 20} MiB; is it a guard file?")
    return decode_guard_bytes(data, str(path))


def decode_guard_bytes(data: bytes, name: str) -> str:
    """``data`` decoded as UTF-8 guard text (a BOM is dropped).

    Raises:
        GuardParseError: NUL bytes (a binary file) or bytes that are not UTF-8, with the line.

    >>> decode_guard_bytes("n >= 2 # ok".encode(), "g.txt")
    'n >= 2 # ok'
    """
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise GuardParseError(f"{name}: a NUL byte: this looks like a binary file, not guard text", line=line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise GuardParseError(f"{name}: the file is not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r})",
                              line=line) from None  # fmt: skip
    return text[1:] if text.startswith("\ufeff") else text


def _short(obj: object) -> str:
    text = repr(obj)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_sources(sources: Mapping[str, Source]) -> None:
    """Refuse two sources written the same way in our dialect."""
    by_text: dict[str, Source] = {}
    for src in sources.values():
        other = by_text.setdefault(src.text(), src)
        if other != src:
            raise AmbiguousSourceError(
                f"the inputs {other.torch_text()} and {src.torch_text()} are both written {src.text()!r}, so bindings, "
                "witnesses and reports could not tell them apart; rename the input"
            )


# -- reading guard text and files (guards/text/parse.py, guards/text/serialize.py) --------------------------------


def looks_like_torch_output(text: str) -> bool:
    """Whether ``text`` is torch's own output: a structured trace, a guard/recompile log, or an export program.

    >>> looks_like_torch_output("TREE_GUARD_MANAGER:"), looks_like_torch_output("L['x'].size()[0] == 2")
    (True, False)
    """
    return looks_like_torch_trace(text) or looks_like_export_program(text) or looks_like_torch_log(text)


def read_torch_output(text: str | Iterable[str], *, strict: bool = False) -> TorchLog:
    """A TORCH_LOGS text log or a TORCH_TRACE file, read into one :class:`~guards.torchlog.torch_log.TorchLog`."""
    if isinstance(text, str) and looks_like_torch_trace(text):
        return read_torch_trace(text, strict=strict)
    return read_torch_log(text, strict=strict)


def no_guards_message(log: TorchLog, name: str) -> str:
    """Why ``name`` gives no guard set: what torch output it holds instead, and what to run."""
    held = ", ".join(f"{n} {what}" for n, what in ((len(log.recompiles), "recompile reasons"), (len(log.dynamic), "+dynamic compiles")) if n)
    return (f"{name} holds no guards (no guard tree, trace guards or export program{'; only ' + held if held else ''}): "
            "run with TORCH_LOGS=guards (or TORCH_TRACE=dir), or paste print(exported_program)")


def parse_guards(
    text_or_lines: str | Iterable[str],
    dialect: Dialect = "auto",
    symbols: Mapping[sympy.Symbol, Source] | None = None,
) -> GuardSet:
    """Parse guard text, one guard per line, into a :class:`GuardSet` (see :meth:`GuardSet.parse`).

    >>> gs = parse_guards(["Eq(s0, s1)", "L['x'].size()[0] >= 2"])
    >>> gs.exprs, gs.source_map
    ((Eq(s0, s1), s2 >= 2), {s2: Source(base='x', kind='size', index=0)})
    """
    return GuardSet.parse(text_or_lines, dialect, symbols)


def load_guards(path: "str | os.PathLike[str]", dialect: Dialect = "auto") -> GuardSet:
    """Read a guard file, JSON or text (see :meth:`GuardSet.from_file`)."""
    return GuardSet.from_file(path, dialect)
