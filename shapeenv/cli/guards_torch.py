"""The CLI's side of torch's own output: raw guard dumps, recompile logs, export programs; ``region``.

:func:`load` reads any guard file the ``shapeenv guards`` commands take: our guard text or
JSON, a raw ``TORCH_LOGS=guards`` (or ``recompiles``/``+dynamic``) log as torch printed it,
a ``TORCH_TRACE`` file or directory (:mod:`guards.torchlog.torch_trace`), or a printed ``torch.export``
program (:mod:`guards.torchlog.export_text`: module state taken as traced, derived-dim roots bound
from the inputs). Text that holds no guards in any of these formats is refused. A log holds one guard set per cache entry;
``--entry ID`` (torch's ``0/1``, or a 0-based position) picks one, the newest by default.
:func:`explain_log` answers "why did this recompile?" (over every entry, or from the
log's own recompile reasons) and :func:`region` "which inputs reuse this entry?".

>>> import os, tempfile
>>> log = "TREE_GUARD_MANAGER:\\n+- LAMBDA_GUARD: 2 <= L['x'].size()[0] <= 8  # conv\\n+- TYPE_MATCH: ___check_type_id(L['x'], 1)"
>>> with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
...     _ = f.write(log)
>>> loaded = load(f.name, "auto", None)
>>> str(loaded.guards), loaded.note
("2 <= L['x'].size()[0] <= 8", 'torch guard log: entry #0 of 1 (1 guard kept; skipped: 1 TYPE_MATCH)')
>>> os.unlink(f.name)
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any, Mapping

from symint.lazy_sympy import lazy_module, sympy

from symint.errors import SymIntError

from guards.errors import GuardError, GuardParseError, GuardValueError, UnknownSourceError
from guards.torchlog.export_text import looks_like_export_program, read_export_text
from guards.guardset import GuardSet, decode_guard_bytes, looks_like_torch_output, no_guards_message, read_guard_file, read_torch_output
from guards.text.parse import parse_expression, parse_source
from guards.text.values import view
from guards.runtime.region import accepts, base_point, describe_region, plot_region, progressions, region_grid, scan_dim, text_map
from guards.source import Source
from guards.torchlog.torch_check import TorchGuards, Verdict, dynamic_guard_set, explain_recompiles, pinned_values
from guards.torchlog.torch_log import TorchLog
from guards.torchlog.torch_trace import read_trace_path

_evaluate = lazy_module("symint.sympy_io.evaluate")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Loaded", "load", "read_text", "looks_like_log_file", "root_value", "assumed_values", "explain_log", "region", "input_name"]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A guard file as read: the selected guard set, and for a torch log the whole log and its entries.

    ``roots`` (export programs): each derived dim's root symbol and how it is solved from the inputs.
    """

    guards: GuardSet
    note: str | None = None
    log: TorchLog | None = None
    entries: tuple[TorchGuards, ...] = ()
    entry: str | None = None
    roots: tuple[tuple[str, str, sympy.Basic], ...] = ()


def read_text(path: str) -> str:
    """The text of ``path`` (``-``: standard input; a ``TORCH_TRACE`` directory: its trace file), refusing binary and non-UTF-8 content with a GuardParseError."""
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        return decode_guard_bytes(buffer.read(), "<stdin>") if buffer is not None else sys.stdin.read()
    return read_trace_path(path, read_guard_file)[0]


def load(path: str, dialect: str, entry: str | None, *, strict: bool = False, text: str | None = None,
         need_guards: bool = True) -> Loaded:  # fmt: skip
    """Read a guard file of any kind the CLI takes (see the module docstring).

    ``need_guards=False`` accepts a torch log that holds only recompile reasons (``explain --recompiles``).

    Raises:
        GuardParseError: malformed content, with the line (and column); a file that holds no guards in any
            format this library reads (never "0 guards, satisfiable").
        UnknownSourceError: ``entry`` names no entry of the log.
    """
    text = read_text(path) if text is None else text
    name = "<stdin>" if path == "-" else path
    if text.lstrip().startswith("{"):
        return Loaded(GuardSet.from_json(text))
    if looks_like_export_program(text):
        if entry is not None:
            raise UnknownSourceError(f"--entry {entry}: {name} is a torch.export program (one guard set), not a torch log with entries")
        e = read_export_text(text)
        roots = tuple((root, how, view(parse_expression(how, {s: src for s, src in e.sources}))) for root, how in e.roots)
        gs = GuardSet.of(e.guards, dict(e.sources))
        parts = ["torch.export program: input shapes, range constraints and asserts"]
        if e.module_state:
            parts.append(f"{len(e.module_state)} parameters/buffers as the module's sources, taken as traced")
        parts += [f"derived dim root {root} = {how}" for root, how in e.roots]
        return Loaded(gs, "; ".join(parts), roots=roots)
    if not looks_like_torch_output(text):
        if entry is not None:
            raise UnknownSourceError(f"--entry {entry}: {name} is a guard file, not a torch log with entries")
        gs = GuardSet.parse(text, dialect, origin=name)  # type: ignore[arg-type]
        if not gs.guards:
            raise GuardParseError(f"{name}: holds no guards in any format shapeenv reads (guard text, JSON, a TORCH_LOGS log, "
                                  "a TORCH_TRACE file or directory, a printed torch.export program)")  # fmt: skip
        return Loaded(gs)
    log = read_torch_output(text, strict=strict)
    kind = "torch trace" if log.stats.get("format") == "torch trace" else "torch guard log"
    if not log.entries or not any(e.guard_lines or e.structure_lines for e in log.entries):
        if log.dynamic and not log.entries:  # TORCH_LOGS=+dynamic only: torch's symbols, their ranges and the guards it added
            env = log.dynamic[-1] if entry is None else next((d for d in log.dynamic if d.compile_id == entry), None)
            if env is None:
                ids = ", ".join(d.compile_id for d in log.dynamic)
                raise UnknownSourceError(f"--entry {entry}: no create_symbol lines for that compile (the log has {ids})")
            return Loaded(dynamic_guard_set(env), f"torch +dynamic log: compile {env.compile_id} "
                          f"({len(env.symbols)} symbols, {len(env.guards)} guards added)", log)  # fmt: skip
        if log.recompiles and not need_guards:
            return Loaded(GuardSet.of(), f"{kind}: recompile reasons only (no guard tree)", log)
        raise GuardParseError(no_guards_message(log, f"{name} ({kind})"))
    entries = tuple(TorchGuards.of(e) for e in log.entries)
    chosen = _choose(entries, entry)
    e = chosen.entry
    skipped = ", ".join(f"{n} {k}" for k, n in e.skipped_counts().items()) or "none"
    values = f"; {len(e.values)} float/bool/str/None values checked on real arguments" if e.values else ""
    note = (f"{kind}: entry {e.compile_id} of {len(entries)} ({len(chosen.guards)} guard"
            f"{'s' if len(chosen.guards) != 1 else ''} kept; skipped: {skipped}{values})")  # fmt: skip
    return Loaded(chosen.guards, note, log, entries, entry)


def looks_like_log_file(path: str) -> bool:
    """Whether the file at ``path`` is a torch log or trace with entries (``--entry`` applies to it); False if unreadable."""
    try:
        text = read_text(path) if path != "-" else ""
    except (OSError, GuardError):
        return False
    return looks_like_torch_output(text) and not looks_like_export_program(text)


def root_value(expr: sympy.Basic, values: Mapping[sympy.Symbol, int]) -> int | None:
    """A derived dim's root as the inputs bind it (``x.size()[1] // 2`` with ``x.size()[1] = 10``: 5), or None."""
    try:
        return int(_evaluate.evaluate(expr, values))
    except (SymIntError, ZeroDivisionError, TypeError, ValueError):
        return None


def _choose(entries: tuple[TorchGuards, ...], entry: str | None) -> TorchGuards:
    if entry is None:
        return entries[-1]
    for e in entries:
        if e.compile_id == entry:
            return e
    if entry.lstrip("-").isdigit() and -len(entries) <= int(entry) < len(entries):
        return entries[int(entry)]
    ids = ", ".join(e.compile_id for e in entries)
    raise UnknownSourceError(f"--entry {entry}: no such entry (the log has {ids}; or give a position 0..{len(entries) - 1})")


def input_name(text: str) -> str:
    """The base of an input named on the command line: ``x``, ``L['x']``, ``xs[0]``, ``L['xs'][0]``.

    >>> input_name("L['x']"), input_name("L['xs'][0]"), input_name("x")
    ('x', 'xs[0]', 'x')
    """
    try:
        src = parse_source(text.strip())
    except GuardError:
        return text.strip()
    return src.base if src.kind == "value" else text.strip()


def assumed_values(gs: GuardSet, given: Mapping[sympy.Symbol, int]) -> dict[sympy.Symbol, int]:
    """Values assumed for sources the user did not give: TENSOR_MATCH / EQUALS_MATCH pins (parameters, module ints)."""
    return {s: v for s, v in pinned_values(gs).items() if s not in given}


# -- explain over a whole log ----------------------------------------------------------------------------


def explain_log(loaded: Loaded, values_for: Any, recompiles: bool) -> tuple[dict[str, Any], bool]:
    """"Why did this recompile?": the verdict of every entry (``values_for(gs)`` binds each), or the log's own reasons.

    Returns (the JSON-able report with a ``text`` field, whether the inputs are accepted / no recompile).
    """
    assert loaded.log is not None
    if recompiles:
        events = explain_recompiles(loaded.log)
        if not events:
            return {"recompiles": [], "text": "no recompiles in this log (run with TORCH_LOGS=recompiles)"}, True
        out = [{"function": ev.recompile.function, "where": ev.recompile.where, "entry": ev.recompile.compile_id,
                "reasons": [{"entry": cid, "reason": text, "line": line} for cid, text, line in ev.reasons]}
               for ev in events]  # fmt: skip
        return {"recompiles": out, "text": "\n".join(str(ev) for ev in events)}, False
    verdicts: list[Verdict] = []
    assumed_all: dict[str, int] = {}
    for e in loaded.entries:
        values, assumed = values_for(e.guards)
        assumed_all.update(assumed)
        verdicts.append(e.explain_values(values))
    reused = next((v.compile_id for v in reversed(verdicts) if v.accepted), None)
    if reused is not None:
        head = f"reused: entry {reused} accepts these inputs (torch checks the newest entry first)"
    else:
        head = f"recompile: none of the {len(verdicts)} entries accepts these inputs"
    lines = [head]
    for v in reversed(verdicts):
        if v.accepted or len(v.reasons) <= 1:
            lines.append(f"  {v}")
        else:
            lines.append(f"  rejected by entry {v.compile_id}:")
            lines += [f"    - {r}" for r in v.reasons]
    if assumed_all:
        lines.append(f"assumed as traced (not given): {len(assumed_all)} module parameter sizes, strides and ints")
    report = {
        "reused": reused,
        "entries": [{"entry": v.compile_id, "accepted": v.accepted, "reasons": list(v.reasons)} for v in verdicts],
        "assumed": assumed_all,
        "text": "\n".join(lines),
    }
    return report, reused is not None


# -- region ------------------------------------------------------------------------------------------------


def _dim(gs: GuardSet, text: str) -> Source:
    try:
        src = parse_source(text)
    except GuardError as exc:
        raise UnknownSourceError(f"--over {text!r}: not a source ({exc})") from None
    if src not in gs.source_map.values():
        known = ", ".join(s.torch_text() for s in describe_region(gs).free)
        raise UnknownSourceError(f"--over {text!r}: the guards do not read it (free dims: {known or 'none'})")
    return src


def region(gs: GuardSet, over: list[str], lo: int, hi: int, plot: str | None) -> tuple[dict[str, Any], int]:
    """The ``region`` command's report: ranges, pins, relations, divisibility, each free dim's accepted values, a map."""
    r = describe_region(gs)
    window = range(lo, hi + 1)
    base = base_point(gs, None, window)  # no solver: the same point every run
    found = accepts(gs, base)
    if not found:  # coupled dims (a derived dim and its uses): start from the solver's witness, deterministic under rlimit
        sat = gs.is_satisfiable()
        if sat.witness and all(lo <= v <= hi for v in sat.witness.values() if isinstance(v, int)):
            base = base_point(gs, dict(sat.witness), window)
            found = accepts(gs, base)
    lines = [f"{len(gs)} guards over {len(gs.sources)} sources", *r.lines()]
    scans: dict[str, list[int]] = {}
    if not found:
        sat = gs.is_satisfiable()
        lines.append(f"no accepted input found with every free dim in {lo}..{hi} (satisfiable: {sat.verdict.value}"
                     + (f", e.g. {', '.join(f'{k} = {v}' for k, v in sat.witness.items())})" if sat.witness else ")"))  # fmt: skip
    else:
        lines.append(f"accepted values of each free dim in {lo}..{hi}, the others as in {_point_text(base, r.free)}:")
        for d in r.free:
            scans[d.text()] = scan_dim(gs, d, window, base)
            lines.append(f"  {d.torch_text()}: {progressions(scans[d.text()])}")
    dims = [_dim(gs, t) for t in over] if over else list(r.free[:2])
    report: dict[str, Any] = {
        "ranges": {k: list(v) for k, v in r.ranges.items()},
        "pinned": r.pinned,
        "divisibility": r.divisibility,
        "relations": r.relations,
        "strides": r.strides,
        "other": r.other,
        "free": [s.text() for s in r.free],
        "accepted": scans,
        "base": {s.text(): v for s, v in base.items()},
    }
    if found and len(dims) == 2:
        grid = region_grid(gs, dims[0], dims[1], window, window, base)
        lines.append(text_map(grid, list(window), list(window), dims[0].text(), dims[1].text()))
        report["map"] = {"x": dims[0].text(), "y": dims[1].text(), "values": [lo, hi], "grid": grid}
    if plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
        except ImportError:
            raise GuardError("--plot needs matplotlib (pip install matplotlib); the text map above needs nothing") from None
        ax = plot_region(gs, dims[0], dims[1] if len(dims) > 1 else None, xs=window, ys=window, base=base)
        ax.figure.savefig(plot, dpi=100, bbox_inches="tight")
        lines.append(f"plot written to {plot}")
        report["plot"] = plot
    report["text"] = "\n".join(lines)
    return report, 0 if found else 1


def _point_text(base: Mapping[Source, int], free: tuple[Source, ...]) -> str:
    return ", ".join(f"{s.text()}={base[s]}" for s in free if s in base) or "the witness"


def add_region_command(sub: Any, common: Any) -> None:
    """Add ``region`` to the ``guards`` subcommands (``common(name, help)`` adds FILE, --json, --entry)."""
    p = common("region", "which inputs reuse this entry: per-dim ranges, relations, divisibility, a map or plot")
    p.add_argument("--over", nargs="+", default=[], metavar="SOURCE", help="one or two free dims to map (default: the first two)")
    p.add_argument("--range", dest="window", default="0:40", metavar="LO:HI", help="values scanned per dim (default 0:40)")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the map with matplotlib (optional dependency)")


def run_region(args: argparse.Namespace, loaded: Loaded) -> tuple[dict[str, Any], int]:
    """Run ``region`` on an already loaded file."""
    lo_text, sep, hi_text = args.window.partition(":")
    try:
        lo, hi = int(lo_text), int(hi_text)
    except ValueError:
        raise GuardValueError(f"--range expects LO:HI (two integers), got {args.window!r}") from None
    if not sep or lo > hi or hi - lo > 400:
        raise GuardValueError(f"--range {args.window}: need LO <= HI and at most 400 values")
    return region(loaded.guards, args.over, lo, hi, args.plot)
