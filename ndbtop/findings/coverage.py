"""Which rules a surface could judge, from the sources it read.

A rule concludes nothing from data it does not have, and an unjudged rule must never pass
for a judged one: ``check`` and ``--once`` name the sources they could not read and the
rules those leave unjudged. The rules on what the data nodes warn about need the cluster
log's recent history (its file) or a listener that heard the events long enough
(:data:`HEARD_ENOUGH_S`, the window those rules look back over); the ndbinfo rules need a
SQL node; ``memory_high`` needs ndbinfo or the data nodes' memory report.
"""

from __future__ import annotations

from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState

EVENT_RULES = ("gcp_save_lag", "gcp_commit_lag", "gcp_stop", "lcp_stalled", "missed_heartbeat",
               "node_failure_handling_slow", "no_arbitrator", "start_waiting_for_nodes",
               "sql_node_disconnected_lagging")
REPLICATION_RULES = ("replication_stopped", "replication_lag", "replication_lost_events",
                     "replication_conflicts")
"""Rules on the channels of the SQL nodes named for replication (none named: nothing to
judge, and nothing said)."""
NDBINFO_RULES = ("redo_part_filling", "redo_buffer_full", "redo_io_lag",
                 "send_buffer_overload", "disk_page_buffer_low_hit", "thread_saturated",
                 "config_not_applied", "long_transaction")
RATE_RULES = ("redo_io_lag", "send_buffer_overload", "disk_page_buffer_low_hit")
"""Rules on what grew between two readings of ndbinfo (each of its own table)."""
HEARD_ENOUGH_S = 120.0

SOURCE_RULES: tuple[tuple[str, str], ...] = (
    ("get status", "cluster_down (while no node is started, with a start's StartReports "
                   "from the cluster log or the events), node_group_down, node_group_one_left, "
                   "mixed_versions, single_user_mode, start_phase_slow"),
    ("configuration", "replicas_same_host; node groups and hosts for the others"),
    ("MemoryUsage report", "memory_high without a SQL node"),
    ("ndbinfo (SQL node)", "memory_high, " + ", ".join(NDBINFO_RULES)),
    ("cluster log file (--ssh, or on its host)", ", ".join(EVENT_RULES)),
    ("events listened to", ", ".join(EVENT_RULES) + " (over what was heard)"),
    ("data node hosts (--ssh)", "redo_init_disk_bound"),
    ("replication (--replica-mysql-host)", ", ".join(REPLICATION_RULES)),
)
"""What each source lets the findings judge (the README's table)."""


def _why(snap: ClusterSnapshot, name: str) -> str | None:
    """Why source ``name`` was not read, or None when it was."""
    src = snap.source(name)
    if src is None:
        return "not used"
    if src.state is SourceState.CONNECTED:
        return None
    return src.error or src.state.value


def replication_silent(snap: ClusterSnapshot) -> list[str]:
    """The SQL nodes named for replication that did not answer their last read
    (``host:port (side)``): the channels they hold, or feed, go unjudged."""
    state = snap.replication
    if state is None:
        return []
    return [f"{e.target} ({e.side})" for e in state.endpoints if e.error is not None]


def _only_starting(snap: ClusterSnapshot) -> bool:
    """No data node started, and some starting."""
    data = snap.data_nodes()
    return (not any(n.status in ("STARTED", "SINGLE USER MODE") for n in data)
            and any(n.status == "STARTING" for n in data))


def unread(snap: ClusterSnapshot) -> list[tuple[str, str]]:
    """(source, why) for the secondary sources a surface could not read."""
    out = []
    for name in ("ndbinfo", "cluster-log"):
        why = _why(snap, name)
        if why is not None:
            out.append((name, why))
    if snap.source("replication") is not None:
        why = _why(snap, "replication")
        silent = replication_silent(snap)
        if why is None and silent:
            why = f"no answer from {', '.join(silent)}"
        if why is not None:
            out.append(("replication", why))
    return out


def unjudged(snap: ClusterSnapshot, heard_s: float | None) -> list[tuple[str, tuple[str, ...]]]:
    """(why, rule ids) for the rules the snapshot's sources could not judge; ``heard_s``:
    how long the events were listened to (None: for as long as the rules look back)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    if snap.live_ndbinfo() is None:
        rules = NDBINFO_RULES if snap.memory_reports else ("memory_high", *NDBINFO_RULES)
        out.append(("no ndbinfo", rules))
    else:
        apart = (any(r.seconds > 0 for r in snap.io_lag_rates),
                 any(r.seconds > 0 for r in snap.link_rates),
                 # Requests counted over an interval judge it, none among them too.
                 any(h.requests_per_s is not None for h in snap.hit_ratios)
                 or not snap.ndbinfo or not snap.ndbinfo.disk_page_buffer)
        rules = tuple(rule for rule, ok in zip(RATE_RULES, apart) if not ok)
        if rules:
            out.append(("one reading of their ndbinfo table", rules))
    if any(t.active and t.in_phase_lower_bound for t in snap.timelines):
        out.append(("a start phase not seen from its beginning", ("start_phase_slow",)))
    heard = heard_s is None or heard_s >= HEARD_ENOUGH_S
    if _why(snap, "cluster-log") is not None and not heard:
        said = "no event heard" if not heard_s else f"events heard for {heard_s:.0f} s only"
        rules = EVENT_RULES
        if _only_starting(snap):
            # Whether a start with no node started yet moves on or waits for ever is in its
            # StartReports: without them, cluster_down cannot say the cluster is down.
            rules = ("cluster_down", *EVENT_RULES)
        out.append((f"no cluster log read, {said}", rules))
    if snap.source("replication") is not None:
        silent = replication_silent(snap)
        if _why(snap, "replication") is not None:
            out.append(("no replica SQL node answered", REPLICATION_RULES))
        elif silent:
            # A replica that does not answer shows no channel at all: never an all-clear.
            out.append((f"no answer from {', '.join(silent)}: its channels",
                        REPLICATION_RULES))
    return out


def unjudged_text(snap: ClusterSnapshot, heard_s: float | None) -> str:
    """``not judged (why): ids; ...`` or empty."""
    return "; ".join(f"not judged ({why}): {', '.join(ids)}"
                     for why, ids in unjudged(snap, heard_s))
