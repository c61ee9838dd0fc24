"""Rows of ``ndbinfo.membership`` turned into :class:`MembershipRow` values.

The view's columns and mappings are those of ndbinfo.md §2.1; what each holds, from
``Qmgr::execDBINFO_SCANREQ`` (see :mod:`ndbtop.model.membership_rows`). A value that is not
what the server sends (a node id out of range, a ticket that is not 16 hex digits, a state
the view does not name) is dropped or kept as the server's text, never trusted as a number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ndbtop.mgm.nodeids import is_node_id
from ndbtop.model.config import NO_NODE_GROUP
from ndbtop.model.membership_rows import ARB_STATES, MembershipRow
from ndbtop.ndbinfo.rows import Row, to_int, to_text
from ndbtop.sanitise import sanitise
from ndbtop.textnum import int_or_none

COLUMNS = ("node_id", "group_id", "left_node", "right_node", "president", "successor",
           "succession_order", "Conf_HB_order", "arbitrator", "arb_ticket", "arb_state",
           "arb_connected", "connected_rank1_arbs", "connected_rank2_arbs")
"""The columns the query reads, in this order (every column of the view)."""

_TICKET = re.compile(r"[0-9a-f]{16}")
_MAX_CANDIDATES = 255


def _node(value: object) -> int | None:
    number = to_int(value, -1)
    return number if is_node_id(number) else None


def _group(value: object) -> int | None:
    number = to_int(value, NO_NODE_GROUP)
    return None if not 0 <= number < NO_NODE_GROUP else number


def _candidates(value: object) -> tuple[int, ...]:
    """``"49, 50"`` (the kernel joins them with ``", "``) or ``-`` for none."""
    text = to_text(value).strip()
    if text in ("", "-"):
        return ()
    out = []
    for part in text.split(",")[:_MAX_CANDIDATES]:
        number = int_or_none(part.strip(), 1, 255)
        if number is not None:
            out.append(number)
    return tuple(out)


def _state(value: object) -> str:
    text = to_text(value).strip()
    if text in ARB_STATES:
        return text
    return sanitise(text[:12]) or "UNKNOWN"


def _ticket(value: object) -> str:
    text = to_text(value).strip()
    return text if _TICKET.fullmatch(text) else sanitise(text[:20])


def parse_membership(rows: Sequence[Row]) -> tuple[MembershipRow, ...]:
    """The rows of :data:`~ndbtop.ndbinfo.queries_triage.MEMBERSHIP`, in the order of
    :data:`COLUMNS`, by node id; a row too short or of no data node is left out."""
    out: dict[int, MembershipRow] = {}
    for row in rows:
        if len(row) < len(COLUMNS):
            continue
        node = _node(row[0])
        if node is None:
            continue
        out[node] = MembershipRow(
            node_id=node,
            group_id=_group(row[1]),
            left_node=_node(row[2]),
            right_node=_node(row[3]),
            president=_node(row[4]),
            successor=_node(row[5]),
            succession_order=max(to_int(row[6]), 0),
            hb_order=max(to_int(row[7]), 0),
            arbitrator=_node(row[8]),
            arb_ticket=_ticket(row[9]),
            arb_state=_state(row[10]),
            arb_connected=to_text(row[11]).strip() == "Yes",
            rank1_arbitrators=_candidates(row[12]),
            rank2_arbitrators=_candidates(row[13]),
        )
    return tuple(out[k] for k in sorted(out))
