"""Every view and dialog at 80x24 and 120x40, with and without colour.

The screens' text is compared with golden files (``snapshots/<case>-<size>.txt``); the
same screen without colour (``NO_COLOR``) must show the same text, so that no state is
carried by colour alone, and use no colour at all. Regenerate after a deliberate change:

    NDBTOP_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/tui/test_tui_screens_small.py
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from test_tui_snapshots import CASES, _compare, settle
from textual.app import App

from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import CaptureSpec
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.screens.rolling_prompts import AbortPrompt
from ndbtop.tui.source import FrozenSource
from tests.captures import captured

SIZES = ((80, 24), (120, 40))


DIALOGS: dict[str, tuple[CaptureSpec, Callable[[NdbtopApp, object], Awaitable[None]]]] = {}


def dialog(name: str, spec: CaptureSpec):
    def register(open_it: Callable[[NdbtopApp, object], Awaitable[None]]):
        DIALOGS[name] = (spec, open_it)
        return open_it

    return register


THREADS = CaptureSpec("threads", 120.0)


@dialog("confirm_restart", THREADS)
async def _confirm(app: NdbtopApp, pilot) -> None:
    await pilot.press("r")


@dialog("rolling_restart", THREADS)
async def _rolling(app: NdbtopApp, pilot) -> None:
    await pilot.press("W")


@dialog("rolling_gate", CaptureSpec("gcp-stall", 200.0, step=5.0))
async def _rolling_gate(app: NdbtopApp, pilot) -> None:
    await pilot.press("W")


@dialog("help", THREADS)
async def _help(app: NdbtopApp, pilot) -> None:
    await pilot.press("question_mark")


@dialog("quit_restore", THREADS)
async def _quit(app: NdbtopApp, pilot) -> None:
    app.statistics_raised_from = 7
    await pilot.press("q")


@dialog("abort_rolling", THREADS)
async def _abort(app: NdbtopApp, pilot) -> None:
    app.push_screen(AbortPrompt())


async def shoot(
    spec: CaptureSpec, act: Callable[[NdbtopApp, object], Awaitable[None]], size: tuple[int, int],
    tmp_path: Path, screen: Callable[[App[object]], str],
) -> tuple[str, str]:
    cap = await captured(spec)

    async def start() -> FrozenSource:
        return FrozenSource(cap.snapshot, cap.connectstring)

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"), simulated=spec.scenario)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, lambda: app.hub is not None and app.current_view.snapshot)
        await act(app, pilot)
        shots = [screen(app)]

        def still() -> bool:
            shots.append(screen(app))
            return len(set(shots[-4:])) == 1 and len(shots) > 4

        await settle(pilot, still)
        return shots[-1], app.export_screenshot()


def _cases() -> list[tuple[str, CaptureSpec, Callable[..., Awaitable[None]]]]:
    cases = []
    for name, case in sorted(CASES.items()):

        async def act(app: NdbtopApp, pilot, key: str = case.key) -> None:
            await pilot.press(key)

        cases.append((name, case.spec, act))
    cases += [(name, spec, act) for name, (spec, act) in sorted(DIALOGS.items())]
    return cases


CASES_ALL = _cases()
COLOURS = re.compile(r"fill: ?(#[0-9a-fA-F]{6})")
MARKERS = re.compile(r" (?:FULL|LOW|HOT|!)(?= |$)", re.MULTILINE)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(("name", "spec", "act"), CASES_ALL, ids=[c[0] for c in CASES_ALL])
async def test_every_view_and_dialog_with_and_without_colour(
    name: str, spec: CaptureSpec, act, size: tuple[int, int], tmp_path: Path, screen,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, svg = await shoot(spec, act, size, tmp_path, screen)
    lines = text.splitlines()
    assert len(lines) == size[1] and all(len(line) <= size[0] for line in lines)
    # Every tab in sight: the bar never scrolls.
    bar = next((line for line in lines[:4] if " 1 Nodes " in line), None)
    if bar is not None:
        assert all(f" {key % 10} " in bar for key in range(1, 11)), bar
    # Help and quit are always there to get out (the help itself covers the screen).
    if name != "help":
        assert "? Help  q Quit" in lines[-1], lines[-1]
    _compare(f"{name}-{size[0]}x{size[1]}", ".txt", text)

    monkeypatch.setenv("NO_COLOR", "1")
    plain, plain_svg = await shoot(spec, act, size, tmp_path, screen)
    # Without colour, the same screen but for the alarms' markers (tui/alarm.py), which
    # may widen a column or wrap a line of a panel: then the same rows in the same order
    # above the panel, and the same key bar.
    if not MARKERS.search(plain):
        assert plain == text
    else:
        unmarked = MARKERS.sub("", plain).replace("marked HOT", "in red").splitlines()
        assert unmarked[-1] == lines[-1]
        top = next((i for i, line in enumerate(lines) if line.startswith("───")), len(lines))
        assert [r.split()[:3] for r in unmarked[:top]] == [r.split()[:3] for r in lines[:top]]
    assert chromatic(svg), "the coloured screen has colours"
    assert not chromatic(plain_svg), "without colour, only greys"


def chromatic(svg: str) -> set[str]:
    """The fill colours of an SVG screenshot that are not a grey."""
    found = set()
    for colour in set(COLOURS.findall(svg)):
        rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        if max(rgb) - min(rgb) > 16:
            found.add(colour)
    return found
