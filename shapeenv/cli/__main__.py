"""``python -m shapeenv.cli``: the ``shapeenv`` command."""

import sys

from shapeenv.cli import main

sys.exit(main())
