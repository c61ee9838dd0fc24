"""A restart whose wait failed (5024, 5025) leaves its node NOT_STARTED.

``MgmtSrvr::restartNodes`` stops the nodes with nostart set and sends START_ORD only
after both of its waits succeed; a failed wait returns before it (server-rules.md §6).
The operator must start the node (``N START``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ndbtop.mgm import errorcodes as ec
from ndbtop.textnum import is_digits

FAILED_WAITS = (ec.WAIT_FOR_NDBD_TO_START_SHUTDOWN_FAILED, ec.WAIT_FOR_NDBD_SHUTDOWN_FAILED)


def failed_wait(reply: str) -> int | None:
    """5024 or 5025 when a restart reply's result (``5025-Time-out ...``) is a failed wait."""
    code, dash, _ = reply.partition("-")
    if dash and is_digits(code.strip(), 4) and int(code) in FAILED_WAITS:
        return int(code)
    return None


def left_not_started_note(node_id: int, code: int) -> str:
    """What to tell about a node a failed restart wait left NOT_STARTED."""
    return (f"left NOT_STARTED by a failed restart wait ({code}): start it with "
            f"{node_id} START")


def left_by_failed_waits(records: Iterable[Mapping[str, object]]) -> dict[int, int]:
    """Node id -> 5024/5025 for the nodes whose last restart, in audit-log ``records``,
    ended in a failed wait and that were not started or restarted since."""
    left: dict[int, int] = {}
    for record in records:
        if record.get("event") != "reply":
            continue
        words = str(record.get("command", "")).split()
        ids = [int(w) for w in words if is_digits(w, 3)]
        verb = next((w for w in words if not is_digits(w, 3)), "")
        if verb not in ("RESTART", "START", "STOP"):
            continue
        code = failed_wait(str(record.get("reply", ""))) if verb == "RESTART" else None
        for node_id in ids:
            if code is not None:
                left[node_id] = code
            elif record.get("ok") or verb == "STOP":
                left.pop(node_id, None)
    return left
