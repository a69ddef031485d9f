"""The ``shapeenv`` console script: one command group per package.

``shapeenv guards ...`` checks, simplifies, compares, explains and evaluates guard
files (:mod:`shapeenv.cli.guards`). Other groups (e.g. ``export``) plug into :data:`GROUPS`:
each is a ``(help, configure, run)`` triple where ``configure(parser)`` adds the
group's subcommands and ``run(args)`` returns the exit code.

>>> main(["--help"])  # doctest: +ELLIPSIS
usage: shapeenv [-h] [--version] GROUP ...
...
0
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from shapeenv import __version__
from shapeenv.cli import advise as advise_cli
from shapeenv.cli import buckets as buckets_cli
from shapeenv.cli import cache as cache_cli
from shapeenv.cli import export as export_cli
from shapeenv.cli import guards as guards_cli

__all__ = ["GROUPS", "build_parser", "main"]

#: Command groups: name -> (one-line help, configure(parser), run(args) -> exit code).
GROUPS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "guards": ("check, simplify, diff, explain and evaluate guard files", guards_cli.configure, guards_cli.run),
    "export": ("export a function of your module and print the traced program", export_cli.configure, export_cli.run),
    "cache": ("list, show and clear the entries of a persistent store (DiskStore PATH or redis:// URL)",
              cache_cli.configure, cache_cli.run),
    "plan-buckets": ("pad-to sizes minimising recompiles plus padding waste, from observed sizes",
                     buckets_cli.configure, buckets_cli.run),
    "advise": ("why a function recompiles (TORCH_LOGS or TORCH_TRACE) and the smallest change that stops it, proven",
               advise_cli.configure, advise_cli.run),
}


def build_parser() -> argparse.ArgumentParser:
    """The ``shapeenv`` argument parser with every group of :data:`GROUPS`.

    >>> build_parser().parse_args(["guards", "check", "g.txt"]).group
    'guards'
    """
    parser = argparse.ArgumentParser(
        prog="shapeenv",
        description="Symbolic shape reasoning: guard sets, value ranges and shape environments.",
        epilog=guards_cli.EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"shapeenv {__version__}")
    groups = parser.add_subparsers(dest="group", metavar="GROUP", required=True)
    for name, (help_text, configure, _) in GROUPS.items():
        configure(groups.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``shapeenv`` with ``argv`` (default: the process arguments); returns the exit code.

    Exit codes: 0 ok/accepted/equivalent, 1 rejected/not equivalent/unsatisfiable,
    2 usage or parse error, 3 solver unknown, 4 internal error (see ``shapeenv --help``).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already reported
        return int(exc.code or 0)
    try:
        return GROUPS[args.group][2](args)
    except Exception as exc:  # a bug the group did not turn into an exit code: no traceback, exit 4
        return guards_cli.internal_error(exc, sys.stderr)


