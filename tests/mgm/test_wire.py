"""Framing of the management protocol on the client side: request encoding, line
splitting, reply blocks and event blocks, checked against the golden vectors of the
protocol reference (§9) and fuzzed with arbitrary bytes."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.compat import zip_strict
from ndbtop.errors import MgmLineTooLong, MgmProtocolError
from ndbtop.mgm.event_stream import PING, EventStreamParser, TextEventLine, format_event_block
from ndbtop.mgm.wire import (
    MAX_LINE_CHARS,
    AuthFailureReply,
    LineBuffer,
    ParserErrorReply,
    RawEvent,
    Reply,
    ReplyParser,
    encode_request,
    format_block,
    parse_int,
    parse_replies,
    split_field,
)

SETTINGS = settings(max_examples=300, deadline=None)


def one(data: bytes) -> object:
    """The single reply block ``data`` holds."""
    replies = parse_replies(data)
    assert len(replies) == 1
    return replies[0]


# Requests


def test_encode_request_restart_is_golden_vector_11() -> None:
    request = encode_request(
        "restart node v2",
        [("node", "3"), ("abort", 0), ("initialstart", 0), ("nostart", 0), ("force", 0)],
    )
    assert request == (
        b"restart node v2\nnode: 3\nabort: 0\ninitialstart: 0\nnostart: 0\nforce: 0\n\n"
    )


def test_encode_request_without_arguments_is_command_and_empty_line() -> None:
    assert encode_request("get version") == b"get version\n\n"
    assert encode_request("set cluster loglevel", [("node", 2), ("category", 252)]) == (
        b"set cluster loglevel\nnode: 2\ncategory: 252\n\n"
    )


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("get\nstatus", [], "line break in command"),
        ("get status", [("types", "NDB\nAPI")], "line break in types"),
        ("get status", [("types", "NDB\r")], "line break in types"),
        ("stop v2", [("node", "2"), ("node", "3")], "argument 'node' given twice"),
        ("stop v2", [("no:de", "2")], "invalid argument name"),
        ("stop v2", [("no=de", "2")], "invalid argument name"),
        ("stop v2", [("", "2")], "invalid argument name"),
        ("dump state", [("args", "1" * 510)], "line length exceeded due to argument: args"),
        ("x" * 511, [], "line length exceeded due to argument: command"),
    ],
)
def test_encode_request_refuses_what_would_break_the_framing(
    command: str, args: list[tuple[str, str | int]], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        encode_request(command, args)


def test_encode_request_accepts_the_longest_line() -> None:
    value = "1" * (MAX_LINE_CHARS - len("args: "))
    assert encode_request("dump state", [("args", value)]).endswith(value.encode() + b"\n\n")


# Lines


def test_line_buffer_joins_chunks_and_turns_crlf_into_lf() -> None:
    buf = LineBuffer()
    assert buf.feed(b"get ver") == []
    assert buf.pending == 7
    assert buf.feed(b"sion\r\n\r\nnodes: 2\r") == ["get version", ""]
    assert buf.feed(b"\n") == ["nodes: 2"]
    assert buf.pending == 0


def test_line_buffer_keeps_a_lone_carriage_return_inside_a_line() -> None:
    assert LineBuffer().feed(b"a\rb\n") == ["a\rb"]


def test_line_buffer_accepts_510_characters_and_refuses_511() -> None:
    assert LineBuffer().feed(b"x" * 510 + b"\r\n") == ["x" * 510]
    with pytest.raises(MgmLineTooLong):
        LineBuffer().feed(b"x" * 511 + b"\n")


def test_line_buffer_refuses_an_endless_line_before_its_end_arrives() -> None:
    buf = LineBuffer()
    buf.feed(b"x" * 500)
    with pytest.raises(MgmLineTooLong):
        buf.feed(b"x" * 12)


def test_line_buffer_splits_a_whole_reply_in_one_chunk() -> None:
    buf = LineBuffer()
    lines = buf.feed(b"node status\r\nnodes: 2\nnode.1.type: MGM\r\n\r\nnext")
    assert lines == ["node status", "nodes: 2", "node.1.type: MGM", ""]
    assert buf.pending == 4


def test_line_buffer_refuses_a_long_line_among_short_ones() -> None:
    with pytest.raises(MgmLineTooLong, match="line of 511 bytes"):
        LineBuffer().feed(b"a\n" * 300 + b"x" * 511 + b"\n" + b"b\n" * 300)


def test_line_buffer_counts_a_crlf_line_end_out_of_the_limit_in_a_long_chunk() -> None:
    data = b"a\r\n" * 300 + b"x" * 510 + b"\r\n"
    assert LineBuffer().feed(data)[-1] == "x" * 510


def test_line_buffer_replaces_undecodable_bytes() -> None:
    assert LineBuffer().feed(b"node\xff\n") == ["node\ufffd"]


# Reply blocks: golden vectors, client side


def test_vector_1_version() -> None:
    reply = one(
        b"version\nid: 525315\nmajor: 8\nminor: 4\nbuild: 3\nstring: mysql-8.4.3 ndb-8.4.3\n"
        b"mysql_major: 8\nmysql_minor: 4\nmysql_build: 3\n\n"
    )
    assert isinstance(reply, Reply)
    assert reply.header == "version"
    assert reply.require_int("id") == 525315
    assert reply.require("string") == "mysql-8.4.3 ndb-8.4.3"
    assert [k for k, _ in reply.fields] == [
        "id",
        "major",
        "minor",
        "build",
        "string",
        "mysql_major",
        "mysql_minor",
        "mysql_build",
    ]


@pytest.mark.parametrize(
    ("data", "header", "fields"),
    [
        (b"set clientversion reply\nresult: Ok\n\n", "set clientversion reply", {"result": "Ok"}),
        (b"check connection reply\nresult: Ok\n\n", "check connection reply", {"result": "Ok"}),
        (b"get mgmd nodeid reply\nnodeid:1\n\n", "get mgmd nodeid reply", {"nodeid": "1"}),
        (b"get session id reply\nid: 7\n\n", "get session id reply", {"id": "7"}),
        (
            b"restart reply\nresult: Ok\nrestarted: 1\ndisconnect: 0\n\n",
            "restart reply",
            {"result": "Ok", "restarted": "1", "disconnect": "0"},
        ),
        (
            b"restart reply\nresult: 5028-Node shutdown would cause system crash: Permanent "
            b"error: Application error\nrestarted: 0\ndisconnect: 0\n\n",
            "restart reply",
            {
                "result": "5028-Node shutdown would cause system crash: Permanent error: "
                "Application error",
                "restarted": "0",
                "disconnect": "0",
            },
        ),
        (
            b"restart reply\nresult: 5063-Operation not allowed while nodes are starting or "
            b"stopping.: Permanent error: Application error\nrestarted: 0\ndisconnect: 0\n\n",
            "restart reply",
            {
                "result": "5063-Operation not allowed while nodes are starting or stopping.: "
                "Permanent error: Application error",
                "restarted": "0",
                "disconnect": "0",
            },
        ),
        (
            b"stop reply\nresult: Node shutdown would cause system crash: Permanent error: "
            b"Application error\nstopped: 0\ndisconnect: 0\n\n",
            "stop reply",
            {
                "result": "Node shutdown would cause system crash: Permanent error: "
                "Application error",
                "stopped": "0",
                "disconnect": "0",
            },
        ),
        (
            b"stop reply\nresult: Ok\nstopped: 2\ndisconnect: 0\n\n",
            "stop reply",
            {"result": "Ok", "stopped": "2", "disconnect": "0"},
        ),
        (b"start reply\nresult: Ok\n\n", "start reply", {"result": "Ok"}),
        (
            b"start reply\nresult: Ok\nstarted: 2\n\n",
            "start reply",
            {"result": "Ok", "started": "2"},
        ),
        (
            b"set cluster loglevel reply\nresult: Ok\n\n",
            "set cluster loglevel reply",
            {"result": "Ok"},
        ),
        (
            b"set cluster loglevel reply\nresult: Invalid loglevel 16\n\n",
            "set cluster loglevel reply",
            {"result": "Invalid loglevel 16"},
        ),
        (
            b"clusterlog\nenabled: 1\ndebug: 0\ninfo: 1\nwarning: 1\nerror: 1\ncritical: 1\n"
            b"alert: 1\n\n",
            "clusterlog",
            {
                "enabled": "1",
                "debug": "0",
                "info": "1",
                "warning": "1",
                "error": "1",
                "critical": "1",
                "alert": "1",
            },
        ),
        (b"set logfilter reply\nresult: 1\n\n", "set logfilter reply", {"result": "1"}),
        (b"listen event\nresult: 0\n\n", "listen event", {"result": "0"}),
        (
            b"listen event\nresult: -1\nmsg: Unknown category: >WARNING<\n\n",
            "listen event",
            {"result": "-1", "msg": "Unknown category: >WARNING<"},
        ),
        (
            b"listen event\nresult: -1\nmsg: Invalid filter specification: >STARTUP< "
            b">STARTUP< 1\n\n",
            "listen event",
            {"result": "-1", "msg": "Invalid filter specification: >STARTUP< >STARTUP< 1"},
        ),
        (b"dump state reply\nresult: Ok\n\n", "dump state reply", {"result": "Ok"}),
        (b"report event reply\nresult: ok\n\n", "report event reply", {"result": "ok"}),
        (b"start tls reply\nresult: Ok\n\n", "start tls reply", {"result": "Ok"}),
        (b"start tls reply\nresult: Failed\n\n", "start tls reply", {"result": "Failed"}),
        (
            b"start tls reply\nresult: Already Connected\n\n",
            "start tls reply",
            {"result": "Already Connected"},
        ),
    ],
)
def test_golden_reply_blocks(data: bytes, header: str, fields: dict[str, str]) -> None:
    reply = one(data)
    assert isinstance(reply, Reply)
    assert reply.header == header
    assert reply.as_dict() == fields
    assert list(reply.fields) == list(fields.items())


def test_vector_17_cluster_loglevels_keep_all_13_names_in_order() -> None:
    reply = one(
        b"get cluster loglevel\nstartup: 7\nshutdown: 7\nstatistics: 7\ncheckpoint: 7\n"
        b"noderestart: 7\nconnection: 8\ninfo: 7\nwarning: 7\nerror: 15\ncongestion: 7\n"
        b"debug: 7\nbackup: 15\nschema: 7\n\n"
    )
    assert isinstance(reply, Reply)
    assert [k for k, _ in reply.fields][-1] == "schema"
    assert len(reply.fields) == 13
    assert reply.require_int("connection") == 8
    assert reply.require_int("backup") == 15


def test_vector_7_unknown_command() -> None:
    assert one(b"result: Unknown command, 'get stat'\n\n") == ParserErrorReply(
        "Unknown command", "get stat"
    )


def test_vector_8_unknown_argument_and_the_follow_on_error_block() -> None:
    assert parse_replies(
        b"result: Unknown argument, 'foo'\n\nresult: Unknown command, 'types: NDB'\n\n"
    ) == [
        ParserErrorReply("Unknown argument", "foo"),
        ParserErrorReply("Unknown command", "types: NDB"),
    ]


def test_vector_9_type_mismatch() -> None:
    assert one(b"result: Type mismatch, 'node'\n\n") == ParserErrorReply("Type mismatch", "node")


def test_vector_10_missing_argument_token_is_a_newline() -> None:
    assert one(b"result: Missing arg., '\n'\n\n") == ParserErrorReply("Missing arg.", "\n")


@pytest.mark.parametrize(
    "message",
    [
        "Unknown command",
        "Unknown argument",
        "Type mismatch",
        "Invalid arg. format",
        "Unknown argument type",
        "Argument given twice",
    ],
)
def test_every_parser_message_is_recognised(message: str) -> None:
    assert one(f"result: {message}, '<NULL>'\n\n".encode()) == ParserErrorReply(
        message, "<NULL>"
    )


def test_missing_argument_followed_by_anything_but_the_quote_is_a_protocol_error() -> None:
    parser = ReplyParser()
    assert parser.feed("result: Missing arg., '") is None
    with pytest.raises(MgmProtocolError):
        parser.feed("oops")


def test_vector_27_authorization_failure() -> None:
    assert one(b"Authorization failed\nError: Requires TLS\n\n") == AuthFailureReply(
        "Requires TLS"
    )


def test_vector_25_end_session_reply_has_no_empty_line() -> None:
    parser = ReplyParser()
    assert parser.feed("end session reply") is None
    assert not parser.idle
    assert parse_replies(b"end session reply\n") == []


def test_unrecognised_result_line_as_header_is_a_protocol_error() -> None:
    with pytest.raises(MgmProtocolError):
        parse_replies(b"result: something else\n\n")


def test_field_line_without_separator_is_a_protocol_error() -> None:
    with pytest.raises(MgmProtocolError, match="malformed line"):
        parse_replies(b"node status\nnodes 2\n\n")


def test_empty_lines_between_blocks_are_skipped() -> None:
    assert parse_replies(b"\n\ncheck connection reply\nresult: Ok\n\n\n") == [
        Reply("check connection reply", (("result", "Ok"),))
    ]


def test_split_field_drops_one_space_only() -> None:
    assert split_field("node.5.address: ") == ("node.5.address", "")
    assert split_field("nodeid:1") == ("nodeid", "1")
    assert split_field("msg:  two") == ("msg", " two")
    assert split_field("result: a: b") == ("result", "a: b")
    with pytest.raises(MgmProtocolError):
        split_field(": value")


@pytest.mark.parametrize(
    ("text", "value"), [("0", 0), ("-256", -256), ("4294967295", 4294967295), (" 7 ", 7)]
)
def test_parse_int(text: str, value: int) -> None:
    assert parse_int(text) == value


@pytest.mark.parametrize("text", ["", "12abc", "0x10", "1.5", "--1", "²"])
def test_parse_int_refuses_non_numbers(text: str) -> None:
    with pytest.raises(MgmProtocolError):
        parse_int(text)


def test_reply_require_names_the_missing_line() -> None:
    reply = Reply("restart reply", (("result", "Ok"),))
    with pytest.raises(MgmProtocolError, match="'restart reply' has no 'restarted' line"):
        reply.require("restarted")
    with pytest.raises(MgmProtocolError):
        Reply("x", (("n", "abc"),)).require_int("n")


# Event blocks


def stream(data: bytes) -> list[object]:
    parser = EventStreamParser()
    out = []
    for line in LineBuffer().feed(data):
        item = parser.feed(line)
        if item is not None:
            out.append(item)
    return out


def test_vector_22_dump_events_reply_then_two_memory_blocks() -> None:
    block = (
        b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=32768\n"
        b"pages_used=64\npages_total=1280\nblock=249\n\n"
    )
    data = b"dump events reply\nresult: Ok\nevents: 2\n\n" + block + block.replace(b"249", b"248")
    lines = LineBuffer().feed(data)
    parser = ReplyParser()
    replies = [r for r in (parser.feed(line) for line in lines[:4]) if r is not None]
    assert replies == [Reply("dump events reply", (("result", "Ok"), ("events", "2")))]
    events = stream(b"".join(line.encode() + b"\n" for line in lines[4:]))
    body = (
        ("gth", "0"),
        ("page_size_bytes", "32768"),
        ("pages_used", "64"),
        ("pages_total", "1280"),
    )
    assert events == [
        RawEvent(50, 0, 2, (*body, ("block", "249"))),
        RawEvent(50, 0, 2, (*body, ("block", "248"))),
    ]


def test_vector_20_and_21_event_blocks() -> None:
    assert stream(b"log event reply\ntype=18\ntime=0\nsource_nodeid=3\ndata=\n\n") == [
        RawEvent(18, 0, 3, (("data", ""),))
    ]
    assert stream(b"<PING>\nlog event reply\ntype=0\ntime=0\nsource_nodeid=1\nnode=3\n\n") == [
        PING,
        RawEvent(0, 0, 1, (("node", "3"),)),
    ]


def test_text_mode_lines_and_colon_separated_event_fields() -> None:
    assert stream(b"Node 3: Start phase 4 completed (initial start)\n<PING>\n") == [
        TextEventLine("Node 3: Start phase 4 completed (initial start)"),
        PING,
    ]
    assert stream(b"log event reply\ntype:13\ntime:0\nsource_nodeid:3\nphase:4\n\n") == [
        RawEvent(13, 0, 3, (("phase", "4"),))
    ]


@pytest.mark.parametrize(
    "block",
    [
        b"log event reply\ntime=0\nsource_nodeid=3\n\n",
        b"log event reply\ntype=13\nsource_nodeid=3\n\n",
        b"log event reply\ntype=13\ntime=0\n\n",
        b"log event reply\ntype=x\ntime=0\nsource_nodeid=3\n\n",
        b"log event reply\ntype=13\ntime=0\nsource_nodeid=3\nnovalue\n\n",
        b"log event reply\n=4\n\n",
    ],
)
def test_malformed_event_blocks_are_protocol_errors(block: bytes) -> None:
    with pytest.raises(MgmProtocolError):
        stream(block)


def test_format_event_block_matches_vector_18() -> None:
    assert format_event_block(13, 3, [("phase", 4), ("starttype", 0)]) == (
        b"log event reply\ntype=13\ntime=0\nsource_nodeid=3\nphase=4\nstarttype=0\n\n"
    )


# Fuzz


@SETTINGS
@given(st.binary(max_size=2000), st.lists(st.integers(1, 600), max_size=8))
def test_line_buffer_is_independent_of_chunking(data: bytes, cuts: list[int]) -> None:
    def run(chunks: list[bytes]) -> list[str] | None:
        buf = LineBuffer()
        out: list[str] = []
        try:
            for chunk in chunks:
                out.extend(buf.feed(chunk))
        except MgmLineTooLong:
            return None
        return out

    chunks, start = [], 0
    for cut in cuts:
        chunks.append(data[start : start + cut])
        start += cut
    chunks.append(data[start:])
    whole = run([data])
    assert run(chunks) == whole
    if whole is None:
        longest = max(len(line.removesuffix(b"\r")) for line in data.split(b"\n"))
        assert longest > MAX_LINE_CHARS
    else:
        assert len(whole) == data.count(b"\n")
        assert all("\n" not in line for line in whole)


@SETTINGS
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["", "node status", "nodes: 2", ": no key", "key:value",
                             "key:  two spaces", "k: v: w", "k:"]),
            st.text(max_size=30).filter(lambda s: "\n" not in s),
        ),
        max_size=60,
    ),
    st.integers(min_value=0, max_value=60),
)
def test_lines_that_arrive_in_two_reads_read_as_the_lines_fed_one_by_one(
    lines: list[str], cut: int
) -> None:
    # A large reply's body is split line by line or all at once as it arrives.
    parser = ReplyParser()
    pending: deque[str] = deque(lines[:cut])
    out: list[object] = []
    try:
        for more in (lines[cut:], []):
            while pending:
                reply = parser.feed_from(pending)
                if reply is not None:
                    out.append(reply)
            pending.extend(more)
    except MgmProtocolError as exc:
        out.append(("error", str(exc)))
    assert out == _one_by_one(lines)


@SETTINGS
@given(st.binary(max_size=3000))
def test_reply_parser_on_arbitrary_bytes_only_raises_protocol_errors(data: bytes) -> None:
    try:
        replies = parse_replies(data)
    except MgmProtocolError:
        return
    for reply in replies:
        assert isinstance(reply, (Reply, ParserErrorReply, AuthFailureReply))


@SETTINGS
@given(st.lists(st.text(max_size=80).filter(lambda s: "\n" not in s), max_size=40))
def test_reply_parser_on_arbitrary_lines_only_raises_protocol_errors(lines: list[str]) -> None:
    parser = ReplyParser()
    try:
        for line in lines:
            parser.feed(line)
    except MgmProtocolError:
        pass


def _one_by_one(lines: list[str]) -> list[object]:
    parser = ReplyParser()
    out: list[object] = []
    try:
        for line in lines:
            reply = parser.feed(line)
            if reply is not None:
                out.append(reply)
    except MgmProtocolError as exc:
        out.append(("error", str(exc)))
    return out


def _from_deque(lines: list[str]) -> list[object]:
    parser = ReplyParser()
    pending = deque(lines)
    out: list[object] = []
    try:
        while pending:
            reply = parser.feed_from(pending)
            if reply is not None:
                out.append(reply)
    except MgmProtocolError as exc:
        out.append(("error", str(exc)))
    return out


def test_replies_read_from_a_queue_of_lines_leave_the_next_reply_queued() -> None:
    parser = ReplyParser()
    pending = deque(
        ["node status", "nodes: 1", "node.2.status:STARTED", "", "", "get mgmd nodeid reply"]
    )
    assert parser.feed_from(pending) == Reply(
        "node status", (("nodes", "1"), ("node.2.status", "STARTED"))
    )
    assert list(pending) == ["", "get mgmd nodeid reply"]
    assert parser.feed_from(pending) is None
    assert not pending and not parser.idle
    pending.extend(["nodeid: 1", ""])
    assert parser.feed_from(pending) == Reply("get mgmd nodeid reply", (("nodeid", "1"),))


@SETTINGS
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["", "node status", "nodes: 2", "result: Missing arg., '", "'",
                             ": no key", "key:value", "key:  two spaces"]),
            st.text(max_size=30).filter(lambda s: "\n" not in s),
        ),
        max_size=40,
    )
)
def test_a_queue_of_lines_reads_as_the_lines_fed_one_by_one(lines: list[str]) -> None:
    assert _from_deque(lines) == _one_by_one(lines)


@SETTINGS
@given(st.binary(max_size=3000))
def test_event_stream_parser_on_arbitrary_bytes_only_raises_protocol_errors(data: bytes) -> None:
    try:
        items = stream(data)
    except MgmProtocolError:
        return
    for item in items:
        assert item == PING or isinstance(item, (RawEvent, TextEventLine))


_NAME = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters=":\n\r"),
    min_size=1,
    max_size=20,
)
_VALUE = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=40
)


@SETTINGS
@given(
    _NAME.filter(
        lambda h: not h.startswith("result: ")
        and h != "Authorization failed"
        and h.strip() != ""
    ),
    st.lists(st.tuples(_NAME, _VALUE), max_size=10),
)
def test_format_block_round_trips(header: str, fields: list[tuple[str, str]]) -> None:
    data = format_block(header, fields)
    assert parse_replies(data) == [Reply(header, tuple(fields))]


def _replies_from(parser: ReplyParser, *reads: list[str]) -> list[object]:
    out: list[object] = []
    for read in reads:
        pending = deque(read)
        while pending:
            reply = parser.feed_from(pending)
            if reply is not None:
                out.append(reply)
    return out


def test_a_body_whose_end_arrives_alone_keeps_every_line() -> None:
    parser = ReplyParser()
    body = [f"node.{n}.type: NDB" for n in range(1, 4)]
    assert _replies_from(parser, ["node status", "nodes: 3", *body], [""]) == [
        Reply("node status", (("nodes", "3"), *((f"node.{n}.type", "NDB") for n in range(1, 4))))
    ]


def test_a_line_that_cannot_split_is_named_before_its_block_ends() -> None:
    parser = ReplyParser()
    with pytest.raises(MgmProtocolError, match="malformed line 'no colon here'"):
        _replies_from(parser, ["node status", "nodes: 2", "no colon here"])


def test_the_same_body_again_is_not_split_again_and_a_changed_one_is() -> None:
    memo: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    lines = ["node status", "nodes: 2", "node.1.status: STARTED", "node.2.status: STARTED", ""]
    (first,) = _replies_from(ReplyParser(memo), lines)
    (again,) = _replies_from(ReplyParser(memo), lines[:3], lines[3:])
    assert again == first
    # The fields of the same text are the very tuples split the first time.
    assert all(a is b for a, b in zip_strict(again.fields, first.fields))
    changed = [*lines[:3], "node.2.status: NO_CONTACT", ""]
    (other,) = _replies_from(ReplyParser(memo), changed)
    assert other.fields[-1] == ("node.2.status", "NO_CONTACT")
    # Another header's body does not replace this one's.
    _replies_from(ReplyParser(memo), ["get cluster loglevel", "startup: 7", ""])
    (back,) = _replies_from(ReplyParser(memo), changed)
    assert all(a is b for a, b in zip_strict(back.fields, other.fields))
