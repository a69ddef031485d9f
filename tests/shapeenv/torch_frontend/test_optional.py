"""torch stays optional: importing shapeenv (and using it) never imports torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_import_shapeenv_does_not_import_torch():
    code = ("import sys, shapeenv, shapeenv.ops, shapeenv.compile, shapeenv.export.export, shapeenv.errors; "
            "from shapeenv.errors import UnsupportedTorchOpError; "
            "e = shapeenv.ShapeEnv(); x = e.fake_tensor((4, 3), name='x'); (x + 1).sum(0); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
    assert out.stdout.strip() == "False", out.stderr
