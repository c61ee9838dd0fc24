"""A private Prometheus: its own configuration, storage directory and loopback port, with
the alert rules and recording rules of contrib/ loaded as a user would, scraping one target
every second."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "contrib" / "prometheus" / "ndb-alerts.yml"
OLD_NAMES = ROOT / "contrib" / "prometheus" / "ndbtop-node-disk-names.yml"
DEADLINE = 60.0


def fetch(url: str) -> tuple[int, bytes]:
    """GET ``url``: status and body (errors included)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Prometheus:
    """``prometheus`` scraping one target every second (or as ``scrape``, a configuration's
    ``scrape_configs:`` section, says)."""

    def __init__(self, directory: Path, target: str, scrape: str | None = None) -> None:
        self.port = free_port()
        config = directory / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            f"rule_files:\n  - {json.dumps(str(RULES))}\n  - {json.dumps(str(OLD_NAMES))}\n"
            + (scrape or "scrape_configs:\n  - job_name: ndbtop\n"
               f"    static_configs:\n      - targets: [{json.dumps(target)}]\n"))
        self.log = (directory / "prometheus.log").open("wb")
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={directory / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def api(self, path: str, **params: str) -> dict:
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        status, body = fetch(url)
        if status == 503:
            # Still starting (its storage and rules): wait_for asks again.
            raise ConnectionError(f"prometheus not ready: {body[:80]!r}")
        assert status == 200, body
        reply = json.loads(body)
        assert reply["status"] == "success", reply
        return reply["data"]  # type: ignore[no-any-return]

    def query(self, expr: str) -> list[dict]:
        return self.api("query", query=expr)["result"]  # type: ignore[no-any-return]

    def wait_for(self, expr: str, count: int = 1) -> list[dict]:
        """Poll an instant query until it returns at least ``count`` series."""
        deadline = time.monotonic() + DEADLINE
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"prometheus exited with {self.proc.returncode}")
            try:
                result = self.query(expr)
            except OSError:
                result = []
            if len(result) >= count:
                return result
            if time.monotonic() > deadline:
                raise AssertionError(f"no {expr} in Prometheus after {DEADLINE} s")
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


