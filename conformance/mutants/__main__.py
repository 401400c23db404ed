"""``python -m conformance.mutants``: the mutant catalogue as the table of docs/mutants.md."""

import sys

from conformance.mutants import main

sys.exit(main())
