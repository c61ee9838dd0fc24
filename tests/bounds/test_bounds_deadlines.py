"""Deadlines per exchange, not per line: servers on loopback that trickle their replies.

Each server answers as the management server does (mgm-protocol.md §7.2: ``dump events
reply``, ``result: Ok``, ``events: N``, then N parsable blocks; §7.4: ``get config reply``
and a base64 body of ``Content-Length`` bytes), only slowly: one line at a time, each
well within any per-line timeout, never finishing within the call's. Every command must
end within its deadline plus a small margin.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.errors import MgmProtocolError, MgmTimeout
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.event_stream import MAX_EVENT_LINES
from ndbtop.mgm.replies import MAX_DUMP_EVENTS
from ndbtop.mgm.wire import MAX_REPLY_LINES
from tests.hostile.conftest import mgm_script, node_fields

LINE_EVERY = 0.2
"""Seconds between two lines of a trickling reply (a per-line timeout never fires)."""

STATUS_BLOCK = (
    "log event reply", "type=62", "time=0", "source_nodeid=2", "starting_node=1", "backup_id=7",
    "n_bytes_lo=5", "n_bytes_hi=0", "n_records_lo=5", "n_records_hi=0", "n_log_bytes_lo=5",
    "n_log_bytes_hi=0", "n_log_records_lo=5", "n_log_records_hi=0", "",
)


TRICKLE_LINES = 400
"""Lines a trickling reply sends, one every :data:`LINE_EVERY` s."""
TRICKLE_S = TRICKLE_LINES * LINE_EVERY
"""Seconds a trickling reply lasts (80): a call without a deadline would wait that long."""


def trickle(head: bytes, lines: tuple[str, ...], times: int = TRICKLE_LINES
            ) -> Callable[[asyncio.StreamWriter], Awaitable[None]]:
    """A reply: ``head`` at once, then ``lines`` over and over, one every LINE_EVERY s."""

    async def send(writer: asyncio.StreamWriter) -> None:
        writer.write(head)
        # The test ends while this still trickles: its server closing ends it quietly.
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            for i in range(times):
                await writer.drain()
                await asyncio.sleep(LINE_EVERY)
                writer.write(lines[i % len(lines)].encode() + b"\n")

    return send


def dump_events_trickle(announced: int = MAX_DUMP_EVENTS) -> Callable[..., Awaitable[None]]:
    """``dump events`` announcing ``announced`` BackupStatus blocks, sent a line at a time."""
    head = f"dump events reply\nresult: Ok\nevents: {announced}\n\n".encode()
    return trickle(head, STATUS_BLOCK)


async def elapsed(work: Awaitable[Any]) -> tuple[float, BaseException | None]:
    """Seconds ``work`` took, and what it raised."""
    started = time.monotonic()
    try:
        await work
    except Exception as exc:  # the caller checks what was raised
        return time.monotonic() - started, exc
    return time.monotonic() - started, None


async def test_a_trickled_dump_events_reply_ends_with_the_calls_timeout(scripted: Any) -> None:
    server = await scripted({"dump events": dump_events_trickle()})
    client = MgmClient(parse_connectstring(server.connectstring), timeout=1.0)
    try:
        await client.connect()
        took, raised = await elapsed(client.dump_events(62))
    finally:
        await client.close()
    assert isinstance(raised, MgmTimeout)
    assert "dump events reply not complete within 1 s" in str(raised)
    assert 0.9 <= took < 2.5


async def test_a_million_events_announced_are_refused_at_once(scripted: Any) -> None:
    server = await scripted({"dump events": dump_events_trickle(1_000_000)})
    client = MgmClient(parse_connectstring(server.connectstring), timeout=5.0)
    try:
        await client.connect()
        took, raised = await elapsed(client.dump_events(62))
    finally:
        await client.close()
    assert isinstance(raised, MgmProtocolError)
    assert str(raised).startswith("dump events reply announces 1000000 events (at most 510")
    assert took < 1.0


async def test_an_endless_event_block_is_refused(scripted: Any) -> None:
    head = b"dump events reply\nresult: Ok\nevents: 1\n\nlog event reply\ntype=62\n"
    body = b"".join(f"key{i}={i}\n".encode() for i in range(MAX_EVENT_LINES + 10))
    server = await scripted({"dump events": head + body})
    client = MgmClient(parse_connectstring(server.connectstring), timeout=5.0)
    try:
        await client.connect()
        with pytest.raises(MgmProtocolError, match=f"more than {MAX_EVENT_LINES} lines"):
            await client.dump_events(62)
    finally:
        await client.close()


async def test_a_reply_of_too_many_lines_is_refused(scripted: Any) -> None:
    lines = b"".join(f"k{i}: {i}\n".encode() for i in range(MAX_REPLY_LINES + 1))
    server = await scripted({"get cluster loglevel": b"get cluster loglevel\n" + lines + b"\n"})
    client = MgmClient(parse_connectstring(server.connectstring), timeout=5.0)
    try:
        with pytest.raises(MgmProtocolError, match=f"more than {MAX_REPLY_LINES} lines"):
            await client.get_cluster_loglevel()
    finally:
        await client.close()


async def test_a_trickled_handshake_ends_with_the_timeout(scripted: Any) -> None:
    version = trickle(b"version\n", ("id: 525315", "major: 8", "minor: 4", "build: 3"))
    server = await scripted({"get version": version})
    client = MgmClient(parse_connectstring(server.connectstring), timeout=1.0)
    try:
        took, raised = await elapsed(client.connect())
    finally:
        await client.close()
    assert isinstance(raised, MgmTimeout)
    assert took < 2.5


async def test_a_trickled_configuration_body_ends_with_the_timeout(scripted: Any) -> None:
    head = (b"get config reply\nresult: Ok\nContent-Length: 4000000\n"
            b"Content-Type: ndbconfig/octet-stream\nContent-Transfer-Encoding: base64\n\n")
    server = await scripted({"get config_v2": trickle(head, ("QUJD" * 19,))})
    client = MgmClient(parse_connectstring(server.connectstring), timeout=1.0)
    try:
        await client.connect()
        took, raised = await elapsed(client.get_config_blob())
    finally:
        await client.close()
    assert isinstance(raised, MgmTimeout)
    assert took < 2.5


def trickling_cluster() -> dict[str, object]:
    """Two started data nodes; the backup status report trickles."""
    return mgm_script({2: node_fields(2), 3: node_fields(3)},
                      extra=[("dump events", dump_events_trickle()),
                             ("listen event", b"listen event\nresult: 0\n\n")])


async def test_wait_backup_completed_keeps_its_timeout_against_a_trickled_report(
    scripted: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    server = await scripted(trickling_cluster())
    started = time.monotonic()
    code = await asyncio.to_thread(main, ["wait", "-c", server.connectstring,
                                          "--backup-completed", "7", "--timeout", "2"])
    took = time.monotonic() - started
    assert code == 1
    assert took < 6.0, f"--timeout 2 took {took:.1f} s"
    assert "timed out after 2 s waiting for backup 7" in capsys.readouterr().err


async def test_wait_status_keeps_its_timeout_against_a_server_that_stops_answering(
    scripted: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    status = mgm_script({2: node_fields(2, status="STARTING", startphase=4)})["get status"]
    calls = 0

    async def first_then_trickle(writer: asyncio.StreamWriter) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            assert isinstance(status, bytes)
            writer.write(status)
            return
        await trickle(b"node status\n", ("node.2.type: NDB",))(writer)

    server = await scripted({"get status": first_then_trickle})
    started = time.monotonic()
    code = await asyncio.to_thread(main, ["wait", "-c", server.connectstring, "--status",
                                          "started", "--timeout", "2"])
    took = time.monotonic() - started
    # A server that stopped answering is named, with exit status 3 (cli/wait.py).
    assert code == 3
    assert took < 6.0, f"--timeout 2 took {took:.1f} s"
    assert capsys.readouterr().err == (
        "ndbtop: error: no answer from the management server within 2 s\n")


async def test_once_ends_against_a_trickled_report(
    scripted: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    server = await scripted(trickling_cluster())
    started = time.monotonic()
    code = await asyncio.to_thread(main, ["-c", server.connectstring, "--no-sql", "--once"])
    took = time.monotonic() - started
    out, err = capsys.readouterr()
    # The report's timeout is twice the refresh (2 s), and the report says so; then the
    # event listener is waited for (at most 6 s: the management session closed with the
    # report) and the host sampled twice. The trickle alone would last 80 s.
    assert took < TRICKLE_S / 2, f"--once took {took:.1f} s"
    assert code == 0, err
    assert "backup status reports" in out and "not complete within 2 s" in out
