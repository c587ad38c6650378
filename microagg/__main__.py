"""``python -m microagg``: see ``microagg.cli``."""

import sys

from .cli import main

sys.exit(main())
