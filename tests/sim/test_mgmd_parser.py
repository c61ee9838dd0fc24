"""The simulated server's request parser (Parser.cpp rules of reference §1.3 and §1.5),
line by line, fuzzed, and against the client's request encoder."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.errors import MgmLineTooLong
from ndbtop.mgm.wire import LineBuffer, encode_request
from ndbtop.sim.mgmd.parser import (
    COMMANDS,
    ArgType,
    ParseFailure,
    Request,
    RequestParser,
    format_failure,
    parse_uint,
)


def parse(*lines: str) -> list[Request | ParseFailure]:
    parser = RequestParser(COMMANDS)
    out = []
    for line in lines:
        item = parser.feed(line)
        if item is not None:
            out.append(item)
    return out


@pytest.mark.parametrize(
    "line", ["node: 2", "node:2", "node=2", 'node:"2"', "  node :\t2  ", "node: 2abc"]
)
def test_argument_forms_are_equivalent(line: str) -> None:
    assert parse("start", line, "") == [Request("start", {"node": 2})]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12abc", 12),
        ("-1", 4294967295),
        ("-2", 4294967294),
        ("4294967296", 0),
        ("+7", 7),
        ("  9", 9),
        ("x", None),
        ("", None),
        ("²", None),
    ],
)
def test_int_values_are_read_as_scanf_percent_u(text: str, value: int | None) -> None:
    assert parse_uint(text) == value


def test_first_separator_wins_and_quotes_are_removed_from_strings() -> None:
    assert parse("dump state", "node: 2", 'args: "1000 2"', "") == [
        Request("dump state", {"node": 2, "args": "1000 2"})
    ]
    assert parse("get status", "types=NDB: API", "") == [
        Request("get status", {"types": "NDB: API"})
    ]
    assert parse("get status", 'types: "NDB', "") == [Request("get status", {"types": '"NDB'})]


def test_commands_are_trimmed_but_case_and_spacing_matter() -> None:
    assert parse("  get version \t", "") == [Request("get version", {})]
    assert parse("GET VERSION") == [ParseFailure("Unknown command", "GET VERSION")]
    assert parse("get  version") == [ParseFailure("Unknown command", "get  version")]


def test_unknown_argument_desynchronises_the_rest_of_the_request() -> None:
    assert parse("get status", "foo: 1", "types: NDB", "") == [
        ParseFailure("Unknown argument", "foo"),
        ParseFailure("Unknown command", "types: NDB"),
    ]


def test_a_line_without_separator_is_an_unknown_argument_even_if_it_names_one() -> None:
    assert parse("start", "node", "") == [ParseFailure("Unknown argument", "node")]


def test_type_mismatch_names_the_argument() -> None:
    assert parse("start", "node: x", "") == [ParseFailure("Type mismatch", "node")]
    assert parse("listen event", "filter: 250=1", "node: x", "") == [
        ParseFailure("Type mismatch", "node")
    ]


def test_argument_names_are_case_sensitive() -> None:
    assert parse("enter single user", "nodeid: 5", "") == [
        ParseFailure("Unknown argument", "nodeid")
    ]
    assert parse("enter single user", "nodeId: 5", "") == [
        Request("enter single user", {"nodeId": 5})
    ]


def test_repeated_arguments() -> None:
    assert parse("start", "node: 2", "node: 3", "") == [
        ParseFailure("Argument given twice", "node")
    ]
    assert parse("stop v2", "node: 2", "node: 3", "abort: 0", "") == [
        ParseFailure("Argument given twice", "node"),
        ParseFailure("Unknown command", "abort: 0"),
    ]


def test_missing_mandatory_argument_token_is_the_empty_line() -> None:
    assert parse("start", "") == [ParseFailure("Missing arg.", "\n")]
    assert parse("set cluster loglevel", "node: 1", "category: 252", "") == [
        ParseFailure("Missing arg.", "\n")
    ]
    assert format_failure(ParseFailure("Missing arg.", "\n")) == b"result: Missing arg., '\n'\n\n"


def test_empty_lines_between_requests_are_ignored_and_finish_ends_a_request() -> None:
    parser = RequestParser(COMMANDS)
    assert parser.feed("") is None
    assert parser.feed("  ") is None
    assert parser.feed("get status") is None
    assert parser.in_request
    assert parser.feed("types: NDB") is None
    assert parser.finish() == Request("get status", {"types": "NDB"})
    assert not parser.in_request


def test_format_failure_is_the_servers_error_block() -> None:
    assert format_failure(ParseFailure("Unknown command", "get stat")) == (
        b"result: Unknown command, 'get stat'\n\n"
    )


def test_every_command_has_a_handler_and_bootstrap_commands_exist() -> None:
    from ndbtop.sim.mgmd.parser import BOOTSTRAP
    from ndbtop.sim.mgmd.server import _HANDLERS

    assert set(COMMANDS) >= BOOTSTRAP
    assert set(COMMANDS) - set(_HANDLERS) == {"listen event", "end session", "bye", "start tls"}


# Fuzz


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000))
def test_arbitrary_bytes_give_requests_failures_or_a_too_long_line(data: bytes) -> None:
    try:
        lines = LineBuffer().feed(data)
    except MgmLineTooLong:
        return
    parser = RequestParser(COMMANDS)
    for line in lines:
        item = parser.feed(line)
        assert item is None or isinstance(item, (Request, ParseFailure))
        if isinstance(item, Request):
            assert item.command in COMMANDS
            assert set(item.args) <= set(COMMANDS[item.command])
    if parser.in_request:
        assert isinstance(parser.finish(), (Request, ParseFailure))


_STRING_VALUE = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    min_size=1,
    max_size=60,
).filter(lambda v: v == v.strip(" \t") and not (len(v) >= 2 and v[0] == '"' and v[-1] == '"'))


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, dict[str, int | str]]:
    command = draw(st.sampled_from(sorted(COMMANDS)))
    args: dict[str, int | str] = {}
    for name, spec in COMMANDS[command].items():
        if not spec.mandatory and not draw(st.booleans()):
            continue
        if spec.type is ArgType.INT:
            args[name] = draw(st.integers(0, 0xFFFFFFFF))
        else:
            args[name] = draw(_STRING_VALUE)
    return command, args


@settings(max_examples=300, deadline=None)
@given(requests(), st.randoms(use_true_random=False))
def test_client_encoding_parses_back_to_the_same_arguments(
    request: tuple[str, dict[str, int | str]], rng: random.Random
) -> None:
    command, args = request
    items = list(args.items())
    rng.shuffle(items)
    data = encode_request(command, items)
    assert parse(*LineBuffer().feed(data)) == [Request(command, args)]
