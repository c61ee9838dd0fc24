"""Data node hosts as the snapshot holds them: one report per host, local or over SSH.

A host report carries the host's state (``connecting``, ``ok`` or ``error`` with the
reason), the rates of its last interval (the same :class:`~ndbtop.host.view.HostView`
the local collector gives), and, while a data node on it initialises its redo log, the
progress measured on the host (redo-init.md §5): which FragLog files are open and the
process's ``write_bytes`` against the expected total.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.host.rates import DiskRates, ThreadRates
from ndbtop.host.samples import DiskFree, RedoFiles
from ndbtop.host.view import HostView
from ndbtop.model.ndbinfo import ThreadCpu

SPARSE_FRACTION = 32
"""SPARSE initialisation writes one 32 KiB page per MiB: about 1/32 of the log."""
SMOOTHING = 0.3
"""Weight of the newest interval in the smoothed write rate."""


@dataclass(frozen=True, **SLOTS)
class RedoMeasure:
    """Redo-log initialisation of one data node, measured on its host.

    ``files_done`` counts, over every log part, the files before the one it has open;
    ``bytes_written`` is the process's ``write_bytes``; totals come from the
    configuration and are ``None`` without it.
    """

    node_id: int
    files_done: int | None
    files_total: int | None
    bytes_written: int | None
    bytes_expected: int | None
    rate_bytes_per_s: float | None
    eta_s: float | None

    @property
    def fraction(self) -> float | None:
        """Share of the expected bytes written (0..1), ``None`` when unknown."""
        if self.bytes_written is None or not self.bytes_expected:
            return None
        return min(self.bytes_written / self.bytes_expected, 1.0)


@dataclass(frozen=True, **SLOTS)
class RedoSize:
    """What the configuration says of a node's redo log (config-protocol.md)."""

    parts: int
    files_per_part: int
    log_bytes: int
    sparse: bool

    @property
    def expected_write_bytes(self) -> int:
        """Bytes initialisation writes: the whole log (FULL) or about 1/32 (SPARSE)."""
        return self.log_bytes // SPARSE_FRACTION if self.sparse else self.log_bytes


@dataclass(frozen=True, **SLOTS)
class NodeStart:
    """When a data node's start began, read on its host (epoch seconds).

    ``process_started_at``: the start of the data node's worker process (``/proc/PID/stat``
    field 22 against ``btime``; the angel starts a new worker for every start).
    ``redo_began_at``: the birth of its first redo log files (``S0.FragLog`` of each log
    part), when the file system records it; ``None`` otherwise.
    """

    node_id: int
    process_started_at: float | None
    redo_began_at: float | None = None


@dataclass(frozen=True, **SLOTS)
class ErrorLogEntry:
    """The newest entry of a data node's ``ndb_<id>_error.log``, read on its host.

    ``problem`` says why there is no entry (file missing, host unreachable).
    """

    node_id: int
    path: str
    time: str | None = None
    status: str | None = None
    error_code: int | None = None
    meaning: str | None = None
    caused_by: str | None = None
    trace_file: str | None = None
    problem: str | None = None
    classification: str | None = None
    """The classification ``Message:`` gives in parentheses (``Arbitration error``)."""
    error_data: str | None = None
    error_object: str | None = None
    program: str | None = None
    pid: int | None = None
    thread: int | None = None
    """The thread that failed (``Pid: N thr: T``); its trace file ends in ``_tT``."""
    version: str | None = None
    trace_path: str | None = None
    trace_threads: int | None = None
    """The number of per-thread trace files (``[t1..tN]``)."""
    unreadable: tuple[str, ...] = ()
    """Fields that do not read as ErrorReporter writes them (shown as marked, not dropped)."""
    raw_error: str | None = None
    """The ``Error:`` text when it is not a number."""

    def summary(self) -> str:
        """One line: the code, its meaning and classification, when, and the trace file."""
        if self.problem:
            return f"{self.path}: {self.problem}"
        code = (str(self.error_code) if self.error_code is not None
                else f"{self.raw_error} (unreadable)" if "Error" in self.unreadable else "?")
        meaning = self.meaning or "?"
        if self.classification:
            meaning += f" ({self.classification})"
        parts = [f"error {code}: {meaning}", self.time or "time unknown"]
        if self.caused_by:
            parts.append(self.caused_by)
        if self.trace_file:
            parts.append(f"trace file {self.trace_file}")
        return "; ".join(parts)

    def lines(self) -> tuple[str, ...]:
        """The whole entry, field by field, as the file has it (unreadable fields marked)."""
        if self.problem:
            return (self.summary(),)
        trace = self.trace_path
        if trace and self.trace_threads:
            trace += f" [t1..t{self.trace_threads}]"
        pid = None if self.pid is None else (
            f"{self.pid}" + (f" thr: {self.thread}" if self.thread is not None else ""))
        code = str(self.error_code) if self.error_code is not None else self.raw_error
        rows = (
            ("Time", self.time), ("Status", self.status),
            ("Message", self.meaning if not self.classification
             else f"{self.meaning} ({self.classification})"),
            ("Error", code), ("Error data", self.error_data),
            ("Error object", self.error_object), ("Program", self.program), ("Pid", pid),
            ("Version", self.version), ("Trace file name", self.trace_file),
            ("Trace file path", trace),
        )
        out = []
        for name, value in rows:
            if value is None and name not in self.unreadable:
                continue
            mark = " (unreadable)" if name in self.unreadable else ""
            first, *rest = (value or "").split("\n")
            out.append(f"{name}: {first}{mark}")
            out.extend(f"  {more}" for more in rest)
        return tuple(out)


PROCESS_STATES = ("angel and worker", "worker only", "angel only", "none")
"""What runs on a data node's host for its node id: the angel restarts the worker, so
``angel only`` is a node between two of its starts, or one whose worker keeps failing."""


@dataclass(frozen=True, **SLOTS)
class NodeOnHost:
    """What a data node's host shows of it while the node is not STARTED.

    ``processes`` is one of :data:`PROCESS_STATES`, ``None`` until the host is read;
    ``data_dir`` is the file system of its configured DataDir (``problem`` says why not).
    """

    node_id: int
    processes: str | None = None
    data_dir: DiskFree | None = None
    problem: str | None = None

    def summary(self) -> str:
        """One line: the data node processes on the host and the DataDir's free space."""
        procs = {
            None: "processes not read yet",
            "none": "no ndbmtd/ndbd runs for it",
            "angel only": "only its angel runs (no worker)",
            "worker only": "its worker runs (no angel)",
            "angel and worker": "its angel and worker run",
        }[self.processes]
        d = self.data_dir
        if d is None:
            disk = self.problem or "DataDir not read yet"
        else:
            disk = (f"DataDir {d.path} on {d.mount}: {_gib(d.available_bytes)} free of "
                    f"{_gib(d.total_bytes)} ({d.used_pct}% used)" + (", FULL" if d.full else ""))
        return f"{procs}; {disk}"


def _gib(n: int) -> str:
    return f"{n / (1 << 30):,.1f} GiB"


@dataclass(frozen=True, **SLOTS)
class HostReport:
    """One data node host: where it is read from, its state and its last rates.

    ``via`` is ``"local"`` or ``"ssh"``; ``state`` is ``"connecting"``, ``"ok"`` or
    ``"error"`` (``error`` then holds the reason, such as ssh's last message);
    ``last_ok`` is the monotonic time of the last good sample.
    """

    host: str
    via: str
    node_ids: tuple[int, ...]
    state: str
    error: str | None = None
    last_ok: float | None = None
    view: HostView | None = None
    redo_init: tuple[RedoMeasure, ...] = ()
    error_logs: tuple[ErrorLogEntry, ...] = ()
    down_nodes: tuple[NodeOnHost, ...] = ()
    node_starts: tuple[NodeStart, ...] = ()

    def age(self, now: float) -> float | None:
        """Seconds since the last good sample, ``None`` if none yet."""
        return None if self.last_ok is None else max(now - self.last_ok, 0.0)

    def busiest_disk(self) -> DiskRates | None:
        """The disk with the highest %util in the last interval, ``None`` if none known."""
        disks = [d for d in (self.view.disks if self.view else ()) if d.util_pct is not None]
        return max(disks, key=lambda d: d.util_pct or 0.0) if disks else None

    @property
    def util_pct(self) -> float | None:
        """%util of the busiest disk."""
        d = self.busiest_disk()
        return None if d is None else d.util_pct


def smoothed_rate(previous: float | None, delta: int | None, elapsed: float | None) -> float | None:
    """The write rate after one more interval (exponential smoothing), bytes/s."""
    if delta is None or elapsed is None or elapsed <= 0 or delta < 0:
        return previous
    now = delta / elapsed
    return now if previous is None else SMOOTHING * now + (1 - SMOOTHING) * previous


def files_done(files: RedoFiles) -> int | None:
    """Files done over all parts: per part, the number of the file it has open."""
    if not files.open_files:
        return None
    current: dict[int, int] = {}
    for part, file_no in files.open_files:
        current[part] = max(current.get(part, 0), file_no)
    return sum(current.values())


def redo_measure(
    node_id: int, files: RedoFiles, rate: float | None, size: RedoSize | None
) -> RedoMeasure:
    """The measured progress of one node from its process's files and write rate."""
    expected = size.expected_write_bytes if size else None
    written = files.write_bytes
    eta = None
    if expected is not None and written is not None and rate:
        eta = max(expected - written, 0) / rate
    return RedoMeasure(
        node_id=node_id,
        files_done=files_done(files),
        files_total=size.parts * size.files_per_part if size else None,
        bytes_written=written,
        bytes_expected=expected,
        rate_bytes_per_s=rate,
        eta_s=eta,
    )


def host_of_node(hosts: Iterable[HostReport], node_id: int) -> HostReport | None:
    """The report of the host a data node runs on (the first that names it)."""
    return next((h for h in hosts if node_id in h.node_ids), None)


def host_threads(hosts: Iterable[HostReport]) -> tuple[ThreadCpu, ...]:
    """The data node threads read on their hosts, as thread rows of the Threads view.

    For when ndbinfo cannot be read (no SQL node, as in an initial start): each node's
    threads in kernel tid order, numbered from 0 in that order (not ndbinfo's thr_no),
    named by the kernel (``comm``, which is ``ndbmtd`` for every thread of a data node:
    it never names them), with their OS user and system CPU. A node is taken
    from the first host that runs it.
    """
    seen: set[int] = set()
    out: list[ThreadCpu] = []
    for h in hosts:
        if h.state != "ok" or h.view is None:
            continue
        by_node: dict[int, list[ThreadRates]] = {}
        for t in h.view.threads:
            if t.node_id is not None and t.node_id not in seen and (
                    not h.node_ids or t.node_id in h.node_ids):
                by_node.setdefault(t.node_id, []).append(t)
        for node_id in sorted(by_node):
            seen.add(node_id)
            for i, t in enumerate(sorted(by_node[node_id], key=lambda t: t.tid)):
                out.append(ThreadCpu(node_id, i, t.thread_name or "?", (), t.user_pct,
                                     t.system_pct, os_tid=t.tid))
    return tuple(sorted(out, key=lambda t: (t.node_id, t.thr_no)))
