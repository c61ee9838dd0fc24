"""``--once`` exits 0 only when every source asked for answered: a SQL node that refuses
the login (a real MariaDB server) makes it exit 3 with one line naming user and host."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mariadb_fixture import MariaDbServer

from ndbtop.cli import main


def test_once_with_a_wrong_sql_password_exits_3_naming_user_and_host(
    mariadb: MariaDbServer, threaded_sim: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], tmp_path: Any,
) -> None:
    sim = threaded_sim("threads")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MYSQL_PWD", "not-the-password")
    status = main(["--once", "--json", "--no-host", "-c", sim.connectstring,
                   "--mysql-host", "127.0.0.1", "--mysql-port", str(mariadb.port),
                   "--mysql-user", "ndbtop"])
    out, err = capsys.readouterr()
    assert status == 3
    report = json.loads(out)
    assert {s["name"]: s["state"] for s in report["sources"]}["mgm"] == "connected"
    assert err == (f"ndbtop: error: ndbinfo (ndbtop@127.0.0.1:{mariadb.port}): access denied "
                   "for user 'ndbtop'@'127.0.0.1' (wrong password?)\n")
    assert "not-the-password" not in out + err


def test_once_with_every_source_answering_exits_0(
    threaded_sim: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = threaded_sim("threads", sql=True)
    status = main(["--once", "--no-host", "-c", sim.connectstring, "--mysql-host", "127.0.0.1",
                   "--mysql-port", str(sim.sim.sql_port), "--mysql-user", "root"])
    assert status == 0, capsys.readouterr().err
