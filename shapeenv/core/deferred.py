"""``ProducedGuards``: a produced guard set now, and its Z3-simplified form once proven, off the critical path.

Note [Deferred simplification]
    Z3 simplification of a produced set (dropping what the others imply) takes seconds
    on a large trace (W1: ~1.4 s of a 2 s pipeline), while the cheap exact reduction
    (equalities folded, one range per symbol, implied bounds and divisibility folded,
    guards that the facts decide dropped, small finite ranges enumerated;
    :mod:`guards.simplify.reduce_forms`) takes milliseconds and is equivalent to the raw
    set by construction. So ``produce_guards``,
    ``export`` and ``compile`` install the reduced set at once, and the Z3 simplification
    runs after: in a worker thread started right away (``ShapeEnvSettings.simplify_in_background``),
    or in the first caller of :meth:`ProducedGuards.wait`. The simplified set replaces the
    reduced one only when :func:`guards.simplify.passes.simplify_with_report` proved it
    equivalent: its report's ``proof`` is ``YES`` (every group proven), or ``UNKNOWN``
    when some groups of interacting symbols could not be proven within the budget and
    were returned exactly as they were in the reduced set (so what changed is proven);
    ``NO`` (a bug: the proof found a difference) keeps the reduced set, and so does an
    error. The replacement is one reference assignment under a lock, and listeners
    (a compiled function's cache entries) are told once, after it.

    Both sets are deterministic (the simplification's Z3 work is bounded by counts, see
    Note [Deterministic limits] in ``guards.solver.z3_solver``); which of the two a caller
    sees depends on timing, so :attr:`ProducedGuards.current` says which it is, and
    :meth:`ProducedGuards.wait` gives the final one.

    Threads: the worker uses Z3 contexts of its own (each simplification creates one),
    so it never shares one with the tracing thread. It is not a daemon: the interpreter
    waits for it at exit, which is bounded by the deterministic budget.

>>> from symint.build import symbol_expr, ge, gt
>>> from guards import GuardSet
>>> n = symbol_expr("n")
>>> p = ProducedGuards(GuardSet.of([ge(n, 2), gt(n, 3)]), background=False)
>>> p.current, p.is_simplified
(GuardSet(n >= 2, n > 3), False)
>>> p.wait(), p.is_simplified, p.proof.value
(GuardSet(n >= 4), True, 'yes')
"""

from __future__ import annotations

import threading
from typing import Callable

from guards import GuardSet, SolverConfig, Verdict
from guards.simplify.passes import SimplifyReport, simplify_with_report

__all__ = ["ProducedGuards"]

#: What runs the Z3 simplification (injectable, e.g. to hold it back in a test).
Simplifier = Callable[[GuardSet, SolverConfig], "tuple[GuardSet, SimplifyReport]"]


class ProducedGuards:
    """A reduced guard set available at once, and its Z3-simplified replacement when proven.

    Args:
        reduced: the exact reduced set (installed at once).
        config: the solver limits of the simplification (default :class:`SolverConfig`).
        background: start the simplification in a worker thread now (else the first
            :meth:`wait` runs it in the caller's thread).
        raw: the unreduced set, for reports.
        simplifier: what simplifies (default :func:`guards.simplify.passes.simplify_with_report`).

    Attributes:
        reduced: the set installed at once.
        raw: the unreduced set (or None).
    """

    def __init__(
        self,
        reduced: GuardSet,
        config: SolverConfig | None = None,
        *,
        background: bool = True,
        raw: GuardSet | None = None,
        simplifier: Simplifier | None = None,
    ):
        self.reduced = reduced
        self.raw = raw
        self._config = config or SolverConfig()
        self._simplifier = simplifier or simplify_with_report
        self._current = reduced
        self._simplified = False
        self._report: SimplifyReport | None = None
        self._error: BaseException | None = None
        self._listeners: list[Callable[[GuardSet], None]] = []
        self._lock = threading.Lock()
        self._done = threading.Event()  # set once the set is final and every listener has run
        self._finished = False  # set (under the lock) when the set is final, before the listeners run
        self._claimed = False  # someone (the worker or a waiter) runs the simplification
        if not len(reduced):  # nothing to simplify
            self._finish(reduced, None, None)
        elif background:
            self._claimed = True
            threading.Thread(target=self._run, name="shapeenv-simplify", daemon=False).start()

    # -- what a caller gets ------------------------------------------------------------------------
    @property
    def current(self) -> GuardSet:
        """The best set proven so far: the simplified one once installed, else the reduced one."""
        return self._current

    @property
    def is_simplified(self) -> bool:
        """Whether the Z3-simplified set is installed (``current`` is final)."""
        return self._simplified

    @property
    def done(self) -> bool:
        """Whether the simplification finished (installed, or kept the reduced set)."""
        return self._done.is_set()

    @property
    def report(self) -> SimplifyReport | None:
        """The simplification's report (what it dropped, its proof, what it spent), once done."""
        return self._report

    @property
    def proof(self) -> Verdict | None:
        """The equivalence proof of the simplified set against the reduced one (``YES``, ...), once done."""
        return None if self._report is None else self._report.proof

    @property
    def error(self) -> BaseException | None:
        """An exception the simplification raised (the reduced set stays installed), if any."""
        return self._error

    def wait(self, timeout: float | None = None) -> GuardSet:
        """The final set: blocks until the simplification is done (runs it here if nobody has started it).

        With ``timeout`` (seconds), returns :attr:`current` after at most that long.
        """
        with self._lock:
            run_here = not self._claimed and not self._done.is_set()
            self._claimed = True
        if run_here:
            self._run()
        self._done.wait(timeout)
        return self._current

    def on_simplified(self, listener: Callable[[GuardSet], None]) -> None:
        """Call ``listener(simplified)`` once the simplified set is installed (now, if it already is).

        It runs in the thread that installs the set; it is never called if the reduced set is kept.
        """
        with self._lock:
            if not self._finished:
                self._listeners.append(listener)
                return
            installed = self._simplified and self._current is not self.reduced
        if installed:
            listener(self._current)

    # -- the work ----------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            out, report = self._simplifier(self.reduced, self._config)
        except Exception as exc:  # keep the reduced set (correct) and say why
            self._finish(self.reduced, None, exc)
            return
        self._finish(out, report, None)

    def _finish(self, out: GuardSet, report: SimplifyReport | None, error: BaseException | None) -> None:
        proven = error is None and (report is None or report.proof is not Verdict.NO)
        with self._lock:
            self._report, self._error = report, error
            if proven:
                self._current = out  # one reference assignment: readers see the old or the new set
                self._simplified = True
            listeners, self._listeners = self._listeners, []
            self._finished = True  # later on_simplified calls run their listener at once
        try:
            if proven and out is not self.reduced:
                for listener in listeners:  # outside the lock: a listener may read this object
                    listener(out)
        finally:
            self._done.set()  # after the listeners: a waiter sees every swap they make (e.g. a cache entry's guards)

    def __repr__(self) -> str:
        state = "simplified" if self._simplified else "done (reduced kept)" if self.done else "simplifying"
        return f"<ProducedGuards {state}: {len(self._current)} guards (reduced: {len(self.reduced)})>"
