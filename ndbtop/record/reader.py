"""Reading a recording back into the snapshots the live view rendered.

Records are kept as raw lines and decoded on demand, so a long recording
costs little until it is looked at. A file cut short by a killed recorder is
read up to its last complete record.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import zlib
from collections import deque
from pathlib import Path

from ndbtop.errors import NdbtopError
from ndbtop.mgm.events.decode import Event
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.codec import decode

EVENTS_KEPT = 2000
SERIES_KEPT = 120


def _lines(path: Path) -> list[bytes]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NdbtopError(f"cannot read recording {path}: {exc.strerror}") from None
    try:
        data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw)
    except zlib.error:
        raise NdbtopError(f"{path} is not an ndbtop recording (not gzip data)") from None
    lines = data.split(b"\n")
    # The last line is either empty (complete file) or cut short (killed recorder).
    return [line for line in lines[:-1] if line]


class Recording:
    """The snapshots and events of one recording file, in order."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, object] = {}
        self._snaps: list[bytes] = []
        self._snap_walls: list[float] = []
        self._events: list[tuple[float, bytes]] = []
        self._event_counts: list[int] = []
        for line in _lines(path):
            # A damaged record ends the recording, as a cut-short one does.
            try:
                record = json.loads(line)
                kind = record.get("k")
                if kind == "header":
                    self.header = record
                elif kind == "snap":
                    wall = float(record["s"]["wall"])
                    self._snaps.append(line)
                    self._snap_walls.append(wall)
                    self._event_counts.append(len(self._events))
                elif kind == "event":
                    self._events.append((float(record["e"]["received_at"]), line))
            except (ValueError, KeyError, TypeError, AttributeError):
                break
        if not self.header:
            raise NdbtopError(f"{path} is not an ndbtop recording")
        if not self._snaps:
            raise NdbtopError(f"{path} holds no snapshot")

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

    def snapshot(self, index: int) -> ClusterSnapshot:
        """Snapshot ``index`` as the live view had it: recent events and time series back."""
        snap: ClusterSnapshot = decode(json.loads(self._snaps[index])["s"])
        count = self._event_counts[index]
        events = tuple(
            decode(json.loads(line)["e"])
            for _, line in self._events[max(count - EVENTS_KEPT, 0) : count]
        )
        return dataclasses.replace(
            snap, events=events, events_total=count, history=self._series(index)
        )

    def _series(self, index: int) -> tuple[tuple[str, tuple[float | None, ...]], ...]:
        rings: dict[str, deque[float | None]] = {}
        for line in self._snaps[max(index - SERIES_KEPT + 1, 0) : index + 1]:
            for key, values in json.loads(line)["s"].get("history", []):
                ring = rings.setdefault(key, deque(maxlen=SERIES_KEPT))
                ring.extend(values)
        return tuple((k, tuple(v)) for k, v in rings.items())

    def events(self) -> tuple[Event, ...]:
        """Every recorded event."""
        return tuple(decode(json.loads(line)["e"]) for _, line in self._events)


def read_recording(path: Path) -> Recording:
    """Open a recording written by :class:`~ndbtop.record.recorder.Recorder`."""
    return Recording(path)
