"""The ``shapeenv cache`` command: list, show and clear the entries of a store.

``PATH`` is a DiskStore directory, or a ``redis://host:port/db`` URL for a RedisStore.

* ``shapeenv cache ls PATH``: one line per entry: id, function, inputs, guards, size, last use;
* ``shapeenv cache show PATH ID``: one entry (an id prefix of at least 4 characters): its
  provenance, guard set and traced program;
* ``shapeenv cache clear PATH [--function NAME]``: remove every entry (or one function's).

Every subcommand takes ``--json``.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     main(["ls", d])
no entries in DiskStore(...)
0
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from typing import Sequence

from shapeenv.program.io import ProgramFormatError, program_from_json
from shapeenv.stores import open_store
from shapeenv.stores.errors import StoreError
from shapeenv.cli.guards import run_command

__all__ = ["configure", "run", "main", "EXIT_CODES"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

EXIT_CODES = """\
exit codes:
  0  done
  1  the store cannot be read or written, or no single entry has that id
  2  usage error
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``cache`` subcommands to ``parser``.

    >>> p = argparse.ArgumentParser(prog="cache"); configure(p)
    >>> p.parse_args(["show", "/tmp/c", "ab12"]).entry
    'ab12'
    """
    parser.epilog = EXIT_CODES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="cache_command", metavar="COMMAND", required=True)
    for name, help_text in (("ls", "list the entries"), ("show", "show one entry"), ("clear", "remove entries")):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("path", metavar="PATH", help="a DiskStore directory or a redis:// URL")
        if name == "show":
            p.add_argument("entry", metavar="ID", help="the entry id (a prefix of at least 4 characters)")
        if name == "clear":
            p.add_argument("--function", metavar="NAME", help="only the entries of the function with this name")
        p.add_argument("--secret-file", metavar="FILE",
                       help="for a redis:// URL: the file holding the secret its clients give as RedisStore(secret=...)")
        p.add_argument("--json", action="store_true", help="print JSON")


def _when(t: float) -> str:
    return datetime.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def run(args: argparse.Namespace, out=None, err=None) -> int:
    """Run one ``cache`` subcommand; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        secret = None
        if getattr(args, "secret_file", None):
            try:
                with open(args.secret_file, "rb") as fh:
                    secret = fh.read().strip()
            except OSError as e:
                raise StoreError(f"cannot read the secret file {args.secret_file!r}: {e}") from None
        store = open_store(args.path, secret=secret)
        if args.cache_command == "ls":
            metas = store.entries()
            if args.json:
                print(json.dumps([m.to_json() for m in metas], indent=2), file=out)
            elif not metas:
                print(f"no entries in {store.description}", file=out)
            else:
                print(f"{len(metas)} entries, {sum(m.size for m in metas)} bytes in {store.description}", file=out)
                for m in metas:
                    label = f" [{m.label}]" if m.label else ""
                    print(f"{m.id[:12]}  {m.name}({m.inputs}){label}  {m.guards} guards  {m.size} B  "
                          f"last used {_when(m.last_used)}", file=out)
        elif args.cache_command == "show":
            entry = store.get(args.entry)
            if args.json:
                print(json.dumps({"id": entry.id, "function": entry.function, "key": entry.key, "inputs": entry.inputs,
                                  "label": entry.label, "provenance": entry.provenance, "guards": entry.guards,
                                  "pins": entry.pins, "artifact": entry.artifact}, indent=2), file=out)
                return EXIT_OK
            prov = entry.provenance
            print(f"entry {entry.id}", file=out)
            print(f"  function: {prov.get('name')}  (fingerprint {entry.function[:16]})", file=out)
            print(f"  inputs:   {entry.inputs}" + (f"  [specialised: {entry.label}]" if entry.label else ""), file=out)
            print(f"  stored:   by process {prov.get('pid')} on {prov.get('host')} at {_when(prov.get('time', 0))}, "
                  f"traced in {1e3 * float(prov.get('seconds', 0)):.1f} ms", file=out)
            print(f"  reason:   {prov.get('reason')}", file=out)
            print(f"  dynamic:  {prov.get('dynamic')}", file=out)
            print(f"  backend:  {(entry.artifact or {}).get('backend')}", file=out)
            try:
                program = program_from_json(entry.program)
            except ProgramFormatError as e:
                print(f"  program:  cannot be read ({e})", file=out)
                return EXIT_FAILED
            print("  guards:" + ("" if len(program.guards) else " none"), file=out)
            for line in program.guards.to_text("source").splitlines() if len(program.guards) else ():
                print(f"    {line}", file=out)
            print("", file=out)
            print(program.format("source"), file=out)
        else:
            removed = store.clear(args.function)
            if args.json:
                print(json.dumps({"removed": removed}), file=out)
            else:
                print(f"removed {removed} entries from {store.description}", file=out)
    except StoreError as e:
        print(f"shapeenv cache: error: {e}", file=err)
        return EXIT_FAILED
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``shapeenv cache`` with ``argv``; returns the exit code."""
    return run_command("shapeenv cache", configure, run, argv)
