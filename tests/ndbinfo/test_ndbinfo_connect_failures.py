"""Connection failures that need no SQL node at all."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.errors import SqlConnectError, SqlTimeout
from ndbtop.ndbinfo.options import MysqlOptions


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port whose listener completes TCP handshakes (in the kernel) and never speaks."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        yield int(listener.getsockname()[1])


def test_a_server_that_never_greets_is_a_timeout(silent_port: int) -> None:
    options = MysqlOptions(host="127.0.0.1", port=silent_port, user="u", read_timeout=0.2)
    collector = NdbinfoCollector(options)
    with pytest.raises(SqlTimeout) as waited:
        collector.connect()
    assert str(waited.value) == (
        f"the SQL node at 127.0.0.1:{silent_port} did not answer within 0.2 s"
    )
    assert not collector.connected


def test_a_missing_tls_file_is_named_before_connecting(tmp_path: Path, silent_port: int) -> None:
    missing = tmp_path / "ca.pem"
    options = MysqlOptions(host="127.0.0.1", port=silent_port, user="u", ssl_ca=str(missing))
    with pytest.raises(SqlConnectError, match=f"^cannot read the ssl-ca file {missing}$"):
        NdbinfoCollector(options).connect()


def test_a_missing_socket_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "mysqld.sock"
    with pytest.raises(SqlConnectError) as failure:
        NdbinfoCollector(MysqlOptions(socket=str(path), user="u")).connect()
    assert str(failure.value) == (
        f"cannot connect to the SQL node at socket {path}: no such socket file"
    )
