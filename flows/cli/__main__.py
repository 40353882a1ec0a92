"""`python -m flows.cli`: the same as the `stmtflow` command."""

import sys

from flows.cli import main

sys.exit(main())
