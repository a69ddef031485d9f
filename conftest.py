"""Collection settings: modules that import torch at the top (the optional torch frontend ``shapeenv/torch``,
the models of the recorded torch runs) are collected only where torch is installed."""

import importlib.util

_NEEDS_TORCH = ["shapeenv/torch/*", "tests/guards/torch_run_models.py"]
collect_ignore_glob = [] if importlib.util.find_spec("torch") is not None else _NEEDS_TORCH
