"""Progress of long work (simplifying thousands of guards, fuzzing, planning buckets) on stderr.

A :class:`Progress` draws a one-line bar that redraws itself (``\\r``) when its stream is a
terminal, and stays silent otherwise (pipes, CI logs, notebooks), unless forced with
``enabled=True``; then a stream that is not a terminal gets a plain line every tenth of the
work instead of a redrawn bar. Redraws are scheduled by count (every 1% of ``total``), never by
the clock, so what is printed for a given run is always the same. It only ever writes: the
work's results never depend on it.

>>> import io
>>> out = io.StringIO()
>>> with Progress(200, "simplify", enabled=True, stream=out) as bar:
...     for _ in range(200):
...         bar.step()
>>> print(out.getvalue().splitlines()[-1])
simplify: 200/200 (100%)

Code that does long work takes an optional ``progress`` argument (a :class:`Progress`, or
None for none) and calls :meth:`Progress.step` once per unit of work; callers decide whether
anything is shown.
"""

from __future__ import annotations

import sys
from typing import IO, Iterable, Iterator, TypeVar

__all__ = ["Progress", "progress", "track"]

T = TypeVar("T")
_WIDTH = 24


class Progress:
    """A progress display for ``total`` steps of work labelled ``label`` (see the module docstring).

    Args:
        total: the number of steps (None when unknown: a running count is shown).
        label: what is being done (``"simplify"``, ``"fuzz"``).
        enabled: True to show it, False to stay silent, None (default): only if ``stream`` is a terminal.
        stream: where to write (default ``sys.stderr``, looked up when the display is created).
    """

    def __init__(self, total: int | None, label: str, *, enabled: bool | None = None, stream: IO[str] | None = None):
        self.total = total if total is None or total >= 0 else 0
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = tty if enabled is None else bool(enabled)
        self.redraw = tty  # a terminal redraws one line; anything else gets separate lines
        self.done = 0
        self._shown = 0
        self._every = max(1, (total or 100) // (100 if self.redraw else 10))

    def step(self, n: int = 1, note: str = "") -> None:
        """Count ``n`` more steps done (``note``: a few words on the current step, shown on a terminal)."""
        self.done += n
        if self.enabled and (self.done - self._shown >= self._every or self.done == self.total):
            self._draw(note)

    def _draw(self, note: str = "") -> None:
        self._shown = self.done
        if self.total:
            frac = min(1.0, self.done / self.total)
            bar = "#" * int(frac * _WIDTH) + "-" * (_WIDTH - int(frac * _WIDTH))
            text = f"{self.label}: {self.done}/{self.total} ({int(frac * 100)}%)"
            text = f"{self.label}: [{bar}] {text[len(self.label) + 2:]}" if self.redraw else text
        else:
            text = f"{self.label}: {self.done}"
        if note and self.redraw:
            text += f"  {note[:40]}"
        self.stream.write(("\r" + text + "\x1b[K") if self.redraw else text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Finish the display (a final line; a newline after a redrawn bar)."""
        if not self.enabled:
            return
        if self._shown != self.done:
            self._draw()
        if self.redraw and self._shown:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def track(items: Iterable[T], label: str, *, total: int | None = None, enabled: bool | None = None,
          stream: IO[str] | None = None) -> Iterator[T]:
    """Iterate over ``items`` with a :class:`Progress` for them (``total`` defaults to ``len(items)``).

    >>> import io
    >>> out = io.StringIO()
    >>> sum(track(range(10), "sum", enabled=True, stream=out)), out.getvalue().splitlines()[-1]
    (45, 'sum: 10/10 (100%)')
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Progress(total, label, enabled=enabled, stream=stream) as bar:
        for item in items:
            yield item
            bar.step()


def progress(value: "Progress | None", total: int | None = None) -> "Progress":
    """``value``, or a silent display for None: what a function taking ``progress=None`` steps.

    ``total`` fills in the total of a display created without one (the work knows its size).

    >>> progress(None).enabled, progress(Progress(None, "plan", enabled=False), total=8).total
    (False, 8)
    """
    if value is None:
        return Progress(total, "", enabled=False)
    if value.total is None and total is not None:
        value.total = total
        value._every = max(1, total // (100 if value.redraw else 10))
    return value
