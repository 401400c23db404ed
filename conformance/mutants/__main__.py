"""``python -m conformance.mutants``: the mutant catalogue as the table of docs/mutants.md."""

import sys

from conformance.mutants.table import main

sys.exit(main())
