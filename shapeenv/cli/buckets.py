"""The ``shapeenv plan-buckets`` command: pad-to sizes for observed input sizes (:mod:`shapeenv.compile.buckets`).

``shapeenv plan-buckets LOG [--recompile-cost 100] [--waste-cost 1] [--max-buckets K] [--multiple-of M]``
reads a recorded log (one call per line, ``x.size()[0]=9, x.size()[1]=3``, or one int per
line, or JSON; see :func:`shapeenv.compile.buckets.read_size_log`); ``--sizes 3,5,9`` gives the
sizes of one dim on the command line instead. ``--json`` prints the plans as JSON.

>>> main(["--sizes", "3,3,4,30", "--recompile-cost", "10"])  # doctest: +NORMALIZE_WHITESPACE
size: 2 buckets, 2 padded rows, cost 22 (recompile_cost 10, waste_cost 1)
  pad to      4  serves <= 4                3 calls         2 padded rows  guards: size <= 4
  pad to     30  serves 5..30               1 calls         0 padded rows  guards: size > 4 and size <= 30
0
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Sequence

from guards import Source

from shapeenv.compile.buckets import PlannerError, plan_buckets, read_size_log
from shapeenv.cli.guards import run_command

__all__ = ["configure", "run", "main", "EXIT_CODES"]

EXIT_OK, EXIT_USAGE = 0, 2

EXIT_CODES = """\
exit codes:
  0  planned; the buckets are printed
  2  usage error: no sizes, a malformed log line, a bad cost
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``plan-buckets`` arguments to ``parser``.

    >>> p = argparse.ArgumentParser(prog="plan-buckets"); configure(p)
    >>> p.parse_args(["log.txt", "--max-buckets", "3"]).max_buckets
    3
    """
    parser.epilog = EXIT_CODES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("log", nargs="?", metavar="LOG", help="a recorded log of input sizes (- for stdin)")
    parser.add_argument("--sizes", metavar="S1,S2,...", help="the observed sizes of one dim, instead of a log")
    parser.add_argument("--recompile-cost", type=float, default=100.0, help="cost of one compilation, in padded rows")
    parser.add_argument("--waste-cost", type=float, default=1.0, help="cost of one padded row (default 1)")
    parser.add_argument("--max-buckets", type=int, default=None, help="at most this many buckets per dim")
    parser.add_argument("--multiple-of", type=int, default=1, help="pad-to sizes are multiples of this")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace, out=None, err=None) -> int:
    """Plan and print; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if args.sizes is not None:
            parts = [p.strip() for p in args.sizes.split(",") if p.strip()]
            if not all(p.isdigit() for p in parts):
                raise PlannerError(f"--sizes takes comma-separated ints >= 0, got {args.sizes!r}")
            observed = {Source.value("size"): Counter(int(p) for p in parts)}
        elif args.log is not None:
            try:
                text = sys.stdin.read() if args.log == "-" else Path(args.log).read_text()
            except OSError as e:
                raise PlannerError(f"cannot read {args.log}: {e.strerror}") from None
            observed = read_size_log(text)
        else:
            raise PlannerError("give a LOG file or --sizes")
        plan = plan_buckets(observed, recompile_cost=args.recompile_cost, waste_cost=args.waste_cost,
                            max_buckets=args.max_buckets, multiple_of=args.multiple_of)
    except PlannerError as e:
        print(f"shapeenv plan-buckets: error: {e}", file=err)
        return EXIT_USAGE
    print(json.dumps(plan.to_json(), indent=2) if args.json else plan.format(), file=out)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``shapeenv plan-buckets`` with ``argv``; returns the exit code."""
    return run_command("shapeenv plan-buckets", configure, run, argv)
