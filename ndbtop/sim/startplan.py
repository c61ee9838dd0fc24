"""Start plans: the steps a simulated data node walks through when it starts.

A plan is a sequence of steps; each belongs to an STTOR start phase, lasts a
number of simulated seconds, and may feed one ``restart_info`` column and set
the ``node_restart_status`` the master reports meanwhile. A start phase is
completed when its last step ends; phase 0 is the work before phase 1 (for
example allocating and touching memory).
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS

START_PHASES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101)
"""STTOR phases after phase 0 (allocating memory), in order: those a start can be made to
hang in."""

INITIAL_START = 0
SYSTEM_RESTART = 1
NODE_RESTART = 2
INITIAL_NODE_RESTART = 3

# node_restart_status_int values (ndbinfo.md, restart_info).
RS_ALLOCATED_NODE_ID = 0
RS_INCLUDED_IN_HB_PROTOCOL = 1
RS_NDBCNTR_START_WAIT = 2
RS_NDBCNTR_STARTED = 3
RS_START_PERMITTED = 4
RS_WAIT_LCP_TO_COPY_DICT = 5
RS_COPY_DICT_TO_STARTING_NODE = 6
RS_INCLUDE_NODE_IN_LCP_AND_GCP = 7
RS_LOCAL_RECOVERY_STARTED = 8
RS_COPY_FRAGMENTS_STARTED = 9
RS_WAIT_LCP_FOR_RESTART = 10
RS_WAIT_SUMA_HANDOVER = 11
RS_RESTART_COMPLETED = 12
RS_NODE_FAILED = 13
RS_NODE_FAILURE_COMPLETED = 14

RESTART_STATUS_TEXT = {
    0: "Allocated node id",
    1: "Included in heartbeat protocol",
    2: "Wait for NDBCNTR master to permit us to start",
    3: "NDBCNTR master permitted us to start",
    4: "All nodes permitted us to start",
    5: "Wait for LCP completion to start copying metadata",
    6: "Copying metadata to starting node",
    7: "Include node in LCP and GCP protocols",
    8: "Restore fragments ongoing",
    9: "Synchronizing starting node with live nodes",
    10: "Wait for LCP to ensure durability",
    11: "Wait for handover of subscriptions",
    12: "Restart completed",
    13: "Node failed, failure handling in progress",
    14: "Node failure handling completed",
    21: "Initial state",
}

RESTART_COLUMNS = (
    "secs_to_complete_node_failure",
    "secs_to_allocate_node_id",
    "secs_to_include_in_heartbeat_protocol",
    "secs_until_wait_for_ndbcntr_master",
    "secs_wait_for_ndbcntr_master",
    "secs_to_get_start_permitted",
    "secs_to_wait_for_lcp_for_copy_meta_data",
    "secs_to_copy_meta_data",
    "secs_to_include_node",
    "secs_starting_node_to_request_local_recovery",
    "secs_for_local_recovery",
    "secs_restore_fragments",
    "secs_undo_disk_data",
    "secs_exec_redo_log",
    "secs_index_rebuild",
    "secs_to_synchronize_starting_node",
    "secs_wait_lcp_for_restart",
    "secs_wait_subscription_handover",
)
"""The per-step columns of ``restart_info``, in table order (``total_restart_secs`` follows)."""

# Columns that sum up others rather than measuring a step of their own.
_SUMMARY_PARTS = {
    "secs_for_local_recovery": (
        "secs_restore_fragments",
        "secs_undo_disk_data",
        "secs_exec_redo_log",
        "secs_index_rebuild",
    ),
}


@dataclass(frozen=True, **SLOTS)
class StartStep:
    """One step of a start: its STTOR phase, duration and what it reports."""

    phase: int
    seconds: float
    label: str
    restart_column: str | None = None
    restart_status: int | None = None
    activity: str = ""
    """What the node's threads and disk are busy with: ``redo_init``, ``restore``, ``redo``,
    ``index_rebuild``, ``copy``, ``memory`` or empty."""


@dataclass(frozen=True, **SLOTS)
class RestartProfile:
    """Durations (simulated seconds) of a node restart's main steps."""

    alloc_memory: float = 4.0
    meta_data: float = 1.0
    restore_fragments: float = 6.0
    undo_disk_data: float = 0.0
    exec_redo_log: float = 3.0
    index_rebuild: float = 4.0
    synchronize: float = 2.0
    wait_lcp: float = 8.0
    subscription_handover: float = 2.0
    node_failure: float = 1.0


NDB_7_6_PROFILE = RestartProfile(
    alloc_memory=26,
    meta_data=2,
    restore_fragments=135,
    undo_disk_data=0,
    exec_redo_log=35,
    index_rebuild=77,
    synchronize=0.5,
    wait_lcp=128,
    subscription_handover=5.5,
    node_failure=1,
)
"""Field figures of a 60 GB node restart on 7.6.6 (6 min 49 s)."""

NDB_7_5_PROFILE = RestartProfile(
    alloc_memory=26,
    meta_data=2,
    restore_fragments=111,
    undo_disk_data=0,
    exec_redo_log=51,
    index_rebuild=124,
    synchronize=0.5,
    wait_lcp=828,
    subscription_handover=6,
    node_failure=1,
)
"""The same restart on 7.5.10 (19 min 11 s)."""


def _quick(phases: tuple[int, ...], seconds: float) -> list[StartStep]:
    return [StartStep(p, seconds, f"phase {p}") for p in phases]


REDO_INIT_PHASE = 2
"""The start phase in which the simulated release creates the redo log, as a 7.2 source and
an 8.0-series source (the 2003-2026 copy) do: ``Dblqh::execNDB_STTOR`` case ZSTART_PHASE1
runs ``startphase1Lab``, which for an initial start or initial node restart logs "Starting
REDO log initialisation", begins each part's files and does not answer NDB_STTORRY at once;
the first NDB_STTOR is sent in phase 2. A 7.4 source does it in phase 4 (``startphase3Lab``,
redo-init.md §2). ndbtop names the phase from what it sees, never from the release."""


def initial_start_plan(
    redo_init_seconds: float,
    alloc_seconds: float = 1.0,
    redo_phase: int = REDO_INIT_PHASE,
    wait_for_others: float = 0.0,
) -> tuple[StartStep, ...]:
    """``--initial`` start of a whole cluster.

    With ``redo_phase`` 2 (:data:`REDO_INIT_PHASE`), phase 2 creates the redo log files and
    phase 3 waits ``wait_for_others`` seconds more for the slowest node; as the 6.x field
    log of S1 numbered it (``redo_phase`` 4), phase 4 creates them.
    """
    if redo_phase == REDO_INIT_PHASE:
        middle = (
            *_quick((1,), 0.2),
            StartStep(2, redo_init_seconds, "redo log init", activity="redo_init"),
            StartStep(3, 0.2 + wait_for_others, "wait for the other nodes"),
            *_quick((4,), 0.2),
        )
    else:
        middle = (
            *_quick((1, 2, 3), 0.2),
            StartStep(4, redo_init_seconds, "redo log init", activity="redo_init"),
        )
    return (
        StartStep(0, alloc_seconds, "allocate memory", activity="memory"),
        *middle,
        StartStep(5, 1.5, "create system tables"),
        *_quick((6, 7, 8, 9, 100), 0.6),
        StartStep(101, 0.8, "hand-over"),
    )


def system_restart_plan(
    restore_seconds: float = 20.0, redo_seconds: float = 8.0, rebuild_seconds: float = 10.0
) -> tuple[StartStep, ...]:
    """System restart: every node restores its data from the last local checkpoint."""
    return (
        StartStep(0, 3.0, "allocate memory", activity="memory"),
        *_quick((1, 2, 3), 0.3),
        StartStep(4, restore_seconds, "restore LCP", activity="restore"),
        StartStep(4, redo_seconds, "execute redo", activity="redo"),
        *_quick((5, 6, 7), 0.5),
        StartStep(8, rebuild_seconds, "rebuild indexes", activity="index_rebuild"),
        *_quick((9, 100), 0.5),
        StartStep(101, 1.0, "hand-over"),
    )


def node_restart_plan(
    profile: RestartProfile,
    initial: bool,
    redo_init_seconds: float = 0.0,
    redo_phase: int = REDO_INIT_PHASE,
) -> tuple[StartStep, ...]:
    """Node restart (or initial node restart) of one node joining a running cluster."""
    p = profile
    steps = [
        StartStep(
            0,
            p.alloc_memory,
            "allocate memory",
            "secs_to_allocate_node_id",
            RS_ALLOCATED_NODE_ID,
            "memory",
        ),
        StartStep(
            1, 0.4, "heartbeat", "secs_to_include_in_heartbeat_protocol", RS_INCLUDED_IN_HB_PROTOCOL
        ),
    ]
    redo_init = initial and redo_init_seconds > 0
    if redo_init and redo_phase == REDO_INIT_PHASE:
        steps.append(StartStep(2, redo_init_seconds, "redo log init", activity="redo_init"))
    steps += [
        StartStep(2, 0.3, "wait for master", "secs_wait_for_ndbcntr_master", RS_NDBCNTR_START_WAIT),
        StartStep(3, 0.3, "start permitted", "secs_to_get_start_permitted", RS_START_PERMITTED),
    ]
    if redo_init and redo_phase == REDO_INIT_PHASE:
        steps.append(StartStep(4, 0.5, "phase 4"))
    elif redo_init:
        steps.append(StartStep(4, redo_init_seconds, "redo log init", activity="redo_init"))
    else:
        steps.append(StartStep(4, 0.5, "find end of redo log"))
    steps += [
        StartStep(
            5, p.meta_data, "copy metadata", "secs_to_copy_meta_data", RS_COPY_DICT_TO_STARTING_NODE
        ),
        StartStep(5, 0.5, "include node", "secs_to_include_node", RS_INCLUDE_NODE_IN_LCP_AND_GCP),
    ]
    if not initial:
        steps += [
            StartStep(
                5,
                p.restore_fragments,
                "restore fragments",
                "secs_restore_fragments",
                RS_LOCAL_RECOVERY_STARTED,
                "restore",
            ),
            StartStep(
                5,
                p.undo_disk_data,
                "undo disk data",
                "secs_undo_disk_data",
                RS_LOCAL_RECOVERY_STARTED,
                "redo",
            ),
            StartStep(
                5,
                p.exec_redo_log,
                "execute redo log",
                "secs_exec_redo_log",
                RS_LOCAL_RECOVERY_STARTED,
                "redo",
            ),
            StartStep(
                5,
                p.index_rebuild,
                "rebuild indexes",
                "secs_index_rebuild",
                RS_LOCAL_RECOVERY_STARTED,
                "index_rebuild",
            ),
        ]
    copy_seconds = p.synchronize if not initial else max(p.synchronize, p.restore_fragments)
    steps += [
        StartStep(
            5,
            copy_seconds,
            "copy fragments",
            "secs_to_synchronize_starting_node",
            RS_COPY_FRAGMENTS_STARTED,
            "copy",
        ),
        StartStep(
            5, p.wait_lcp, "wait for LCP", "secs_wait_lcp_for_restart", RS_WAIT_LCP_FOR_RESTART
        ),
        *_quick((6, 7, 8, 9, 100), 0.2),
        StartStep(
            101,
            p.subscription_handover,
            "hand-over",
            "secs_wait_subscription_handover",
            RS_WAIT_SUMA_HANDOVER,
        ),
    ]
    return tuple(s for s in steps if s.seconds > 0 or s.restart_column is not None)


def plan_seconds(plan: tuple[StartStep, ...]) -> float:
    """Total duration of a plan."""
    return sum(s.seconds for s in plan)


def restart_row_values(durations: dict[str, float], total: float) -> tuple[int, ...]:
    """The 18 per-step columns and ``total_restart_secs`` from accumulated step durations."""
    values = []
    for col in RESTART_COLUMNS:
        parts = _SUMMARY_PARTS.get(col)
        secs = sum(durations.get(c, 0.0) for c in parts) if parts else durations.get(col, 0.0)
        values.append(round(secs))
    return (*values, round(total))
