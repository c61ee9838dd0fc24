"""The kind of a start no event told: what the evidence points to, and why.

``get status`` does not say what kind of start a STARTING node is in; the events do
(``StartPhaseCompleted`` carries it), but a start ndbtop attached to mid-way may show none
for a long while (S1's phase 4 lasts 39 minutes). Two things tell the kinds apart:

- an initial start (or initial node restart) creates its redo log, which shows in the
  ``LogFileInitStatus`` events and, with ``--ssh``, on the node's host (redo-init.md §§5-6);
- a node restart (or initial node restart) joins data nodes that are running, a system
  restart or initial start has none started.

Nothing tells a system restart from an initial start before its redo log creation is
seen: then no kind is taken.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.phases import (
    INITIAL_NODE_RESTART,
    INITIAL_START,
    NODE_RESTART,
    START_TYPE_SHORT,
    StartTimeline,
)


def taken_kind(t: StartTimeline, nodes: Iterable[NodeStatus],
               host_redo: bool = False) -> tuple[int, str] | None:
    """(kind, ``taken for an initial start: ...``) for a start whose kind no event told,
    from the timeline, every node's ``get status`` and whether the node's host shows its
    redo log being created (``host_redo``); None when an event told it or nothing points
    to one."""
    if t.start_type is not None:
        return None
    redo: str | None = None
    if t.redo is not None:
        redo = "its progress reports"
    elif host_redo or t.redo_phase is not None:
        redo = "its host"
    running = sorted(n.node_id for n in nodes
                     if n.type == "NDB" and n.node_id != t.node_id and n.status == "STARTED")
    if running:
        others = f"data node{'s' if len(running) > 1 else ''} {', '.join(map(str, running))} " \
                 f"started"
    else:
        others = "no data node started"
    if redo is not None:
        kind = INITIAL_NODE_RESTART if running else INITIAL_START
        why = f"it creates its redo log ({redo}), {others}"
    elif running:
        kind = NODE_RESTART
        why = f"{others}, no redo log creation seen"
    else:
        return None
    return kind, f"taken for {_article(START_TYPE_SHORT[kind])}: {why}"


def _article(name: str) -> str:
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"
