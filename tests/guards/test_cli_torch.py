"""The ``shapeenv guards`` commands on torch's raw output (shapeenv/cli/guards_torch.py and its hooks in shapeenv/cli/guards.py)."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from shapeenv.cli.guards import EXAMPLES, main

DUMPS = Path(__file__).parent / "data" / "torch_dumps"
ROOT = Path(__file__).resolve().parents[2]
CNN, PAD, PATCH, TRANS = (str(DUMPS / f"{n}.log") for n in ("cnn", "pad_pool", "patchify", "transformer"))


def _run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["check", "simplify", "region"])
def test_raw_dumps_are_read_directly(command, capsys) -> None:
    code, out, err = _run([command, CNN], capsys)
    assert code == 0, err
    assert out.startswith("# torch guard log: entry 0/1 of 2 (39 guards kept; skipped: 35 DIMENSION_DYNAMIC_MARKING_GUARD")


def test_diff_of_two_entries_of_one_dump(capsys) -> None:
    code, out, _ = _run(["diff", CNN, CNN, "--json"], capsys)
    assert code == 0 and json.loads(out)["equivalent"] == "yes"
    code, out, _ = _run(["diff", PAD, PAD, "--entry", "0/0", "--json"], capsys)
    assert json.loads(out)["equivalent"] == "yes"


def test_explain_answers_why_it_recompiles_from_new_shapes(capsys) -> None:
    code, out, _ = _run(["explain", CNN, "--shape", "L['x']=16,3,20,24"], capsys)
    assert code == 1
    assert out.startswith("recompile: none of the 2 entries accepts these inputs")
    assert "2 <= L['x'].size()[0] <= 15 failed: got 16" in out and "line 546 LAMBDA_GUARD" in out
    code, out, _ = _run(["explain", CNN, "--shape", "x=3,3,20,24"], capsys)
    assert code == 0 and out.startswith("reused: entry 0/1")


def test_explain_with_strides_picks_the_transposed_entry(capsys) -> None:
    # (3, 7, 16) laid out as a transpose of (7, 3, 16): strides (16, 48, 1) -- entry 0/2 was compiled for it
    code, out, _ = _run(["explain", TRANS, "--shape", "x=3,7,16", "--stride", "x=16,48,1", "--json"], capsys)
    report = json.loads(out)
    assert code == 0 and report["reused"] == "0/2"
    code, out, _ = _run(["explain", TRANS, "--shape", "x=3,7,16", "--json"], capsys)
    assert json.loads(out)["reused"] == "0/1"  # contiguous


def test_explain_reads_a_recompiles_log(capsys) -> None:
    code, out, _ = _run(["explain", PAD, "--recompiles"], capsys)
    assert code == 1
    assert "entry 0/1: L['x'].stride()[2] == 1 failed: got 2  (guard at line 164)" in out
    code, out, _ = _run(["explain", PAD, "--recompiles", "--json"], capsys)
    assert [r["entry"] for r in json.loads(out)["recompiles"]] == ["0/1", "0/2"]


def test_eval_nested_inputs_with_torch_names(capsys) -> None:
    code, out, _ = _run(["eval", PATCH, "--shape", "L['xs'][0]=3,3,12,16", "xs[1]=3,2,8"], capsys)
    assert code == 0 and out.splitlines()[-1] == "accepted", out
    code, out, _ = _run(["eval", PATCH, "--shape", "L['xs'][0]=3,3,13,16", "--shape", "xs[1]=3,2,8"], capsys)
    assert code == 1 and "rejected:" in out


def test_region_in_words_and_as_a_map(capsys) -> None:
    code, out, err = _run(["region", PATCH, "--range", "0:24"], capsys)
    assert code == 0, out + err
    assert "L['xs'][0].size()[2]: 8, 12, ..., 24 (every 4th)" in out
    assert "L['xs'][1].size()[0] == L['xs'][0].size()[0]" in out
    code, out, _ = _run(["region", CNN, "--over", "L['x'].size()[0]", "L['x'].size()[2]", "--range", "0:20", "--json"], capsys)
    report = json.loads(out)
    grid = report["map"]["grid"]
    assert grid[12][2] and not grid[12][16] and not grid[8][2]  # H=12,B=2 ok; B=16 > 15; H=8 too small
    assert report["ranges"]["x.size()[0]"] == [2, 15]


def test_region_plot_needs_only_matplotlib(tmp_path, capsys) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "r.png"
    code, out, _ = _run(["region", CNN, "--range", "0:20", "--plot", str(png)], capsys)
    assert code == 0 and png.stat().st_size > 1000


def test_strict_mode_and_errors(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.log"
    bad.write_text("TREE_GUARD_MANAGER:\n+- NEW_KIND: ___x(L['x'])\n+- LAMBDA_GUARD: 2 <= L['x'].size()[0]\n")
    assert _run(["check", str(bad)], capsys)[0] == 0
    code, _, err = _run(["check", str(bad), "--strict"], capsys)
    assert code == 2 and "NEW_KIND" in err and "line 2" in err
    code, _, err = _run(["check", CNN, "--entry", "7/7"], capsys)
    assert code == 2 and "0/0, 0/1" in err


def test_json_on_every_subcommand(capsys) -> None:
    for argv in (["check", CNN], ["simplify", PAD], ["diff", PAD, PAD], ["explain", PAD, "--shape", "x=3,4,15"],
                 ["eval", PAD, "--shape", "x=3,4,15"], ["region", PAD]):  # fmt: skip
        code, out, _ = _run(argv + ["--json"], capsys)
        report = json.loads(out)
        assert report["command"] == argv[0] and report["exit_code"] == code


def test_broken_pipe_is_quiet() -> None:
    cmd = f"{shlex.quote(sys.executable)} -m shapeenv.cli.guards check {shlex.quote(CNN)} --format source | head -c 10"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


_FILES = {"dump.log": PAD, "guards.txt": str(DUMPS.parent / "example_guards.txt"), "a.txt": str(DUMPS.parent / "example_guards.txt"),
          "b.txt": str(DUMPS.parent / "example_guards.txt"), "region.png": "/dev/null",
          "ours.txt": str(DUMPS.parent / "torch_runs" / "export_derived_ours.txt"),
          "export.txt": str(DUMPS.parent / "torch_runs" / "export_derived.txt"),
          "trace_dir": str(DUMPS.parent / "torch_runs" / "mask_trace")}  # fmt: skip


@pytest.mark.parametrize("command", sorted(EXAMPLES))
def test_help_examples_paste_into_bash(command, capsys, monkeypatch, tmp_path) -> None:
    """Every example line parses as bash words and runs (file names mapped to sample files) without a usage error."""
    for line in EXAMPLES[command].splitlines()[1:]:
        words = shlex.split(line.split(";")[-1].split("|")[-1])
        stdin = None
        if "|" in line:
            stdin = shlex.split(line.split("|")[0])[1] + "\n"  # echo "TEXT" | ...
        assert words[:2] == ["shapeenv", "guards"], line
        argv = [_FILES.get(w, w) for w in words[2:]]
        if "--plot" in argv:
            pytest.importorskip("matplotlib")
            argv[argv.index("--plot") + 1] = str(tmp_path / "r.png")
        if command == "explain" and "--shape" in argv and "L['x']=5,9,12" in argv:
            argv = [a.replace("5,9,12", "3,4,15") for a in argv]
        code, out, err = _run(argv, capsys, stdin, monkeypatch)
        assert code in (0, 1), f"{line!r} -> exit {code}: {err}"


def test_a_dynamic_only_log_is_read_through_its_symbols(tmp_path, capsys) -> None:
    """TORCH_LOGS=+dynamic lines alone (no guard tree): create_symbol gives sources and ranges, eval lines the guards."""
    lines = [line for line in Path(CNN).read_text().splitlines() if "create_symbol" in line or "[guard added]" in line]
    log = tmp_path / "dynamic.log"
    log.write_text("\n".join(lines) + "\n")
    code, out, _ = _run(["explain", str(log), "--shape", "x=16,3,20,24"], capsys)
    assert code == 1 and "x.size()[0] < 16 failed: got 16" in out and out.startswith("# torch +dynamic log: compile 0/1 (3 symbols")
    code, out, _ = _run(["eval", str(log), "--shape", "x=3,3,20,24"], capsys)
    assert code == 0
