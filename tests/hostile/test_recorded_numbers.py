"""Recordings are untrusted numbers too: the reader takes JSON as RFC 8259 has it (no
NaN, no Infinity) and every recorded number within the ranges of ``ndbtop/textnum.py``
(times between 1970 and ``MAX_TIME``). ``replay --check`` says which field is out of
range in one line; replay shows the snapshot before it, never crashes."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import math
import re
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ndbtop.actions.audit import AuditLog
from ndbtop.cli import main
from ndbtop.cli.exits import NOT_MET
from ndbtop.demo.capture import Capture, CaptureSpec
from ndbtop.model.backups import Backup
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.codec import is_number
from ndbtop.record.reader import Recording, read_recording
from ndbtop.record.recorder import Recorder
from ndbtop.record.replay import ReplaySource
from ndbtop.textnum import MAX_FLOAT, MAX_WHOLE
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.screen_text import screen_text
from tests.captures import captured, captured_now

MARK = 1_234_567_890.5
"""A time no real snapshot holds: the recorded ``ended_at`` the tests replace."""


@pytest.fixture(scope="module")
def cap() -> Capture:
    """A moment of a simulated cluster."""
    return captured_now(CaptureSpec("threads", 600.0, samples=2, interval=0.25))


def _with_backup(snap: ClusterSnapshot) -> ClusterSnapshot:
    done = Backup(backup_id=7, state="completed", master=1, started_at=MARK - 60,
                  ended_at=MARK, records=10, bytes=1 << 20, log_records=0, log_bytes=0)
    return dataclasses.replace(snap, backups=(done,))


def _recording(tmp_path: Path, cap: Capture, ended_at: str) -> Path:
    """A recording ndbtop made of two snapshots, the second with a completed backup
    whose ``ended_at`` is then written as ``ended_at`` (JSON text)."""
    path = tmp_path / "backup.ndbrec"
    recorder = Recorder(path, source="test")
    first = cap.snapshot
    recorder.write(first)
    recorder.write(_with_backup(dataclasses.replace(first, wall=first.wall + 1,
                                                    taken_at=first.taken_at + 1)))
    recorder.close()
    text = gzip.decompress(path.read_bytes())
    assert text.count(repr(MARK).encode()) == 1
    path.write_bytes(gzip.compress(text.replace(repr(MARK).encode(), ended_at.encode())))
    return path


def replay_app(recording: Recording, directory: Path) -> tuple[NdbtopApp, ReplaySource]:
    """The live view replaying ``recording`` (its clock still), and its source."""
    source = ReplaySource(recording, real=lambda: 0.0)

    async def start() -> ReplaySource:
        return source

    return NdbtopApp(start, replay=True, audit=AuditLog(directory / "audit.log")), source


@pytest.mark.parametrize("ended_at", ["1e308", "NaN", "Infinity", "-1", "1e12", "1" * 400])
def test_replay_check_refuses_a_backup_that_ended_out_of_range(
    tmp_path: Path, cap: Capture, ended_at: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recording(tmp_path, cap, ended_at)
    status = main(["replay", "--check", str(path)])
    err = capsys.readouterr().err
    assert status == NOT_MET
    assert len(err.splitlines()) == 1 and err.startswith("ndbtop: ")
    if ended_at in ("NaN", "Infinity"):
        assert f"is damaged at record 4 of the gzip member at byte 0: {ended_at} is not a " \
            "JSON number: read 1 snapshots before it" in err
    else:
        assert "snapshot 2 " in err and "cannot be decoded (Backup.ended_at holds " in err


def test_a_whole_recording_with_a_backup_checks_out(
    tmp_path: Path, cap: Capture, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recording(tmp_path, cap, repr(MARK))
    assert main(["replay", "--check", str(path)]) == 0


@pytest.mark.parametrize("ended_at", ["1e308", "NaN"])
async def test_the_backup_view_of_such_a_recording(
    tmp_path: Path, cap: Capture, ended_at: str
) -> None:
    recording = read_recording(_recording(tmp_path, cap, ended_at))
    app, source = replay_app(recording, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        for key in "61234576":
            await pilot.press(key)
            app.tick()
            await pilot.pause()
        source.step(len(recording))
        app.tick()
        await pilot.pause()
        assert "damaged" in screen_text(app) or recording.damage is not None
    assert app.crash is None


def _numbers(value: Any) -> list[float | int]:
    """Every number in a decoded snapshot."""
    if isinstance(value, (bool, str, Enum)) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [n for f in dataclasses.fields(value) for n in _numbers(getattr(value, f.name))]
    if isinstance(value, (tuple, list, frozenset)):
        return [n for v in value for n in _numbers(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    return []


NUMBER_IN_JSON = re.compile(r"(?<=[:\[,])-?[0-9][0-9.e+-]*(?=[,\]}])")
"""A number in a line of JSON."""
NUMBERS = st.one_of(
    st.floats(), st.integers(-(10**60), 10**60),
    st.sampled_from([1e308, -1e308, 1e12, -1.0, 2.0**64, MAX_WHOLE + 1]),
)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10**6), NUMBERS), min_size=1, max_size=4))
def test_a_recording_with_numbers_changed_decodes_only_bounded_numbers(
    cap: Capture, tmp_path_factory: Any, changes: list[tuple[int, float | int]]
) -> None:
    """Any recorded number replaced by a huge, negative or non-finite one: a snapshot
    read back holds only numbers within the recording's ranges (or is damage)."""
    path = tmp_path_factory.mktemp("nums") / "n.ndbrec"
    recorder = Recorder(path, source="test")
    recorder.write(_with_backup(cap.snapshot))
    recorder.close()
    text = gzip.decompress(path.read_bytes()).decode()
    spots = [m.span() for m in NUMBER_IN_JSON.finditer(text)]
    chosen = {spots[where % len(spots)]: number for where, number in changes}
    for (start, end), number in sorted(chosen.items(), reverse=True):
        shown = ("NaN" if math.isnan(number) else "Infinity" if number == math.inf
                 else "-Infinity" if number == -math.inf else repr(number))
        text = text[:start] + shown + text[end:]
    path.write_bytes(gzip.compress(text.encode()))
    try:
        source = ReplaySource(read_recording(path), real=lambda: 0.0)
    except Exception as exc:
        assert type(exc).__name__ in {"FileError", "ValueError", "NumberError", "KeyError",
                                      "TypeError"}
        return
    for number in _numbers(source.snapshot()):
        assert is_number(number) or (type(number) is int and abs(number) <= MAX_WHOLE), number
        assert not isinstance(number, float) or abs(number) <= MAX_FLOAT


async def test_a_recording_with_nan_in_a_series_replays_to_the_point_before_it(
    tmp_path: Path, caps_disk: list[Capture], capsys: pytest.CaptureFixture[str]
) -> None:
    """A remote uptime of nan once made every rate NaN, and the recorder wrote them as the
    bare NaN Python's JSON writes: such a recording replays up to that record, the Disk
    view draws, and ``replay --check`` names the record and why."""
    path = tmp_path / "nan.ndbrec"
    recorder = Recorder(path, source="test")
    for cap in caps_disk:
        recorder.write(cap.snapshot)
    recorder.close()
    lines = gzip.decompress(path.read_bytes()).split(b"\n")
    (at,) = [i for i, line in enumerate(lines) if b'"k":"delta"' in line]
    start = lines[at].index(b'"h":[["') + len(b'"h":[["')
    first = NUMBER_IN_JSON.search(lines[at].decode(), start)
    assert first is not None
    lines[at] = lines[at][: first.start()] + b"NaN" + lines[at][first.end():]
    path.write_bytes(gzip.compress(b"\n".join(lines)))
    assert main(["replay", "--check", str(path)]) == NOT_MET
    err = capsys.readouterr().err
    assert f"damaged at record {at + 1} of the gzip member at byte 0: NaN is not a JSON " \
        "number: read 1 snapshots before it" in err
    app, _ = replay_app(read_recording(path), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("3")
        app.tick()
        await pilot.pause()
        assert "Host disks" in screen_text(app)
    assert app.crash is None


@pytest.fixture(scope="module")
def caps_disk() -> list[Capture]:
    """Two moments of S1 whose host readings hold series."""

    async def take() -> list[Capture]:
        return [await captured(CaptureSpec("initial-start", at, samples=2, interval=0.25))
                for at in (300.0, 600.0)]

    return asyncio.run(take())
