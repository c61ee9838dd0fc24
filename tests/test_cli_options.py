"""Options before or after the command: the same meaning in both places, or refused in both.

The matrix test parses every command with every option in both positions. The
others run ``rolling-restart`` against two simulated clusters at once, one named
with ``-c`` before the command and one in ``NDB_CONNECTSTRING``: only the named
one may be touched, and the plan, the question and the audit log name it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.cli.clashes import SQL_OPTIONS
from ndbtop.cli.optionspec import LIVE, Option
from ndbtop.cli.parser import COMMANDS, OPTIONS, PROMPT, build_parser

# What each command needs besides the option under test.
BASE = {LIVE: [], "record": ["out.rec"], "replay": ["out.rec"], "report": ["--bundle", "b.tgz"],
        "completion": ["bash"]}
FLAGS = [o for o in OPTIONS if not o.positional]
# What an option needs beside it to apply (ndbtop.cli.clashes).
NEEDS = {"--minutes": ["--recording", "r.rec"], "--ssh-config": ["--ssh"], "--ssh-user": ["--ssh"],
         "--ssh-option": ["--ssh"], "--replica-mysql-port": ["--replica-mysql-host", "dr1"]}
# The same, for one command only: `config` reads a SQL node only for --diff-running.
NEEDS_IN = {("config", o.name): ["--diff-running"] for o in OPTIONS
            if o.destination in (*SQL_OPTIONS, "no_sql", "defaults_file")}
NEEDS_IN[("mgm", "--timeout")] = ["--wait"]


def sample(o: Option) -> list[str]:
    """The option with a value its type accepts."""
    kwargs = dict(o.kwargs)
    if kwargs.get("action") == "store_true":
        return [o.name]
    if "choices" in kwargs:
        return [o.name, kwargs["choices"][-1]]
    if o.name == "--section":
        return [o.name, "nodes"]
    return [o.name, "4"]


def parse(argv: list[str]) -> tuple[int, argparse.Namespace | None, str]:
    try:
        return 0, build_parser().parse_args(argv), ""
    except SystemExit as exc:
        return int(exc.code or 0), None, ""


@pytest.mark.parametrize("command", [LIVE, *COMMANDS], ids=lambda c: c or "live-view")
@pytest.mark.parametrize("o", FLAGS, ids=lambda o: o.name)
def test_every_option_in_both_positions(
    command: str, o: Option, capsys: pytest.CaptureFixture[str]
) -> None:
    words = sample(o)
    head = [command] if command else []
    base = [] if o.name in BASE.get(command, []) else BASE.get(command, [])
    if command in o.commands:
        base = base + NEEDS.get(o.name, []) + NEEDS_IN.get((command, o.name), [])
    before = words + head + base
    after = head + base + words
    results = []
    for argv in (before, after):
        status, args, _ = parse(argv)
        err = capsys.readouterr().err
        results.append((status, args, err))
    if command in o.commands:
        for status, args, err in results:
            assert (status, err) == (0, "")
            assert args is not None
            value = getattr(args, o.destination)
            assert value not in (None, False, o.default), (o.name, value)
            assert o.destination in args.given
        assert getattr(results[0][1], o.destination) == getattr(results[1][1], o.destination)
    else:
        for status, _, err in results:
            assert status == 2
            assert err.count("\n") == 1 and "Traceback" not in err
            assert f"{o.name} does not apply to" in err


def test_defaults_are_those_of_the_command() -> None:
    args = build_parser().parse_args(["rolling-restart"])
    assert (args.connectstring, args.read_only, args.audit_log, args.yes) == (
        None, False, None, False)
    assert not hasattr(args, "ssh") and args.given == frozenset()
    assert args.mysql_host is None and args.gate_wait == 600.0
    assert build_parser().parse_args(["wait"]).interval == 1.0


def test_a_bare_password_option_before_the_command_asks() -> None:
    args = build_parser().parse_args(["-p", "record", "out.rec"])
    assert (args.command, args.mysql_password, args.file) == ("record", PROMPT, "out.rec")
    args = build_parser().parse_args(["-psecret", "report", "--bundle", "b"])
    assert args.mysql_password == "secret"


def test_the_option_after_the_command_wins() -> None:
    args = build_parser().parse_args(["-c", "a:1", "wait", "-c", "b:2"])
    assert args.connectstring == "b:2"


def test_record_refuses_scenario_options_without_demo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["--seed", "3", "record", str(tmp_path / "r")]) == 2
    assert "--seed needs --demo" in capsys.readouterr().err
    assert main(["-c", "127.0.0.1:1", "record", "--demo", str(tmp_path / "r")]) == 2
    assert "--ndb-connectstring cannot apply with --demo" in capsys.readouterr().err


def test_record_demo_refuses_a_context_and_ignores_the_environments(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A recording of the simulator reaches no cluster: --context would be ignored, and
    # $NDBTOP_CONTEXT (with no clusters.toml at all here) must not stop it.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    assert main(["record", "--context", "prod", "--demo", str(tmp_path / "r")]) == 2
    assert "--context cannot apply with --demo" in capsys.readouterr().err
    assert main(["--context", "prod", "record", "--demo", str(tmp_path / "r")]) == 2
    assert "--context cannot apply with --demo" in capsys.readouterr().err
    monkeypatch.setenv("NDBTOP_CONTEXT", "prod")
    seen: list[object] = []
    monkeypatch.setattr("ndbtop.cli.record._record", lambda args: _noted(seen, args))
    assert main(["record", "--demo", str(tmp_path / "r")]) == 0
    assert getattr(seen[0], "context_info", None) is None


async def _noted(seen: list[object], args: object) -> int:
    seen.append(args)
    return 0


@pytest.fixture
def two_clusters(threaded_sim: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Cluster A (to be named on the command line) and B (in $NDB_CONNECTSTRING)."""
    a = threaded_sim("threads")
    b = threaded_sim("threads")
    monkeypatch.setenv("NDB_CONNECTSTRING", b.connectstring)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return a, b


def stops(sim: Any) -> dict[int, int]:
    return {i: n.stops for i, n in sim.cluster.data_nodes.items()}


def test_connect_string_and_audit_log_before_the_command_are_used(
    two_clusters: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two_clusters
    audit = tmp_path / "named.log"
    status = main(["-c", a.connectstring, "--audit-log", str(audit), "rolling-restart",
                   "--yes", "--nodes", "2"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert stops(a)[2] == 1 and set(stops(b).values()) == {0}
    assert (f"plan for the cluster at management server {a.connectstring}, configuration "
            "generation 1 ") in out
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert {r["target"] for r in records} == {a.connectstring}
    assert {r["generation"] for r in records} == {1}
    assert [r["event"] for r in records] == ["sent", "reply"]
    # The named log instead of the state directory's (the start history may go there).
    assert list((tmp_path / "state").rglob("audit.log")) == []


def test_dry_run_names_the_cluster(two_clusters: Any, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = two_clusters
    assert main(["rolling-restart", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"plan for the cluster at management server {b.connectstring}, "
                          f"configuration generation 1 (connect string {b.connectstring}): "
                          "2 step(s)")
    assert set(stops(a).values()) == set(stops(b).values()) == {0}


@pytest.mark.parametrize(
    ("argv", "cnf", "origin"),
    [
        (["--read-only", "rolling-restart"], None, "--read-only"),
        (["rolling-restart", "--read-only"], None, "--read-only"),
        (["rolling-restart"], "[ndbtop]\nread_only\n", "read_only in {home}/.my.cnf [ndbtop]"),
        (["rolling-restart"], "[ndbtop]\nread-only = on\n", "read_only in {home}/.my.cnf [ndbtop]"),
        (["--defaults-file", "{home}/x.cnf", "rolling-restart"], "", "read_only in {home}/x.cnf"),
    ],
)
def test_read_only_blocks_the_rolling_restart(
    two_clusters: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    argv: list[str], cnf: str | None, origin: str,
) -> None:
    a, _ = two_clusters
    if cnf is not None:
        (tmp_path / ".my.cnf").write_text(cnf)
    (tmp_path / "x.cnf").write_text("[client]\nuser=x\n[ndbtop]\nread_only=1\n")
    argv = [w.replace("{home}", str(tmp_path)) for w in argv]
    status = main(["-c", a.connectstring, *argv, "--yes"])
    out, err = capsys.readouterr()
    assert status == 1
    assert err.startswith(f"ndbtop: refused: read-only ({origin.format(home=tmp_path)}")
    assert err.endswith("; nothing was sent\n")
    assert out == ""  # refused before a plan is shown, as mgm refuses a change
    assert set(stops(a).values()) == {0}
    assert not (tmp_path / "state").exists()


def test_read_only_off_in_the_option_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".my.cnf").write_text("[ndbtop]\nread_only=off\n")
    assert main(["rolling-restart", "-c", "127.0.0.1:1", "--yes"]) == 3
    assert "cannot connect" in capsys.readouterr().err
    (tmp_path / ".my.cnf").write_text("[ndbtop]\nread_only=maybe\n")
    assert main(["rolling-restart", "-c", "127.0.0.1:1", "--yes"]) == 2
    assert "read_only 'maybe'" in capsys.readouterr().err
