"""Backups from the live view: B asks for START BACKUP's options, the confirmation checks
them against the cluster, the Backup view follows the backup, A aborts it; all audited."""

from __future__ import annotations

from textual.widgets import Input, Static
from tui.test_tui_actions import closed, confirm_box, go, modal, plain, shown

from ndbtop.model.backups import ABORTED, find_backup
from ndbtop.tui.screens.backup_prompt import BackupPrompt


async def prompt(t, line: str) -> None:
    await t.press("B")
    await t.until(lambda: isinstance(t.app.screen, BackupPrompt), "the START BACKUP prompt")
    box = t.app.screen.query_one("#command", Input)
    box.value = line
    await t.press("enter")


async def test_start_backup_checked_sent_followed_and_aborted(tui):
    async with tui("backup", manual=True, interval=0.1) as t:
        events = t.app.hub.events
        await t.until(lambda: events.listening_levels is not None, "the event listener")
        await t.view("6")
        await t.until_shown("No backup seen since ndbtop started.")
        await prompt(t, "START BACKUP 5 WAIT BOGUS")
        await t.until(
            lambda: "Invalid command: START BACKUP 5 WAIT BOGUS"
            in plain(t.app.screen.query_one("#error", Static).content),
            "ndb_mgm's refusal of the line",
        )
        t.app.screen.query_one("#command", Input).value = "start backup 5 nowait"
        await t.press("enter")
        await t.until(lambda: not isinstance(t.app.screen, BackupPrompt), "the prompt to close")
        assert "ndb_mgm> START BACKUP 5 NOWAIT" in shown(t, "#command")
        assert "start backup⏎completed: 0⏎backupid: 5⏎backuppoint: 0⏎⏎" in shown(t, "#command")
        assert not go(t).disabled
        await t.pilot.click("#go")
        await closed(t)
        await t.until(lambda: any("START BACKUP 5 NOWAIT: Ok" in m for m, _ in t.notes),
                      "the server's answer")
        for _ in range(40):
            await t.advance(1.0)
            await t.pilot.pause()
            if "Backup 5 running since" in t.text():
                break
        await t.until_shown("Backup 5 running since")
        await t.until_shown("requested by node 1, master node 2")
        # Its estimate, or why there is none yet (one report, or none).
        await t.until_shown("data done: ")

        # A second start is refused by ndbtop before anything is sent.
        await prompt(t, "START BACKUP")
        await t.until(lambda: modal(t) is not None, "the confirmation")
        assert "backup 5 is running" in shown(t, "#warnings")
        assert go(t).disabled
        await t.press("escape")
        await closed(t)

        await t.press("A")
        await t.until(lambda: "ABORT BACKUP 5" in shown(t, "#command"), "the abort confirmation")
        assert go(t).disabled
        await t.pilot.click("#confirm")
        await t.press("5")
        await t.until(lambda: not go(t).disabled, "the id typed")
        assert confirm_box(t).value == "5"
        go(t).focus()
        await t.press("enter")
        await closed(t)
        await t.until(lambda: any("ABORT BACKUP 5: Ok" in m for m, _ in t.notes),
                      "the abort ordered")
        def aborted() -> bool:
            snap = t.app.current_view.snapshot
            b = find_backup(snap.backups, 5) if snap is not None else None
            return b is not None and b.state == ABORTED and b.error == 1321

        for _ in range(40):
            await t.advance(0.5)
            await t.pilot.pause()
            if aborted():
                break
        await t.until(aborted, "backup 5 aborted")
        await t.until_shown("1321: Backup aborted by user")
        commands = [(r["event"], r["command"]) for r in t.audit.records()]
        assert commands == [
            ("sent", "START BACKUP 5 NOWAIT"),
            ("reply", "START BACKUP 5 NOWAIT"),
            ("sent", "ABORT BACKUP 5"),
            ("reply", "ABORT BACKUP 5"),
        ]


async def test_read_only_has_no_backup_actions(tui):
    async with tui("backup", read_only=True) as t:
        await t.press("B")
        await t.pilot.pause()
        assert not isinstance(t.app.screen, BackupPrompt)
        assert t.audit.records() == []
