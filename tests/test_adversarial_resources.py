"""Resource bombs and the mark-table GC deadlock (issue 11), each in a capped subprocess.

A bomb is hostile input that once made the library run for minutes, eat gigabytes or
hang. Each runs in a fresh interpreter under ``resource.setrlimit`` (address space and
CPU time): a regression is killed by the kernel (or by the subprocess timeout, a safety
net) and the test fails, instead of hanging the suite. The child prints what happened as
JSON; the test asserts the outcome (a typed error, or the right answer), never a duration.
``benchmarks/bench_hostile.py`` runs the same table and prints time and memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Address-space and CPU caps of each bomb's interpreter.
MEMORY_CAP = 1536 << 20
CPU_CAP_S = 120

_PRELUDE = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({mem}, {mem}))
resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu}))
sys.path.insert(0, {root!r})
from guards import GuardSet, GuardError
from symint.errors import SymIntError
start = time.process_time()
reported = []
def report(outcome, **fields):
    fields.update(outcome=outcome, cpu_s=round(time.process_time() - start, 3),
                  max_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    reported.append(fields)
    print(json.dumps(fields))
try:
{body}
    if not reported:
        report("no error")
except (GuardError, SymIntError) as exc:
    report("typed error", type=type(exc).__name__, message=str(exc)[:200])
except BaseException as exc:
    report("untyped error", type=type(exc).__name__, message=str(exc)[:200])
"""

#: name -> (code run in the child; it calls ``report("value", value=...)``, expected outcome, expected value or type).
BOMBS: dict[str, tuple[str, str, object]] = {
    "power tower folded by the parser": (
        'GuardSet.parse("((x ** 8192) ** 8192) ** 8192 >= 1").holds({"x": 2})',
        "typed error", "GuardParseError",
    ),
    "n ** m with m = 10**9 (holds)": (
        'report("value", value=GuardSet.parse("L[\'n\'] ** L[\'m\'] >= 1").holds({"n": 5, "m": 10**9}))',
        "value", False,
    ),
    "n ** m with m = 10**9 (compiled)": (
        'report("value", value=GuardSet.parse("L[\'n\'] ** L[\'m\'] >= 1").compile().check({"n": 5, "m": 10**9}))',
        "value", False,
    ),
    "x ** 8192 at x = 2**4000 (32M bits: computed)": (
        'report("value", value=GuardSet.parse("L[\'x\'] ** 8192 >= 1").holds({"x": 2**4000}))',
        "value", True,
    ),
    "x ** 8192 at x = 2**9000 (74M bits: refused)": (
        'report("value", value=GuardSet.parse("L[\'x\'] ** 8192 >= 1").compile().check({"x": 2**9000}))',
        "value", False,
    ),
    "PowByNatural(2, 10**9)": ('GuardSet.parse("PowByNatural(2, 1000000000) > s0")', "typed error", "GuardParseError"),
    "a product of 50,000 factors": ('GuardSet.parse("*".join(["s0"] * 50_000) + " > 1")', "typed error", "GuardParseError"),
    "coefficients growing past 8192 bits": (
        'GuardSet.parse("2**8191*s0 + 2**8191*s0 > 1")', "typed error", "GuardParseError",
    ),
    "substitution folding a tower": (
        "from symint.build import symbol_expr, pow_, ge\n"
        "from symint.sympy_io import substitute\n"
        "x, y = symbol_expr('x'), symbol_expr('y')\n"
        "substitute(ge(pow_(x, 8192), 1), {x: pow_(y, 8192)})",
        "typed error", "FormLimitError",  # an ExpressionLimitError: substitution goes through forms now
    ),
    "SymInt ** 8192 ** 2": (
        "from symint import symbol\ns = symbol('s0', hint=3)\n(s ** 8192) ** 8192",
        "typed error", "ExpressionLimitError",
    ),
    "100,000 nested parentheses": ('GuardSet.parse("(" * 100_000 + "s0" + ")" * 100_000 + " > 1")', "typed error", "GuardParseError"),
    "JSON nested 100,000 deep": ('GuardSet.from_json("[" * 100_000 + "]" * 100_000)', "typed error", "GuardParseError"),
    "a line of 10**6 characters": ('GuardSet.parse("s0 + " * 200_000 + "1 > 0")', "typed error", "GuardParseError"),
    "a JSON int of 5,000 digits": (
        "GuardSet.from_json('{\"guards\": [\"s0 > 1\"], \"domain\": {\"s0\": {\"lower\": ' + '9' * 5000 + ', \"upper\": 1}}}')",
        "typed error", "GuardParseError",
    ),
    "to_json of 4,000 guards": (
        'gs = GuardSet.parse("\\n".join(f"L[\'x{i}\'].size()[0] >= {i % 7 + 2}" for i in range(4000)))\n'
        'report("value", value=GuardSet.from_json(gs.to_json()) == gs)',
        "value", True,
    ),
    "a sum of 20,000 terms: text, JSON, HTML, LaTeX, SMT-LIB": (
        "from guards import to_smtlib\n"
        'gs = GuardSet.parse("+".join(f"x{i}" for i in range(20_000)) + " >= 1", "source")\n'
        "texts = [str(gs), repr(gs), gs.to_text('sympy'), gs.to_json(), gs._repr_html_(), gs._repr_latex_(), to_smtlib(gs)]\n"
        'report("value", value=min(len(t) for t in texts) > 20_000 and gs.holds({f"x{i}": 0 for i in range(20_000)}) is False)',
        "value", True,
    ),
}


#: Tighter CPU caps where the old cost was time rather than memory (quadratic work: ~60 s of CPU before the fix).
CPU_CAPS = {"to_json of 4,000 guards": 30}


def run_bomb(body: str, mem: int = MEMORY_CAP, cpu: int = CPU_CAP_S, root: Path = ROOT, timeout: float = 600) -> dict:
    """Run ``body`` in a capped interpreter; its JSON report, or how it died."""
    code = _PRELUDE.format(mem=mem, cpu=cpu, root=str(root), body=textwrap.indent(body, "    "))
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"outcome": f"died (exit {proc.returncode})", "stderr": proc.stderr[-500:]}
    return json.loads(lines[-1])


@pytest.mark.parametrize("name", list(BOMBS))
def test_bomb_ends_with_a_typed_error_or_the_answer(name):
    body, outcome, expected = BOMBS[name]
    got = run_bomb(body, cpu=CPU_CAPS.get(name, CPU_CAP_S))
    assert got["outcome"] == outcome, got
    if outcome == "value":
        assert got["value"] == expected, got
    else:
        assert got["type"] == expected, got


GC_PRESSURE = """
import sys
sys.path.insert(0, {root!r})
import numpy as np
from shapeenv.compile.marks import MARKS, mark_dynamic

class Cycle:  # freed only by the cycle collector, which may run inside MarkTable.mark()
    def __init__(self):
        self.me = self
        self.x = np.zeros((4, 2))
        mark_dynamic(self.x, 0)

for i in range({n}):
    Cycle()
    mark_dynamic(np.zeros((3, 3)), 0)
import gc
gc.collect()
print("done", i + 1, len(MARKS))
"""


def test_mark_table_survives_gc_pressure():
    """The cycle collector frees marked arrays while ``mark()`` holds its lock: this used to deadlock (~80 iterations)."""
    code = GC_PRESSURE.format(root=str(ROOT), n=5000)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    done, count, live = proc.stdout.split()
    assert (done, count) == ("done", "5000")
    assert int(live) == 0  # every finalizer ran: no entry outlives its object
