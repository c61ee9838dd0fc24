"""Arbitration events read as an operator needs them: re-election after an ndb_mgmd restart
is a passing, informational state; a lost or failed arbitration is an alarm.

Events are built from the bytes a management server sends a parsable listener
(``log event reply`` blocks, values printed with ``%d``) and from text-mode lines
(``Node <id>: <text>``), with the texts of ``EventLogger.cpp``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events import Severity, decode_event, decode_text_line, event_text
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.wire import LineBuffer, RawEvent
from ndbtop.model.arbitration import (
    ArbitCode,
    ArbitrationPhase,
    ArbitState,
    Concern,
    arbit_report,
    arbitration_status,
    interpret,
)

MGMDS = frozenset({1})
TICKET = "ticket_0=1244332034\nticket_1=20000\n"
"""``[ticket=4a2b000200004e20]``: process 0x4a2b, second ticket, 20 s of uptime."""


def parsable(data: bytes, at: float = 1000.0) -> list[Event]:
    """Events from what a parsable listener receives, decoded as the events source does."""
    parser = EventStreamParser()
    events = []
    for line in LineBuffer().feed(data):
        item = parser.feed(line)
        if isinstance(item, RawEvent):
            events.append(decode_event(item, at + len(events)))
    return events


def block(source: int, event_type: int, code: int, node: int = 1) -> bytes:
    """One ``log event reply`` block of ArbitState (29) or ArbitResult (30)."""
    return (
        f"log event reply\ntype={event_type}\ntime=0\nsource_nodeid={source}\n"
        f"code={code}\narbit_node={node}\n{TICKET}\n"
    ).encode()


def text_line(line: str, at: float = 1000.0) -> Event:
    return decode_text_line(line, at)


# ndb_mgmd (node 1, the arbitrator) restarts; the listener sits on another management server.
MGMD_RESTART = (
    block(2, 29, 393248)  # 32 | 6 << 16: ApiFail in RUN
    + block(3, 29, 393248)
    + block(2, 29, 65547, node=0)  # 11 | 1 << 16: ThreadStart in INIT
    + b"<PING>\n"
    + block(3, 29, 22)  # PrepPart2, state NULL after the loss
    + block(2, 29, 327711)  # 31 | 5 << 16: ApiStart in START
)


def test_the_mgmd_restart_sequence_decodes_to_the_server_texts() -> None:
    events = parsable(MGMD_RESTART)
    assert [(e.source_node, e.text) for e in events] == [
        (2, "Lost arbitrator node 1 - process failure [state=6]"),
        (3, "Lost arbitrator node 1 - process failure [state=6]"),
        (2, "President restarts arbitration thread [state=1]"),
        (3, "Prepare arbitrator node 1 [ticket=4a2b000200004e20]"),
        (2, "Started arbitrator node 1 [ticket=4a2b000200004e20]"),
    ]
    # The cluster log's own severity: INFO, the level that says nothing about the meaning.
    assert {e.severity for e in events} == {Severity.INFO}


def test_an_mgmd_restart_is_an_informational_re_election_not_an_alarm() -> None:
    meanings = [interpret(e, MGMDS) for e in parsable(MGMD_RESTART)]
    assert all(m is not None and m.severity is Severity.INFO for m in meanings)
    assert [m.concern for m in meanings if m] == [
        Concern.TRANSIENT,
        Concern.TRANSIENT,
        Concern.TRANSIENT,
        Concern.ROUTINE,
        Concern.ROUTINE,
    ]
    lost = meanings[0]
    assert lost is not None
    assert lost.summary == "arbitration: re-electing, normal during an ndb_mgmd restart"
    assert meanings[4] is not None
    assert meanings[4].summary == "arbitration: ndb_mgmd node 1 is arbitrator"


def test_the_status_follows_the_re_election_and_settles() -> None:
    events = parsable(MGMD_RESTART)
    lost_at = events[0].received_at

    electing = arbitration_status(events[:3])
    assert electing.phase is ArbitrationPhase.ELECTING
    assert electing.concern is Concern.TRANSIENT
    # Every data node reports the same loss; the election began with the first.
    assert (electing.arbitrator, electing.since) == (1, lost_at)
    assert electing.describe(lost_at + 12, MGMDS) == (
        "arbitration: re-electing, arbitrator ndb_mgmd node 1 went away 12s ago "
        "(normal while ndb_mgmd restarts)"
    )
    assert electing.describe(lost_at + 75, MGMDS, connected={1}) == (
        "arbitration: re-electing after mgmd reconnect, ndb_mgmd node 1 is back and about "
        "to be chosen again (arbitrator lost 1m15s ago)"
    )

    settled = arbitration_status(events[3:], electing)
    assert settled.phase is ArbitrationPhase.RUNNING
    assert settled.arbitrator == 1 and settled.concern is Concern.ROUTINE
    assert arbitration_status(events) == settled


def test_text_mode_lines_are_read_like_parsable_events() -> None:
    lines = [
        "Node 2: Lost arbitrator node 1 - process failure [state=6]",
        "Node 2: President restarts arbitration thread [state=1]",
        "Node 3: Prepare arbitrator node 1 [ticket=4a2b000200004e20]",
        "Node 2: Started arbitrator node 1 [ticket=4a2b000200004e20]",
    ]
    from_text = [text_line(x) for x in lines]
    typed = parsable(MGMD_RESTART)
    typed = [typed[0], typed[2], typed[3], typed[4]]
    assert [interpret(e, MGMDS) for e in from_text] == [interpret(e, MGMDS) for e in typed]
    assert [(r.code, r.state, r.node, r.reporter) for e in from_text if (r := arbit_report(e))] == [
        (32, 6, 1, 2),
        (11, 1, 0, 2),
        (22, 0, 1, 3),
        (31, 0, 1, 2),  # a text carries no state when it shows a ticket
    ]
    assert arbitration_status(from_text).phase is ArbitrationPhase.RUNNING


def test_a_clean_ndb_mgmd_stop_and_a_non_management_arbitrator() -> None:
    exit_ = text_line("Node 2: Lost arbitrator node 1 - process exit [state=6]")
    meaning = interpret(exit_, MGMDS)
    assert meaning is not None and meaning.concern is Concern.TRANSIENT
    assert meaning.summary == "arbitration: re-electing, normal during an ndb_mgmd restart"
    # A SQL node as arbitrator (ArbitrationRank 1 or 2 on an API node): also re-elected.
    api = interpret(text_line("Node 2: Lost arbitrator node 50 - process failure [state=6]"),
                    MGMDS)
    assert api is not None and api.concern is Concern.TRANSIENT
    assert api.summary == "arbitration: re-electing after losing node 50"


def test_a_network_partition_lost_by_these_nodes_is_an_alarm() -> None:
    events = parsable(
        block(2, 30, (7 << 16) | 45)  # Partitioning, arbitration state CHOOSE
        + block(2, 29, (7 << 16) | 11, node=1)  # thread restarted to ask the arbitrator
        + block(2, 30, (7 << 16) | 47)  # LoseChoose
    )
    assert [e.text for e in events] == [
        "Network partitioning - arbitration required",
        "President restarts arbitration thread [state=7]",
        "Arbitration lost - negative reply from node 1",
    ]
    meanings = [interpret(e, MGMDS) for e in events]
    assert [m.severity for m in meanings if m] == [
        Severity.ALERT,
        Severity.WARNING,
        Severity.ALERT,
    ]
    assert meanings[2] is not None
    assert meanings[2].summary == (
        "arbitration lost: the arbitrator chose the other side of the partition, "
        "data nodes shut down"
    )
    partitioned = arbitration_status(events[:2])
    assert partitioned.phase is ArbitrationPhase.PARTITIONED
    assert partitioned.concern is Concern.ALARM
    failed = arbitration_status(events)
    assert failed.phase is ArbitrationPhase.FAILED and failed.concern is Concern.ALARM
    assert failed.since == events[2].received_at
    assert failed.describe(failed.since + 3) == "arbitration failed 3s ago: data nodes shut down"


def test_a_won_partition_warns_and_the_arbitrator_is_chosen_again() -> None:
    events = parsable(
        block(2, 30, (7 << 16) | 45)
        + block(2, 30, (7 << 16) | 46)  # WinChoose
        + block(3, 29, 22)
        + block(2, 29, (5 << 16) | 31)
    )
    won = interpret(events[1], MGMDS)
    assert won is not None and won.severity is Severity.WARNING
    after_win = arbitration_status(events[:2])
    assert after_win.phase is ArbitrationPhase.ELECTING
    assert after_win.concern is Concern.WARNING
    assert after_win.describe(after_win.since or 0).startswith("arbitration won 0s ago")
    assert arbitration_status(events).phase is ArbitrationPhase.RUNNING


@pytest.mark.parametrize(
    ("code", "text", "concern"),
    [
        (41, "Arbitration check lost - less than 1/2 nodes left", Concern.ALARM),
        (42, "Arbitration check won - all node groups and more than 1/2 nodes left",
         Concern.ROUTINE),
        (43, "Arbitration check won - node group majority", Concern.ROUTINE),
        (44, "Arbitration check lost - missing node group", Concern.ALARM),
        (45, "Network partitioning - arbitration required", Concern.ALARM),
        (48, "Network partitioning - no arbitrator available", Concern.ALARM),
        (49, "Network partitioning - no arbitrator configured", Concern.ALARM),
        ((8 << 16) | 94, "Arbitration failure - timeout [state=8]", Concern.ALARM),
        (95, "Arbitration failure - unknown error [code=95] [state=0]", Concern.ALARM),
    ],
)
def test_every_arbitration_result(code: int, text: str, concern: Concern) -> None:
    (event,) = parsable(block(2, 30, code))
    assert event.text == text
    assert event.severity is Severity.ALERT  # the cluster log says ALERT for all of them
    meaning = interpret(event, MGMDS)
    assert meaning is not None and meaning.concern is concern
    assert interpret(text_line(f"Node 2: {text}"), MGMDS) == meaning


def test_a_won_check_after_a_node_failure_leaves_the_arbitrator_in_place() -> None:
    # What a planned stop of node 3 in a rolling restart brings.
    running = arbitration_status(parsable(block(2, 29, (5 << 16) | 31)))
    events = parsable(block(2, 30, (6 << 16) | 43) + block(2, 29, (6 << 16) | 11, node=1))
    assert events[1].text == "President restarts arbitration thread [state=6]"
    assert [m.concern for e in events if (m := interpret(e, MGMDS))] == [
        Concern.ROUTINE,
        Concern.ROUTINE,
    ]
    assert arbitration_status(events, running) == running


@pytest.mark.parametrize(
    ("state", "concern", "phase"),
    [
        (ArbitState.START, Concern.WARNING, ArbitrationPhase.ELECTING),
        (ArbitState.CHOOSE, Concern.ALARM, ArbitrationPhase.FAILED),
    ],
)
def test_an_arbitrator_that_does_not_answer(
    state: ArbitState, concern: Concern, phase: ArbitrationPhase
) -> None:
    # While starting a new arbitrator the president tries again; while a partition waits
    # for the arbitrator's answer the data node shuts down.
    electing = arbitration_status([text_line("Node 2: President restarts arbitration thread "
                                             "[state=1]")])
    (event,) = parsable(block(2, 29, (state << 16) | 94))
    assert event.text == f"Lost arbitrator node 1 - timeout [state={int(state)}]"
    meaning = interpret(event, MGMDS)
    assert meaning is not None and meaning.concern is concern
    assert arbitration_status([event], electing).phase is phase


def test_losing_the_arbitrator_while_it_decides_a_partition_is_an_alarm() -> None:
    event = text_line("Node 2: Lost arbitrator node 1 - process failure [state=7]")
    meaning = interpret(event, MGMDS)
    assert meaning is not None and meaning.severity is Severity.ALERT


def test_other_events_have_no_arbitration_meaning() -> None:
    others = [
        *parsable(
            b"log event reply\ntype=28\ntime=0\nsource_nodeid=2\nfailed_node=3\n"
            b"failure_state=0\n\n"
        ),
        text_line("Node 2: Node 3 has failed. The Node state at failure was 0"),
        text_line("Node 2: Lost arbitrator node x - nonsense [state=1]"),
    ]
    assert [interpret(e) for e in others] == [None, None, None]
    assert arbitration_status(others).phase is ArbitrationPhase.UNKNOWN


@given(
    code=st.sampled_from([int(c) for c in ArbitCode] + [99]),
    state=st.sampled_from([int(s) for s in ArbitState]),
    node=st.integers(min_value=1, max_value=255),
    result=st.booleans(),
)
def test_a_text_line_means_what_its_typed_event_means(
    code: int, state: int, node: int, result: bool
) -> None:
    event_type = 30 if result else 29
    words = [code | (state << 16), node, 0x4A2B0002, 20000]
    typed = decode_event(
        RawEvent(event_type, 0, 2, (("code", str(words[0])), ("arbit_node", str(node)),
                                    ("ticket_0", str(words[2])), ("ticket_1", str(words[3])))),
        5.0,
    )
    line = text_line(f"Node 2: {event_text(event_type, words)}", 5.0)
    assert typed.text == line.text
    assert interpret(line, MGMDS) == interpret(typed, MGMDS)


def test_an_election_begins_with_its_first_report_whatever_the_order() -> None:
    # The president may report restarting its thread before another node reports the loss.
    events = [
        text_line("Node 2: Lost arbitrator node 1 - process failure [state=6]", 10.0),
        text_line("Node 2: President restarts arbitration thread [state=1]", 10.5),
        text_line("Node 3: Lost arbitrator node 1 - process failure [state=6]", 11.0),
    ]
    for order in (events, [events[1], events[2], events[0]]):
        status = arbitration_status(order)
        assert status.phase is ArbitrationPhase.ELECTING
        assert status.arbitrator == 1
        assert status.since == order[0].received_at
    only_thread = arbitration_status(events[1:2])
    assert only_thread.describe(12.5) == "arbitration: choosing an arbitrator, began 2s ago"
