"""Reading what a data node left on its host: its error log and its DataDir's file system.

A host is read through anything with ``read_file`` and ``disk_free``: a host over SSH
(:class:`~ndbtop.collect.ssh.SshHost`) or a simulated one. The newest error-log entry
and the free space are read once for each data node that is not STARTED when ndbtop
first sees it, and again each time a node fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Protocol

from ndbtop.collect.ssh import HostError, LinkRefused
from ndbtop.host.samples import DiskFree, ProcessSeen
from ndbtop.model.config import DataNodeConfig
from ndbtop.model.errorlog import parse_error_log
from ndbtop.model.hosts import ErrorLogEntry


class NodeFiles(Protocol):
    """A host whose files can be read."""

    async def read_file(self, path: str) -> str | None:
        """Up to 512 KiB of ``path``; ``None`` when it cannot be read there."""

    async def disk_free(self, path: str) -> DiskFree | None:
        """The file system holding ``path``; ``None`` when there is no such path."""


class SimulatedFiles:
    """A simulated host's files, through the reader that simulates it."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader

    async def read_file(self, path: str) -> str | None:
        """The simulated file, if the simulated host has it."""
        return self.reader.read_file(path)

    async def disk_free(self, path: str) -> DiskFree | None:
        """The simulated file system of ``path``."""
        return self.reader.disk_free(path)


def error_log_path(cfg: DataNodeConfig) -> str:
    """Where a data node writes its error log: ``<DataDir>/ndb_<id>_error.log``."""
    return f"{cfg.data_dir.rstrip('/') or '/'}/ndb_{cfg.node_id}_error.log"


async def read_node_files(
    files: NodeFiles, cfg: DataNodeConfig, timeout: float = 20.0
) -> tuple[ErrorLogEntry, DiskFree | None, str | None]:
    """The newest error-log entry of a data node, the file system of its DataDir and, when
    that could not be read, why; within ``timeout`` seconds in all."""
    path = error_log_path(cfg)

    async def both() -> tuple[ErrorLogEntry, DiskFree | None]:
        try:
            text = await files.read_file(path)
        except LinkRefused as exc:
            entry = ErrorLogEntry(cfg.node_id, path, problem=str(exc))
        else:
            entry = (ErrorLogEntry(cfg.node_id, path, problem="no error log there")
                     if text is None else parse_error_log(text, cfg.node_id, path))
        return entry, await files.disk_free(cfg.data_dir)

    try:
        entry, free = await asyncio.wait_for(both(), timeout)
    except asyncio.TimeoutError:
        why = f"no answer within {timeout:.0f} s"
        return ErrorLogEntry(cfg.node_id, path, problem=why), None, why
    except (HostError, ValueError) as exc:
        return ErrorLogEntry(cfg.node_id, path, problem=str(exc)), None, str(exc)
    why = None if free is not None else f"DataDir {cfg.data_dir} not found on the host"
    return entry, free, why


def process_state(processes: Iterable[ProcessSeen], node_id: int, alone: bool) -> str:
    """Which data node processes run for ``node_id``: ``angel and worker``, ``worker
    only``, ``angel only`` or ``none``.

    A process whose command line names no node id counts for the node only when the
    configuration puts no other data node on the host (``alone``).
    """
    angel = worker = False
    for p in processes:
        if p.node_id == node_id or (p.node_id is None and alone):
            if p.angel:
                angel = True
            else:
                worker = True
    if angel and worker:
        return "angel and worker"
    if worker:
        return "worker only"
    return "angel only" if angel else "none"
