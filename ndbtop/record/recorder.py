"""The flight recorder: every snapshot and every event, compressed, size-bounded.

A recording is gzip-compressed JSON lines: a header, then a record per snapshot
and one per event (each event once). Every :data:`KEY_EVERY` snapshots, and first
in a file, comes a key frame (``snap``): the whole snapshot, in a gzip member of its
own; in between, a ``delta`` holds only what changed since the snapshot before
(:mod:`ndbtop.record.delta`), which for a large cluster is a fiftieth of the whole.
A snapshot record carries its wall time (``w``), its body without events or time
series (``s``), and the new points of the series that got one (``h``).

The compressed stream is sync-flushed after every snapshot, so a killed process
loses at most the last one. When a file has outgrown ``max_bytes``, the next
snapshot first turns it into ``FILE.1`` (older ones shift to ``.2`` ...), keeping
``keep`` old files; the new file starts with a key frame, so each file plays on its
own, and the reader plays them in order. Snapshots hold no password.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import time
import zlib
from pathlib import Path
from typing import IO, Any

from ndbtop import __version__
from ndbtop.files import create_private, state_subdir
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.codec import encode
from ndbtop.record.delta import SAME, diff
from ndbtop.textnum import dumps

FORMAT = 2
"""1: every snapshot whole, with the last value of every series in it; 2: key frames and
deltas."""
KEY_EVERY = 60
"""Snapshots from one key frame to the next: how far a reader seeking to a snapshot may
have to apply deltas."""
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_KEEP = 5


def default_recording_path(now: float | None = None) -> Path:
    """``ndbtop-YYYYmmdd-HHMMSS.ndbrec`` (local time) in the private recordings directory,
    ``$XDG_STATE_HOME/ndbtop/recordings`` (``~/.local/state/ndbtop/recordings``, 0700),
    never in a shared current directory."""
    name = time.strftime("ndbtop-%Y%m%d-%H%M%S.ndbrec", time.localtime(now))
    return state_subdir("recordings") / name


class Recorder:
    """Appends snapshots and the events they carry to a recording file."""

    def __init__(
        self,
        path: Path,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        keep: int = DEFAULT_KEEP,
        source: str = "",
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self.source = source
        self._raw: IO[bytes] | None = None
        self._gz: gzip.GzipFile | None = None
        self._events_seen = 0
        self._previous: ClusterSnapshot | None = None
        self._since_key = 0
        self._series: dict[str, tuple[float | None, ...]] = {}
        self.snapshots = 0
        self._open()

    def _open(self) -> None:
        # A new 0600 file, never written through a link planted at its name.
        self._raw = create_private(self.path)
        self._previous = None
        self._series = {}
        self._member()
        self._line({"k": "header", "format": FORMAT, "ndbtop": __version__, "source": self.source})

    def _member(self) -> None:
        """Start a gzip member: a reader can decompress from here without what is before."""
        if self._gz is not None:
            self._gz.close()
        self._gz = gzip.GzipFile(fileobj=self._raw, mode="wb", compresslevel=6)

    def _line(self, record: dict[str, object]) -> None:
        assert self._gz is not None
        self._gz.write(dumps(record, separators=(",", ":")).encode() + b"\n")

    def write(self, snap: ClusterSnapshot) -> None:
        """Record a snapshot and the events it brought since the previous one.

        A file that outgrew ``max_bytes`` is rotated first, so that every file,
        the current one included, holds at least one snapshot.
        """
        assert self._raw is not None
        if self._previous is not None and self._raw.tell() >= self.max_bytes:
            self._rotate()
        key = self._previous is None or self._since_key >= KEY_EVERY
        if key and self._previous is not None:
            self._member()
        new = snap.events_total - self._events_seen
        if new > 0:
            for event in snap.events[-min(new, len(snap.events)) :]:
                self._line({"k": "event", "e": encode(event)})
        self._events_seen = snap.events_total
        body = dataclasses.replace(snap, events=(), history=())
        points = self._new_points(snap.history)
        if key:
            self._line({"k": "snap", "w": snap.wall, "s": encode(body), "h": points})
            self._since_key = 0
        else:
            patch: Any = diff(self._previous, body)
            fields = {} if patch is SAME else patch["@patch"]
            self._line({"k": "delta", "w": snap.wall, "s": fields, "h": points})
        self._previous = body
        self._since_key += 1
        self.snapshots += 1
        assert self._gz is not None and self._raw is not None
        self._gz.flush(zlib.Z_SYNC_FLUSH)
        self._raw.flush()
        os.fsync(self._raw.fileno())

    def _new_points(
        self, history: tuple[tuple[str, tuple[float | None, ...]], ...]
    ) -> list[list[object]]:
        """The newest point of each series that changed since the last snapshot recorded
        (a series that did not change is the same tuple)."""
        seen = self._series
        points: list[list[object]] = []
        for key, values in history:
            if seen.get(key) is not values:
                seen[key] = values
                points.append([key, list(values[-1:])])
        return points

    def _rotate(self) -> None:
        self.close()
        for i in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{i + 1}"))
        if self.keep > 0:
            self.path.replace(self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink()
        self._open()

    def close(self) -> None:
        """Finish the file (idempotent)."""
        if self._gz is not None:
            self._gz.close()
            self._gz = None
        if self._raw is not None:
            self._raw.close()
            self._raw = None
