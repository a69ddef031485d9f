"""Every notebook in ``notebooks/`` executes top to bottom, says what its outputs show, and gives the same outputs twice.

Claims convention: a code cell may carry the metadata ``{"shapeenv": {"expect": ["substring", ...]}}``;
after re-execution each listed substring must occur in that cell's text output (stdout, the
``text/plain`` of results and displays, error names and values). Tag the cells whose output the
markdown around them describes, with the words the text promises.

Notebooks that need torch (notebook metadata ``{"shapeenv": {"needs": ["torch"]}}``) are marked
``torch``: they run where torch is installed, in ``.ci/run``'s torch stage (``pytest -m torch tests``),
and are skipped, with the reason, where it is not.

Determinism: a second execution (a fresh kernel, so another hash seed) must give the same text
outputs, after normalising memory addresses (``0x7f...``) and durations (``26.0 ms``, ``1.5 us``,
``compile_seconds=0.2``), which differ from run to run on any machine.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="install the test extra: pip install -e '.[test]'")
nbclient = pytest.importorskip("nbclient", reason="install the test extra: pip install -e '.[test]'")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def needs(path: Path) -> list[str]:
    """The optional packages a notebook says it needs (its metadata ``shapeenv.needs``)."""
    return list(nbformat.read(path, as_version=4).metadata.get("shapeenv", {}).get("needs", []))


def _param(path: Path):
    """``path`` as a test parameter; a notebook needing torch is marked ``torch`` (the CI stage that installs it)."""
    return pytest.param(path, id=path.name, marks=[pytest.mark.torch] if "torch" in needs(path) else [])


PARAMS = [_param(p) for p in NOTEBOOKS]

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_DURATION = re.compile(r"\d+(?:\.\d+)?(?:e-?\d+)?\s?(?:ns|us|µs|ms)\b|(?<=seconds=)\d+(?:\.\d+)?(?:e-?\d+)?")


def execute(path: Path):
    """The notebook at ``path``, executed in a fresh kernel (skipped when a package it needs is missing)."""
    for name in needs(path):
        pytest.importorskip(name, reason=f"{path.name} needs {name}: it runs in .ci/run's torch stage")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError naming the failing cell
    return nb


def cell_text(cell) -> str:
    """A code cell's text outputs, concatenated."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(out.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", ""))
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "".join(parts)


def normalised(text: str) -> str:
    """``text`` with memory addresses and durations replaced by placeholders.

    >>> normalised("<object at 0x7f3a2c> traced in 26.0 ms, 1.52 us, compile_seconds=0.118, 5 sources")
    '<object at 0x?> traced in <duration>, <duration>, compile_seconds=<duration>, 5 sources'
    """
    return _DURATION.sub("<duration>", _ADDRESS.sub("0x?", text))


def expectations(cell) -> list[str]:
    """The substrings a cell's metadata says its output shows."""
    return list(cell.get("metadata", {}).get("shapeenv", {}).get("expect", []))


_EXECUTED: dict[Path, object] = {}  # each notebook once per test session, shared by the tests below


def executed(path: Path):
    if path not in _EXECUTED:
        _EXECUTED[path] = execute(path)
    return _EXECUTED[path]


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ should hold at least one notebook"


@pytest.mark.parametrize("path", PARAMS)
def test_notebook_executes(path: Path) -> None:
    nb = executed(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            assert not errors, f"{path.name}: cell raised {errors[0].get('ename')}: {errors[0].get('evalue')}"


@pytest.mark.parametrize("path", PARAMS)
def test_tagged_cells_show_what_their_text_promises(path: Path) -> None:
    nb = executed(path)
    broken = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        text = cell_text(cell)
        missing = [s for s in expectations(cell) if s not in text]
        if missing:
            broken.append(f"cell {i} ({cell.source.splitlines()[0][:60]!r}) does not show {missing}; it printed:\n{text[:1500]}")
    assert not broken, f"{path.name}:\n" + "\n\n".join(broken)


@pytest.mark.parametrize("path", PARAMS)
def test_cells_that_draw_a_figure_show_it(path: Path) -> None:
    """A cell that makes a matplotlib figure must leave it in the notebook as an image (not Agg + show)."""
    nb = executed(path)
    draws = ("plt.subplots(", "plt.figure(", "plt.plot(")
    blank = [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        and any(d in cell.source for d in draws)
        and not any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
    ]
    assert not blank, f"{path.name}: cells {blank} draw a figure but show no image/png output"


@pytest.mark.parametrize("path", PARAMS)
def test_outputs_are_the_same_when_executed_again(path: Path) -> None:
    first, second = executed(path), execute(path)
    cells = [(i, a, b) for i, (a, b) in enumerate(zip(first.cells, second.cells)) if a.cell_type == "code"]
    differ = [
        f"cell {i}:\n  first : {normalised(cell_text(a))[:600]!r}\n  second: {normalised(cell_text(b))[:600]!r}"
        for i, a, b in cells
        if normalised(cell_text(a)) != normalised(cell_text(b))
    ]
    assert not differ, f"{path.name} printed different outputs on a second run (seed everything):\n" + "\n".join(differ)


def test_key_cells_of_the_first_notebooks_are_tagged() -> None:
    for path in NOTEBOOKS:
        if path.name[:2] in ("01", "02", "03", "04"):
            nb = nbformat.read(path, as_version=4)
            tagged = [c for c in nb.cells if c.cell_type == "code" and expectations(c)]
            assert len(tagged) >= 4, f"{path.name}: tag the cells whose output the text describes ({len(tagged)} tagged)"


def test_the_claims_check_reads_tags_and_all_kinds_of_text_output() -> None:
    cell = nbformat.v4.new_code_cell("print(1)", metadata={"shapeenv": {"expect": ["no guard", "Eq(s0, 4)"]}})
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="guards: no guard\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "GuardSet(Eq(s0, 4))"}, execution_count=1),
    ]
    assert expectations(cell) == ["no guard", "Eq(s0, 4)"]
    text = cell_text(cell)
    assert all(s in text for s in expectations(cell)) and "a guard was added" not in text
