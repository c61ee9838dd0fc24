"""The bottom line: the keys that work now, drawn as one line of text."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget


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
        (``key`` is then the first one's, what a click presses).
        """
        out: list[tuple[str, str, bool, str]] = []
        seen: set[str] = set()
        group: Binding.Group | None = None
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
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
        """The keys, each as `` key description ``; ``^p palette`` at the right."""
        key_style = self.get_component_rich_style("keybar--key")
        description_style = self.get_component_rich_style("keybar--description")
        disabled_style = self.get_component_rich_style("keybar--disabled")
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        self._spans = []
        for shown, description, enabled, key in self.entries():
            start = len(text)
            text.append(f" {shown} ", key_style)
            text.append(f"{description} ", description_style)
            if not enabled:
                text.stylize(disabled_style, start)
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
            pad = self.size.width - len(body) - len(right)
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
