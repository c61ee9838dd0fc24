"""What every view offers the app: render a snapshot, filter, sort, copy, selected node."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.safe import AnyText, Plain


class View(Vertical):
    """A tab's content, rendered from immutable snapshots only."""

    title = ""
    short_title = ""
    """The tab's label on a screen too narrow for every full title (the title if empty)."""
    sort_modes: tuple[str, ...] = ()

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.filter_text = ""
        self.sort_index = 0
        self.snapshot: ClusterSnapshot | None = None
        self._put_cache: dict[str, object] = {}
        self.drawn_for: int | None = None
        """The node that was selected when the view was last drawn."""
        self.wall: Callable[[], float] | None = None
        """The wall time timers count to (the app's clock), for a redraw the view starts
        itself when a key moves its cursor; None: the time of the snapshot."""
        self._rendering = False

    @property
    def sort_mode(self) -> str:
        """The current sort order's name."""
        return self.sort_modes[self.sort_index] if self.sort_modes else ""

    def show(self, snap: ClusterSnapshot, now: float) -> None:
        """Render ``snap``; ``now`` is the wall time timers count to."""
        self.snapshot = snap
        self._rendering = True
        try:
            self.render_snapshot(snap, now)
        finally:
            self._rendering = False
        self.drawn_for = self.selected_node()

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        """Subclasses draw here."""

    def redraw(self, now: float) -> None:
        """Draw the last snapshot again (after a filter or sort change)."""
        if self.snapshot is not None:
            self.show(self.snapshot, now)

    def on_mount(self) -> None:
        """Follow the cursor of every table of the view."""
        for table in self.query(DataTable):
            self.watch(table, "cursor_coordinate", self._cursor_moved, init=False)

    def _cursor_moved(self) -> None:
        # A key moved the cursor to another node: what depends on the selection is drawn
        # in the same pass as the cursor, so both reach the screen in one update. (The
        # table's highlight message bubbles up to the app a few steps later, after the
        # screen may have been sent with the cursor alone, and the next update then waits
        # for the next frame of the screen's timer.)
        if self._rendering or self.snapshot is None:
            return
        if self.selected_node() != self.drawn_for:
            self.redraw(self.wall() if self.wall is not None else self.snapshot.wall)

    def put(self, selector: str, content: object, *, layout: bool = True) -> None:
        """Show ``content`` in the Static at ``selector``.

        Text identical to what is shown is not sent again, and ``layout=False`` (for
        widgets of a fixed height) spares the whole screen a layout pass: both matter
        at every refresh of a large cluster.
        """
        shown = self._put_cache.get(selector)
        if isinstance(content, AnyText) and isinstance(shown, AnyText) and content == shown:
            return
        if isinstance(content, str) and content == shown:
            return
        self._put_cache[selector] = content
        self._put_cache.pop(f"{selector}:key", None)
        self.query_one(selector, Static).update(content, layout=layout)  # type: ignore[arg-type]

    def put_keyed(self, selector: str, key: object, draw: Callable[[], object]) -> None:
        """Show what ``draw`` makes in the Static at ``selector``, only when ``key`` (all
        that it is made from) changed since it was last shown: a table that did not
        change is neither built again nor laid out at every refresh."""
        slot = f"{selector}:key"
        if slot in self._put_cache and key == self._put_cache[slot]:
            return
        self._put_cache[slot] = key
        self._put_cache.pop(selector, None)
        self.query_one(selector, Static).update(draw())  # type: ignore[arg-type]

    def focus_table(self) -> None:
        """Give the keyboard to the view's first shown table, else to what scrolls in it.

        The focus must leave the view that was visible before: a focused widget in
        a hidden tab makes the tabs switch back to it at the next focus change.
        """
        shown = [w for w in self.query(DataTable) if w.display]
        shown = shown or [w for w in self.query("*") if w.can_focus and w.display]
        if shown:
            shown[0].focus()
        else:
            self.screen.set_focus(None)

    def next_sort(self) -> str:
        """Switch to the next sort order; returns its name."""
        if self.sort_modes:
            self.sort_index = (self.sort_index + 1) % len(self.sort_modes)
        return self.sort_mode

    def selected_node(self) -> int | None:
        """The data node the cursor is on, if any."""
        return None

    def copy_text(self) -> str | None:
        """What ``y`` copies from this view (None: the whole report)."""
        return None

    def matches(self, *values: object) -> bool:
        """True when the filter is empty or appears in any of ``values`` (case-insensitive)."""
        if not self.filter_text:
            return True
        needle = self.filter_text.lower()
        return any(needle in str(v).lower() for v in values)


class PanelsView(View):
    """A view of a few panels of text, one under the other, that scroll together."""

    panels: tuple[str, ...] = ()
    """The ids of the panels, top to bottom."""

    DEFAULT_CSS = """
    PanelsView #scroll { height: 1fr; }
    PanelsView Static { padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            for panel in self.panels:
                yield Plain(id=panel)
