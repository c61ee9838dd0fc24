"""Property tests: arbitrary text in every field a server or a recording fills.

Every string of real snapshots (management server status and version, events,
ndbinfo rows, host readings) is replaced by arbitrary text; every field of a
management server's replies and events gets arbitrary bytes. Whatever comes, --once,
--once --json, the live view (headless) and replay show no control character, do not
crash, and stay bounded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import io
import itertools
import json
import resource
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import Capture, CaptureSpec
from ndbtop.errors import MgmError, NdbtopError
from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.catalogue import CATALOGUE
from ndbtop.mgm.events.decode import decode_event
from ndbtop.mgm.status import parse_status_reply
from ndbtop.mgm.wire import LineBuffer, RawEvent, Reply
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.reader import read_recording
from ndbtop.record.recorder import Recorder
from ndbtop.record.replay import DAMAGE, ReplaySource
from ndbtop.report.bundle import Bundle, event_lines
from ndbtop.report.render import report_json, report_text
from ndbtop.sanitise import SafeStream, json_text, sanitise
from ndbtop.tui.app import VIEWS, NdbtopApp
from ndbtop.tui.safe import safe
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.source import FrozenSource
from ndbtop.tui.views.events import event_line
from tests.captures import captured
from tests.hostile.conftest import ATTACKS, MARKUP, assert_inert

HOSTILE_TEXT = st.one_of(
    st.sampled_from(ATTACKS + MARKUP),
    st.text(max_size=40),
    st.text(st.characters(max_codepoint=0x3000), max_size=20).map(lambda s: s + "\x1b[31m"),
)
VIEW_KEYS = "".join(str(i + 1) for i in range(len(VIEWS)))
"""The keys of every view, Config and Backup included."""
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
"""A snapshot holds hundreds of strings: shrinking one that failed takes too long to be
worth it (the failure names the field)."""
LARGE = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
WIRE_BYTES = st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))


@pytest.fixture(scope="module")
def captures() -> list[Capture]:
    """Real moments of simulated clusters: nodes, events, ndbinfo panels, host readings."""

    async def take() -> list[Capture]:
        return [
            await captured(CaptureSpec("threads", 600.0, samples=2, interval=0.25)),
            await captured(CaptureSpec("initial-start", 1800.0, samples=2, interval=0.25)),
        ]

    return asyncio.run(take())


def hostile(value: Any, draw: Callable[[], str]) -> Any:
    """``value`` with every string in it replaced by ``draw()`` (enums kept)."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return draw()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: hostile(getattr(value, f.name), draw)
                   for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(hostile(v, draw) for v in value))
    if isinstance(value, tuple):
        return tuple(hostile(v, draw) for v in value)
    if isinstance(value, frozenset):
        return frozenset(hostile(v, draw) for v in value)
    if isinstance(value, dict):
        return {hostile(k, draw): hostile(v, draw) for k, v in value.items()}
    return value


def check_reports(snap: ClusterSnapshot) -> None:
    """--once and --once --json of ``snap``, as the command line prints them: inert, and
    the JSON exact."""
    out = io.StringIO()
    SafeStream(out).write(report_text(snap))
    assert_inert(out.getvalue())
    text = json_text(report_json(snap), indent=2)
    assert_inert(text)
    assert json.loads(text) == json.loads(json.dumps(report_json(snap)))


TEXTS = st.lists(HOSTILE_TEXT, min_size=1, max_size=50)


def cycling(texts: list[str]) -> Callable[[], str]:
    """Each call the next of ``texts``, round and round."""
    it = itertools.cycle(texts)
    return lambda: next(it)


@settings(max_examples=60, deadline=None, suppress_health_check=LARGE)
@given(TEXTS)
def test_once_and_json_of_hostile_snapshots(captures: list[Capture], texts: list[str]) -> None:
    for cap in captures:
        check_reports(hostile(cap.snapshot, cycling(texts)))


@settings(max_examples=2, deadline=None, phases=NO_SHRINK,
          suppress_health_check=[*LARGE, HealthCheck.function_scoped_fixture])
@given(TEXTS)
def test_the_live_view_of_hostile_snapshots(captures: list[Capture], tmp_path_factory: Any,
                                            texts: list[str]) -> None:
    # Each example draws every view of both moments (tests/hostile/test_text_boundary.py
    # draws them with each control character and markup, at two sizes).
    snaps = [hostile(cap.snapshot, cycling(texts)) for cap in captures]
    asyncio.run(_show(snaps, captures[0], tmp_path_factory.mktemp("audit")))


async def _show(snaps: list[ClusterSnapshot], cap: Capture, directory: Any) -> None:
    source = FrozenSource(snaps[0], cap.connectstring)

    async def start() -> FrozenSource:
        return source

    app = NdbtopApp(start, audit=AuditLog(directory / "audit.log"), read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        for snap in snaps:
            source._snapshot = snap
            for key in VIEW_KEYS:
                await pilot.press(key)
                app.tick()
                await pilot.pause()
                assert_inert(screen_text(app))
            await pilot.press("down", "down", "enter")
            await pilot.pause()
            assert_inert(screen_text(app))
    assert app.crash is None


def _reply(lines: list[bytes]) -> Reply:
    """A reply block from raw lines, decoded as the wire decodes them."""
    header, *rest = [line for line in LineBuffer(100_000).feed(b"\n".join(lines) + b"\n")
                     if line]
    return Reply(header, tuple(tuple(line.split(": ", 1)) if ": " in line else (line, "")
                               for line in rest))


FIELDS = ("type", "status", "version", "mysql_version", "startphase", "dynamic_id",
          "node_group", "connect_count", "address", "is_single_user")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(FIELDS), WIRE_BYTES, min_size=2))
def test_status_replies_with_arbitrary_field_bytes(values: dict[str, bytes]) -> None:
    lines = [b"node status", b"nodes: 1"]
    lines += [b"node.2." + name.encode() + b": " + value for name, value in values.items()]
    try:
        nodes = parse_status_reply(_reply(lines))
    except MgmError:
        return
    for node in nodes:
        for value in (node.type, node.status, node.address):
            assert isinstance(value, str)


EVENT_KEYS = sorted({key for spec in CATALOGUE.values() for key in spec.keys} | {"data"})


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(CATALOGUE)),
    st.integers(-(2**40), 2**40),
    st.lists(st.tuples(st.sampled_from(EVENT_KEYS), WIRE_BYTES), max_size=8),
)
def test_events_with_arbitrary_field_bytes(
    event_type: int, source: int, body: list[tuple[str, bytes]]
) -> None:
    lines = [b"log event reply", f"type={event_type}".encode(), b"time=1",
             f"source_nodeid={source}".encode()]
    lines += [key.encode() + b"=" + value for key, value in body]
    parser = EventStreamParser()
    items = []
    try:
        for line in LineBuffer(100_000).feed(b"\n".join(lines) + b"\n\n"):
            items.append(parser.feed(line))
    except MgmError:
        return
    (raw,) = [item for item in items if isinstance(item, RawEvent)]
    event = decode_event(raw, 1_700_000_000.0)
    assert_inert(safe(event_line(event, (1,))).plain)
    bundle = Bundle()
    bundle.add("events.txt", event_lines([event]), "events")
    assert_inert(bundle.files["events.txt"].decode())


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(HOSTILE_TEXT, inner, max_size=4),
    max_leaves=12,
)


def _mutate(value: Any, path: list[int], new: Any) -> Any:
    """``value`` (decoded JSON) with the node reached by ``path`` (indexes taken modulo the
    children at each level) replaced by ``new``."""
    if not path or not isinstance(value, (dict, list)) or not value:
        return new
    if isinstance(value, dict):
        keys = sorted(value, key=str)
        key = keys[path[0] % len(keys)]
        return {**value, key: _mutate(value[key], path[1:], new)}
    i = path[0] % len(value)
    return [*value[:i], _mutate(value[i], path[1:], new), *value[i + 1 :]]


@pytest.fixture(scope="module")
def recorded_lines(captures: list[Capture], tmp_path_factory: Any) -> list[dict[str, Any]]:
    """The records of a real recording of the captured moments, decoded."""
    path = tmp_path_factory.mktemp("rec") / "real.ndbrec"
    recorder = Recorder(path, source="test")
    for cap in captures:
        recorder.write(cap.snapshot)
    recorder.close()
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]


@settings(max_examples=150, deadline=None, suppress_health_check=[*LARGE,
          HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.lists(st.integers(0, 1000), max_size=8), JSON_VALUES),
                min_size=1, max_size=6))
def test_replay_of_crafted_recordings(recorded_lines: list[dict[str, Any]], tmp_path: Path,
                                      changes: list[tuple[list[int], Any]]) -> None:
    records: Any = recorded_lines
    for path, new in changes:
        records = _mutate(records, [p % 1000 for p in path], new)
    lines = [json.dumps(r).encode() for r in (records if isinstance(records, list)
                                               else [records])]
    file = tmp_path / "crafted.ndbrec"
    file.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    replay_everything(file)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2000), st.booleans())
def test_replay_of_arbitrary_bytes(tmp_path_factory: Any, data: bytes, compressed: bool) -> None:
    file = tmp_path_factory.mktemp("bytes") / "x.ndbrec"
    file.write_bytes(gzip.compress(data) if compressed else data)
    replay_everything(file)


def replay_everything(file: Path) -> None:
    """Open ``file`` as replay does and show every snapshot as --once would: a damaged one
    is an NdbtopError at open or a note in the replay's header, never anything else."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        source = ReplaySource(read_recording(file), real=lambda: 0.0)
    except (NdbtopError, *DAMAGE):
        return
    for _ in range(len(source.recording)):
        source.step(1)
        check_reports(source.snapshot())
        assert_inert(sanitise(source.describe()))
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 200_000


def test_a_snapshot_of_the_wrong_types_is_damage_not_a_crash(
    recorded_lines: list[dict[str, Any]], tmp_path: Path
) -> None:
    records = [dict(r) for r in recorded_lines]
    (key,) = [i for i, r in enumerate(records) if r.get("k") == "snap"]
    (delta,) = [i for i, r in enumerate(records) if r.get("k") == "delta"]
    # The second snapshot becomes a whole one whose first node's id is text.
    body = json.loads(json.dumps(records[key]["s"]))
    body["nodes"][0]["node_id"] = "1"
    records[delta] = {"k": "snap", "w": records[delta]["w"], "s": body, "h": []}
    file = tmp_path / "typed.ndbrec"
    file.write_bytes(gzip.compress(b"\n".join(json.dumps(r).encode() for r in records) + b"\n"))
    source = ReplaySource(read_recording(file), real=lambda: 0.0)
    first = source.snapshot()
    source.step(len(source.recording))
    assert source.snapshot() is first
    assert source.damaged is not None and "NodeStatus.node_id holds str" in source.damaged
    assert "damaged" in source.describe()
