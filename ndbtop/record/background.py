"""A recorder that writes in a worker thread, so that the event loop never waits for a disk.

Every snapshot written is synced to disk (``fsync``), and during an initial start the
data node's redo log writes may keep that disk busy for seconds: the live view and the
sources share the event loop, and must go on meanwhile. Snapshots are immutable, so a
worker thread can encode and write one while the loop carries on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.recorder import Recorder


class BackgroundRecorder:
    """Writes snapshots with a :class:`Recorder` in a worker thread, one at a time.

    A snapshot offered while the one before is still being written is skipped (and
    counted): the recording then has a gap rather than a queue that grows behind a
    slow disk. ``on_error`` is called on the event loop with the first write error
    (an ``OSError`` of the disk, or any other); nothing is written after it.
    """

    def __init__(
        self, recorder: Recorder, on_error: Callable[[Exception], None] | None = None
    ) -> None:
        self.recorder = recorder
        self.on_error = on_error
        self.skipped = 0
        self.error: Exception | None = None
        self._writing: asyncio.Future[None] | None = None

    @property
    def path(self) -> Path:
        """The recording's file."""
        return self.recorder.path

    @property
    def error_text(self) -> str | None:
        """The write error in a few words (an OSError by its reason), or None."""
        exc = self.error
        if exc is None:
            return None
        return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)

    @property
    def snapshots(self) -> int:
        """Snapshots written so far."""
        return self.recorder.snapshots

    def write(self, snap: ClusterSnapshot) -> None:
        """Start writing ``snap`` unless a write is under way (call on the event loop)."""
        if self.error is not None:
            return
        if self._writing is not None and not self._writing.done():
            self.skipped += 1
            return
        self._writing = asyncio.ensure_future(asyncio.to_thread(self.recorder.write, snap))
        self._writing.add_done_callback(self._written)

    def _written(self, done: asyncio.Future[None]) -> None:
        if done.cancelled():
            return
        exc = done.exception()
        if not isinstance(exc, Exception):
            return
        if self.error is None:
            self.error = exc
            if self.on_error is not None:
                self.on_error(exc)

    async def flush(self) -> None:
        """Wait for the write under way, if any."""
        if self._writing is not None:
            await asyncio.gather(self._writing, return_exceptions=True)

    async def close(self) -> None:
        """Finish the write under way, then the file; raises an OSError of closing."""
        await self.flush()
        await asyncio.to_thread(self.recorder.close)
