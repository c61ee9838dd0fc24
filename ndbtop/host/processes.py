"""Finding local data node processes and reading their threads.

A data node runs as ``ndbmtd`` (multi-threaded) or ``ndbd``. Unless started with
``--foreground`` it is two processes with the same name: the *angel*, which only
waits for and restarts its child, and the child doing the work. The angel starts the
child with its own arguments plus ``--allocated-nodeid=N`` and, in newer versions,
``--angel-pid=P`` (storage/ndb/src/kernel/angel.cpp). Angels are found and flagged,
but their threads are not read: they do no data node work and match no ndbinfo thread.

Nothing here raises for a process that vanished or a ``/proc`` entry that cannot be
read (containers, other users' processes): such a process is skipped, a thread name
that cannot be read is ``None``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import psutil

from ndbtop.compat import SLOTS
from ndbtop.host.samples import ThreadSample
from ndbtop.textnum import int_or_none

DATA_NODE_NAMES = frozenset({"ndbmtd", "ndbd"})
"""Executable names of NDB data node processes."""

_CONNECTSTRING_OPTIONS = ("--ndb-connectstring", "--connect-string", "--ndb-mgmd-host")


@dataclass(frozen=True, **SLOTS)
class NdbProcess:
    """A local data node process (or, with a pid override, any process)."""

    pid: int
    name: str
    node_id: int | None = None
    ppid: int | None = None
    angel: bool = False


def _program(text: str) -> str:
    base = os.path.basename(text.replace("\\", "/"))
    return base[:-4] if base.lower().endswith(".exe") else base


def is_data_node_process(name: str | None, cmdline: Sequence[str]) -> bool:
    """True if the process name or the basename of ``argv[0]`` is ``ndbmtd`` or ``ndbd``."""
    if name and _program(name) in DATA_NODE_NAMES:
        return True
    return bool(cmdline) and _program(cmdline[0]) in DATA_NODE_NAMES


def _option_values(cmdline: Sequence[str], names: Iterable[str]) -> list[str]:
    """Values of long options ``names`` (``--opt=V`` or ``--opt V``; ``_`` equals ``-``)."""
    wanted = set(names)
    values: list[str] = []
    args = list(cmdline[1:])
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if not arg.startswith("--"):
            continue
        key, sep, value = arg.partition("=")
        key = key.replace("_", "-")
        if key not in wanted:
            continue
        if sep:
            values.append(value)
        elif i + 1 < len(args):
            values.append(args[i + 1])
    return values


def _short_c_values(cmdline: Sequence[str]) -> list[str]:
    """Values of ``-c`` (``-cV`` or ``-c V``), the short form of ``--ndb-connectstring``."""
    values: list[str] = []
    args = list(cmdline[1:])
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "-c" and i + 1 < len(args):
            values.append(args[i + 1])
        elif arg.startswith("-c") and not arg.startswith("--") and len(arg) > 2:
            values.append(arg[2:])
    return values


def _positive_int(text: str) -> int | None:
    return int_or_none(text, 1)


def _connectstring_nodeid(text: str) -> int | None:
    for token in text.replace(";", ",").split(","):
        key, sep, value = token.strip().partition("=")
        if sep and key.strip().lower() == "nodeid":
            return _positive_int(value)
    return None


def node_id_from_cmdline(cmdline: Sequence[str]) -> int | None:
    """The node id a data node's command line gives, or ``None``.

    In order of precedence (the last occurrence of an option wins, as in my_getopt):
    ``--allocated-nodeid`` (set by the angel on its child), ``--ndb-nodeid``, then a
    ``nodeid=N`` token of the connect string (``-c``, ``--ndb-connectstring``,
    ``--connect-string``, ``--ndb-mgmd-host``).
    """
    for option in ("--allocated-nodeid", "--ndb-nodeid"):
        values = _option_values(cmdline, (option,))
        if values:
            found = _positive_int(values[-1])
            if found is not None:
                return found
    strings = _option_values(cmdline, _CONNECTSTRING_OPTIONS) + _short_c_values(cmdline)
    for text in reversed(strings):
        found = _connectstring_nodeid(text)
        if found is not None:
            return found
    return None


def angel_pid_from_cmdline(cmdline: Sequence[str]) -> int | None:
    """The ``--angel-pid`` a data node child was started with, or ``None``."""
    values = _option_values(cmdline, ("--angel-pid",))
    return _positive_int(values[-1]) if values else None


@dataclass(frozen=True, **SLOTS)
class ProcessInfo:
    """What discovery reads of a process: pid, name, command line and parent pid."""

    pid: int
    name: str
    cmdline: tuple[str, ...] = ()
    ppid: int | None = None


def classify(found: Iterable[ProcessInfo]) -> tuple[NdbProcess, ...]:
    """Data node processes from what discovery read, by pid, with angels flagged.

    An angel is a process that is the parent, or the ``--angel-pid``, of another one
    in ``found``. The node id comes from :func:`node_id_from_cmdline`.
    """
    procs = sorted(found, key=lambda p: p.pid)
    pids = {p.pid for p in procs}
    angels = {p.ppid for p in procs if p.ppid in pids}
    angels |= {angel_pid_from_cmdline(p.cmdline) for p in procs} & pids
    return tuple(
        NdbProcess(p.pid, p.name, node_id_from_cmdline(p.cmdline), p.ppid, p.pid in angels)
        for p in procs
    )


def _describe(proc: psutil.Process) -> ProcessInfo | None:
    try:
        with proc.oneshot():
            name = proc.name()
            ppid = proc.ppid()
            try:
                cmdline = tuple(proc.cmdline())
            except psutil.AccessDenied:
                cmdline = ()
    except (psutil.Error, OSError):
        return None
    return ProcessInfo(proc.pid, name, cmdline, ppid)


def discover(pids: Iterable[int] | None = None) -> tuple[NdbProcess, ...]:
    """The local data node processes, by pid.

    With ``pids``, those processes are taken as data nodes whatever their name (vanished
    ones are left out); otherwise every process is scanned with
    :func:`is_data_node_process`.
    """
    found: list[ProcessInfo] = []
    if pids is not None:
        for pid in pids:
            try:
                info = _describe(psutil.Process(pid))
            except (psutil.Error, OSError, ValueError):
                continue
            if info is not None:
                found.append(info)
    else:
        try:
            procs = list(psutil.process_iter())
        except (psutil.Error, OSError):
            procs = []
        for proc in procs:
            info = _describe(proc)
            if info is not None and is_data_node_process(info.name, info.cmdline):
                found.append(info)
    return classify(found)


def thread_name(pid: int, tid: int) -> str | None:
    """The kernel name (``comm``) of thread ``tid`` of ``pid``; ``None`` if unreadable."""
    root = getattr(psutil, "PROCFS_PATH", "/proc")
    try:
        with open(f"{root}/{pid}/task/{tid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read().rstrip("\n")
    except OSError:
        return None


def read_threads(proc: psutil.Process, info: NdbProcess) -> tuple[ThreadSample, ...] | None:
    """CPU times of every thread of ``proc``; ``None`` if the process is gone or unreadable.

    ``proc.is_running()`` compares the start time, so a pid reused by another program
    counts as gone.
    """
    try:
        if not proc.is_running():
            return None
        threads = proc.threads()
    except (psutil.Error, OSError):
        return None
    return tuple(
        ThreadSample(
            pid=info.pid,
            node_id=info.node_id,
            process_name=info.name,
            tid=t.id,
            thread_name=thread_name(info.pid, t.id),
            user_s=t.user_time,
            system_s=t.system_time,
        )
        for t in threads
    )
