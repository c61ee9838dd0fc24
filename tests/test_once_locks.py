"""``--once --section locks``: the transactions idle past ``--txn-age`` and the lock waits as
chains, read from the (simulated) SQL node only because the section is asked for; the
option refused where it is wrong, and the bundle's locks.txt."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.report.locks import locks_json, locks_text
from ndbtop.report.sections import bundle_panels, default_panels, triage_section


def once(ts: Any, *extra: str) -> list[str]:
    return ["--once", "-c", ts.connectstring, "--mysql-host", "127.0.0.1", "--mysql-port",
            str(ts.sim.sql_port), "--mysql-user", "root", "--no-host", "--interval", "0.2",
            *extra]


def test_the_demo_gives_the_json_of_the_lock_chain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--scenario", "lock-chain", "--once", "--json", "--section",
                 "locks"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"context", "time", "mgm", "sources", "transactions", "lock_waits",
                           "locks_state", "locks_read"}
    assert report["locks_state"] == "read"
    first = report["transactions"][0]
    assert set(first) >= {"transid", "node_id", "api_node", "state", "age_s", "operations"}
    assert first["age_s"] >= 600 and first["state"] == "Started" and first["api_node"] == 50
    assert all(t["age_s"] >= 10 for t in report["transactions"])
    waits = report["lock_waits"]
    assert [w["depth"] for w in waits] == [3, 2, 1]
    assert set(waits[0]) >= {"waiter_transid", "holder_transid", "table", "wait_s", "fragment"}
    assert waits[-1]["holder_transid"] == first["transid"] and waits[-1]["table"] == "shop.orders"
    assert waits[0]["chain"][-1] == first["transid"] and len(waits[0]["chain"]) == 4
    assert all(0 <= w["wait_s"] < 1.2 for w in waits)  # each wait is retried at 1.2 s
    assert report["locks_read"]["transactions_min_age_s"] == 10


def test_txn_age_moves_the_threshold_of_the_live_command(
        threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]) -> None:
    ts = threaded_sim("lock-chain", speed=1e-6, sql=True)
    assert main(once(ts, "--section", "locks", "--txn-age", "45")) == 0
    out = capsys.readouterr().out
    assert "Transactions idle 45 s or more (ndbinfo.cluster_transactions, read " in out
    assert "Lock waits (ndbinfo.cluster_locks, read " in out and "deepest chain 3" in out
    assert "shop.orders" in out and " Receiving " not in out  # idle 14 s: left out


def test_a_bad_txn_age_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("-1", "ten", "1e3", "86401"):
        with pytest.raises(SystemExit) as exit_:
            main(["demo", "--once", "--txn-age", bad])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "--txn-age" in err and "Traceback" not in err


def test_the_section_is_read_only_when_asked_and_goes_in_the_bundle() -> None:
    section = triage_section("locks")
    assert section is not None and not section.default and section.bundle_file == "locks.txt"
    assert {"transactions", "locks"} <= bundle_panels()
    assert not {"transactions", "locks"} & default_panels()


def test_the_long_transaction_is_a_finding_with_or_without_the_section(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--scenario", "lock-chain", "--once", "--json", "--section",
                 "findings,locks"]) == 0
    report = json.loads(capsys.readouterr().out)
    (found,) = [f for f in report["findings"] if f["id"] == "long_transaction"]
    assert found["severity"] == "warning" and "MySQL connection 41" in found["summary"]
    # Without the locks section only the oldest transaction past 60 s is read (one row,
    # in the background): the holder is still a finding, named the same.
    assert main(["demo", "--scenario", "lock-chain", "--once", "--json", "--section",
                 "findings"]) == 0
    report = json.loads(capsys.readouterr().out)
    (alone,) = [f for f in report["findings"] if f["id"] == "long_transaction"]
    assert alone["summary"].split(" idle ")[0] == found["summary"].split(" idle ")[0]
    assert "MySQL connection 41" in alone["summary"]


def test_the_bundle_holds_locks_txt(threaded_sim: Callable[..., Any], tmp_path: Any) -> None:
    import tarfile

    ts = threaded_sim("lock-chain", speed=1e-6, sql=True)
    bundle = tmp_path / "b.tar.gz"
    assert main(["report", "--bundle", str(bundle), "-c", ts.connectstring, "--mysql-host",
                 "127.0.0.1", "--mysql-port", str(ts.sim.sql_port), "--mysql-user", "root",
                 "--no-host", "--events-seconds", "0"]) == 0
    with tarfile.open(bundle) as tar:
        text = tar.extractfile("ndbtop-bundle/locks.txt").read().decode()  # type: ignore[union-attr]
        manifest = tar.extractfile("ndbtop-bundle/MANIFEST.txt").read().decode()  # type: ignore[union-attr]
    assert "Transactions idle 10 s or more (ndbinfo.cluster_transactions, read " in text
    assert "deepest chain 3" in text and "shop.payments" in text
    assert "locks.txt: transactions idle 10 s or more" in manifest


def test_without_a_sql_node_nothing_read_is_shown_as_none(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--scenario", "lock-chain", "--no-sql", "--once", "--section",
                 "locks"]) == 0
    out = capsys.readouterr().out
    assert ("(ndbinfo.cluster_transactions): not read: no SQL node (--mysql-host)" in out)
    assert "Lock waits (ndbinfo.cluster_locks): not read: no SQL node (--mysql-host)" in out
    assert ": none" not in out
    assert main(["demo", "--scenario", "lock-chain", "--no-sql", "--once", "--json",
                 "--section", "locks"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["transactions"] is None and report["lock_waits"] is None
    assert report["locks_state"] == "no SQL node"
    assert report["locks_note"] == ("ndbinfo.cluster_transactions not read: no SQL node "
                                    "(--mysql-host)")


def test_read_and_empty_stays_an_empty_list(capsys: pytest.CaptureFixture[str]) -> None:
    # threads: the SQL node answers, no transaction idles 10 s.
    assert main(["demo", "--scenario", "threads", "--once", "--json", "--section", "locks"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["transactions"] == [] and report["lock_waits"] == []
    assert report["locks_state"] == "read" and "locks_note" not in report
    assert main(["demo", "--scenario", "threads", "--once", "--section", "locks"]) == 0
    out = capsys.readouterr().out
    assert "(ndbinfo.cluster_transactions, read 0 s ago): none" in out
    assert "Lock waits (ndbinfo.cluster_locks, read 0 s ago): none" in out


def _snap(state: SourceState | None, *, read: tuple[str, ...] = (),
          unavailable: tuple[tuple[str, str], ...] = ()) -> ClusterSnapshot:
    sample = NdbinfoSample(taken_at=10.0, ndb_version=(8, 4, 3), txn_age_s=10,
                           read_at=tuple((panel, 9.0) for panel in read),
                           unavailable=unavailable)
    sources = () if state is None else (SourceStatus("ndbinfo", state, "root@10.0.0.9:3306",
                                                     error="refused"),)
    return ClusterSnapshot(taken_at=10.0, wall=10.0, interval=1.0, sources=sources,
                           ndbinfo=sample)


DENIED = "SELECT command denied to user 'ndbtop'@'localhost' for table 'cluster_locks'"


@pytest.mark.parametrize(("snap", "state", "transactions", "waits"), [
    (_snap(None), "no SQL node", "not read: no SQL node (--mysql-host)",
     "not read: no SQL node (--mysql-host)"),
    (_snap(SourceState.DISABLED), "no SQL node", "not read: no SQL node (--mysql-host)",
     "not read: no SQL node (--mysql-host)"),
    (_snap(SourceState.RETRYING), "SQL node not answering",
     "not read: the SQL node at root@10.0.0.9:3306 is not answering: refused",
     "not read: the SQL node at root@10.0.0.9:3306 is not answering: refused"),
    (_snap(SourceState.CONNECTED), "not read yet", "not read yet", "not read yet"),
    (_snap(SourceState.CONNECTED, read=("transactions",), unavailable=(("locks", DENIED),)),
     "unavailable", "read 1 s ago): none", f"not read: unavailable: {DENIED}"),
    (_snap(SourceState.CONNECTED, read=("transactions", "locks")), "read",
     "read 1 s ago): none", "read 1 s ago): none"),
])
def test_each_state_says_why_a_list_was_not_read(snap: ClusterSnapshot, state: str,
                                                 transactions: str, waits: str) -> None:
    out = locks_json(snap)
    assert out["locks_state"] == state
    assert (out["transactions"] is None) == ("not read" in transactions)
    assert (out["lock_waits"] is None) == ("not read" in waits)
    assert [out["transactions"], out["lock_waits"]].count([]) == (
        ("not read" not in transactions) + ("not read" not in waits))
    assert ("locks_note" in out) == (state != "read")
    text = locks_text(snap)
    assert text[1].startswith("Transactions ") and text[1].endswith(transactions)
    assert text[3].startswith("Lock waits ") and text[3].endswith(waits)
    assert sum(DENIED in line for line in text) == (state == "unavailable")


def test_the_bundle_without_a_sql_node_says_what_it_could_not_read(
        threaded_sim: Callable[..., Any], tmp_path: Any) -> None:
    import tarfile

    ts = threaded_sim("lock-chain", speed=1e-6)
    bundle = tmp_path / "b.tar.gz"
    assert main(["report", "--bundle", str(bundle), "-c", ts.connectstring, "--no-sql",
                 "--no-host", "--events-seconds", "0"]) == 0
    with tarfile.open(bundle) as tar:
        def member(name: str) -> str:
            return tar.extractfile(f"ndbtop-bundle/{name}").read().decode()  # type: ignore[union-attr]
        locks, tables, membership = (member(n) for n in ("locks.txt", "tables.txt",
                                                          "membership.txt"))
    assert "(ndbinfo.cluster_transactions): not read: no SQL node" in locks
    assert "(ndbinfo.cluster_locks): not read: no SQL node" in locks and "none" not in locks
    assert "no SQL node: memory per table is read from" in tables
    assert "(no SQL node: president and successor from get status" in membership


def test_a_sql_node_not_connected_to_the_data_nodes_is_named(
        capsys: pytest.CaptureFixture[str]) -> None:
    # initial-start: the data nodes are starting, the SQL node refuses ndbinfo.
    assert main(["demo", "--once", "--json", "--section", "locks"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["transactions"] is None and report["lock_waits"] is None
    assert report["locks_state"] == "SQL node not answering"
    assert "not connected to the data nodes" in report["locks_note"]
