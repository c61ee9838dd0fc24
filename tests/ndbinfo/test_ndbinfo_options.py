"""Resolving the SQL-node connection options as the MySQL client does."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from ndbtop.errors import UsageError
from ndbtop.ndbinfo.options import (
    DEFAULT_CONNECT_TIMEOUT,
    MysqlOptions,
    describe_options,
    options_summary,
    read_option_file,
    resolve_mysql_options,
)

ENV = {"LOGNAME": "alice"}


def resolve(
    home: Path,
    my_cnf: str | None = None,
    cli: Mapping[str, str | None] | None = None,
    env: Mapping[str, str] | None = None,
    defaults_file: Path | None = None,
    sockets: tuple[Path, ...] = (),
) -> MysqlOptions:
    if my_cnf is not None:
        (home / ".my.cnf").write_text(my_cnf)
    return resolve_mysql_options(
        cli or {}, {**ENV, **(env or {})}, defaults_file, home, socket_paths=sockets
    )


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "mysqld.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind(str(path))
        yield path


# (my.cnf, cli, env) -> (host, port, user, password, socket)
CASES = [
    pytest.param(None, {}, {}, ("127.0.0.1", 3306, "alice", "", None), id="defaults"),
    pytest.param(
        "[client]\nhost=db1\nport=3307\nuser=bob\npassword=pw1\n",
        {},
        {},
        ("db1", 3307, "bob", "pw1", None),
        id="client group",
    ),
    pytest.param(
        "[ndbtop]\nuser=carol\n[client]\nuser=bob\nhost=db1\n",
        {},
        {},
        ("db1", 3306, "carol", "", None),
        id="ndbtop group wins over client wherever it is",
    ),
    pytest.param(
        "[mysql]\nuser=mallory\n[mysqld]\nport=1\n[client]\nhost=db1\n",
        {},
        {},
        ("db1", 3306, "alice", "", None),
        id="other groups ignored",
    ),
    pytest.param(
        "[client]\nhost=db1\nuser=bob\npassword=pw1\n",
        {"host": "db2", "user": "root", "password": "pw2", "port": "3310"},
        {"MYSQL_PWD": "pw3", "MYSQL_HOST": "db3"},
        ("db2", 3310, "root", "pw2", None),
        id="command line wins over everything",
    ),
    pytest.param(
        "[client]\npassword=from-file\n",
        {},
        {"MYSQL_PWD": "from-env", "MYSQL_HOST": "db3", "MYSQL_TCP_PORT": "3399"},
        ("db3", 3399, "alice", "from-file", None),
        id="option file wins over the environment",
    ),
    pytest.param(
        None,
        {"password": None, "host": None},
        {"MYSQL_PWD": "from-env"},
        ("127.0.0.1", 3306, "alice", "from-env", None),
        id="MYSQL_PWD",
    ),
    pytest.param(
        "[client]\npassword=from-file\n",
        {"password": ""},
        {},
        ("127.0.0.1", 3306, "alice", "", None),
        id="empty password on the command line",
    ),
    pytest.param(
        "[client]\nhost = localhost\nsocket = /run/x.sock\nport = 3311\n",
        {},
        {},
        ("localhost", 3311, "alice", "", "/run/x.sock"),
        id="localhost with a socket uses it",
    ),
    pytest.param(
        "[client]\nsocket = /run/x.sock\n",
        {"port": "3312"},
        {},
        ("127.0.0.1", 3312, "alice", "", None),
        id="a port on the command line asks for TCP",
    ),
    pytest.param(
        "[client]\nsocket = /run/x.sock\n",
        {"port": "3312", "socket": "/run/y.sock"},
        {},
        ("localhost", 3312, "alice", "", "/run/y.sock"),
        id="unless a socket is given there too",
    ),
    pytest.param(
        "[client]\nsocket = /run/x.sock\nhost = db1\n",
        {},
        {},
        ("db1", 3306, "alice", "", None),
        id="a remote host ignores the socket",
    ),
    pytest.param(
        None,
        {},
        {"MYSQL_UNIX_PORT": "/run/env.sock"},
        ("localhost", 3306, "alice", "", "/run/env.sock"),
        id="MYSQL_UNIX_PORT",
    ),
]


@pytest.mark.parametrize(("my_cnf", "cli", "env", "expected"), CASES)
def test_precedence_of_command_line_option_file_and_environment(
    tmp_path: Path,
    my_cnf: str | None,
    cli: dict[str, str | None],
    env: dict[str, str],
    expected: tuple[str, int, str, str, str | None],
) -> None:
    o = resolve(tmp_path, my_cnf, cli, env)
    assert (o.host, o.port, o.user, o.password, o.socket) == expected


# Value as written in the file -> value read.
VALUES = [
    ("abc", "abc"),
    ("  abc  ", "abc"),
    ('"a#b c"', "a#b c"),
    ("'it''s'", "it''s"),
    ("abc # a comment", "abc"),
    ("ab#c", "ab"),
    ("'x' # after quotes", "x"),
    (r"a\sb", "a b"),
    (r"C:\\dir\\x", "C:\\dir\\x"),
    (r"a\qb", r"a\qb"),
    (r'"say \"hi\""', 'say "hi"'),
    ('"unterminated', '"unterminated'),
    ("", ""),
]


@pytest.mark.parametrize(("written", "read"), VALUES)
def test_option_values_follow_the_mysql_quoting_rules(
    tmp_path: Path, written: str, read: str
) -> None:
    path = tmp_path / "my.cnf"
    path.write_text(f"[client]\npassword = {written}\n")
    assert read_option_file(path, ["client"])["client"]["password"][0] == read


def test_dashes_and_underscores_and_case_are_the_same_option(tmp_path: Path) -> None:
    o = resolve(
        tmp_path,
        "[Client]\nssl_ca = /ca.pem\nSSL-CERT=/cert.pem\nssl-key=/key.pem\nConnect_Timeout=7\n",
    )
    assert (o.ssl_ca, o.ssl_cert, o.ssl_key) == ("/ca.pem", "/cert.pem", "/key.pem")
    assert o.connect_timeout == 7.0
    assert resolve(tmp_path, "[client]\n").connect_timeout == DEFAULT_CONNECT_TIMEOUT


def test_cli_keys_accept_underscores_too(tmp_path: Path) -> None:
    o = resolve(tmp_path, None, {"ssl_ca": "/ca.pem", "ssl-key": "/k.pem"})
    assert (o.ssl_ca, o.ssl_key, o.origin("ssl-ca")) == ("/ca.pem", "/k.pem", "command line")


def test_defaults_file_replaces_my_cnf(tmp_path: Path) -> None:
    other = tmp_path / "other.cnf"
    other.write_text("[client]\nuser = dave\n")
    o = resolve(tmp_path, "[client]\nuser = bob\nhost = db1\n", defaults_file=other)
    assert (o.user, o.host) == ("dave", "127.0.0.1")
    assert o.origin("user") == f"{other} [client]"


def test_origins_say_where_each_value_came_from(tmp_path: Path) -> None:
    o = resolve(
        tmp_path,
        "[client]\nhost = db1\n[ndbtop]\nport = 3307\n",
        {"user": "root"},
        {"MYSQL_PWD": "pw"},
    )
    cnf = tmp_path / ".my.cnf"
    assert o.origin("host") == f"{cnf} [client]"
    assert o.origin("port") == f"{cnf} [ndbtop]"
    assert o.origin("user") == "command line"
    assert o.origin("password") == "MYSQL_PWD"
    assert o.origin("ssl-ca") == "default"
    assert resolve(tmp_path, "").origin("user") == "login name"


def test_a_socket_at_a_usual_path_is_used_for_localhost(tmp_path: Path, unix_socket: Path) -> None:
    missing = tmp_path / "none.sock"
    o = resolve(tmp_path, None, sockets=(missing, unix_socket))
    assert o.socket == str(unix_socket) and o.origin("socket") == "found at the usual path"
    assert options_summary(o) == f"alice@localhost via {unix_socket}"
    assert resolve(tmp_path, None, {"host": "db1"}, sockets=(unix_socket,)).socket is None
    plain_file = tmp_path / "not-a-socket"
    plain_file.write_text("")
    assert resolve(tmp_path, None, sockets=(plain_file,)).host == "127.0.0.1"


def test_include_and_includedir_are_read(tmp_path: Path) -> None:
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    (conf_d / "10-host.cnf").write_text("[client]\nhost = db9\n")
    (conf_d / "20-port.cnf").write_text("[client]\nport = 3399\n")
    (conf_d / "ignored.txt").write_text("[client]\nport = 1\n")
    extra = tmp_path / "extra.cnf"
    extra.write_text("[ndbtop]\nuser = erin\n")
    o = resolve(
        tmp_path,
        f"[client]\nuser = bob\n!include {extra}\n!includedir {conf_d}\n"
        f"!include {tmp_path / 'missing.cnf'}\n!includedir {tmp_path / 'no-dir'}\n",
    )
    assert (o.host, o.port, o.user) == ("db9", 3399, "erin")


def test_an_include_loop_is_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop.cnf"
    loop.write_text(f"[client]\n!include {loop}\n")
    with pytest.raises(UsageError, match="nested too deeply"):
        resolve(tmp_path, defaults_file=loop)


# File text -> words the one-line reason must contain.
MALFORMED = [
    ("user = bob\n", "line 1: option outside any [group]"),
    ("[client]\nuser = bob\n[client\n", "line 3: wrong group definition"),
    ("[client]\n!source /x\n", "line 2: wrong '!' directive"),
    ("[client]\n!include\n", "line 2: wrong '!' directive"),
    ("[client]\n= value\n", "line 2: no option name"),
    ("[client]\nport = 33o6\n", "port '33o6'"),
    ("[client]\nport = 70000\n", "not a TCP port number"),
    ("[client]\nconnect-timeout = soon\n", "connect-timeout 'soon'"),
]


@pytest.mark.parametrize(("text", "reason"), MALFORMED)
def test_a_malformed_option_file_is_a_usage_error(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(UsageError) as failure:
        resolve(tmp_path, text)
    message = str(failure.value)
    assert reason in message and "\n" not in message


def test_a_bad_port_from_the_environment_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"port 'x' \(MYSQL_TCP_PORT\)"):
        resolve(tmp_path, env={"MYSQL_TCP_PORT": "x"})


def test_a_missing_defaults_file_is_an_error_but_a_missing_my_cnf_is_not(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"could not open the option file .*: no such file"):
        resolve(tmp_path, defaults_file=tmp_path / "nope.cnf")
    assert resolve(tmp_path).user == "alice"


def test_an_unreadable_option_file_is_an_error(tmp_path: Path) -> None:
    directory = tmp_path / "dir.cnf"
    directory.mkdir()
    with pytest.raises(UsageError, match=f"could not read the option file {directory}"):
        resolve(tmp_path, defaults_file=directory)
    if os.geteuid() != 0:
        locked = tmp_path / ".my.cnf"
        locked.write_text("[client]\n")
        locked.chmod(0)
        with pytest.raises(UsageError, match="could not read the option file"):
            resolve(tmp_path)


def test_the_password_is_never_shown(tmp_path: Path) -> None:
    o = resolve(tmp_path, "[client]\npassword = 'Hunter2!'\nhost = db1\n")
    assert o.password == "Hunter2!"
    shown = [repr(o), str(o), options_summary(o), *describe_options(o)]
    assert not any("Hunter2" in text for text in shown)
    assert options_summary(o) == "alice@db1:3306"
    assert f"password given ({tmp_path / '.my.cnf'} [client])" in describe_options(o)


def test_summary_and_target_of_directly_built_options() -> None:
    o = MysqlOptions(host="::1", port=3307, user="root", password="pw")
    assert (o.target, options_summary(o)) == ("[::1]:3307", "root@[::1]:3307")
    assert MysqlOptions(socket="/s.sock", user="u").target == "socket /s.sock"
    assert "password none (default)" in describe_options(MysqlOptions(user="u"))
