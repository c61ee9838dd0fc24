"""Reading a recording back into the snapshots the live view rendered.

A recording (:mod:`ndbtop.record.recorder`) is one gzip member per key frame and
the deltas after it. Opening one reads it through once to find every snapshot and
event; what a snapshot holds is decoded when it is asked for, by applying the
deltas since the key frame before it, so a long recording costs little until it is
looked at, and moving one snapshot on costs one delta. A file cut short by a killed
recorder is read up to its last complete record. Recordings of format 1, where
every snapshot is whole, are read as well.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import time
import zlib
from collections import OrderedDict, deque
from pathlib import Path
from typing import Any

from ndbtop.errors import FileError
from ndbtop.files import read_limited
from ndbtop.mgm.events.decode import Event
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.codec import decode, is_number
from ndbtop.record.delta import apply
from ndbtop.sanitise import sanitise
from ndbtop.textnum import MAX_TIME, NumberError, dumps, is_digits, json_number


def _not_json(constant: str) -> object:
    raise NumberError(f"{constant} is not a JSON number")


def loads(line: bytes) -> Any:
    """One record of a recording: JSON as RFC 8259 has it (never ``NaN`` or ``Infinity``,
    which Python's reader would take)."""
    return json.loads(line, parse_constant=_not_json)


def _time(value: object) -> float:
    """A record's time: a number between 0 and ``MAX_TIME``; a ValueError otherwise."""
    return json_number(value, 0.0, MAX_TIME, "a time")


def _points(values: Any) -> Any:
    """A series' new points: numbers (as a recording holds them) or None (gaps)."""
    if type(values) is not list or not all(v is None or is_number(v) for v in values):
        raise NumberError("a series holds other than numbers")
    return values

EVENTS_KEPT = 2000
SERIES_KEPT = 120
_CHUNK = 1 << 16
_MEMBERS_CACHED = 2
MAX_FILE = 1 << 30
"""Bytes a recording file may hold (a recorder starts a new file at ``--max-mb``, 200 MB
by default)."""
MAX_FRAME = 64 << 20
"""Bytes one frame (gzip member: a key frame and its deltas) may expand to."""
MAX_TOTAL = 16 << 30
"""Bytes a whole recording may expand to."""


def segments(path: Path) -> list[Path]:
    """The files of a recording, oldest first.

    ``FILE`` rotated by the recorder is ``FILE.N`` ... ``FILE.1`` then ``FILE``: the
    whole series is played in that order. A rotated segment named on its own
    (``FILE.2``) is played alone.
    """
    _, dot, suffix = path.name.rpartition(".")
    if dot and is_digits(suffix):
        return [path]
    older = []
    i = 1
    while (candidate := path.with_name(f"{path.name}.{i}")).is_file():
        older.append(candidate)
        i += 1
    return [*reversed(older), path]


def _members(
    raw: bytes, path: Path, offset: int, total: int
) -> tuple[list[tuple[int, int]], str | None, int]:
    """The (start, end) of each gzip member in ``raw`` (a file's bytes, at ``offset`` in the
    bytes of the whole recording), where the file is damaged if it is, and the bytes the
    recording expands to so far (``total`` before this file).

    A member cut short at the end of the file (a killed or running recorder) is not
    damage; bytes that do not inflate are. A damaged member is kept up to the damage.
    Recordings come attached to tickets: each member may expand to :data:`MAX_FRAME`
    bytes and the whole recording to :data:`MAX_TOTAL`, never more (a compression bomb
    is a clear error, not an exhausted machine).
    """
    shown = sanitise(str(path))
    view = memoryview(raw)
    members: list[tuple[int, int]] = []
    pos = 0
    while pos < len(raw):
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        fed = pos
        size = 0
        try:
            while not d.eof and fed < len(raw):
                size += len(d.decompress(view[fed : fed + _CHUNK], MAX_FRAME + 1 - size))
                if d.unconsumed_tail:
                    size = MAX_FRAME + 1
                if size > MAX_FRAME:
                    raise FileError(_too_big(shown, len(members) + 1, MAX_FRAME))
                fed = min(fed + _CHUNK, len(raw))
        except zlib.error as exc:
            if not members and offset == 0:
                raise FileError(f"{shown} is not an ndbtop recording (not gzip data)") from None
            at = _damage_offset(view[pos:]) + pos
            members.append((offset + pos, offset + at))
            return members, f"{shown} is damaged at byte {at} ({_zlib_reason(exc)})", total
        total += size
        if total > MAX_TOTAL:
            raise FileError(f"{shown}: the recording expands past {MAX_TOTAL >> 20} MB")
        end = fed - len(d.unused_data) if d.eof else len(raw)
        members.append((offset + pos, offset + end))
        if not d.eof:
            break
        pos = end
    return members, None, total


def _damage_offset(data: memoryview) -> int:
    """How far into ``data`` (one gzip member and what follows) the damage begins.

    Overwritten bytes can go on inflating, as garbage, well past where they are before
    inflating fails. So the place named is where the output stops being whole records:
    the compressed offset at which the first line that is not a record began to come out
    (in steps of a few bytes), or where inflating failed if that is earlier.
    """
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    step = 8
    chunks: list[bytes] = []
    marks: list[tuple[int, int]] = []
    size = 0
    failed = len(data)
    for at in range(0, len(data), step):
        try:
            piece = d.decompress(data[at : at + step], MAX_FRAME + 1 - size)
        except zlib.error:
            failed = at
            break
        chunks.append(piece)
        size += len(piece)
        marks.append((at, size))
        if size > MAX_FRAME or d.eof:
            break
    text = b"".join(chunks)
    bad = 0
    for line in text.split(b"\n")[:-1]:
        try:
            loads(line)
        except ValueError:
            break
        bad += len(line) + 1
    for at, produced in marks:
        if produced > bad:
            return min(at, failed)
    return failed


def _zlib_reason(exc: zlib.error) -> str:
    text = str(exc)
    return text.split(": ", 1)[-1] if ": " in text else text


def _too_big(shown: str, frame: int, limit: int) -> str:
    return f"{shown}: frame {frame} expands past {limit >> 20} MB"


def _lines(data: bytes) -> list[bytes]:
    # The last line is either empty (complete member) or cut short (killed recorder).
    return [line for line in data.split(b"\n")[:-1] if line]


def _inflate(data: bytes | memoryview) -> bytes:
    """A member decompressed, as much of it as there is, up to damage in it (at most
    :data:`MAX_FRAME` bytes: :func:`_members` checked that it holds no more)."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out: list[bytes] = []
    size = 0
    for at in range(0, len(data), _CHUNK):
        try:
            chunk = d.decompress(data[at : at + _CHUNK], MAX_FRAME - size)
        except zlib.error:
            break
        out.append(chunk)
        size += len(chunk)
        if size >= MAX_FRAME:
            break
    return b"".join(out)


class _Cursor:
    """The encoded body of one snapshot and the series up to it."""

    def __init__(self, index: int, body: dict[str, Any], rings: dict[str, deque[Any]]) -> None:
        self.index = index
        self.body = body
        self.rings = rings


class Recording:
    """The snapshots and events of a recording, in order: its rotated segments, oldest
    first, then the file itself (:func:`segments`).

    ``damage`` says where the first damage is (None when there is none): the
    recording is read up to it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.segments = segments(path)
        self.header: dict[str, object] = {}
        self.damage: str | None = None
        self._member_spans: list[tuple[int, int]] = []
        self._member_files: list[Path] = []
        parts = []
        offset = total = 0
        for segment in self.segments:
            shown = sanitise(str(segment))
            try:
                raw = read_limited(segment, MAX_FILE, "recording")
            except FileNotFoundError:
                raise FileError(f"cannot read recording {shown}: no such file") from None
            except OSError as exc:
                raise FileError(f"cannot read recording {shown}: {exc.strerror}") from None
            members, self.damage, total = _members(raw, segment, offset, total)
            self._member_spans += members
            self._member_files += [segment] * len(members)
            parts.append(raw)
            offset += len(raw)
            if self.damage is not None:
                break
        self._raw = b"".join(parts)
        self._cache: OrderedDict[int, list[bytes]] = OrderedDict()
        self._snaps: list[tuple[int, int]] = []
        """(member, line) of every snapshot record."""
        self._keys: list[int] = []
        """Indexes of the snapshots that are whole (key frames)."""
        self._snap_walls: list[float] = []
        self._events: list[tuple[float, bytes]] = []
        self._event_counts: list[int] = []
        self._cursor: _Cursor | None = None
        self._index()
        if not self.header:
            raise FileError(f"{sanitise(str(path))} is not an ndbtop recording")
        if not self._snaps:
            damage = f" ({self.damage})" if self.damage else ""
            raise FileError(f"{sanitise(str(path))} holds no snapshot{damage}")

    def _index(self) -> None:
        for member in range(len(self._member_spans)):
            for number, line in enumerate(self._member_lines(member)):
                # A damaged record ends the recording.
                try:
                    record = loads(line)
                    kind = record.get("k")
                    if kind == "header":
                        self.header = record
                    elif kind in ("snap", "delta"):
                        if kind == "delta" and not self._snaps:
                            return
                        wall = _time(record["w"] if "w" in record else record["s"]["wall"])
                        if kind == "snap":
                            self._keys.append(len(self._snaps))
                        self._snaps.append((member, number))
                        self._snap_walls.append(wall)
                        self._event_counts.append(len(self._events))
                    elif kind == "event":
                        self._events.append((_time(record["e"]["received_at"]), line))
                except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                    start = self._member_spans[member][0] - self._file_offset(member)
                    shown = sanitise(str(self._member_files[member]))
                    why = f": {exc}" if isinstance(exc, NumberError) else ""
                    self.damage = (f"{shown} is damaged at record {number + 1} of the gzip "
                                   f"member at byte {start}{why}")
                    return
            # Lines are read again only when a snapshot of this member is asked for.
            self._cache.clear()

    def damage_report(self) -> str | None:
        """``FILE is damaged at byte 1234 (...): read 118 snapshots before it, up to
        12:04:31``; None when the recording is whole."""
        if self.damage is None:
            return None
        until = time.strftime("%H:%M:%S", time.localtime(self.end))
        return f"{self.damage}: read {len(self)} snapshots before it, up to {until}"

    def _file_offset(self, member: int) -> int:
        """Where the file holding ``member`` starts in the bytes of the whole recording."""
        first = self._member_files.index(self._member_files[member])
        return self._member_spans[first][0]

    def _member_lines(self, member: int) -> list[bytes]:
        lines = self._cache.get(member)
        if lines is None:
            start, end = self._member_spans[member]
            lines = _lines(_inflate(memoryview(self._raw)[start:end]))
            self._cache[member] = lines
            while len(self._cache) > _MEMBERS_CACHED:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(member)
        return lines

    def _record(self, index: int) -> dict[str, Any]:
        member, number = self._snaps[index]
        record: dict[str, Any] = loads(self._member_lines(member)[number])
        return record

    def __len__(self) -> int:
        return len(self._snaps)

    @property
    def start(self) -> float:
        """Wall time of the first snapshot."""
        return self._snap_walls[0]

    @property
    def end(self) -> float:
        """Wall time of the last snapshot."""
        return self._snap_walls[-1]

    def index_at(self, wall: float) -> int:
        """The last snapshot taken at or before ``wall``."""
        return max(bisect.bisect_right(self._snap_walls, wall) - 1, 0)

    def wall(self, index: int) -> float:
        """Wall time of snapshot ``index``."""
        return self._snap_walls[index]

    def key_frame(self, index: int) -> int:
        """The whole snapshot that snapshot ``index`` is rebuilt from."""
        return self._keys[bisect.bisect_right(self._keys, index) - 1]

    def snapshot(self, index: int) -> ClusterSnapshot:
        """Snapshot ``index`` as the live view had it: recent events and time series back."""
        cursor = self._move_to(index)
        snap: ClusterSnapshot = decode(cursor.body)
        count = self._event_counts[index]
        events = tuple(
            decode(loads(line)["e"])
            for _, line in self._events[max(count - EVENTS_KEPT, 0) : count]
        )
        history = tuple((key, tuple(ring)) for key, ring in cursor.rings.items())
        return dataclasses.replace(snap, events=events, events_total=count, history=history)

    def _move_to(self, index: int) -> _Cursor:
        """The cursor at ``index``: moved on from where it is, or rebuilt from the key frame
        (and the series from ``SERIES_KEPT`` snapshots back) when that is less work."""
        first = min(self.key_frame(index), max(index - SERIES_KEPT + 1, 0))
        cursor = self._cursor
        if cursor is None or cursor.index > index or cursor.index < first - 1:
            cursor = _Cursor(first - 1, {}, {})
        rings = cursor.rings
        body = cursor.body
        for i in range(cursor.index + 1, index + 1):
            record = self._record(i)
            if record["k"] == "snap":
                body = record["s"]
            elif body:
                body = apply(body, {"@patch": record["s"]})
            points = record["h"] if "h" in record else record["s"].get("history", [])
            for series, values in points:
                ring = rings.get(series)
                if ring is None:
                    ring = rings[series] = deque(maxlen=SERIES_KEPT)
                ring.extend(_points(values))
        cursor.index, cursor.body = index, body
        self._cursor = cursor
        return cursor

    def tail(self, index: int) -> bytes:
        """A recording of its own (gzip) from the key frame snapshot ``index`` is rebuilt
        from to the end: the header, then every record from there on."""
        member, number = self._snaps[self.key_frame(index)]
        lines = [dumps(self.header, separators=(",", ":")).encode()]
        lines += self._member_lines(member)[number:]
        for later in range(member + 1, len(self._member_spans)):
            lines += self._member_lines(later)
        compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return compressor.compress(b"\n".join(lines) + b"\n") + compressor.flush()

    def events(self) -> tuple[Event, ...]:
        """Every recorded event."""
        return tuple(decode(loads(line)["e"]) for _, line in self._events)


def read_recording(path: Path) -> Recording:
    """Open a recording written by :class:`~ndbtop.record.recorder.Recorder`."""
    return Recording(path)
