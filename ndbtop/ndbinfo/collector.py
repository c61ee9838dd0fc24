"""The blocking ``ndbinfo`` collector: one SQL connection, one sample per refresh.

Load rule: every ``ndbinfo`` query scans every data node, so one :meth:`sample`
sends at most :data:`MAX_QUERIES_PER_SAMPLE` statements (and the panels asked for
on demand, or once again, :attr:`NdbinfoCollector.again`):

* the fast tier, every time: per-thread CPU (``cpustat``, joined client-side with
  the cached thread layout; every :data:`THREADS_UNWANTED_EVERY` samples only while
  nothing wants it) and the disk page buffer summed per node;
* when the thread layout may have changed (an unknown thread appeared, a node's
  uptime went back or a node came back), the layout reads, at most two per sample;
* with the statements left, one slow-tier query, in rotation; the other slow
  panels keep their last values.

:meth:`connect` reads the version, the thread layout and every slow panel once,
so the first sample is complete. A table the account may not read, or that this
server lacks, makes only its panel unavailable; a connection problem raises a
:class:`~ndbtop.errors.SqlError` and the caller reconnects with backoff.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

import pymysql

from ndbtop.errors import SqlError
from ndbtop.mgm.nodeids import known_nodes
from ndbtop.model.locks import DEFAULT_TXN_AGE_S
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.table_memory import READ_EVERY
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import queries_triage as qt
from ndbtop.ndbinfo import rows as r
from ndbtop.ndbinfo import rows_threads as rt
from ndbtop.ndbinfo.deadline import Watchdog
from ndbtop.ndbinfo.errors import (
    SqlConnectionLost,
    SqlTableError,
    SqlTimeout,
)
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.ndbinfo.panels import PARSERS, build_sample, parse_texts
from ndbtop.ndbinfo.statements import Statements, Tally

MAX_QUERIES_PER_SAMPLE = 4
"""Statements one :meth:`NdbinfoCollector.sample` may send."""

MAX_ON_DEMAND_PER_SAMPLE = 6
"""Statements one sample may send for the panels asked for on demand (:data:`qt.ON_DEMAND`),
beyond :data:`MAX_QUERIES_PER_SAMPLE`: they are read only while something shows them, and a
bundle, which asks for every one, reads them all in one sample."""

ON_DEMAND_EVERY: dict[str, float] = {"tables": READ_EVERY}
"""Seconds an on-demand panel's last read stays good while it is still asked for: memory per
table moves slowly, and ``memory_per_fragment`` has a row per fragment replica of every table
and index (75,000 on ``max``) for every data node to scan."""

MAX_LAYOUT_READS_PER_SAMPLE = 2
"""Thread-layout reads one sample may add to the fast tier (leaving no slow query)."""

DATABASE = "ndbinfo"

THREADS_UNWANTED_EVERY = 30
"""While no one wants the per-thread CPU (:attr:`NdbinfoCollector.threads_wanted`), it is
read at one sample in this many: a view that opens then has figures at most that old."""

RARE_PANELS = {"links": 4, "config_values": 4}
"""Slow panels read only every N-th round of the rotation: ``transporters`` has a row for
every pair of nodes (7,152 rows for 48 data nodes and 150 slots) for every data node to scan,
and changes little."""


def slow_rotation(slow: Sequence[q.Query]) -> tuple[q.Query, ...]:
    """The order slow-tier queries are read in, one per sample; rare panels skip rounds."""
    rounds = max(RARE_PANELS.values(), default=1)
    order: list[q.Query] = []
    for i in range(rounds):
        order.extend(query for query in slow if i % RARE_PANELS.get(query.panel, 1) == 0)
    return tuple(order)


class NdbinfoCollector(Statements):
    """Reads :class:`NdbinfoSample` values from a SQL node over one pymysql connection.

    Every method blocks; run them in a worker thread, one at a time. ``clock``
    stamps each sample (``time.monotonic`` by default; the demo passes the
    simulator's clock).
    """

    def __init__(
        self, options: MysqlOptions, *, clock: Callable[[], float] = time.monotonic,
        background_transactions: bool = False,
    ) -> None:
        self.options = options
        self._clock = clock
        self.background_transactions = background_transactions
        """Whether samples read the oldest long transaction in the background (the live
        view, ``--once``, ``check``, the exporter), within their budget."""
        self.transactions_asked = False
        """Whether the full ``transactions`` panel is asked for, even held for a later
        sample: it names the oldest transaction, so no background read is made."""
        self.threads_wanted = True
        """Whether every sample reads the per-thread CPU. Every data node scans a row per
        thread for it (4,608 in the largest clusters) and the client builds a value per
        thread: a live view that shows no thread wants them only now and then. A sample
        that does not read them keeps those last read (``read_at`` tells when)."""
        self.wanted: frozenset[str] = frozenset()
        """The panels of :data:`qt.ON_DEMAND` samples read (a view, ``--once --section``, a
        bundle ask for them); never read otherwise, not even at connect."""
        self.again: frozenset[str] = frozenset()
        """Slow panels the next sample reads whatever the rotation, beside its statements
        (then none): ``--once`` asks for :data:`~ndbtop.ndbinfo.queries.RATE_PANELS` at its
        second sample."""
        self.txn_age_s = DEFAULT_TXN_AGE_S
        """The age from which ``transactions`` are read (``--txn-age``)."""
        self._txn_age_read = DEFAULT_TXN_AGE_S
        self._conn: pymysql.connections.Connection | None = None
        self._version: int | None = None
        self._account: str | None = None
        self._plan = q.plan_for(None)
        self._rotation = slow_rotation(self._plan.slow)
        self._reset()

    def _reset(self) -> None:
        # The first sample of a connection reads the threads, wanted or not.
        self._threads_skipped = THREADS_UNWANTED_EVERY
        self._panels: dict[str, tuple[Any, ...]] = {}
        # Per panel: the rows read, those of node ids NDB can have, and the other ids.
        self._checked: dict[str, tuple[Any, Any, frozenset[int]]] = {}
        self._read_at: dict[str, float] = {}
        self._unavailable: dict[str, str] = {}
        self._names: dict[rt.ThreadKey, str] = {}
        self._blocks: dict[rt.ThreadKey, tuple[str, ...]] = {}
        self._tids: dict[rt.ThreadKey, int] = {}
        self._layout: dict[rt.ThreadKey, rt.ThreadLayout] = {}
        self._layout_pending: list[q.Query] = []
        self._unknown_tried: frozenset[rt.ThreadKey] = frozenset()
        self._uptimes: dict[int, int] | None = None
        self._cpu_counters: dict[rt.ThreadKey, rt.CpuCounters] = {}
        self._cpustat_join = rt.CpustatJoin()
        self._next_slow = 0
        self._packing = False
        self._unpacked: set[q.Query] = set()
        self._fallen_back: dict[q.Query, str] = {}
        self._rows_read: dict[str, tuple[Any, Any, tuple[Any, ...]]] = {}
        """A panel's rows (texts, or rows of values) and columns at its last read, and the
        values they gave."""

    @property
    def version(self) -> int | None:
        """The NDB version found at connect, encoded; None if it could not be found."""
        return self._version

    @property
    def connected(self) -> bool:
        """Whether a connection is open."""
        return self._conn is not None

    def connect(self) -> None:
        """Open the connection, find the version and read every panel once, all within the
        connect timeout and twice the read timeout (:mod:`ndbtop.ndbinfo.deadline`)."""
        self.close()
        self._reset()
        self._account = None
        self._open(self._connect_reads)

    def _connect_reads(self) -> None:
        try:
            tally = Tally()
            self._account = self._current_user(tally)
            self._version = self._find_version(tally)
            self._packing = self._allow_packed_results(tally)
            self._plan = q.plan_for(self._version)
            self._rotation = slow_rotation(self._plan.slow)
            for panel, reason in self._plan.unsupported:
                self._unavailable[panel] = reason
            for query in self._plan.thread_layout:
                self._read_layout(query, tally)
            for query in self._plan.slow:
                self._read_panel(query, tally)
        except SqlError:
            self.close()
            raise

    def sample(self) -> NdbinfoSample:
        """One refresh: at most :data:`MAX_QUERIES_PER_SAMPLE` statements, all within twice
        the read timeout."""
        budget = 2 * self.options.read_timeout
        with Watchdog(budget, lambda: self._conn) as watchdog:
            try:
                return self._sample_now()
            except SqlError:
                if watchdog.fired:
                    raise SqlTimeout(f"the SQL node at {self.options.target} did not complete "
                                     f"a refresh within {budget:g} s") from None
                raise

    def _sample_now(self) -> NdbinfoSample:
        if self._conn is None:
            raise SqlConnectionLost(f"not connected to the SQL node at {self.options.target}")
        tally = Tally()
        taken_at = self._clock()
        plan = self._plan
        try:
            cpu_rows = None
            threads: tuple[Any, ...] = ()
            reading = plan.thread_cpu is not None and (
                self.threads_wanted or self._threads_skipped >= THREADS_UNWANTED_EVERY - 1
            )
            self._threads_skipped = 0 if reading else self._threads_skipped + 1
            if reading:
                assert plan.thread_cpu is not None
                cpu_rows = self._run_panel(plan.thread_cpu, tally)
            self._read_panel(plan.disk_page_buffer, tally)
            if plan.thread_cpu is not None and cpu_rows is not None:
                # Joined now to find the threads the layout lacks; again if it is read below.
                threads, unknown = self._threads(plan.thread_cpu, cpu_rows)
                self._check_layout(unknown)
            layout_reads = 0
            while (
                self._layout_pending
                and layout_reads < MAX_LAYOUT_READS_PER_SAMPLE
                and tally.queries < MAX_QUERIES_PER_SAMPLE
            ):
                self._read_layout(self._layout_pending[0], tally)
                layout_reads += 1
            rotation = self._rotation
            rotated = None
            if rotation:
                query = rotation[self._next_slow % len(rotation)]
                if tally.queries + self._statements_at_most(query) <= MAX_QUERIES_PER_SAMPLE:
                    self._read_panel(query, tally)
                    self._next_slow += 1
                    rotated = query.panel
            again, self.again = self.again, frozenset()
            for query in plan.slow:
                if query.panel in again and query.panel != rotated:
                    self._read_panel(query, tally)
            self._read_oldest_transaction(tally)
            self._read_on_demand(tally)
        except SqlError:
            self.close()
            raise
        if reading:
            assert plan.thread_cpu is not None
            if cpu_rows is not None:
                if layout_reads:
                    threads, _ = self._threads(plan.thread_cpu, cpu_rows)
                if plan.thread_cpu is q.THREADSTAT_CPU:
                    self._cpu_counters = rt.threadstat_counters(cpu_rows)
            self._panels["threads"] = threads
            self._read_at["threads"] = taken_at
        return self._sample(taken_at, tally)

    def _read_oldest_transaction(self, tally: Tally) -> None:
        """The background read of the oldest long transaction, while no one asks for the
        full ``transactions`` panel (that read names it too), within the sample's budget."""
        query = qt.OLDEST_TRANSACTION
        if (not self.background_transactions or self.transactions_asked
                or "transactions" in self.wanted
                or tally.queries >= MAX_QUERIES_PER_SAMPLE
                or not q.has(self._version, query.table)):
            return
        last = self._read_at.get(query.panel)
        if last is not None and self._clock() - last < qt.OLDEST_TRANSACTION_EVERY:
            return
        self._read_panel(query, tally)

    def _read_on_demand(self, tally: Tally) -> None:
        start = tally.queries
        for panel, query in qt.ON_DEMAND.items():
            if panel not in self.wanted or tally.queries - start >= MAX_ON_DEMAND_PER_SAMPLE:
                continue
            last = self._read_at.get(panel)
            if last is not None and self._clock() - last < ON_DEMAND_EVERY.get(panel, 0.0):
                continue
            if q.has(self._version, query.table):
                if panel == "transactions":
                    query = qt.transactions_query(self.txn_age_s)
                    self._txn_age_read = self.txn_age_s
                self._read_panel(query, tally)
            else:
                self._unavailable[panel] = (
                    f"ndbinfo.{query.table} needs NDB {q.version_text(q.SINCE[query.table])}")

    def read_all_config_values(self) -> tuple[tuple[int, int, str], ...]:
        """Every (node, parameter id, value) of ``ndbinfo.config_values``: one read on
        demand (``ndbtop config --diff-running``), not part of any refresh."""
        if self._conn is None:
            raise SqlConnectionLost(f"not connected to the SQL node at {self.options.target}")
        try:
            rows, _ = self._fetch(qt.ALL_CONFIG_VALUES, Tally())
        except SqlError:
            self.close()
            raise
        return r.parse_config_values(rows)

    def _fetch_panel(self, query: q.Query, tally: Tally) -> tuple[list[Any], list[str]] | None:
        """Rows and columns of a panel's query, or None (and the panel unavailable) on a
        table error."""
        try:
            fetched = self._fetch_or_fallback(query, tally)
        except SqlTableError as exc:
            self._unavailable[query.panel] = str(exc)
            self._panels[query.panel] = ()
            return None
        self._unavailable.pop(query.panel, None)
        if query in self._fallen_back:  # read without the view it joins: named apart
            self._unavailable[query.table] = self._fallen_back[query]
        return fetched

    def _run_panel(self, query: q.Query, tally: Tally) -> list[Any] | None:
        """Rows of a panel's query, or None (and the panel unavailable) on a table error."""
        fetched = self._fetch_panel(query, tally)
        return None if fetched is None else fetched[0]

    def _read_panel(self, query: q.Query, tally: Tally) -> None:
        fetched = self._fetch_panel(query, tally)
        if fetched is None:
            return
        rows, columns = fetched
        last = self._rows_read.get(query.panel)
        if last is not None and last[0] == rows and last[1] == columns:
            # The same rows as at the last read (a counter of an idle node, the
            # configuration, a steady membership): the very same values, which the rules
            # and views know by identity.
            value = last[2]
        else:
            value = (parse_texts(query, rows) if query.fields
                     else PARSERS[query.panel](rows, columns))
            self._rows_read[query.panel] = (rows, columns, value)
        if query.panel == "nodes":
            self._check_uptimes(value)
        self._panels[query.panel] = value
        self._read_at[query.panel] = self._clock()

    # Thread layout cache

    def _read_layout(self, query: q.Query, tally: Tally) -> None:
        with contextlib.suppress(ValueError):
            self._layout_pending.remove(query)
        rows = self._run_panel(query, tally)
        if query is q.THREAD_NAMES:
            self._names = rt.thread_names(rows or ())
        elif query is q.THREAD_BLOCKS:
            self._blocks = rt.thread_blocks(rows or ())
        elif query is q.THREAD_OS_IDS:
            self._tids = rt.thread_os_ids(rows or ())
        self._layout = rt.thread_layout(self._names, self._blocks, self._tids)

    def _check_layout(self, unknown: frozenset[rt.ThreadKey]) -> None:
        """Queue the layout reads when a thread nobody has described appears (once per set)."""
        if unknown and unknown != self._unknown_tried:
            self._unknown_tried = unknown
            self._layout_pending = list(self._plan.thread_layout)

    def _check_uptimes(self, nodes: tuple[Any, ...]) -> None:
        """Queue the layout reads when a node restarted or came back since the last reading."""
        uptimes = {n.node_id: n.uptime_s for n in nodes}
        previous, self._uptimes = self._uptimes, uptimes
        if previous is None:
            return
        if any(node not in previous or up < previous[node] for node, up in uptimes.items()):
            self._unknown_tried = frozenset()
            self._layout_pending = list(self._plan.thread_layout)

    def _threads(
        self, query: q.Query, cpu_rows: list[Any]
    ) -> tuple[tuple[Any, ...], frozenset[rt.ThreadKey]]:
        """The threads of this sample and those the layout does not describe."""
        if query is q.THREADSTAT_CPU:
            threads = rt.threads_from_threadstat(cpu_rows, self._cpu_counters, self._blocks)
            layout = self._layout
            keys = ((t.node_id, t.thr_no) for t in threads)
            return threads, frozenset(key for key in keys if key not in layout)
        return self._cpustat_join(cpu_rows, self._layout)

    def _sample(self, taken_at: float, tally: Tally) -> NdbinfoSample:
        dropped: set[int] = set()
        panels = {}
        for name, rows in self._panels.items():
            # Checked once per read: a panel not read again stays the very same tuple.
            checked = self._checked.get(name)
            if checked is None or checked[0] is not rows:
                bad: set[int] = set()
                checked = (rows, known_nodes(rows, bad), frozenset(bad))
                self._checked[name] = checked
            panels[name] = checked[1]
            dropped |= checked[2]
        return build_sample(taken_at, self._version, panels, self._unavailable, dropped,
                            self._txn_age_read, tuple(self._read_at.items()), tally)
