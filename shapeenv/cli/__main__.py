"""``python -m shapeenv.cli``: the ``shapeenv`` command."""

import sys

from shapeenv.cli import main

if __name__ == "__main__":  # importing this module (as the API reference does) runs nothing
    sys.exit(main())
