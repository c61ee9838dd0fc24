"""What a command prints names the context it worked on: the plugin line of ``check``,
the first line (and ``context``) of ``--once``, ``wait``'s and ``rolling-restart``'s first
lines, the bundle's manifest. ``$NDBTOP_CONTEXT`` chooses a cluster the command line does
not show, so the output has to."""

from __future__ import annotations

import json
import socket
import tarfile
from pathlib import Path
from typing import Any

import pytest

from ndbtop.report.as_json import report_json
from ndbtop.report.as_text import heading_text
from ndbtop.report.findings import check_line
from ndbtop.report.once_sections import sections_json
from ndbtop.sanitise import PLUGIN_BAR
from tests.contexts.conftest import Run
from tests.findings.test_rules_server_words import snap


def test_the_plugin_line_names_the_context_after_its_status() -> None:
    code, line = check_line(snap(), (), warning_only=False, cluster="prod")
    assert code == 0 and line.startswith("NDB OK - prod: data nodes started 4/4 | critical=0")
    # The perfdata are the same with or without a context: one service is one cluster.
    assert line.split(" | ")[1] == check_line(snap(), (), warning_only=False)[1].split(" | ")[1]


def test_the_report_names_the_context_in_its_heading_and_json() -> None:
    assert heading_text(snap(), "prod").startswith("Cluster prod at ")
    assert heading_text(snap()).startswith("Cluster at ")
    assert list(report_json(snap(), context="dr"))[:2] == ["context", "time"]
    assert report_json(snap())["context"] is None
    assert sections_json(snap(), ["processes"], "dr")["context"] == "dr"
    assert sections_json(snap(), ["nodes"], "dr")["context"] == "dr"


def test_check_on_a_context_that_cannot_be_used_is_unknown_naming_it(
        run: Run, clusters_file: Any) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    clusters_file(f'[qa]\nconnectstring = "127.0.0.1:{port}"\nno_sql = true\n')
    status, out, err = run("check", "--context", "nope")
    # A plugin's 2 is CRITICAL: a context the file lacks is UNKNOWN, on stdout.
    assert (status, err) == (3, "")
    assert out.startswith("NDB UNKNOWN - nope: no context 'nope' in ") and out.count("\n") == 1
    status, out, _ = run("check", "--context", "qa", "--no-host")
    assert status == 3 and out.startswith(f"NDB UNKNOWN - qa: cannot connect to a management "
                                          f"server: 127.0.0.1:{port}")
    # The name is the plugin's text: no '|' reaches it (it starts the perfdata).
    status, out, _ = run("check", "--context", "a|b")
    assert status == 3 and out.startswith(f"NDB UNKNOWN - a{PLUGIN_BAR}b: ")


def test_every_command_names_the_context_it_worked_on(
        run: Run, clusters_file: Any, threaded_sim: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    sim = threaded_sim("threads")
    clusters_file(f'[prod]\nconnectstring = "{sim.connectstring}"\nno_sql = true\n')
    monkeypatch.setenv("NDBTOP_CONTEXT", "prod")
    fast = ("--interval", "0.3")
    status, out, _ = run("check", "--no-host", *fast)
    assert status == 0 and out.startswith("NDB OK - prod: data nodes started 2/2")
    status, out, _ = run("--once", "--no-host", *fast)
    assert status == 0 and out.startswith(f"Cluster prod at {sim.connectstring}, NDB ")
    status, out, _ = run("--once", "--json", "--no-host", *fast)
    assert status == 0 and json.loads(out)["context"] == "prod"
    status, out, _ = run("--once", "--section", "nodes", "--no-host", *fast)
    assert status == 0 and out.startswith("Cluster prod at ")
    status, out, err = run("wait", "--status", "started", "--timeout", "10", *fast)
    assert status == 0
    assert err.splitlines()[0] == f"ndbtop: waiting on context prod ({sim.connectstring})"
    status, out, _ = run("rolling-restart", "--dry-run")
    assert status == 0 and out.startswith(
        f"plan for the cluster prod at management server {sim.connectstring}, ")
    status, out, _ = run("rolling-restart", "--dry-run", "--json")
    plan = json.loads(out.splitlines()[0])
    assert status == 0 and (plan["event"], plan["context"]) == ("plan", "prod")
    bundle = tmp_path / "b.tar.gz"
    status, _, err = run("report", "--bundle", str(bundle), "--no-host", "--events-seconds",
                         "0", *fast)
    assert status == 0, err
    with tarfile.open(bundle) as tar:
        def read(name: str) -> str:
            member = tar.extractfile(f"ndbtop-bundle/{name}")
            assert member is not None
            return member.read().decode()

        assert read("MANIFEST.txt").splitlines()[2] == "context prod"
        assert read("report.txt").startswith("Cluster prod at ")
        assert json.loads(read("report.json"))["context"] == "prod"
