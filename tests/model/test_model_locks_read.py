"""The long transaction the header names: from the last read of ``cluster_transactions``,
with that read's age, and no longer once the read is too old to say much of now."""

from __future__ import annotations

from ndbtop.model.locks import Transaction
from ndbtop.model.locks_read import SHOWN_FOR_S, long_transaction
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot


def snap_read(seconds_ago: float, idle_s: int) -> ClusterSnapshot:
    txn = Transaction(2, 1, 0x3200000041, "Started", 12, 0, idle_s, 50, 41)
    sample = NdbinfoSample(taken_at=1000.0, ndb_version=None, transactions=(txn,),
                           read_at=(("transactions", 1000.0 - seconds_ago),))
    return ClusterSnapshot(taken_at=1000.0, wall=1000.0, interval=1.0, sources=(),
                           ndbinfo=sample)


def test_named_from_the_last_read_with_its_age_until_that_read_is_too_old() -> None:
    found = long_transaction(snap_read(3.0, 612))
    assert found is not None and found[0].inactive_s == 612 and found[1] == 3.0
    assert long_transaction(snap_read(SHOWN_FOR_S, 612)) is not None
    assert long_transaction(snap_read(SHOWN_FOR_S + 1, 612)) is None
    # Idle a minute or less: not long.
    assert long_transaction(snap_read(3.0, 60)) is None
