"""A production context's confirmations name it, in the live view as on the command line."""

from __future__ import annotations

from ndbtop.actions.audit import AuditLog
from tests.tui.test_tui_actions import closed, confirm, confirm_box, go, select, shown


async def test_a_restart_on_a_production_context_wants_the_phrase_with_its_name(tui):
    async with tui("threads") as t:
        t.app.audit = AuditLog(t.audit.path, "prod", production=True)
        await select(t, 2)
        await confirm(t, "r")
        box = confirm_box(t)
        assert shown(t, "#title") == "Restart node 2 on prod?"
        # From the start, not only for a dangerous option: the field has the focus.
        assert box.display and t.app.focused is box
        assert box.placeholder == "type restart node 2 on prod to confirm"
        await t.press(*"2")
        await t.until(lambda: box.value == "2", "typing")
        assert go(t).disabled, "the node id alone is not the phrase"
        await t.press("backspace", *"restart node 2 on prod")
        await t.until(lambda: not go(t).disabled, "the phrase to enable the button")
        # An option changes the phrase: it is typed again.
        await t.tick("#flag-initial")
        await t.until(lambda: go(t).disabled, "-i asks again")
        assert box.placeholder == "type restart node 2 -i on prod to confirm"
        await t.tick("#flag-initial")
        await t.until(lambda: not go(t).disabled, "-i unticked")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: len(t.app.audit.records()) >= 2, "the audit log")
        sent = t.app.audit.records()[0]
        assert (sent["event"], sent["context"], sent["confirmed_with"]) == (
            "sent", "prod", "restart node 2 on prod")


async def test_a_context_that_is_not_production_keeps_the_plain_yes(tui):
    async with tui("threads") as t:
        t.app.audit = AuditLog(t.audit.path, "staging")
        await select(t, 2)
        await confirm(t, "r")
        assert shown(t, "#title") == "Restart node 2 on staging?"
        assert not confirm_box(t).display and not go(t).disabled
        await t.press("escape")
        await closed(t)
