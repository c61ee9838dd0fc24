"""Joining the two sides of replication: which source SQL node each replica channel reads
from, how far behind it is, and whether a lost-events incident lies ahead of it.

A channel's source is the watched SQL node at the channel's ``Source_Host``:``Source_Port``
(no name is looked up: ``127.0.0.1``, ``localhost`` and ``::1`` count as one), else the one
whose ``@@server_id`` is the channel's ``Source_Server_Id`` (a replica that names its
source by a name or an address ndbtop does not use): a server id is unique only within one
replication topology, and an unrelated cluster's SQL node watched beside may share it.
Pure functions: the collector asks the source for the counts they need
(:func:`counts_wanted`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ndbtop.model.replication import BinlogIncident, Channel, Endpoint, Lag, ReplicaThreads
from ndbtop.textnum import is_digits

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_LOG_NUMBER = re.compile(r"\.([0-9]{1,10})$")


def _host_port(target: str) -> tuple[str, int | None]:
    host, sep, port = target.rpartition(":")
    if not sep or not is_digits(port) or (host.count(":") and not host.startswith("[")):
        return target.strip("[]").lower(), None
    return host.strip("[]").lower(), int(port)


def _same_host(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a == b or (a in LOOPBACK and b in LOOPBACK)


def source_of(threads: ReplicaThreads, endpoints: Sequence[Endpoint],
              replica: str) -> Endpoint | None:
    """The watched SQL node a channel reads from: the one at its address, else (a name or
    an address ndbtop does not watch it by) the one of its server id."""
    others = [e for e in endpoints if e.target != replica]
    for e in others:
        host, port = _host_port(e.target)
        if _same_host(host, threads.source_host) and port == threads.source_port:
            return e
    if threads.source_server_id is not None:
        return next((e for e in others if e.server_id == threads.source_server_id), None)
    return None


def applied_epoch(replica: Endpoint, threads: ReplicaThreads,
                  source: Endpoint | None, applied: Mapping[int, int] | None = None
                  ) -> int | None:
    """The newest epoch the replica applied from the channel's source server
    (``ndb_apply_status``, by the source's server id); ``applied``: the replica's rows by
    server id (:func:`applied_by_server`), made once for all its channels."""
    server_id = threads.source_server_id
    if server_id is None and source is not None:
        server_id = source.server_id
    if applied is None:
        return replica.applied_from(server_id)
    return None if server_id is None else applied.get(server_id)


def applied_by_server(replica: Endpoint) -> dict[int, int]:
    """The replica's ``ndb_apply_status`` rows by server id (the first row of an id, as
    :meth:`Endpoint.applied_from` reads them): a look-up per channel, not a scan."""
    out: dict[int, int] = {}
    for server_id, epoch in replica.applied:
        out.setdefault(server_id, epoch)
    return out


def counts_wanted(endpoints: Sequence[Endpoint]) -> set[tuple[str, int]]:
    """(source target, applied epoch) of every channel whose lag the source must count."""
    out = set()
    for replica in endpoints:
        by_server = applied_by_server(replica)
        for threads in replica.channels:
            source = source_of(threads, endpoints, replica.target)
            applied = applied_epoch(replica, threads, source, by_server)
            if source is not None and applied is not None and source.newest_epoch is not None:
                out.add((source.target, applied))
    return out


def derive_lag(source: Endpoint | None, threads: ReplicaThreads, applied: int | None,
               count: tuple[int, bool] | None, why_not_counted: str | None = None) -> Lag:
    """The channel's lag: epochs counted on the source, seconds derived at its rate."""
    if source is None:
        return Lag(None, None, f"its source {threads.source} is not watched: the epochs "
                               "behind need the source's ndb_binlog_index")
    if source.newest_epoch is None:
        why = dict(source.unavailable).get("ndb_binlog_index")
        return Lag(None, None, "no epoch in the source's ndb_binlog_index" +
                   (f" ({why})" if why else ""))
    if applied is None:
        server = threads.source_server_id or source.server_id
        return Lag(None, None, f"no row for server_id {server} in the replica's "
                               "ndb_apply_status")
    if count is None:
        return Lag(None, None, why_not_counted or "not counted")
    epochs, at_least = count
    if epochs == 0:
        return Lag(0, 0.0, "caught up: the source's newest epoch is applied")
    rate, window = source.epoch_rate, source.epoch_rate_window_s
    behind = f"{'at least ' if at_least else ''}{epochs} epoch{'' if epochs == 1 else 's'}"
    if rate is None:
        return Lag(epochs, None, f"{behind} behind; seconds need the source's epoch rate, "
                                 "measured from its second read", at_least)
    if rate <= 0:
        return Lag(epochs, None, f"{behind} behind; the source wrote no epoch in the last "
                                 f"{window:.0f} s, so no rate to derive seconds from", at_least)
    return Lag(epochs, epochs / rate,
               f"derived: {behind} / {rate:.1f} epochs/s written on the source over the "
               f"last {window:.0f} s", at_least)


def _log_order(file: str) -> int | None:
    m = _LOG_NUMBER.search(file)
    return int(m.group(1)) if m else None


def incident_ahead(source: Endpoint | None, threads: ReplicaThreads,
                   applied: int | None) -> BinlogIncident | None:
    """The newest incident in the source's binary log that the replica has not applied
    past: its applied epoch is older than the first epoch after the incident (or, without
    epochs, its applier's position in the source's binary log is before the incident).
    None when it cannot be told (an incident the replica may have skipped is not
    assumed ahead)."""
    if source is None:
        return None
    for incident in reversed(source.incidents):
        if applied is not None:
            if incident.epoch_after is None or applied < incident.epoch_after:
                return incident
            continue
        mine, theirs = _log_order(threads.exec_source_file), _log_order(incident.file)
        if mine is None or theirs is None or threads.exec_source_pos is None:
            continue
        if (mine, threads.exec_source_pos) <= (theirs, incident.position):
            return incident
    return None


def join_channels(endpoints: Sequence[Endpoint],
                  counts: Mapping[tuple[str, int], tuple[int, bool] | str],
                  channel_conflicts: Mapping[str, float] | None = None) -> tuple[Channel, ...]:
    """Every replica channel of ``endpoints`` with its source, lag and incident.

    ``counts`` holds, by (source target, applied epoch), the epochs behind and whether
    that is a lower bound, or why it could not be counted; ``channel_conflicts`` the
    conflicts per minute by channel key, where the replica gives them per channel.
    """
    out = []
    for replica in endpoints:
        by_server = applied_by_server(replica)
        for threads in replica.channels:
            source = source_of(threads, endpoints, replica.target)
            applied = applied_epoch(replica, threads, source, by_server)
            found = counts.get((source.target, applied)) if source and applied is not None \
                else None
            count = found if isinstance(found, tuple) else None
            lag = derive_lag(source, threads, applied, count,
                             found if isinstance(found, str) else None)
            channel = Channel(
                replica=replica.target, channel=threads.channel, threads=threads,
                source=source.target if source else None, applied_epoch=applied,
                source_epoch=source.newest_epoch if source else None, lag=lag,
                incident=incident_ahead(source, threads, applied),
                read_at=replica.read_at)
            per_channel = (channel_conflicts or {}).get(channel.key)
            rate = per_channel if per_channel is not None else replica.conflicts_per_min
            out.append(channel if rate is None else replace(channel, conflicts_per_min=rate))
    return tuple(out)
