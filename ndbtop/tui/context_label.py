"""The context's label: its name in its colour, in the header and the fleet overview.

Without colour (``NO_COLOR``) the name still shows, and a production context says so in
words: colour is never the only sign of where an action lands.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.tui.safe import Text

_LIGHT = frozenset({"yellow", "cyan", "white", "green", "bright_black", "bright_red",
                    "bright_green", "bright_yellow", "bright_blue", "bright_magenta",
                    "bright_cyan", "bright_white"})


@dataclass(frozen=True)
class ContextLabel:
    """What the screen shows of the context a view or an action is on."""

    name: str
    color: str | None = None
    production: bool = False
    read_only: bool = False


def _foreground(color: str) -> str:
    if color.startswith("#"):
        r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
        return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "white"
    return "black" if color in _LIGHT else "white"


def label_text(label: ContextLabel, *, short: bool = False) -> Text:
    """`` prod `` on the context's colour (bold reverse without one), `` PRODUCTION``
    after it for a production context; ``short`` the name alone."""
    style = (f"bold {_foreground(label.color)} on {label.color}" if label.color
             else "bold reverse")
    out = Text(f" {label.name} ", style=style)
    if label.production and not short:
        out.append(" PRODUCTION", style="bold red")
    return out
