"""GuardedCache: first-match semantics of a linear scan, via a dispatch index; thread safety; miss reasons."""

from __future__ import annotations

import random
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from guards import GuardSet, Source
from guards.runtime.cache import GuardedCache, pinned_sources
from symint.build import eq, ge, le, mod, symbol_expr

S = [symbol_expr(f"s{i}") for i in range(3)]
SOURCES = {S[0]: Source.size("x", 0), S[1]: Source.size("x", 1), S[2]: Source.size("y", 0)}


class Arr:
    def __init__(self, *shape: int):
        self.shape = shape


def inputs(a: int, b: int, c: int) -> dict:
    return {"x": Arr(a, b), "y": Arr(c)}


def random_entry(rng: random.Random) -> GuardSet:
    guards = []
    for sym in S:
        roll = rng.random()
        if roll < 0.45:
            guards.append(eq(sym, rng.randint(1, 5)))
        elif roll < 0.6:
            guards.append(ge(sym, rng.randint(1, 4)))
        elif roll < 0.7:
            guards.append(eq(mod(sym, 2), 0))
    if rng.random() < 0.3:
        guards.append(le(S[0], S[2]))
    return GuardSet.of(guards, SOURCES)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12))
def test_lookup_is_the_first_entry_whose_guards_hold(seed: int, n: int) -> None:
    rng = random.Random(seed)
    cache = GuardedCache()
    sets = [random_entry(rng) for _ in range(n)]
    for i, gs in enumerate(sets):
        cache.add(gs, i)
    for _ in range(60):
        vals = [rng.randint(1, 6) for _ in range(3)]
        binding = dict(zip(("x.size()[0]", "x.size()[1]", "y.size()[0]"), vals))
        expected = next((i for i, gs in enumerate(sets) if gs.holds(binding)), None)
        got = cache.lookup(inputs(*vals))
        assert (got.artifact if got else None) == expected, (vals, sets, cache.key)


def test_index_keys_on_the_most_pinned_sources() -> None:
    cache = GuardedCache()
    for a in range(2, 10):
        cache.add(GuardSet.of([eq(S[0], a), eq(S[1], 3)], SOURCES), a)
    cache.add(GuardSet.of([ge(S[0], 2)], SOURCES), "dynamic")
    assert {s.text() for s in cache.key} == {"x.size()[0]", "x.size()[1]"}
    assert len(cache.candidates(inputs(7, 3, 1))) == 2  # its bucket plus the wildcard
    assert cache.lookup(inputs(7, 3, 1)).artifact == 7
    assert cache.lookup(inputs(70, 3, 1)).artifact == "dynamic"
    assert cache.lookup(inputs(1, 3, 1)) is None
    assert cache.hits(cache.entries[5]) == 1


def test_pins_are_read_from_top_level_equalities_only() -> None:
    gs = GuardSet.of([eq(S[0], 4), ge(S[1], 2), eq(S[2], S[0])], SOURCES)
    assert pinned_sources(gs) == {Source.size("x", 0): 4}


def test_miss_explanations_name_the_failed_guard() -> None:
    cache = GuardedCache()
    cache.add(GuardSet.of([eq(S[0], 8)], SOURCES), "a")
    ((entry, why),) = cache.explain_miss(inputs(9, 1, 1))
    assert entry.artifact == "a" and "x.size()[0] == 8 failed: got 9" in str(why)


def test_concurrent_adds_and_lookups_stay_consistent() -> None:
    cache = GuardedCache()
    errors: list[str] = []

    def writer(offset: int) -> None:
        for a in range(offset, offset + 40):
            cache.add(GuardSet.of([eq(S[0], a)], SOURCES), a)

    def reader() -> None:
        for _ in range(2000):
            a = random.randint(0, 79)
            entry = cache.lookup(inputs(a, 1, 1))
            if entry is not None and entry.artifact != a:
                errors.append(f"looked up {a}, got entry for {entry.artifact}")

    threads = [threading.Thread(target=writer, args=(o,)) for o in (0, 40)] + [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert len(cache) == 80 and sorted(e.index for e in cache.entries) == list(range(80))
    assert all(cache.lookup(inputs(a, 1, 1)).artifact == a for a in range(80))
