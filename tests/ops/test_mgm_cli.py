"""``ndbtop mgm`` end to end against the simulator: the guards' verdicts with --dry-run,
--yes and --confirm, --read-only, the audit log, the read-only commands, the prompt,
and the one-line refusals (exit 2) that need no server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.actions.commands import Action, RestartNode
from ndbtop.actions.guards import Assessment, assess
from ndbtop.cli import main
from ndbtop.cli.mgm import read_live
from ndbtop.cli.mgm_prompt import completer, history_path, run_prompt
from ndbtop.cli.parser import build_parser
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def call(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err

    return call


def four(*, down: tuple[int, ...] = ()) -> SimCluster:
    """Data nodes 2 and 3 in node group 0, 4 and 5 in group 1; API nodes 7 (connected), 8."""
    c = SimCluster(simple_config(
        "four", ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1)),
        api=((7, None), (8, None)), max_exec_threads=4, connected_api=(7,)))
    c.boot_started()
    if down:
        c.stop_nodes(down)
        c.advance(10)
    return c


def verdict(connectstring: str, action: Action) -> Assessment:
    """The guard's verdict on the live status and configuration, as ``ndbtop mgm`` reads them."""

    async def read() -> Assessment:
        client = MgmClient(parse_connectstring(connectstring))
        try:
            live = await read_live(client)
        finally:
            await client.close()
        return assess(action, live.nodes, live.config)

    return asyncio.run(read())


def stops(c: SimCluster) -> dict[int, int]:
    return {i: n.stops for i, n in c.data_nodes.items()}


def audit_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_abort_restart_of_the_last_node_of_a_group_names_the_loss_and_the_phrase(
    run: Run, threaded_sim: Any, tmp_path: Path
) -> None:
    c = four(down=(3,))
    sim = threaded_sim(c)
    before = stops(c)
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART -a", "--dry-run",
                           "--audit-log", str(tmp_path / "a.log"))
    assert status == 1
    phrase = verdict(sim.connectstring, RestartNode((2,), abort=True)).confirm_text
    assert phrase is not None
    assert "node group" in out
    assert f"confirm by typing: {phrase}" in out
    assert f"would need '{phrase}' typed (--confirm)" in err
    assert f"to the management server {sim.connectstring}, configuration generation" in out
    assert "> restart node v2\n> node: 2\n> abort: 1\n" in out
    assert out.endswith(f"verdict: allowed once '{phrase}' is typed (--confirm); dry run, "
                        "nothing sent\n")
    assert stops(c) == before and audit_records(tmp_path / "a.log") == []


def test_two_nodes_in_one_graceful_restart_name_5031(run: Run, threaded_sim: Any) -> None:
    # Needs the guard for several nodes in one request (server-rules.md §6): the server
    # refuses a graceful multi-node request with 5031.
    sim = threaded_sim(four())
    status, out, _ = run("mgm", "-c", sim.connectstring, "-e", "2 4 RESTART", "--dry-run")
    assert "5031" in out
    assert out.endswith("verdict: refused (above); dry run, nothing sent\n")
    assert status == 1


def test_a_dry_run_ends_with_the_verdict_the_bytes_and_the_server_before_it(
    run: Run, threaded_sim: Any
) -> None:
    c = four()
    sim = threaded_sim(c)
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART", "--dry-run")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[1].startswith(f"to the management server {sim.connectstring}, ")
    assert "> restart node v2" in lines and "> node: 2" in lines
    assert lines[-2:] == ["confirm: yes/no (--yes answers yes)",
                          "verdict: allowed: a run sends it once answered yes (--yes); "
                          "dry run, nothing sent"]
    phrase = verdict(sim.connectstring, RestartNode((2,), initial=True)).confirm_text
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART -i", "--dry-run",
                           "--confirm", str(phrase))
    assert (status, err) == (0, "")
    assert out.endswith("verdict: allowed: a run with this --confirm sends it; dry run, "
                        "nothing sent\n")
    assert stops(c) == {2: 0, 3: 0, 4: 0, 5: 0}


def test_yes_answers_a_plain_question_and_the_action_is_audited(
    run: Run, threaded_sim: Any, tmp_path: Path
) -> None:
    c = four()
    sim = threaded_sim(c)
    log = tmp_path / "a.log"
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART", "--yes",
                           "--audit-log", str(log))
    assert (status, err) == (0, "")
    assert out.endswith("2 RESTART: Ok, restarted: 1\n")
    assert stops(c)[2] == 1
    records = audit_records(log)
    assert [r["event"] for r in records] == ["sent", "reply"]
    assert records[0]["command"] == "2 RESTART" and records[0]["target"] == sim.connectstring
    assert records[0]["request"].startswith("restart node v2\nnode: 2\n")


def test_yes_never_answers_a_typed_phrase_but_confirm_does(
    run: Run, threaded_sim: Any, tmp_path: Path
) -> None:
    c = four()
    sim = threaded_sim(c)
    log = tmp_path / "a.log"
    base = ("mgm", "-c", sim.connectstring, "-e", "2 RESTART -i", "--audit-log", str(log))
    phrase = verdict(sim.connectstring, RestartNode((2,), initial=True)).confirm_text
    assert phrase is not None
    status, _, err = run(*base, "--yes")
    assert status == 1 and "--yes does not skip it" in err and err.count("\n") == 1
    status, _, err = run(*base, "--confirm", phrase + "0")
    assert status == 1 and f"--confirm '{phrase}0' is not '{phrase}'" in err
    assert stops(c)[2] == 0 and audit_records(log) == []
    status, out, err = run(*base, "--confirm", phrase)
    assert (status, err) == (0, "") and out.endswith("2 RESTART -i: Ok, restarted: 1\n")
    assert stops(c)[2] == 1
    sent = audit_records(log)[0]
    assert sent["confirmed_with"] == phrase and sent["command"] == "2 RESTART -i"


def test_without_a_terminal_a_plain_question_is_refused(run: Run, threaded_sim: Any) -> None:
    c = four()
    sim = threaded_sim(c)
    status, _, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART")
    assert status == 1 and "it needs a yes (--yes" in err
    status, _, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART", "--confirm", "2")
    assert status == 1 and "this command asks yes/no" in err
    assert stops(c)[2] == 0


def test_read_only_refuses_changes_and_answers_queries(
    run: Run, threaded_sim: Any, tmp_path: Path
) -> None:
    c = four()
    sim = threaded_sim(c)
    log = tmp_path / "a.log"
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART", "--yes",
                           "--read-only", "--audit-log", str(log))
    assert status == 1 and err == "ndbtop: refused: read-only (--read-only); nothing was sent\n"
    # Refused first: neither the request nor a question it cannot answer is shown.
    assert out == ""
    assert stops(c)[2] == 0 and audit_records(log) == []
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "2 RESTART", "--dry-run",
                           "--read-only")
    assert (status, err) == (1, "ndbtop: would be refused: read-only (--read-only)\n")
    assert out.endswith("verdict: refused: read-only (--read-only); dry run, nothing sent\n")
    status, out, _ = run("mgm", "-c", sim.connectstring, "-e", "ALL STATUS", "--read-only")
    assert status == 0 and out.startswith("Node 2: started (")


def test_queries_need_no_confirmation(run: Run, threaded_sim: Any, tmp_path: Path) -> None:
    sim = threaded_sim(four(down=(5,)))
    cs = sim.connectstring
    status, out, err = run("mgm", "-c", cs, "-e", "show")
    assert status == 0, err
    assert out.startswith(f"Connected to Management Server at: {cs}\nCluster Configuration\n")
    assert "[ndbd(NDB)]\t4 node(s)\nid=2\t@" in out
    assert "id=5 (not connected, accepting connect from 10.0.0.5)" in out
    assert "id=8 (not connected, accepting connect from any host)" in out
    status, out, _ = run("mgm", "-c", cs, "-e", "5 STATUS")
    assert (status, out) == (0, "Node 5: not connected\n\n")
    status, out, _ = run("mgm", "-c", cs, "-e", "all report memory")
    assert status == 0 and out.startswith("Node 2: Data usage is ")
    status, out, _ = run("mgm", "-c", cs, "-e", "CLUSTERLOG INFO")
    assert status == 0 and out.startswith("Severities enabled: ")
    status, _, err = run("mgm", "-c", cs, "-e", "7 REPORT MEMORY")
    assert (status, err) == (1, "ERROR: node 7 is not a NDB node!\n")


def test_single_user_mode_is_entered_with_its_phrase_and_left(
    run: Run, threaded_sim: Any, tmp_path: Path
) -> None:
    c = four()
    sim = threaded_sim(c)
    log = tmp_path / "a.log"
    base = ("mgm", "-c", sim.connectstring, "--audit-log", str(log))
    status, out, err = run(*base, "-e", "ENTER SINGLE USER MODE 7", "--confirm", "7")
    assert (status, err) == (0, "")
    assert "every API node but 7 loses access" in out
    status, out, _ = run(*base, "-e", "ALL STATUS")
    assert out.startswith("Node 2: single user mode (")
    told = audit_records(log)[0]["told"]
    assert any("loses access" in t for t in told) and any("audit log" in t for t in told)
    status, out, _ = run(*base, "-e", "EXIT SINGLE USER MODE", "--yes")
    assert status == 0 and "exiting single user mode in progress" in out


def test_clusterlog_levels_on_every_data_node(run: Run, threaded_sim: Any) -> None:
    c = four()
    sim = threaded_sim(c)
    status, out, _ = run("mgm", "-c", sim.connectstring, "-e", "ALL CLUSTERLOG STATISTICS=14",
                         "--yes")
    assert status == 0
    assert "> set cluster loglevel\n> node: 5\n> category: 252\n> level: 14\n" in out
    assert c.bus.cluster_log_levels[252] == 14


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("2 DUMP 1000", "ndbtop: error: ndbtop does not send DUMP"),
        ("FROB", "ndbtop: error: Invalid command: FROB (commands: SHOW |"),
        ("0 RESTART", "ndbtop: error: Invalid node ID: 0. (commands: SHOW |"),
        ("2 RESTART -q", "ndbtop: error: Invalid option: -q. Expecting -A,-N,-I or -F"),
    ],
)
def test_refusals_need_no_server_and_are_one_line(run: Run, command: str, message: str) -> None:
    status, out, err = run("mgm", "-c", "127.0.0.1:1", "-e", command)
    assert (status, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1


def test_an_unreachable_server_exits_3(run: Run) -> None:
    status, _, err = run("mgm", "-c", "127.0.0.1:1", "-e", "SHOW")
    assert status == 3 and err.count("\n") == 1


def test_the_prompt_runs_commands_until_quit(
    threaded_sim: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim(four())
    lines = iter(["2 status", "FROB", "", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    args = build_parser().parse_args(["mgm", "-c", sim.connectstring])
    args.read_only, args.read_only_origin = False, None
    status = run_prompt(args, parse_connectstring(sim.connectstring))
    out = capsys.readouterr().out
    assert status == 0
    assert "Node 2: started (" in out and "Invalid command: FROB (commands:" in out
    assert history_path().exists() and history_path().stat().st_mode & 0o777 == 0o600


def test_completion_offers_words_and_node_ids() -> None:
    complete = completer(("RESTART", "REPORT", "STATUS"), lambda: (2, 3, 21))
    assert [complete("re", i) for i in range(3)] == ["RESTART", "REPORT", None]
    assert [complete("2", i) for i in range(3)] == ["2", "21", None]


def test_a_management_node_is_restarted_as_ndb_mgm_does(
    run: Run, threaded_sim: Any, tmp_path: Path, two_mgmds: SimCluster
) -> None:
    # ndb_mgm sends "N RESTART" for a management node as for a data node (restart node v2,
    # node: N); MgmtSrvr::sendSTOP_REQ asks another mgmd over its own connection.
    sim = threaded_sim(two_mgmds)
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "4 RESTART", "--dry-run")
    assert status == 1 and "would need '4' typed (--confirm)" in err
    assert "> restart node v2\n> node: 4\n" in out and "refused" not in out
    # The one ndbtop is connected to says so itself ("get mgmd nodeid" -> "nodeid:1"), though
    # get status gives it an address (10.0.0.1) the connect string does not name.
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "1 RESTART", "--dry-run")
    assert ("warning: node 1 is the management server ndbtop is connected to: it restarts "
            "itself after replying (disconnect: 1) and closes this connection") in out
    assert "cannot tell" not in out
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "4 STOP", "--confirm", "4",
                           "--audit-log", str(tmp_path / "a.log"))
    assert status == 0, err
    assert two_mgmds.mgmd_alive[4] is False
    # Now node 1 is the last one: stopping it wants the phrase.
    status, out, err = run("mgm", "-c", sim.connectstring, "-e", "1 STOP", "--dry-run")
    assert "the last management server running" in out
    assert "confirm by typing: stop the last management server" in out
