"""Every SQL text ndbtop sends to a SQL node, and which NDB versions can answer it.

Each statement starts with ``/* ndbtop */`` so a DBA can tell ndbtop's queries
apart in the process list and the slow log. Each ``ndbinfo`` query scans every
data node, so the collector sends few of them: a fast tier every refresh, one
slow-tier query per refresh in rotation, and the thread layout only when it
may have changed.

The large results are made small on the SQL node: ``transporters`` (a row per
pair of nodes) is summed per data node, and ``cpustat`` (a row per thread of
the cluster, read at every refresh) comes as text: each row joined into one
string by ``CONCAT``, and all of them into one result row by ``GROUP_CONCAT``
(:attr:`Query.packed`). PyMySQL decodes every row and column in Python; one row
of text costs a twentieth of 1,536 rows of eight columns. The per-node sums of the disk
page buffer (read at every refresh) and of ``diskstat``, and the log and memory tables
(a row per log part or memory type of every node) come as text too; a sum is joined
through a derived table, as ``GROUP_CONCAT`` cannot take an aggregate.

Versions are encoded as NDB does, ``(major << 16) | (minor << 8) | build``. The
"since" versions are those of ndbinfo.md §5; where a table arrived in two
release lines at once (threadblocks in 7.1.17 and 7.2.2) the older one is used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.version import make_version, version_text

TAG = "/* ndbtop */"
"""The comment every statement starts with."""

NEWEST = make_version(255, 255, 255)
"""Stands for an NDB version that could not be found out: assume every table exists."""

SINCE: dict[str, int] = {
    "nodes": make_version(7, 1, 1),
    "counters": make_version(7, 1, 1),
    "diskpagebuffer": make_version(7, 1, 1),
    "logspaces": make_version(7, 1, 1),
    "logbuffers": make_version(7, 1, 1),
    "memoryusage": make_version(7, 1, 1),
    "transporters": make_version(7, 1, 1),
    "transporters.connect_count": make_version(7, 5, 0),
    "threadblocks": make_version(7, 1, 17),
    "threadstat": make_version(7, 1, 17),
    "disk_write_speed_aggregate_node": make_version(7, 4, 1),
    "restart_info": make_version(7, 4, 2),
    "threads": make_version(7, 5, 2),
    "cpustat": make_version(7, 5, 2),
    "processes": make_version(7, 5, 7),
    "diskstat": make_version(8, 0, 19),
    "config_values": make_version(7, 5, 0),
    "membership": make_version(7, 1, 26),
    "memory_per_fragment": make_version(7, 4, 1),
    "cluster_transactions": make_version(7, 1, 17),
    "server_transactions": make_version(7, 1, 17),
    "cluster_locks": make_version(7, 5, 4),
}
"""First NDB version with each table (or ``table.column``) that ndbtop reads."""


FIELD_SEPARATOR = " "
"""Between the columns of a text row (ndbinfo's numbers, states and addresses have none)."""
ROW_SEPARATOR = ";"
"""Between the text rows of a packed result."""
GROUP_CONCAT_MAX_LEN = 64 * 1024 * 1024
"""``group_concat_max_len`` asked for at connect: MySQL's default (1,024 bytes) would cut a
packed result; ``max_allowed_packet`` still bounds it, and a cut result is detected."""


@dataclass(frozen=True, **SLOTS)
class Query:
    """One statement: the panel it feeds and the ``ndbinfo`` table it reads."""

    panel: str
    """The :class:`~ndbtop.model.ndbinfo.NdbinfoSample` field it fills, or a cache name."""
    table: str
    sql: str
    packed: str | None = None
    """For a text query, the same rows in one: ``COUNT(*)`` and every row's text joined by
    :data:`ROW_SEPARATOR`; ``sql`` then returns one text column per row."""
    fields: int = 0
    """Columns in each row text of a text query; 0 for a query read as typed columns."""
    text_field: int | None = None
    """Where the last column of a row text goes in the parser's column order: a column
    that may hold a space is sent last and split off whole (None: the order is the same)."""
    fallback: Query | None = None
    """A statement of the same panel and columns without what ``table`` adds (a joined
    view): sent when this one fails on a table, and from then on while connected; this
    one's failure is then said of ``table``."""


def _tidy(sql: str) -> str:
    return f"{TAG} {' '.join(sql.split())}"


def tagged(panel: str, table: str, sql: str) -> Query:
    """A query of ``panel`` reading ``table``, tagged and on one line."""
    return Query(panel, table, _tidy(sql))


def text_query(
    panel: str,
    table: str,
    columns: Sequence[str],
    derived: str = "",
    text_field: int | None = None,
) -> Query:
    """A query of ``columns`` of ``ndbinfo.table`` whose rows come as text (see
    :attr:`Query.packed`); a column that can be NULL must be given as ``COALESCE(c, '')``,
    as ``CONCAT`` of a NULL is NULL. With ``derived``, the columns are those of that
    statement's result, read as a derived table."""
    row = "CONCAT(" + f", '{FIELD_SEPARATOR}', ".join(columns) + ")"
    source = f"FROM ({' '.join(derived.split())}) AS t" if derived else f"FROM ndbinfo.{table}"
    return Query(
        panel,
        table,
        _tidy(f"SELECT {row} {source}"),
        _tidy(f"SELECT COUNT(*), GROUP_CONCAT({row} SEPARATOR '{ROW_SEPARATOR}') {source}"),
        len(columns),
        text_field,
    )


def or_empty(columns: Sequence[str]) -> tuple[str, ...]:
    """Each column as text, ``''`` for NULL: read as NULL is, by :func:`~ndbtop.ndbinfo.rows.to_int`
    and :func:`~ndbtop.ndbinfo.rows.to_text`."""
    return tuple(f"COALESCE({c}, '')" for c in columns)


def _summed_text_query(panel: str, table: str, sums: Sequence[str]) -> Query:
    """``node_id`` and the sum of each of ``sums`` over a node's rows, as text."""
    summed = ", ".join(f"SUM({c}) AS {c}" for c in sums)
    grouped = f"SELECT node_id, {summed} FROM ndbinfo.{table} GROUP BY node_id"
    return text_query(panel, table, or_empty(("node_id", *sums)), derived=grouped)


def split_text_rows(text: str | bytes | None) -> list[str]:
    """The row texts of a packed result (:attr:`Query.packed`); none for NULL."""
    if text is None:
        return []
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return text.split(ROW_SEPARATOR)


# Connection set-up.

CURRENT_USER = tagged("account", "", "SELECT CURRENT_USER()")
"""The account the server matched, for the GRANT a privilege error needs."""

VERSION_VARIABLE = tagged("version", "", "SELECT @@ndbinfo_version")
"""The SQL node's NDB version, encoded; unknown to servers without NDB."""

VERSION_FROM_PROCESSES = tagged(
    "version",
    "processes",
    "SELECT node_version FROM ndbinfo.processes WHERE node_type = 'NDB' LIMIT 1",
)
"""A data node's version text, such as ``mysql-8.4.3 ndb-8.4.3`` (7.5.7 and later)."""

SET_GROUP_CONCAT_MAX_LEN = Query(
    "packing", "", f"{TAG} SET SESSION group_concat_max_len = {GROUP_CONCAT_MAX_LEN}"
)
"""Lets a packed result (:attr:`Query.packed`) hold every row."""

# Fast tier: every refresh.

CPUSTAT = text_query(
    "threads",
    "cpustat",
    ("node_id", "thr_no", "OS_user", "OS_system", "thread_exec", "thread_spinning",
     "thread_send", "thread_buffer_full"),
)
"""Per-thread CPU over the last second, joined with the cached thread layout client-side.

The one large result read at every refresh (a row per thread of the cluster), as text, with
only the figures something shows or ranks threads by.
"""

THREADSTAT_CPU = tagged(
    "threads",
    "threadstat",
    """SELECT node_id, thr_no, thr_nm, os_tid, os_now, os_ru_utime, os_ru_stime
    FROM ndbinfo.threadstat""",
)
"""Before 7.5.2: CPU time counters per thread (µs) and the clock (ms), for deltas."""

DISK_PAGE_BUFFER = _summed_text_query(
    "disk_page_buffer",
    "diskpagebuffer",
    ("page_requests_direct_return", "page_requests_wait_queue", "page_requests_wait_io",
     "pages_read", "pages_written", "pages_written_lcp", "log_waits"),
)
"""Page cache counters summed over each node's PGMAN instances, as text (a row per node:
144 of eight numbers in the largest clusters, at every refresh)."""

# Thread layout: on connect and when it may have changed.

THREAD_NAMES = tagged(
    "thread_names", "threads", "SELECT node_id, thr_no, thread_name FROM ndbinfo.threads"
)
THREAD_BLOCKS = tagged(
    "thread_blocks",
    "threadblocks",
    "SELECT node_id, thr_no, block_name, block_instance FROM ndbinfo.threadblocks",
)
THREAD_OS_IDS = tagged(
    "thread_ids", "threadstat", "SELECT node_id, thr_no, os_tid FROM ndbinfo.threadstat"
)

# Slow tier: one per refresh, in rotation.

NODES = tagged(
    "nodes",
    "nodes",
    "SELECT node_id, uptime, status, start_phase, config_generation FROM ndbinfo.nodes",
)
DISK_WRITE_SPEED = tagged(
    "disk_write_speed",
    "disk_write_speed_aggregate_node",
    """SELECT node_id, backup_lcp_speed_last_sec, redo_speed_last_sec,
    backup_lcp_speed_last_10sec, redo_speed_last_10sec,
    backup_lcp_speed_last_60sec, redo_speed_last_60sec, io_lag
    FROM ndbinfo.disk_write_speed_aggregate_node LEFT JOIN
    (SELECT node_id, SUM(slowdowns_due_to_io_lag) AS io_lag
    FROM ndbinfo.disk_write_speed_aggregate GROUP BY node_id) AS per_ldm USING (node_id)""",
)
"""Each node's write speeds, with the seconds its LDM threads were slowed down because the
redo log's writes lag (``slowdowns_due_to_io_lag``, a counter, summed on the SQL node from
the per-LDM table of the same release)."""
_LOG_COLUMNS = or_empty(("node_id", "log_id", "log_part", "total", "used", "log_type"))
"""A log's columns as text, its type last (the parser reads it second)."""
LOG_SPACES = text_query("log_spaces", "logspaces", _LOG_COLUMNS, text_field=1)
MEMORY = text_query(
    "memory",
    "memoryusage",
    or_empty(("node_id", "used", "used_pages", "total", "total_pages", "memory_type")),
    text_field=1,
)
"""Memory by node and type, as text: the type (``Data memory``) last, as it holds spaces."""
RESTART_INFO = tagged("restart_info", "restart_info", "SELECT * FROM ndbinfo.restart_info")
"""All columns: the ``secs_*`` phases are read by name from the result."""
_LINKS = """SELECT node_id, COUNT(*) AS links, {connects} AS connects,
    SUM(bytes_sent) AS bytes_sent, SUM(bytes_received) AS bytes_received,
    GROUP_CONCAT(IF(status = 'CONNECTED', NULL, remote_node_id)) AS down{flags}
    FROM ndbinfo.transporters WHERE remote_node_id <> node_id GROUP BY node_id"""
TRANSPORTERS = tagged(
    "links",
    "transporters",
    _LINKS.format(
        connects="SUM(connect_count)",
        flags=""",
        GROUP_CONCAT(IF(overloaded = 0, NULL, remote_node_id)) AS overloaded,
        GROUP_CONCAT(IF(slowdown = 0, NULL, remote_node_id)) AS slowdown,
        GROUP_CONCAT(IF(overload_count + slowdown_count = 0, NULL,
        CONCAT(remote_node_id, ':', overload_count, ':', slowdown_count))) AS pressure""",
    ),
)
"""Every data node's links summed, with the nodes it is not connected to, or overloaded or
slowed down towards, and the links that ever were (``remote:overload_count:slowdown_count``,
since the link connected): a row per data node, where the table has one per pair of nodes (7,152
for 48 data nodes and 150 slots). A link to itself, which old versions list, is left out."""
TRANSPORTERS_BEFORE_7_5 = tagged("links", "transporters", _LINKS.format(connects="0", flags=""))
LOG_BUFFERS = text_query("log_buffers", "logbuffers", _LOG_COLUMNS, text_field=1)
DISK_STAT = _summed_text_query(
    "disk_stat",
    "diskstat",
    ("reads_completed", "writes_completed", "log_writes_completed", "get_page_reqs_issued"),
)


def _counted(name: str, *counters: str) -> str:
    names = ", ".join(f"'{c}'" for c in counters)
    return f"SUM(IF(counter_name IN ({names}), val, 0)) AS {name}"


COUNTERS = tagged(
    "activity",
    "counters",
    f"""SELECT node_id, {_counted("transactions", "TRANSACTIONS")},
    {_counted("commits", "COMMITS")}, {_counted("aborts", "ABORTS")},
    {_counted("key_reads", "READS")}, {_counted("key_writes", "WRITES")},
    {_counted("scans", "TABLE_SCANS", "RANGE_SCANS")}, {_counted("operations", "OPERATIONS")}
    FROM ndbinfo.counters GROUP BY node_id""",
)
"""What each data node's transaction coordinators and query handlers did since it started,
summed on the SQL node: a row per node, where the table has one per counter of every block
instance."""

CONFIG_VALUES = tagged(
    "config_values",
    "config_values",
    """SELECT node_id, config_param, config_value FROM ndbinfo.config_values
    WHERE config_param IN (112, 126, 140, 160, 168, 184, 185, 186, 200, 632)""",
)
"""The parameters each data node runs with that ndbtop compares with the management server's
configuration (ids of mgmapi_config_parameters.h; 10 rows a node)."""

SLOW_ROTATION = (
    NODES,
    COUNTERS,
    DISK_WRITE_SPEED,
    LOG_SPACES,
    MEMORY,
    RESTART_INFO,
    TRANSPORTERS,
    LOG_BUFFERS,
    DISK_STAT,
    CONFIG_VALUES,
)
"""The slow tier in the order it is read, newest schema."""

RATE_PANELS = frozenset({"links", "disk_write_speed"})
"""Slow panels whose rates come from what grew between two of their readings
(``send_buffer_overload``, ``redo_io_lag``): the second of ``--once``'s two samples reads them
again whatever the rotation, so that a one-shot judges those rules."""


@dataclass(frozen=True, **SLOTS)
class QueryPlan:
    """What to send to a server of one NDB version.

    ``thread_cpu`` reads ``cpustat`` (7.5.2+) or ``threadstat`` before that, None
    before 7.1.17; ``thread_layout`` lists the reads that build the thread cache;
    ``unsupported`` names each panel the version cannot fill, with the reason.
    """

    version: int | None
    thread_cpu: Query | None
    disk_page_buffer: Query
    thread_layout: tuple[Query, ...]
    slow: tuple[Query, ...]
    unsupported: tuple[tuple[str, str], ...]

    @property
    def all_queries(self) -> tuple[Query, ...]:
        """Every statement the plan may send during a refresh."""
        fast = (self.thread_cpu,) if self.thread_cpu else ()
        return (*fast, self.disk_page_buffer, *self.thread_layout, *self.slow)


def has(version: int | None, name: str) -> bool:
    """Whether a table (or ``table.column``) of :data:`SINCE` exists in ``version``."""
    return (NEWEST if version is None else version) >= SINCE[name]


def plan_for(version: int | None) -> QueryPlan:
    """The statements for a server of ``version`` (None: unknown, assume the newest)."""
    unsupported: list[tuple[str, str]] = []

    def missing(panel: str, table: str) -> None:
        needs = version_text(SINCE[table])
        runs = version_text(version) if version else "?"
        unsupported.append((panel, f"ndbinfo.{table} needs NDB {needs} (this is {runs})"))

    if has(version, "cpustat"):
        thread_cpu: Query | None = CPUSTAT
        layout: tuple[Query, ...] = (THREAD_NAMES, THREAD_BLOCKS, THREAD_OS_IDS)
    elif has(version, "threadstat"):
        thread_cpu, layout = THREADSTAT_CPU, (THREAD_BLOCKS,)
    else:
        thread_cpu, layout = None, ()
        missing("threads", "threadstat")
    slow = []
    for query in SLOW_ROTATION:
        if query is TRANSPORTERS and not has(version, "transporters.connect_count"):
            query = TRANSPORTERS_BEFORE_7_5
        if has(version, query.table):
            slow.append(query)
        else:
            missing(query.panel, query.table)
    return QueryPlan(version, thread_cpu, DISK_PAGE_BUFFER, layout, tuple(slow), tuple(unsupported))


_NDB_VERSION_TEXT = re.compile(r"ndb-([0-9]{1,20})\.([0-9]{1,20})\.([0-9]{1,20})")


def parse_node_version(text: str) -> int | None:
    """The NDB version in ``processes.node_version`` (``mysql-8.4.3 ndb-8.4.3``), encoded."""
    found = _NDB_VERSION_TEXT.search(text)
    if found is None:
        return None
    major, minor, build = (int(g) for g in found.groups())
    if not all(0 <= p <= 255 for p in (major, minor, build)):
        return None
    return make_version(major, minor, build)
