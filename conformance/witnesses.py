"""``python -m conformance.witnesses`` (the documented spelling): regenerate the witness data.

The witnesses live in :mod:`conformance.generate.witnesses`; this module only
keeps the command that the data file names as its generator.
"""

import sys

from conformance.generate.witnesses import main

__all__ = ["main"]

if __name__ == "__main__":  # pragma: no cover - a command
    sys.exit(main())
