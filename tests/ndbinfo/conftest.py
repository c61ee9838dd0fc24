"""Fixtures of the ndbinfo collector tests: a private MariaDB server for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mariadb_fixture import INSTALL_HINT, MariaDbServer, find_binary, private_mariadb
from mariadb_pair import ReplicationPair, private_pair


@pytest.fixture(scope="session")
def mariadb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MariaDbServer]:
    """A private MariaDB server with the ``ndbinfo`` fixture database, shut down at the end.

    Fails (never skips) when the MariaDB binaries are missing.
    """
    if (
        find_binary("mariadbd", "mysqld") is None
        or find_binary("mariadb-install-db", "mysql_install_db") is None
    ):
        pytest.fail(INSTALL_HINT, pytrace=False)
    with private_mariadb(tmp_path_factory.mktemp("mariadb")) as server:
        yield server


@pytest.fixture(scope="session")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplicationPair]:
    """Two private MariaDB servers, a primary and its replica, with NDB's replication tables
    (tests/ndbinfo/mariadb_pair.py); shut down at the end. Fails (never skips) when the
    MariaDB binaries are missing."""
    if (
        find_binary("mariadbd", "mysqld") is None
        or find_binary("mariadb-install-db", "mysql_install_db") is None
    ):
        pytest.fail(INSTALL_HINT, pytrace=False)
    with private_pair(tmp_path_factory.mktemp("pair")) as started:
        yield started
