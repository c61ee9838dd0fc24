"""``python -m ndbtop``."""

import sys

from ndbtop.cli import main

sys.exit(main())
