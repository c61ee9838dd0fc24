"""The simulated management server's cluster log file, in the real layout and rotation.

Each line as LogHandler.cpp writes it (``getDefaultHeader``): the local time, ``[MgmtSrvr]``,
the severity padded to 8, `` -- Node <id>: `` and the event's text (EventLogger.cpp's
format strings, :mod:`ndbtop.mgm.events.text`). At ``maxsize`` bytes the file is renamed as
FileLogHandler.cpp ``createNewFile`` does: to the first ``<name>.N`` that does not exist
(N below ``maxfiles``), or, once every one exists, over the first whose modification time
is older than the one before it (the numbers go round).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

from ndbtop.mgm.events.catalogue import CATALOGUE, Severity
from ndbtop.mgm.events.text import cluster_log_line, event_text
from ndbtop.sim.eventbus import SimEvent

MAX_SIZE = 1_000_000
MAX_FILES = 6


class ClusterLogFile:
    """One management server's ``ndb_<id>_cluster.log`` in its DataDir."""

    def __init__(self, data_dir: str, mgm_node: int, wall: Callable[[float], float],
                 max_size: int = MAX_SIZE, max_files: int = MAX_FILES) -> None:
        self.path = Path(data_dir) / f"ndb_{mgm_node}_cluster.log"
        self.wall = wall
        self.max_size = max_size
        self.max_files = max_files

    def write(self, event: SimEvent) -> None:
        """Append the event's line (the server logs what its levels take: the caller
        passes only those)."""
        spec = CATALOGUE.get(event.type)
        severity = spec.severity if spec is not None else Severity.INFO
        if severity is Severity.DEBUG:
            return  # the cluster log's DEBUG filter is off by default (get info clusterlog)
        line = cluster_log_line(dt.datetime.fromtimestamp(self.wall(event.time)),
                                event.source, severity,
                                event_text(event.type, event.words)) + "\n"
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            size = f.tell()
        if size >= self.max_size:
            self._rotate()

    def _rotate(self) -> None:
        """FileLogHandler::createNewFile: the first free ``.N``, else the first out of
        modification-time order, else ``.1``."""
        number, before = 1, 0.0
        while True:
            if number >= self.max_files:
                target = Path(f"{self.path}.1")
                break
            target = Path(f"{self.path}.{number}")
            number += 1
            if not target.exists():
                break
            mtime = target.stat().st_mtime
            if mtime < before:
                break
            before = mtime
        os.replace(self.path, target)
