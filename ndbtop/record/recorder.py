"""The flight recorder: every snapshot and every event, compressed, size-bounded.

A recording is gzip-compressed JSON lines: a header, then ``snap`` records
(a snapshot without its event list and with only the newest value of each time
series) and ``event`` records (each event once). The compressed stream is
sync-flushed after every snapshot, so a killed process loses at most the last
one. When a file outgrows ``max_bytes`` it becomes ``FILE.1`` (older ones shift
to ``.2`` ...), keeping ``keep`` old files. Snapshots hold no password.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import time
import zlib
from pathlib import Path
from typing import IO

from ndbtop import __version__
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.codec import encode

FORMAT = 1
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_KEEP = 5


def default_recording_path(now: float | None = None) -> Path:
    """``ndbtop-YYYYmmdd-HHMMSS.ndbrec`` (local time) in the current directory.

    When the current directory is not writable the file goes to
    ``$XDG_STATE_HOME/ndbtop/recordings`` (``~/.local/state/ndbtop/recordings``).
    """
    name = time.strftime("ndbtop-%Y%m%d-%H%M%S.ndbrec", time.localtime(now))
    if os.access(".", os.W_OK):
        return Path.cwd() / name
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ndbtop" / "recordings" / name


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
        self.snapshots = 0
        self._open()

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._raw = open(self.path, "wb")  # noqa: SIM115
        self._gz = gzip.GzipFile(fileobj=self._raw, mode="wb", compresslevel=6)
        self._line({"k": "header", "format": FORMAT, "ndbtop": __version__, "source": self.source})

    def _line(self, record: dict[str, object]) -> None:
        assert self._gz is not None
        self._gz.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")

    def write(self, snap: ClusterSnapshot) -> None:
        """Record a snapshot and the events it brought since the previous one."""
        new = snap.events_total - self._events_seen
        if new > 0:
            for event in snap.events[-min(new, len(snap.events)) :]:
                self._line({"k": "event", "e": encode(event)})
        self._events_seen = snap.events_total
        body = dataclasses.replace(
            snap, events=(), history=tuple((key, values[-1:]) for key, values in snap.history)
        )
        self._line({"k": "snap", "s": encode(body)})
        self.snapshots += 1
        assert self._gz is not None and self._raw is not None
        self._gz.flush(zlib.Z_SYNC_FLUSH)
        self._raw.flush()
        os.fsync(self._raw.fileno())
        if self._raw.tell() >= self.max_bytes:
            self._rotate()

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
