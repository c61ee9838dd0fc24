"""ArbitState and ArbitResult events decoded: the codes and states they carry.

Sources (mysql-server): the codes from ``ArbitCode`` in ``ArbitSignalData.hpp``; the
states (the ``[state=N]`` of the texts) from ``Qmgr::ArbitState`` in ``Qmgr.hpp``; the
texts from ``getTextArbitState`` and ``getTextArbitResult`` in ``EventLogger.cpp``. Both
events carry ``code | state << 16`` in word 1, the arbitrator's node id in word 2 and the
ticket in words 3 and 4. Events read from a text-mode listener (no type, only
``Node <id>: <text>``) are recognised by their text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.decode import TEXT_LINE_TYPE, Event
from ndbtop.mgm.events.text import event_text

ARBIT_STATE = 29
"""Event type ``NDB_LE_ArbitState`` (NODERESTART, level 6, INFO)."""
ARBIT_RESULT = 30
"""Event type ``NDB_LE_ArbitResult`` (NODERESTART, level 2, ALERT)."""


class ArbitCode(IntEnum):
    """``ArbitCode``: the low 16 bits of word 1 of both arbitration events."""

    THREAD_START = 11
    PREP_PART1 = 21
    PREP_PART2 = 22
    PREP_ATRUN = 23
    API_START = 31
    API_FAIL = 32
    API_EXIT = 33
    LOSE_NODES = 41
    WIN_NODES = 42
    WIN_GROUPS = 43
    LOSE_GROUPS = 44
    PARTITIONING = 45
    WIN_CHOOSE = 46
    LOSE_CHOOSE = 47
    LOSE_NORUN = 48
    LOSE_NOCFG = 49
    WIN_WAIT_EXTERNAL = 50
    ERR_TICKET = 91
    ERR_TOOMANY = 92
    ERR_STATE = 93
    ERR_TIMEOUT = 94
    ERR_UNKNOWN = 95


class ArbitState(IntEnum):
    """``Qmgr::ArbitState``: the high 16 bits of word 1, the ``[state=N]`` of the texts."""

    NULL = 0
    INIT = 1
    FIND = 2
    PREP1 = 3
    PREP2 = 4
    START = 5
    RUN = 6
    CHOOSE = 7
    CRASH = 8


@dataclass(frozen=True, **SLOTS)
class ArbitReport:
    """One ArbitState (``result`` false) or ArbitResult (``result`` true) event, decoded.

    ``state`` is the reporting node's arbitration state when it reported, ``node``
    the arbitrator concerned (0 when none), ``reporter`` the data node that
    reported and ``at`` the event's ``received_at``.
    """

    result: bool
    code: int
    state: int
    node: int
    reporter: int
    at: float


def _text_patterns() -> tuple[tuple[re.Pattern[str], bool, int | None], ...]:
    """(pattern, result, code) for every text; code None: the text names the error."""
    ticket = r"\[ticket=[0-9a-f]{16}\]"
    out: list[tuple[re.Pattern[str], bool, int | None]] = [
        (re.compile(r"President restarts arbitration thread \[state=(?P<state>[0-9]{1,20})\]"),
         False, ArbitCode.THREAD_START),
        (re.compile(rf"Prepare arbitrator node (?P<node>[0-9]{{1,20}}) {ticket}"),
         False, ArbitCode.PREP_PART2),
        (re.compile(rf"Receive arbitrator node (?P<node>[0-9]{{1,20}}) {ticket}"),
         False, ArbitCode.PREP_ATRUN),
        (re.compile(rf"Started arbitrator node (?P<node>[0-9]{{1,20}}) {ticket}"),
         False, ArbitCode.API_START),
        (re.compile(r"Lost arbitrator node (?P<node>[0-9]{1,20}) - process failure "
                    r"\[state=(?P<state>[0-9]{1,20})\]"), False, ArbitCode.API_FAIL),
        (re.compile(r"Lost arbitrator node (?P<node>[0-9]{1,20}) - process exit "
                    r"\[state=(?P<state>[0-9]{1,20})\]"), False, ArbitCode.API_EXIT),
        (re.compile(r"Lost arbitrator node (?P<node>[0-9]{1,20}) - (?P<error>.+) "
                    r"\[state=(?P<state>[0-9]{1,20})\]"), False, None),
        (re.compile(r"Arbitration won - positive reply from node (?P<node>[0-9]{1,20})"),
         True, ArbitCode.WIN_CHOOSE),
        (re.compile(r"Arbitration lost - negative reply from node (?P<node>[0-9]{1,20})"),
         True, ArbitCode.LOSE_CHOOSE),
        (re.compile(r"Continuing after wait for external arbitration, nodes: .*"),
         True, ArbitCode.WIN_WAIT_EXTERNAL),
        (re.compile(r"Arbitration failure - (?P<error>.+) \[state=(?P<state>[0-9]{1,20})\]"),
         True, None),
    ]
    # The fixed texts, as the server prints them.
    for code in (41, 42, 43, 44, 45, 48, 49):
        out.append((re.compile(re.escape(event_text(ARBIT_RESULT, [code]))), True, code))
    return tuple(out)


_PATTERNS = _text_patterns()
_ERROR_CODES = {
    # "Lost arbitrator node 0 - timeout [state=0]" -> "timeout"
    event_text(ARBIT_STATE, [code])[len("Lost arbitrator node 0 - "):-len(" [state=0]")]: code
    for code in (ArbitCode.ERR_TICKET, ArbitCode.ERR_TOOMANY, ArbitCode.ERR_STATE,
                 ArbitCode.ERR_TIMEOUT)
}
_UNKNOWN_ERROR = re.compile(r"unknown error \[code=([0-9]{1,20})\]")


def _from_text(event: Event) -> ArbitReport | None:
    for pattern, result, code in _PATTERNS:
        m = pattern.fullmatch(event.text)
        if m is None:
            continue
        groups = m.groupdict()
        if code is None:
            error = groups["error"]
            unknown = _UNKNOWN_ERROR.fullmatch(error)
            code = int(unknown.group(1)) if unknown else _ERROR_CODES.get(error)
            if code is None:
                continue
        return ArbitReport(
            result,
            code,
            int(groups.get("state") or 0),
            int(groups.get("node") or 0),
            event.source_node,
            event.received_at,
        )
    return None


def arbit_report(event: Event) -> ArbitReport | None:
    """The arbitration report an event carries, or None for any other event."""
    if event.type in (ARBIT_STATE, ARBIT_RESULT):
        word = event.word(1)
        return ArbitReport(
            event.type == ARBIT_RESULT,
            word & 0xFFFF,
            word >> 16,
            event.word(2),
            event.source_node,
            event.received_at,
        )
    if event.type == TEXT_LINE_TYPE:
        return _from_text(event)
    return None
