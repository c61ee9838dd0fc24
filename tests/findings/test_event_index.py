"""The event history by type: each rule's events in the order they came, the index worked
out again for a new history."""

from __future__ import annotations

from ndbtop.findings import event_index
from ndbtop.mgm.events.decode import Event
from tests.findings.test_rules_server_words import WALL, text_event, wire_event


def history() -> tuple[Event, ...]:
    return (
        wire_event(44, 2, [("node", 5), ("count", 2)], WALL - 9),
        text_event(46, 2, "GCP Monitor: GCP_SAVE lag 60 seconds (no max lag)", WALL - 8),
        wire_event(35, 3, [("data", "1 2 3 ")], WALL - 7),
        wire_event(45, 2, [("node", 5)], WALL - 6),
        wire_event(44, 4, [("node", 3), ("count", 3)], WALL - 5),
    )


def test_the_events_of_some_types_in_the_order_they_came() -> None:
    events = history()
    event_index.forget()
    assert [e.received_at for e in event_index.events_of(events, 45, 44)] == [
        WALL - 9, WALL - 6, WALL - 5]
    assert [e.text for e in event_index.events_of(events, 46)] == [
        "GCP Monitor: GCP_SAVE lag 60 seconds (no max lag)"]
    assert event_index.events_of(events, 60) == []
    # Another history (a new tuple, as each snapshot's) is indexed again.
    fewer = events[:2]
    assert [e.type for e in event_index.events_of(fewer, 44, 45, 46)] == [44, 46]
