"""The Events view during an ndb_mgmd restart: the arbitration re-election shows as a
passing, informational state; a lost arbitration stays a red alert.

The cluster has two management servers; ndbtop watches through node 4 while node 1,
the arbitrator, is killed and restarted, as an operator restarting ndb_mgmd during a
maintenance window would see it.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.widgets import RichLog, Static

from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.sim.cluster.arbitration import CHOOSE_SECONDS, REGISTER_SECONDS
from ndbtop.sim.runtime import Simulator
from ndbtop.tui.views.events import EventsView


def through_mgmd_4(sim: Simulator, interval: float) -> Hub:
    """A hub on the management server that stays up (no SQL node, no host)."""
    return Hub(parse_connectstring(f"{sim.host}:{sim.mgm_ports[4]}"), sim.clock, interval)


def log_strips(t) -> list[list[Segment]]:
    log = t.app.query_one(EventsView).query_one("#log", RichLog)
    return [list(strip) for strip in log.lines]


def has_line(t, fragment: str) -> bool:
    return any(fragment in "".join(s.text for s in strip) for strip in log_strips(t))


def line_text(t, fragment: str) -> str:
    """The text of the first screen line (a long event wraps) holding ``fragment``."""
    for strip in log_strips(t):
        text = "".join(s.text for s in strip)
        if fragment in text:
            return text
    raise AssertionError(f"no log line with {fragment!r}")


def style_of(t, fragment: str) -> tuple[str | None, bool, bool]:
    """(colour name, bold, italic) of the log segment holding ``fragment``."""
    for strip in log_strips(t):
        for segment in strip:
            if fragment in segment.text:
                style = segment.style
                assert style is not None
                color = style.color.name if style.color else None
                return color, bool(style.bold), bool(style.italic)
    raise AssertionError(f"no segment with {fragment!r}")


def status_line(t) -> str | None:
    widget = t.app.query_one(EventsView).query_one("#arbitration", Static)
    return str(widget.render()) if widget.display else None


async def test_an_mgmd_restart_is_a_passing_re_election_and_a_lost_arbitration_an_alarm(
    tui, two_mgmds
):
    async with tui(two_mgmds, manual=True, make_hub=through_mgmd_4) as t:
        await t.view("4")
        events = t.hub.events
        assert events is not None
        await t.until(lambda: events.listening_levels is not None, "the event listener")
        assert status_line(t) is None

        await t.sim.stop_mgmd(1)
        lost = "Lost arbitrator node 1 - process failure [state=6]"
        await t.until(lambda: has_line(t, "President restarts arbitration"), "the re-election")
        assert " INFO " in line_text(t, lost)
        assert style_of(t, lost) == (None, False, False), "a plain informational line"
        assert style_of(t, "(arbitration: re-electing") == ("cyan", False, True)
        await t.until(lambda: status_line(t) is not None, "the arbitration status")
        assert status_line(t) == (
            "arbitration: re-electing, arbitrator ndb_mgmd node 1 went away 0s ago "
            "(normal while ndb_mgmd restarts)"
        )

        # The president takes the other management server: settled, the status line goes.
        await t.advance(CHOOSE_SECONDS)
        await t.until(lambda: has_line(t, "Started arbitrator node 4"), "the new arbitrator")
        await t.until(lambda: status_line(t) is None, "arbitration settled")
        assert " INFO " in line_text(t, "Started arbitrator node 4")
        assert style_of(t, "Started arbitrator node 4") == (None, False, False)

        # node 1 comes back: nothing to choose, nothing to show.
        await t.sim.start_mgmd(1)
        await t.advance(REGISTER_SECONDS)
        assert t.sim.arbitration.arbitrator == 4
        assert status_line(t) is None

        # A real failure: a network partition, lost by data node 3.
        cluster = t.sim.cluster
        ticket = t.sim.arbitration.ticket
        cluster.emit(30, 3, 45 | 7 << 16, 4, *ticket)
        cluster.emit(30, 3, 47 | 7 << 16, 4, *ticket)
        await t.until(lambda: has_line(t, "Arbitration lost - negative"), "the lost arbitration")
        for fragment in ("Network partitioning - arbitration required",
                         "Arbitration lost - negative reply from node 4"):
            assert " ALERT " in line_text(t, fragment)
            assert style_of(t, fragment) == ("red", True, False)
        await t.until(lambda: (status_line(t) or "").startswith("arbitration failed"),
                      "the failed arbitration in the status line")
