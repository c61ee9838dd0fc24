"""What every ndbtop app does the same way: notifications that are never markup, and an
internal error kept in a private crash report rather than printed on the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel

from ndbtop.errors import FileError
from ndbtop.files import write_crash_report
from ndbtop.sanitise import sanitise


class GuardedApp(App[Any]):
    """A Textual app whose notifications are plain text and whose crash is reported."""

    crash: BaseException | None = None
    """The internal error that ended the app, if one did."""
    crash_report: Path | None = None
    """Where its traceback was written."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notification, never markup: messages quote servers and files."""
        super().notify(
            sanitise(message), title=sanitise(title), severity=severity, timeout=timeout,
            markup=False,
        )

    def _fatal_error(self) -> None:
        # An internal error: the traceback goes to a private crash report, not to the
        # terminal (it may quote what a server sent); the launcher names the report.
        error = self._exception
        if error is not None:
            self.crash = error
            try:
                self.crash_report = write_crash_report(error)
            except (OSError, FileError):
                self.crash_report = None
        self._close_messages_no_wait()
