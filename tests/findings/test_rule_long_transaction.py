"""``long_transaction``: only from a recent read of ``cluster_transactions`` (read only while
the Locks view shows or ``--once --section locks`` asks), judged by ndbtop's own 60 s."""

from __future__ import annotations

from ndbtop.findings import evaluate
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.locks import Transaction
from ndbtop.model.ndbinfo import NdbinfoSample
from tests.findings.test_rules_server_words import NOW, snap

OLD = Transaction(2, 1, (1 << 64) - 1, "Started", 12, 0, 601, 50, 41)
YOUNG = Transaction(3, 1, 77, "Started", 2, 0, 60, 51)


def sample(*transactions: Transaction, read_ago: float | None = 1.0) -> NdbinfoSample:
    read = () if read_ago is None else (("transactions", NOW - read_ago),)
    return NdbinfoSample(taken_at=NOW, ndb_version=None, transactions=transactions,
                         read_at=read)


def test_a_transaction_idle_over_a_minute_is_a_warning_naming_its_client() -> None:
    found = [f for f in evaluate(snap(ndbinfo=sample(YOUNG, OLD))) if f.id == "long_transaction"]
    (f,) = found
    assert f.severity is Severity.WARNING and f.threshold.by == "ndbtop"
    assert f"transaction {(1 << 64) - 1} of API node 50, MySQL connection 41 idle 601 s" in (
        f.summary)
    assert f.evidence[0].source == "ndbinfo.cluster_transactions" and f.evidence[0].age_s == 1.0


def test_nothing_from_a_minute_exactly_an_old_read_or_no_read() -> None:
    for ndbinfo in (sample(YOUNG), sample(OLD, read_ago=45.0), sample(OLD, read_ago=None),
                    None):
        assert not [f for f in evaluate(snap(ndbinfo=ndbinfo)) if f.id == "long_transaction"]
