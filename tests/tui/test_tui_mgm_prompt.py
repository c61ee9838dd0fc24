"""``:`` in the live view: an ndb_mgm command, read as ``ndbtop mgm`` reads it, handed to the
same confirmation, guard and audit as the keys."""

from __future__ import annotations

from textual.widgets import Input, Static
from tui.test_tui_actions import closed, confirm_box, go, plain, shown

from ndbtop.tui.screens.confirm import ConfirmAction
from ndbtop.tui.screens.mgm_prompt import MgmPrompt


async def command(t, line: str) -> None:
    await t.press("colon")
    await t.until(lambda: isinstance(t.app.screen, MgmPrompt), "the ndb_mgm prompt")
    t.app.screen.query_one("#command", Input).value = line
    await t.press("enter")


def error(t) -> str:
    return plain(t.app.screen.query_one("#error", Static).content)


async def test_a_command_line_is_confirmed_guarded_and_audited(tui):
    async with tui("threads") as t:
        await command(t, "2 DUMP 1000")
        await t.until(lambda: "ndbtop does not send DUMP" in error(t), "the refusal of DUMP")
        t.app.screen.query_one("#command", Input).value = "SHOW"
        await t.press("enter")
        await t.until(lambda: "SHOW changes nothing" in error(t), "SHOW answered by the views")
        t.app.screen.query_one("#command", Input).value = "enter single user mode 4"
        await t.press("enter")
        await t.until(lambda: isinstance(t.app.screen, ConfirmAction), "the confirmation")
        assert "ndb_mgm> ENTER SINGLE USER MODE 4" in shown(t, "#command")
        assert "enter single user⏎nodeId: 4⏎⏎" in shown(t, "#command")
        assert "every API node but 4 loses access" in shown(t, "#warnings")
        assert go(t).disabled
        confirm_box(t).value = "4"
        await t.until(lambda: not go(t).disabled, "the typed node id")
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: any(r["event"] == "reply" for r in t.audit.records()),
                      "the server's answer")
        sent = [r for r in t.audit.records() if r["event"] == "sent"]
        assert [r["command"] for r in sent] == ["ENTER SINGLE USER MODE 4"]
        assert sent[0]["confirmed_with"] == "4"


async def test_read_only_has_no_command_prompt(tui):
    async with tui("threads", read_only=True) as t:
        await t.press("colon")
        await t.pilot.pause()
        assert not isinstance(t.app.screen, MgmPrompt)
        assert t.audit.records() == []
