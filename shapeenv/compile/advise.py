"""Recompile advice: from a torch log, the smallest change that serves every logged call with one entry.

:func:`advise` reads what a ``TORCH_LOGS=recompiles,dynamic,guards`` text or a ``TORCH_TRACE``
says about a function's compiles (:func:`guards.guardset.read_torch_output`): its cache
entries as guard sets, the recompile reasons, and the call that made each entry (sizes
pinned by ``TENSOR_MATCH``, the ``create_symbol`` hints of dynamic dims, or the "actual"
of a size-mismatch reason). It then:

1. finds the *specialised* sources: the input dims whose values differ between calls, and
   the guards torch's recompile reasons name (a size pinned by a static entry, a branch on
   a size such as ``x.size()[1] % 2 == 0``);
2. builds the guard set of the change: the entry that pins the fewest varying dims, those pins
   dropped (``mark_dynamic``) and ``min <= dim <= max`` of the observed values added
   (``mark_dynamic(x, 1, min=..., max=...)``, or ``Dim("x_1", min=..., max=...)`` for export);
3. if some call still fails a divisibility guard of that entry (a branch on ``S % m``), pads
   that dim (and the dims equal to it in every call) up to a multiple of ``m``;
4. proves, by the guard algebra, that every logged call (padded where proposed) lies in that
   one guard set: the call's sizes as a guard set *imply* it (a Z3 implication check of
   :meth:`guards.GuardSet.implies`, under a resource limit).

Alternatives are listed with their compile counts: ``mark_dynamic`` without padding (one
entry per branch) and static buckets from the planner (:func:`shapeenv.compile.buckets.plan_dim`).

Note [What the proposed guard set is]
    The guard set of the change is derived from an entry torch compiled, not from a new
    trace: torch's own guards for the dims it already made dynamic (automatic dynamic), with
    the observed range added as ``mark_dynamic(min, max)`` would. A dim that every entry
    pinned is made dynamic here by dropping its pin; guards torch would add for it on a
    dynamic trace (a relation to another dim) are predicted only as the equalities seen in
    every call. The proof is about the logged calls against that set; rerunning the model
    with the change (as the torch tests do) is the end-to-end check.

>>> from guards.torchlog.torch_log import read_torch_log
>>> log = read_torch_log('''TREE_GUARD_MANAGER:
... +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[4], stride=[1])
... Recompiling function f in m.py:3
...     triggered by the following guard failure(s):
...     - 0/0: tensor 'x' size mismatch at index 0. expected 4, actual 6
... TREE_GUARD_MANAGER:
... +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[None], stride=[1])
... +- LAMBDA_GUARD: 2 <= L['x'].size()[0]''')
>>> a = advise(log)
>>> a.best.changes[0], a.best.compiles, a.best.proven
('torch._dynamo.mark_dynamic(x, 0, min=4, max=6)', 1, True)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from symint.lazy_sympy import sympy

from guards import GuardSet, Source
from guards.guard import Guard
from guards.solver.prove import Verdict
from guards.source import contiguous_strides_of
from guards.torchlog.torch_check import TorchGuards, pinned_values, tensor_mismatch
from guards.torchlog.torch_log import TorchLog
from guards.text.torch_sources import parse_path
from guards.solver.z3_solver import SolverConfig
from symint import build
from symint import form as F

from shapeenv.compile.buckets import plan_dim
from shapeenv.errors import ShapeEnvError

__all__ = ["AdviceError", "LoggedCall", "DynamicDim", "Proposal", "Advice", "logged_calls", "advise", "read_calls"]


class AdviceError(ShapeEnvError, ValueError):
    """The log cannot be advised on: no entries, or no call whose sizes it records."""


@dataclass(frozen=True, slots=True)
class LoggedCall:
    """The input shapes of one call: ``(input base, shape)`` pairs (``"x"``, ``(3, 6, 16)``), and where it came from."""

    shapes: tuple[tuple[str, tuple[int, ...]], ...]
    origin: str

    def shape_map(self) -> dict[str, tuple[int, ...]]:
        """input base -> shape."""
        return dict(self.shapes)

    def text(self) -> str:
        """``x=3,6,16 mask=3,6``."""
        return " ".join(f"{b}={','.join(map(str, s))}" for b, s in self.shapes)


def _user_root(base: str) -> bool:
    path = parse_path(base)
    return not (path is not None and path.scope == "L" and path.root == "self") and not base.startswith("G[")


def logged_calls(log: TorchLog) -> list[LoggedCall]:
    """The call that made each entry of ``log``, as far as the log records its sizes (see the module docstring).

    Sizes come from ``TENSOR_MATCH`` (static dims), ``create_symbol`` hints of the same compile
    (dynamic dims) and the "actual" of a size-mismatch reason of the recompile that made the
    entry; a dim none of these gives is solved from an equality guard of the entry. An entry
    whose call cannot be recovered is left out.
    """
    hints = {env.compile_id: {s.source_text: s.hint for s in env.symbols if s.hint is not None} for env in log.dynamic}
    for r in log.recompiles:
        # the entry this recompile made: its compile id, or (a log without prefixes) the next guard tree
        made = r.compile_id or next((e.compile_id for e in log.entries if e.first_line > r.line), None)
        for f in r.failures:
            mismatch = tensor_mismatch(f.text)
            if mismatch and made:
                hints.setdefault(made, {}).setdefault(mismatch[0].torch_text(), mismatch[2])
    calls = []
    for e in log.entries:
        known = dict(hints.get(e.compile_id, {}))
        gs = GuardSet.from_torch_entry(e)
        _solve_equalities(gs, known)
        shapes: list[tuple[str, tuple[int, ...]]] = []
        for tm in e.tensors:
            if not _user_root(tm.base):
                continue
            dims = [v if v is not None else known.get(f"{tm.source_text}.size()[{i}]") for i, v in enumerate(tm.size)]
            if any(d is None for d in dims):
                shapes = []
                break
            shapes.append((tm.base, tuple(int(d) for d in dims)))  # type: ignore[arg-type]
        if shapes:
            calls.append(LoggedCall(tuple(shapes), f"the call that compiled entry {e.compile_id}"))
    return calls


def _solve_equalities(gs: GuardSet, known: dict[str, int]) -> None:
    """Fill ``known`` (torch source text -> value) from ``size == expression of known sizes`` guards."""
    smap = gs.source_map
    for _ in range(3):
        for g in gs.guards:
            e = g.expr
            if not isinstance(e, sympy.Eq):
                continue
            for lhs, rhs in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
                src = smap.get(lhs) if isinstance(lhs, sympy.Symbol) else None
                if src is None or src.torch_text() in known or src.kind != "size":
                    continue
                values = {s: known.get(smap[s].torch_text()) for s in rhs.free_symbols if s in smap}
                if rhs.free_symbols and all(v is not None for v in values.values()) and set(values) == rhs.free_symbols:
                    known[src.torch_text()] = int(rhs.xreplace({s: sympy.Integer(v) for s, v in values.items()}))


def read_calls(text: str) -> list[LoggedCall]:
    """Calls recorded by the user: a JSON list of ``{"x": [3, 6, 16], "mask": [3, 6]}``.

    Raises:
        AdviceError: not such a list.

    >>> read_calls('[{"x": [3, 6]}]')[0].text()
    'x=3,6'
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise AdviceError(f"--calls: not JSON ({exc}); expected a list of {{input: shape}} objects") from None
    if not isinstance(data, list) or not all(isinstance(c, dict) for c in data):
        raise AdviceError("--calls: expected a JSON list of {input: shape} objects, e.g. [{\"x\": [3, 6, 16]}]")
    calls = []
    for k, c in enumerate(data):
        shapes = []
        for name, shape in c.items():
            if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
                raise AdviceError(f"--calls: call {k}: the shape of {name!r} is not a list of sizes: {shape!r}")
            shapes.append((str(name), tuple(shape)))
        calls.append(LoggedCall(tuple(shapes), f"recorded call {k}"))
    return calls


class _Spec:
    """A contiguous stand-in tensor: ``shape``, ``stride()``, offset 0."""

    def __init__(self, shape: tuple[int, ...]):
        self.shape = shape
        self._strides = contiguous_strides_of(shape)

    def stride(self) -> tuple[int, ...]:
        return tuple(self._strides)


def bind_call(gs: GuardSet, call: LoggedCall) -> dict[sympy.Symbol, int] | None:
    """The values of ``gs``'s symbols for ``call`` (module state as traced); None if a source cannot be read."""
    shapes = call.shape_map()
    traced = pinned_values(gs)
    out: dict[sympy.Symbol, int] = {}
    for sym, src in gs.sources:
        if src.base in shapes and src.kind != "value":
            try:
                out[sym] = src.read(_Spec(shapes[src.base]))
            except Exception:  # noqa: BLE001 - a rank the entry does not have: the call does not fit
                return None
        elif sym in traced:
            out[sym] = traced[sym]
        else:
            return None
    return out


def _accepts(gs: GuardSet, call: LoggedCall) -> bool:
    values = bind_call(gs, call)
    return values is not None and not gs.failures(values)


@dataclass(frozen=True, slots=True)
class DynamicDim:
    """One dim to make dynamic: ``base``'s dim ``index`` over ``low..high``.

    ``strict``: every value of the range satisfies the proposed guard set (given the other
    dims), so ``torch._dynamo.mark_dynamic(..., min, max)`` is safe; otherwise the entry's
    guards narrow the range (a divisibility, a branch) and a strict mark would raise torch's
    ``ConstraintViolationError``: ``maybe_mark_dynamic`` is proposed, and for export a
    multiple ``multiple*Dim(...)`` when the guards imply one.
    """

    base: str
    index: int
    low: int
    high: int
    strict: bool
    multiple: int = 1
    name: str = ""

    def mark(self) -> str:
        """The torch.compile line."""
        if self.strict:
            return f"torch._dynamo.mark_dynamic({self.base}, {self.index}, min={self.low}, max={self.high})"
        return f"torch._dynamo.maybe_mark_dynamic({self.base}, {self.index})"

    def export_dim(self) -> tuple[str, str]:
        """The torch.export ``Dim``: (its definition, its use in ``dynamic_shapes``); tied dims share the definition."""
        name = self.name or f"{self.base}_{self.index}"
        if self.multiple > 1:
            return f'{name} = Dim("{name}", min={-(-self.low // self.multiple)}, max={self.high // self.multiple})', f"{self.multiple}*{name}"
        if self.strict:
            return f'{name} = Dim("{name}", min={self.low}, max={self.high})', name
        return "", "Dim.AUTO"


@dataclass(frozen=True, slots=True)
class Proposal:
    """One change: what to write, the guard set it gives, how many compiles the logged calls then cost, and the proof.

    Attributes:
        name: ``"mark_dynamic"``, ``"mark_dynamic + padding"`` or ``"static buckets"``.
        changes: the code to write, one line each.
        guards: the guard set of the one entry (None for static buckets: one set per bucket).
        compiles: compiles the calls cost with the change.
        padded: the calls as they reach the model (padded where proposed).
        proofs: per distinct padded call, the Z3 verdict of "this call's sizes imply ``guards``".
        dims: the dims to make dynamic, as values (what ``changes`` says in code).
        pad: (the dim, m) when calls are padded up to a multiple of m (with the dims equal to it).
    """

    name: str
    changes: tuple[str, ...]
    guards: GuardSet | None
    compiles: int
    padded: tuple[LoggedCall, ...] = ()
    proofs: tuple[tuple[str, Verdict], ...] = ()
    note: str = ""
    dims: tuple["DynamicDim", ...] = ()
    pad: tuple[Source, int] | None = None

    @property
    def proven(self) -> bool:
        """Every call proven to hit the one entry."""
        return self.guards is not None and self.compiles == 1 and bool(self.proofs) and all(v is Verdict.YES for _, v in self.proofs)


@dataclass(frozen=True, slots=True)
class Advice:
    """The analysis of one log: calls, entries, causes, and proposals (best first)."""

    calls: tuple[LoggedCall, ...]
    entries: int
    recompiles: int
    causes: tuple[str, ...]
    varying: tuple[tuple[str, tuple[int, ...]], ...]
    proposals: tuple[Proposal, ...] = field(default=())

    @property
    def best(self) -> Proposal:
        """The smallest change that serves every call with one entry (or the one with fewest compiles)."""
        return self.proposals[0]

    def format(self) -> str:
        """The advice as text."""
        lines = [f"{self.entries} compiles ({self.recompiles} recompiles) for {len(self.calls)} calls"]
        if self.causes:
            lines.append("recompiles caused by:")
            lines += [f"  {c}" for c in self.causes]
        if self.varying:
            lines.append("sizes seen: " + ", ".join(f"{s} in {{{', '.join(map(str, vs))}}}" for s, vs in self.varying))
        for k, p in enumerate(self.proposals):
            head = "proposal" if k == 0 else "alternative"
            lines.append(f"{head}: {p.name} ({p.compiles} compile{'s' if p.compiles != 1 else ''} instead of {self.entries})")
            lines += [f"  {c}" for c in p.changes]
            if p.note:
                lines.append(f"  ({p.note})")
            if k == 0 and p.guards is not None:
                lines.append("  guard set it would produce:")
                lines += [f"    {g}" for g in p.guards.to_text("torch").splitlines()]
            if p.proofs:
                yes = sum(v is Verdict.YES for _, v in p.proofs)
                lines.append(f"  proof: {yes} of {len(p.proofs)} distinct calls{' (padded)' if p.name.endswith('padding') else ''} "
                             f"imply this guard set (Z3 implication checks){'' if yes == len(p.proofs) else ': NOT all'}")  # fmt: skip
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The advice as a JSON-ready dict."""
        return {
            "calls": [c.text() for c in self.calls],
            "entries": self.entries,
            "recompiles": self.recompiles,
            "causes": list(self.causes),
            "varying": {s: list(vs) for s, vs in self.varying},
            "proposals": [{"name": p.name, "changes": list(p.changes), "compiles": p.compiles, "proven": p.proven,
                           "guards": p.guards.to_text("torch").splitlines() if p.guards is not None else None,
                           "padded_calls": [c.text() for c in p.padded],
                           "proofs": {c: v.value for c, v in p.proofs}, "note": p.note} for p in self.proposals],  # fmt: skip
        }


def _varying(calls: Sequence[LoggedCall]) -> dict[tuple[str, int], list[int]]:
    """(input, dim) -> sorted distinct values, for the dims whose value differs between calls."""
    seen: dict[tuple[str, int], set[int]] = {}
    for c in calls:
        for base, shape in c.shapes:
            for i, d in enumerate(shape):
                seen.setdefault((base, i), set()).add(d)
    return {k: sorted(v) for k, v in seen.items() if len(v) > 1}


def _causes(log: TorchLog) -> list[str]:
    out: list[str] = []
    for r in log.recompiles:
        for f in r.failures:
            mismatch = tensor_mismatch(f.text)
            text = (f"{mismatch[0].torch_text()} specialised to {mismatch[1]} in entry {f.compile_id} (a call had {mismatch[2]})"
                    if mismatch else f"{f.text} in entry {f.compile_id} (a guard on the sizes, e.g. a branch)")  # fmt: skip
            if text.split(" (")[0] not in {o.split(" (")[0] for o in out}:
                out.append(text)
    return out


def _generalise(gs: GuardSet, varying: Mapping[tuple[str, int], Sequence[int]], calls: Sequence[LoggedCall]) -> GuardSet:
    """``gs`` with the pins of varying dims (and of the strides that vary with them) dropped and their ranges added."""
    vary_src = {Source.size(b, i) for b, i in varying}
    values: dict[Source, set[int]] = {}
    for c in calls:
        for base, shape in c.shapes:
            for i, s in enumerate(contiguous_strides_of(shape)):
                values.setdefault(Source.stride(base, i), set()).add(int(s))
    vary_src |= {s for s, vs in values.items() if len(vs) > 1}
    smap = gs.source_map
    dropped = set()
    kept: list[Guard] = []
    for g in gs.guards:
        e = g.expr
        if isinstance(e, sympy.Eq) and e.lhs in smap and smap[e.lhs] in vary_src and isinstance(e.rhs, sympy.Integer):
            dropped.add(smap[e.lhs])
            continue
        kept.append(g)
    sym_of = {src: sym for sym, src in gs.sources}
    sources = dict(smap)
    for (base, i), vs in sorted(varying.items()):
        src = Source.size(base, i)
        sym = sym_of.get(src)
        if sym is None:  # a dynamic dim no guard of the entry reads: a symbol of its own for its range
            k = len(sources)
            while build.symbol_expr(f"v{k}") in sources:
                k += 1
            sym = sym_of[src] = build.symbol_expr(f"v{k}")
            sources[sym] = src
        kept.append(Guard.of(F.rel("<=", F.const(vs[0]), F.sym(sym.name)), f"mark_dynamic min of {src.torch_text()}"))
        kept.append(Guard.of(F.rel("<=", F.sym(sym.name), F.const(vs[-1])), f"mark_dynamic max of {src.torch_text()}"))
    # dims made dynamic here (every entry pinned them): the equalities seen in every call, as a dynamic trace would tie them
    made = sorted((s for s in dropped if s.kind == "size"), key=lambda s: s.text())
    for a_i, a in enumerate(made):
        for b in made[a_i + 1:]:
            if all(c.shape_map()[a.base][a.index] == c.shape_map()[b.base][b.index] for c in calls  # type: ignore[index]
                   if a.base in c.shape_map() and b.base in c.shape_map()):  # fmt: skip
                kept.append(Guard.of(F.rel("==", F.sym(sym_of[a].name), F.sym(sym_of[b].name)), "equal in every call"))
    return GuardSet.of(kept, sources)


def _proofs(gs: GuardSet, calls: Sequence[LoggedCall], config: SolverConfig) -> tuple[tuple[str, Verdict], ...]:
    """Per distinct call: does the call's point (its sizes, strides and the traced module state) imply ``gs``?"""
    out: dict[str, Verdict] = {}
    for c in calls:
        if c.text() in out:
            continue
        values = bind_call(gs, c)
        if values is None:
            out[c.text()] = Verdict.NO
            continue
        point = GuardSet.of([Guard.of(F.rel("==", F.sym(s.name), F.const(v))) for s, v in values.items()], gs.source_map)
        out[c.text()] = point.implies(gs, config).verdict
    return tuple(out.items())


def _divisor(gs: GuardSet, values: Mapping[sympy.Symbol, int]) -> tuple[sympy.Symbol, int] | None:
    """The (symbol, m) of a failing ``Mod(s, m) == 0`` guard, if that is what rejects ``values``."""
    failing = gs.failures(values)
    if not failing:
        return None
    for g in failing:
        e = g.expr
        if isinstance(e, sympy.Eq) and e.rhs == 0 and getattr(e.lhs, "func", None) is not None and e.lhs.func.__name__ in ("Mod", "PythonMod"):
            arg, m = e.lhs.args
            if isinstance(arg, sympy.Symbol) and isinstance(m, sympy.Integer):
                return arg, int(m)
    return None


def _pad(calls: Sequence[LoggedCall], src: Source, m: int) -> tuple[LoggedCall, ...]:
    """Each call with ``src`` and every dim equal to it in that call rounded up to a multiple of ``m``."""
    tied = {(b, i) for c in calls for b, shape in c.shapes for i, d in enumerate(shape)
            if all(dict(c2.shapes).get(b, ())[i:i + 1] == dict(c2.shapes)[src.base][src.index:src.index + 1] for c2 in calls)}  # type: ignore[index] # fmt: skip
    out = []
    for c in calls:
        shapes = []
        for b, shape in c.shapes:
            shapes.append((b, tuple(-(-d // m) * m if (b, i) in tied else d for i, d in enumerate(shape))))
        out.append(LoggedCall(tuple(shapes), c.origin + " (padded)"))
    return tuple(out)


def _dynamic_dims(gs: GuardSet, varying: Mapping[tuple[str, int], Sequence[int]], config: SolverConfig) -> tuple[DynamicDim, ...]:
    """The varying dims as :class:`DynamicDim`: strict if its range (with the other guards) implies ``gs``; its multiple; its tie."""
    sym_of = {src: sym for sym, src in gs.sources}
    smap = gs.source_map
    vsyms = {sym_of[Source.size(b, i)] for b, i in varying if Source.size(b, i) in sym_of}
    ties = {}  # symbol -> the (base, index) that names its Dim: dims tied by an equality share one Dim
    for g in gs.guards:
        e = g.expr
        if isinstance(e, sympy.Eq) and {e.lhs, e.rhs} <= vsyms:
            a, b = sorted((e.lhs, e.rhs), key=lambda x: smap[x].text())
            ties.setdefault(b, ties.get(a, a))
    dims = []
    for (b, i), vs in sorted(varying.items()):
        sym = sym_of.get(Source.size(b, i))
        if sym is None:
            continue
        # a strict mark keeps every guard but those that constrain this dim beyond its range and its ties
        rest = [g for g in gs.guards if sym not in g.expr.free_symbols or _is_range_or_tie(g.expr, vsyms)]
        strict = GuardSet.of(rest, smap).implies(gs, config).verdict is Verdict.YES
        multiple = 1
        if not strict:
            m = 0
            for v in vs:
                m = math.gcd(m, v)
            if m > 1 and gs.implies(GuardSet.of([Guard.of(F.rel("==", F.mod(F.sym(sym.name), F.const(m)), F.const(0)))], smap), config).verdict is Verdict.YES:
                multiple = m
        root = smap[ties.get(sym, sym)]
        dims.append(DynamicDim(b, i, vs[0], vs[-1], strict, multiple, f"{root.base}_{root.index}"))
    # tied dims are one symbol to torch: strict only if all are, and one multiple
    groups: dict[str, list[DynamicDim]] = {}
    for d in dims:
        groups.setdefault(d.name, []).append(d)
    return tuple(replace(d, strict=all(x.strict for x in groups[d.name]), multiple=max(x.multiple for x in groups[d.name]))
                 for d in dims)  # fmt: skip


def _is_range_or_tie(expr: sympy.Basic, vsyms: set) -> bool:
    """``lo <= s``, ``s <= hi`` (a bound) or ``s == t`` (a tie) over varying symbols only."""
    if isinstance(expr, sympy.Eq):
        return isinstance(expr.lhs, sympy.Symbol) and isinstance(expr.rhs, sympy.Symbol)
    if isinstance(expr, (sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt)):
        sides = (expr.lhs, expr.rhs)
        return any(isinstance(x, sympy.Symbol) for x in sides) and any(isinstance(x, sympy.Integer) for x in sides)
    return False


def _change_lines(dims: Sequence[DynamicDim]) -> tuple[str, ...]:
    """The torch.compile lines, then the same ranges as torch.export ``dynamic_shapes`` (one dict per input)."""
    lines = [d.mark() for d in dims]
    if any(not d.strict for d in dims):
        lines.append("(maybe_mark_dynamic: the entry's guards narrow the range, so a strict mark_dynamic would raise "
                     "ConstraintViolationError)")  # fmt: skip
    per_input: dict[str, list[str]] = {}
    defs: dict[str, None] = {}
    for d in dims:
        define, use = d.export_dim()
        if define:
            defs[define] = None
        per_input.setdefault(d.base, []).append(f"{d.index}: {use}")
    shapes = ", ".join(f'"{b}": {{{", ".join(ds)}}}' for b, ds in per_input.items())
    return (*lines, f"or, for torch.export: {'; '.join([*defs, ''])}dynamic_shapes={{{shapes}}}")


def advise(log: TorchLog, calls: Sequence[LoggedCall] | None = None, config: SolverConfig = SolverConfig()) -> Advice:
    """Advise on the recompiles of ``log`` (see the module docstring).

    Args:
        log: a TORCH_LOGS (``recompiles,dynamic,guards``) or TORCH_TRACE log, read.
        calls: the calls to serve (default: the call behind each entry, :func:`logged_calls`).
        config: the solver's limits for the proofs.

    Raises:
        AdviceError: the log has no guard tree, or no call whose sizes it records.
    """
    if not log.entries:
        raise AdviceError("the log has no guard trees: run with TORCH_LOGS=recompiles,dynamic,guards (or TORCH_TRACE=dir)")
    calls = list(calls) if calls is not None else logged_calls(log)
    if not calls:
        raise AdviceError("the log records no call's sizes (no TENSOR_MATCH of an input); pass --calls with the shapes")
    entries = [TorchGuards.of(e) for e in log.entries]
    varying = _varying(calls)
    causes = tuple(_causes(log))
    vary_text = tuple((Source.size(b, i).torch_text(), tuple(vs)) for (b, i), vs in sorted(varying.items()))
    base = Advice(tuple(calls), len(entries), len(log.recompiles), causes, vary_text)
    if not varying:
        gs = entries[-1].guards
        return Advice(*_fields(base), (Proposal("no change", (), gs, 1, tuple(calls), _proofs(gs, calls, config),
                                                "every call has the same sizes"),))  # fmt: skip

    def pins(e: TorchGuards) -> int:
        smap = e.guards.source_map
        return sum(1 for g in e.guards.guards if isinstance(g.expr, sympy.Eq) and smap.get(g.expr.lhs) in {Source.size(b, i) for b, i in varying})

    ranked = sorted(range(len(entries)), key=lambda k: (pins(entries[k]), -sum(_accepts(entries[k].guards, c) for c in calls), -k))
    proposals: list[Proposal] = []
    for k in ranked:
        gs = _generalise(entries[k].guards, varying, calls)
        rejected = [c for c in calls if not _accepts(gs, c)]
        if not rejected:
            dims = _dynamic_dims(gs, varying, config)
            proposals.append(Proposal("mark_dynamic", _change_lines(dims), gs, 1, tuple(calls), _proofs(gs, calls, config),
                                      f"from entry {entries[k].compile_id}", dims))  # fmt: skip
            break
        div = next((d for c in rejected if (v := bind_call(gs, c)) is not None and (d := _divisor(gs, v))), None)
        if div is None:
            continue
        sym, m = div
        src = gs.source_map[sym]
        padded = _pad(calls, src, m)
        p_vary = _varying(padded)
        gs2 = _generalise(entries[k].guards, p_vary, padded)
        if all(_accepts(gs2, c) for c in padded):
            dims = _dynamic_dims(gs2, p_vary, config)
            pad_line = (f"pad {src.torch_text()} (and the dims equal to it) up to a multiple of {m} before the call: "
                        f"the entry guards {src.torch_text()} % {m} == 0",)  # fmt: skip
            proposals.append(Proposal("mark_dynamic + padding", pad_line + _change_lines(dims), gs2, 1, padded,
                                      _proofs(gs2, padded, config), f"from entry {entries[k].compile_id}", dims, (src, m)))  # fmt: skip
            groups = len({c.shape_map()[src.base][src.index] % m for c in calls if src.base in c.shape_map()})  # type: ignore[index]
            proposals.append(Proposal("mark_dynamic only", tuple(d.mark() for d in dims), None, max(groups, 2), tuple(calls),
                                      note=f"the branch on {src.torch_text()} % {m} still compiles one entry per branch"))  # fmt: skip
            break
    if len(varying) == 1:
        (b, i), vs = next(iter(varying.items()))
        src = Source.size(b, i)
        sizes = [c.shape_map()[b][i] for c in calls]
        plan = plan_dim(src, sizes, recompile_cost=10.0, waste_cost=1.0)
        proposals.append(Proposal("static buckets", (f"pad {src.torch_text()} to one of {', '.join(map(str, plan.tops))} "
                                  "(shapeenv plan-buckets)",), None, plan.recompiles,
                                  note=f"{plan.waste} padded rows over the calls"))  # fmt: skip
    if not proposals:
        marks = tuple(DynamicDim(b, i, vs[0], vs[-1], False).mark() for (b, i), vs in sorted(varying.items()))
        proposals.append(Proposal("mark_dynamic", marks, None, len(entries), tuple(calls),
                                  note="the entries' other guards split the calls; no single guard set serves them"))  # fmt: skip
    proposals.sort(key=lambda p: (not p.proven, p.compiles))
    return Advice(*_fields(base), tuple(proposals))


def _fields(a: Advice) -> tuple:
    return (a.calls, a.entries, a.recompiles, a.causes, a.varying)


