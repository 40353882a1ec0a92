"""Headless Chromium driven over the DevTools protocol (a websocket: `websockets` comes with
Prefect), so a page's script is tested in a real browser with no browser-driver package.

Chromium is a system package (`make chromium`); without it a test using this fails."""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect


class Browser:
    """One headless Chromium with one tab."""

    def __init__(self, profile: Path, width: int = 1500, height: int = 950) -> None:
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        assert exe, "chromium is not installed: `make chromium` (apt-get install chromium)"
        profile.mkdir(parents=True, exist_ok=True)
        port_file = profile / "DevToolsActivePort"
        port_file.unlink(missing_ok=True)  # a profile's earlier browser wrote its own
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-dev-shm-usage", "--remote-debugging-port=0",
             f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.ws = connect(_tab(self.proc, port_file), max_size=None)
        except BaseException:
            self.proc.kill()  # a browser that never answered goes with the failure
            self.proc.wait(timeout=30)
            raise
        self.ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        n = next(self.ids)
        self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            got = json.loads(self.ws.recv(timeout=60))
            if got.get("id") == n:
                assert "error" not in got, got["error"]
                return got["result"]

    def js(self, expression: str) -> Any:
        """The value of `expression` in the page (promises awaited)."""
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                        awaitPromise=True)
        assert "exceptionDetails" not in got, got["exceptionDetails"]
        return got["result"].get("value")

    def until(self, expression: str, seconds: float = 60) -> Any:
        deadline = time.monotonic() + seconds
        while not (value := self.js(expression)):
            assert time.monotonic() < deadline, f"timed out waiting for {expression}"
            time.sleep(0.2)
        return value

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.until("document.readyState === 'complete' && document.body.dataset.ready === '1'"
                   " && [...document.images].every(i => i.complete && i.naturalWidth > 0)")

    def type_into(self, selector: str, text: str) -> None:
        """Select what `selector`'s input holds and type `text` over it, as a person does."""
        self.js(f"(() => {{ const i = document.querySelector({json.dumps(selector)}); "
                "i.focus(); i.select(); return true; })()")
        self.call("Input.insertText", text=text)

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.ws.close()
        self.proc.terminate()
        self.proc.wait(timeout=30)


def _tab(proc: subprocess.Popen[bytes], port_file: Path) -> str:
    """The DevTools websocket of the browser's first tab, once the browser listens."""
    deadline = time.monotonic() + 60
    while not (port_file.exists() and port_file.read_text().strip()):
        assert proc.poll() is None, "chromium exited at start"
        assert time.monotonic() < deadline, "chromium opened no DevTools port"
        time.sleep(0.2)
    port = port_file.read_text().split()[0]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
        return str(next(t for t in json.load(r) if t["type"] == "page")["webSocketDebuggerUrl"])
