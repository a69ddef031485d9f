"""What every ``shapeenv`` subcommand run on its own shares: parse ``argv``, run, return the exit code.

>>> import argparse
>>> def configure(p): p.add_argument("--n", type=int, default=1)
>>> run_command("demo", configure, lambda args: args.n * 2, ["--n", "3"])
6
>>> run_command("demo", configure, lambda args: 0, ["--bad"])  # doctest: +ELLIPSIS
2
"""

from __future__ import annotations

import argparse
from typing import Callable, Sequence

__all__ = ["run_command"]


def run_command(prog: str, configure: Callable[[argparse.ArgumentParser], None],
                run: Callable[[argparse.Namespace], int], argv: Sequence[str] | None,
                description: str | None = None) -> int:
    """Build the parser of ``prog``, parse ``argv`` and ``run`` it; ``--help`` and usage errors give their exit code."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    configure(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already reported
        return int(exc.code or 0)
    return run(args)
