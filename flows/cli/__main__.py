"""`python -m flows.cli`: the `stmtflow` command without `serve` and `deployments`.

The full command, deployment commands included, is `stmtflow` (`python -m deployments.cli`).
"""

from flows.cli import run

run()
