"""REPORT BACKUPSTATUS of a multithreaded data node: ``BackupProxy::sendSUM_EVENT_REP``
adds the LDM threads' low words and high words apart, without a carry (server-rules.md
§6), so a node's value can step back by about 2^32. ndbtop puts the carry back, per node
and per counter, and takes a count that started again as it is reported.

The replies are written as the real server sends them: ``dump events`` with one
BackupStatus block per node (mgm-protocol.md §7.2), each in the parsable layout of §5.2
with the keys of §5.4, values printed with ``%d`` (a low word of 2^31 or more is
negative on the wire)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.events.decode import decode_event
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.backups import (
    WORD,
    Backup,
    apply_status_report,
    carried,
    find_backup,
)

Scripted = Callable[..., Awaitable[Any]]
MakeClient = Callable[..., MgmClient]


def test_a_lost_carry_is_put_back_and_kept_until_it_is_regained() -> None:
    # Two LDM threads (true counts in comments): the low words' sum wraps at 2^32.
    assert carried(None, None, 4_100_000_000) == 4_100_000_000  # 2.0e9 + 2.1e9
    # 2.2e9 + 2.3e9: the low sum wrapped, reported 205,032,704 (high word still 0).
    assert carried(4_100_000_000, 4_100_000_000, 205_032_704) == 4_500_000_000
    # Growing on below the wrap: still one carry short.
    assert carried(4_500_000_000, 205_032_704, 305_032_704) == 4_600_000_000
    # 4.4e9 + 2.4e9: thread one's own low word wrapped, its high word took the carry.
    assert carried(4_600_000_000, 305_032_704, 6_800_000_000) == 6_800_000_000
    # 4.5e9 + 4.2e9: low words wrap again though the high word rose: 8.7e9, not 4.4e9.
    assert carried(6_800_000_000, 6_800_000_000, 4_405_032_704) == 8_700_000_000


def test_a_count_that_started_again_is_taken_as_reported() -> None:
    # A high word that went back never comes from a lost carry.
    assert carried(9_000_000_000, 9_000_000_000, 5_000_000_000) == 5_000_000_000
    assert carried(9_000_000_000, 4_705_032_704, 1_000_000) == 1_000_000
    # A step back by less than half of 2^32 is no lost carry either (one is 2^32 less
    # what the node wrote since its previous report).
    assert carried(1_500_000_000, 1_500_000_000, 20_000_000) == 20_000_000
    assert carried(5_000_000_000, 705_032_704, 700_000_000) == 700_000_000


def block(node: int, backup: int, counts: tuple[int, int, int, int]) -> bytes:
    """One BackupStatus block as the server prints it: each 64-bit counter as a ``%d`` low
    word and a ``%d`` high word (records, bytes, log records, log bytes here; §5.4 order on
    the wire: bytes, records, log bytes, log records)."""
    records, data, log_records, log_bytes = counts

    def words(value: int) -> tuple[int, int]:
        low, high = value & 0xFFFFFFFF, value >> 32
        return (low - WORD if low >= 1 << 31 else low), high

    lines = ["log event reply", "type=62", "time=0", f"source_nodeid={node}",
             "starting_node=1", f"backup_id={backup}"]
    for name, value in (("n_bytes", data), ("n_records", records),
                        ("n_log_bytes", log_bytes), ("n_log_records", log_records)):
        low, high = words(value)
        lines += [f"{name}_lo={low}", f"{name}_hi={high}"]
    return ("\n".join(lines) + "\n\n").encode()


def dump_reply(*blocks: bytes) -> bytes:
    return b"dump events reply\nresult: Ok\nevents: %d\n\n" % len(blocks) + b"".join(blocks)


# Node 2 runs two LDM threads whose bytes cross 2^32 together; node 3 stays below it.
# Values as reported (after sendSUM_EVENT_REP); true counts in the comments.
REPORTS = [
    dump_reply(block(2, 1, (19_000_000, 4_100_000_000, 10, 4096)),    # 4.1e9
               block(3, 1, (4_000_000, 1_000_000_000, 10, 4096))),
    dump_reply(block(2, 1, (21_000_000, 205_032_704, 20, 8192)),      # 4.5e9
               block(3, 1, (4_400_000, 1_100_000_000, 20, 8192))),
    dump_reply(block(2, 1, (32_000_000, 6_800_000_000, 30, 12288)),   # 6.8e9
               block(3, 1, (4_800_000, 1_200_000_000, 30, 12288))),
    dump_reply(block(2, 1, (41_000_000, 4_405_032_704, 40, 16384)),   # 8.7e9
               block(3, 1, (5_200_000, 1_300_000_000, 40, 16384))),
    # A new backup: its counts start from nothing, whatever backup 1 reached.
    dump_reply(block(2, 2, (1_000, 212_000, 0, 0)),
               block(3, 2, (900, 190_800, 0, 0))),
]


async def test_reports_as_the_server_sends_them_are_corrected_per_node_and_counter(
    scripted: Scripted, make_client: MakeClient
) -> None:
    replies = list(REPORTS)

    async def report(writer: asyncio.StreamWriter) -> None:
        writer.write(replies.pop(0))
        await writer.drain()

    server = await scripted({"dump events": report})
    client = make_client(server.connectstring)
    backups: tuple[Backup, ...] = ()
    seen: list[dict[int, tuple[int, int, int, int]]] = []
    texts: list[str] = []
    for at in (100.0, 110.0, 120.0, 130.0):
        raw = await client.dump_events(EventType.BACKUP_STATUS)
        events = tuple(decode_event(r, at) for r in raw)
        texts.append(events[0].text)
        backups = apply_status_report(backups, events, at)
        b = find_backup(backups, 1)
        assert b is not None
        seen.append({n.node_id: (n.records, n.bytes, n.log_records, n.log_bytes)
                     for n in b.nodes})
    assert [s[2][1] for s in seen] == [4_100_000_000, 4_500_000_000, 6_800_000_000,
                                       8_700_000_000]
    assert [s[3][1] for s in seen] == [1_000_000_000, 1_100_000_000, 1_200_000_000,
                                       1_300_000_000]
    # The other counters of node 2 had nothing to correct.
    assert [s[2][0] for s in seen] == [19_000_000, 21_000_000, 32_000_000, 41_000_000]
    assert [s[2][3] for s in seen] == [4096, 8192, 12288, 16384]
    last = find_backup(backups, 1)
    assert last is not None and last.node(2) is not None
    assert last.node(2).reported[1] == 4_405_032_704  # type: ignore[union-attr]
    # Rate over the last ten seconds from the corrected counts: 1.9e9 + 0.1e9 + log bytes.
    assert last.bytes_per_s == (1_900_000_000 + 4096 + 100_000_000 + 4096) / 10
    # The event's own text keeps the server's numbers, as ndb_mgm prints them (§7.2).
    assert texts[1] == ("Local backup status: backup 1 started from node 1\n"
                        " #Records: 21000000 #LogRecords: 20\n"
                        " Data: 205032704 bytes Log: 8192 bytes")
    # Backup 1 is over; backup 2 starts from its own first report.
    raw = await client.dump_events(EventType.BACKUP_STATUS)
    backups = apply_status_report(backups, tuple(decode_event(r, 140.0) for r in raw), 140.0)
    second = find_backup(backups, 2)
    assert second is not None
    assert [(n.node_id, n.records, n.bytes) for n in second.nodes] == [
        (2, 1_000, 212_000), (3, 900, 190_800)]


def as_reported(threads: list[int]) -> int:
    """What ``sendSUM_EVENT_REP`` reports for these per-thread counts: the low words
    summed and the high words summed, each in 32 bits, without a carry (server-rules.md §6)."""
    low = sum(t & 0xFFFFFFFF for t in threads) & 0xFFFFFFFF
    high = sum(t >> 32 for t in threads) & 0xFFFFFFFF
    return low + (high << 32)


def status_event(node: int, records: int, data: int, at: float) -> Any:
    body = [("starting_node", "1"), ("backup_id", "1")]
    for name, value in (("n_bytes", data), ("n_records", records),
                        ("n_log_bytes", 0), ("n_log_records", 0)):
        low = value & 0xFFFFFFFF
        body += [(f"{name}_lo", str(low - WORD if low >= 1 << 31 else low)),
                 (f"{name}_hi", str(value >> 32))]
    return decode_event(RawEvent(int(EventType.BACKUP_STATUS), 0, node, tuple(body)), at)


def test_a_fast_node_that_loses_a_carry_between_reports_is_followed_by_its_records() -> None:
    # Two LDM threads writing 150 MB/s each, reported every 10 s: 3e9 bytes an interval,
    # more than half of 2^32, so a lost carry no longer shows as a step back of about
    # 2^32. Then the data ends 0.3e9 bytes into an interval: the node's own slowing,
    # which no rate foresees. 200 bytes a record.
    per_thread = [0, 1.5e9, 3.0e9, 4.5e9, 6.0e9, 6.15e9, 6.15e9]
    backups: tuple[Backup, ...] = ()
    shown = []
    for step, written in enumerate(per_thread[1:], start=1):
        threads = [int(written), int(written)]
        records = as_reported([t // 200 for t in threads])
        event = status_event(2, records, as_reported(threads), 100.0 + 10 * step)
        backups = apply_status_report(backups, (event,), event.received_at)
        b = find_backup(backups, 1)
        assert b is not None and b.node(2) is not None
        shown.append(b.node(2).bytes)  # type: ignore[union-attr]
    assert shown == [int(2 * w) for w in per_thread[1:]]
