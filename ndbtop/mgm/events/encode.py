"""Events as the management server writes them to listeners (for the simulated ndb_mgmd).

``words`` follow the convention of :mod:`ndbtop.mgm.events.text`: ``words[0]``
is signal word 1; a word a body key needs past the end reads as 0.

Parsable form (Services.cpp ``logevent2str``): the block header, then per body
key ``key=%d`` of its word (``starting_node`` of the backup events through
``ref_to_node``), or one ``data=`` line with every word as ``%u `` when the type
has no body keys. Text form: ``Node <id>: <text>``; for a type with an ``error``
key the listener copy ends with `` - <ndb_error_string(error)>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndbtop.mgm.errorcodes import ndb_error_string
from ndbtop.mgm.event_stream import format_event_block
from ndbtop.mgm.events.catalogue import CATALOGUE
from ndbtop.mgm.events.text import MASK32, event_text, node_prefix, ref_to_node, to_int32
from ndbtop.mgm.wire import ENCODING

PRETTY_TEXT_CHARS = 511
"""The server builds the listener text in a 512-byte buffer."""

NO_ERROR_TEXT = "No error: Success: No error"
"""``ndb_error_string(0)``."""


def _word(words: Sequence[int], index: int) -> int:
    return words[index - 1] & MASK32 if 1 <= index <= len(words) else 0


def parsable_body(event_type: int, words: Sequence[int]) -> list[tuple[str, str]]:
    """The body lines ``logevent2str`` prints for an event, as (key, value) pairs.

    A type outside the catalogue gets the ``data=`` form, which is what
    ``logevent2str`` would print; a real server drops such events before that.
    """
    spec = CATALOGUE.get(event_type)
    if spec is None or spec.data_form:
        return [("data", "".join(f"{w & MASK32} " for w in words))]
    out = []
    for key, index in spec.body:
        value = to_int32(_word(words, index))
        if key in spec.node_ref_keys:
            value = ref_to_node(value)
        out.append((key, str(value)))
    return out


def encode_parsable(event_type: int, source_node: int, words: Sequence[int]) -> bytes:
    """A whole ``log event reply`` block, ended by its empty line (``time`` is always 0)."""
    return format_event_block(event_type, source_node, parsable_body(event_type, words))


def listener_error_text(code: int) -> str:
    """``ndb_error_string`` as appended to listener texts (code as ``%d``)."""
    return NO_ERROR_TEXT if code == 0 else ndb_error_string(code)


def listener_text(event_type: int, source_node: int, words: Sequence[int]) -> str:
    """The text-mode line of an event, without its ``\\n``."""
    text = (node_prefix(source_node) + event_text(event_type, words))[:PRETTY_TEXT_CHARS]
    spec = CATALOGUE.get(event_type)
    if spec is not None:
        for key, index in spec.body:
            if key == "error":
                # ndb_error_string writes at most (room - 2) characters after " - ".
                room = PRETTY_TEXT_CHARS + 1 - len(text) - 3
                error = listener_error_text(to_int32(_word(words, index)))
                text = f"{text} - {error[: max(0, room - 2)]}"
    return text


def encode_text(event_type: int, source_node: int, words: Sequence[int]) -> bytes:
    """What a text-mode listener receives for an event: ``Node <id>: <text>\\n``."""
    return (listener_text(event_type, source_node, words) + "\n").encode(ENCODING)
