"""Collection settings: ``shapeenv/torch`` (the optional torch frontend) is collected only where torch is installed."""

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("torch") is not None else ["shapeenv/torch/*"]
