"""The README's ten-line example runs and prints what its comments say."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ten_line_example_prints_what_it_claims() -> None:
    readme = (ROOT / "README.md").read_text()
    code = re.search(r"## Ten lines\s+```python\n(.*?)```", readme, re.S).group(1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["False []", "True"]
    assert lines[2:] == ["L['x'].size()[0] >= 4", "(L['x'].size()[0] % 4) == 0"]
    assert "L['x'].size()[0] >= 4" in code and "(L['x'].size()[0] % 4) == 0" in code  # the comment says so too
