"""The README's ``shapeenv.torch`` example runs and prints what its comments say."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

ROOT = Path(__file__).resolve().parents[3]


def test_readme_torch_example_prints_what_its_comments_say():
    readme = (ROOT / "README.md").read_text()
    code = re.search(r"## Torch models \(`shapeenv.torch`\).*?```python\n(.*?)```", readme, re.S).group(1)
    claimed = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == claimed
