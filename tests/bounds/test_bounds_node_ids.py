"""Node ids and counters of events, checked once where events are decoded.

Events as the management server writes them in parsable form (mgm-protocol.md §5.2:
``log event reply``, ``type``, ``time=0``, ``source_nodeid``, body values printed with
``%d``) and as a ``dump events`` reply carries them (§7.2). A node id is 1-255
(``MAX_NODES`` 256, node 0 is none); a backup's 64-bit counters are a low and a high word
(§5.4, BACKUP), so a high word printed negative is a count beyond 2^63. ndbinfo rows
(`nodes` and `diskpagebuffer` start with ``node_id``, ndbinfo.md) pass the same node-id check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.cli import main
from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.events.admit import is_data_node_event
from ndbtop.mgm.events.catalogue import CATALOGUE, EventType
from ndbtop.mgm.events.decode import decode_event, decode_text_line
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.backups import apply_backup_event, apply_status_report
from ndbtop.model.clock import RealClock
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.sim.config import simple_config
from ndbtop.sim.config_blob import config_reply, pack_v2
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.sqlnode import start_sql_node
from tests.bounds.conftest import GROWTH_LIMIT, growth
from tests.hostile.conftest import mgm_script, node_fields

STATUS_KEYS = ("n_bytes_lo", "n_bytes_hi", "n_records_lo", "n_records_hi", "n_log_bytes_lo",
               "n_log_bytes_hi", "n_log_records_lo", "n_log_records_hi")
COMPLETED_KEYS = ("n_bytes", "n_records", "n_log_bytes", "n_log_records", "n_bytes_hi",
                  "n_records_hi", "n_log_bytes_hi", "n_log_records_hi")
BAD_IDS = st.one_of(st.integers(max_value=0), st.integers(min_value=256),
                    st.integers(1000, 1299))


def status_event(node: int, backup_id: int = 7, value: int = 100) -> RawEvent:
    """A BackupStatus block of a running backup (every counter ``value``, high words 0)."""
    body = [("starting_node", "1"), ("backup_id", str(backup_id))]
    body += [(k, "0" if k.endswith("_hi") else str(value)) for k in STATUS_KEYS]
    return RawEvent(EventType.BACKUP_STATUS, 0, node, tuple(body))


def completed_block(node: int, backup_id: int, value: str, high: str) -> bytes:
    """A BackupCompleted block with every low word ``value`` and high word ``high``."""
    body = "".join(f"{k}={high if k.endswith('_hi') else value}\n" for k in COMPLETED_KEYS)
    return (f"log event reply\ntype=56\ntime=0\nsource_nodeid={node}\nstarting_node=1\n"
            f"backup_id={backup_id}\nstart_gci=1\nstop_gci=2\n{body}\n").encode()


@settings(max_examples=200, deadline=None)
@given(event_type=st.sampled_from(sorted(CATALOGUE)), source=BAD_IDS)
def test_every_type_from_a_node_id_outside_1_to_255_is_refused(
    event_type: int, source: int
) -> None:
    event = decode_event(RawEvent(event_type, 0, source, (("data", "1 2 3"),)), 1.0)
    assert event.refused is not None and event.malformed
    assert f"node {source} is not a node id (1-255)" in event.refused


@settings(max_examples=100, deadline=None)
@given(source=st.integers(1, 255), configured=st.frozensets(st.integers(1, 144), max_size=8))
def test_a_data_node_event_must_come_from_a_configured_data_node(
    source: int, configured: frozenset[int]
) -> None:
    event = decode_event(status_event(source), 1.0, configured)
    assert (event.refused is None) == (source in configured)
    # Without a configuration, the range alone decides.
    assert decode_event(status_event(source), 1.0).refused is None


def test_events_the_management_server_raises_are_not_held_to_data_nodes() -> None:
    # Connected comes from the mgmd itself (§5.2): its source is the mgmd's id.
    raw = RawEvent(EventType.CONNECTED, 0, 1, (("node", "2"),))
    assert not is_data_node_event(EventType.CONNECTED)
    assert decode_event(raw, 1.0, frozenset({2, 3})).refused is None
    assert decode_event(RawEvent(EventType.CONNECTED, 0, 1, (("node", "300"),)),
                        1.0).refused == "Connected (type 0) from node 1: node 300 is not a node id"


def test_a_text_line_from_node_300_is_refused_and_a_text_line_from_node_2_is_not() -> None:
    assert decode_text_line("Node 300: Started", 1.0).refused is not None
    assert decode_text_line("Node 2: Started", 1.0).refused is None


def test_backup_status_from_nodes_1000_to_1299_never_reaches_backup_nodes() -> None:
    raws = [status_event(n) for n in range(1000, 1300)] + [status_event(2)]
    backups = apply_status_report((), tuple(decode_event(r, 5.0) for r in raws), 5.0)
    (backup,) = backups
    assert [n.node_id for n in backup.nodes] == [2]


@pytest.mark.parametrize("high", ["-1", "-2147483648"])
def test_a_negative_64_bit_counter_is_refused(high: str) -> None:
    body = [("starting_node", "1"), ("backup_id", "7"), ("start_gci", "1"), ("stop_gci", "2")]
    body += [(k, high if k.endswith("_hi") else "-1") for k in COMPLETED_KEYS]
    event = decode_event(RawEvent(EventType.BACKUP_COMPLETED, 0, 2, tuple(body)), 1.0)
    assert event.refused is not None and "negative" in event.refused
    assert apply_backup_event((), event) == ()


@settings(max_examples=100, deadline=None)
@given(high=st.integers(-(2**31), 2**32 - 1), low=st.integers(-(2**31), 2**32 - 1),
       node=st.integers(0, 70000))
def test_counters_and_node_fields_as_the_server_prints_them(high: int, low: int,
                                                            node: int) -> None:
    # Words come as %d or %u (§5.2); a high word of 2^31 or more is a negative count.
    body = [("starting_node", str(node)), ("backup_id", "7")]
    body += [(k, str(high) if k.endswith("_hi") else str(low)) for k in STATUS_KEYS]
    event = decode_event(RawEvent(EventType.BACKUP_STATUS, 0, 2, tuple(body)), 1.0)
    negative = (high & 0xFFFFFFFF) >= 2**31
    assert (event.refused is None) == (not negative and node <= 255)
    if event.refused is None and node:  # starting_node 0: "Backup not started"
        (backup,) = apply_status_report((), (event,), 1.0)
        assert backup.nodes[0].bytes == (low & 0xFFFFFFFF) + ((high & 0xFFFFFFFF) << 32)


def test_a_low_word_printed_negative_is_a_big_count_not_a_refusal() -> None:
    # %d prints 4294967295 as -1 (§5.2): with a high word of 0 it is 4 GiB - 1 bytes.
    body = [("starting_node", "1"), ("backup_id", "7"), ("start_gci", "1"), ("stop_gci", "2")]
    body += [(k, "0" if k.endswith("_hi") else "-1") for k in COMPLETED_KEYS]
    event = decode_event(RawEvent(EventType.BACKUP_COMPLETED, 0, 2, tuple(body)), 1.0)
    assert event.refused is None
    (backup,) = apply_backup_event((), event)
    assert backup.bytes == 2**32 - 1


def test_a_status_report_repeating_nodes_is_processed_in_linear_time() -> None:
    # One reply of n blocks: duplicates of the 255 possible nodes and hostile ids.
    def make(n: int) -> tuple[Any, ...]:
        raws = [status_event(1 + i % 300, value=i) for i in range(n)]
        return tuple(decode_event(r, 5.0) for r in raws)

    def run(events: tuple[Any, ...]) -> None:
        apply_status_report((), events, 5.0)

    assert growth(make, run, 5_000) < GROWTH_LIMIT
    (backup,) = apply_status_report((), make(3_000), 5.0)
    assert len(backup.nodes) == 255
    assert backup.node(2) is not None and backup.node(2).records == 2_701  # its last report


def test_backup_status_events_one_at_a_time_take_linear_time() -> None:
    # The live stream: each BackupStatus applied as it comes, from every node id and more.
    def make(n: int) -> list[Any]:
        return [decode_event(status_event(1 + i % 300, value=i), float(i)) for i in range(n)]

    def run(events: list[Any]) -> None:
        backups: tuple[Any, ...] = ()
        for event in events:
            backups = apply_backup_event(backups, event)

    assert growth(make, run, 1_500) < GROWTH_LIMIT


async def test_wait_backup_completed_ignores_node_300_node_0_and_negative_counters(
    scripted: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    listen = (b"listen event\nresult: 0\n\n" + completed_block(300, 7, "1", "0")
              + completed_block(0, 7, "1", "0") + completed_block(2, 7, "-1", "-1"))
    nodes = {2: node_fields(2), 3: node_fields(3)}
    status = b"".join(
        f"log event reply\ntype=62\ntime=0\nsource_nodeid={n}\nstarting_node=1\n"
        f"backup_id=7\n".encode() + b"".join(f"{k}=5\n".encode() for k in STATUS_KEYS) + b"\n"
        for n in (1000, 1299))
    server = await scripted(mgm_script(nodes, extra=[
        ("listen event", listen),
        ("dump events", b"dump events reply\nresult: Ok\nevents: 2\n\n" + status),
    ]))
    code = await asyncio.to_thread(main, ["wait", "-c", server.connectstring,
                                          "--backup-completed", "7", "--timeout", "2"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert "TiB" not in out and "completed" not in out
    assert err.startswith("ndbtop: timed out after 2 s waiting for backup 7: backup 7 was not "
                          "seen")


class OutOfRangeNdbinfo(SimNdbinfo):
    """The simulated SQL node, every row of ``nodes`` and ``diskpagebuffer`` also sent
    again as node 300 and as node 1000."""

    def rows(self, table: str) -> Sequence[Sequence[object]]:
        rows = list(super().rows(table))
        if table.startswith(("nodes", "ndb$nodes", "diskpagebuffer", "ndb$diskpagebuffer")):
            rows += [(bad, *row[1:]) for bad in (300, 1000) for row in rows]
        return rows


async def test_ndbinfo_rows_of_node_300_and_1000_are_left_out_and_named() -> None:
    cluster = build_scenario("threads")
    cluster.advance(10)
    server = await start_sql_node(OutOfRangeNdbinfo(cluster), port=0)
    try:
        collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=server.port,
                                                  user="root"))
        await asyncio.to_thread(collector.connect)
        sample = await asyncio.to_thread(collector.sample)
        collector.close()
    finally:
        await server.close()
    assert {n.node_id for n in sample.nodes} == {2, 3}
    assert {b.node_id for b in sample.disk_page_buffer} == {2, 3}
    assert dict(sample.unavailable)["rows out of range"] == (
        "node ids 300, 1000 are not node ids (1-255): left out")


async def test_the_live_view_leaves_out_a_data_node_event_from_a_node_not_configured_as_one(
    scripted: Any, until: Any
) -> None:
    config = simple_config("c", ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0)), api=((50, None),))
    blocks = (b"log event reply\ntype=13\ntime=0\nsource_nodeid=50\nphase=4\nstarttype=0\n\n"
              b"log event reply\ntype=13\ntime=0\nsource_nodeid=2\nphase=4\nstarttype=0\n\n")
    server: Any = None

    async def listen(writer: asyncio.StreamWriter) -> None:
        # Sent once the configuration was asked for, so that it is known when they come.
        await until(lambda: "get config_v2" in server.commands, what="the configuration")
        writer.write(b"listen event\nresult: 0\n\n" + blocks)

    server = await scripted(mgm_script({2: node_fields(2), 3: node_fields(3)}, extra=[
        ("get config_v2", config_reply(pack_v2(config))), ("listen event", listen)]))
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 0.1, events=True)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().events_total >= 1
                    and hub.snapshot().source("events").unavailable, what="the events")
        snap = hub.snapshot()
    finally:
        await hub.stop()
    assert [e.source_node for e in snap.events] == [2]
    assert dict(snap.source("events").unavailable) == {"events refused": (
        "StartPhaseCompleted (type 13) from node 50 is not a configured data node: left out")}
