"""Connect strings, parsed as NDB's LocalConfig reads them (reference §1.8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.errors import ConnectStringError
from ndbtop.mgm.connectstring import (
    ConnectString,
    MgmAddress,
    parse_connectstring,
    resolve_connectstring,
    split_host_port,
)


def hosts(cs: ConnectString) -> list[tuple[str, int, str | None]]:
    return [(a.host, a.port, a.bind_address) for a in cs.addresses]


@pytest.mark.parametrize(
    ("text", "expected", "nodeid"),
    [
        ("nodeid=5,host1:1186,host2:1187", [("host1", 1186, None), ("host2", 1187, None)], 5),
        ("host1:1186;host2", [("host1", 1186, None), ("host2", 1186, None)], None),
        (
            "host=h1:1,mgmd=h2:2,host://h3:3",
            [("h1", 1, None), ("h2", 2, None), ("h3", 3, None)],
            None,
        ),
        ("HOST=h1", [("h1", 1186, None)], None),
        ("localhost", [("localhost", 1186, None)], None),
        ("  h1 ,, ; h2:9 ", [("h1", 1186, None), ("h2", 9, None)], None),
        ("h1 1187", [("h1", 1187, None)], None),
        ("[::1]:1186,[fe80::2]", [("::1", 1186, None), ("fe80::2", 1186, None)], None),
        ("::1", [("::1", 1186, None)], None),
        ("#comment,h1", [("h1", 1186, None)], None),
        ("OwnProcessId 4711,h1", [("h1", 1186, None)], None),
        (
            "bind-address=10.0.0.9,h1,h2,bind-address=10.0.0.7:4000",
            [("h1", 1186, "10.0.0.9"), ("h2", 1186, "10.0.0.7")],
            None,
        ),
    ],
)
def test_valid_connect_strings(
    text: str, expected: list[tuple[str, int, str | None]], nodeid: int | None
) -> None:
    cs = parse_connectstring(text)
    assert hosts(cs) == expected
    assert cs.nodeid == nodeid
    assert cs.source == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no management server"),
        (" ; , ", "no management server"),
        ("nodeid=3", "no management server"),
        ("host=", "empty host"),
        (":1186", "empty host"),
        ("h:", "invalid port ''"),
        ("h:abc", "invalid port 'abc'"),
        ("h:²", "invalid port"),
        ("h:١١٨٦", "invalid port"),
        ("h:0", "port 0 out of range"),
        ("h:70000", "port 70000 out of range"),
        ("h 1 2", "invalid port"),
        ("[::1", "unclosed"),
        ("[]:1186", "empty IPv6"),
        ("[::1]1186", "unexpected"),
        ("1:2:3:x", "write IPv6 addresses as"),
        ("nodeid=0,h", "invalid nodeid"),
        ("nodeid=256,h", "invalid nodeid"),
        ("nodeid=x,h", "invalid nodeid"),
        ("nodeid=²,h", "invalid nodeid"),
        ("bind-address=,h", "empty bind-address"),
    ],
)
def test_invalid_connect_strings_say_why(text: str, message: str) -> None:
    with pytest.raises(ConnectStringError, match=message):
        parse_connectstring(text)


def test_address_and_connect_string_print_back() -> None:
    cs = parse_connectstring("h1:1,[::1]:2")
    assert str(cs) == "h1:1,[::1]:2"
    assert str(MgmAddress("fe80::1", 5)) == "[fe80::1]:5"


def test_split_host_port_default_port() -> None:
    assert split_host_port("h", 7) == ("h", 7)
    assert split_host_port("[::1]", 7) == ("::1", 7)


def test_file_tokens_read_a_connect_string_from_a_file(tmp_path: Path) -> None:
    inner = tmp_path / "Ndb.cfg"
    inner.write_text("nodeid=7;h2:2\n")
    cs = parse_connectstring(f"h1:1,file={inner},file://{inner}")
    assert hosts(cs) == [("h1", 1, None), ("h2", 2, None), ("h2", 2, None)]
    assert cs.nodeid == 7


def test_missing_file_and_nested_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ConnectStringError, match="cannot read connect string file"):
        parse_connectstring(f"file={tmp_path / 'absent.cfg'}")
    loop = tmp_path / "loop.cfg"
    loop.write_text(f"file={loop}")
    with pytest.raises(ConnectStringError, match="nest too deeply"):
        parse_connectstring(f"file={loop}")


def test_resolve_prefers_the_given_string(tmp_path: Path) -> None:
    env = {"NDB_CONNECTSTRING": "envhost:1"}
    assert hosts(resolve_connectstring("given:2", env, tmp_path)) == [("given", 2, None)]


def test_resolve_order_env_then_ndb_home_then_cwd_then_default(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    (home / "Ndb.cfg").write_text("homehost:3")
    (cwd / "Ndb.cfg").write_text("cwdhost:4")
    env = {"NDB_CONNECTSTRING": "envhost:1", "NDB_HOME": str(home)}
    assert hosts(resolve_connectstring(None, env, cwd)) == [("envhost", 1, None)]
    del env["NDB_CONNECTSTRING"]
    assert hosts(resolve_connectstring(None, env, cwd)) == [("homehost", 3, None)]
    del env["NDB_HOME"]
    assert hosts(resolve_connectstring(None, env, cwd)) == [("cwdhost", 4, None)]
    assert hosts(resolve_connectstring(None, {}, tmp_path)) == [("localhost", 1186, None)]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"ab1:;,=[] #\t.-", "host=", "nodeid=", "bind-address=", "::", "²"]),
        max_size=20,
    ).map("".join)
    | st.text(max_size=40).filter(lambda t: "file" not in t.lower())
)
def test_arbitrary_text_parses_or_raises_connect_string_error(text: str) -> None:
    try:
        cs = parse_connectstring(text)
    except ConnectStringError:
        return
    assert cs.addresses
    for address in cs.addresses:
        assert address.host
        assert 1 <= address.port <= 65535
    assert cs.nodeid is None or 1 <= cs.nodeid <= 255
