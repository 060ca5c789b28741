"""``python -m companion.cli``: the ``gryb-companion`` command."""

import sys

from companion.cli.command import main

sys.exit(main())
