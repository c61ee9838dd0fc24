"""Events on the wire: the golden vectors of the protocol reference, both directions,
and property tests of encode -> EventStreamParser -> decode."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.mgm.event_stream import PING, EventStreamParser, TextEventLine
from ndbtop.mgm.events import (
    CATALOGUE,
    decode_event,
    decode_text_line,
    encode_parsable,
    encode_text,
    event_text,
    parsable_body,
    parse_filter,
)
from ndbtop.mgm.events.encode import listener_text
from ndbtop.mgm.events.filters import FilterRejected
from ndbtop.mgm.wire import LineBuffer, RawEvent, Reply, ReplyParser, format_block

U32 = st.integers(min_value=0, max_value=0xFFFFFFFF)


def stream_items(data: bytes, max_chars: int = 510) -> list[object]:
    parser = EventStreamParser()
    items = []
    for line in LineBuffer(max_chars).feed(data):
        item = parser.feed(line)
        if item is not None:
            items.append(item)
    return items


# Golden vector 18: listen event, parsable and text.

GOLDEN_18_EVENT = b"log event reply\ntype=13\ntime=0\nsource_nodeid=3\nphase=4\nstarttype=0\n\n"


def test_golden_18_encode() -> None:
    assert encode_parsable(13, 3, [4, 0]) == GOLDEN_18_EVENT
    assert encode_text(13, 3, [4, 0]) == b"Node 3: Start phase 4 completed (initial start)\n"


def test_golden_18_decode() -> None:
    items = stream_items(b"<PING>\n" + GOLDEN_18_EVENT)
    assert items[0] == PING
    raw = items[1]
    assert raw == RawEvent(13, 0, 3, (("phase", "4"), ("starttype", "0")))
    event = decode_event(raw, 1700000000.5)
    assert (event.name, event.source_node, event.known, event.malformed) == (
        "StartPhaseCompleted",
        3,
        True,
        False,
    )
    assert event.fields == (("phase", 4), ("starttype", 0))
    assert event.words == (4, 0)
    assert event.text == "Start phase 4 completed (initial start)"
    assert event.received_at == 1700000000.5


def test_golden_18_filter_with_repeated_category() -> None:
    parsed = parse_filter("STARTUP=15 STATISTICS=5 250=7")
    assert not isinstance(parsed, FilterRejected)
    assert parsed.level(250) == 7
    assert parsed.level(252) == 5


def test_golden_18_text_line_decodes() -> None:
    (item,) = stream_items(b"Node 3: Start phase 4 completed (initial start)\n")
    assert isinstance(item, TextEventLine)
    event = decode_text_line(item.line, 5.0)
    assert (event.source_node, event.text, event.known, event.malformed) == (
        3,
        "Start phase 4 completed (initial start)",
        False,
        False,
    )


# Golden vector 19: listen errors, inside the server's reply block.


def test_golden_19_listen_errors() -> None:
    for spec, expected in [
        ("WARNING=7", b"listen event\nresult: -1\nmsg: Unknown category: >WARNING<\n\n"),
        (
            "STARTUP",
            b"listen event\nresult: -1\n"
            b"msg: Invalid filter specification: >STARTUP< >STARTUP< 1\n\n",
        ),
    ]:
        rejected = parse_filter(spec)
        assert isinstance(rejected, FilterRejected)
        reply = format_block("listen event", [("result", -1), ("msg", rejected.message)])
        assert reply == expected


# Golden vector 20: a type without body keys and a signal of length 1.

GOLDEN_20 = b"log event reply\ntype=18\ntime=0\nsource_nodeid=3\ndata=\n\n"


def test_golden_20_encode_and_decode() -> None:
    assert encode_parsable(18, 3, []) == GOLDEN_20
    (raw,) = stream_items(GOLDEN_20)
    event = decode_event(raw, 0.0)
    assert (event.name, event.words, event.fields, event.malformed) == (
        "NDBStopAborted",
        (),
        (),
        False,
    )
    assert event.text == "Node shutdown aborted"


def test_data_form_words_keep_their_trailing_space() -> None:
    assert parsable_body(60, [1, 0xFFFFFFFF]) == [("data", "1 4294967295 ")]
    (raw,) = stream_items(encode_parsable(60, 2, [1, 0xFFFFFFFF]))
    assert decode_event(raw, 0.0).words == (1, 0xFFFFFFFF)


# Golden vector 21: Connected, raised by the mgmd itself.

GOLDEN_21 = b"log event reply\ntype=0\ntime=0\nsource_nodeid=1\nnode=3\n\n"


def test_golden_21_encode_and_decode() -> None:
    assert encode_parsable(0, 1, [3]) == GOLDEN_21
    (raw,) = stream_items(GOLDEN_21)
    event = decode_event(raw, 0.0)
    assert (event.source_node, event.get("node"), event.text) == (1, 3, "Node 3 Connected")
    assert encode_text(0, 1, [3]) == b"Node 1: Node 3 Connected\n"


# Golden vector 22: dump events for REPORT MEMORY.

GOLDEN_22_REPLY = b"dump events reply\nresult: Ok\nevents: 2\n\n"
GOLDEN_22_DATA = (
    b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=32768\n"
    b"pages_used=64\npages_total=1280\nblock=249\n\n"
)
GOLDEN_22_INDEX = GOLDEN_22_DATA.replace(b"block=249", b"block=248")


def test_golden_22_encode() -> None:
    assert encode_parsable(50, 2, [0, 32768, 64, 1280, 249]) == GOLDEN_22_DATA
    assert encode_parsable(50, 2, [0, 32768, 64, 1280, 248]) == GOLDEN_22_INDEX


def test_golden_22_decode() -> None:
    lines = LineBuffer().feed(GOLDEN_22_REPLY + GOLDEN_22_DATA + GOLDEN_22_INDEX)
    replies = ReplyParser()
    reply = None
    while reply is None:
        reply = replies.feed(lines.pop(0))
    assert isinstance(reply, Reply)
    assert reply.require_int("events") == 2
    parser = EventStreamParser()
    events = []
    for line in lines:
        item = parser.feed(line)
        if item is not None:
            events.append(decode_event(item, 0.0))
    assert [e.text for e in events] == [
        "Data usage is 5%(64 32K pages of total 1280)",
        "Index usage is 5%(64 32K pages of total 1280)",
    ]
    assert events[0].field_map == {
        "gth": 0,
        "page_size_bytes": 32768,
        "pages_used": 64,
        "pages_total": 1280,
        "block": 249,
    }


# %d printing of unsigned words.


def test_negative_values_on_the_wire() -> None:
    body = dict(parsable_body(50, [0xFFFFFFFF, 32768, 64, 1280, 249]))
    assert body["gth"] == "-1"
    assert dict(parsable_body(9, [0xFFFFFF00]))["node"] == "-256"
    (raw,) = stream_items(encode_parsable(50, 2, [0xFFFFFFFF, 32768, 64, 1280, 249]))
    event = decode_event(raw, 0.0)
    assert event.get("gth") == 0xFFFFFFFF
    assert event.text == "Data usage decreased to 5%(64 32K pages of total 1280)"


def test_backup_starting_node_is_sent_as_a_node_id() -> None:
    ref = (0xF4 << 16) | 1
    assert parsable_body(54, [ref, 7]) == [("starting_node", "1"), ("backup_id", "7")]
    assert parsable_body(57, [ref | 0x8000_0000, 7, 0xFFFFFFFE])[2] == ("error", "-2")


def test_find_neighbours_left_id_prints_word_3() -> None:
    assert parsable_body(16, [3, 2, 4, 7]) == [
        ("own_id", "3"),
        ("left_id", "4"),
        ("right_id", "4"),
        ("dynamic_id", "7"),
    ]


def test_log_file_init_status_node_id_is_the_raw_reference() -> None:
    ref = (0xF7 << 16) | 3
    assert parsable_body(71, [ref, 16, 4, 1024, 256])[0] == ("node_id", str(ref))


# Text form with the error suffix.


def test_text_form_appends_the_error_string() -> None:
    ref = (0xF4 << 16) | 1
    assert encode_text(55, 2, [ref, 0]) == (
        b"Node 2: Backup request from 1 failed to start. Error: 0 - No error: Success: No error\n"
    )
    assert encode_text(57, 2, [ref, 7, 1326]) == (
        b"Node 2: Backup 7 started from 1 has been aborted. Error: 1326 - "
        b"Backup aborted due to node failure: Permanent error: Internal error\n"
    )
    assert encode_text(57, 2, [ref, 7, 1399]) == (
        b"Node 2: Backup 7 started from 1 has been aborted. Error: 1399 - "
        b"Unknown error code: Unknown result: Unknown error code\n"
    )
    assert encode_text(59, 4, [0, 0, 5028, 255, 0]).endswith(
        b" - Node shutdown would cause system crash: Permanent error: Application error\n"
    )


def test_text_form_is_cut_to_the_servers_buffer() -> None:
    all_nodes = [0xFFFFFFFF] * 8
    words = [0x8001, 0, 8, *all_nodes, *all_nodes]
    assert len("Node 2: " + event_text(60, words)) > 511
    line = encode_text(60, 2, words)
    assert len(line) == 512 and line.endswith(b"\n")
    assert line.startswith(b"Node 2: Start with all nodes 0, 1, 2, 3")


def test_text_form_of_a_type_without_error_has_no_suffix() -> None:
    assert encode_text(71, 3, [(0xF7 << 16) | 3, 0, 0, 0, 0]) == (
        b"Node 3: Node 3: Log file initializtion completed\n"
    )


# Properties.


def _expected_visible(event_type: int, words: list[int]) -> tuple[tuple, tuple]:
    """Fields and rebuilt words a listener can know of, computed from the signal words."""
    spec = CATALOGUE[event_type]
    if spec.data_form:
        return (), tuple(words)

    def word(i: int) -> int:
        return words[i - 1] if i <= len(words) else 0

    fields = []
    rebuilt: dict[int, int] = {}
    for key, i in spec.body:
        value = word(i) & 0xFFFF if key in spec.node_ref_keys else word(i)
        fields.append((key, value))
        rebuilt.setdefault(i, value)
    width = max(i for _, i in spec.body)
    return tuple(fields), tuple(rebuilt.get(i, 0) for i in range(1, width + 1))


@settings(max_examples=400, deadline=None)
@given(
    event_type=st.sampled_from(sorted(CATALOGUE)),
    words=st.lists(U32, max_size=24),
    source=st.integers(min_value=1, max_value=255),
)
def test_round_trip_every_type(event_type: int, words: list[int], source: int) -> None:
    (raw,) = stream_items(encode_parsable(event_type, source, words))
    event = decode_event(raw, 42.0)
    fields, visible = _expected_visible(event_type, words)
    # Only a node field beyond 255 or a negative 64-bit counter refuses a well-formed event.
    assert event.known and event.malformed == (event.refused is not None)
    assert (event.type, event.source_node, event.name) == (
        event_type,
        source,
        CATALOGUE[event_type].name,
    )
    assert event.fields == fields
    assert event.words == visible
    assert event.text == event_text(event_type, visible)
    if CATALOGUE[event_type].data_form:
        assert event.text == event_text(event_type, words)


@settings(max_examples=200, deadline=None)
@given(
    event_type=st.sampled_from([t for t, s in CATALOGUE.items() if t not in (46, 49, 62, 63)]),
    words=st.lists(U32, max_size=24),
    source=st.integers(min_value=1, max_value=255),
)
def test_text_mode_round_trip(event_type: int, words: list[int], source: int) -> None:
    # A listener text can reach 511 characters (the server's 512-byte buffer).
    (item,) = stream_items(encode_text(event_type, source, words), max_chars=511)
    assert isinstance(item, TextEventLine)
    event = decode_text_line(item.line, 1.0)
    assert event.source_node == source
    line = listener_text(event_type, source, words)
    assert f"Node {source}: {event.text}" == line
    assert line.startswith((f"Node {source}: " + event_text(event_type, words))[:511])


_KEYS = sorted({k for spec in CATALOGUE.values() for k in spec.keys} | {"data"})
_VALUES = st.one_of(
    st.integers(min_value=-(1 << 40), max_value=1 << 40).map(str),
    st.lists(st.integers(min_value=-5, max_value=1 << 33), max_size=30).map(
        lambda ws: " ".join(map(str, ws)) + " "
    ),
    st.text(max_size=20),
)


@settings(max_examples=500, deadline=None)
@given(
    event_type=st.one_of(st.sampled_from(sorted(CATALOGUE)), st.integers()),
    source=st.integers(),
    body=st.lists(
        st.tuples(st.one_of(st.sampled_from(_KEYS), st.text(max_size=10)), _VALUES), max_size=16
    ),
)
def test_decode_never_raises(event_type: int, source: int, body: list[tuple[str, str]]) -> None:
    event = decode_event(RawEvent(event_type, 0, source, tuple(body)), 3.0)
    assert event.type == event_type
    assert event.known == (event_type in CATALOGUE)
    assert isinstance(event.text, str)
    assert event.body == tuple(body)
    assert all(0 <= v <= 0xFFFFFFFF for _, v in event.fields)
    assert all(0 <= w <= 0xFFFFFFFF for w in event.words)
