"""guards.progress: silent unless on a terminal or forced, scheduled by count, never changing results."""

from __future__ import annotations

import io

from symint.build import eq, ge, gt, le, mod, symbol_expr

from guards import GuardSet
from guards.progress import Progress, progress, track


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_silent_when_the_stream_is_not_a_terminal() -> None:
    out = io.StringIO()
    with Progress(1000, "work", stream=out) as bar:
        for _ in range(1000):
            bar.step()
    assert out.getvalue() == "" and bar.done == 1000


def test_forced_on_a_pipe_gives_a_line_every_tenth() -> None:
    out = io.StringIO()
    with Progress(50, "work", enabled=True, stream=out) as bar:
        for _ in range(50):
            bar.step()
    lines = out.getvalue().splitlines()
    assert lines == [f"work: {n}/50 ({n * 2}%)" for n in range(5, 51, 5)]


def test_a_terminal_gets_one_redrawn_bar_ending_in_a_newline() -> None:
    out = Terminal()
    with Progress(400, "simplify", stream=out) as bar:
        for _ in range(400):
            bar.step(note="pass 5")
    text = out.getvalue()
    assert text.count("\r") == 100 and text.endswith("\n") and text.count("\n") == 1
    assert "simplify: [########################] 400/400 (100%)  pass 5" in text


def test_an_unknown_total_shows_a_running_count() -> None:
    out = io.StringIO()
    for _ in track(iter(range(25)), "fuzz", enabled=True, stream=out):
        pass
    assert out.getvalue().splitlines() == ["fuzz: 10", "fuzz: 20", "fuzz: 25"]


def test_progress_of_none_is_silent_and_fills_in_a_missing_total() -> None:
    assert progress(None).enabled is False
    bar = Progress(None, "plan", enabled=False)
    assert progress(bar, total=12) is bar and bar.total == 12
    assert progress(Progress(3, "x", enabled=False), total=12).total == 3


def _big_set(n: int) -> GuardSet:
    s = [symbol_expr(f"s{i}") for i in range(n)]
    guards = [ge(x, 2) for x in s] + [gt(x, 3) for x in s[::2]] + [eq(mod(x, 4), 0) for x in s[::3]] + [le(s[0], s[1])]
    return GuardSet.of(guards)


def test_simplify_steps_the_display_and_returns_the_same_set_with_or_without_it() -> None:
    gs = _big_set(12)
    out = io.StringIO()
    with Progress(None, "simplify", enabled=True, stream=out) as bar:
        shown, report = gs.simplify_with_report(progress=bar)
    quiet, _ = gs.simplify_with_report()
    assert shown == quiet and report.proof.value == "yes"
    assert bar.total == bar.done >= 2 and out.getvalue().splitlines()[-1].endswith("(100%)")
