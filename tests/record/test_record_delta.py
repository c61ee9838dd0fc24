"""Recording what changed: patches between snapshots, key frames, seeking, and the writer
that keeps the disk off the event loop."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.ndbinfo import NdbinfoSample, ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.record import recorder as recorder_module
from ndbtop.record.background import BackgroundRecorder
from ndbtop.record.codec import decode, encode
from ndbtop.record.delta import SAME, apply, diff
from ndbtop.record.reader import read_recording
from ndbtop.record.recorder import Recorder


def thread(thr_no: int, pct: float) -> ThreadCpu:
    return ThreadCpu(1, thr_no, "ldm", ("DBLQH", "DBACC"), pct, 1.0, pct, 0.0, 1.0, 0.0, 4000)


def snapshot(wall: float, threads: tuple[ThreadCpu, ...], nodes: tuple[NodeStatus, ...] = ()
             ) -> ClusterSnapshot:
    return ClusterSnapshot(
        taken_at=wall, wall=wall, interval=1.0,
        sources=(SourceStatus("mgm", SourceState.CONNECTED),), nodes=nodes,
        ndbinfo=NdbinfoSample(taken_at=wall, ndb_version=None, threads=threads),
    )


def round_trip(before: Any, after: Any) -> Any:
    patch = diff(before, after)
    if patch is SAME:
        return json.loads(json.dumps(encode(before)))
    return apply(json.loads(json.dumps(encode(before))), json.loads(json.dumps(patch)))


def test_a_patch_names_only_what_changed() -> None:
    threads = tuple(thread(i, 5.0) for i in range(10))
    a = snapshot(1.0, threads)
    moved = (*threads[:3], thread(3, 9.0), *threads[4:])
    b = dataclasses.replace(a, wall=2.0, ndbinfo=dataclasses.replace(a.ndbinfo, threads=moved))
    patch = diff(a, b)
    assert patch == {"@patch": {
        "wall": 2.0,
        "ndbinfo": {"@patch": {"threads": {"@items": 10, "set": [
            [3, {"@patch": {"os_user_pct": 9.0, "exec_pct": 9.0}}],
        ]}}},
    }}
    assert diff(a, a) is SAME and diff(a, dataclasses.replace(a)) is SAME
    assert round_trip(a, b) == encode(b)


def test_a_sequence_mostly_changed_or_of_another_type_is_written_whole() -> None:
    a = tuple(thread(i, 5.0) for i in range(4))
    b = tuple(thread(i, 6.0) for i in range(4))
    assert diff(a, b) == encode(b)
    assert diff(None, a) == encode(a)
    assert diff(a, ()) == [] and diff((), a) == encode(a)


statuses = st.builds(
    NodeStatus,
    node_id=st.integers(1, 255),
    type=st.sampled_from(["NDB", "MGM", "API"]),
    status=st.sampled_from(["STARTED", "STARTING", "NO_CONTACT"]),
    start_phase=st.integers(0, 101),
    node_group=st.none() | st.integers(0, 3),
)


@given(
    before=st.lists(statuses, max_size=12),
    edits=st.lists(st.tuples(st.integers(0, 20), statuses), max_size=6),
    length=st.integers(0, 14),
)
def test_applying_the_patch_gives_the_new_value_whatever_changed(
    before: list[NodeStatus], edits: list[tuple[int, NodeStatus]], length: int
) -> None:
    after = (before + [NodeStatus(200 + i, "API", "NO_CONTACT") for i in range(length)])[:length]
    for index, status in edits:
        if index < len(after):
            after[index] = status
    assert round_trip(tuple(before), tuple(after)) == encode(tuple(after))
    a = snapshot(1.0, (), tuple(before))
    b = snapshot(2.0, (), tuple(after))
    assert decode(round_trip(a, b)) == b


def record(path: Path, count: int, rng: random.Random) -> list[ClusterSnapshot]:
    """``count`` snapshots where a few threads change at each, and a series per thread."""
    threads = tuple(thread(i, 5.0) for i in range(20))
    written = []
    series: dict[str, tuple[float | None, ...]] = {}
    recorder = Recorder(path, source="test")
    for second in range(count):
        changed = set(rng.sample(range(20), 3))
        threads = tuple(thread(t.thr_no, float(rng.randint(0, 99))) if t.thr_no in changed else t
                        for t in threads)
        for t in threads:
            if t.thr_no in changed or second == 0:
                key = f"thread.cpu.1.{t.thr_no}"
                series[key] = (*series.get(key, ())[-119:], t.cpu_pct)
        snap = dataclasses.replace(snapshot(1000.0 + second, threads),
                                   history=tuple(series.items()))
        recorder.write(snap)
        written.append(snap)
    recorder.close()
    return written


def test_any_snapshot_reads_back_in_any_order_across_key_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder_module, "KEY_EVERY", 7)
    rng = random.Random(3)
    written = record(tmp_path / "r.ndbrec", 40, rng)
    recording = read_recording(tmp_path / "r.ndbrec")
    assert len(recording) == 40 and recording.key_frame(39) == 35 and recording.key_frame(6) == 0
    order = list(range(40))
    rng.shuffle(order)
    for index in [*order, 38, 39, 0, 1, 2]:
        back = recording.snapshot(index)
        assert back.ndbinfo == written[index].ndbinfo and back.wall == written[index].wall
        # A series gets a point at each snapshot where it changed, from at most 120 back.
        assert dict(back.history) == dict(written[index].history)


def test_a_tail_starts_at_a_key_frame_and_reads_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder_module, "KEY_EVERY", 5)
    written = record(tmp_path / "r.ndbrec", 18, random.Random(1))
    tail = tmp_path / "tail.ndbrec"
    tail.write_bytes(read_recording(tmp_path / "r.ndbrec").tail(12))
    recording = read_recording(tail)
    assert len(recording) == 8 and recording.start == written[10].wall
    assert [recording.snapshot(i).ndbinfo for i in range(8)] == [
        s.ndbinfo for s in written[10:]]


class SlowRecorder:
    """Stands for a Recorder on a disk that takes as long as the test says."""

    def __init__(self, path: Path, fail: OSError | None = None) -> None:
        self.path = path
        self.snapshots = 0
        self.release = threading.Event()
        self.fail = fail
        self.closed = False

    def write(self, snap: ClusterSnapshot) -> None:
        self.release.wait(10)
        if self.fail is not None:
            raise self.fail
        self.snapshots += 1

    def close(self) -> None:
        self.closed = True


async def test_a_snapshot_offered_while_one_is_written_is_skipped_not_queued(
    tmp_path: Path,
) -> None:
    slow = SlowRecorder(tmp_path / "r")
    writer = BackgroundRecorder(slow)  # type: ignore[arg-type]
    writer.write(snapshot(1.0, ()))
    writer.write(snapshot(2.0, ()))
    writer.write(snapshot(3.0, ()))
    assert (writer.skipped, slow.snapshots) == (2, 0)
    slow.release.set()
    await writer.close()
    assert slow.snapshots == 1 and slow.closed and writer.error is None


async def test_a_write_error_is_reported_once_and_nothing_more_is_written(
    tmp_path: Path,
) -> None:
    slow = SlowRecorder(tmp_path / "r", fail=OSError(28, "No space left on device"))
    slow.release.set()
    errors: list[Exception] = []
    writer = BackgroundRecorder(slow, on_error=errors.append)  # type: ignore[arg-type]
    writer.write(snapshot(1.0, ()))
    await writer.flush()
    writer.write(snapshot(2.0, ()))
    await writer.flush()
    assert [str(e) for e in errors] == ["[Errno 28] No space left on device"]
    assert writer.error is errors[0] and slow.snapshots == 0
