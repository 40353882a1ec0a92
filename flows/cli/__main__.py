"""`python -m flows.cli`: the `stmtflow` command without `serve` and `deployments`.

The full command, deployment commands included, is `stmtflow` (`python -m deployments.cli`).
"""

import sys

from flows.cli import main

sys.exit(main())
