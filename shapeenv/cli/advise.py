"""The ``shapeenv advise LOG`` command: why a function recompiles, and the smallest change that stops it.

``LOG`` is a ``TORCH_LOGS=recompiles,dynamic,guards`` text (``2> log.txt``), a ``TORCH_TRACE``
file or its directory. ``--calls FILE`` gives the calls to serve (a JSON list of
``{"x": [3, 6, 16]}``) instead of the call behind each entry. See :mod:`shapeenv.compile.advise`.

>>> import tempfile, os
>>> log = '''TREE_GUARD_MANAGER:
... +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[4], stride=[1])
... Recompiling function f in m.py:3
...     triggered by the following guard failure(s):
...     - 0/0: tensor 'x' size mismatch at index 0. expected 4, actual 6
... TREE_GUARD_MANAGER:
... +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[None], stride=[1])'''
>>> with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
...     _ = f.write(log)
>>> main([f.name])  # doctest: +ELLIPSIS
2 compiles (1 recompiles) for 2 calls
...
proposal: mark_dynamic (1 compile instead of 2)
  torch._dynamo.mark_dynamic(x, 0, min=4, max=6)
...
0
>>> os.unlink(f.name)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from shapeenv.cli.guards import internal_error
from shapeenv.cli.guards_torch import read_text
from guards.errors import GuardError
from guards.text.escape import one_line
from guards.guardset import read_torch_output

from shapeenv.compile.advise import AdviceError, advise, read_calls
from shapeenv.cli.guards import run_command

__all__ = ["configure", "run", "main", "EXIT_CODES"]

EXIT_OK, EXIT_UNPROVEN, EXIT_USAGE = 0, 1, 2

EXIT_CODES = """\
exit codes:
  0  a change is proposed and proven to serve every call with one entry
  1  advice given, but no single guard set serves every call (or the proof did not finish)
  2  usage error: an unreadable log, a log without guard trees or call sizes
  4  internal error: a bug in shapeenv (the message names it; please report it)
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``advise`` arguments to ``parser``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ("examples (paste into bash):\n"
                     "  TORCH_LOGS=recompiles,dynamic,guards python3 train.py 2> log.txt; shapeenv advise log.txt\n"
                     "  TORCH_TRACE=trace_dir python3 train.py; shapeenv advise trace_dir --json\n"
                     "  shapeenv advise log.txt --calls calls.json\n\n" + EXIT_CODES)  # fmt: skip
    parser.add_argument("log", metavar="LOG", help="a TORCH_LOGS text, a TORCH_TRACE file or directory ('-': stdin)")
    parser.add_argument("--calls", metavar="FILE", help='the calls to serve: a JSON list of {"x": [3, 6, 16], ...}')
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Run ``advise`` on parsed ``args``; returns the exit code."""
    try:
        log = read_torch_output(read_text(args.log))
        calls = read_calls(read_text(args.calls)) if args.calls else None
        advice = advise(log, calls)
    except (AdviceError, GuardError, OSError, ValueError) as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug, not the user's input
        return internal_error(exc, sys.stderr)
    code = EXIT_OK if advice.best.proven else EXIT_UNPROVEN
    if args.json:
        print(json.dumps({"command": "advise", "exit_code": code, **advice.to_json()}, indent=2))
    else:
        print(advice.format())
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``shapeenv advise`` with ``argv``; returns the exit code."""
    return run_command("shapeenv advise", configure, run, argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
