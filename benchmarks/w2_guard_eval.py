"""W2 "guard-eval": time one evaluation of a 19-guard set on concrete sizes, side by side.

Contenders, all measured in this one run (timeit, best of several interleaved repeats):

* ``ours ints``: ``GuardSet.compile().check_ints`` on pre-extracted ints;
* ``hand ints``: a hand-written lambda of the same checks on the same ints;
* ``ours numpy``: ``check(inputs)`` reading sizes and strides from numpy arrays;
* ``hand numpy``: a hand-written lambda reading the same sizes from the arrays
  (numpy strides are bytes: ``a.strides[i] // a.itemsize``), plus the same checks
  written as a function that reads each attribute once (``hand numpy hoisted``);
* where torch is installed: our ``check`` and a hand lambda on torch tensors, and
  torch's ``ShapeEnv.evaluate_guards_expression`` on the workload's
  ``guards_expression_t_names`` text.

The eight expected verdicts are verified for every contender before timing.

Usage: ``python benchmarks/w2_guard_eval.py [--repeat 7] [--number 20000] [--no-torch]``
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guards import GuardSet, Source  # noqa: E402

WORKLOAD = Path(__file__).resolve().parent / "workloads" / "w2_guards.json"

# The hand-written checks take the sizes in this order (names are ours, not the checker's).
HAND_ORDER = [
    Source.size("q", 0), Source.size("q", 1), Source.size("q", 2), Source.stride("q", 0), Source.stride("q", 1),
    Source.size("k", 0), Source.size("k", 1), Source.size("k", 2), Source.stride("k", 0), Source.stride("k", 1),
    Source.size("past_k", 0), Source.size("past_k", 1), Source.size("past_k", 2),
    Source.stride("past_k", 0), Source.stride("past_k", 1),
    Source.size("mask", 0), Source.size("mask", 1), Source.stride("mask", 0), Source.size("w_o", 0),
]  # fmt: skip


def hand_ints(q0, q1, q2, qs0, qs1, k0, k1, k2, ks0, ks1, p0, p1, p2, ps0, ps1, m0, m1, ms0, w0):
    return (
        qs0 == 16 * q2 * q1 and qs1 == 16 * q2 and k0 == q0 and k1 == q1 and ks0 == 16 * q1 * k2
        and ks1 == 16 * k2 and p0 == q0 and p1 == q1 and ps0 == 16 * q1 * p2 and ps1 == 16 * p2
        and m0 == q2 and m1 == p2 + k2 and ms0 == p2 + k2 and w0 == 16 * q1
        and 2 <= q0 and 2 <= q1 and 2 <= q2 and q2 <= 512 and 2 <= k2 and 2 <= p2
    )  # fmt: skip


hand_numpy = lambda d: (  # noqa: E731 - the point is to time a lambda
    d["q"].strides[0] // d["q"].itemsize == 16 * d["q"].shape[2] * d["q"].shape[1]
    and d["q"].strides[1] // d["q"].itemsize == 16 * d["q"].shape[2]
    and d["k"].shape[0] == d["q"].shape[0] and d["k"].shape[1] == d["q"].shape[1]
    and d["k"].strides[0] // d["k"].itemsize == 16 * d["q"].shape[1] * d["k"].shape[2]
    and d["k"].strides[1] // d["k"].itemsize == 16 * d["k"].shape[2]
    and d["past_k"].shape[0] == d["q"].shape[0] and d["past_k"].shape[1] == d["q"].shape[1]
    and d["past_k"].strides[0] // d["past_k"].itemsize == 16 * d["q"].shape[1] * d["past_k"].shape[2]
    and d["past_k"].strides[1] // d["past_k"].itemsize == 16 * d["past_k"].shape[2]
    and d["mask"].shape[0] == d["q"].shape[2] and d["mask"].shape[1] == d["past_k"].shape[2] + d["k"].shape[2]
    and d["mask"].strides[0] // d["mask"].itemsize == d["past_k"].shape[2] + d["k"].shape[2]
    and d["w_o"].shape[0] == 16 * d["q"].shape[1]
    and 2 <= d["q"].shape[0] and 2 <= d["q"].shape[1] and 2 <= d["q"].shape[2] and d["q"].shape[2] <= 512
    and 2 <= d["k"].shape[2] and 2 <= d["past_k"].shape[2]
)  # fmt: skip


def hand_numpy_hoisted(d):
    q, k, p, m, w = d["q"], d["k"], d["past_k"], d["mask"], d["w_o"]
    qs, ks, ps, ms = q.shape, k.shape, p.shape, m.shape
    qt, kt, pt, mt = q.strides, k.strides, p.strides, m.strides
    qi, ki, pi, mi = q.itemsize, k.itemsize, p.itemsize, m.itemsize
    q0, q1, q2, k2, p2 = qs[0], qs[1], qs[2], ks[2], ps[2]
    return (
        qt[0] // qi == 16 * q2 * q1 and qt[1] // qi == 16 * q2 and ks[0] == q0 and ks[1] == q1
        and kt[0] // ki == 16 * q1 * k2 and kt[1] // ki == 16 * k2 and ps[0] == q0 and ps[1] == q1
        and pt[0] // pi == 16 * q1 * p2 and pt[1] // pi == 16 * p2 and ms[0] == q2 and ms[1] == p2 + k2
        and mt[0] // mi == p2 + k2 and w.shape[0] == 16 * q1
        and 2 <= q0 and 2 <= q1 and 2 <= q2 and q2 <= 512 and 2 <= k2 and 2 <= p2
    )  # fmt: skip


hand_torch = lambda d: (  # noqa: E731
    d["q"].stride()[0] == 16 * d["q"].size()[2] * d["q"].size()[1] and d["q"].stride()[1] == 16 * d["q"].size()[2]
    and d["k"].size()[0] == d["q"].size()[0] and d["k"].size()[1] == d["q"].size()[1]
    and d["k"].stride()[0] == 16 * d["q"].size()[1] * d["k"].size()[2] and d["k"].stride()[1] == 16 * d["k"].size()[2]
    and d["past_k"].size()[0] == d["q"].size()[0] and d["past_k"].size()[1] == d["q"].size()[1]
    and d["past_k"].stride()[0] == 16 * d["q"].size()[1] * d["past_k"].size()[2]
    and d["past_k"].stride()[1] == 16 * d["past_k"].size()[2]
    and d["mask"].size()[0] == d["q"].size()[2] and d["mask"].size()[1] == d["past_k"].size()[2] + d["k"].size()[2]
    and d["mask"].stride()[0] == d["past_k"].size()[2] + d["k"].size()[2] and d["w_o"].size()[0] == 16 * d["q"].size()[1]
    and 2 <= d["q"].size()[0] and 2 <= d["q"].size()[1] and 2 <= d["q"].size()[2] and d["q"].size()[2] <= 512
    and 2 <= d["k"].size()[2] and 2 <= d["past_k"].size()[2]
)  # fmt: skip


def load_workload() -> dict:
    return json.loads(WORKLOAD.read_text())


def torch_contenders(workload: dict, arrays: list[dict]):
    """``(rows, tensors, torch version)`` for the torch rows, or None when torch is not installed."""
    try:
        import torch
        from torch.fx.experimental.symbolic_shapes import ShapeEnv
    except ImportError:
        return None
    tensors = [{n: torch.from_numpy(a) for n, a in inputs.items()} for inputs in arrays]
    env = ShapeEnv()
    code = workload["guards_expression_t_names"]
    ordered = [[t[n] for n in workload["input_names"]] for t in tensors]
    return [
        ("torch evaluate_guards_expression", lambda args: env.evaluate_guards_expression(code, args), ordered),
        ("hand torch (lambda on tensors)", hand_torch, tensors),
    ], tensors, torch.__version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timeit repeats; the best is kept (default 7)")
    parser.add_argument("--number", type=int, default=20000, help="calls per repeat (default 20000)")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch rows even if torch is installed")
    args = parser.parse_args(argv)

    if not args.no_torch:
        try:  # as in real use, torch is loaded before guards are compiled (see guards/runtime/codegen.py)
            import torch  # noqa: F401
        except ImportError:
            pass
    workload = load_workload()
    gs = GuardSet.parse(workload["guards"])
    checker = gs.compile()
    expected = workload["expected_verdicts"]
    arrays = [{n: np.zeros(shape, dtype=np.float32) for n, shape in s["shapes"].items()} for s in workload["input_sets"]]
    ours_ints = [tuple(src.read(a[src.base]) for src in checker.order) for a in arrays]
    hand_int_args = [tuple(src.read(a[src.base]) for src in HAND_ORDER) for a in arrays]

    # (name, function, list of per-input-set argument; a tuple is splatted)
    rows = [
        ("ours ints (check_ints)", checker.check_ints, ours_ints),
        ("hand ints (lambda)", hand_ints, hand_int_args),
        ("ours numpy (check)", checker.check, arrays),
        ("hand numpy (lambda)", hand_numpy, arrays),
        ("hand numpy hoisted (def)", hand_numpy_hoisted, arrays),
        ("ours slow path (GuardSet.holds)", lambda *vals: gs.holds(dict(zip(checker.symbols, vals))), ours_ints),
    ]
    torch_version = None
    if not args.no_torch:
        found = torch_contenders(workload, arrays)
        if found is not None:
            torch_rows, tensors, torch_version = found
            rows.append(("ours torch (check)", checker.check, tensors))
            rows.extend(torch_rows)

    def call(fn, arg):
        return fn(*arg) if isinstance(arg, tuple) else fn(arg)

    print(f"W2: {len(gs)} guards over {len(checker.order)} sources, {len(expected)} input sets"
          + (f"; torch {torch_version}" if torch_version else "; torch not measured"))  # fmt: skip
    for name, fn, per_set in rows:
        got = [bool(call(fn, arg)) for arg in per_set]
        if got != expected:
            print(f"FAIL {name}: verdicts {got} != expected {expected}")
            return 1
    print(f"verdicts: all {len(rows)} contenders reproduce {expected}")

    # Time the accepted trace-sizes input (every guard is evaluated), interleaving contenders.
    best = {name: float("inf") for name, _, _ in rows}
    for _ in range(args.repeat):
        for name, fn, per_set in rows:
            arg = per_set[0]
            number = args.number if "slow" not in name and "evaluate_guards" not in name else max(args.number // 100, 1)
            stmt = (lambda f=fn, a=arg: f(*a)) if isinstance(arg, tuple) else (lambda f=fn, a=arg: f(a))
            best[name] = min(best[name], timeit.timeit(stmt, number=number) / number * 1e6)
    width = max(len(n) for n in best)
    for name, us in best.items():
        print(f"  {name:<{width}}  {us:9.3f} us/eval")

    def ratio(a: str, b: str) -> None:
        if a in best and b in best:
            print(f"  {a} / {b}: {best[a] / best[b]:.2f}x")

    print("ratios:")
    ratio("ours ints (check_ints)", "hand ints (lambda)")
    ratio("ours numpy (check)", "hand numpy (lambda)")
    ratio("ours numpy (check)", "hand numpy hoisted (def)")
    ratio("ours torch (check)", "hand torch (lambda on tensors)")
    ratio("torch evaluate_guards_expression", "ours torch (check)")
    ratio("torch evaluate_guards_expression", "ours ints (check_ints)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
