"""The live view shows hostile server text as plain, escaped text; a crash is one line."""

from __future__ import annotations

import asyncio
import io
import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ndbtop.actions.audit import AuditLog
from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.launch import finished
from ndbtop.tui.safe import safe, safe_text
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.widgets.keyed_table import shown_cell
from tests.hostile.conftest import MARKUP, OSC52, TITLE, assert_inert, mgm_script, node_fields

Scripted = Callable[..., Awaitable[Any]]
SIZE = (140, 40)


async def until(predicate: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    """Let the app run until ``predicate()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def hostile_nodes() -> dict[int, dict[str, object]]:
    """Data nodes and an API node whose text fields attack the terminal and the markup."""
    return {
        2: node_fields(2, address=f"10.0.0.2{OSC52}"),
        3: node_fields(3, address="[/bold]", status=f"STARTING{TITLE}", startphase=4),
        4: node_fields(4, type="API", status="CONNECTED", address=MARKUP[1], node_group=-256),
        5: node_fields(5, type="API", status="CONNECTED", address=MARKUP[2], node_group=-256),
    }


async def test_every_view_shows_hostile_server_text_inert(
    scripted: Scripted, tmp_path: Path
) -> None:
    server = await scripted(mgm_script(hostile_nodes(), version=f"mysql-8.4.3{TITLE} ndb"))
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 0.25, events=False)

    async def start() -> Hub:
        return hub

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"))
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: "10.0.0.2" in screen_text(app), "the nodes")
        text = screen_text(app)
        # A long address is cut in its cell (node 4's) and whole in the detail panel (node
        # 2, the data node selected).
        assert "Node 2: address 10.0.0.2\\x1b]52;c;cm0gLXJmIH4K\\x07" in text
        assert "[/bold]" in text and "[link=http://example.in…" in text
        for key in "23451":
            await pilot.press(key)
            await pilot.pause()
            assert_inert(screen_text(app))
        app.notify(f"from the server: {TITLE}{MARKUP[0]}")
        await until(lambda: len(app._notifications) > 0, "the notification")
        shown = list(app._notifications)[-1]
        assert shown.message == "from the server: \\x1b]0;pwned\\x07[/bold]"
        assert not shown.markup
    assert app.crash is None


def test_table_cells_are_never_markup() -> None:
    assert shown_cell("[/bold]DBTC") == Text("[/bold]DBTC")
    assert shown_cell(f"a{TITLE}") == "a\\x1b]0;pwned\\x07"
    styled = Text.assemble(("ok ", "green"), (f"x{OSC52}", "red"))
    shown = shown_cell(styled)
    assert isinstance(shown, Text)
    # Rich drops the BEL when the Text is made; the ESC would pass.
    assert shown.plain == "ok x\\x1b]52;c;cm0gLXJmIH4K"
    styled_at = {i: s.style for s in shown.spans for i in range(s.start, s.end)}
    assert styled_at == {i: "green" if i < 3 else "red" for i in range(len(shown.plain))}


def test_panels_walk_tables_and_keep_line_feeds() -> None:
    table = Table()
    table.add_column(f"h{TITLE}")
    table.add_row("[/bold]")
    table.add_row(Text(f"x{OSC52}"))
    console = Console(file=io.StringIO(), width=60, color_system=None)
    with console.capture() as capture:
        console.print(safe(table))
    drawn = capture.get()
    assert_inert(drawn)
    assert "[/bold]" in drawn and "x\\x1b]52;c;cm0gLXJmIH4K" in drawn and "h\\x1b]0;pwned" in drawn
    assert safe_text(Text("a\nb\x1b")).plain == "a\nb\\x1b"


def test_a_crash_of_the_live_view_is_one_line_and_a_private_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def start() -> Hub:
        raise RuntimeError(f"server said {TITLE}")

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"))
    status = app.run(headless=True, size=SIZE)
    assert finished(app, status) == 70
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert err.startswith("ndbtop: internal error in the live view: RuntimeError; crash report: ")
    report = Path(err.split("crash report: ")[1].strip())
    assert report.parent.parent == Path(os.environ["XDG_STATE_HOME"]) / "ndbtop"
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    assert stat.S_IMODE(report.parent.stat().st_mode) == 0o700
    content = report.read_text()
    assert "RuntimeError: server said \\x1b]0;pwned\\x07" in content
    assert_inert(content)
