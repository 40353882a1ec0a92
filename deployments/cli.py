"""`stmtflow`: the flows' command line plus the deployment commands, `serve` and `render`.

The console script starts here, in the outermost room: `deployments` may import `flows`,
never the other way round, so the commands that need the deployment settings are added to
the flows' parser from this side (`flows.cli.main(extra=...)`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from flows import cli


def add_commands(sub: Any) -> None:
    sv = sub.add_parser("serve", help="serve every deployment with its schedule, no work pool")
    sv.set_defaults(func=cmd_serve)

    dp = sub.add_parser("deployments", help="deployment settings")
    dsub = dp.add_subparsers(required=True, metavar="ACTION")
    dr = dsub.add_parser("render", help="write prefect.yaml from deployments/banks.toml")
    dr.add_argument("--check", action="store_true", help="only report whether it is current")
    dr.set_defaults(func=cmd_deployments_render)


def cmd_serve(args: argparse.Namespace) -> int:
    from deployments.serve import PoolDeploymentsExist, serve

    try:
        serve()
    except PoolDeploymentsExist as exc:
        print(f"stmtflow serve: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_deployments_render(args: argparse.Namespace) -> int:
    from deployments.specs import PREFECT_YAML, render_prefect_yaml

    text = render_prefect_yaml()
    current = PREFECT_YAML.read_text() if PREFECT_YAML.exists() else ""
    if args.check:
        print("prefect.yaml is current" if text == current else "prefect.yaml is out of date")
        return 0 if text == current else 1
    PREFECT_YAML.write_text(text)
    print(f"wrote {PREFECT_YAML}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command, deployment commands included: on `argv` in this process; without, the
    console script's command line, as a process of its own (`cli.run`)."""
    if argv is None:
        cli.run(extra=[add_commands])
    return cli.main(argv, extra=[add_commands])


if __name__ == "__main__":
    main()
