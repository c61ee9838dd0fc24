"""A checkbox whose state shows without colour."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class MarkedCheckbox(Checkbox):
    """``▐X▌`` when checked and ``▐ ▌`` when not: the state is in the character, not only
    in its colour (``--no-color``, monochrome terminals, screen readers)."""

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super()._button
