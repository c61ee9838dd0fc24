"""The simulated ndb_mgmd where a read of the server's source corrected it (server-rules.md
§6): ``start backup`` with no started data node, the commands each version knows, and a
multithreaded node's backup status summed without a carry.
Every expected reply is written byte for byte from mgm-protocol.md."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.errors import MgmCommandError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.events.decode import decode_event
from ndbtop.mgm.tls import SERVER_CERT, SERVER_KEY, TlsOptions, server_context
from ndbtop.model.backups import WORD, Backup, apply_status_report, find_backup
from ndbtop.model.config_decode import config_from_blob
from ndbtop.sim.cluster.backups import ROW_BYTES
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.tlscerts import make_cluster_certs

StartSim = Callable[..., Awaitable[Simulator]]
Raw = Callable[[int], Awaitable[Any]]

SEND_FAILED = (b"start backup reply\nresult: Send to process or receive failed.: Permanent "
               b"error: Application error\n\n")
CONFIG_V2 = b"get config_v2\nversion: 525315\nnodetype: 4294967295\nnode: 0\n\n"
CONFIG_V1 = b"get config\nversion: 525315\nnodetype: 4294967295\n\n"


async def read_config(conn: Any) -> None:
    """A ``get config reply`` (§7.4): its header, then Content-Length bytes and a newline."""
    head = await conn.read_until(b"\n\n")
    assert head.startswith(b"get config reply\nresult: Ok\nContent-Length: ")
    length = int(head.split(b"Content-Length: ")[1].split(b"\n")[0])
    await conn.read(length + 1)


def threads_at(version: str) -> Any:
    return build_scenario("threads", ScenarioOptions(ndb_version=version))


async def test_start_backup_with_no_started_data_node_answers_5005(
    start_sim: StartSim, raw: Raw
) -> None:
    """``MgmtSrvr::startBackup`` has no 5030 check: with no started data node to send the
    request to, the send fails with 5005, printed as ``result: <ndb_error_string>`` without
    the code (server-rules.md §6; mgm-protocol.md §1.5 table)."""
    sim = await start_sim("threads")
    for node in sim.cluster.data_nodes.values():
        node.state = "NOT_STARTED"
    assert sim.cluster.master() is None
    conn = await raw(sim.mgm_ports[1])
    for wait in (0, 1, 2):
        await conn.exchange(
            f"start backup\ncompleted: {wait}\nbackuppoint: 0\n\n".encode(), SEND_FAILED
        )
    assert sim.cluster.backups.current is None


async def test_the_client_names_the_simulated_5005_verbatim(
    start_sim: StartSim, make_client: Callable[..., MgmClient]
) -> None:
    sim = await start_sim("threads")
    for node in sim.cluster.data_nodes.values():
        node.state = "NOT_STARTED"
    with pytest.raises(MgmCommandError) as info:
        await make_client(sim.connectstring).start_backup()
    assert info.value.result == (
        "Send to process or receive failed.: Permanent error: Application error"
    )


@pytest.mark.parametrize(
    ("version", "v2", "clientversion"),
    [("7.6.12", False, False), ("8.0.17", False, False), ("8.0.18", True, False),
     ("8.0.19", True, False), ("8.0.20", True, True), ("8.4.3", True, True)],
)
async def test_commands_a_version_knows(
    start_sim: StartSim, raw: Raw, version: str, v2: bool, clientversion: bool
) -> None:
    """``get config_v2`` from 8.0.18 (``NDB_USE_CONFIG_VERSION_V2_80``), ``set
    clientversion`` from 8.0.20 (mgmapi ``get_mgmd_version``); before, the server answers
    ``result: Unknown command, '<line>'`` and an empty line (mgm-protocol.md §1.5, §8.2)."""
    sim = await start_sim(threads_at(version))
    conn = await raw(sim.mgm_ports[1])
    if v2:
        await conn.send(CONFIG_V2)
        await read_config(conn)
    else:
        # The argument lines are then read as commands of their own (§1.5).
        await conn.exchange(CONFIG_V2, b"result: Unknown command, 'get config_v2'\n\n"
                            b"result: Unknown command, 'version: 525315'\n\n"
                            b"result: Unknown command, 'nodetype: 4294967295'\n\n"
                            b"result: Unknown command, 'node: 0'\n\n")
    await conn.send(CONFIG_V1)
    await read_config(conn)
    await conn.in_sync()
    request = b"set clientversion\nmajor: 8\nminor: 4\nbuild: 3\n\n"
    if clientversion:
        await conn.exchange(request, b"set clientversion reply\nresult: Ok\n\n")
    else:
        await conn.exchange(request, b"result: Unknown command, 'set clientversion'\n\n"
                            b"result: Unknown command, 'major: 8'\n\n"
                            b"result: Unknown command, 'minor: 4'\n\n"
                            b"result: Unknown command, 'build: 3'\n\n")


@pytest.mark.parametrize(("version", "known"), [("8.2.0", False), ("8.3.0", True)])
async def test_start_tls_only_from_8_3_0(
    start_sim: StartSim, raw: Raw, tmp_path: Any, version: str, known: bool
) -> None:
    """``start tls`` was added in NDB 8.3.0 (mgm-protocol.md §1.7, §8.2): an 8.2 server
    with a certificate still answers ``Unknown command`` (§1.5)."""
    make_cluster_certs(tmp_path)
    sim = await start_sim(threads_at(version),
                          tls=server_context(tmp_path / SERVER_CERT, tmp_path / SERVER_KEY))
    conn = await raw(sim.mgm_ports[1])
    if known:
        await conn.exchange(b"start tls\n\n", b"start tls reply\nresult: Ok\n\n")
    else:
        await conn.exchange(b"start tls\n\n", b"result: Unknown command, 'start tls'\n\n")
        await conn.exchange(b"get mgmd nodeid\n\n", b"get mgmd nodeid reply\nnodeid:1\n\n")


@pytest.mark.parametrize("version", ["8.0.17", "8.0.18", "8.2.0"])
async def test_the_client_asks_each_simulated_version_as_mgmapi_does(
    start_sim: StartSim, tmp_path: Any, version: str
) -> None:
    """ndbtop asks each version with the command it knows (one session: no ``Unknown
    command`` and fallback), and never sends ``start tls`` to a server older than 8.3.0,
    even with a certificate at hand (which command exactly: the scripted tests)."""
    make_cluster_certs(tmp_path)
    sim = await start_sim(threads_at(version))
    cs = replace(parse_connectstring(sim.connectstring), tls=TlsOptions(str(tmp_path)))
    client = MgmClient(cs, timeout=3.0)
    try:
        config = config_from_blob(await client.get_config_blob())
        assert {d.node_id for d in config.data_nodes} == {2, 3}
        assert client.sessions_opened == 1
        assert client.cleartext_reason == f"the management server ({version}) predates TLS (8.3)"
        # The session is still in step: no Unknown command block is left to read.
        assert len(await client.get_status()) > 2
    finally:
        await client.close()


async def test_multithreaded_backup_status_loses_the_carry_and_the_client_puts_it_back(
    start_sim: StartSim, manual_time: Any, make_client: Callable[..., MgmClient]
) -> None:
    """Each BACKUP instance (one per LDM) counts its share and ``BackupProxy::
    sendSUM_EVENT_REP`` adds the low and the high words apart without a carry
    (server-rules.md §6): a node's 18 GB over four LDM threads steps back by about 2^32
    as it crosses each multiple of 4 GiB. Folded into the model, every node's figures are
    what it wrote."""
    sim = await start_sim("backup", time=manual_time)  # backup 1: 0:22 to about 5:03
    client = make_client(sim.connectstring)
    backups: tuple[Backup, ...] = ()
    previous: dict[int, int] = {}
    stepped_back: set[int] = set()
    checked = 0
    for _ in range(30):
        manual_time.advance(10.0)
        sim.sync()
        current = sim.cluster.backups.current
        if current is None or current.backup_id != 1 or not current.started:
            continue
        now = sim.cluster.now
        raw = await client.dump_events(EventType.BACKUP_STATUS)
        events = tuple(decode_event(r, now) for r in raw)
        for e in events:
            reported = (e.get("n_bytes_hi") or 0) << 32 | (e.get("n_bytes_lo") or 0)
            if reported < previous.get(e.source_node, 0):
                stepped_back.add(e.source_node)
            previous[e.source_node] = reported
        backups = apply_status_report(backups, events, now)
        b = find_backup(backups, 1)
        assert b is not None
        for node in b.nodes:
            assert node.bytes == current.data_written(node.node_id, now)
            assert node.log_bytes == sim.cluster.backups.log_written(current, now)
            assert abs(node.records - node.bytes // ROW_BYTES) < 4
        checked += 1
    assert checked >= 20
    assert stepped_back == {2, 3, 4, 5}
    assert all(n.bytes > 3 * WORD for n in find_backup(backups, 1).nodes)  # type: ignore[union-attr]


@pytest.mark.parametrize("option", [["--require-tls"], ["--tls-dir", "certs"]])
def test_sim_refuses_tls_for_a_version_before_8_3(
    option: list[str], tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """An 8.2 server has no ``start tls`` (nor RequireTls): a simulator asked for TLS at that
    version could never be reached, so the option is refused in one line, exit 2."""
    if option[0] == "--tls-dir":
        option = ["--tls-dir", str(tmp_path / "certs")]
    assert main(["sim", "--scenario", "threads", "--ndb-version", "8.2.0", "--no-sql",
                 *option]) == 2
    err = capsys.readouterr().err
    assert err == (f"ndbtop: error: {option[0]} needs NDB 8.3.0 or later (start tls came "
                   "with it); this simulator runs 8.2.0\n")
