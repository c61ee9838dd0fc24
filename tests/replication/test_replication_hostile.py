"""A replica SQL node whose answers are hostile (or just very large): many channels, each
naming a source server of its own, an ``ndb_apply_status`` row for each, channel names that
change at every read. What the source is asked, the work of a read and what is kept stay
bounded; text and numbers were already checked where they are read (rows.py, textnum).
"""

from __future__ import annotations

from typing import Any

from ndbtop.collect.replication import COUNTS_PER_SOURCE, ReplicationSource
from ndbtop.model.clock import RealClock
from ndbtop.model.replication import Endpoint, ReplicaThreads
from ndbtop.model.replication_join import counts_wanted, join_channels
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.replication.reader import EndpointRead
from ndbtop.replication.rows import ApplierStatus
from ndbtop.replication.setup import EndpointSpec, ReplicationSetup
from tests.bounds.conftest import LINEAR_LIMIT, work_growth

SOURCE, REPLICA = "10.0.0.1:3306", "10.0.0.2:3306"


def _channels(n: int, tag: str = "c") -> tuple[ReplicaThreads, ...]:
    """``n`` channels reading from the source's address, each naming a server id of its
    own (none the source's: found by address)."""
    return tuple(ReplicaThreads(f"{tag}{i}", "10.0.0.1", 3306, 1000 + i, "Yes", "Yes", 0)
                 for i in range(n))


def _applied(n: int) -> tuple[tuple[int, int], ...]:
    return tuple((1000 + i, 5000 + i) for i in range(n))


def _endpoints(n: int) -> tuple[Endpoint, Endpoint]:
    source = Endpoint(SOURCE, "this", server_id=1, newest_epoch=10**6, read_at=1.0)
    replica = Endpoint(REPLICA, "dr", server_id=2, channels=_channels(n),
                       applied=_applied(n), read_at=1.0)
    return source, replica


def test_joining_many_channels_is_linear() -> None:
    def join(endpoints: tuple[Endpoint, Endpoint]) -> object:
        counts = {k: (1, False) for k in counts_wanted(endpoints)}
        return join_channels(endpoints, counts)

    joined = join(_endpoints(20))
    assert len(joined) == 20 and {c.applied_epoch for c in joined} == set(range(5000, 5020))
    assert work_growth(_endpoints, join, 500) < LINEAR_LIMIT


class Reader:
    """A SQL node's reader that answers what the test says, and counts the lags asked."""

    def __init__(self, options: MysqlOptions, *, wall: Any) -> None:
        self.target = options.target
        self.asked: list[int] = []
        self.reads: list[EndpointRead] = []

    def connect(self) -> None:
        pass

    def read(self) -> EndpointRead:
        return self.reads.pop(0)

    def count_after(self, applied: int) -> tuple[int, bool]:
        self.asked.append(applied)
        return 3, False

    def close(self) -> None:
        pass


def _source() -> tuple[ReplicationSource, Reader, Reader]:
    setup = ReplicationSetup((EndpointSpec(MysqlOptions(host="10.0.0.1"), "this"),
                              EndpointSpec(MysqlOptions(host="10.0.0.2"), "dr")))
    clock = RealClock()
    source = ReplicationSource(setup, clock, 1.0, lambda: None, make_reader=Reader)
    primary, replica = source.readers  # type: ignore[misc]
    return source, primary, replica  # type: ignore[return-value]


async def test_a_replica_of_many_channels_costs_the_source_a_bounded_number_of_counts(
) -> None:
    source, primary, replica = _source()
    n = 200
    primary.reads.append(EndpointRead(server_id=1, newest_epoch=10**6))
    replica.reads.append(EndpointRead(server_id=2, threads=_channels(n), applied=_applied(n)))
    state = await source.poll_once()
    assert len(primary.asked) == COUNTS_PER_SOURCE
    counted = [c for c in state.channels if c.lag.epochs is not None]
    assert len(state.channels) == n and len(counted) == COUNTS_PER_SOURCE
    skipped = next(c for c in state.channels if c.lag.epochs is None)
    assert skipped.lag.basis == (f"not counted: the source counts {COUNTS_PER_SOURCE} lags at "
                               "most per read")


async def test_channel_names_that_change_at_every_read_do_not_pile_up() -> None:
    source, primary, replica = _source()
    for read in range(5):
        primary.reads.append(EndpointRead(server_id=1))
        replica.reads.append(EndpointRead(server_id=2, applier=tuple(
            ApplierStatus(f"r{read}-{i}", None, i) for i in range(100))))
        await source.poll_once()
    kept = [k for k in source._conflicts if "/" in k]
    assert len(kept) == 100 and all(k.startswith(f"{REPLICA}/r4-") for k in kept)
