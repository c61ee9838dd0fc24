"""The live view follows the management server's rules: single-user mode shown and every
restart refused up front, and -i -f on the last node of a group confirmed by a phrase."""

from __future__ import annotations

from test_tui_actions import closed, confirm, confirm_box, go, select, shown
from textual.widgets import Button, Checkbox

from ndbtop.sim.scenarios import SINGLE_USER_API, SINGLE_USER_AT

SERVER_5063 = "5063-Operation not allowed while nodes are starting or stopping."


async def test_single_user_mode_is_shown_and_every_restart_refused(tui):
    async with tui("single-user", manual=True, interval=0.1) as t:
        await t.advance(SINGLE_USER_AT + 5)
        holder = f"SINGLE-USER MODE (API node {SINGLE_USER_API})"
        await t.until(lambda: holder in t.header(), "the single-user badge in the header")
        await t.until(lambda: f"{holder}: restarts refused" in t.text(), "the summary line")
        assert t.node_status(2) == "SINGLE USER MODE"
        await select(t, 2)
        await confirm(t, "r")
        await t.tick("#flag-force")
        await t.until(lambda: "2 RESTART -f" in shown(t, "#command"), "-f ticked")
        warnings = shown(t, "#warnings")
        assert f"✖ {SERVER_5063} — the cluster is in single-user mode (API node 5 holds it)" in (
            warnings
        )
        assert go(t).disabled
        await t.press("escape")
        await closed(t)
        await t.advance(130)
        await t.until(lambda: holder not in t.header(), "the badge gone after EXIT")
        assert not t.audit.path.exists()


async def test_initial_forced_restart_of_the_last_node_wants_the_consequence_typed(tui):
    async with tui("threads") as t:
        t.sim.cluster.stop_nodes((3,))
        await t.until(lambda: t.node_status(3) == "NO_CONTACT", "node 3 stopped on screen")
        await select(t, 2)
        await confirm(t, "r")
        for flag in ("initial", "force"):
            checkbox = t.app.screen.query_one(f"#flag-{flag}", Checkbox)
            await t.pilot.click(f"#flag-{flag}")
            await t.until(lambda checkbox=checkbox: checkbox.value, f"{flag} ticked")
        await t.until(lambda: "2 RESTART -i -f" in shown(t, "#command"), "the command")
        warnings = shown(t, "#warnings")
        assert (
            "THE SERVER WILL DO THIS: the whole cluster restarts initial: every data node (2) "
            "starts from an empty file system and all data in the cluster is deleted"
        ) in warnings
        box = confirm_box(t)
        assert box.display and box.placeholder == "type delete all data to confirm"
        box.value = "2"
        await t.until(lambda: box.value == "2", "typing")
        assert go(t).disabled, "the node id is not enough"
        box.value = "delete all data"
        await t.until(lambda: not go(t).disabled, "the phrase to enable the button")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: len(t.audit.records()) >= 2, "the audit records")
        sent, reply = t.audit.records()[:2]
        assert reply["event"] == "reply"
        assert sent["event"] == "sent" and sent["command"] == "2 RESTART -i -f"
        assert sent["confirmed_with"] == "delete all data"
        assert "all data in the cluster is deleted" in sent["consequence"]
        assert any("with -f the management server does not restart it alone" in w
                   for w in sent["told"])


async def test_rolling_restart_preflight_refuses_in_single_user_mode(tui):
    from test_tui_rolling import open_rolling

    async with tui("single-user", manual=True, interval=0.1) as t:
        await t.advance(SINGLE_USER_AT + 5)
        await t.until(lambda: "SINGLE-USER MODE" in t.header(), "single-user mode")
        screen = await open_rolling(t)
        await t.until_shown(f"✖ pre-flight: refused: {SERVER_5063} — the cluster is in")
        assert screen.query_one("#start", Button).disabled
        await t.tick("#force-degraded")
        await t.until(lambda: screen.force_degraded, "force degraded ticked")
        await t.pilot.pause()
        assert screen.query_one("#start", Button).disabled, "the server's rule holds"
        await t.press("S")
        await t.pilot.pause()
        assert screen.engine is None and not t.audit.path.exists()


async def test_rolling_restart_preflight_refuses_a_degraded_cluster(tui):
    from test_tui_rolling import open_rolling

    async with tui("threads") as t:
        t.sim.cluster.stop_nodes((3,))
        await t.until(lambda: t.node_status(3) == "NO_CONTACT", "node 3 stopped on screen")
        screen = await open_rolling(t)
        await t.until_shown("✖ pre-flight: refused: data node 3 is NO_CONTACT")
        assert screen.query_one("#start", Button).disabled
        await t.tick("#force-degraded")
        await t.until_shown("pre-flight: degraded, going on (--force-degraded)")
        # Node 2 is the last started node of its group and node 3 is down: nothing to do.
        assert screen.plan.batches == ()
        assert "(node 2 left out: the last started node of node group 0" in t.text()
        assert screen.query_one("#start", Button).disabled


async def test_restart_while_a_node_starts_is_refused_up_front(tui):
    async with tui("threads", manual=True, interval=0.1) as t:
        t.sim.cluster.restart_nodes((3,))
        for _ in range(60):
            if t.cluster_state(3) == "STARTING":
                break
            await t.advance(1.0)
        await t.until(lambda: t.node_status(3) == "STARTING", "node 3 starting on screen")
        await select(t, 2)
        await confirm(t, "r")
        assert (
            f"✖ {SERVER_5063} — data node 3 is STARTING: the management server refuses a "
            "restart while any data node starts, this one included, unless -a or -f"
        ) in shown(t, "#warnings")
        assert go(t).disabled
        await t.tick("#flag-abort")
        await t.until(lambda: "2 RESTART -a" in shown(t, "#command"), "-a ticked")
        assert "✖" not in shown(t, "#warnings"), "-a skips the server's check"
        await t.press("escape")
        await closed(t)
        assert not t.audit.path.exists()
