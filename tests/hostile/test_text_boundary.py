"""Text from outside reaches the live view only through its safe layer (tui/safe.py).

Two checks close the class rather than its cases:

- structurally, no module of the live view makes a Rich Text itself, parses markup, or
  shows text in a widget other than the safe ones: tui/safe.Text escapes controls
  before Rich (Rich's own Text deletes BEL, BS, VT, FF and CR), and tables are made
  safe before they are measured;
- by behaviour, every view is drawn from snapshots whose every string is hostile
  (markup, and each control character Rich would delete), live and from a recording,
  at 120 and at 80 columns: nothing crashes, markup shows as written and every control
  shows escaped, never deleted.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table

import ndbtop.tui
from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import Capture, CaptureSpec
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.reader import read_recording
from ndbtop.record.recorder import Recorder
from ndbtop.tui.app import VIEWS, NdbtopApp
from ndbtop.tui.safe import Text, safe
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.source import FrozenSource
from ndbtop.tui.views.config import fits
from tests.captures import captured
from tests.hostile.conftest import assert_inert
from tests.hostile.test_properties import cycling, hostile
from tests.hostile.test_recorded_numbers import replay_app

TUI = Path(ndbtop.tui.__file__).parent
DELETED_BY_RICH = ("\x07", "\x08", "\x0b", "\x0c", "\r")
"""BEL, BS, VT, FF, CR: what Rich's Text strips when it is made."""
CONTROLS = tuple(f"<{c}>" for c in DELETED_BY_RICH)
FINDINGS = ("/data/ndb[/b]", "[/bold][red]", "/srv/[/x]/ndb")
"""The attack's DataDir and HostName, and a real path holding ``[/x]``."""
KEYS = "".join(str(i + 1) for i in range(len(VIEWS)))


def _imports(path: Path) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
    return found


def test_no_module_of_the_live_view_makes_text_or_markup_but_the_safe_layer() -> None:
    offenders = []
    for path in sorted(TUI.rglob("*.py")):
        if path.name == "safe.py":
            continue
        source = path.read_text(encoding="utf-8")
        for module, name in _imports(path):
            if module == "rich.text" or (module == "rich" and name == "text"):
                offenders.append(f"{path.name} imports Rich's Text")
            if module == "textual.widgets" and name in ("Static", "Label", "RichLog") and \
                    f"{name}(" in source:
                offenders.append(f"{path.name} makes a {name} (Plain, PlainLog are safe)")
        for needle in ("from_markup", "markup=True", "Text.from_ansi", "render_str("):
            if needle in source:
                offenders.append(f"{path.name} holds {needle}")
    assert offenders == []


def test_the_safe_text_escapes_what_rich_would_delete() -> None:
    for c in DELETED_BY_RICH:
        escaped = f"\\x{ord(c):02x}"
        assert Text(f"a{c}b").plain == f"a{escaped}b"
        assert Text("x", style="bold").append(f"a{c}b", "red").plain == f"xa{escaped}b"
        assert Text.assemble(("k ", "dim"), f"a{c}b").plain == f"k a{escaped}b"
    assert Text("line\n\tnext").plain == "line\n\tnext"


def test_a_table_of_markup_is_measured_as_text() -> None:
    table = Table()
    table.add_column("DataDir")
    for text in FINDINGS:
        table.add_row(text)
    grid = Table.grid()
    grid.add_row(table)
    assert fits(grid, 200) and not fits(grid, 5)
    console = Console(file=io.StringIO(), width=80, color_system=None)
    with console.capture() as drawn:
        console.print(safe(grid))
    for text in FINDINGS:
        assert text in drawn.get()


@pytest.fixture(scope="module")
def caps() -> list[Capture]:
    """Moments of simulated clusters with a configuration, threads and hosts."""

    async def take() -> list[Capture]:
        return [await captured(CaptureSpec("threads", 600.0, samples=2, interval=0.25)),
                await captured(CaptureSpec("initial-start", 1800.0, samples=2, interval=0.25))]

    return asyncio.run(take())


def _with_config_strings(snap: ClusterSnapshot, data_dir: str, host: str) -> ClusterSnapshot:
    config = snap.config
    assert config is not None and config.data_nodes
    nodes = tuple(dataclasses.replace(d, data_dir=data_dir, host=host)
                  for d in config.data_nodes)
    return dataclasses.replace(snap, config=dataclasses.replace(config, data_nodes=nodes))


async def _views(app: NdbtopApp, pilot: Any, check: Callable[[str], None]) -> None:
    for key in KEYS:
        await pilot.press(key)
        app.tick()
        await pilot.pause()
        check(screen_text(app))


def _no_control_deleted(text: str) -> None:
    assert_inert(text)
    assert "<>" not in text, [line for line in text.splitlines() if "<>" in line]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_key_7_with_markup_in_datadir_and_hostname(
    caps: list[Capture], tmp_path: Path, size: tuple[int, int]
) -> None:
    snap = _with_config_strings(caps[0].snapshot, FINDINGS[0], FINDINGS[1])
    source = FrozenSource(snap, caps[0].connectstring)

    async def start() -> FrozenSource:
        return source

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"), read_only=True)
    async with app.run_test(size=size) as pilot:
        await pilot.press("7")
        app.tick()
        await pilot.pause()
        shown = screen_text(app)
        assert FINDINGS[0] in shown and FINDINGS[1] in shown
    assert app.crash is None


@pytest.mark.parametrize("payload", [CONTROLS, FINDINGS], ids=["controls", "markup"])
async def test_every_view_of_hostile_strings_live(
    caps: list[Capture], tmp_path: Path, payload: tuple[str, ...]
) -> None:
    snaps = [hostile(cap.snapshot, cycling(list(payload))) for cap in caps]
    source = FrozenSource(snaps[0], caps[0].connectstring)

    async def start() -> FrozenSource:
        return source

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"), read_only=True)
    for size in ((120, 40), (80, 24)):
        async with app.run_test(size=size) as pilot:
            for snap in snaps:
                source._snapshot = snap
                await _views(app, pilot, _no_control_deleted)
        assert app.crash is None
        app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"), read_only=True)


async def test_replay_of_a_recording_with_bracketed_hosts(
    caps: list[Capture], tmp_path: Path
) -> None:
    path = tmp_path / "hostile.ndbrec"
    recorder = Recorder(path, source="test")
    for cap in caps:
        recorder.write(hostile(cap.snapshot, cycling([*FINDINGS, *CONTROLS])))
    recorder.close()
    recording = read_recording(path)
    app, source = replay_app(recording, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(len(recording)):
            await _views(app, pilot, _no_control_deleted)
            source.step(1)
        await pilot.press("7")
        app.tick()
        await pilot.pause()
        assert any(text in screen_text(app) for text in FINDINGS)
    assert app.crash is None
    assert source.damaged is None


def test_text_from_outside_is_cut_to_what_a_screen_can_show() -> None:
    """A 10 MB host name or path never makes a column or a line that wide (issue: work
    that grows with its input): a table cell holds at most MAX_CELL_CHARS, a line of a
    panel at most MAX_LINE_CHARS, each cut marked with an ellipsis."""
    from ndbtop.elide import MAX_CELL_CHARS, MAX_LINE_CHARS
    from ndbtop.tui.safe import Text
    from ndbtop.tui.widgets.keyed_table import cell_width, shown_cell

    huge = "h" * 10_000_000
    cell = shown_cell(huge)
    assert cell_width(cell) == MAX_CELL_CHARS and str(cell).endswith("…")
    styled = shown_cell(Text(huge[:5000], style="bold"))
    assert cell_width(styled) == MAX_CELL_CHARS and styled.plain.endswith("…")
    panel = Text("DataDir ")
    panel.append(huge + "\nnext line")
    lines = panel.plain.split("\n")
    # Each piece from outside is cut as it is added.
    assert len(lines[0]) == len("DataDir ") + MAX_LINE_CHARS and lines[0].endswith("…")
    assert lines[1] == "next line"
