"""``shapeenv guards diff``: compare two guard sets by meaning, over the caller's inputs.

The two sides often come from different tools: our guard text, a ``TORCH_LOGS`` entry, a
``TORCH_TRACE`` entry, a printed ``torch.export`` program. Names are unified before
comparing: every reader names a parameter or buffer by the module's source
(``p_fc_weight`` is ``L['self']._modules['fc']._parameters['weight']``, see
:mod:`guards.torchlog.export_text`) and solves a derived dim's root from the inputs. Module state
is then *taken as traced*: a ``L['self']...`` size, stride or int that either side pins to
a constant is that constant on both sides (a caller cannot pass another module), so the
verdicts and the counterexample speak of user inputs only. Two sides that pin the same
module source to different constants are reported: they were traced from different modules.

:func:`compare` says whether the sets are equivalent, which is more general, and notes a
side that accepts no input at all (then its "implies" is vacuous).

>>> from guards import GuardSet
>>> a = GuardSet.parse("2 <= L['x'].size()[0]\\nL['self']._modules['fc']._parameters['weight'].size()[0] == 4")
>>> b = GuardSet.parse("2 <= L['x'].size()[0] <= 64")
>>> print("\\n".join(compare(a, b).lines()))
module state taken as traced: 1 size/stride/int of L['self'] pinned by a side
equivalent: no
A implies B: no
B implies A: yes
A is more general: it accepts every input B accepts, and more
counterexample (accepted by A, rejected by B): x.size()[0] = 65
  B: 2 <= x.size()[0] <= 64 failed: got 65
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from symint.lazy_sympy import sympy

from guards.text.escape import one_line
from guards.runtime.explain import explain
from guards.guard import Guard
from guards.guardset import GuardSet
from guards.solver.prove import ProofResult, Verdict
from guards.source import Source
from guards.text.torch_sources import parse_path
from guards.solver.z3_solver import SolverConfig

__all__ = ["Comparison", "compare", "module_pins", "fix_module_state"]


def _is_module_state(src: Source) -> bool:
    path = parse_path(src.base)
    return path is not None and path.scope == "L" and path.root == "self"


def module_pins(gs: GuardSet) -> dict[Source, int]:
    """The module sources (``L['self']...``) that ``gs`` pins to one constant: source -> constant.

    >>> module_pins(GuardSet.parse("L['self'].heads == 2\\nL['x'].size()[0] == 3"))
    {Source(base='self.heads', kind='value', index=None): 2}
    """
    pins: dict[Source, int] = {}
    clash: set[Source] = set()
    smap = gs.source_map
    for g in gs.guards:
        e = g.expr
        if isinstance(e, sympy.Eq):
            sym, value = (e.lhs, e.rhs) if isinstance(e.lhs, sympy.Symbol) else (e.rhs, e.lhs)
            src = smap.get(sym) if isinstance(sym, sympy.Symbol) else None
            if src is not None and isinstance(value, sympy.Integer) and _is_module_state(src):
                if pins.setdefault(src, int(value)) != int(value):
                    clash.add(src)
    return {s: v for s, v in pins.items() if s not in clash}


def fix_module_state(gs: GuardSet, pins: dict[Source, int]) -> GuardSet:
    """``gs`` with each pinned module source replaced by its constant (and dropped from its sources)."""
    subs = {sym: sympy.Integer(pins[src]) for sym, src in gs.sources if src in pins}
    if not subs:
        return gs
    guards = [Guard.of(g.expr.xreplace(subs), g.origin) for g in gs.guards]
    sources = {sym: src for sym, src in gs.sources if sym not in subs}
    domain = {sym: rng for sym, rng in gs.domain if sym not in subs}
    return GuardSet.of(guards, sources, domain)


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome of comparing A and B (see :func:`compare`)."""

    a_implies_b: ProofResult
    b_implies_a: ProofResult
    a_satisfiable: ProofResult
    b_satisfiable: ProofResult
    fixed: tuple[Source, ...] = ()
    conflicts: tuple[tuple[Source, int, int], ...] = ()
    counterexample: dict[str, Any] | None = field(default=None)

    @property
    def equivalent(self) -> Verdict:
        """YES if each implies the other, NO if one does not, UNKNOWN if the solver could not tell."""
        verdicts = {self.a_implies_b.verdict, self.b_implies_a.verdict}
        return Verdict.NO if Verdict.NO in verdicts else Verdict.UNKNOWN if Verdict.UNKNOWN in verdicts else Verdict.YES

    def generality(self) -> str | None:
        """Which side is more general, in words (None when equivalent or undecided)."""
        ab, ba = self.a_implies_b.verdict, self.b_implies_a.verdict
        if ab is Verdict.YES and ba is Verdict.NO:
            return "B is more general: it accepts every input A accepts, and more"
        if ba is Verdict.YES and ab is Verdict.NO:
            return "A is more general: it accepts every input B accepts, and more"
        if ab is Verdict.NO and ba is Verdict.NO:
            return "neither is more general: each accepts inputs the other rejects"
        return None

    def lines(self) -> list[str]:
        """The report, one fact per line."""
        out = []
        if self.fixed:
            out.append(f"module state taken as traced: {len(self.fixed)} size/stride/int of L['self'] pinned by a side")
        for src, va, vb in self.conflicts:
            out.append(f"module state differs: {src.torch_text()} is {va} in A and {vb} in B (traced from different modules?)")
        out += [f"equivalent: {self.equivalent.value}", f"A implies B: {self.a_implies_b.verdict.value}",
                f"B implies A: {self.b_implies_a.verdict.value}"]  # fmt: skip
        general = self.generality()
        if general:
            out.append(general)
        for name, sat, other in (("A", self.a_satisfiable, "B"), ("B", self.b_satisfiable, "A")):
            if sat.verdict is Verdict.NO:
                out.append(f"note: {name} is unsatisfiable (it accepts no input), so '{name} implies {other}: yes' says nothing")
        if self.counterexample is not None:
            c = self.counterexample
            shown = ", ".join(f"{one_line(k)} = {v}" for k, v in sorted(c["inputs"].items()))
            out.append(f"counterexample (accepted by {c['accepted_by']}, rejected by {c['rejected_by']}): {shown}")
            out += [f"  {c['rejected_by']}: {one_line(m)}" for m in c["rejected_because"]]
        for result, name in ((self.a_implies_b, "A implies B"), (self.b_implies_a, "B implies A")):
            if result.verdict is Verdict.UNKNOWN:
                more = "--budget-rlimit" if result.budget_exhausted else "--rlimit"
                out.append(f"{name}: solver gave up ({one_line(result.reason or 'unknown')}); raise {more}")
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON fields of the ``diff`` report."""
        return {
            "equivalent": self.equivalent.value,
            "a_implies_b": self.a_implies_b.verdict.value,
            "b_implies_a": self.b_implies_a.verdict.value,
            "more_general": self.generality(),
            "a_satisfiable": self.a_satisfiable.verdict.value,
            "b_satisfiable": self.b_satisfiable.verdict.value,
            "module_state_fixed": [s.torch_text() for s in self.fixed],
            "module_state_conflicts": [{"source": s.torch_text(), "a": va, "b": vb} for s, va, vb in self.conflicts],
            "budget_exhausted": self.a_implies_b.budget_exhausted or self.b_implies_a.budget_exhausted,
            "rlimit": self.a_implies_b.rlimit + self.b_implies_a.rlimit,
            "counterexample": self.counterexample,
        }


def compare(a: GuardSet, b: GuardSet, config: SolverConfig = SolverConfig(), progress: Any = None) -> Comparison:
    """Compare two guard sets over user inputs, module state taken as traced (see the module docstring)."""
    pins_a, pins_b = module_pins(a), module_pins(b)
    conflicts = tuple((s, pins_a[s], pins_b[s]) for s in pins_a if s in pins_b and pins_a[s] != pins_b[s])
    clash = {s for s, _, _ in conflicts}
    pins = {s: v for s, v in {**pins_b, **pins_a}.items() if s not in clash}
    fa, fb = fix_module_state(a, pins), fix_module_state(b, pins)
    steps = []
    for run, note in ((lambda: fa.is_satisfiable(config), "A satisfiable"), (lambda: fb.is_satisfiable(config), "B satisfiable"),
                      (lambda: fa.implies(fb, config), "A implies B"), (lambda: fb.implies(fa, config), "B implies A")):  # fmt: skip
        steps.append(run())
        if progress is not None:
            progress.step(note=note)
    sat_a, sat_b, a_b, b_a = steps
    counter = None
    for result, rejects, name_in, name_out in ((a_b, fb, "A", "B"), (b_a, fa, "B", "A")):
        if result.verdict is Verdict.NO and counter is None:
            why = explain(rejects, result.other_values or {}, first_only=True)
            state = {src.text() for gs in (fa, fb) for _, src in gs.sources if _is_module_state(src)}
            inputs = {k: v for k, v in (result.witness or {}).items() if k not in state}  # user inputs only: the module is as traced
            counter = {"accepted_by": name_in, "rejected_by": name_out, "inputs": inputs,
                       "rejected_because": [f.message() for f in why]}  # fmt: skip
    fixed = tuple(sorted(pins, key=lambda s: s.text()))
    return Comparison(a_b, b_a, sat_a, sat_b, fixed, conflicts, counter)
