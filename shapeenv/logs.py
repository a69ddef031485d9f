"""``SHAPEENV_LOGS``: what the library logs, in the spirit of ``TORCH_LOGS`` (off by default).

Topics, each a standard :mod:`logging` logger named ``shapeenv.<topic>``:

* ``guards``: every guard recorded, with the user's line, the op and why it was not static;
* ``asserts``: every runtime assert (``check(...)``), with the user's line;
* ``recompiles``: every recompilation of a compiled function: the failed guard and the call's line;
* ``solver``: each question the environment sent to Z3, and its answer, with the user's line;
* ``dynamic``: symbols as they are created (``+dynamic`` for this detail, as in torch).

``SHAPEENV_LOGS=guards,recompiles,asserts,solver,+dynamic`` turns topics on (``+topic`` logs
at DEBUG, ``topic`` at INFO, ``all`` is every topic); the variable is read once, when this
module is imported, into :data:`ENVIRONMENT` (an explicit, frozen config object). In code,
:func:`set_logs` does the same and returns the config it applied:

>>> cfg = LogConfig.parse("guards,+dynamic")
>>> cfg.guards == logging.INFO, cfg.dynamic == logging.DEBUG, cfg.solver
(True, True, 0)
>>> set_logs(guards=True).enabled()
('guards',)
>>> set_logs().enabled()  # everything off again
()

Lines go to stderr as ``[shapeenv.guards] guard Eq(s0, 4)  # model.py:3 in forward (view): ...``
through one handler on the ``shapeenv`` logger; configure the loggers yourself with
:mod:`logging` to send them elsewhere.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from dataclasses import dataclass, fields

__all__ = ["LogConfig", "ENVIRONMENT", "TOPICS", "set_logs", "apply"]

TOPICS = ("guards", "recompiles", "asserts", "solver", "dynamic")
_ROOT = "shapeenv"


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The level of each topic's logger: 0 (off), ``logging.INFO`` or ``logging.DEBUG``."""

    guards: int = 0
    recompiles: int = 0
    asserts: int = 0
    solver: int = 0
    dynamic: int = 0

    @classmethod
    def parse(cls, text: str) -> "LogConfig":
        """Read ``SHAPEENV_LOGS`` text: comma-separated topics, ``+topic`` for DEBUG, ``all`` for every topic.

        Unknown topics are skipped with a warning that lists the known ones.

        >>> LogConfig.parse("+all").enabled()
        ('guards', 'recompiles', 'asserts', 'solver', 'dynamic')
        """
        levels: dict[str, int] = {}
        unknown = []
        for item in (p.strip() for p in text.split(",")):
            if not item:
                continue
            level = logging.DEBUG if item.startswith("+") else logging.INFO
            name = item.lstrip("+-")
            names = TOPICS if name == "all" else (name,)
            if name != "all" and name not in TOPICS:
                unknown.append(item)
                continue
            for n in names:
                levels[n] = 0 if item.startswith("-") else level
        if unknown:
            warnings.warn(
                f"SHAPEENV_LOGS: unknown topic(s) {', '.join(unknown)}; known: {', '.join(TOPICS)}, all "
                "(prefix + for debug detail), e.g. SHAPEENV_LOGS=guards,recompiles",
                stacklevel=2,
            )
        return cls(**levels)

    def enabled(self) -> tuple[str, ...]:
        """The topics that are on, in :data:`TOPICS` order."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name))


def _level(value: bool | int | None) -> int:
    if value is None or value is False:
        return 0
    if value is True:
        return logging.INFO
    return int(value)


class _Handler(logging.StreamHandler):
    """The one stderr handler :func:`apply` installs on the ``shapeenv`` logger (found again by its type)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setFormatter(logging.Formatter("[%(name)s] %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr  # follow redirections (pytest's capsys, notebooks)
        super().emit(record)


def apply(config: LogConfig) -> LogConfig:
    """Set each topic logger's level from ``config`` and install (or remove) the stderr handler.

    Topics that are off get level WARNING, so a root logger at DEBUG does not turn them on.
    """
    root = logging.getLogger(_ROOT)
    for name in TOPICS:
        level = getattr(config, name)
        logging.getLogger(f"{_ROOT}.{name}").setLevel(level if level else logging.WARNING)
    ours = [h for h in root.handlers if isinstance(h, _Handler)]
    if config.enabled() and not ours:
        root.addHandler(_Handler())
    elif not config.enabled():
        for h in ours:
            root.removeHandler(h)
    return config


def set_logs(
    *,
    guards: bool | int | None = None,
    recompiles: bool | int | None = None,
    asserts: bool | int | None = None,
    solver: bool | int | None = None,
    dynamic: bool | int | None = None,
) -> LogConfig:
    """Turn topics on (True for INFO, or a ``logging`` level such as ``logging.DEBUG``) or off; returns the config.

    Topics not given are off, as with ``torch._logging.set_logs``.

    >>> set_logs(recompiles=True, dynamic=logging.DEBUG).enabled()
    ('recompiles', 'dynamic')
    >>> set_logs().enabled()
    ()
    """
    return apply(LogConfig(_level(guards), _level(recompiles), _level(asserts), _level(solver), _level(dynamic)))


#: What ``SHAPEENV_LOGS`` asked for when the library was imported (read once, here, and nowhere else).
ENVIRONMENT: LogConfig = apply(LogConfig.parse(os.environ.get("SHAPEENV_LOGS", "")))
