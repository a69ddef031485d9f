"""Sphinx configuration: the API reference from the docstrings, and the guides (the README, Markdown).

Built in CI with warnings as errors: ``python3 -m sphinx -W --keep-going -b html docs docs/_build/html``.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import shapeenv  # noqa: E402 -- after the path, so the checkout's package is documented

project = "shapeenv"
author = "the shapeenv developers"
release = version = shapeenv.__version__
copyright = "2026, the shapeenv developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "api/generated/**/*.rst.tmp"]
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True  # "Attributes:" as fields: no second description of dataclass fields
myst_heading_anchors = 3
html_theme = "alabaster"
html_title = f"shapeenv {release}"
# Two classes share the name ShapeEnv (the core and the tensor-world facade) and a few attributes share
# names across classes: a short cross-reference resolves to the first match instead of warning.
suppress_warnings = ["myst.xref_missing", "ref.python"]
