"""``python -m conformance.cli``: the ``plancheck`` command."""

import sys

from conformance.cli import main

sys.exit(main())
