"""Several SQL nodes, one at a time: read ndbinfo from the first that answers.

``--mysql-host sql1,sql2:3307,sql3`` lists candidates in order of preference,
as ``-c`` lists management servers. The reader keeps one connection, to the
first candidate that answers. When it fails (connection lost, server shut
down or gone away, any error of the whole server) the reader moves on to the
next candidates within the same refresh, so no refresh is lost while one
answers. Every ``probe_every`` seconds while it reads from a later candidate
it tries the ones before it again, and goes back to the first that answers.
Passwords, TLS files and timeouts are the same for every candidate.

With ``--mysql-host auto`` the candidates are the API nodes that the
management server reports connected (their addresses from ``get status``),
each with the user's port, in node id order.

Every method blocks: run them in a worker thread, one at a time, as
:class:`~ndbtop.collect.sql.SqlSource` does.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ndbtop.compat import SLOTS
from ndbtop.errors import SqlError, UsageError
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.locks import DEFAULT_TXN_AGE_S
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.ndbinfo.errors import ClusterNotConnected
from ndbtop.ndbinfo.options import MysqlOptions, options_summary
from ndbtop.textnum import is_digits

AUTO = "auto"
PROBE_EVERY = 10.0
"""Seconds between two attempts to go back to a preferred SQL node."""


def parse_host_list(text: str) -> tuple[tuple[str, int | None], ...]:
    """``sql1,sql2:3307,[fd00::5]:3306`` as (host, port or None) pairs, in order."""
    out: list[tuple[str, int | None]] = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            raise UsageError(f"--mysql-host {text!r}: an empty host in the list")
        host, port_text = item, ""
        if item.startswith("["):
            end = item.find("]")
            if end < 0:
                raise UsageError(f"--mysql-host {item!r}: no closing ']'")
            host, rest = item[1:end], item[end + 1 :]
            if rest and not rest.startswith(":"):
                raise UsageError(f"--mysql-host {item!r}: expected [address]:port")
            port_text = rest[1:]
        elif item.count(":") == 1:
            host, port_text = item.split(":")
        port: int | None = None
        if port_text:
            if not is_digits(port_text) or not 0 < int(port_text) < 65536:
                raise UsageError(f"--mysql-host {item!r}: invalid port {port_text!r}")
            port = int(port_text)
        if not host:
            raise UsageError(f"--mysql-host {item!r}: no host")
        out.append((host, port))
    return tuple(out)


def is_host_list(text: str | None) -> bool:
    """True when ``--mysql-host`` names several SQL nodes, one with its port, or ``auto``."""
    if not text:
        return False
    return text == AUTO or "," in text or (
        (":" in text and text.count(":") == 1) or text.startswith("[")
    )


NO_ADDRESS = ("", "0.0.0.0", "::")
"""Addresses ``get status`` may give an API node that say nothing (ndb_mgm skips them)."""
_ADDRESS = re.compile(r"[A-Za-z0-9._:%-]{1,253}")
"""What an address from the network must look like to be connected to (and shown)."""


def auto_candidates(base: MysqlOptions, nodes: Sequence[NodeStatus]) -> tuple[MysqlOptions, ...]:
    """``--mysql-host auto``: the connected API nodes with an address, by node id, each with
    the user's port."""
    hosts = [
        (n.address, None)
        for n in sorted(nodes, key=lambda n: n.node_id)
        if n.type == "API" and n.status == "CONNECTED" and n.address not in NO_ADDRESS
        and _ADDRESS.fullmatch(n.address)
    ]
    unique = list(dict.fromkeys(hosts))
    return candidate_options(base, unique)


def candidate_options(base: MysqlOptions, hosts: Sequence[tuple[str, int | None]]) -> tuple[
        MysqlOptions, ...]:
    """One set of options per host: the same account, password and TLS files; the host's
    own port if given, else the common one; TCP always (no socket)."""
    return tuple(
        replace(base, host=host, port=port if port is not None else base.port, socket=None)
        for host, port in hosts
    )


@dataclass(frozen=True, **SLOTS)
class Candidate:
    """A SQL node the reader may use, and how it stands."""

    target: str
    state: str
    """``in use``, ``standby`` (not tried since the one in use answered), or ``down``."""
    error: str | None = None


class Reader(Protocol):
    """What the failover reader needs of one SQL node's reader (NdbinfoCollector)."""

    options: MysqlOptions

    def connect(self) -> None:
        """Open the connection."""

    def sample(self) -> NdbinfoSample:
        """Read one sample."""

    def close(self) -> None:
        """Close the connection."""


class FailoverReader:
    """An ndbinfo reader over several SQL nodes, using one at a time.

    ``candidates()`` gives the options of every SQL node in order of preference (a
    fixed list, or the connected API nodes for ``auto``); ``make`` builds a reader for
    one of them. ``switches`` lists every change of SQL node, as (from, to, why).
    """

    def __init__(
        self,
        candidates: Callable[[], tuple[MysqlOptions, ...]],
        make: Callable[[MysqlOptions], Reader],
        *,
        probe_every: float = PROBE_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._candidates = candidates
        self._make = make
        self.probe_every = probe_every
        self._clock = clock
        self._readers: dict[str, Reader] = {}
        self._current: Reader | None = None
        self._errors: dict[str, str] = {}
        self._order: tuple[str, ...] = ()
        self._last_probe = 0.0
        self.switches: list[tuple[str | None, str, str]] = []
        self.cluster_nodes: Callable[[], Sequence[NodeStatus]] = lambda: ()
        """The nodes ``get status`` reports (set by the hub; read by ``auto``)."""
        self._threads_wanted = True
        self._wanted: frozenset[str] = frozenset()
        self._txn_age_s = DEFAULT_TXN_AGE_S
        self._transactions_asked = False

    @property
    def wanted(self) -> frozenset[str]:
        """The panels read on demand (passed on to every SQL node's reader)."""
        return self._wanted

    @wanted.setter
    def wanted(self, panels: frozenset[str]) -> None:
        self._wanted = panels
        for reader in self._readers.values():
            _want_panels(reader, panels)

    @property
    def transactions_asked(self) -> bool:
        """Whether the full transactions panel is asked for (passed on to every reader)."""
        return self._transactions_asked

    @transactions_asked.setter
    def transactions_asked(self, asked: bool) -> None:
        self._transactions_asked = asked
        for reader in self._readers.values():
            _ask_transactions(reader, asked)

    @property
    def txn_age_s(self) -> int:
        """The age from which transactions are read (passed on to every SQL node's reader)."""
        return self._txn_age_s

    @txn_age_s.setter
    def txn_age_s(self, seconds: int) -> None:
        self._txn_age_s = seconds
        for reader in self._readers.values():
            _want_txn_age(reader, seconds)

    @property
    def threads_wanted(self) -> bool:
        """Whether samples read the per-thread CPU (passed on to every SQL node's reader)."""
        return self._threads_wanted

    @threads_wanted.setter
    def threads_wanted(self, wanted: bool) -> None:
        self._threads_wanted = wanted
        for reader in self._readers.values():
            _want_threads(reader, wanted)

    def bind_cluster(self, nodes: Callable[[], Sequence[NodeStatus]]) -> None:
        """Where the cluster's nodes come from (for ``--mysql-host auto``)."""
        self.cluster_nodes = nodes

    @property
    def target(self) -> str | None:
        """``user@host:port`` of the SQL node in use, or None."""
        return None if self._current is None else options_summary(self._current.options)

    def candidates(self) -> tuple[Candidate, ...]:
        """Every SQL node known, in order, with its state."""
        current = self.target
        out = []
        for target in self._order:
            if target == current:
                out.append(Candidate(target, "in use"))
            elif target in self._errors:
                out.append(Candidate(target, "down", self._errors[target]))
            else:
                out.append(Candidate(target, "standby"))
        return tuple(out)

    def _reader(self, options: MysqlOptions) -> Reader:
        key = options_summary(options)
        reader = self._readers.get(key)
        if reader is None:
            reader = self._readers[key] = self._make(options)
            _want_threads(reader, self._threads_wanted)
            _want_panels(reader, self._wanted)
            _want_txn_age(reader, self._txn_age_s)
            _ask_transactions(reader, self._transactions_asked)
        return reader

    def _ordered(self) -> list[Reader]:
        options = self._candidates()
        if not options:
            raise ClusterNotConnected(
                "no SQL node to read ndbinfo from: the management server reports no "
                "connected API node with an address (--mysql-host auto)"
            )
        readers = [self._reader(o) for o in options]
        self._order = tuple(options_summary(r.options) for r in readers)
        return readers

    def connect(self) -> None:
        """Connect to the first SQL node that answers; raises naming every one that failed."""
        self.close()
        self._use_first(self._ordered(), "start")

    def _use_first(self, readers: Sequence[Reader], why: str) -> NdbinfoSample | None:
        failures: list[SqlError] = []
        for reader in readers:
            target = options_summary(reader.options)
            try:
                reader.connect()
            except SqlError as exc:
                self._errors[target] = str(exc)
                failures.append(exc)
                continue
            self._errors.pop(target, None)
            self._switch(reader, why)
            return None
        raise _all_failed(failures)

    def _switch(self, reader: Reader, why: str) -> None:
        before = self.target
        self._current = reader
        after = options_summary(reader.options)
        if before != after:
            self.switches.append((before, after, why))

    def read_all_config_values(self) -> tuple[tuple[int, int, str], ...]:
        """Every parameter each data node runs with, from the SQL node in use."""
        if self._current is None or not hasattr(self._current, "read_all_config_values"):
            raise SqlError("no SQL node in use")
        return self._current.read_all_config_values()  # type: ignore[no-any-return]

    def sample(self) -> NdbinfoSample:
        """One sample from the SQL node in use; on its failure, from the next that answers
        (or from a preferred one that answers again)."""
        readers = self._ordered()
        current = self._current
        if current is not None and readers and current is not readers[0]:
            self._probe(readers)
            current = self._current
        failures: list[SqlError] = []
        if current is not None:
            try:
                return current.sample()
            except SqlError as exc:
                target = options_summary(current.options)
                self._errors[target] = str(exc)
                current.close()
                self._current = None
                failures.append(exc)
                why = f"{target} failed: {exc}"
        else:
            why = "no SQL node in use"
        for reader in readers:
            target = options_summary(reader.options)
            if reader is current:
                continue
            try:
                reader.connect()
                sample = reader.sample()
            except SqlError as exc:
                reader.close()
                self._errors[target] = str(exc)
                failures.append(exc)
                continue
            self._errors.pop(target, None)
            self._switch(reader, why)
            return sample
        raise _all_failed(failures) if failures else SqlError(why)

    def _probe(self, readers: Sequence[Reader]) -> None:
        now = self._clock()
        if now - self._last_probe < self.probe_every:
            return
        self._last_probe = now
        current = self._current
        for reader in readers:
            if reader is current:
                return
            target = options_summary(reader.options)
            try:
                reader.connect()
            except SqlError as exc:
                self._errors[target] = str(exc)
                continue
            self._errors.pop(target, None)
            if current is not None:
                current.close()
            self._switch(reader, f"{target} answers again")
            return

    def close(self) -> None:
        """Close every connection; never raises."""
        for reader in self._readers.values():
            reader.close()
        self._current = None


def _want_threads(reader: Reader, wanted: bool) -> None:
    if hasattr(reader, "threads_wanted"):
        reader.threads_wanted = wanted  # type: ignore[attr-defined]


def _ask_transactions(reader: Reader, asked: bool) -> None:
    if hasattr(reader, "transactions_asked"):
        reader.transactions_asked = asked  # type: ignore[attr-defined]


def _want_panels(reader: Reader, panels: frozenset[str]) -> None:
    if hasattr(reader, "wanted"):
        reader.wanted = panels  # type: ignore[attr-defined]


def failover_reader(
    base: MysqlOptions, make: Callable[[MysqlOptions], Reader]
) -> tuple[FailoverReader, str]:
    """The reader for ``--mysql-host`` naming a list or ``auto``, and its summary line."""
    if base.host == AUTO:
        holder: list[FailoverReader] = []
        reader = FailoverReader(lambda: auto_candidates(base, holder[0].cluster_nodes()), make)
        holder.append(reader)
        return reader, f"{base.user}@(connected API nodes):{base.port}"
    fixed = candidate_options(base, parse_host_list(base.host))
    summary = f"{base.user}@" + ",".join(o.target for o in fixed)
    return FailoverReader(lambda: fixed, make), summary


def _all_failed(failures: Sequence[SqlError]) -> SqlError:
    """One error naming every SQL node's failure; a cluster that none of them reaches is
    a wait (as during an initial start), anything else a failure."""
    if len(failures) == 1:
        return failures[0]
    text = "; ".join(str(f) for f in failures) or "no SQL node answered"
    if failures and all(isinstance(f, ClusterNotConnected) for f in failures):
        return ClusterNotConnected(text)
    return SqlError(f"no SQL node answers: {text}")


def _want_txn_age(reader: Reader, seconds: int) -> None:
    if hasattr(reader, "txn_age_s"):
        reader.txn_age_s = seconds  # type: ignore[attr-defined]
