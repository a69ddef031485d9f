"""The whole story in one run: symbols and guards, then an RNN over a dynamic sequence, compiled and run.

Run it with ``python3 -m shapeenv.demo``. Part 1 shows the ShapeEnv's building blocks (symbols for
sizes, an expression and its range, a static decision, a guard, a runtime assert). Part 2 compiles
a function whose ``scan`` runs a recurrent cell over a sequence, with the numpy backend; calls with
changing sequence lengths show the first compilation, automatic dynamic recompiling the length as a
symbol, cache hits, a recompile for a length of 1 (sizes 0 and 1 are specialised), the traced
program, its guard set in torch's text, and results equal to a plain numpy loop.
"""

from __future__ import annotations

from guards import Source
from guards.runtime.explain import explain_inputs
from shapeenv import ShapeEnv, check, compile, ops, scan

try:
    import numpy as np

    from shapeenv.backends import numpy_backend
except ImportError:  # numpy is needed for part 2 only
    np = None

__all__ = ["main", "rnn"]


def rnn(xs, h0, w):
    """A recurrent cell over the sequence ``xs`` (time first): ``h = tanh(h @ w + x)``, every ``h`` kept.

    >>> from shapeenv import Dim, export
    >>> export(rnn, ((5, 2, 4), (2, 4), (4, 4)), dynamic_shapes={"xs": {0: Dim.DYNAMIC}}).output_shapes
    ((2, 4), (s0, 2, 4))
    """

    def step(h, x):
        h = ops.tanh(h @ w + x)
        return h, h.clone()

    return scan(step, h0, xs)


def _reference(xs, h0, w):
    """The same computation as a plain numpy loop."""
    h, ys = h0, []
    for x in xs:
        h = np.tanh(h @ w + x)
        ys.append(h)
    return h, np.stack(ys)


def _symbols_and_guards() -> None:
    """Part 1: what a ShapeEnv does with sizes."""
    env = ShapeEnv()
    batch = env.create_symint(8, Source.size("x", 0))
    seq = env.create_symint(100, Source.size("x", 1))
    rows = (batch * seq + 7) // 8
    print(f"symbols      x.size()[0] -> {batch}, x.size()[1] -> {seq}   (hints 8 and 100; range {env.bound(batch)})")
    print(f"expression   {rows}: {rows.node.hint} at the hints, range {env.bound(rows)}")
    print(f"static       {batch} == 2*{batch} is {bool(batch == 2 * batch)}: no guard, since {batch} >= 2")
    if seq > 64:
        print(f"guard        `if {seq} > 64` follows the hint and records the guard {env.guards[-1].expr}")
    check(batch <= 64, "a batch fits in memory")
    print(f"assert       check({batch} <= 64) is a runtime assert, not a guard: {batch} is now in {env.bound(batch)}")


def _compiled_rnn() -> None:
    """Part 2: compile ``rnn`` with the numpy backend and call it with several sequence lengths."""
    f = compile(rnn, backend=numpy_backend)
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((4, 4)) * 0.5).astype(np.float32)
    h0 = np.zeros((2, 4), np.float32)
    print("f = compile(rnn, backend=numpy_backend); rnn(xs, h0, w) scans h = tanh(h @ w + x) over xs\n")
    print(f"{'xs.shape':<12} {'cache':<11} {'entry':<6} {'|f - loop|':<11} why")
    for length in (5, 7, 12, 1, 3):
        xs = rng.standard_normal((length, 2, 4)).astype(np.float32)
        before = f.cache_info()
        h, ys = f(xs, h0, w)
        after = f.cache_info()
        ref_h, ref_ys = _reference(xs, h0, w)
        error = max(float(np.abs(ys - ref_ys).max()), float(np.abs(h - ref_h).max()))
        if after.compilations > before.compilations:
            entry = after.entries[-1]
            status = "compiled" if entry.index == 0 else "recompiled"
            why = entry.reason.text
            if entry.dynamic != "none":
                traced = entry.dynamic.removeprefix("none; ") if entry.dynamic.startswith("none; ") else f"dynamic: {entry.dynamic}"
                why += "\n" + " " * 44 + "-> " + traced
        else:
            entry = next(e for e, old in zip(after.entries, before.entries) if e.hits > old.hits)
            status, why = "hit", ""
        print(f"{str(xs.shape):<12} {status:<11} {entry.index:<6} {error:<11.1e} {why}".rstrip())

    dynamic = next(e for e in f.cache_info().entries if e.dynamic != "none")
    print(f"\nentry {dynamic.index} is the traced program (one scan node; its body is a sub-graph):")
    print("  " + dynamic.program.graph.format().replace("\n", "\n  "))
    print(f"\nits guard set, in torch's text (a call reuses entry {dynamic.index} only if all of them hold):")
    print("  " + dynamic.guards.to_text("torch").replace("\n", "\n  "))
    for shape in ((64, 2, 4), (64, 3, 4)):
        why = explain_inputs(dynamic.guards, {"xs": np.zeros(shape, np.float32), "h0": h0, "w": w}, first_only=True)
        print(f"  xs of shape {shape}: {'recompiles, ' + str(why) if why.failures else 'reuses it'}")


def main() -> None:
    """Print the story."""
    print("1. Symbols, expressions, ranges and guards\n")
    _symbols_and_guards()
    print("\n2. An RNN over a dynamic sequence, compiled and run on numpy\n")
    if np is None:
        print("numpy is not installed: pip install numpy to run the compiled function")
        return
    _compiled_rnn()


if __name__ == "__main__":
    main()
