"""The Replication view (key e): its tab shows once a replica is named, the channels with
their threads, lag, trend and last error; replication is read at every refresh while the
view shows, every 10 s otherwise."""

from __future__ import annotations

from ndbtop.collect.replication import BACKGROUND_EVERY
from ndbtop.report.replication import NOT_NAMED


async def test_without_a_replica_the_tab_is_hidden_and_e_says_why(tui) -> None:
    async with tui("threads", speed=1.0) as t:
        tabs = t.text().splitlines()[2]
        assert "0 Locks" in tabs and "Replication" not in tabs
        await t.press("e")
        await t.until(lambda: any(NOT_NAMED in n for n, _ in t.notes), "the notification")
        assert t.app.live.tabs.active == "nodes"


async def test_a_stopped_channel_shows_its_error_and_is_read_every_refresh(tui) -> None:
    async with tui("lost-events", manual=True) as t:
        await t.until(lambda: "e Replication" in t.text().splitlines()[2], "the tab")
        replication = t.hub.replication
        assert replication is not None and replication.every == BACKGROUND_EVERY
        for _ in range(4):
            await t.advance(12.0)
        await t.press("e")
        await t.until(lambda: replication.every == t.hub.interval, "read every refresh")
        await t.advance(1.0)
        await t.until_shown("last error: SQL 1590: The incident LOST_EVENTS occured on the "
                            "source. Message: cluster disconnect")
        line = next(x for x in t.text().splitlines() if " -> " in x and "Yes" in x)
        # The receiver runs, the applier stopped; the replica says NULL for its own lag.
        assert "Yes  No" in line and "NULL" in line
        await t.press("1")
        await t.until(lambda: replication.every == BACKGROUND_EVERY, "back to every 10 s")


def test_the_channels_fit_80_columns_with_the_pair_above_its_figures() -> None:
    from ndbtop.model.replication import Channel, Lag, ReplicaThreads, ReplicationState
    from ndbtop.model.snapshot import ClusterSnapshot
    from ndbtop.tui.views.replication import WIDE, channels_text

    threads = ReplicaThreads("", "10.0.1.5", 3306, 11, "Yes", "No", None)
    channel = Channel("10.0.22.105:3306", "", threads, "10.0.11.105:3306", 1, 2,
                      Lag(600, 60.5, "derived"), read_at=0.0)
    state = ReplicationState((), (channel,), 60.0, 0.0)
    snap = ClusterSnapshot(0.0, 0.0, 1.0, (), replication=state)
    wide = channels_text(snap, state, [channel], WIDE).plain.splitlines()
    assert wide[2].startswith("10.0.11.105:3306 -> 10.0.22.105:3306 ") and "Yes  No" in wide[2]
    assert all(len(line) <= WIDE for line in wide[:3])
    narrow = channels_text(snap, state, [channel], 78).plain.splitlines()
    assert narrow[1] == "source -> replica"
    assert narrow[3] == "10.0.11.105:3306 -> 10.0.22.105:3306"
    assert narrow[4].split() == ["Yes", "No", "600", "1m00s!", "NULL", "-"]
    assert narrow[4].index("Yes") == narrow[2].index("IO")
    assert all(len(line) <= 78 for line in narrow[:5])


def test_no_channel_is_not_said_of_a_replica_that_does_not_answer() -> None:
    from ndbtop.model.replication import Endpoint, ReplicationState
    from ndbtop.model.snapshot import ClusterSnapshot
    from ndbtop.tui.views.replication import channels_text

    state = ReplicationState((Endpoint("10.0.1.5:3306", "prod", read_at=0.0),
                              Endpoint("10.0.2.5:3306", "dr", error="refused")), (), 60.0, 0.0)
    snap = ClusterSnapshot(0.0, 0.0, 1.0, (), replication=state)
    assert channels_text(snap, state, []).plain.endswith(
        "(SHOW REPLICA STATUS is empty on each that answers; not known of 10.0.2.5:3306)")
