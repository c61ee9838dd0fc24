"""The field where a dangerous action's confirmation is typed: framed, and Enter confirms."""

from __future__ import annotations

from typing import Any

from textual.widgets import Button, Input


class TypedConfirm(Input):
    """An input with a visible frame; Enter presses the dialog's action button once that
    button is enabled (the typed text matches and the action is allowed), as a click would.

    ``button`` is the id of the button Enter presses.
    """

    DEFAULT_CSS = """
    TypedConfirm { border: tall $warning; width: 1fr; height: 3; margin-top: 1; }
    TypedConfirm:focus { border: tall $accent; }
    """

    def __init__(self, *, button: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.button = button

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: the action button, if it may be pressed; otherwise nothing is sent."""
        event.stop()
        button = self.screen.query_one(f"#{self.button}", Button)
        if not button.disabled and button.display:
            button.press()
        else:
            self.app.bell()
