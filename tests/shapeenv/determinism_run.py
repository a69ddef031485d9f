"""Replay a W1-style program and print everything the run decided, for byte-for-byte comparison.

Run as ``python3 -m tests.shapeenv.determinism_run PROGRAM.json [--limit N]`` (from the
repository root); used by ``tests/shapeenv/test_determinism.py`` in subprocesses with
different hash seeds and machine load.
"""

from __future__ import annotations

import json
import operator
import sys

RELATIONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}


def replay(program: dict, limit: int | None = None) -> dict:
    """The recorded guards, runtime asserts, reduced set and simplified set of one replay, as text."""
    from guards import Source
    from shapeenv import DimDynamic, ShapeEnv, check
    from symint import sym_max, sym_min

    arith = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
             "mod": operator.mod, "max": sym_max, "min": sym_min}  # fmt: skip
    env = ShapeEnv(duck_shape=False)
    pool = [env.create_symint(s["hint"], Source.size(s["name"], 0), dynamic=DimDynamic.DYNAMIC) for s in program["symbols"]]
    for op in program["ops"][:limit]:
        a, b = (pool[x[1]] if x[0] == "v" else x[1] for x in op["args"])
        if op["op"] in arith:
            pool.append(arith[op["op"]](a, b))
        elif op["op"] == "cmp":
            assert bool(RELATIONS[op["rel"]](a, b)) == op["val"]
        else:
            check(RELATIONS[op["rel"]](a, b))
    produced = env.produce_guards_deferred()
    simplified = produced.wait()
    report = produced.report
    return {
        "guards": [f"{g.expr} | {g.provenance}" for g in env.guards],
        "asserts": [str(a.expr) for a in env.runtime_asserts],
        "reduced": produced.reduced.to_text("torch"),
        "simplified": simplified.to_text("torch"),
        "proof": produced.proof.value if produced.proof else None,
        "z3": [report.z3_checks, report.rlimit, report.budget_exhausted] if report else None,
        "trace_checks": env.decider.prover.checks,
        "safety_net": env.decider.prover.safety_net + (1 if report and report.safety_net else 0),
    }


def main(argv: list[str]) -> None:
    program = json.loads(open(argv[0]).read())
    limit = int(argv[2]) if len(argv) > 2 and argv[1] == "--limit" else None
    print(json.dumps(replay(program, limit), indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
