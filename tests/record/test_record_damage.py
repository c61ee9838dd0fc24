"""Rotated and damaged recordings: every segment plays on its own and the series plays in
order; a damaged one plays up to the damage, says where and how much it read, and
``replay --check`` exits 1."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ndbtop.cli import main
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.record.reader import read_recording
from ndbtop.record.recorder import KEY_EVERY, Recorder
from ndbtop.record.replay import ReplaySource

BASE = ClusterSnapshot(1.0, 1000.0, 1.0, (SourceStatus("mgm", SourceState.CONNECTED),))


def snap(i: int) -> ClusterSnapshot:
    nodes = tuple(NodeStatus(n, "API", "NO_CONTACT", connect_count=i) for n in range(1, 60))
    return dataclasses.replace(BASE, wall=1000.0 + i, taken_at=1.0 + i, nodes=nodes)


def record(path: Path, count: int, **kwargs: int) -> None:
    recorder = Recorder(path, **kwargs)
    for i in range(count):
        recorder.write(snap(i))
    recorder.close()


def test_a_rotated_recording_plays_every_segment_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.ndbrec"
    record(path, 40, max_bytes=1500, keep=50)
    files = sorted(tmp_path.iterdir())
    assert len(files) > 3
    for f in files:
        assert len(read_recording(f)) >= 1, f
    whole = read_recording(path)
    assert [whole.wall(i) for i in range(len(whole))] == [1000.0 + i for i in range(40)]
    assert main(["replay", "--check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: 40 snapshots from ") and f"in {len(files)} files" in out


def damaged_copy(tmp_path: Path, count: int, where: float) -> tuple[Path, int]:
    """A recording with bytes overwritten ``where`` (a fraction) into it; the offset."""
    path = tmp_path / "d.ndbrec"
    record(path, count)
    data = bytearray(path.read_bytes())
    at = int(len(data) * where)
    data[at : at + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    return path, at


def test_a_damaged_recording_plays_up_to_the_damage_and_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = 3 * KEY_EVERY
    path, at = damaged_copy(tmp_path, count, 0.6)
    recording = read_recording(path)
    assert 0 < len(recording) < count
    for i in range(len(recording)):
        assert {n.connect_count for n in recording.snapshot(i).nodes} == {i}
    assert recording.damage is not None
    report = recording.damage_report()
    # Overwritten deflate data either fails to inflate or inflates to records that do not
    # parse: either way the place named is at or before the bytes overwritten.
    assert report is not None and report.startswith(f"{path} is damaged at ")
    where = int(report.split("at byte ")[1].split(":")[0].split()[0])
    assert where <= at + 64
    assert f": read {len(recording)} snapshots before it, up to " in report

    assert main(["replay", "--check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"{path}: {len(recording)} snapshots from ")
    assert err == f"ndbtop: {report}\n"

    replay = ReplaySource(recording, real=lambda: 0.0)
    replay.seek(10_000)
    assert replay.ended and replay.describe().endswith(" damaged after this")


def test_a_damaged_record_ends_the_recording_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    path = tmp_path / "j.ndbrec"
    record(path, 5)
    lines = gzip.decompress(path.read_bytes()).split(b"\n")
    lines[3] = b'{"k":"delta","w":'
    path.write_bytes(gzip.compress(b"\n".join(lines)))
    recording = read_recording(path)
    assert len(recording) == 2
    assert recording.damage == f"{path} is damaged at record 4 of the gzip member at byte 0"
    assert main(["replay", "--check", str(path)]) == 1
    assert "read 2 snapshots before it" in capsys.readouterr().err


def test_a_whole_recording_checks_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "w.ndbrec"
    record(path, 5)
    assert main(["replay", "--check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "5 snapshots" in out and "in 1 file," in out


def test_bytes_after_the_last_member_are_damage_at_their_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.ndbrec"
    record(path, 3)
    size = path.stat().st_size
    with path.open("ab") as f:
        f.write(b"not gzip at all" * 10)
    recording = read_recording(path)
    assert len(recording) == 3
    assert recording.damage is not None
    assert recording.damage.startswith(f"{path} is damaged at byte {size} (")
    assert main(["replay", "--check", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"ndbtop: {path} is damaged at byte {size} (")
