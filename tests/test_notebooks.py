"""Every notebook in ``notebooks/`` executes top to bottom without an error."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="install the test extra: pip install -e '.[test]'")
nbclient = pytest.importorskip("nbclient", reason="install the test extra: pip install -e '.[test]'")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ should hold at least one notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError naming the failing cell
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            assert not errors, f"{path.name}: cell raised {errors[0].get('ename')}: {errors[0].get('evalue')}"
