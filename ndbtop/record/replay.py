"""Playing a recording back through the same interface the live hub offers the view."""

from __future__ import annotations

import time
from collections.abc import Callable

from ndbtop.mgm.connectstring import ConnectString
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.reader import Recording

SPEEDS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


class _ReplayClock:
    def __init__(self, source: ReplaySource) -> None:
        self._source = source

    def monotonic(self) -> float:
        return self._source.current.taken_at

    def wall(self) -> float:
        return self._source.position


DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError)
"""What decoding a damaged or crafted recording raises."""


class ReplaySource:
    """A recording played at a chosen speed; pause, step and seek move its position.

    ``position`` is the recorded wall time on screen; the snapshot shown is the
    last one taken at or before it. Nothing is ever sent anywhere.
    """

    def __init__(self, recording: Recording, real: Callable[[], float] | None = None) -> None:
        self.recording = recording
        self._real = real or time.monotonic
        self.position = recording.start
        self.playing = True
        self.speed = 1.0
        self._index = 0
        self.damaged: str | None = None
        """Why the last snapshot asked for could not be shown."""
        self._current = recording.snapshot(0)
        self._last_real = self._real()
        self.interval = self._current.interval
        self.clock = _ReplayClock(self)
        self.connectstring = ConnectString((), source=str(recording.path))

    @property
    def current(self) -> ClusterSnapshot:
        """The snapshot at the position."""
        return self._current

    def _advance(self) -> None:
        now = self._real()
        if self.playing:
            self.position = min(
                self.position + (now - self._last_real) * self.speed, self.recording.end
            )
            if self.position >= self.recording.end:
                self.playing = False
        self._last_real = now
        index = self.recording.index_at(self.position)
        if index != self._index:
            self._index = index
            try:
                self._current = self.recording.snapshot(index)
            except DAMAGE as exc:
                # A damaged snapshot (recordings come attached to tickets): the one before
                # stays on screen, and the header says why.
                self.damaged = f"snapshot {index + 1} damaged ({exc})"
                self.playing = False

    def snapshot(self) -> ClusterSnapshot:
        """The snapshot to show now."""
        self._advance()
        return self._current

    def freshness_now(self) -> float:
        """Ages as they were when the snapshot was recorded."""
        return self._current.taken_at

    def toggle(self) -> None:
        """Play or pause."""
        self._advance()
        if not self.playing and self.position >= self.recording.end:
            self.position = self.recording.start
        self.playing = not self.playing

    def step(self, count: int) -> None:
        """Pause and move ``count`` snapshots forward (or back)."""
        self._advance()
        self.playing = False
        index = max(0, min(self._index + count, len(self.recording) - 1))
        self.position = self.recording.wall(index)
        self._advance()

    def seek(self, seconds: float) -> None:
        """Move the position by ``seconds`` of recorded time."""
        self._advance()
        self.position = max(self.recording.start, min(self.position + seconds, self.recording.end))
        self._advance()

    def change_speed(self, step: int) -> float:
        """Next faster (+1) or slower (-1) speed; returns it."""
        i = min(range(len(SPEEDS)), key=lambda k: abs(SPEEDS[k] - self.speed))
        self.speed = SPEEDS[max(0, min(i + step, len(SPEEDS) - 1))]
        return self.speed

    @property
    def ended(self) -> bool:
        """Stopped on the last snapshot (space plays it again from the start)."""
        return not self.playing and self.position >= self.recording.end

    def describe(self) -> str:
        """``▶ x4 12:24:16 (3m10s of 41m02s)`` for the header; ``⏹ ... end`` once over
        (``damaged after this`` when the recording could not be read further)."""
        done = self.position - self.recording.start
        total = self.recording.end - self.recording.start
        state = "▶" if self.playing else "⏹" if self.ended else "⏸"
        at = time.strftime("%H:%M:%S", time.localtime(self.position))
        end = ""
        if self.ended:
            end = " end of recording" if self.recording.damage is None else " damaged after this"
        if self.damaged:
            end += f" ({self.damaged})"
        return (
            f"{state} x{self.speed:g} {at} ({int(done) // 60}m{int(done) % 60:02d}s of "
            f"{int(total) // 60}m{int(total) % 60:02d}s){end}"
        )

    async def start(self) -> None:
        """Nothing runs in the background."""

    async def stop(self) -> None:
        """Nothing to stop."""

    def refresh_now(self) -> None:
        """Nothing to refresh."""

    def set_interval(self, interval: float) -> None:
        """The screen refresh interval."""
        self.interval = interval

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Recorded states change with the position, at the screen's own refreshes."""

    def want_threads(self, wanted: bool) -> None:
        """A recording holds what was read."""
