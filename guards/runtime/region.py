"""Which inputs reuse a cache entry? The region a guard set accepts, in words and as a map.

:func:`describe_region` sorts a guard set's conditions into what a reader asks first:
per-dim ranges (``2 <= x.size()[0] <= 15``), pinned values (``x.size()[1] == 3``),
relations between dims (``y.size()[0] == x.size()[0]``), divisibility in words
("x.size()[2] is a multiple of 4") and strides. The sizes that can still vary are the
*free dims*: not pinned, not equal to an earlier dim, not a stride. :func:`scan_dim`
and :func:`region_grid` evaluate the guard set over one or two free dims, the others
held at a base point, with contiguous strides derived from the sizes (the layout of a
freshly allocated tensor); :func:`progressions` puts a scan's accepted values in words
("4, 8, ..., 64: every 4th"), which is how divisibility written through ``//``
(``(h % (h // 4)) == 0``) still reads as "a multiple of 4".

>>> from guards.guardset import GuardSet
>>> gs = GuardSet.parse("2 <= L['x'].size()[0] <= 15\\nL['x'].size()[1] == 3\\n(L['x'].size()[2] % 4) == 0\\nL['y'].size()[0] == L['x'].size()[0]")
>>> r = describe_region(gs)
>>> r.ranges, r.pinned, r.divisibility, r.relations
({'x.size()[0]': (2, 15)}, {'x.size()[1]': 3}, ['x.size()[2] is a multiple of 4'], ['y.size()[0] == x.size()[0]'])
>>> [s.text() for s in r.free]
['x.size()[0]', 'x.size()[2]']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from symint.lazy_sympy import lazy_module, sympy

from symint.form import BoolForm, Form
from symint.form.evaluate import evaluate_form

from guards.errors import UnknownSourceError
from guards.guard import view_symbol
from guards.guardset import GuardSet
from guards.text.printers import to_source_text
from guards.source import Source

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Region", "describe_region", "base_point", "accepts", "scan_dim", "region_grid", "progressions", "text_map", "plot_region"]


@dataclass(frozen=True, slots=True)
class Region:
    """A guard set's conditions, sorted for reading (sources in our dialect).

    Attributes:
        ranges: dim -> (low, high) from single-dim bounds (high None for no bound).
        pinned: dim -> the one value it must have.
        divisibility: conditions of the form ``d % k == 0`` / ``!= 0``, in words.
        relations: conditions between dims (equalities first), as guard text.
        strides: conditions on strides and storage offsets, as guard text.
        other: single-dim conditions that are none of the above (``d != 1``, ``d // 2 + 1 == 8``).
        free: the size (or int) sources that can vary independently.
    """

    ranges: dict[str, tuple[int, int | None]]
    pinned: dict[str, int]
    divisibility: list[str]
    relations: list[str]
    strides: list[str]
    other: list[str]
    free: tuple[Source, ...]

    def lines(self) -> list[str]:
        """The description as text lines."""
        out = []
        for name, (lo, hi) in self.ranges.items():
            out.append(f"  {name}: {lo} <= ... " + (f"<= {hi}" if hi is not None else "(no upper bound)"))
        module = [name for name in self.pinned if _is_module(name)]
        out += [f"  {name} == {v}" for name, v in self.pinned.items() if name not in module]
        if module:
            out.append(f"  ... and {len(module)} sizes, strides and ints of the module and globals, as traced")
        strides = [t for t in self.strides if not _is_module(t)]
        sections = (("divisibility", self.divisibility), ("relations", self.relations), ("strides", strides), ("other conditions", self.other))
        for title, items in sections:
            if items:
                out.append(f"{title}:")
                out += [f"  {t}" for t in items[:12]]
                if len(items) > 12:
                    out.append(f"  ... and {len(items) - 12} more")
        out.append("free dims: " + (", ".join(s.text() for s in self.free) or "none (a single input shape)"))
        return ["ranges:"] + out if self.ranges or self.pinned else out


def _is_module(text: str) -> bool:
    """A condition on the module's parameters or attributes, or on a global (shown summarised)."""
    return text.startswith(("self.", "self[", "L['self']", "G["))


# Note [The region reads forms]
#     Every condition is read from the guard's boolean form: its top-level ``and`` split
#     into conjuncts, each relation read from its written sides (``rel`` keeps them as
#     written, as the sympy view does), values computed by the forms' evaluator from
#     symbol names. No sympy view is built, but to print a condition guard text cannot spell.


def _conjuncts(e: BoolForm):
    if e.kind == "and":
        for a in e.args:
            yield from _conjuncts(a)
    else:
        yield e


def _symbol_name(f: Form) -> str | None:
    """The name of the symbol ``f`` is, when ``f`` is exactly one symbol."""
    atom = f.atom()
    return atom.name if atom is not None and atom.kind == "sym" else None


_FLIPPED = {">=": "<=", ">": "<", "<=": ">=", "<": ">"}
_BOUNDS = {">=": ("ge", 0), ">": ("ge", 1), "<=": ("le", 0), "<": ("le", -1)}


def _single_bound(e: BoolForm, name: str) -> tuple[str, int] | None:
    """``s >= c`` -> ("ge", c), ``s <= c`` -> ("le", c), ``s == c`` -> ("eq", c) (also ``<``, ``>``, flipped)."""
    if e.kind != "rel" or e.args[0] not in ("==", ">=", ">", "<=", "<"):
        return None
    op, lhs, rhs = e.args
    flip = False
    if _symbol_name(lhs) != name:
        lhs, rhs, flip = rhs, lhs, True
    if _symbol_name(lhs) != name or not rhs.is_const:
        return None
    c = rhs.const
    if op == "==":
        return ("eq", c)
    kind, shift = _BOUNDS[_FLIPPED[op] if flip else op]
    return (kind, c + shift)


def _mod_test(e: BoolForm):
    """The modulo atom of ``e`` when ``e`` is ``a % b == rhs`` or ``a % b != rhs``, else None."""
    if e.kind == "rel" and e.args[0] in ("==", "!="):
        atom = e.args[1].atom()
        if atom is not None and atom.kind == "mod":
            return atom
    return None


def _divisibility(e: BoolForm, text: str) -> str | None:
    mod = _mod_test(e)
    op, _, rhs = e.args
    if rhs.is_const and rhs.const == 0 and mod.args[1].is_const:
        return f"{text} is {'' if op == '==' else 'not '}a multiple of {mod.args[1].const}"
    return None


def describe_region(gs: GuardSet) -> Region:
    """Sort ``gs``'s conditions into ranges, pinned values, divisibility, relations and strides (see the module docstring)."""
    sources = gs.source_map
    lo: dict[sympy.Symbol, int] = {}
    hi: dict[sympy.Symbol, int] = {}
    pinned: dict[sympy.Symbol, int] = {}
    divisibility, relations, strides, other = [], [], [], []
    followers: set[sympy.Symbol] = set()
    by_name = {sym.name: src for sym, src in gs.sources}
    for g in gs.guards:
        for e in _conjuncts(g.form):  # Note [The region reads forms]
            names = sorted(e.symbols)
            syms = [view_symbol(n) for n in names]
            text = _text(e, sources)
            if any(by_name.get(n) is not None and by_name[n].kind in ("stride", "storage_offset") for n in names):
                strides.append(text)
                continue
            if len(syms) == 1:
                bound = _single_bound(e, names[0])
                mod = _mod_test(e) if bound is None else None
                words = _divisibility(e, _text(mod.args[0], sources)) if mod is not None else None
                if bound is None and words is None:
                    other.append(text)
                elif words is not None:
                    divisibility.append(words)
                elif bound[0] == "eq":
                    pinned[syms[0]] = bound[1]
                elif bound[0] == "ge":
                    lo[syms[0]] = max(lo.get(syms[0], bound[1]), bound[1])
                else:
                    hi[syms[0]] = min(hi.get(syms[0], bound[1]), bound[1])
                continue
            pair = _symbol_equality(e)
            if pair is not None:
                later = max(map(view_symbol, pair), key=lambda s: _order(s, gs))
                followers.add(later)
                relations.insert(sum(1 for r in relations if " == " in r and "*" not in r), text)
                continue
            relations.append(text)
    floor = {s: 0 for s, src in gs.sources if src.is_size_like}
    ranged = sorted(set(lo) | set(hi), key=lambda s: _order(s, gs))
    ranges = {_text(s, sources): (lo.get(s, floor.get(s, -math.inf)), hi.get(s)) for s in ranged if s not in pinned}
    free = tuple(
        src for s, src in sorted(gs.sources, key=lambda kv: _order(kv[0], gs))
        if src.kind in ("size", "value") and s not in pinned and s not in followers and s in _read_symbols(gs)
    )  # fmt: skip
    return Region(ranges, {_text(s, sources): v for s, v in sorted(pinned.items(), key=lambda kv: _order(kv[0], gs))},
                  divisibility, relations, strides, other, free)  # fmt: skip


def _symbol_equality(e: BoolForm) -> tuple[str, str] | None:
    """The two names when ``e`` is ``a == b`` between two symbols, else None."""
    if e.kind == "rel" and e.args[0] == "==":
        a, b = _symbol_name(e.args[1]), _symbol_name(e.args[2])
        if a is not None and b is not None:
            return a, b
    return None


def _read_symbols(gs: GuardSet) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    for g in gs.guards:
        out |= g.free_symbols
    return out


def _order(sym: sympy.Symbol, gs: GuardSet) -> tuple:
    """Sources in reading order: by input, then dim (so x.size()[0] before x.size()[2])."""
    src = gs.source_map.get(sym)
    return (0, src.base, src.kind, src.index or 0) if src else (1, sym.name, "", 0)


def _text(e: "BoolForm | Form | sympy.Symbol", sources) -> str:
    try:
        return to_source_text(e, sources)
    except Exception:  # noqa: BLE001 -- an expression with no guard syntax prints as sympy
        return str(e if isinstance(e, sympy.Basic) else _io.to_sympy(e))


def base_point(gs: GuardSet, witness: Mapping[str, int] | None = None, window: Sequence[int] = range(0, 65)) -> dict[Source, int]:
    """An accepted value for every size and int source, if one is found; the point other dims are held at.

    Starts from ``witness`` (source text -> int, e.g. a satisfiability witness), pins and
    lower bounds (at least 2); if ``gs`` rejects that point, each free dim in turn moves to
    the value of ``window`` that leaves the fewest guards failing (a few rounds; no solver,
    so the same point every time). Strides and offsets come from the witness when it has
    them; :func:`scan_dim` re-derives those that a guard defines from the sizes.

    >>> gs = GuardSet.parse("(L['h'].size()[0] % 8) == 0\\n(L['w'].size()[0] % 8) == 0")
    >>> {s.text(): v for s, v in base_point(gs).items()}
    {'h.size()[0]': 8, 'w.size()[0]': 8}
    """
    region = describe_region(gs)
    sources = gs.source_map
    point: dict[Source, int] = {}
    for sym, src in gs.sources:
        text = _text(sym, sources)
        if witness and src.text() in witness:
            point[src] = int(witness[src.text()])
        elif text in region.pinned:
            point[src] = region.pinned[text]
        elif src.kind in ("stride", "storage_offset"):
            continue
        else:
            point[src] = max(region.ranges.get(text, (2, None))[0], 2) if text in region.ranges else 2
    reading = _Reading.of(gs)
    for _ in range(3):
        if _failing(reading, point) == 0:
            break
        for dim in region.free:
            best, best_fail = point[dim], _failing(reading, point)
            for v in sorted(window, key=lambda v: (v < 2, v)):  # sizes 0 and 1 last: torch specialises them
                trial = dict(point)
                trial[dim] = v
                _follow(reading, trial, dim)
                fail = _failing(reading, trial)
                if fail < best_fail:
                    best, best_fail = v, fail
            point[dim] = best
            _follow(reading, point, dim)
    return point


@dataclass(frozen=True, slots=True)
class _Reading:
    """What evaluating a guard set at points reads of it, found once per call (Note [The region reads forms]).

    Attributes:
        gs: the guard set.
        equalities: ``(a, b)`` for each conjunct ``a == b`` between two symbols, in guard order.
        definitions: ``(name, form)`` for each guard ``name == form`` (how a stride is defined).
        source_of: symbol name -> source.
        name_of: source -> symbol name.
    """

    gs: GuardSet
    equalities: tuple[tuple[str, str], ...]
    definitions: tuple[tuple[str, Form], ...]
    source_of: dict[str, Source]
    name_of: dict[Source, str]

    @classmethod
    def of(cls, gs: GuardSet) -> "_Reading":
        equalities = tuple(pair for g in gs.guards for e in _conjuncts(g.form) if (pair := _symbol_equality(e)))
        definitions = []
        for g in gs.guards:
            e = g.form
            if e.kind == "rel" and e.args[0] == "==":
                lhs = _symbol_name(e.args[1])
                if lhs is not None:
                    definitions.append((lhs, e.args[2]))
        return cls(gs, equalities, tuple(definitions), {sym.name: src for sym, src in gs.sources},
                   {src: sym.name for sym, src in gs.sources})  # fmt: skip


def _failing(reading: _Reading, point: Mapping[Source, int]) -> int:
    values = _values(reading, point)
    failed = 0
    for g in reading.gs.guards:
        try:
            failed += not g.form.evaluate(values)
        except (ArithmeticError, ValueError):
            failed += 1
    return failed


def _values(reading: _Reading, point: Mapping[Source, int]) -> dict[str, int]:
    """Symbol values (by name) at ``point``; strides and offsets missing from it are those of a contiguous tensor,
    then every ``stride == expression`` guard sets its stride from the sizes (a transposed or sliced layout)."""
    sizes: dict[str, dict[int, int]] = {}
    for src, v in point.items():
        if src.kind == "size":
            sizes.setdefault(src.base, {})[src.index] = v  # type: ignore[index]
    values: dict[str, int] = {}
    layout: set[str] = set()
    for sym, src in reading.gs.sources:
        name = sym.name
        if src.kind in ("stride", "storage_offset"):
            layout.add(name)
        if src in point:
            values[name] = point[src]
        elif src.kind == "stride":
            dims = sizes.get(src.base, {})
            step = 1
            for d in range(max(dims, default=-1), src.index, -1):  # type: ignore[arg-type]
                step *= max(dims.get(d, 1), 1)
            values[name] = step
        elif src.kind == "storage_offset":
            values[name] = 0
    for _ in range(3):  # strides defined through other strides settle in a few passes
        for lhs, rhs in reading.definitions:
            if lhs in layout and lhs in values:
                try:
                    values[lhs] = int(evaluate_form(rhs, values))
                except (ArithmeticError, ValueError, KeyError, TypeError):
                    pass
    return values


def accepts(gs: GuardSet, point: Mapping[Source, int]) -> bool:
    """Whether ``gs`` accepts ``point`` (sizes and ints; strides as :func:`scan_dim` derives them)."""
    return _accepts(_Reading.of(gs), point)


def _accepts(reading: _Reading, point: Mapping[Source, int]) -> bool:
    values = _values(reading, point)
    for g in reading.gs.guards:
        try:
            if not g.form.evaluate(values):
                return False
        except (ArithmeticError, ValueError):
            return False
    return True


def _follow(reading: _Reading, point: dict[Source, int], changed: Source) -> None:
    """Dims equal to ``changed`` (``y.size()[0] == x.size()[0]``) move with it."""
    me = reading.name_of[changed]
    for pair in reading.equalities:
        if me in pair:
            other = reading.source_of.get(pair[1] if pair[0] == me else pair[0])
            if (other is not None and other.kind in ("size", "value") and other != changed
                    and point.get(other) != point[changed]):  # fmt: skip
                point[other] = point[changed]
                _follow(reading, point, other)


def scan_dim(gs: GuardSet, dim: Source, values: Sequence[int], base: Mapping[Source, int]) -> list[int]:
    """The values of ``dim`` (among ``values``) that ``gs`` accepts, other dims at ``base``.

    >>> gs = GuardSet.parse("(L['x'].size()[0] % 4) == 0\\nL['x'].stride()[0] == L['x'].size()[1]")
    >>> x0 = Source.size("x", 0)
    >>> scan_dim(gs, x0, range(1, 13), base_point(gs))
    [4, 8, 12]
    """
    if dim not in base and dim not in dict(gs.sources).values():
        raise UnknownSourceError(f"{dim.text()} is not a source of this guard set")
    reading = _Reading.of(gs)
    out = []
    for v in values:
        point = dict(base)
        point[dim] = v
        _follow(reading, point, dim)
        if _accepts(reading, point):
            out.append(v)
    return out


def region_grid(gs: GuardSet, xdim: Source, ydim: Source, xs: Sequence[int], ys: Sequence[int], base: Mapping[Source, int]) -> list[list[bool]]:
    """``grid[j][i]``: whether ``gs`` accepts ``xdim = xs[i]``, ``ydim = ys[j]``, other dims at ``base``.

    >>> gs = GuardSet.parse("L['x'].size()[0] < L['x'].size()[1]")
    >>> x0, x1 = Source.size("x", 0), Source.size("x", 1)
    >>> region_grid(gs, x0, x1, [1, 2, 3], [1, 2, 3], base_point(gs))
    [[False, False, False], [True, False, False], [True, True, False]]
    """
    reading = _Reading.of(gs)
    grid = []
    for y in ys:
        row = []
        for x in xs:
            point = dict(base)
            point[xdim] = x
            _follow(reading, point, xdim)
            point[ydim] = y
            _follow(reading, point, ydim)
            row.append(_accepts(reading, point))
        grid.append(row)
    return grid


def progressions(values: Sequence[int]) -> str:
    """Accepted values in words: runs (``2..15``) and arithmetic progressions (``4, 8, ..., 64: every 4th``).

    >>> progressions([2, 3, 4, 5]), progressions([4, 8, 12, 16]), progressions([3, 7, 9]), progressions([])
    ('2..5', '4, 8, ..., 16 (every 4th)', '3, 7, 9', 'none')
    """
    if not values:
        return "none"
    vs = sorted(values)
    if len(vs) >= 3:
        step = vs[1] - vs[0]
        if all(b - a == step for a, b in zip(vs, vs[1:])):
            return f"{vs[0]}..{vs[-1]}" if step == 1 else f"{vs[0]}, {vs[1]}, ..., {vs[-1]} (every {step}th)"
    runs, start = [], vs[0]
    for a, b in zip(vs, vs[1:] + [None]):  # type: ignore[operator]
        if b is None or b != a + 1:
            runs.append(f"{start}..{a}" if a > start + 1 else ", ".join(str(x) for x in range(start, a + 1)))
            start = b  # type: ignore[assignment]
    return ", ".join(runs)


def text_map(grid: Sequence[Sequence[bool]], xs: Sequence[int], ys: Sequence[int], xname: str, yname: str) -> str:
    """An ASCII map of :func:`region_grid`: ``#`` accepted, ``.`` rejected; ``ys`` upwards.

    >>> print(text_map([[False, True], [True, True]], [1, 2], [1, 2], "x", "y"))
    y 2 |##
      1 |.#
        +--
         x: 1..2
    """
    width = max(len(str(y)) for y in ys)
    rows = []
    for j in range(len(ys) - 1, -1, -1):
        label = f"{yname} " if j == len(ys) - 1 else " " * (len(yname) + 1)
        rows.append(f"{label}{ys[j]:>{width}} |" + "".join("#" if ok else "." for ok in grid[j]))
    pad = " " * (len(yname) + 1 + width + 1)
    rows.append(pad + "+" + "-" * len(xs))
    rows.append(pad + f" {xname}: {xs[0]}..{xs[-1]}")
    return "\n".join(rows)


def plot_region(gs: GuardSet, xdim: Source, ydim: Source | None = None, *, xs: Sequence[int] = range(0, 65),
                ys: Sequence[int] = range(0, 65), base: Mapping[Source, int] | None = None, ax=None):  # fmt: skip
    """Plot which values of one or two free dims ``gs`` accepts (matplotlib; other dims at ``base``).

    Returns the matplotlib Axes. Needs matplotlib (``pip install matplotlib``); :func:`text_map`
    draws the same map without it.
    """
    import matplotlib.pyplot as plt  # optional dependency, only for plotting

    base = dict(base) if base is not None else base_point(gs)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4 if ydim is not None else 1.6))
    if ydim is None:
        ok = set(scan_dim(gs, xdim, xs, base))
        ax.scatter([x for x in xs if x in ok], [0] * len(ok), marker="s", color="tab:blue", label="reused")
        ax.scatter([x for x in xs if x not in ok], [0] * (len(xs) - len(ok)), marker="x", color="tab:orange", label="recompiles")
        ax.set_yticks([])
        ax.legend(loc="upper right", fontsize="small")
    else:
        grid = region_grid(gs, xdim, ydim, xs, ys, base)
        from matplotlib.colors import ListedColormap
        from matplotlib.patches import Patch

        # Colour-blind safe: blue (reused) / orange (recompiles), and the recompiling cells hatched.
        cells = [[1 if ok else 0 for ok in row] for row in grid]
        ax.imshow(cells, origin="lower", cmap=ListedColormap(["tab:orange", "tab:blue"]), vmin=0, vmax=1,
                  extent=(xs[0] - 0.5, xs[-1] + 0.5, ys[0] - 0.5, ys[-1] + 0.5), aspect="auto")  # fmt: skip
        ax.contourf(list(xs), list(ys), cells, levels=[-0.5, 0.5], colors="none", hatches=["xx"])
        ax.legend(handles=[Patch(facecolor="tab:blue", label="reused"),
                           Patch(facecolor="tab:orange", hatch="xx", label="recompiles")],
                  loc="upper right", fontsize="small")  # fmt: skip
        ax.set_ylabel(ydim.torch_text())
    ax.set_xlabel(xdim.torch_text())
    ax.set_title("inputs that reuse this entry (blue)")
    return ax
