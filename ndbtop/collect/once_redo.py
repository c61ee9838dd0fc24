"""``--once`` while a data node creates its redo log: two progress reports before a rate.

A rate of redo log creation needs two ``LogFileInitStatus`` reports of each LDM instance
(:mod:`ndbtop.model.redo_progress`), and the data nodes send one every
``StartupStatusReportFrequency`` seconds (redo-init.md §6). ``--once`` listens to the
events for about an interval: with reports every 10 s it would see one at most, and name
the phase and estimate the start without the redo log. So it listens on, for each node
that may be creating its redo log, until each of its instances has reported twice:

- a node that reports (the frequency above 0, InitFragmentLogFiles=SPARSE), is starting
  in a phase that may create the redo log (up to phase 4: which one depends on the
  release, redo-init.md §2) in a start not known to be a node or system restart, and
  whose host does not measure the rate already;
- at most :func:`bound_s` (two report periods and :data:`MARGIN_S`, never past
  :data:`MAX_WAIT_S`); a node that has sent no report within one period and the margin is
  not creating its redo log, and is not waited for.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ndbtop.model.config_facts import host_redo_wins
from ndbtop.model.phases import NODE_RESTART, SYSTEM_RESTART
from ndbtop.model.snapshot import ClusterSnapshot

if TYPE_CHECKING:
    from ndbtop.collect.hub_face import HubFace

MARGIN_S = 5.0
"""Added to the report periods waited for: the events are stamped when they arrive."""
MAX_WAIT_S = 300.0
"""The longest ``--once`` waits for progress reports, whatever the frequency."""
LOOK_EVERY_S = 0.2
"""How often the wait looks at what the events brought."""


def reporting(snap: ClusterSnapshot) -> dict[int, tuple[float, bool]]:
    """The starting data nodes whose redo log rate is still to be measured from their
    reports: node -> (report period in seconds, whether a first report came)."""
    out: dict[int, tuple[float, bool]] = {}
    config = snap.config
    if config is None:
        return out
    for t in snap.timelines:
        cfg = config.data_node(t.node_id)
        if not t.active or cfg is None or cfg.redo_init_full:
            continue
        every = float(cfg.startup_status_report_frequency)
        if every <= 0:
            continue
        measured = host_redo_wins(snap, t.node_id)
        if measured is not None and measured.rate_bytes_per_s:
            continue
        if t.redo is not None:
            if not t.redo.completed and t.redo.mb_per_s is None:
                out[t.node_id] = (every, True)
        elif (t.start_type not in (NODE_RESTART, SYSTEM_RESTART)
              and t.current_phase is not None and t.current_phase <= 4):
            out[t.node_id] = (every, False)
    return out


def bound_s(periods: list[float]) -> float:
    """The longest wait for reports sent every ``periods`` seconds."""
    return min(2 * max(periods) + MARGIN_S, MAX_WAIT_S)


async def await_redo_reports(hub: HubFace) -> float:
    """Listen on (the events already being listened to) until every node of
    :func:`reporting` has a measured rate, none is left to wait for, or the bound passes;
    the seconds waited, on the hub's clock."""
    clock = hub.clock
    began = clock.monotonic()
    while True:
        snap = hub.snapshot()
        spent = clock.monotonic() - began
        waiting = {node: every for node, (every, heard) in reporting(snap).items()
                   if heard or spent < every + MARGIN_S}
        if not waiting or spent >= bound_s(list(waiting.values())):
            return spent
        await asyncio.sleep(LOOK_EVERY_S)
