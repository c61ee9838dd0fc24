"""Joining a replica's channel to the source it reads from, and its lag: epochs counted on
the source, seconds derived at the source's rate (never measured), and an incident ahead."""

from __future__ import annotations

from ndbtop.model.replication import BinlogIncident, Endpoint, ReplicaThreads
from ndbtop.model.replication_join import (
    counts_wanted,
    derive_lag,
    incident_ahead,
    join_channels,
    source_of,
)

E = 4000 << 32


def threads(host: str = "10.0.1.5", port: int | None = 3306, server_id: int | None = 11,
            **kw: object) -> ReplicaThreads:
    return ReplicaThreads("", host, port, server_id, "Yes", "Yes", 0, **kw)  # type: ignore[arg-type]


def source(target: str = "10.0.1.5:3306", **kw: object) -> Endpoint:
    base: dict[str, object] = {"server_id": 11, "binlog_file": "binlog.000012",
                               "binlog_position": 99, "newest_epoch": E + 40,
                               "epoch_rate": 10.0, "epoch_rate_window_s": 60.0}
    base.update(kw)
    return Endpoint(target, "prod", read_at=100.0, **base)  # type: ignore[arg-type]


def replica(t: ReplicaThreads, applied: int | None = E + 10) -> Endpoint:
    return Endpoint("10.0.2.5:3306", "dr", read_at=100.0, channels=(t,),
                    applied=() if applied is None else ((11, applied),))


def test_the_source_is_found_by_server_id_then_by_address() -> None:
    src = source("db1:3306")
    assert source_of(threads(host="10.0.1.5"), [src], "10.0.2.5:3306") is src
    by_address = source("localhost:3306", server_id=None)
    assert source_of(threads(host="127.0.0.1", server_id=None), [by_address], "x") is by_address
    assert source_of(threads(host="10.9.9.9", port=3307, server_id=12), [src], "x") is None


def test_lag_in_epochs_and_the_seconds_derived_from_them() -> None:
    t = threads()
    assert derive_lag(source(), t, E + 10, (300, False)).seconds == 30.0
    lag = derive_lag(source(), t, E + 10, (300, False))
    assert lag.basis == ("derived: 300 epochs / 10.0 epochs/s written on the source over the "
                         "last 60 s")
    assert derive_lag(source(), t, E + 40, (0, False)).seconds == 0.0
    assert derive_lag(source(), t, E + 39, (1, False)).basis.startswith(
        "derived: 1 epoch / 10.0 epochs/s")
    idle = derive_lag(source(epoch_rate=0.0), t, E, (5, False))
    assert (idle.epochs, idle.seconds) == (5, None) and "wrote no epoch" in idle.basis
    first = derive_lag(source(epoch_rate=None), t, E, (5, False))
    assert first.seconds is None and "second read" in first.basis
    assert derive_lag(source(), t, E, (1_000_000, True)).at_least
    assert "not watched" in derive_lag(None, t, E, None).basis
    assert "ndb_apply_status" in derive_lag(source(), t, None, None).basis


def test_an_incident_is_ahead_until_the_replica_applied_past_it() -> None:
    incident = BinlogIncident("LOST_EVENTS", "binlog.000012", 500, "#1 (LOST_EVENTS)",
                              E + 20, E + 25, 90.0)
    src = source(incidents=(incident,))
    t = threads(exec_source_file="binlog.000012", exec_source_pos=400)
    assert incident_ahead(src, t, E + 20) is incident
    assert incident_ahead(src, t, E + 25) is None
    # Without epochs, by the applier's place in the source's binary log.
    assert incident_ahead(src, t, None) is incident
    past = threads(exec_source_file="binlog.000013", exec_source_pos=157)
    assert incident_ahead(src, past, None) is None


def test_channels_joined_with_the_counts_the_source_gave() -> None:
    src, rep = source(), replica(threads())
    assert counts_wanted([src, rep]) == {("10.0.1.5:3306", E + 10)}
    (channel,) = join_channels([src, rep], {("10.0.1.5:3306", E + 10): (30, False)})
    assert (channel.source, channel.replica, channel.lag.epochs) == (
        "10.0.1.5:3306", "10.0.2.5:3306", 30)
    assert channel.label == "10.0.1.5:3306 -> 10.0.2.5:3306"
    (why,) = join_channels([src, rep], {("10.0.1.5:3306", E + 10): "its source does not answer"})
    assert why.lag.epochs is None and why.lag.basis == "its source does not answer"


def test_the_address_the_replica_reads_from_wins_over_a_shared_server_id() -> None:
    # Server ids are unique only within one replication topology: another cluster's SQL
    # node watched beside (here with the same server id 11) is not the channel's source.
    unrelated = source("10.0.3.7:3306")
    real = source("10.0.1.5:3306")
    assert source_of(threads(), [unrelated, real], "10.0.2.5:3306") is real
    assert source_of(threads(host="sql1.prod"), [unrelated], "10.0.2.5:3306") is unrelated
