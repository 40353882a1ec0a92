"""Configuration kept in Prefect Secret blocks, beside the environment.

On a Prefect server (`PREFECT_API_URL` set) a deployment's runs, on any worker, read the same
secrets without each worker's environment carrying them. Every name below is a `Secret`
block; a `STMTFLOW_*` (or `AWS_*`) variable that is set wins over its block, so a machine
without a server, or a test, configures by environment alone:

- `stmtflow-database-url` — the ledger (`STMTFLOW_DATABASE_URL`);
- `stmtflow-s3-credentials` — JSON `{"key": …, "secret": …, "endpoint_url": …}` for
  `s3://` storage and inboxes (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`,
  `STMTFLOW_S3_ENDPOINT`);
- `stmtflow-webhook-url`, `stmtflow-alert-webhook` — `STMTFLOW_WEBHOOK_URL`,
  `STMTFLOW_ALERT_WEBHOOK`;
- `stmtflow-pdf-passwords-<bank>` — the password of a bank's statements, or a JSON list of
  them (`STMTFLOW_PDF_PASSWORDS`: a JSON object of bank to password or list).

All of them come in one read of the server's Secret blocks. Passwords stay in memory: never
in a log line, an artifact, an event, a result or a parameter (`Settings` does not show them).
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DATABASE_URL = "stmtflow-database-url"
S3_CREDENTIALS = "stmtflow-s3-credentials"
WEBHOOK_URL = "stmtflow-webhook-url"
ALERT_WEBHOOK = "stmtflow-alert-webhook"
PDF_PASSWORDS = "stmtflow-pdf-passwords-"
#: Secret blocks read per page
_PAGE = 200


def api_configured() -> bool:
    """Whether a Prefect API is configured, told without importing Prefect (2.5 s of a
    one-file command's start): the environment's `PREFECT_API_URL`, or the active profile's
    in `$PREFECT_HOME/profiles.toml`; once Prefect is imported, its own settings."""
    if "prefect.settings" in sys.modules:
        from prefect.settings import PREFECT_API_URL

        return bool(PREFECT_API_URL.value())
    if os.environ.get("PREFECT_API_URL"):
        return True
    home = Path(os.environ.get("PREFECT_HOME", Path.home() / ".prefect")).expanduser()
    path = Path(os.environ.get("PREFECT_PROFILES_PATH", home / "profiles.toml")).expanduser()
    try:
        profiles = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return False
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active", "ephemeral")
    return bool(profiles.get("profiles", {}).get(active, {}).get("PREFECT_API_URL"))


def server_secrets() -> dict[str, Any]:
    """Every `stmtflow-*` Secret block's value by name; none without a Prefect server."""
    if not api_configured():
        return {}
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound
    from prefect.settings import PREFECT_API_URL

    if not PREFECT_API_URL.value():
        return {}
    found: dict[str, Any] = {}
    with get_client(sync_client=True) as client:
        offset = 0
        while True:
            try:
                page = client.read_block_documents_by_type("secret", offset=offset,
                                                           limit=_PAGE, include_secrets=True)
            except ObjectNotFound:  # a server without the Secret block type: no secrets
                return found
            found.update((d.name, (d.data or {}).get("value")) for d in page
                         if d.name and d.name.startswith("stmtflow-"))
            if len(page) < _PAGE:
                return found
            offset += _PAGE


def passwords_by_bank(secrets: Mapping[str, Any], variable: str | None
                      ) -> dict[str, tuple[str, ...]]:
    """Each bank's candidate passwords: the variable's (when set), else its blocks'."""
    out = {name.removeprefix(PDF_PASSWORDS): _passwords(value)
           for name, value in secrets.items() if name.startswith(PDF_PASSWORDS)}
    if variable:
        given = json.loads(variable)
        if not isinstance(given, dict):
            raise ValueError("STMTFLOW_PDF_PASSWORDS must be a JSON object of bank to "
                             "password or list of passwords")
        out = {bank: _passwords(value) for bank, value in given.items()}
    return {bank: p for bank, p in out.items() if p}


def _passwords(value: Any) -> tuple[str, ...]:
    """A password, or a list of them (given as a list, or as the JSON text of one)."""
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return (value,)
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value if str(v))
    return (str(value),) if value else ()


def s3_credentials(secrets: Mapping[str, Any]) -> dict[str, str]:
    """The S3 block's fields (`key`, `secret`, `endpoint_url`), from a JSON object or text."""
    value = secrets.get(S3_CREDENTIALS) or {}
    if isinstance(value, str):
        value = json.loads(value)
    unknown = set(value) - {"key", "secret", "endpoint_url"}
    if unknown:
        raise ValueError(f"the {S3_CREDENTIALS} block holds unknown fields: "
                         f"{', '.join(sorted(unknown))}")
    return {k: str(v) for k, v in value.items() if v}
