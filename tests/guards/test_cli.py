"""End-to-end tests of ``shapeenv guards ...`` (shapeenv/cli/guards.py via shapeenv/cli.py)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from guards import GuardSet
from shapeenv.cli import main

ROOT = Path(__file__).resolve().parents[2]
W2_PATH = ROOT / "benchmarks" / "workloads" / "w2_guards.json"
W2 = json.loads(W2_PATH.read_text())
TRACE = "--shape q=3,4,10,16 k=3,4,10,16 past_k=3,4,24,16 mask=10,34 w_o=64,32".split()


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    """Guard files: W2 (torch text), W2 as JSON, a looser and an unsatisfiable set, a malformed one."""
    made = {
        "w2": "# W2, pasted from torch\n" + "\n".join(W2["guards"]) + "\n",
        "pair": "x.size()[0] == y.size()[0]\n2 <= x.size()[0]\nx.size()[0] % 8 == 0\n",
        "pair_same": "Eq(Mod(L['y'].size()[0], 8), 0)\nL['x'].size()[0] >= 8\nL['y'].size()[0] == L['x'].size()[0]\n",
        "pair_loose": "x.size()[0] == y.size()[0]\n2 <= x.size()[0]\nx.size()[0] % 4 == 0\n",
        "redundant": "L['x'].size()[0] >= 4\nL['x'].size()[0] >= 2  # implied\n",
        "unsat": "L['x'].size()[0] >= 4\nL['x'].size()[0] < 3\n",
        "broken": "L['x'].size()[0] == \n",
        "fermat": "L['a'] * L['a'] * L['a'] + L['b'] * L['b'] * L['b'] == L['c'] * L['c'] * L['c']\nL['a'] >= 1\nL['b'] >= 1\n",
    }
    out = {}
    for name, text in made.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        out[name] = str(path)
    path = tmp_path / "w2.json"
    path.write_text(GuardSet.parse(W2["guards"]).to_json())
    out["w2_json"] = str(path)
    return out


def run(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# (argv with {file} placeholders, exit code, substrings expected in stdout) -- one row per behaviour.
CASES = [
    (["guards", "check", "{w2}"], 0, ["19 guards over 19 sources", "satisfiable: yes", "redundant: none"]),
    (["guards", "check", "{w2_json}"], 0, ["19 guards", "satisfiable: yes"]),
    (["guards", "check", "{redundant}"], 0, ["redundant: 1", "L['x'].size()[0] >= 2", "redundant.txt:2"]),
    (["guards", "check", "{unsat}"], 1, ["satisfiable: no"]),
    (["guards", "check", "{fermat}", "--rlimit", "2000"], 3, ["satisfiable: unknown"]),
    (["guards", "check", "{fermat}", "--budget-rlimit", "1"], 3, ["satisfiable: unknown (budget exhausted)"]),
    (["guards", "diff", "{fermat}", "{pair}", "--budget-rlimit", "1"], 3, ["solver gave up (budget exhausted); raise --budget-rlimit"]),
    (["guards", "simplify", "{redundant}", "--format", "source"], 0, ["2 guards -> 1 guards", "proof of equivalence: yes", "x.size()[0] >= 4"]),
    (["guards", "simplify", "{redundant}", "--format", "sympy"], 0, ["s0 >= 4"]),
    (["guards", "diff", "{pair}", "{pair_same}"], 0, ["equivalent: yes", "A implies B: yes", "B implies A: yes"]),
    (["guards", "diff", "{pair}", "{pair_loose}"], 1, ["equivalent: no", "A implies B: yes", "B implies A: no", "counterexample (accepted by B, rejected by A)", "A: (x.size()[0] % 8) == 0 failed"]),
    (["guards", "explain", "{pair}", "--sizes", "x.size()[0]=3", "y.size()[0]=4"], 1, ["rejected: 2 of 3 guards fail", "x.size()[0] == y.size()[0] failed: got x.size()[0] = 3, y.size()[0] = 4", "(x.size()[0] % 8) == 0 failed: got 3"]),
    (["guards", "explain", "{pair}", "--sizes", "L['x'].size()[0]=1", "y.shape[0]=1"], 1, ["2 <= x.size()[0] failed: got 1"]),
    (["guards", "explain", "{pair}", "--sizes", "x.size()[0]=16", "y.size()[0]=16"], 0, ["accepted: all 3 guards hold"]),
    (["guards", "explain", "{w2}", *TRACE[:-2], "mask=10,33", "w_o=64,32"], 1, ["mask.size()[1] == past_k.size()[2] + k.size()[2] failed: got mask.size()[1] = 33, past_k.size()[2] = 24, k.size()[2] = 10"]),
    (["guards", "eval", "{w2}", *TRACE], 0, ["accepted"]),
    # The first failing guard in file order is reported, not the cheapest one.
    (["guards", "eval", "{w2}", *TRACE, "--sizes", "q.size()[0]=1"], 1, ["rejected: k.size()[0] == q.size()[0] failed: got k.size()[0] = 3, q.size()[0] = 1"]),
    (["guards", "eval", "{w2}", *TRACE, "--sizes", "q.size()[0]=1", "k.size()[0]=1", "past_k.size()[0]=1"], 1, ["rejected: 2 <= q.size()[0] failed: got 1"]),
    (["guards", "eval", "{w2_json}", *TRACE, "--sizes", "w_o.size()[0]=48"], 1, ["rejected: w_o.size()[0] == 16*q.size()[1] failed"]),
]


@pytest.mark.parametrize("argv, code, expected", CASES, ids=[" ".join(c[0][1:3]) + f"-{k}" for k, c in enumerate(CASES)])
def test_commands(argv, code, expected, files, capsys):
    got, out, err = run([a.format(**files) for a in argv], capsys)
    assert got == code, (argv, out, err)
    for text in expected:
        assert text in out, (argv, text, out)


def test_eval_reproduces_the_w2_verdicts(files, capsys):
    for inputs, verdict in zip(W2["input_sets"], W2["expected_verdicts"]):
        shapes = [f"{n}={','.join(map(str, dims))}" for n, dims in inputs["shapes"].items() if n != "pos"]
        code, out, _ = run(["guards", "eval", files["w2"], "--shape", *shapes], capsys)
        assert code == (0 if verdict else 1), (inputs["label"], out)


def test_json_output(files, capsys):
    code, out, _ = run(["guards", "explain", files["pair"], "--sizes", "x.size()[0]=3", "y.size()[0]=3", "--json"], capsys)
    report = json.loads(out)
    assert code == 1 and report["exit_code"] == 1 and report["accepted"] is False
    (failure,) = report["failures"]
    assert failure["index"] == 2 and failure["values"] == {"x.size()[0]": 3} and failure["guard"] == "(x.size()[0] % 8) == 0"

    code, out, _ = run(["guards", "diff", files["pair"], files["pair_loose"], "--json"], capsys)
    report = json.loads(out)
    assert code == 1 and report["equivalent"] == "no" and report["counterexample"]["accepted_by"] == "B"
    witness = report["counterexample"]["inputs"]
    assert witness["x.size()[0]"] % 4 == 0 and witness["x.size()[0]"] % 8 != 0  # accepted by B only

    code, out, _ = run(["guards", "simplify", files["redundant"], "--json"], capsys)
    report = json.loads(out)
    assert code == 0 and report["guards"] == ["L['x'].size()[0] >= 4"] and report["proof"] == "yes"
    assert GuardSet.from_json(json.dumps(report["guardset"])).holds({"x.size()[0]": 4})

    code, out, _ = run(["guards", "check", files["w2"], "--json"], capsys)
    report = json.loads(out)
    assert code == 0 and report["satisfiable"] == "yes" and report["redundant"] == []
    assert GuardSet.parse(W2["guards"]).holds(report["witness"])  # the witness really satisfies the set


def test_simplified_output_reads_back_as_an_equivalent_set(files, capsys, tmp_path):
    code, out, _ = run(["guards", "simplify", files["w2"]], capsys)
    assert code == 0 and out.startswith("#")
    simplified = tmp_path / "simplified.txt"
    simplified.write_text(out)
    code, out, _ = run(["guards", "diff", files["w2"], str(simplified)], capsys)
    assert code == 0 and "equivalent: yes" in out


USAGE_ERRORS = [
    (["guards"], "COMMAND"),
    (["guards", "frobnicate", "x"], "invalid choice"),
    (["guards", "check"], "FILE"),
    (["guards", "check", "/nonexistent/guards.txt"], "No such file"),
    (["guards", "check", "{broken}"], "column"),
    (["guards", "eval", "{pair}", "--sizes", "x.size()[0]"], "expected SOURCE=INT"),
    (["guards", "eval", "{pair}", "--sizes", "x.size()[0]=nine", "y.size()[0]=1"], "expected an integer"),
    (["guards", "eval", "{pair}", "--sizes", "z.size()[0]=1"], "'z.size()[0]' is not a symbol or source"),
    (["guards", "eval", "{pair}", "--sizes", "x.size()[0]=8"], "no value given for y.size()[0]"),
    (["guards", "eval", "{pair}", "--shape", "x=8", "y=8,2", "--sizes", "x.stride()[1]=1"], "is not a symbol or source"),
    (["guards", "check", "{pair}", "--format", "latex"], "invalid choice"),
]


@pytest.mark.parametrize("argv, message", USAGE_ERRORS, ids=[f"usage{k}" for k in range(len(USAGE_ERRORS))])
def test_usage_and_parse_errors_exit_2(argv, message, files, capsys):
    code, out, err = run([a.format(**files) for a in argv], capsys)
    assert code == 2, (argv, out, err)
    assert message in err, (argv, err)


def test_help_documents_exit_codes(capsys):
    for argv in (["--help"], ["guards", "--help"], ["guards", "diff", "--help"]):
        code, out, _ = run(argv, capsys)
        assert code == 0 and "exit codes:" in out and "3  the solver could not decide" in out


def test_reads_standard_input(files, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("L['n'] >= 3\n"))
    code, out, _ = run(["guards", "eval", "-", "--sizes", "n=2"], capsys)
    assert code == 1 and "rejected: n >= 3 failed: got 2" in out, out


HOSTILE_LINES = [
    "__import__('os').system('touch pwned')",
    "L['x'].size()[0] == 1 and exec('open(\"pwned\", \"w\")')",
    "().__class__.__bases__[0].__subclasses__()",
    "(lambda: open('pwned', 'w'))() == 1",
    "L['x'].size()[0] == [open('pwned', 'w')]",
    "L['x'].size()[0] == 1; import os",
]


@pytest.mark.parametrize("line", HOSTILE_LINES, ids=[f"hostile{k}" for k in range(len(HOSTILE_LINES))])
def test_hostile_guard_text_is_rejected_and_never_runs(line, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.txt"
    path.write_text(line + "\n")
    for argv in (["guards", "check", str(path)], ["guards", "eval", str(path), "--sizes", "x.size()[0]=1"]):
        code, _, err = run(argv, capsys)
        assert code == 2 and err.startswith("error:"), (line, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.txt"]


def test_hostile_source_names_end_to_end(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evil = "x'); open('pwned', 'w'); ('"
    path = tmp_path / "evil.txt"
    path.write_text(f"L[{evil!r}].size()[0] == 8\n")
    code, out, _ = run(["guards", "eval", str(path), "--sizes", f"L[{evil!r}].size()[0]=9"], capsys)
    assert code == 1 and "failed: got 9" in out
    code, out, _ = run(["guards", "eval", str(path), "--shape", f"{evil}=8,3"], capsys)
    assert code == 0 and out.strip() == "accepted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.txt"]


def test_console_entry_point_as_a_subprocess(files):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = [sys.executable, "-m", "shapeenv.cli", "guards", "explain", files["pair"], "--sizes", "x.size()[0]=9", "y.size()[0]=9"]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "(x.size()[0] % 8) == 0 failed: got 9" in proc.stdout


def test_simplify_json_reports_its_deterministic_cost(files, capsys):
    runs = []
    for _ in range(2):
        code, out, _ = run(["guards", "simplify", files["w2"], "--json"], capsys)
        runs.append(json.loads(out))
    assert code == 0 and runs[0]["budget_exhausted"] is False and runs[0]["safety_net"] is False
    assert (runs[0]["z3_checks"], runs[0]["rlimit"]) == (runs[1]["z3_checks"], runs[1]["rlimit"])
