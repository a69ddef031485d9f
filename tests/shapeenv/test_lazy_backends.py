"""numpy (and shapeenv.backends) are imported on first use, not by ``import shapeenv``."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_import_shapeenv_does_not_import_numpy():
    out = _run("""
        import sys
        import shapeenv
        env = shapeenv.ShapeEnv()
        x = env.fake_tensor((4, 3), name="x")
        shapeenv.ops.add(x, x)
        print("numpy" in sys.modules, "shapeenv.backends" in sys.modules)
    """)
    assert out == "False False"


def test_ops_on_real_arrays_load_the_kernels_on_first_use():
    out = _run("""
        import sys
        import numpy as np
        import shapeenv
        assert "shapeenv.backends" not in sys.modules
        print(shapeenv.ops.add(np.ones(3, np.float32), np.full(3, 2, np.float32)).tolist(), "shapeenv.backends" in sys.modules)
    """)
    assert out == "[3.0, 3.0, 3.0] True"


def test_a_compiled_function_runs_eagerly_on_numpy_in_a_fresh_process():
    out = _run("""
        import numpy as np
        import shapeenv
        from shapeenv import ops, set_stance

        f = shapeenv.compile(lambda x: ops.mul(x.transpose(0, 1), 2))
        with set_stance("force_eager"):
            y = f(np.arange(6, dtype=np.float32).reshape(2, 3))
        print(type(y).__name__, y.shape, y[2].tolist())
    """)
    assert out == "ndarray (3, 2) [4.0, 10.0]"
