"""Commands that talk to no API start without importing Prefect (2.5 s of their start)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import generate

PROBE = """import sys
from flows.cli import main
code = main(sys.argv[1:])
print("prefect imported" if "prefect" in sys.modules else "no prefect", code)
"""


@pytest.mark.parametrize("command", [
    ["parse", "{pdf}"], ["parse", "{pdf}", "--explain"], ["templates", "suggest", "{pdf}"],
    ["templates", "check", "parsers/templates/northwind.toml", "{pdf}"], ["templates", "list"],
    ["sample", "{tmp}/more", "--statements", "1"],
    ["book", "export", "--format", "csv", "--output", "{tmp}/book.csv"]])
def test_a_one_file_command_imports_no_prefect(tmp_path: Path, command: list[str]) -> None:
    [sample] = generate(tmp_path / "in", ("northwind",), 1, seed=5)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env |= {"PREFECT_HOME": str(tmp_path / "prefect"), "STMTFLOW_HOME": str(tmp_path / "home")}
    args = [a.format(pdf=sample.pdf, tmp=tmp_path) for a in command]
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False,
                          cwd=Path(__file__).parents[2])
    assert done.stdout.splitlines()[-1] == "no prefect 0", done.stderr


def test_a_prefect_profile_naming_an_api_is_seen_without_importing_prefect(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flows.secret_blocks import api_configured

    for key in [k for k in os.environ if k.startswith("PREFECT_")]:
        monkeypatch.delenv(key)
    profiles = tmp_path / "profiles.toml"
    monkeypatch.setenv("PREFECT_PROFILES_PATH", str(profiles))
    monkeypatch.delitem(sys.modules, "prefect.settings", raising=False)
    profiles.write_text('active = "local"\n[profiles.local]\n')
    assert not api_configured()
    profiles.write_text('active = "remote"\n[profiles.remote]\n'
                        'PREFECT_API_URL = "http://127.0.0.1:4200/api"\n')
    assert api_configured()
