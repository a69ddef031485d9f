"""The ``shapeenv guards`` commands: check, simplify, diff, explain and evaluate guard files.

A guard file holds one guard per line in torch's text (``L['x'].size()[0] == 8``),
our source dialect (``x.size()[0] == 8``) or sympy's (``Eq(s0, 8)``), with ``#``
comments; or the JSON written by :meth:`GuardSet.to_json` (or ``{"guards": [...]}``);
or torch's own output as it printed it: a ``TORCH_LOGS=guards`` log (one guard set per
cache entry, ``--entry`` picks one), a ``TORCH_TRACE`` file or directory (read as the
text log of the same run), a ``recompiles`` log, a printed ``torch.export`` program (see
:mod:`shapeenv.cli.guards_torch`). A file that holds no guards in any of these formats is an error.
``diff`` compares by meaning (:mod:`shapeenv.cli.guards_diff`); ``--entry A:0/1 --entry B:0/2``
picks an entry per file. ``-`` reads standard input. Output is
human-readable; ``--json`` prints one JSON object.

The console script ``shapeenv`` (:mod:`shapeenv.cli`) mounts these commands as its
``guards`` group; :func:`main` runs them on their own.

>>> import os, tempfile
>>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
...     _ = f.write("L['x'].size()[0] == 8\\n")
>>> main(["eval", f.name, "--sizes", "x.size()[0]=9"])
rejected: x.size()[0] == 8 failed: got 9
1
>>> os.unlink(f.name)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Mapping, Sequence, TextIO

from symint.lazy_sympy import sympy

from symint.errors import ExpressionLimitError, SymIntError

from guards.errors import CodegenError, GuardError, GuardParseError, GuardTypeError, GuardValueError, SolverError, UnknownSourceError
from shapeenv.cli.guards_torch import Loaded, root_value, add_region_command, assumed_values, explain_log, input_name, load, looks_like_log_file, run_region
from shapeenv.cli.guards_diff import compare
from guards.text.escape import one_line, sympy_str
from guards.runtime.explain import Explanation, explain
from guards.guardset import GuardSet
from guards.text.parse import parse_source
from guards.progress import Progress
from guards.text.printers import to_text
from guards.solver.prove import ProofResult, Verdict
from guards.solver.z3_solver import SolverConfig

__all__ = ["EXIT_OK", "EXIT_NO", "EXIT_USAGE", "EXIT_UNKNOWN", "EXIT_INTERNAL", "EXIT_CODES", "configure", "run", "main", "internal_error"]

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4

EXAMPLES = {
    "check": """examples (paste into bash):
  shapeenv guards check guards.txt
  TORCH_LOGS=guards python3 train.py 2> dump.log; shapeenv guards check dump.log --entry 0/1
  TORCH_TRACE=trace_dir python3 train.py; shapeenv guards check trace_dir
  echo "L['x'].size()[0] >= 2" | shapeenv guards check - --json
""",
    "simplify": """examples (paste into bash):
  shapeenv guards simplify dump.log --format source
  echo "L['x'].size()[0] >= 2" | shapeenv guards simplify -
""",
    "diff": """examples (paste into bash):
  shapeenv guards diff a.txt b.txt
  shapeenv guards diff dump.log dump.log --entry A:0/1 --entry B:0/2
  shapeenv guards diff ours.txt export.txt
  shapeenv guards diff guards.txt trace_dir --entry B:0/1 --json
""",
    "explain": """examples (paste into bash):
  shapeenv guards explain guards.txt --sizes "x.size()[0]=9" n=2
  shapeenv guards explain dump.log --shape "L['x']=5,9,12"
  shapeenv guards explain dump.log --shape x=5,9,12 --stride x=12,60,1
  shapeenv guards explain dump.log --recompiles
  shapeenv guards explain export.txt --shape x=4,10,16 mask=4,10
""",
    "eval": """examples (paste into bash):
  shapeenv guards eval guards.txt --sizes "L['x'].size()[0]=9" n=3
  shapeenv guards eval dump.log --shape "L['x']=3,4,15" --json
""",
    "region": """examples (paste into bash):
  shapeenv guards region dump.log
  shapeenv guards region dump.log --over "L['x'].size()[0]" "L['x'].size()[2]" --range 0:32
  shapeenv guards region dump.log --entry 0/1 --plot region.png
""",
}

EXIT_CODES = """\
exit codes:
  0  ok: satisfiable (check), simplified and proven equivalent (simplify),
     equivalent (diff), accepted (explain, eval)
  1  no: unsatisfiable, not equivalent, rejected
  2  usage error, unreadable file, guard text that does not parse, or input
     too large to process (a limit of symint.limits, or out of memory)
  3  the solver could not decide within its limits (unknown); raise --rlimit or --budget-rlimit
  4  internal error: a bug in shapeenv (the message names it; please report it)
"""

_FORMATS = ("torch", "source", "sympy")
_DIALECTS = ("auto", "torch", "source", "sympy")


# -- the parser ------------------------------------------------------------------------------------------
def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``check``/``simplify``/``diff``/``explain``/``eval`` subcommands to ``parser``.

    >>> p = argparse.ArgumentParser(prog="guards")
    >>> configure(p)
    >>> p.parse_args(["eval", "g.txt", "--sizes", "n=3"]).sizes
    ['n=3']
    """
    parser.epilog = EXIT_CODES
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="guards_command", metavar="COMMAND", required=True)

    def command(name: str, help_text: str, files: Sequence[str] = ("FILE",)) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=EXAMPLES.get(name, "") + "\n" + EXIT_CODES,
                           formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        for f in files:
            p.add_argument(f.lower(), metavar=f, help="guard file: text, JSON, a raw torch guard log or export program ('-': stdin)")
        p.add_argument("--dialect", choices=_DIALECTS, default="auto", help="how to read guard text (default: auto)")
        if len(files) == 2:
            p.add_argument("--entry", metavar="[A:|B:]ID", action="append", default=[],
                           help="for a torch log or trace: the cache entry (torch's 0/1, or a position; default: the newest); "
                                "A:0/1 picks it in file A only, B:0/2 in file B only, a bare ID in every log given")  # fmt: skip
        else:
            p.add_argument("--entry", metavar="ID", help="for a torch log or trace: the cache entry (torch's 0/1, or a position; default: the newest)")
        p.add_argument("--strict", action="store_true", help="for a torch log: an unknown guard kind is an error, not skipped")
        p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
        return p

    def solver(p: argparse.ArgumentParser) -> None:
        default = SolverConfig()
        p.add_argument("--rlimit", type=int, default=default.rlimit,
                       help=f"Z3 resource limit per check, deterministic (default: {default.rlimit})")  # fmt: skip
        p.add_argument("--budget-rlimit", type=int, default=default.budget_rlimit,
                       help=f"Z3 resource units for the whole command (default: {default.budget_rlimit})")  # fmt: skip
        p.add_argument("--timeout-ms", type=int, default=default.timeout_ms,
                       help="wall-clock safety net per check only; its firing is reported")  # fmt: skip

    def formatted(p: argparse.ArgumentParser, default: str = "torch") -> None:
        p.add_argument("--format", choices=_FORMATS, default=default, help=f"how to print guards (default: {default})")

    def sizes(p: argparse.ArgumentParser) -> None:
        p.add_argument("--sizes", nargs="+", default=[], metavar="SOURCE=INT",
                       help="input values, e.g. x.size()[0]=9 \"L['x'].stride()[1]=1\" n=3")  # fmt: skip
        p.add_argument("--shape", nargs="+", action="extend", default=[], metavar="NAME=D0,D1,...",
                       help="a tensor input's sizes (contiguous unless --stride); NAME as x, L['x'] or L['xs'][0]")  # fmt: skip
        p.add_argument("--stride", nargs="+", action="extend", default=[], metavar="NAME=S0,S1,...",
                       help="a tensor input's strides, for non-contiguous inputs")  # fmt: skip

    p = command("check", "parse a guard set; is it satisfiable; which guards are redundant")
    solver(p), formatted(p)
    p = command("simplify", "print an equivalent, simplified guard set (proven by Z3)")
    solver(p), formatted(p)
    p = command("diff", "compare two guard sets: equivalent? implication either way? a counterexample", ("A", "B"))
    solver(p), formatted(p)
    p = command("explain", "say which guards fail on the given sizes, and why (for a torch log: why it recompiles)")
    sizes(p)
    p.add_argument("--recompiles", action="store_true", help="for a torch log: explain the recompiles it records")
    p = command("eval", "accept or reject the given sizes (compiled checker)")
    sizes(p)
    add_region_command(sub, command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``guards COMMAND ...`` (the arguments after ``shapeenv guards``); returns the exit code.

    >>> main(["--help"])  # doctest: +ELLIPSIS
    usage: shapeenv guards [-h] COMMAND ...
    ...
    0
    """
    return run_command("shapeenv guards", configure, run, argv, __doc__.splitlines()[0])


def run_command(prog: str, configure: Callable[[argparse.ArgumentParser], None],
                run: Callable[[argparse.Namespace], int], argv: Sequence[str] | None,
                description: str | None = None) -> int:
    """Build the parser of ``prog``, parse ``argv`` and ``run`` it; every ``shapeenv`` subcommand run on its own.

    ``--help`` and usage errors give their exit code instead of raising SystemExit.

    >>> def configure(p): p.add_argument("--n", type=int, default=1)
    >>> run_command("demo", configure, lambda args: args.n * 2, ["--n", "3"])
    6
    """
    parser = argparse.ArgumentParser(prog=prog, description=description)
    configure(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse already reported
        return int(exc.code or 0)
    return run(args)


# -- running --------------------------------------------------------------------------------------------
def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the parsed command ``args`` (from a parser set up by :func:`configure`); returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    command = _COMMANDS[args.guards_command]
    args.notes = []  # what loading a torch log said (which entry, what was skipped), printed with the report
    try:
        report, code = command(args)
    except SolverError as exc:
        print(f"error: the solver failed: {exc}", file=err)
        return EXIT_UNKNOWN
    except (ExpressionLimitError, MemoryError, RecursionError) as exc:
        print(f"error: the input is too large to process ({type(exc).__name__}: {exc}); split or simplify it", file=err)
        return EXIT_USAGE
    except (GuardError, SymIntError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=err)
        return EXIT_USAGE
    except Exception as exc:  # a bug, not the user's input: its own exit code, no traceback
        return internal_error(exc, err)
    try:
        if args.json:
            fields = {k: v for k, v in report.items() if k != "text"}
            fields.update({"notes": args.notes} if args.notes else {})
            print(json.dumps({"command": args.guards_command, "exit_code": code, **fields}, indent=2, default=str), file=out)
        else:
            print("".join(f"# {n}\n" for n in args.notes) + report["text"], file=out)
        out.flush()
    except BrokenPipeError:  # `shapeenv guards ... | head`: the reader left; not an error of ours
        _silence_broken_pipe(out)
    return code


def _silence_broken_pipe(out: TextIO) -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush does not fail too."""
    try:
        if out is sys.stdout:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _entry_of(args: argparse.Namespace, path: str, side: str | None) -> str | None:
    """The ``--entry`` for one file: for ``diff`` (a list), ``A:ID``/``B:ID`` for that side or a bare ID for every log."""
    entry = getattr(args, "entry", None)
    if not isinstance(entry, list):
        return entry
    chosen: dict[str, str] = {}
    for item in entry:
        head, sep, rest = item.partition(":")
        key, value = (head, rest) if sep and head in ("A", "B") else ("*", item)
        if not value or key in chosen:
            raise GuardValueError(f"--entry {item}: give each side once, as A:ID, B:ID or a bare ID for both (e.g. --entry A:0/1 --entry B:0/2)")
        chosen[key] = value
    if "*" in chosen and len(chosen) > 1:
        raise GuardValueError("--entry: a bare ID applies to both files; do not mix it with A:ID or B:ID")
    value = chosen.get(side or "", chosen.get("*"))
    if value is not None and "*" in chosen and not looks_like_log_file(path):
        return None  # a bare ID applies to the files that are torch logs
    return value


def _read(args: argparse.Namespace, path: str, side: str | None = None) -> Loaded:
    need = not getattr(args, "recompiles", False)
    try:
        loaded = load(path, args.dialect, _entry_of(args, path, side), strict=getattr(args, "strict", False),
                      need_guards=need)
    except GuardParseError as exc:  # name the file: a diff reads two
        raise exc.in_file(path) from None
    notes = getattr(args, "notes", None)
    if loaded.note and notes is not None and loaded.note not in notes:
        notes.append(loaded.note)
    return loaded


def _load(args: argparse.Namespace, path: str, side: str | None = None) -> GuardSet:
    return _read(args, path, side).guards


def internal_error(exc: BaseException, err: TextIO) -> int:
    """Report an unexpected exception (a bug in shapeenv) in one line and return :data:`EXIT_INTERNAL`.

    >>> import io
    >>> buf = io.StringIO(); internal_error(KeyError("k"), buf), buf.getvalue().split(":")[0]
    (4, 'internal error')
    """
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        where = f" at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    print(f"internal error: {type(exc).__name__}: {one_line(exc)}{where}; this is a bug in shapeenv, please report it",
          file=err)  # fmt: skip
    return EXIT_INTERNAL


def _config(args: argparse.Namespace) -> SolverConfig:
    return SolverConfig(rlimit=args.rlimit, budget_rlimit=args.budget_rlimit, timeout_ms=args.timeout_ms)


def _text(gs: GuardSet, expr: sympy.Basic, fmt: str) -> str:
    try:
        return one_line(to_text(expr, gs.source_map, fmt))  # type: ignore[arg-type]
    except GuardError:  # an expression with no guard syntax
        return one_line(sympy_str(expr))


def _verdict_code(verdict: Verdict) -> int:
    return {Verdict.YES: EXIT_OK, Verdict.NO: EXIT_NO, Verdict.UNKNOWN: EXIT_UNKNOWN}[verdict]


# Note [One line per fact]
#     The text report is line-oriented, and much of what it prints is user text: input
#     names (in witnesses and messages), origins, file names, solver reasons. Each such
#     piece goes through ``one_line`` (guards/text/escape.py), so a newline in an input name
#     or an origin cannot forge a line such as "satisfiable: no". Guard text needs no
#     escaping: the printers write odd input names as ``L['...']`` with repr's escapes.


def _values_text(values: Mapping[str, int]) -> str:
    return ", ".join(f"{one_line(k)} = {v}" for k, v in sorted(values.items()))


def _summary(gs: GuardSet, name: str) -> str:
    return f"{one_line(name)}: {len(gs)} guards over {len(gs.sources)} sources"


def _check(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    gs, config = _load(args, args.file), _config(args)
    sat = gs.is_satisfiable(config)
    search = gs.redundant_with_report(config) if sat.verdict is Verdict.YES else None
    redundant = search.redundant if search is not None else ()
    positions = {g.expr: k for k, g in enumerate(gs.guards)}
    lines = [_summary(gs, args.file), f"satisfiable: {_verdict_line(sat)}"]
    core = gs.unsat_core(config) if sat.verdict is Verdict.NO else None
    if core is not None and core.found:
        lines += [f"conflict: {len(core.lines())} of {len(gs)} guards cannot all hold"
                  f"{'' if core.minimal else ' (not shown minimal)'}:"]
        lines += [f"  {line}" for line in _core_lines(gs, core, args.format)]
    if sat.verdict is Verdict.YES:
        note = " (implied by the others; drop them all together)" if redundant else ""
        lines.append(f"redundant: {len(redundant) or 'none'}{note}")
        lines += [f"  {_text(gs, g.expr, args.format)}{_where(g.origin)}" for g in redundant]
        if search is not None and search.budget_exhausted:
            lines.append(f"  (budget exhausted: {len(search.unknown)} guards not tried or undecided; raise --budget-rlimit)")
    report = {
        "file": args.file,
        "guards": len(gs),
        "sources": [src.text() for _, src in gs.sources],
        "satisfiable": sat.verdict.value,
        "witness": dict(sat.witness) if sat.witness else None,
        "reason": sat.reason,
        "budget_exhausted": bool(search is not None and search.budget_exhausted),
        "redundant": [
            {"index": positions[g.expr], "guard": _text(gs, g.expr, args.format), "origin": g.origin} for g in redundant
        ],
        "conflict": None if core is None or not core.found else {
            "minimal": core.minimal,
            "guards": [{"index": i, "guard": _text(gs, g.expr, args.format), "origin": g.origin}
                       for i, g in zip(core.indices, core.guards)],
            "domain": [{"source": _text(gs, sym, args.format), "range": str(rng)} for sym, rng in core.domain],
        },
        "text": "\n".join(lines),
    }
    return report, _verdict_code(sat.verdict)


def _core_lines(gs: GuardSet, core, fmt: str) -> list[str]:
    """The conflicting guards in the chosen format, each with its position and origin."""
    out = [f"[{i}] {_text(gs, g.expr, fmt)}{_where(g.origin)}" for i, g in zip(core.indices, core.guards)]
    out += [f"{_text(gs, sym, fmt)} in {rng} (the domain)" for sym, rng in core.domain]
    return out


def _verdict_line(result: ProofResult) -> str:
    line = result.verdict.value
    if result.verdict is Verdict.YES and result.witness:
        line += f", e.g. {_values_text(result.witness)}"
    if result.verdict is Verdict.UNKNOWN and result.reason:
        line += f" ({one_line(result.reason)})"
    return line


def _where(origin: str | None) -> str:
    return f"  # {one_line(origin)}" if origin else ""


def _simplify(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    gs = _load(args, args.file)
    with Progress(None, f"simplify {len(gs)} guards") as bar:  # shown on a terminal only (stderr)
        simplified, report = gs.simplify_with_report(_config(args), progress=bar)
    guards = [_text(simplified, g.expr, args.format) for g in simplified.guards]
    header = [
        f"# {one_line(args.file)}: {len(gs)} guards -> {len(simplified)} guards; proof of equivalence: {report.proof.value}",
        *(f"# kept unsimplified: {one_line(msg)}" for msg in report.reverted),
        *(["# budget exhausted: what could not be tried was kept; raise --budget-rlimit"] if report.budget_exhausted else []),
    ]
    out = {
        "file": args.file,
        "format": args.format,
        "guards": guards,
        "proof": report.proof.value,
        "dropped": [{"guard": _text(gs, g.expr, args.format), "why": why} for g, why in report.dropped],
        "reverted": list(report.reverted),
        "z3_checks": report.z3_checks,
        "rlimit": report.rlimit,
        "budget_exhausted": report.budget_exhausted,
        "safety_net": report.safety_net,
        "guardset": json.loads(simplified.to_json()),
        "text": "\n".join(header + guards),
    }
    return out, EXIT_OK if report.proof is Verdict.YES else EXIT_UNKNOWN


def _diff(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    a, b = _load(args, args.a, "A"), _load(args, args.b, "B")
    with Progress(4, f"diff {len(a)} and {len(b)} guards") as bar:  # shown on a terminal only (stderr)
        result = compare(a, b, _config(args), bar)
    lines = [_summary(a, "A " + args.a), _summary(b, "B " + args.b), *result.lines()]
    report = {"a": args.a, "b": args.b, **result.to_json(), "text": "\n".join(lines)}
    return report, _verdict_code(result.equivalent)


# -- sizes from the command line ---------------------------------------------------------------------------
class _ContiguousInput:
    """A stand-in tensor for ``--shape``: sizes, contiguous element strides, offset 0."""

    def __init__(self, shape: tuple[int, ...]):
        self.shape = shape
        strides, step = [], 1
        for d in reversed(shape):
            strides.append(step)
            step *= max(d, 1)
        self._strides = tuple(reversed(strides))

    def stride(self) -> tuple[int, ...]:
        return self._strides

    def storage_offset(self) -> int:
        return 0


def _split(item: str, what: str) -> tuple[str, str]:
    key, eq, value = item.rpartition("=")
    if not eq or not key.strip() or not value.strip():
        raise GuardValueError(f"expected {what}, got {item!r}")
    return key.strip(), value.strip()


def _as_int(text: str, item: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise GuardValueError(f"expected an integer value in {item!r}") from None


def _bindings(gs: GuardSet, args: argparse.Namespace) -> dict[sympy.Symbol, int]:
    """``--shape`` (with ``--stride``) then ``--sizes`` (which override) as ``{symbol: value}``.

    For a guard set read from a torch log, sources not given whose only guards are
    TENSOR_MATCH / EQUALS_MATCH pins (module parameters, module ints) are assumed as traced.
    """
    values: dict[sympy.Symbol, int] = {}
    strides = {}
    for item in getattr(args, "stride", []):
        name, dims = _split(item, "NAME=S0,S1,... (e.g. x=1,3)")
        strides[input_name(name)] = tuple(_as_int(d.strip(), item) for d in dims.split(",") if d.strip())
    inputs = {src.base for _, src in gs.sources}
    for item in args.shape:
        name, dims = _split(item, "NAME=D0,D1,... (e.g. x=3,4)")
        name = input_name(name)
        if name not in inputs:
            known = ", ".join(sorted(inputs)) or "none"
            raise UnknownSourceError(f"--shape {item}: unknown input {name!r}; the guards read the inputs: {known}")
        shape = tuple(_as_int(d.strip(), item) for d in dims.split(",") if d.strip())
        tensor = _ContiguousInput(shape)
        if name in strides:
            if len(strides[name]) != len(shape):
                raise GuardValueError(f"--stride {name}: {len(strides[name])} strides for {len(shape)} dims")
            tensor._strides = strides.pop(name)
        for sym, src in gs.sources:
            if src.base == name and src.kind != "value":
                try:
                    values[sym] = src.read(tensor)
                except (IndexError, GuardTypeError):
                    needed = 1 + max((s.index for _, s in gs.sources if s.base == name and isinstance(s.index, int)),
                                     default=0)
                    message = (f"--shape {item}: gives {len(shape)} dims, but the guards read {src.text()}: "
                               f"{name} has at least {needed} dims")
                    raise GuardValueError(message) from None
    if strides:
        raise GuardValueError(f"--stride {', '.join(strides)}: give the sizes too (--shape NAME=D0,D1,...)")
    for item in args.sizes:
        key, value = _split(item, "SOURCE=INT (e.g. x.size()[0]=9)")
        values[_symbol_for(gs, key)] = _as_int(value, item)
    assumed = assumed_values(gs, values)
    if hasattr(args, "assumed"):
        args.assumed.update({gs.source_map[s].text(): v for s, v in assumed.items()})
    if assumed and hasattr(args, "notes"):
        args.notes.append(f"assumed as traced (not given): {len(assumed)} sizes, strides and ints of module parameters and attributes")
    values.update(assumed)
    missing = sorted({s for g in gs.guards for s in g.expr.free_symbols} - set(values), key=lambda s: s.name)
    if missing:
        names = ", ".join(gs.source_map[s].text() if s in gs.source_map else s.name for s in missing)
        raise UnknownSourceError(f"no value given for {names}; pass --sizes SOURCE=INT or --shape NAME=D0,D1,...")
    return values


def _symbol_for(gs: GuardSet, key: str) -> sympy.Symbol:
    try:
        return gs.symbol_for(key)
    except UnknownSourceError as exc:
        unknown = exc
    try:
        return gs.symbol_for(parse_source(key))  # x.shape[0], L["x"], spacing variants
    except GuardError:
        raise unknown from None


def _explain(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    loaded = _read(args, args.file)
    if loaded.log is not None and (args.recompiles or (args.entry is None and loaded.entries)):
        if not args.recompiles and not (args.shape or args.sizes):
            raise GuardValueError("explain on a torch log: give the new inputs (--shape / --sizes), or --recompiles")
        args.notes.clear()  # every entry is explained: the selected-entry note does not apply

        def values_for(gs: GuardSet) -> tuple[dict[sympy.Symbol, int], dict[str, int]]:
            sub = argparse.Namespace(**{**vars(args), "notes": [], "assumed": {}})
            return _bindings(gs, sub), sub.assumed

        report, ok = explain_log(loaded, values_for, args.recompiles)
        return {"file": args.file, **report}, EXIT_OK if ok else EXIT_NO
    if args.recompiles:
        raise GuardValueError(f"--recompiles: {args.file} is not a torch log")
    gs = loaded.guards
    values = _bindings(gs, args)
    ex = explain(gs, values)
    head = f"accepted: all {len(gs)} guards hold" if ex.accepted else f"rejected: {len(ex)} of {len(gs)} guards fail"
    # a root is bound when its dim's divisibility holds (11 // 2 is not the s75 of x.size()[1] = 11)
    unbound = {f.guard.origin.split(" = ")[0].removeprefix("derived dim: ") for f in ex if (f.guard.origin or "").startswith("derived dim: ")}
    roots = {root: None if root in unbound else root_value(expr, values) for root, _, expr in loaded.roots}
    lines = [f"derived dim root {root} = {how} = {roots[root]}" for root, how, _ in loaded.roots if roots[root] is not None]
    text = "\n".join([head, *lines] + ([] if ex.accepted else [f"{one_line(f.message())}{_where(f.guard.origin)}" for f in ex]))
    return {"file": args.file, "accepted": ex.accepted, "failures": _failures_json(ex), "roots": roots, "text": text}, (
        EXIT_OK if ex.accepted else EXIT_NO
    )


def _failures_json(ex: Explanation) -> list[dict[str, Any]]:
    return [
        {
            "index": f.index,
            "guard": f.text,
            "values": dict(f.values),
            "error": f.error,
            "origin": f.guard.origin,
            "message": f.message(),
        }
        for f in ex
    ]


def _eval(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    gs = _load(args, args.file)
    values = _bindings(gs, args)
    try:
        checker = gs.compile()
        args_in_order = [values[s] for s in checker.symbols]
        first = checker.first_failure_ints(*args_in_order) if not checker.check_ints(*args_in_order) else None
    except CodegenError:  # not compilable: the slow path gives the same verdict
        failed = gs.failures(values)
        first = next(k for k, g in enumerate(gs.guards) if g in failed) if failed else None
    if first is None:
        return {"file": args.file, "accepted": True, "first_failure": None, "text": "accepted"}, EXIT_OK
    reason = explain(gs, values, first_only=True).failures[0].message()  # the same guard, in words
    report = {"file": args.file, "accepted": False, "first_failure": first, "reason": reason}
    report["text"] = f"rejected: {one_line(reason)}"
    return report, EXIT_NO


_COMMANDS: dict[str, Callable[[argparse.Namespace], tuple[dict[str, Any], int]]] = {
    "check": _check,
    "simplify": _simplify,
    "diff": _diff,
    "explain": _explain,
    "eval": _eval,
    "region": lambda args: run_region(args, _read(args, args.file)),
}

if __name__ == "__main__":
    sys.exit(main())
