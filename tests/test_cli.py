"""The ``ndbtop`` command line: ``--once`` reports against a running simulator, the one-line
errors with exit status 2, the scenario lists, and the event stream of a starting cluster.

Commands run in-process (``ndbtop.cli.main``) against simulators served from a background
thread; one test runs the installed entry points in subprocesses.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from ndbtop import __version__
from ndbtop.collect.events import levels_from_names
from ndbtop.compat import zip_strict
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.events.decode import decode_event, start_phase
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.wire import RawEvent
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import SCENARIOS, ScenarioOptions, build_scenario
from tests.conftest import run_cli

Run = Callable[[Sequence[str]], tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """Run ``ndbtop`` in-process: (exit status, stdout, stderr)."""

    return lambda argv: run_cli(capsys, argv)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def initial_start_at(seconds: float) -> Any:
    """The initial-start scenario (data nodes 10 and 11, mgmd 1, API 20-24) ``seconds`` in."""
    cluster = build_scenario("initial-start", ScenarioOptions(seed=1))
    cluster.advance_to(seconds)
    return cluster


def test_once_json_reports_every_node(run: Run, threaded_sim: Any) -> None:
    sim = threaded_sim(initial_start_at(600.0), speed=1.0)
    status, out, err = run(["--once", "--json", "--no-sql", "--no-host", "-c", sim.connectstring])
    assert (status, err) == (0, "")
    report = json.loads(out)
    nodes = {n["node_id"]: n for n in report["nodes"]}
    assert list(nodes) == [10, 11, 1, 20, 21, 22, 23, 24]
    for node_id in (10, 11):
        # Phase 4 (redo log creation) runs: get status reports the last completed phase.
        assert {k: nodes[node_id][k] for k in ("type", "status", "start_phase", "version")} == {
            "type": "NDB",
            "status": "STARTING",
            "start_phase": 3,
            "version": "8.4.3",
        }
        assert nodes[node_id]["node_group"] == 0
        assert nodes[node_id]["address"] == f"192.168.0.{node_id}"
    assert {k: nodes[1][k] for k in ("type", "status", "version", "address")} == {
        "type": "MGM",
        "status": "CONNECTED",
        "version": "8.4.3",
        "address": "192.168.0.1",
    }
    for node_id in range(20, 25):
        assert {k: nodes[node_id][k] for k in ("type", "status", "start_phase", "version")} == {
            "type": "API",
            "status": "NO_CONTACT",
            "start_phase": 0,
            "version": None,
        }
        assert nodes[node_id]["address"] == ""
    sources = {s["name"]: s for s in report["sources"]}
    assert (sources["mgm"]["state"], sources["mgm"]["error"]) == ("connected", None)
    assert sources["mgm"]["target"] == sim.connectstring
    assert sources["ndbinfo"]["state"] == "disabled"
    assert sources["ndbinfo"]["error"] == "--no-sql"
    assert sources["host"]["state"] == "disabled"
    assert report["mgm"] == {"address": sim.connectstring, "version": "8.4.3"}


def test_once_text_report(run: Run, threaded_sim: Any) -> None:
    sim = threaded_sim("threads")
    status, out, err = run(["--once", "--no-sql", "--no-host", "-c", sim.connectstring])
    assert (status, err) == (0, "")
    assert out.startswith(f"Cluster at {sim.connectstring}, NDB 8.4.3, ")
    assert "Data nodes started 2/2" in out


def test_demo_once_plays_a_scenario_at_a_given_time(run: Run) -> None:
    status, out, err = run(
        ["demo", "--once", "--json", "--no-sql", "--at", "600", "--interval", "0.1"]
    )
    assert (status, err) == (0, "")
    nodes = {n["node_id"]: n for n in json.loads(out)["nodes"]}
    assert (nodes[10]["status"], nodes[10]["start_phase"]) == ("STARTING", 3)


def one_line_error(status: int, out: str, err: str, expected: int = 2) -> str:
    assert status == expected
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert re.match(r"ndbtop( [a-z-]+)?: error: ", err), err
    return err


@pytest.mark.parametrize(
    ("argv", "message", "status"),
    [
        (["-c", f"127.0.0.1:{free_port()}"], "connection refused", 3),
        (["-c", "nosuchhost.invalid"], "cannot resolve host", 3),
        (["-c", "a" * 64], "cannot resolve host", 3),
        (["-c", "[::1"], "unclosed '['", 2),
        (["-c", "host:abc"], "invalid port 'abc'", 2),
        (["-c", "host:70000"], "port 70000 out of range", 2),
        (["-c", "host:²"], "invalid port", 2),
        (["-c", "nodeid=0,host"], "invalid nodeid", 2),
        (["-c", ";"], "no management server", 2),
    ],
)
def test_connection_problems_are_one_line(
    run: Run, argv: list[str], message: str, status: int
) -> None:
    err = one_line_error(*run(["--once", "--no-sql", "--no-host", *argv]), status)
    assert message in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--json", "--no-sql", "-c", "localhost"], "--json needs --once"),
        (["demo", "--json", "--no-sql"], "--json needs --once"),
        (["demo", "--once", "--no-sql", "--scenario", "nope"], "unknown scenario 'nope'"),
        (["sim", "--no-sql", "--scenario", "nope"], "unknown scenario 'nope'"),
        (["--once", "--interval", "0", "-c", "localhost"], "must be positive"),
        (["--once", "--interval", "abc", "-c", "localhost"], "not a number"),
        (["--once", "--interval", "0.05", "-c", "localhost"], "at least 0.1 s"),
        (["demo", "--once", "--interval", "-1"], "argument --interval"),
        (["sim", "--mgm-port", "70000"], "invalid port '70000'"),
        (["sim", "--sql-port", "²"], "invalid port"),
        (["--once", "--mysql-port", "0", "-c", "localhost"], "invalid port '0' (1-65535)"),
        (["--once", "--mysql-port", "65536", "-c", "localhost"], "invalid port '65536'"),
        (["record", "x.rec", "--mysql-port", "0"], "invalid port '0'"),
        (["export", "--mysql-port", "-1"], "argument --mysql-port"),
        (["--no-such-option"], "unrecognized arguments"),
    ],
)
def test_usage_errors_are_one_line(run: Run, argv: list[str], message: str) -> None:
    err = one_line_error(*run(argv))
    assert message in err


@pytest.mark.parametrize("command", ["demo", "sim"])
def test_scenario_lists(run: Run, command: str) -> None:
    status, out, err = run([command, "--list"])
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(SCENARIOS)
    for line, scenario in zip_strict(lines, SCENARIOS.values()):
        assert scenario.summary in line


def test_entry_points_in_subprocesses() -> None:
    helped = subprocess.run(
        [sys.executable, "-m", "ndbtop", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: ndbtop")
    for command in ("demo", "sim"):
        assert command in helped.stdout
    script = Path(sys.executable).with_name("ndbtop")
    versioned = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert versioned.returncode == 0, versioned.stderr
    # The installed script runs this interpreter, and names the NDB versions it knows.
    first = versioned.stdout.splitlines()[0]
    assert first.startswith(f"ndbtop {__version__} (Python ") and str(script.parent) in first
    assert "7.6, 8.0, 8.4 and 9.x" in versioned.stdout


async def test_event_stream_decodes_start_phases_of_an_initial_start(
    start_sim: Callable[..., Awaitable[Simulator]], manual_time: Any, advance: Any
) -> None:
    sim = await start_sim("initial-start", time=manual_time)
    address = parse_connectstring(sim.connectstring).addresses[0]
    listener = EventListener(address, levels_from_names(None))
    await listener.open()
    try:
        await advance(sim, manual_time, lambda: sim.cluster.data_nodes[11].start_phase >= 3)
        phases = []
        items = listener.items()
        while len(phases) < 8:
            item = await asyncio.wait_for(items.__anext__(), 3.0)
            assert isinstance(item, RawEvent)
            event = decode_event(item, 0.0)
            found = start_phase(event)
            if found is not None:
                assert event.name == "StartPhaseCompleted"
                assert event.text == f"Start phase {found.phase} completed (initial start)"
                assert found.start_type_name == "initial start"
                phases.append((event.source_node, found.phase))
    finally:
        await listener.close()
    assert sorted(phases) == [(n, p) for n in (10, 11) for p in (0, 1, 2, 3)]


def test_report_frequency_reaches_the_simulated_configuration(run: Run) -> None:
    status, out, err = run(["demo", "--once", "--json", "--no-sql", "--at", "600",
                            "--interval", "0.1", "--report-frequency", "60"])
    assert status == 0, err
    config = json.loads(out)["config"]
    assert {d["startup_status_report_frequency"] for d in config["data_nodes"]} == {60}
    status, out, err = run(["demo", "--once", "--json", "--no-sql", "--at", "600",
                            "--interval", "0.1"])
    assert {d["startup_status_report_frequency"]
            for d in json.loads(out)["config"]["data_nodes"]} == {0}


def test_a_bad_report_frequency_is_one_line(run: Run) -> None:
    status, _out, err = run(["demo", "--once", "--report-frequency", "-5"])
    assert status == 2 and len(err.strip().splitlines()) == 1 and "report" in err
