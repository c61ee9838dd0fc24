"""Flight recorder, replay source, start history and the triage bundle."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import json
import tarfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.target import audit_fields
from ndbtop.cli import main
from ndbtop.collect.history_store import HistoryStore
from ndbtop.demo.hub import demo_hub
from ndbtop.errors import NdbtopError
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.history import (
    PastStart,
    cluster_key,
    last_time,
    past_start,
    slower_than_last_time,
)
from ndbtop.model.phases import PhaseRecord, StartTimeline
from ndbtop.record.codec import decode, encode
from ndbtop.record.reader import Recording, read_recording
from ndbtop.record.recorder import Recorder
from ndbtop.record.replay import ReplaySource
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import build_scenario

StartSim = Callable[..., Awaitable[Simulator]]


async def _recorded_run(tmp_path: Path, seconds: int = 8) -> tuple[Path, list]:
    """Record the threads scenario (with its SQL node) for a few snapshots."""
    sim = Simulator(build_scenario("threads"), SimClock(speed=20))
    await sim.start()
    hub = demo_hub(sim, 0.2)
    await hub.start()
    path = tmp_path / "run.ndbrec"
    recorder = Recorder(path, source="test")
    shown = []
    try:
        for _ in range(seconds):
            await asyncio.sleep(0.25)
            snap = hub.snapshot()
            recorder.write(snap)
            shown.append(snap)
    finally:
        recorder.close()
        await hub.stop()
        await sim.close()
    return path, shown


async def test_recording_round_trip_gives_back_the_snapshots(tmp_path: Path) -> None:
    path, shown = await _recorded_run(tmp_path)
    recording = read_recording(path)
    assert len(recording) == len(shown)
    for i, snap in enumerate(shown):
        back = recording.snapshot(i)
        assert back.nodes == snap.nodes
        assert back.ndbinfo == snap.ndbinfo
        assert back.timelines == snap.timelines
        assert back.events_total == snap.events_total
        assert back.events == snap.events[-len(back.events) :] if back.events else True
        assert dict(back.history).keys() == dict(snap.history).keys()
    last = shown[-1]
    for key, values in last.history:
        assert recording.snapshot(len(shown) - 1).series(key)[-1] == values[-1]


async def test_a_killed_recorder_loses_at_most_the_last_sample(tmp_path: Path) -> None:
    path, shown = await _recorded_run(tmp_path, seconds=5)
    data = path.read_bytes()
    # Simulate kill -9: the gzip trailer and part of the last flush never reached the disk.
    cut = tmp_path / "cut.ndbrec"
    cut.write_bytes(data[: len(data) - 40])
    recording = read_recording(cut)
    assert len(recording) >= len(shown) - 1
    assert recording.snapshot(len(recording) - 1).nodes == shown[len(recording) - 1].nodes


def test_codec_rejects_unknown_types() -> None:
    with pytest.raises(TypeError):
        encode(object())
    with pytest.raises(ValueError, match="unknown record type"):
        decode({"@": "subprocess.Popen"})


def test_recording_rotates_by_size(tmp_path: Path) -> None:
    from ndbtop.model.snapshot import ClusterSnapshot
    from ndbtop.model.sources import SourceState, SourceStatus

    snap = ClusterSnapshot(
        1.0,
        1000.0,
        1.0,
        (SourceStatus("mgm", SourceState.CONNECTED),),
        nodes=tuple(NodeStatus(i, "API", "NO_CONTACT") for i in range(1, 200)),
    )
    path = tmp_path / "r.ndbrec"
    recorder = Recorder(path, max_bytes=2000, keep=2)
    for i in range(30):
        # Every node changes at every snapshot: no delta is much smaller than the whole.
        nodes = tuple(NodeStatus(n, "API", "NO_CONTACT", connect_count=i) for n in range(1, 200))
        recorder.write(dataclasses.replace(snap, wall=1000.0 + i, nodes=nodes))
    recorder.close()
    assert (
        path.exists() and (tmp_path / "r.ndbrec.1").exists() and (tmp_path / "r.ndbrec.2").exists()
    )
    assert not (tmp_path / "r.ndbrec.3").exists()
    assert path.stat().st_size < 4000
    # Each file, the current one included, starts with a whole snapshot: it is read
    # without the files before it.
    current, newer, older = (
        read_recording(tmp_path / name) for name in ("r.ndbrec", "r.ndbrec.1", "r.ndbrec.2")
    )
    assert current.segments == [tmp_path / "r.ndbrec.2", tmp_path / "r.ndbrec.1", path]
    assert newer.segments == [tmp_path / "r.ndbrec.1"]
    alone = read_recording_alone(path)
    assert older.end == newer.start - 1 and newer.end == alone.start - 1
    assert current.end == alone.end == 1029.0 and current.start == older.start
    assert len(current) == len(older) + len(newer) + len(alone)
    for recording in (current, newer, older):
        assert recording.damage is None
        walls = [recording.wall(i) for i in range(len(recording))]
        assert walls == sorted(walls) and len(set(walls)) == len(walls)
        for i in range(len(recording)):
            snap_i = recording.snapshot(i)
            assert {n.connect_count for n in snap_i.nodes} == {int(snap_i.wall) - 1000}


def read_recording_alone(path: Path) -> Recording:
    """The current file of a rotated recording, without its older segments."""
    alone = path.with_name("alone.ndbrec")
    alone.write_bytes(path.read_bytes())
    return read_recording(alone)


def test_not_a_recording_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x"
    bad.write_text("hello")
    with pytest.raises(NdbtopError, match="not an ndbtop recording"):
        read_recording(bad)
    empty = tmp_path / "y"
    empty.write_bytes(gzip.compress(b""))
    with pytest.raises(NdbtopError, match="not an ndbtop recording"):
        read_recording(empty)


async def test_replay_plays_seeks_and_steps(tmp_path: Path) -> None:
    path, shown = await _recorded_run(tmp_path)
    now = [0.0]
    replay = ReplaySource(read_recording(path), real=lambda: now[0])
    assert replay.snapshot().wall == shown[0].wall
    replay.speed = 1.0
    now[0] += shown[3].wall - shown[0].wall
    assert replay.snapshot().wall == shown[3].wall
    replay.step(1)
    assert not replay.playing and replay.snapshot().wall == shown[4].wall
    replay.seek(-3600)
    assert replay.snapshot().wall == shown[0].wall
    replay.seek(3600)
    assert replay.snapshot().wall == shown[-1].wall
    assert replay.change_speed(+1) == 2.0 and "x2" in replay.describe()


def test_record_command_writes_a_recording_of_the_demo(tmp_path: Path) -> None:
    path = tmp_path / "demo.ndbrec"
    code = main(
        [
            "record",
            str(path),
            "--demo",
            "--scenario",
            "initial-start",
            "--speed",
            "300",
            "--duration",
            "3",
            "--interval",
            "0.5",
            "--no-sql",
        ]
    )
    assert code == 0
    recording = read_recording(path)
    assert len(recording) >= 4
    assert any(e.type == 13 for e in recording.events())
    assert recording.header["source"] == "simulated initial-start (seed 1)"


def timeline(node: int, phase4: float, finished: float) -> StartTimeline:
    records = (PhaseRecord(1, 0.0, 0.1, True), PhaseRecord(4, 0.1, phase4, True))
    return StartTimeline(node, 0, 0.0, True, records, None, 0.0, True, finished)


def test_record_command_stops_on_a_write_error_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(self: Recorder, snap: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Recorder, "write", full)
    path = tmp_path / "demo.ndbrec"
    code = main(["record", str(path), "--demo", "--scenario", "threads", "--duration", "5",
                 "--interval", "0.2", "--no-sql"])
    err = capsys.readouterr().err
    assert code == 4
    assert f"cannot write {path}: No space left on device" in err
    assert "Traceback" not in err


def test_history_remembers_finished_starts_and_compares() -> None:
    done = past_start(timeline(10, 2327.0, 2400.0))
    assert done is not None and done.seconds(4) == 2327.0
    assert past_start(dataclasses.replace(timeline(10, 5, 9), finished_at=None)) is None
    history = (PastStart(11, 0, 100.0, ((4, 900.0),), 950.0), done)
    assert last_time(history, 10, 0, 4) == 2327.0
    assert last_time(history, 12, 0, 4) == 2327.0
    assert last_time(history, 10, 2, 4) is None
    assert slower_than_last_time(4000.0, 2327.0)
    assert not slower_than_last_time(2400.0, 2327.0)
    assert not slower_than_last_time(30.0, 1.0)


def test_history_store_survives_restarts_and_garbage(tmp_path: Path) -> None:
    nodes = [NodeStatus(10, "NDB", "STARTED"), NodeStatus(1, "MGM", "CONNECTED")]
    key = cluster_key(nodes, "mgm1:1186")
    assert key != cluster_key(nodes, "mgm2:1186")
    store = HistoryStore(tmp_path, key)
    start = PastStart(10, 0, 5.0, ((4, 2327.0),), 2400.0)
    store.add(start)
    assert HistoryStore(tmp_path, key).load() == (start,)
    store.path.write_text("{garbage")
    assert store.load() == ()


async def test_bundle_has_every_part_and_no_password(
    start_sim: StartSim, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = await start_sim("threads", speed=50)
    audit = AuditLog(tmp_path / "audit.log")
    # As the action runner writes them (actions/runner.py): this cluster's, another's.
    audit.write(event="reply", **audit_fields(sim.connectstring, 1), command="2 RESTART",
                ok=True, reply="Ok")
    audit.write(event="reply", **audit_fields("10.9.9.9:1186", 3), command="5 STOP",
                ok=True, reply="Ok")
    audit = audit.path
    bundle = tmp_path / "b.tar.gz"
    code = await asyncio.to_thread(
        main,
        [
            "report",
            "--bundle",
            str(bundle),
            "-c",
            sim.connectstring,
            "--no-host",
            "--mysql-host",
            "127.0.0.1",
            "--mysql-port",
            "1",
            "--mysql-user",
            "monitor",
            "--events-seconds",
            "0.5",
            "--audit-log",
            str(audit),
            "--mysql-password",
            "s3cr3t-pw",
        ],
    )
    assert code == 0
    with tarfile.open(bundle) as tar:
        names = {m.name.split("/", 1)[1] for m in tar.getmembers()}
        blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers())  # type: ignore[union-attr]
    assert {
        "MANIFEST.txt",
        "report.txt",
        "report.json",
        "findings.txt",
        "cluster-log-levels.txt",
        "memory.txt",
        "events.txt",
        "audit-log.jsonl",
    } <= names
    with tarfile.open(bundle) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/audit-log.jsonl"))
        audited = tar.extractfile(member).read().decode()  # type: ignore[union-attr]
        manifest = next(m for m in tar.getmembers() if m.name.endswith("/MANIFEST.txt"))
        listed = tar.extractfile(manifest).read().decode()  # type: ignore[union-attr]
        judged = next(m for m in tar.getmembers() if m.name.endswith("/findings.txt"))
        findings = tar.extractfile(judged).read().decode()  # type: ignore[union-attr]
        member = next(m for m in tar.getmembers() if m.name.endswith("/report.json"))
        report = json.loads(tar.extractfile(member).read())  # type: ignore[union-attr]
    assert [json.loads(line)["command"] for line in audited.splitlines()] == ["2 RESTART"]
    assert "1 record(s) of other clusters or naming none left out" in listed
    assert b"Data usage is" in blob and b"statistics" in blob
    # Without a SQL node no ndbinfo rule concludes anything: the threads scenario's hot
    # thread needs cpustat.
    assert b"Findings: none" in blob
    # ... and says so: the SQL node did not answer, and the findings were judged with no
    # cluster log file to read and before the events were listened to.
    assert findings.splitlines()[1].startswith("  not judged (no ndbinfo): redo_part_filling")
    assert "  not judged (no cluster log read, no event heard): gcp_save_lag" in findings
    assert [n["why"] for n in report["not_judged"]] == [
        "no ndbinfo", "no cluster log read, no event heard"]
    assert b"s3cr3t-pw" not in blob
    assert b"monitor@127.0.0.1:1" in blob
    assert "Using a password on the command line" in capsys.readouterr().err


def test_bundle_unreachable_cluster_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "report",
                "--bundle",
                str(tmp_path / "b.tgz"),
                "-c",
                "127.0.0.1:1",
                "--no-sql",
                "--no-host",
            ]
        )
        == 3
    )
    assert "cannot connect" in capsys.readouterr().err
    assert not (tmp_path / "b.tgz").exists()
