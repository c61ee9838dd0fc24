"""The live view reads the cluster log file again after a gap in its event listening: the
events the listener missed show, placed among those it heard.

The simulated management server writes its cluster log file in the real layout
(``--mgm-data-dir``); the listener is cut off by stopping the management server and comes
back when it is started again. What the file gained is read from where the last read ended
(bounded); a rotated file is read whole again (FileLogHandler.cpp ``createNewFile``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from ndbtop.collect.cluster_log import LocalFiles, read_appended, read_place
from ndbtop.demo.hub import demo_hub
from ndbtop.mgm.cluster_log import LogPlace, parse_lines
from ndbtop.mgm.events.decode import Event, decode_text_line
from ndbtop.model.sources import SourceState
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.scenarios.diagnostics import WARNING_EVENT, text
from ndbtop.tui.views.events import history_line, missed_lines

LAG = "GCP Monitor: GCP_SAVE lag 60 seconds (max lag: 204s)"
HEARD = "GCP Monitor: GCP_SAVE lag 30 seconds (max lag: 204s)"


async def until(predicate: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_a_warning_logged_while_the_listener_was_cut_off_shows_after_it_reconnects(
    start_sim: Callable[..., Awaitable[Simulator]], tmp_path: Path,
) -> None:
    cluster = build_scenario("threads")
    cluster.place_mgm_nodes(None, str(tmp_path))
    sim = await start_sim(cluster, speed=10)
    hub = demo_hub(sim, 0.2)
    await hub.start()
    try:
        def state(name: str) -> SourceState | None:
            source = hub.snapshot().source(name)
            return source.state if source is not None else None

        await until(lambda: state("cluster-log") is SourceState.CONNECTED
                    and state("events") is SourceState.CONNECTED, "the first read")
        text(sim.cluster, WARNING_EVENT, 2, HEARD)
        await until(lambda: any(e.text == HEARD for e in hub.snapshot().events), "an event")
        before = hub.snapshot().cluster_log
        cut = sim.clock.wall()
        await sim.stop_mgmd(1)
        await until(lambda: state("events") is not SourceState.CONNECTED, "the listener cut")
        text(sim.cluster, WARNING_EVENT, 2, LAG)
        await sim.start_mgmd(1)
        await until(lambda: any(ln.text == LAG for ln in hub.snapshot().cluster_log),
                    "the missed warning read from the file")
        snap = hub.snapshot()
        assert not any(e.text == LAG for e in snap.events)
        # Only what the file gained was read: the lines read before are there once.
        assert snap.cluster_log[:len(before)] == before
        assert len({ln.key() for ln in snap.cluster_log}) == len(snap.cluster_log)
        # The Events view puts it among the events heard, marked as missed.
        # (So do the arbitration's reports of the management server's loss, in the gap.)
        history, missed = missed_lines(snap.cluster_log, snap.events)
        assert LAG in [ln.text for ln in missed] and history == list(before)
        assert all(ln.time is not None and ln.time >= cut - 1.0 for ln in missed)
        lag = next(ln for ln in missed if ln.text == LAG)
        assert history_line(lag, "missed").plain.endswith(f"WARNING  missed {LAG}")
        # The rules judge it as a warning of now.
        assert "gcp_save_lag" in {f.id for f in snap.findings}
    finally:
        await hub.stop()


def _line(at: float, rest: str) -> str:
    return f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(at))} [MgmtSrvr] INFO     -- " \
           f"{rest}\n"


async def test_a_read_again_takes_what_was_appended_or_the_whole_tail_after_a_rotation(
    tmp_path: Path,
) -> None:
    now = time.time()
    log = tmp_path / "ndb_1_cluster.log"
    log.write_text(_line(now - 30, "Node 2: Local checkpoint 1 started. Keep GCI = 1 oldest "
                                   "restorable GCI = 1"))
    place = LogPlace(1, "localhost", str(log))
    first, why = await read_place(LocalFiles(), place, now)
    assert why is None and first is not None and len(first.lines) == 1
    with open(log, "a") as f:
        f.write(_line(now - 20, "Node 2: Local checkpoint 1 completed"))
    more, _ = await read_appended(LocalFiles(), place, first, now)
    assert more is not None and [ln.text for ln in more.lines] == [
        "Local checkpoint 1 started. Keep GCI = 1 oldest restorable GCI = 1",
        "Local checkpoint 1 completed"]
    assert more.size == log.stat().st_size
    # Rotated (renamed to .1, a new file begun): the predecessors changed, all is read again.
    log.rename(tmp_path / "ndb_1_cluster.log.1")
    log.write_text(_line(now - 10, "Node 2: Local checkpoint 2 completed") * 3)
    again, _ = await read_appended(LocalFiles(), place, more, now)
    assert again is not None and [ln.text for ln in again.lines] == [
        "Local checkpoint 1 started. Keep GCI = 1 oldest restorable GCI = 1",
        "Local checkpoint 1 completed", *["Local checkpoint 2 completed"] * 3]


def test_lines_older_than_the_first_event_heard_are_history_the_others_missed_or_heard() -> None:
    now = time.time()
    lines = parse_lines("".join([_line(now - 100, "Node 2: Node 3 Connected"),
                                 _line(now - 10, "Node 2: Node 4 Connected"),
                                 _line(now - 5, "Node 2: Node 5 Connected")]))
    heard: list[Event] = [decode_text_line("Node 2: Node 4 Connected", now - 10.3)]
    history, missed = missed_lines(lines, heard)
    assert [ln.text for ln in history] == ["Node 3 Connected"]
    assert [ln.text for ln in missed] == ["Node 5 Connected"]
