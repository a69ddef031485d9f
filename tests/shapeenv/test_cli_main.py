"""The ``shapeenv`` console script itself: ``--version`` and the package's ``__version__``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import shapeenv
from shapeenv.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_a_release_number_and_the_cli_prints_it(capsys) -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", shapeenv.__version__)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"shapeenv {shapeenv.__version__}"


def test_the_build_reads_the_version_from_the_package() -> None:
    # pyproject.toml has no second copy of the number: the wheel's version is shapeenv.__version__
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and 'attr = "shapeenv.__version__"' in text
    assert not re.search(r'^version\s*=\s*"', text, re.M)


def test_python_dash_m_prints_the_version() -> None:
    out = subprocess.run([sys.executable, "-m", "shapeenv.cli", "--version"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"shapeenv {shapeenv.__version__}"
