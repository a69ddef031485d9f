"""What ``shapeenv guards`` says when the user's input is wrong: the file, the input and the rank by name."""

from __future__ import annotations

import pytest

from guards import GuardParseError, GuardSet
from shapeenv.cli import main

GUARDS_2D = "L['x'].size()[0] >= 2\nL['x'].size()[1] == 4\nL['x'].stride()[0] == 4\n"


@pytest.fixture
def guard_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text(GUARDS_2D)
    return path


def test_a_shape_of_the_wrong_rank_says_how_many_dims_the_input_has(guard_file, capsys) -> None:
    # before: "cannot read x.size()[1] from _ContiguousInput: tuple index out of range"
    assert main(["guards", "explain", str(guard_file), "--shape", "x=9"]) == 2
    err = capsys.readouterr().err
    assert "_ContiguousInput" not in err and "index out of range" not in err
    assert "gives 1 dims" in err and "x has at least 2 dims" in err


def test_an_unknown_input_name_is_called_unknown(guard_file, capsys) -> None:
    # before: "no value given for x.size()[0], ..." as if y had been read
    assert main(["guards", "explain", str(guard_file), "--shape", "y=9,4"]) == 2
    err = capsys.readouterr().err
    assert "unknown input 'y'" in err and "the guards read the inputs: x" in err


def test_a_correct_shape_is_still_accepted(guard_file, capsys) -> None:
    assert main(["guards", "explain", str(guard_file), "--shape", "x=9,4"]) == 0
    assert "accepted" in capsys.readouterr().out


def test_a_parse_error_names_the_file_and_the_line(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("L['x'].size()[0] >= 2\nL['x'].size()[1] === 4\n")
    assert main(["guards", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}, line 2, column 20" in err  # before: "at line 2, column 20" with no file
    with pytest.raises(GuardParseError) as info:
        GuardSet.from_file(bad)
    assert info.value.path == str(bad) and info.value.line == 2
