"""A guard recorded from a notebook cell names the cell as IPython does (``<cell In[5]>:3``), not a temp file."""

from __future__ import annotations

import sys
import types

from guards import Source
from shapeenv import ShapeEnv

CELL_FILE = "/tmp/ipykernel_4242/2871123.py"


def _run_in_cell(source: str, namespace: dict) -> None:
    exec(compile(source, CELL_FILE, "exec"), namespace)  # noqa: S102 -- the test's own text


def test_a_guard_from_a_notebook_cell_names_the_cell(monkeypatch) -> None:
    shell = types.SimpleNamespace(compile=types.SimpleNamespace(_filename_map={CELL_FILE: 5}))
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    env = ShapeEnv()
    ns = {"x": env.create_symint(8, Source.size("x", 0))}
    _run_in_cell("\n\nif x % 4 == 0:\n    pass\n", ns)
    (guard,) = env.guards
    assert guard.provenance.user_frame == "<cell In[5]>:3 in <module>"  # before: "<notebook cell>:3 in <module>"


def test_outside_ipython_a_cell_file_is_a_notebook_cell() -> None:
    env = ShapeEnv()
    ns = {"x": env.create_symint(8, Source.size("x", 0))}
    _run_in_cell("if x % 4 == 0:\n    pass\n", ns)
    assert env.guards[0].provenance.user_frame == "<notebook cell>:1 in <module>"
