"""``shapeenv export``: options to example inputs, exit codes, messages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shapeenv import cli
from shapeenv.cli import export as export_cli

ROOT = Path(__file__).resolve().parents[2]
MODELS = "tests.shapeenv.example_models"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["export", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv, expected_lines",
    [
        (  # a letter is a dynamic dim shared by name; numbers are static
            [f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5"],
            ["ExportedProgram unify(x: f32[s0, 5], y: f32[s0, 5])", "s0: [2, oo]   (Dim 'B'; x.size()[0] = y.size()[0])"],
        ),
        (  # distinct letters get distinct default sizes, 8 then 16
            [f"{MODELS}:unify", "--shape", "x=B,F", "--shape", "y=B,F", "--format", "source"],
            ["ExportedProgram unify(x: f32[s0, s1], y: f32[s0, s1])", "y.size()[1] == x.size()[1]"],
        ),
        (  # --dynamic makes a numbered dim dynamic; the sizes agree, so the guard unifies them
            [f"{MODELS}:unify", "--shape", "x=6,5", "--shape", "y=6,5", "--dynamic", "x:0", "--dynamic", "y:0"],
            ["ExportedProgram unify(x: f32[s0, 5], y: f32[s0, 5])", "L['y'].size()[0] == L['x'].size()[0]"],
        ),
        (  # --hint picks the example size (the branch taken depends on it); --range declares what it needs
            [f"{MODELS}:branchy", "--shape", "x=B,3", "--hint", "B=3", "--range", "B=:4"],
            ["add_0: f32[s0, 3] = add(x, 1)", "s0: [2, 4]"],
        ),
        (  # --range bounds the dim and so decides the branch without a guard
            [f"{MODELS}:branchy", "--shape", "x=B,3", "--range", "B=5:64"],
            ["mul_0: f32[s0, 3] = mul(x, 2)", "s0: [5, 64]", "guards (0 recorded"],
        ),
        (
            [f"{MODELS}:scaled", "--shape", "x=N,4", "--int", "k=3", "--dtype", "x=int64"],
            ["ExportedProgram scaled(x: i64[s0, 4], k: 3)", "check(s0 >= 3)  # k must not exceed the batch"],
        ),
        (  # an int given a dim name is symbolic and shares it
            [f"{MODELS}:scaled", "--shape", "x=N,4", "--int", "k=N"],
            ["ExportedProgram scaled(x: f32[s0, 4], k: Sym(s0))"],
        ),
        (  # defaults and keyword-only parameters
            [f"{MODELS}:with_default", "--shape", "x=N,3", "--shape", "bias=3"],
            ["ExportedProgram with_default(x: f32[s0, 3], bias: f32[3])"],
        ),
        (["operator:mul", "--shape", "a=", "--shape", "b=N"], ["ExportedProgram mul(a: f32[], b: f32[s0])"]),
    ],
)
def test_export_prints_the_program(capsys, argv, expected_lines) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, ""), err
    for line in expected_lines:
        assert line in out, out


def test_hints_by_order_of_first_use(capsys) -> None:
    parser = cli.build_parser()
    ns = parser.parse_args(["export", f"{MODELS}:unify", "--shape", "x=B,F", "--shape", "y=B,G", "--hint", "F=16"])
    call_args, _, dynamic = export_cli.build_inputs(export_cli.load_function(ns.target), ns)
    assert [a.shape for a in call_args] == [(8, 16), (8, 24)]
    assert dynamic["y"][1].name == "G"


@pytest.mark.parametrize(
    "argv, expected_code, expected_message",
    [
        ([f"{MODELS}:mismatch", "--shape", "x=B,3", "--shape", "y=5,3"], 1, "ShapeError: mul: sizes s0 and 5"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=C,5"], 1, "sizes s0 and s1 cannot be broadcast"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=C,5", "--hint", "B=8", "--hint", "C=8"], 1, "Constraints violated (C)"),
        ([f"{MODELS}:branchy", "--shape", "x=B,3", "--hint", "B=3"], 1, "B = Dim('B', max=4)"),
        ([f"{MODELS}:unify", "--shape", "x=1,5", "--shape", "y=1,5", "--dynamic", "x:0"], 1, "example size 1 is specialised"),
        ([f"{MODELS}:unify", "--shape", "x=B,5"], 2, "no input for parameter 'y'"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--shape", "z=3"], 2, "has no parameter z"),
        ([f"{MODELS}:unify", "--shape", "x=B,five", "--shape", "y=B,five"], 0, ""),  # 'five' is a dim name
        ([f"{MODELS}:unify", "--shape", "x=B,-5", "--shape", "y=B,5"], 2, "is negative"),
        ([f"{MODELS}:unify", "--shape", "x=B,5.5", "--shape", "y=B,5"], 2, "is not an integer"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--dynamic", "x:4"], 2, "out of range"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--dynamic", "x:a"], 2, "dim numbers"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--dynamic", "w:0"], 2, "no --shape w"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--dtype", "x=complex"], 2, "unknown dtype"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--hint", "Q=3"], 2, "which no --shape or --int uses"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--range", "B=9"], 2, "MIN:MAX"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--range", "B=9:3"], 2, "greater than max"),
        ([f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5", "--hint", "B=70", "--range", "B=2:64"], 1, "outside"),
        ([f"{MODELS}:unify", "--shape", "x5", "--shape", "y=B,5"], 2, "expects NAME=VALUE"),
        ([f"{MODELS}:scaled", "--shape", "x=B,5", "--int", "x=3"], 2, "both --shape and --int"),
        ([f"{MODELS}", "--shape", "x=3"], 2, "expected MODULE:FUNCTION"),
        (["no_such_module_xyz:f", "--shape", "x=3"], 2, "cannot import module 'no_such_module_xyz'"),
        ([f"{MODELS}:nope", "--shape", "x=3"], 2, "has no attribute 'nope'"),
        ([f"{MODELS}:not_a_function"], 2, "not a function"),
        (["os;rm:f"], 2, "not a dotted module path"),
    ],
)
def test_errors_and_exit_codes(capsys, argv, expected_code, expected_message) -> None:
    code, out, err = run(capsys, *argv)
    assert code == expected_code, (out, err)
    assert expected_message in err, err
    assert (out != "") == (expected_code == 0)


def test_the_module_is_found_from_the_current_directory(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "my_model_for_cli.py").write_text("def double(x):\n    return x * 2\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "my_model_for_cli:double", "--shape", "x=N,2")
    assert code == 0 and "ExportedProgram double(x: f32[s0, 2])" in out
    assert str(tmp_path) not in sys.path  # the search path is restored


def test_console_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "shapeenv.cli", "export", f"{MODELS}:unify", "--shape", "x=B,5", "--shape", "y=B,5"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ExportedProgram unify(")
