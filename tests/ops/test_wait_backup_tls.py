"""``wait --backup-completed`` opens a ``listen event`` connection of its own: it runs
``start tls`` with the TLS options given, as the main connection does (server-rules.md §6:
``ndb_mgm_listen_event_internal``; tls.md §3: ``listen event`` needs TLS on every
connection when the server requires it). The certificates are made for the run in a
directory that is not ``$HOME/ndb-tls``, and ``$HOME`` has none."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.tls import SERVER_CERT, SERVER_KEY, TlsOptions, server_context
from ndbtop.model.clock import RealClock
from ndbtop.ops.wait_backup import wait_for_backup
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.tlscerts import make_cluster_certs

StartSim = Callable[..., Awaitable[Simulator]]
Scripted = Callable[..., Awaitable[Any]]


@pytest.fixture
def certs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cluster's certificates in a directory of their own; an empty ``$HOME``."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    directory = tmp_path / "run-certs"
    make_cluster_certs(directory)
    return directory


async def test_a_backup_wait_against_a_server_requiring_tls_sees_the_end_event(
    start_sim: StartSim, certs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = await start_sim("backup", speed=60, require_tls=True,
                          tls=server_context(certs / SERVER_CERT, certs / SERVER_KEY))
    code = await asyncio.to_thread(
        main, ["wait", "-c", sim.connectstring, "--backup-completed", "1", "--timeout", "30",
               "--backup-status-interval", "0.3", "--ndb-tls-search-path", str(certs),
               "--ndb-mgm-tls", "strict"],
    )
    out, err = capsys.readouterr()
    # A listener in cleartext gets "Authorization failed / Error: Requires TLS": the end
    # event is never seen and the wait ends "ended, but how was not seen".
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith("backup 1 completed: ")


VERSION_843 = (
    b"version\nid: 525315\nmajor: 8\nminor: 4\nbuild: 3\nstring: mysql-8.4.3 ndb-8.4.3\n"
    b"mysql_major: 8\nmysql_minor: 4\nmysql_build: 3\n\n"
)
# mgm-protocol.md §1.7: a server without a certificate of its own answers start tls Failed.
START_TLS_FAILED = b"start tls reply\nresult: Failed\n\n"
# §7.2: one BackupStatus per data node, each block as §5.2 prints it.
STATUS_RUNNING = (
    b"dump events reply\nresult: Ok\nevents: 1\n\n"
    b"log event reply\ntype=62\ntime=0\nsource_nodeid=2\nstarting_node=1\nbackup_id=1\n"
    b"n_bytes_lo=1048576\nn_bytes_hi=0\nn_records_lo=4946\nn_records_hi=0\n"
    b"n_log_bytes_lo=0\nn_log_bytes_hi=0\nn_log_records_lo=0\nn_log_records_hi=0\n\n"
)
# §5.1 reply, then a BackupCompleted block (§5.2, keys in §5.4's order).
LISTENING = b"listen event\nresult: 0\n\n"
COMPLETED = (
    b"log event reply\ntype=56\ntime=0\nsource_nodeid=2\nstarting_node=1\nbackup_id=1\n"
    b"start_gci=1040\nstop_gci=1043\nn_bytes=2097152\nn_records=9892\nn_log_bytes=0\n"
    b"n_log_records=0\nn_bytes_hi=0\nn_records_hi=0\nn_log_bytes_hi=0\nn_log_records_hi=0\n\n"
)


async def test_the_listener_runs_start_tls_with_the_options_given(
    scripted: Scripted, certs: Path
) -> None:
    """Relaxed mode against a server with no certificate (replies written from
    mgm-protocol.md §1.7, §5, §7.2): both connections ask ``start tls`` before anything
    else; with the default search path (an empty ``$HOME``) the listener would not."""
    status_sent = asyncio.Event()

    async def report(writer: asyncio.StreamWriter) -> None:
        writer.write(STATUS_RUNNING)
        await writer.drain()
        status_sent.set()

    async def listen(writer: asyncio.StreamWriter) -> None:
        writer.write(LISTENING)
        await writer.drain()
        await status_sent.wait()
        writer.write(b"<PING>\n" + COMPLETED)
        await writer.drain()

    server = await scripted({"get version": VERSION_843, "start tls": START_TLS_FAILED,
                             "dump events": report, "listen event": listen})
    cs = replace(parse_connectstring(server.connectstring), tls=TlsOptions(str(certs)))
    result = await wait_for_backup(cs, 1, 10.0, clock=RealClock(), report_every=30.0)
    assert result.completed and result.reason == "completed"
    assert result.backup is not None and result.backup.written_bytes == 2097152
    commands = server.commands
    assert commands.count("start tls") == 2
    listener = commands.index("listen event")
    # The main session is connected before the listener starts, and sends nothing until
    # the listener is subscribed: the listener's requests are these three in a row.
    assert commands[listener - 2:listener + 1] == ["get version", "start tls", "listen event"]
    filters = dict(a.split(": ", 1) for a in server.requests[listener][1])
    assert filters == {"filter": "261=15", "parsable": "1"}
