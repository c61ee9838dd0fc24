"""The heat grid's characters: a thread's CPU as one character's height and colour."""

from __future__ import annotations

from ndbtop.tui.safe import Text

_HEAT = " ▁▂▃▄▅▆▇█"


def fit(text: str, room: int) -> str:
    """``text`` cut to ``room`` characters, with an ellipsis when cut."""
    return text if len(text) <= room else text[: room - 1] + "…"


def heat_char(pct: float) -> tuple[str, str]:
    """One character and its colour for a thread: height and colour show its CPU."""
    char = _HEAT[max(1, min(int(pct / 100 * (len(_HEAT) - 1) + 0.5), len(_HEAT) - 1))]
    return char, "red" if pct >= 90 else "yellow" if pct >= 60 else "green"


_HEAT_LOOKS = tuple(dict.fromkeys(heat_char(quarter / 4) for quarter in range(401)))
"""Every (character, colour) heat_char() gives."""
_HEAT_BY_QUARTER = bytes(_HEAT_LOOKS.index(heat_char(q / 4)) for q in range(401))
"""The index in _HEAT_LOOKS of heat_char() at every quarter of a percent: the steps of
heat_char() all fall on quarters, so this table gives it for any percentage."""


def heat_looks(pcts: list[float]) -> bytes:
    """The heat of each percentage, as indexes in the table of heat looks."""
    table = _HEAT_BY_QUARTER
    return bytes(
        [table[0 if q < 0 else 400 if q > 400 else q] for q in [int(p * 4) for p in pcts]]
    )


def heat_text(looks: bytes) -> Text:
    """Heat looks (from :func:`heat_looks`) as one line, neighbours of one colour in one
    span."""
    text = Text()
    run = ""
    style = ""
    for index in looks:
        char, colour = _HEAT_LOOKS[index]
        if colour != style and run:
            text.append(run, style=style)
            run = ""
        run += char
        style = colour
    if run:
        text.append(run, style=style)
    return text


def heat_row(pcts: list[float]) -> Text:
    """A node's threads as one line of characters, neighbours of one colour in one span."""
    return heat_text(heat_looks(pcts))
