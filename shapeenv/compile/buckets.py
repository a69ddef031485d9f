"""The bucketing planner: from observed sizes, the pad-to sizes that minimise recompiles plus padding waste.

A *bucket plan* for one input dim is a sorted list of pad-to sizes ``b_1 < ... < b_k``:
a call of size ``s`` is padded to the smallest ``b_i >= s`` and served by the (static)
entry compiled for ``b_i``. Each bucket is one compilation; padding wastes ``b_i - s``
rows of work. For observed sizes with counts ``n_s``, the plan minimises

    cost = recompile_cost * k + waste_cost * sum_s n_s * (b(s) - s)

(``k`` is the number of entries, i.e. the compilations a stream with these sizes costs;
``waste_cost`` is the cost of one padded row relative to ``recompile_cost``). With
``multiple_of=m`` pad-to sizes are multiples of ``m``; with ``max_buckets`` at most that
many buckets. Sizes above the largest observed one are not covered (they compile anew).

Note [An exact planner]
    Some optimal plan uses only *candidate* tops, ``round_up(s, m)`` for observed sizes
    ``s``: lowering a bucket's top to the largest candidate it serves only removes
    waste. So the sizes are grouped by candidate (``c_1 < ... < c_n`` with weights
    ``w_j``), and a bucket is a run of consecutive groups ``i+1..j`` topped by ``c_j``,
    with waste ``W(i, j) = sum_{t=i+1..j} w_t (c_j - c_t) + base_t`` (``base_t``: the
    waste of rounding group t's sizes up to ``c_t``), O(1) from prefix sums. The
    optimum is the dynamic programme ``F(j) = min_i F(i) + recompile_cost +
    waste_cost * W(i, j)``, O(n^2) over the sorted distinct candidates. For a fixed
    number of buckets (``max_buckets``, and the cost curve) the layered programme
    ``F_k(j) = min_i F_{k-1}(i) + W(i, j)`` is solved by divide and conquer on the
    optimal split, which is exact because ``W`` satisfies the quadrangle inequality:
    ``W(i, j') + W(i', j) - W(i, j) - W(i', j') = (c_j' - c_j)(S_i' - S_i) >= 0``
    for ``i <= i' <= j <= j'`` (``S``: prefix sums of weights). The tests compare both
    with brute force over every subset of candidates.

Each bucket also gets its guard set: the raw sizes it serves, ``prev < x.size()[0] <= top``.

>>> plan = plan_dim(Source.size("x", 0), {3: 10, 4: 10, 5: 1, 31: 2, 32: 5}, recompile_cost=25)
>>> plan.tops, plan.recompiles, plan.waste
((5, 32), 2, 32)
>>> print(plan.guards(0).to_text("source"))
x.size()[0] <= 5
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from guards import Guard, GuardSet, Source
from guards.runtime.cache import pinned_sources
from guards.errors import GuardError
from guards.text.parse import parse_source
from symint import build
from symint import form as F

from shapeenv.errors import ShapeEnvError

__all__ = [
    "DimPlan",
    "BucketPlan",
    "Bucket",
    "plan_dim",
    "plan_buckets",
    "optimal_tops",
    "cost_curve",
    "sizes_from_cache_info",
    "read_size_log",
    "PlannerError",
]


class PlannerError(ShapeEnvError, ValueError):
    """Bad input to the planner (no sizes, negative sizes or costs, an unreadable log line)."""


@dataclass(frozen=True, slots=True)
class _Groups:
    tops: tuple[int, ...]  # candidate tops, ascending
    weight: tuple[int, ...]  # prefix sums of counts (len n + 1)
    cweight: tuple[int, ...]  # prefix sums of count * top
    base: tuple[int, ...]  # prefix sums of rounding waste

    def waste(self, i: int, j: int) -> int:
        """Waste of one bucket over groups i+1..j (0-based prefix indices), topped by tops[j-1]."""
        top = self.tops[j - 1]
        return top * (self.weight[j] - self.weight[i]) - (self.cweight[j] - self.cweight[i]) + (self.base[j] - self.base[i])


def _round_up(s: int, m: int) -> int:
    return -(-s // m) * m


MAX_SIZE = 2**63 - 1
"""The largest size (and call count) the planner takes: torch's sizes are int64. Costs are floats,
so a size of hundreds of digits would overflow them; such input is a PlannerError, not a crash."""


def _short(n: int) -> str:
    """``n`` in words short enough for an error message.

    >>> _short(12), _short(10**400)
    ('12', 'a 401-digit number')
    """
    text = str(n) if n < 10**30 else ""
    return text or f"a {len(str(n))}-digit number"


def _groups(counts: Mapping[int, int], multiple_of: int) -> _Groups:
    grouped: dict[int, list[int]] = {}
    for s, n in counts.items():
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise PlannerError(f"sizes must be ints >= 0, got {s!r}")
        if s > MAX_SIZE:
            raise PlannerError(f"size {_short(s)} is larger than any tensor dim (at most 2**63 - 1)")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise PlannerError(f"counts must be ints >= 0, got {n!r} for size {s}")
        if n > MAX_SIZE:
            raise PlannerError(f"count {_short(n)} for size {s} is larger than 2**63 - 1")
        if n:
            grouped.setdefault(_round_up(s, multiple_of), []).append(s)
    if not grouped:
        raise PlannerError("no sizes observed: give at least one size with a positive count")
    tops = tuple(sorted(grouped))
    weight, cweight, base = [0], [0], [0]
    for c in tops:
        w = sum(counts[s] for s in grouped[c])
        weight.append(weight[-1] + w)
        cweight.append(cweight[-1] + w * c)
        base.append(base[-1] + sum(counts[s] * (c - s) for s in grouped[c]))
    return _Groups(tops, tuple(weight), tuple(cweight), tuple(base))


def _check_costs(recompile_cost: float, waste_cost: float, multiple_of: int) -> None:
    for name, v in (("recompile_cost", recompile_cost), ("waste_cost", waste_cost)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise PlannerError(f"{name} must be a finite number >= 0, got {v!r}")
    if isinstance(multiple_of, bool) or not isinstance(multiple_of, int) or not 1 <= multiple_of <= MAX_SIZE:
        raise PlannerError(f"multiple_of must be an int >= 1, got {multiple_of!r}")


def _unconstrained(g: _Groups, recompile_cost: float, waste_cost: float) -> list[int]:
    """End indices (1-based prefix) of the buckets of the O(n^2) programme of Note [An exact planner]."""
    n = len(g.tops)
    best = [0.0] + [math.inf] * n
    count = [0] + [0] * n
    split = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            c = best[i] + recompile_cost + waste_cost * g.waste(i, j)
            if c < best[j] or (c == best[j] and count[i] + 1 < count[j]):  # ties: fewer buckets
                best[j], count[j], split[j] = c, count[i] + 1, i
    return _ends(split, n)


def _ends(split: list[int], n: int) -> list[int]:
    ends, j = [], n
    while j > 0:
        ends.append(j)
        j = split[j]
    return ends[::-1]


def _layers(g: _Groups, k_max: int) -> list[tuple[list[float], list[int]]]:
    """``(F_k, split_k)`` for k = 1..k_max (Note [An exact planner], divide and conquer on the split)."""
    n = len(g.tops)
    prev = [0.0] + [math.inf] * n
    out = []
    for k in range(1, k_max + 1):
        cur = [math.inf] * (n + 1)
        split = [0] * (n + 1)

        def solve(lo: int, hi: int, opt_lo: int, opt_hi: int) -> None:
            if lo > hi:
                return
            mid = (lo + hi) // 2
            best, arg = math.inf, opt_lo
            for i in range(opt_lo, min(mid - 1, opt_hi) + 1):
                c = prev[i] + g.waste(i, mid)
                if c < best:
                    best, arg = c, i
            cur[mid], split[mid] = best, arg
            solve(lo, mid - 1, opt_lo, arg)
            solve(mid + 1, hi, arg, opt_hi)

        solve(k, n, k - 1, n - 1)
        out.append((cur, split))
        prev = cur
    return out


def _ends_k(layers: list[tuple[list[float], list[int]]], k: int, n: int) -> list[int]:
    ends, j = [], n
    for layer in range(k - 1, -1, -1):
        ends.append(j)
        j = layers[layer][1][j]
    return ends[::-1]


def optimal_tops(counts: Mapping[int, int], *, recompile_cost: float = 100.0, waste_cost: float = 1.0,
                 max_buckets: int | None = None, multiple_of: int = 1) -> tuple[int, ...]:
    """The pad-to sizes of an optimal plan for one dim (see the module docstring).

    Args:
        counts: observed size -> how many calls had it.
        recompile_cost: the cost of one compilation, in padded rows.
        waste_cost: the cost of one padded row.
        max_buckets: at most this many buckets (None: no limit).
        multiple_of: pad-to sizes are multiples of this.

    Raises:
        PlannerError: no sizes, a negative size, count or cost.

    >>> optimal_tops({1: 5, 2: 5, 100: 1}, recompile_cost=10)
    (2, 100)
    >>> optimal_tops({1: 5, 2: 5, 100: 1}, recompile_cost=10, max_buckets=1)
    (100,)
    """
    _check_costs(recompile_cost, waste_cost, multiple_of)
    g = _groups(counts, multiple_of)
    n = len(g.tops)
    if max_buckets is not None:
        if isinstance(max_buckets, bool) or not isinstance(max_buckets, int) or max_buckets < 1:
            raise PlannerError(f"max_buckets must be an int >= 1, got {max_buckets!r}")
        if max_buckets < n:
            layers = _layers(g, max_buckets)
            totals = [(recompile_cost * k + waste_cost * layers[k - 1][0][n], k) for k in range(1, max_buckets + 1)]
            _, k = min(totals)
            return tuple(g.tops[j - 1] for j in _ends_k(layers, k, n))
    return tuple(g.tops[j - 1] for j in _unconstrained(g, recompile_cost, waste_cost))


def cost_curve(counts: Mapping[int, int], *, recompile_cost: float = 100.0, waste_cost: float = 1.0,
               multiple_of: int = 1, k_max: int = 64) -> tuple[tuple[int, int, float], ...]:
    """``(k, least waste with k buckets, total cost)`` for k = 1 .. min(k_max, distinct candidates).

    >>> [(k, w) for k, w, _ in cost_curve({2: 1, 4: 1, 8: 1}, recompile_cost=1)]
    [(1, 10), (2, 2), (3, 0)]
    """
    _check_costs(recompile_cost, waste_cost, multiple_of)
    g = _groups(counts, multiple_of)
    n = len(g.tops)
    layers = _layers(g, min(k_max, n))
    return tuple((k, int(layers[k - 1][0][n]), recompile_cost * k + waste_cost * layers[k - 1][0][n])
                 for k in range(1, len(layers) + 1))


@dataclass(frozen=True, slots=True)
class Bucket:
    """One bucket: the raw sizes ``low < s <= top`` it serves (``low`` is None for the first), padded to ``top``."""

    low: int | None
    top: int
    calls: int
    waste: int


@dataclass(frozen=True, slots=True)
class DimPlan:
    """The bucket plan of one input dim.

    Attributes:
        source: the dim (``x.size()[0]``).
        buckets: the buckets, ascending.
        cost: recompile_cost * recompiles + waste_cost * waste.
        recompile_cost / waste_cost / multiple_of / max_buckets: the planner's parameters.
        curve: :func:`cost_curve` of the observed sizes.
    """

    source: Source
    buckets: tuple[Bucket, ...]
    cost: float
    recompile_cost: float
    waste_cost: float
    multiple_of: int
    max_buckets: int | None
    curve: tuple[tuple[int, int, float], ...]

    @property
    def tops(self) -> tuple[int, ...]:
        """The pad-to sizes."""
        return tuple(b.top for b in self.buckets)

    @property
    def recompiles(self) -> int:
        """Compilations of the plan (one per bucket)."""
        return len(self.buckets)

    @property
    def waste(self) -> int:
        """Padded rows over the observed calls."""
        return sum(b.waste for b in self.buckets)

    def pad(self, size: int) -> int | None:
        """The pad-to size of ``size`` (None: larger than every bucket).

        >>> plan_dim(Source.size("x", 0), [3, 5, 9], recompile_cost=100).pad(4)
        9
        """
        for b in self.buckets:
            if size <= b.top:
                return b.top
        return None

    def guards(self, i: int) -> GuardSet:
        """The guard set of bucket ``i``: the raw sizes it serves."""
        b = self.buckets[i]
        sym = build.symbol_expr("s0")
        s = F.sym(sym.name)
        conds = [F.rel("<=", s, F.const(b.top))] if b.low is None else [F.rel(">", s, F.const(b.low)), F.rel("<=", s, F.const(b.top))]
        return GuardSet.of([Guard.of(c) for c in conds], {sym: self.source})

    def format(self) -> str:
        """A few lines: the buckets with calls and waste, then the totals."""
        lines = [f"{self.source.text()}: {self.recompiles} buckets, {self.waste} padded rows, cost {self.cost:g} "
                 f"(recompile_cost {self.recompile_cost:g}, waste_cost {self.waste_cost:g})"]
        for i, b in enumerate(self.buckets):
            served = f"<= {b.top}" if b.low is None else f"{b.low + 1}..{b.top}"
            lines.append(f"  pad to {b.top:>6}  serves {served:<14} {b.calls:>6} calls  {b.waste:>8} padded rows  "
                         f"guards: {' and '.join(self.guards(i).to_text('source').splitlines())}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The plan as a JSON-ready dict."""
        return {
            "source": self.source.text(),
            "tops": list(self.tops),
            "buckets": [{"low": b.low, "top": b.top, "calls": b.calls, "waste": b.waste,
                         "guards": self.guards(i).to_text("source").splitlines()} for i, b in enumerate(self.buckets)],
            "recompiles": self.recompiles,
            "waste": self.waste,
            "cost": self.cost,
            "curve": [{"buckets": k, "waste": w, "cost": c} for k, w, c in self.curve],
        }


def _as_counts(sizes: "Iterable[int] | Mapping[int, int]") -> dict[int, int]:
    if isinstance(sizes, Mapping):
        return dict(sizes)
    return dict(Counter(sizes))


def plan_dim(source: Source, sizes: "Iterable[int] | Mapping[int, int]", *, recompile_cost: float = 100.0,
             waste_cost: float = 1.0, max_buckets: int | None = None, multiple_of: int = 1) -> DimPlan:
    """The optimal :class:`DimPlan` for one dim from its observed sizes (a list, or size -> count).

    Raises:
        PlannerError: see :func:`optimal_tops`.
    """
    counts = _as_counts(sizes)
    tops = optimal_tops(counts, recompile_cost=recompile_cost, waste_cost=waste_cost, max_buckets=max_buckets,
                        multiple_of=multiple_of)
    buckets, low = [], None
    for top in tops:
        served = {s: n for s, n in counts.items() if (low is None or s > low) and s <= top}
        buckets.append(Bucket(low, top, sum(served.values()), sum(n * (top - s) for s, n in served.items())))
        low = top
    waste = sum(b.waste for b in buckets)
    curve = cost_curve(counts, recompile_cost=recompile_cost, waste_cost=waste_cost, multiple_of=multiple_of)
    return DimPlan(source, tuple(buckets), recompile_cost * len(buckets) + waste_cost * waste, recompile_cost,
                   waste_cost, multiple_of, max_buckets, curve)


@dataclass(frozen=True, slots=True)
class BucketPlan:
    """Per-dim bucket plans (dims are planned independently; waste is counted per dim).

    Attributes:
        dims: one :class:`DimPlan` per observed source.
        notes: what the observations could not say (e.g. sizes served by dynamic entries).
    """

    dims: tuple[DimPlan, ...]
    notes: tuple[str, ...] = ()

    def pad(self, sizes: Mapping[Source, int]) -> dict[Source, int | None]:
        """The pad-to size of each planned source of ``sizes``."""
        plans = {p.source: p for p in self.dims}
        return {s: plans[s].pad(v) for s, v in sizes.items() if s in plans}

    def format(self) -> str:
        """Every dim's plan, then the notes."""
        return "\n".join([*(p.format() for p in self.dims), *(f"note: {n}" for n in self.notes)])

    def to_json(self) -> dict:
        """The plans as a JSON-ready dict."""
        return {"dims": [p.to_json() for p in self.dims], "notes": list(self.notes)}

    def __str__(self) -> str:
        return self.format()


def plan_buckets(observed: "Mapping[Source | str, Iterable[int] | Mapping[int, int]] | Any", *,
                 recompile_cost: float = 100.0, waste_cost: float = 1.0, max_buckets: int | None = None,
                 multiple_of: int = 1) -> BucketPlan:
    """Bucket plans for every observed dim: from a mapping source -> sizes, or a compiled function's ``cache_info()``.

    Raises:
        PlannerError: no sizes for some dim, or bad parameters.

    >>> print(plan_buckets({"x.size()[0]": [7, 8, 8, 30]}, recompile_cost=50).format())  # doctest: +NORMALIZE_WHITESPACE
    x.size()[0]: 2 buckets, 1 padded rows, cost 101 (recompile_cost 50, waste_cost 1)
      pad to      8  serves <= 8                3 calls         1 padded rows  guards: x.size()[0] <= 8
      pad to     30  serves 9..30               1 calls         0 padded rows  guards: x.size()[0] > 8 and x.size()[0] <= 30
    """
    notes: tuple[str, ...] = ()
    if hasattr(observed, "entries") and hasattr(observed, "compilations"):
        observed, notes = sizes_from_cache_info(observed)
    plans = []
    for src, sizes in observed.items():
        source = src if isinstance(src, Source) else _source(src)
        plans.append(plan_dim(source, sizes, recompile_cost=recompile_cost, waste_cost=waste_cost,
                              max_buckets=max_buckets, multiple_of=multiple_of))
    if not plans:
        raise PlannerError("no sizes observed for any dim" + (f" ({'; '.join(notes)})" if notes else ""))
    return BucketPlan(tuple(plans), notes)


def _source(text: str) -> Source:
    try:
        return parse_source(text)
    except GuardError as e:
        raise PlannerError(f"{text!r} is not an input dim ({e})") from None


def sizes_from_cache_info(info: Any) -> tuple[dict[Source, Counter], tuple[str, ...]]:
    """Observed sizes from a ``cache_info()``: each static entry's pinned sizes, weighted by its calls (hits + 1).

    Sizes served by entries with that dim dynamic are not known to the cache; they are left out and noted.
    """
    out: dict[Source, Counter] = {}
    unknown: dict[Source, int] = {}
    sources = set()
    for e in info.entries:
        sources |= {src for _, src in e.guards.sources if src.kind == "size"}
    for e in info.entries:
        pins = pinned_sources(e.guards)
        calls = e.hits + (0 if e.specialization is not None else 1)
        for src in sorted(sources, key=lambda s: (s.base, s.index or 0)):
            if src in pins:
                out.setdefault(src, Counter())[pins[src]] += calls
            else:
                unknown[src] = unknown.get(src, 0) + calls
    notes = tuple(f"{n} calls served by entries with {s.text()} dynamic: their sizes are not recorded"
                  for s, n in unknown.items() if n)
    return {s: c for s, c in out.items() if len(c) > 0}, notes


def read_size_log(text: str) -> dict[Source, Counter]:
    """Observed sizes from a recorded log.

    One call per line, ``source=value`` pairs separated by commas or spaces
    (``x.size()[0]=9, x.size()[1]=3``), or a bare integer (the sizes of one dim, called
    ``size``); ``#`` starts a comment. A JSON document is read too: a list of ints, or an
    object mapping each source to a list of sizes or to ``{size: count}``.

    Raises:
        PlannerError: a line or field that is not of that form (the message gives the line number).

    >>> read_size_log("x.size()[0]=9 x.size()[1]=3\\n# warm-up\\nx.size()[0]=12, x.size()[1]=3\\n")[Source.size("x", 0)]
    Counter({9: 1, 12: 1})
    """
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        return _read_json(stripped)
    out: dict[Source, Counter] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if _is_int(line):
            out.setdefault(Source.value("size"), Counter())[int(line)] += 1
            continue
        for part in line.replace(",", " ").split():
            name, sep, value = part.rpartition("=")
            if not sep or not _is_int(value):
                raise PlannerError(f"line {lineno}: expected source=size pairs or one int, got {part!r}")
            try:
                source = parse_source(name)
            except GuardError as e:
                raise PlannerError(f"line {lineno}: {name!r} is not an input dim ({e})") from None
            out.setdefault(source, Counter())[int(value)] += 1
    if not out:
        raise PlannerError("the log holds no sizes")
    return out


def _is_int(text: str) -> bool:
    return text.isdigit() and len(text) < 19


def _read_json(text: str) -> dict[Source, Counter]:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise PlannerError(f"the log is not valid JSON ({e})") from None
    if isinstance(data, list):
        data = {"size": data}
    if not isinstance(data, dict):
        raise PlannerError("a JSON log is a list of sizes or an object mapping sources to sizes")
    out: dict[Source, Counter] = {}
    for name, sizes in data.items():
        source = Source.value("size") if name == "size" else _source(name)
        if isinstance(sizes, list) and all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
            out[source] = Counter(sizes)
        elif isinstance(sizes, dict) and all(_is_int(str(k)) and isinstance(v, int) for k, v in sizes.items()):
            out[source] = Counter({int(k): v for k, v in sizes.items()})
        else:
            raise PlannerError(f"{name!r}: expected a list of ints or an object {{size: count}}, got {sizes!r:.60}")
    return out
