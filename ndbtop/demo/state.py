"""The demo's own state: a private temporary directory for one run, never the user's.

The demo and ``record --demo`` act on a simulated cluster. What they would otherwise keep
in the state directory (``~/.local/state/ndbtop``), the start history and the audit log,
goes to a new directory under ``$TMPDIR`` (``ndbtop-demo-XXXXXXXX``, mode 0700) removed when
the run ends: a demo never shows the starts of an earlier one as "last time", and never
adds to the user's history or audit log. A recording made with ``R`` is the user's file and
goes to the recordings directory as in the live view.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ndbtop.compat import SLOTS

PREFIX = "ndbtop-demo-"
"""How the name of a demo's state directory begins."""


@dataclass(frozen=True, **SLOTS)
class DemoState:
    """Where one demo run keeps its state."""

    directory: Path

    @property
    def history_dir(self) -> Path:
        """The start history of the run's clusters."""
        return self.directory / "history"

    @property
    def audit_path(self) -> Path:
        """The audit log of the actions on the simulated clusters."""
        return self.directory / "audit.log"


@contextlib.contextmanager
def demo_state() -> Iterator[DemoState]:
    """A new private state directory for one demo run, removed with what is in it after."""
    directory = Path(tempfile.mkdtemp(prefix=PREFIX))
    try:
        state = DemoState(directory)
        state.history_dir.mkdir(mode=0o700)
        yield state
    finally:
        shutil.rmtree(directory, ignore_errors=True)
