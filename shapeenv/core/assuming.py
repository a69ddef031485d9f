"""Path-sensitive facts: ``with env.assuming(cond):`` takes ``cond`` as known inside the block only.

Inside a ``switch`` branch, the index that selected it is known (``index == 1`` in
branch 1 of three; ``index <= 0`` in branch 0, as out-of-range indices clamp), so shape
code in the branch that asks about the index is decided without a guard (pytorch
issue 138141: torch guards on it again).

Note [Scoped facts]
    Entering takes a snapshot of the environment's :class:`~valueranges.facts.Facts`
    (:meth:`~valueranges.facts.Facts.snapshot`) and learns ``cond``; leaving
    restores the snapshot, so nothing learned inside survives except:

    * guards and runtime asserts recorded inside, which are kept as implications
      ``Or(Not(cond), e)``: they must hold for the trace to be reused (or the program
      to be right) only on the inputs that take this path. Inside the block ``e``
      itself is learned (the path is taken there); after it, the implication is.
    * the initial ranges of symbols created inside (unbacked sizes of the branch).

    On a path whose condition is statically false (no input that reuses the trace takes
    it), guards and asserts recorded inside are dropped: the implication is True.

    Facts learned inside are not passed to the fact listeners (the Z3 prover): the
    prover knows only what holds everywhere, so it stays sound inside (it just knows
    less) and needs no retraction. The fact version only grows (answers memoised by
    version stay valid). A guard whose answer came from the hints and contradicts the
    scoped facts (a path the traced example does not take) is recorded, but not learned.

>>> from guards import Source
>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); s = env.create_symint(5, Source.size("x", 0))
>>> with env.assuming(s > 10):
...     print(env.statically_known_true(s >= 11), bool(s * 2 > 20), len(env.guards))
True True 0
>>> env.statically_known_true(s >= 11)
False
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator

from symint.form import logic as B
from symint.form.logic import BoolForm
from valueranges.errors import ContradictoryFactsError

from shapeenv.core.provenance import bool_form_of

if TYPE_CHECKING:  # pragma: no cover
    from .state import AssumingState
    from valueranges.facts import Facts

__all__ = ["Assumptions", "assuming"]

_LISTENERS = "_listeners"  # Facts' fact listeners (the Z3 prover) are paused inside a block


class Assumptions:
    """The stack of conditions assumed by the enclosing ``assuming`` blocks of one environment."""

    def __init__(self) -> None:
        self.stack: list[BoolForm] = []
        self.pending: list[list[BoolForm]] = []  # per level: implications to learn on leaving

    def __bool__(self) -> bool:
        return bool(self.stack)

    def scoped(self, expr: BoolForm) -> BoolForm:
        """``expr`` as it must hold everywhere: ``Or(Not(cond), expr)`` inside a block, else ``expr``.

        TRUE on a path known not to be taken (a statically false condition).
        """
        if not self.stack:
            return expr
        if B.FALSE in self.stack:
            return B.TRUE
        implication = B.or_(*(B.not_(c) for c in self.stack), expr)
        self.pending[-1].append(implication)
        return implication

    def learn(self, facts: "Facts", expr: BoolForm) -> None:
        """Learn ``expr`` (holding on this path); inside a block a contradiction only means the path is not the hints'."""
        if not self.stack:
            facts.learn_form(expr)
            return
        if B.FALSE in self.stack:
            return
        try:
            facts.learn_form(expr)
        except ContradictoryFactsError:
            pass


def _condition_form(cond) -> BoolForm:
    """``cond`` as a boolean form: a SymBool's form, a bool's constant, a form as it is, a sympy boolean converted once."""
    if isinstance(cond, BoolForm):
        return cond
    if hasattr(cond, "node"):
        return cond.node.form
    if isinstance(cond, bool):
        return B.bool_const(cond)
    return bool_form_of(cond)


@contextlib.contextmanager
def assuming(env: "AssumingState", cond) -> Iterator[bool | None]:
    """Take ``cond`` (a SymBool, a bool, a boolean form or a sympy boolean) as known inside the block
    (Note [Scoped facts]).

    Yields True if ``cond`` was already known, False if it is known false (the path is
    infeasible: guards and asserts recorded inside are dropped), None when it was assumed.
    """
    expr = env.facts.simplify_bool(_condition_form(cond))
    static = env.decider.static(expr)
    if static is True:
        yield True
        return
    if static is False:  # a path no input reusing this trace takes: what is decided there needs no guard
        expr = B.FALSE
    facts = env.facts
    state = facts.snapshot()
    known_symbols = set(env.symbols.by_name)
    listeners = getattr(facts, _LISTENERS, None)
    if listeners is not None:
        setattr(facts, _LISTENERS, [])
    assumptions: Assumptions = env.assumptions
    assumptions.stack.append(expr)
    assumptions.pending.append([])
    try:
        if static is None:
            try:
                facts.learn_form(expr)
            except ContradictoryFactsError:  # the path cannot be taken given what is known: assume nothing
                pass
        yield static
    finally:
        assumptions.stack.pop()
        pending = assumptions.pending.pop()
        if assumptions.pending:  # nested: the enclosing block's snapshot must not drop them either
            assumptions.pending[-1].extend(pending)
        bounds = facts.bounds()
        new_ranges = {n: facts.range_of(n) for n in env.symbols.by_name if n not in known_symbols and n in bounds}
        facts.restore(state)
        if listeners is not None:
            setattr(facts, _LISTENERS, listeners)
        for s, rng in new_ranges.items():
            facts.set_range(s, rng)
        for implication in pending:
            assumptions.learn(facts, implication)
