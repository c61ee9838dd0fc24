"""The bottom line: the keys that work now, drawn as one line of text."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

from ndbtop.tui.safe import Text

PINNED = ("F", "slash", "question_mark", "q")
"""Keys the bar always shows, however narrow, in this order at its end: the fleet overview
(where there is one), filter, help and quit."""


class KeyBar(Widget):
    """The active bindings of the screen (``key description``), clickable.

    Textual's ``Footer`` builds one widget per key and builds them all again
    at every change of focus, which is a large part of the first screen's
    time; this draws the same keys as a single line.
    """

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    KeyBar > .keybar--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyBar > .keybar--description {
        color: $footer-description-foreground;
    }
    KeyBar > .keybar--disabled {
        text-style: dim;
    }
    """
    COMPONENT_CLASSES = {"keybar--key", "keybar--description", "keybar--disabled"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        """Draw again whenever the screen's bindings change (focus, check_action)."""
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.refresh()

    def entries(self) -> list[tuple[str, str, bool, str]]:
        """``(keys shown, description, enabled, key)`` for each entry, in binding order.

        Bindings of one action are shown once; a group's keys share its description
        (``key`` is then the first one's, what a click presses). The keys that work
        everywhere (the app's) come first, then the screen's, then those of the
        widgets in it; help and quit close the line.
        """
        out: list[tuple[str, str, bool, str]] = []
        seen: set[str] = set()
        group: Binding.Group | None = None
        active = sorted(
            self.screen.active_bindings.values(),
            key=lambda a: (_pinned(a.binding), len(a.node.ancestors)),
        )
        for _node, binding, enabled, _tooltip in active:
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            key = self.app.get_key_display(binding)
            if binding.group is not None and binding.group is group and out:
                shown, description, was_enabled, first = out[-1]
                out[-1] = (f"{shown} {key}", description, was_enabled and enabled, first)
                continue
            group = binding.group
            description = binding.group.description if binding.group else binding.description
            out.append((key, description, enabled, binding.key.split(",")[0]))
        return out

    def render(self) -> Text:
        """The keys, each as `` key description ``; ``^p palette`` at the right.

        When the line is too narrow for every key, ``F``, ``/``, ``?`` and ``q`` (the fleet,
        filter, and help and quit, the keys that get a lost user out) stay at the right and
        the others give way.
        """
        key_style = self.get_component_rich_style("keybar--key")
        description_style = self.get_component_rich_style("keybar--description")
        disabled_style = self.get_component_rich_style("keybar--disabled")
        width = self.size.width

        def segment(entry: tuple[str, str, bool, str]) -> Text:
            shown, description, enabled, _ = entry
            part = Text.assemble((f" {shown} ", key_style), (f"{description} ",
                                                              description_style))
            if not enabled:
                part.stylize(disabled_style)
            return part

        entries = self.entries()
        parts = [(segment(e), e[3]) for e in entries]
        if width and sum(len(p) for p, _ in parts) > width:
            pinned = [(p, k) for p, k in parts if k in PINNED]
            room = width - sum(len(p) for p, _ in pinned)
            left: list[tuple[Text, str]] = []
            for part, key in parts:
                if key in PINNED:
                    continue
                if len(part) > room:
                    break
                left.append((part, key))
                room -= len(part)
            parts = left + pinned
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        self._spans = []
        pinned_from = next((i for i, (_, k) in enumerate(parts) if k in PINNED), len(parts))
        for i, (part, key) in enumerate(parts):
            if i == pinned_from and len(parts) < len(entries):
                text.append(" " * max(width - len(text) - sum(len(p) for p, _ in parts[i:]), 0))
            start = len(text)
            text.append_text(part)
            self._spans.append((start, len(text), key))
        palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            binding = palette[1]
            right = Text.assemble(
                "▏", (f"{self.app.get_key_display(binding)} ", key_style),
                (f"{binding.description} ", description_style),
            )
            body = text.copy()
            body.rstrip()
            pad = width - len(body) - len(right)
            if pad >= 0:
                text = body
                text.append(" " * pad)
                start = len(text)
                text.append_text(right)
                self._spans.append((start, len(text), binding.key.split(",")[0]))
        return text

    def on_click(self, event: events.Click) -> None:
        """A click on a key presses it."""
        for start, end, key in self._spans:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return


def _pinned(binding: Binding) -> int:
    """0 for a key that may give way, else its place among the pinned keys (from 1)."""
    key = binding.key.split(",")[0]
    return PINNED.index(key) + 1 if key in PINNED else 0
