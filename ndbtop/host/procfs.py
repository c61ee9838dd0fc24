"""Host samples from the text of ``/proc``, as a remote host's fixed script prints it.

The script (:mod:`ndbtop.host.remote`) prints, for every sample, sections that start with
a marker line ``@<token> <kind> [arg]``: ``uptime``, ``disk`` (``/proc/diskstats``),
``stat`` (the ``cpu`` and ``btime`` lines of ``/proc/stat``), ``mem`` (``/proc/meminfo``)
and, for each
``ndbmtd``/``ndbd`` process, ``proc <pid>`` followed by its command line (``C`` then the
arguments separated by ``\\x1e``), the ``stat`` line of each of its threads, its
``write_bytes`` line of ``/proc/<pid>/io`` and the ``ls -l`` lines of its ``FragLog``
file descriptors. The token is random per connection, so no text read on the host can
pose as a marker.

The result is a :class:`~ndbtop.host.samples.HostSample`, the same value the local
collector builds from psutil, so the same rate functions apply; processes are mapped to
node ids by :func:`ndbtop.host.processes.classify`, angels included, as on the local host.
Lines that do not parse are skipped: a process can vanish between two reads. Names are
kept as the host gives them; what shows them escapes them (:mod:`ndbtop.sanitise`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence

from ndbtop.compat import zip_strict
from ndbtop.host.devices import VIRTUAL_PREFIXES
from ndbtop.host.processes import NdbProcess, ProcessInfo, classify
from ndbtop.host.samples import (
    SECTOR_SIZE,
    CpuTimes,
    DiskCounters,
    DiskFree,
    HostSample,
    MemInfo,
    ProcessSeen,
    RedoFiles,
    ThreadSample,
)
from ndbtop.textnum import MAX_TIME, NumberError, int_or_none, is_digits, parse_float, parse_int

ARG_SEPARATOR = "\x1e"
"""What the script puts between command-line arguments (``/proc/<pid>/cmdline`` NULs)."""

_FRAGLOG = re.compile(r"/ndb_([0-9]{1,5})_fs/D([0-9]{1,5})/DBLQH/S([0-9]{1,9})\.FragLog$")
_CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest",
               "guest_nice")


def parse_diskstats(lines: Iterable[str]) -> tuple[DiskCounters, ...]:
    """Every device of ``/proc/diskstats`` lines but memory-backed ones (loop, ram, zram).

    Fields (Documentation/admin-guide/iostats.rst): major minor name reads reads_merged
    sectors_read read_ms writes writes_merged sectors_written write_ms in_flight io_ms ...
    """
    out = []
    for line in lines:
        f = line.split()
        if len(f) < 14 or f[2].startswith(VIRTUAL_PREFIXES):
            continue
        try:
            out.append(
                DiskCounters(
                    f[2], parse_int(f[3]), parse_int(f[7]), parse_int(f[5]) * SECTOR_SIZE,
                    parse_int(f[9]) * SECTOR_SIZE, parse_int(f[6]), parse_int(f[10]),
                    parse_int(f[12]), parse_int(f[4]), parse_int(f[8]),
                )
            )
        except NumberError:
            continue
    return tuple(out)


def parse_cpu(line: str, clk_tck: int) -> CpuTimes | None:
    """The ``cpu`` (all CPUs) line of ``/proc/stat``, in seconds; ``None`` if it is not one."""
    f = line.split()
    if not f or f[0] != "cpu":
        return None
    try:
        ticks = [parse_int(v) for v in f[1:11]]
    except NumberError:
        return None
    ticks += [0] * (10 - len(ticks))
    return CpuTimes(**{k: v / clk_tck for k, v in zip_strict(_CPU_FIELDS, ticks)})


def parse_meminfo(lines: Iterable[str]) -> MemInfo:
    """MemTotal and MemAvailable of ``/proc/meminfo`` lines, in bytes."""
    values: dict[str, int] = {}
    for line in lines:
        key, _, rest = line.partition(":")
        f = rest.split()
        kb = int_or_none(f[0]) if f else None
        if key in ("MemTotal", "MemAvailable") and kb is not None:
            values[key] = kb * 1024
    return MemInfo(values.get("MemTotal"), values.get("MemAvailable"))


def parse_task_stat(line: str) -> tuple[int, str, int, int, int] | None:
    """``(tid, comm, ppid, utime, stime)`` of a ``/proc/<pid>/task/<tid>/stat`` line (ticks).

    The name is between the first ``(`` and the last ``)``: it may hold spaces and
    parentheses itself.
    """
    open_at = line.find(" (")
    close_at = line.rfind(") ")
    if open_at <= 0 or close_at < open_at:
        return None
    rest = line[close_at + 2 :].split(None, 13)
    tid = line[:open_at]
    if len(rest) < 13 or not is_digits(tid):
        return None
    try:
        comm = line[open_at + 2 : close_at]
        return (parse_int(tid), comm, parse_int(rest[1]), parse_int(rest[11]),
                parse_int(rest[12]))
    except NumberError:
        return None


def start_ticks(line: str) -> int | None:
    """Field 22 (``starttime``, clock ticks after boot) of a ``/proc/<pid>/stat`` line."""
    close_at = line.rfind(") ")
    rest = line[close_at + 2 :].split() if close_at > 0 else []
    return int(rest[19]) if len(rest) > 19 and is_digits(rest[19], 20) else None


def fraglog_open(line: str) -> tuple[int, int, int] | None:
    """``(node_id, part, file_no)`` of an ``ls -l /proc/<pid>/fd`` line naming a FragLog file."""
    m = _FRAGLOG.search(line)
    if m is None:
        return None
    node_id, directory, file_no = (parse_int(g) for g in m.groups())
    if directory < 8:
        return None
    return node_id, directory - 8, file_no


class _Proc:
    __slots__ = ("cmdline", "dirs", "files", "name", "pid", "ppid", "start", "tasks",
                 "write_bytes")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.name = ""
        self.ppid: int | None = None
        self.cmdline: tuple[str, ...] = ()
        self.tasks: list[tuple[int, str, int, int, int]] = []
        self.write_bytes: int | None = None
        self.files: list[tuple[int, int, int]] = []
        self.dirs: set[str] = set()
        self.start: int | None = None

    def add(self, line: str) -> None:
        if line.startswith("C "):
            self.cmdline = tuple(a for a in line[2:].split(ARG_SEPARATOR) if a)
        elif is_digits(line[:1]):
            task = parse_task_stat(line)
            if task is not None:
                self.tasks.append(task)
                if task[0] == self.pid:
                    self.name, self.ppid = task[1], task[2]
                    self.start = start_ticks(line)
        elif line.startswith("write_bytes:"):
            self.write_bytes = int_or_none(line[12:])
        elif "FragLog" in line:
            opened = fraglog_open(line)
            if opened is not None:
                self.files.append(opened)
                target = line.rpartition(" -> ")[2]
                if target.endswith(".FragLog") and "/" in target:
                    self.dirs.add(target.rpartition("/")[0])


def parse_sample(lines: Sequence[str], marker: str, clk_tck: int) -> HostSample:
    """One sample's lines (between the ``sample`` and ``end`` markers) as a HostSample.

    ``marker`` is ``@<token> ``; the sample's time is the host's ``/proc/uptime``, so
    rates are over the host's own clock whatever the network delays.
    """
    section = ""
    uptime = 0.0
    btime: int | None = None
    disk_lines: list[str] = []
    cpu: CpuTimes | None = None
    mem_lines: list[str] = []
    procs: list[_Proc] = []
    proc: _Proc | None = None
    for line in lines:
        if line.startswith(marker):
            kind, _, arg = line[len(marker) :].partition(" ")
            section = kind
            if kind == "proc":
                pid = int_or_none(arg, 1, 1 << 32)
                proc = None if pid is None else _Proc(pid)
                if proc is not None:
                    procs.append(proc)
            continue
        if section == "disk":
            disk_lines.append(line)
        elif section == "proc":
            if proc is not None:
                proc.add(line)
        elif section == "stat":
            if line.startswith("btime ") and is_digits(line[6:].strip(), 12):
                btime = int(line[6:].strip())
            else:
                cpu = cpu if cpu is not None else parse_cpu(line, clk_tck)
        elif section == "uptime":
            with contextlib.suppress(IndexError, NumberError):
                uptime = parse_float(line.split()[0], 0.0, MAX_TIME)
        elif section == "mem":
            mem_lines.append(line)
    live = [p for p in procs if p.tasks]
    classified = classify(ProcessInfo(p.pid, p.name, p.cmdline, p.ppid) for p in live)
    by_pid = {p.pid: p for p in live}
    threads: list[ThreadSample] = []
    redo: list[RedoFiles] = []
    for info in classified:
        p = by_pid[info.pid]
        if info.angel:
            continue
        node_id = info.node_id
        if node_id is None and p.files:
            node_id = p.files[0][0]
        threads.extend(
            ThreadSample(p.pid, node_id, info.name, tid, comm, ut / clk_tck, st / clk_tck)
            for tid, comm, _, ut, st in p.tasks
        )
        started = (btime + p.start / clk_tck
                   if btime is not None and p.start is not None else None)
        redo.append(
            RedoFiles(p.pid, node_id, p.write_bytes, tuple(sorted((f[1], f[2]) for f in p.files)),
                      started, tuple(sorted(p.dirs)))
        )
    return HostSample(
        processes=processes_seen(classified),
        monotonic=uptime,
        disks=parse_diskstats(disk_lines),
        cpu=cpu,
        threads=tuple(threads),
        redo=tuple(redo),
        memory=parse_meminfo(mem_lines) if mem_lines else None,
    )


def processes_seen(classified: Iterable[NdbProcess]) -> tuple[ProcessSeen, ...]:
    """Every data node process with its node id; an angel started without a node id
    takes the one its worker was given (``--allocated-nodeid``)."""
    procs = tuple(classified)
    child_node = {p.ppid: p.node_id for p in procs if not p.angel and p.node_id is not None}
    return tuple(
        ProcessSeen(p.pid, p.node_id if p.node_id is not None else child_node.get(p.pid),
                    p.angel)
        for p in procs
    )


_DF = re.compile(r"(.*?)\s+([0-9]{1,20})\s+([0-9]{1,20})\s+([0-9]{1,20})\s+([0-9]{1,3})%\s+(/.*)")


def parse_df(line: str, path: str) -> DiskFree | None:
    """The last line of ``df -P -k PATH`` (POSIX output: file system, 1024-blocks, used,
    available, capacity, mounted on); ``None`` when it is not one (no such path)."""
    m = _DF.fullmatch(line.strip())
    if m is None:
        return None
    return DiskFree(path, m.group(6), int(m.group(2)) * 1024, int(m.group(4)) * 1024,
                    int(m.group(5)))
