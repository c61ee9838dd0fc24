"""Replaying a recording in the live view, and recording from the live view with ``R``.

The recording is made of captured moments of S1's initial start
(:mod:`ndbtop.demo.capture`), so every run replays the same snapshots. The
replay's real-time clock is a number the test moves: the position changes only
when a test says so.
"""

from __future__ import annotations

import gzip
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.cli.exits import FILE
from ndbtop.demo.capture import Capture, CaptureSpec
from ndbtop.files import state_dir
from ndbtop.record.reader import read_recording
from ndbtop.record.recorder import Recorder
from ndbtop.record.replay import ReplaySource
from ndbtop.tui.app import REFUSED
from ndbtop.tui.screens.confirm import ConfirmAction
from ndbtop.tui.screens.help import HelpScreen
from ndbtop.tui.source import FrozenSource
from tests.captures import captured

MOMENTS = (4.0, 300.0, 1800.0, 2700.0)
"""Simulated seconds of S1 recorded: an early phase, redo log init early and late, started."""


async def _captures(scenario: str = "initial-start", moments: tuple[float, ...] = MOMENTS):
    # A short refresh interval: the app's timer fires every quarter of a second.
    return [await captured(CaptureSpec(scenario, at, samples=2, interval=0.25)) for at in moments]


def _record(path: Path, caps: list[Capture]) -> Path:
    recorder = Recorder(path, source="test")
    for cap in caps:
        recorder.write(cap.snapshot)
    recorder.close()
    return path


class FakeReal:
    """The replay's real-time clock: it moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _settled_body(t: Any, done: Callable[[], object]) -> str:
    """The screen between the header and the footer once it is complete.

    That is: ``done()`` holds, two refreshes went by since (a widget that grew is
    laid out again at the next refresh at the latest) and the picture stopped changing.
    """
    ticks = 0
    tick = t.app.tick

    def counted() -> None:
        nonlocal ticks
        ticks += 1
        tick()

    t.app.tick = counted
    shots: list[str] = []
    since = 0

    def still() -> bool:
        nonlocal since
        if not done():
            since = ticks
            return False
        shots.append(t.text())
        complete = "q Quit" in shots[-1].splitlines()[-1] and ticks - since >= 2
        return complete and len(set(shots[-4:])) == 1

    try:
        await t.until(still, "a still picture")
    finally:
        del t.app.tick
    return "\n".join(shots[-1].splitlines()[2:-1])


def _nodes(t: Any) -> list[tuple[str, str, str]]:
    return [
        (key, t.cell("#nodes", key, "status"), t.cell("#nodes", key, "phase"))
        for key in t.row_keys("#nodes")
    ]


class LiveRun(FrozenSource):
    """The captured moments one after the other, as the hub handed them to the live view."""

    def __init__(self, caps: list[Capture]) -> None:
        super().__init__(caps[0].snapshot, caps[0].connectstring, age=0.0)
        self.caps = caps

    def go(self, index: int) -> None:
        """Hand out moment ``index`` from now on."""
        cap = self.caps[index]
        super().__init__(cap.snapshot, cap.connectstring, age=0.0)


ORDER = (0, 1, 2, 3, 2, 0)
"""Forward through the recording, then back: tables keep the widths they grew to."""


async def test_a_replayed_initial_start_shows_the_screens_of_the_live_run(
    tmp_path: Path, tui_on
) -> None:
    caps = await _captures()
    path = _record(tmp_path / "s1.ndbrec", caps)
    live: list[tuple[str, list[tuple[str, str, str]]]] = []
    run = LiveRun(caps)
    async with tui_on(run) as t:
        for index in ORDER:
            run.go(index)  # the app's refresh timer shows it, as it shows the hub's
            wall = caps[index].snapshot.wall
            body = await _settled_body(
                t,
                lambda w=wall: t.app.current_view.snapshot.wall == w,  # type: ignore[union-attr]
            )
            live.append((body, _nodes(t)))
    node10 = [dict((k, (s, p)) for k, s, p in nodes)["10"] for _, nodes in live]
    assert node10[:4] == [
        ("STARTING", "3 init variables"),
        ("STARTING", "4 redo log init"),
        ("STARTING", "4 redo log init"),
        ("STARTED", ""),
    ]
    assert len({body for body, _ in live[:4]}) == 4

    replay = ReplaySource(read_recording(path), real=FakeReal())
    async with tui_on(replay, replay=True) as t:
        for step, index in enumerate(ORDER):
            shown = replay.recording.index_at(replay.position)
            await t.press(*["full_stop"] * (index - shown), *["comma"] * (shown - index))
            assert replay.recording.index_at(replay.position) == index
            wall = caps[index].snapshot.wall
            body = await _settled_body(
                t,
                lambda w=wall: t.app.current_view.snapshot.wall == w,  # type: ignore[union-attr]
            )
            assert _nodes(t) == live[step][1], f"snapshot {index}"
            assert body == live[step][0], f"snapshot {index}"


async def test_replay_keys_play_pause_step_and_change_speed(tmp_path: Path, tui_on) -> None:
    caps = await _captures()
    walls = [cap.snapshot.wall for cap in caps]
    real = FakeReal()
    replay = ReplaySource(read_recording(_record(tmp_path / "s1.ndbrec", caps)), real=real)
    async with tui_on(replay, replay=True) as t:
        await t.until(lambda: "REPLAY ▶ x1" in t.header(), "the REPLAY badge, playing")
        footer = await t.footer()
        assert "space Play" in footer and "Step" in footer and "Speed" in footer
        assert "r Restart" not in footer and "p Pause" not in footer

        real.now += 100
        t.app.tick()
        assert replay.position == walls[0] + 100

        await t.press("space")
        assert not replay.playing
        await t.until(lambda: "REPLAY ⏸ x1" in t.header(), "the paused badge")
        real.now += 1000
        t.app.tick()
        assert replay.position == walls[0] + 100, "paused: the position stays"
        assert t.app.current_view.snapshot.wall == walls[0]  # type: ignore[union-attr]

        await t.press("full_stop")
        assert replay.position == walls[1] and replay.current.wall == walls[1]
        await t.until(lambda: t.app.current_view.snapshot.wall == walls[1], "snapshot 1")
        await t.press("full_stop")
        assert replay.current.wall == walls[2] and not replay.playing
        await t.press("comma")
        assert replay.current.wall == walls[1]
        await t.until(lambda: t.app.current_view.snapshot.wall == walls[1], "snapshot 1 again")

        await t.press("greater_than_sign")
        assert replay.speed == 2.0
        assert ("replay speed x2", "information") in t.notes
        await t.until(lambda: "REPLAY ⏸ x2" in t.header(), "x2 in the badge")
        await t.press("space")
        real.now += 10
        t.app.tick()
        assert replay.playing and replay.position == walls[1] + 20

        await t.press("right_square_bracket")
        assert replay.position == walls[1] + 80
        await t.press("left_square_bracket", "left_square_bracket")
        assert replay.position == walls[1] - 40

        real.now += 10_000
        t.app.tick()
        await t.until(lambda: "end of recording" in t.header(), "the end in the badge")
        assert "⏹" in t.header() and replay.ended
        assert t.app.current_view.snapshot.wall == walls[-1]  # type: ignore[union-attr]
        real.now += 100
        t.app.tick()
        assert replay.current.wall == walls[-1], "it stays on the last snapshot"


async def test_replay_sends_nothing_and_opens_no_confirmation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tui_on
) -> None:
    monkeypatch.chdir(tmp_path)
    caps = await _captures(moments=(1800.0, 1860.0))
    replay = ReplaySource(read_recording(_record(tmp_path / "s1.ndbrec", caps)), real=FakeReal())
    async with tui_on(replay, replay=True) as t:
        await t.until(lambda: t.row_keys("#nodes"), "the nodes")
        t.table("#nodes").move_cursor(row=t.row_keys("#nodes").index("10"))
        await t.pilot.pause()
        assert t.app.current_view.selected_node() == 10
        for key in ("r", "x", "t", "L"):
            await t.press(key)
            assert not isinstance(t.app.screen, ConfirmAction), key
        await t.press("R")
        await t.pilot.pause()
        assert not isinstance(t.app.screen, ConfirmAction)
        assert t.notes.count((REFUSED["actions"], "warning")) == 4
        assert (REFUSED["record"], "warning") in t.notes
        assert t.app.recorder is None
        assert "READ-ONLY" not in t.header() and "REPLAY" in t.header()
    assert not (tmp_path / "audit.log").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s1.ndbrec"]


async def test_help_lists_the_replay_keys_only_in_a_replay(tmp_path: Path, tui_on) -> None:
    caps = await _captures(moments=(300.0,))
    replay = ReplaySource(read_recording(_record(tmp_path / "s1.ndbrec", caps)), real=FakeReal())
    async with tui_on(replay, replay=True) as t:
        await t.press("question_mark")
        await t.until(lambda: isinstance(t.app.screen, HelpScreen), "the help")
        await t.until_shown("space / p")
        text = t.text()
        assert "step one snapshot forward / back" in text and "jump a minute" in text
        assert "restart the selected data node" not in text and "ndbtop replay" not in text
    async with tui_on(FrozenSource(caps[0].snapshot, caps[0].connectstring)) as t:
        footer = await t.footer()
        assert "Play" not in footer and "Step" not in footer
        await t.press("space", "full_stop", "greater_than_sign", "right_square_bracket")
        assert not any("replay" in message for message, _ in t.notes)
        await t.press("question_mark")
        await t.until(lambda: isinstance(t.app.screen, HelpScreen), "the help")
        await t.until_shown("record to ndbtop-DATE-TIME.ndbrec")
        assert "space / p" not in t.text()


async def test_R_records_the_live_view_to_a_file_and_R_again_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tui_on
) -> None:
    monkeypatch.chdir(tmp_path)
    (cap,) = await _captures(moments=(1800.0,))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring)) as t:
        await t.press("R")
        recorder = t.app.recorder
        # In the private state directory, never in a shared current directory.
        assert recorder is not None and recorder.path.parent == state_dir() / "recordings"
        assert recorder.path.name.startswith("ndbtop-") and recorder.path.suffix == ".ndbrec"
        assert stat.S_IMODE(recorder.path.stat().st_mode) == 0o600
        assert not list(tmp_path.iterdir())
        await t.until(lambda: f"● REC {recorder.path.name}" in t.header(), "the REC badge")
        assert (f"recording to {recorder.path} (R stops)", "information") in t.notes
        await t.until(lambda: recorder.snapshots >= 2, "a snapshot written by a refresh")
        await t.press("R")
        assert t.app.recorder is None
        await t.until(lambda: "REC" not in t.header(), "the badge to go")
        written = recorder.snapshots
        assert (f"recorded {written} snapshots to {recorder.path}", "information") in t.notes
    recording = read_recording(recorder.path)
    assert len(recording) == written
    assert recording.snapshot(0).nodes == cap.snapshot.nodes
    assert t.app.recordings == [recorder.path]


async def test_a_disk_that_fails_a_write_stops_the_recording_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tui_on
) -> None:
    monkeypatch.chdir(tmp_path)

    def full(self: Recorder, snap: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Recorder, "write", full)
    (cap,) = await _captures(moments=(300.0,))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring)) as t:
        await t.press("R")
        (path,) = t.app.recordings
        await t.until(lambda: t.app.recorder is None, "the recording to stop")
        await t.until(lambda: "REC" not in t.header(), "the badge to go")
        assert (f"recording stopped: {path}: No space left on device", "error") in t.notes
        assert not any(note.startswith("recorded ") for note, _ in t.notes)


async def test_quitting_closes_the_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tui_on
) -> None:
    monkeypatch.chdir(tmp_path)
    (cap,) = await _captures(moments=(300.0,))
    async with tui_on(FrozenSource(cap.snapshot, cap.connectstring)) as t:
        await t.press("R")
        recorder = t.app.recorder
        assert recorder is not None
        await t.press("q")
    # A closed gzip stream ends with its trailer; a cut one fails to decompress.
    assert gzip.decompress(recorder.path.read_bytes()).count(b'"k":"snap"') >= 1
    assert len(read_recording(recorder.path)) >= 1


@pytest.mark.parametrize("content", [None, b"hello\n", gzip.compress(b"garbage\n", mtime=0)],
                         ids=["missing", "text", "gzip-garbage"])
def test_replay_of_a_missing_or_garbage_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    path = tmp_path / "x.ndbrec"
    if content is not None:
        path.write_bytes(content)
    assert main(["replay", str(path)]) == FILE
    err = capsys.readouterr().err
    assert err.startswith("ndbtop: error: ") and str(path) in err
    assert err.count("\n") == 1 and "Traceback" not in err
