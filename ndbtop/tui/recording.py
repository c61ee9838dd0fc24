"""The flight recorder of the live view (``R``): every refresh's snapshot to a file."""

from __future__ import annotations

import contextlib
from pathlib import Path

from ndbtop.errors import FileError
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.background import BackgroundRecorder
from ndbtop.record.recorder import Recorder, default_recording_path
from ndbtop.tui.hosts import RecordingHost


class Recording:
    """Starts, feeds and stops the recordings of one live view."""

    def __init__(self, app: RecordingHost) -> None:
        self.app = app
        self.recorder: BackgroundRecorder | None = None
        """The flight recorder while ``R`` records, else None."""
        self.paths: list[Path] = []
        """Every file ``R`` recorded to in this session."""

    async def toggle(self) -> None:
        """Start recording every refresh's snapshot to a new file, or stop."""
        app = self.app
        if app.hub is None:
            return
        if self.recorder is not None:
            await self.stop()
            return
        source = f"simulated {app.simulated}" if app.simulated else str(app.hub.connectstring)
        try:
            path = default_recording_path()
        except FileError as exc:  # the state directory is refused: see ndbtop.files
            app.notify(f"cannot record: {exc}", severity="error", timeout=10)
            return
        try:
            recorder = Recorder(path, source=source)
        except OSError as exc:
            app.notify(f"cannot record to {path}: {exc.strerror}", severity="error", timeout=10)
            return
        except FileError as exc:
            app.notify(f"cannot record to {path}: {exc}", severity="error", timeout=10)
            return
        self.recorder = BackgroundRecorder(recorder, on_error=self._failed)
        self.paths.append(path)
        app.notify(f"recording to {path} (R stops)", timeout=4)
        # The file holds a snapshot at once: a recording without any cannot be replayed.
        self.write(app.hub.snapshot())
        app.show_recording(path.name)

    def write(self, snap: ClusterSnapshot) -> None:
        """Record ``snap`` (while recording)."""
        if self.recorder is not None:
            self.recorder.write(snap)

    def _failed(self, _: Exception) -> None:
        if self.recorder is None:
            return
        self.app.notify(f"recording stopped: {self.recorder.path}: {self.recorder.error_text}",
                        severity="error", timeout=10)
        self.app.call_later(self.stop, quiet=True)

    async def stop(self, *, quiet: bool = False) -> None:
        """Stop recording and say where it went (unless ``quiet``)."""
        recorder = self.recorder
        if recorder is None:
            return
        self.recorder = None
        try:
            await recorder.close()
        except OSError:
            quiet = True
        if not quiet:
            self.app.notify(
                f"recorded {recorder.snapshots} snapshots to {recorder.path}", timeout=6
            )
        self.app.show_recording(None)

    async def close(self) -> None:
        """Close the recording as the view ends (nowhere left to report a failure)."""
        if self.recorder is not None:
            with contextlib.suppress(Exception):
                await self.recorder.close()
            self.recorder = None
