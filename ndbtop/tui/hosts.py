"""What the screens, the action flow and the recorder need from the app that holds them.

The app (:class:`~ndbtop.tui.app.NdbtopApp`) composes them and gives each itself; each
names here only what it uses, so none of them imports the app (the app imports them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen
    from textual.worker import Worker, WorkerManager

    from ndbtop.actions.audit import AuditLog
    from ndbtop.model.snapshot import ClusterSnapshot
    from ndbtop.record.background import BackgroundRecorder
    from ndbtop.tui.source import SnapshotSource
    from ndbtop.tui.views.base import View


class Notifies(Protocol):
    """Shows a notification (never markup)."""

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Show ``message``."""


class AsksActions(Protocol):
    """Begins the action a key names (:meth:`ndbtop.tui.action_flow.ActionFlow.ask`)."""

    def ask(self, name: str) -> None:
        """Begin ``name`` (``restart``, ``stop``...)."""


class TogglesRecording(Protocol):
    """Starts or stops the flight recorder (:class:`ndbtop.tui.recording.Recording`)."""

    async def toggle(self) -> None:
        """Start recording, or stop."""


class ViewsHost(Notifies, Protocol):
    """What the screen of the views uses: the data, the settings, the action and record
    keys' handlers, and a way to draw now."""

    hub: SnapshotSource | None
    read_only: bool
    flow: AsksActions
    recording: TogglesRecording

    @property
    def recorder(self) -> BackgroundRecorder | None:
        """The flight recorder while ``R`` records, else None."""

    def live_snapshot(self) -> ClusterSnapshot:
        """The newest snapshot, whatever is on screen."""

    def tick(self) -> None:
        """Draw the newest snapshot now."""


class FlowHost(Notifies, Protocol):
    """What the action flow uses: the data, the settings, the screens, and the app's
    workers and exit."""

    hub: SnapshotSource | None
    read_only: bool
    audit: AuditLog
    rolling_node_timeout: float
    rolling_poll: float
    notes_on_exit: list[str]

    @property
    def screen_stack(self) -> list[Screen[Any]]:
        """The screens, the views' first."""

    @property
    def screen(self) -> Screen[Any]:
        """The screen on top."""

    @property
    def workers(self) -> WorkerManager:
        """The app's workers."""

    @property
    def current_view(self) -> View:
        """The visible view."""

    def live_snapshot(self) -> ClusterSnapshot:
        """The newest snapshot, whatever is on screen."""

    def push_screen(self, screen: Any, callback: Any = None, *args: Any,
                    **kwargs: Any) -> Any:
        """Show ``screen`` on top; ``callback`` gets what it is dismissed with."""

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Worker[Any]:
        """Run ``work`` in the background."""

    def exit(self, result: Any = None, *args: Any, **kwargs: Any) -> None:
        """End the live view."""


class RecordingHost(Notifies, Protocol):
    """What the flight recorder uses: the data, what the recording is of, and a way to
    show that it records."""

    hub: SnapshotSource | None
    simulated: str | None

    def show_recording(self, name: str | None) -> None:
        """Show that ``name`` is being recorded (None: nothing is), and draw."""

    def call_later(self, callback: Callable[..., Awaitable[None] | None], *args: Any,
                   **kwargs: Any) -> bool:
        """Run ``callback`` soon, on the app's loop."""
