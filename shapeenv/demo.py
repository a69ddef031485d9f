"""A short tour: symbols, expressions, ranges, guards, runtime asserts and the produced guard set.

Run it with ``python3 -m shapeenv.demo``.
"""

from __future__ import annotations

from guards import Source
from shapeenv import GuardOnDataDependentSymNode, ShapeEnv, check
from symint import sym_max


def main() -> None:
    """Print the tour."""
    env = ShapeEnv()
    batch = env.create_symint(8, Source.size("x", 0))
    seq = env.create_symint(100, Source.size("x", 1))
    env.create_symint(1, Source.size("x", 2))  # a size-1 dim is specialised to the constant 1
    print("symbols        :", batch, seq, "  (x.size()[2] == 1 was specialised)")

    rows = (batch * seq + 7) // 8
    print("expression     :", rows, "  hint:", rows.node.hint, "  range:", env.bound(rows))
    print("Python floor   :", (-batch) // 3, "at the hint is", ((-batch) // 3).node.hint, "(as -8 // 3 in Python)")
    print("s0 == 2*s0 ?   :", bool(batch == 2 * batch), "  decided statically: s0 is in [2, oo], no guard")

    if seq > 64:  # not statically known: decided by the hint and recorded as a guard
        print("branch         : seq > 64 taken; guard recorded ->", env.guards[-1].expr)
    if seq % 4 == 0:
        print("divisibility   : seq % 4 == 0 guarded; now seq % 2 == 0 is known:", env.statically_known_true(seq % 2 == 0))

    nnz = env.create_unbacked_symint(size_like=True)
    try:
        bool(nnz > batch)
    except GuardOnDataDependentSymNode as e:
        print("data-dependent :", e.expr, "cannot be decided; the error suggests", e.suggestion)
    check(nnz <= batch, "nonzero() returns at most x.size()[0] rows")
    print("after check    : nnz > batch is", bool(nnz > batch), "without a guard; nnz in", env.bound(nnz))
    print("symbolic max   :", sym_max(batch, seq), "(no guard)")

    guards = env.produce_guards()
    print("\nproduced guards (torch format):")
    print("  " + guards.to_text("torch").replace("\n", "\n  "))
    for sizes in ({"x.size()[0]": 16, "x.size()[1]": 128, "x.size()[2]": 1}, {"x.size()[0]": 16, "x.size()[1]": 30, "x.size()[2]": 1}):
        verdict = "reuse" if guards.holds(sizes) else "recompile: " + "; ".join(str(f) for f in guards.explain(sizes).failures)
        print(f"  sizes {sorted(sizes.values())}: {verdict}")
    print("\nwhy is s1 bounded?\n" + env.explain(seq))


if __name__ == "__main__":
    main()
