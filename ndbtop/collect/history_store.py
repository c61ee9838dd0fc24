"""Where past starts are kept between runs: one small JSON file per cluster."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from ndbtop.errors import NdbtopError
from ndbtop.files import check_tree, read_limited, state_dir, write_private
from ndbtop.model.history import PastStart
from ndbtop.textnum import MAX_TIME, dumps, json_number

KEEP = 50
"""Starts kept per cluster."""
LIMIT = 4 << 20
"""Bytes of one cluster's history read at most."""


def default_history_dir() -> Path:
    """``$XDG_STATE_HOME/ndbtop/history`` (``~/.local/state/ndbtop/history``), checked as far
    as it exists (:func:`ndbtop.files.check_tree`: ``UnsafeDirectory`` when others could
    change it)."""
    path = state_dir() / "history"
    check_tree(path)
    return path


class HistoryStore:
    """Reads and appends the past starts of one cluster; failures only lose history."""

    def __init__(self, directory: Path, key: str) -> None:
        self.path = directory / f"{key}.json"

    def load(self) -> tuple[PastStart, ...]:
        """Every remembered start, oldest first (none if the file is missing or unreadable,
        or in a directory others could change: :func:`ndbtop.files.check_tree`)."""
        try:
            check_tree(self.path.parent, _top(self.path.parent))
            data = json.loads(read_limited(self.path, LIMIT, "start history", private=True))
            return tuple(
                PastStart(
                    d["node_id"],
                    d["start_type"],
                    json_number(d["finished_at"], 0.0, MAX_TIME),
                    tuple((int(json_number(p, 0, 255)), json_number(s, 0.0, MAX_TIME))
                          for p, s in d["phases"]),
                    json_number(d["total_s"], 0.0, MAX_TIME),
                    bool(d.get("partial", False)),
                )
                for d in data
            )
        except (OSError, NdbtopError, ValueError, KeyError, TypeError):
            return ()

    def add(self, start: PastStart, replaces: PastStart | None = None) -> tuple[PastStart, ...]:
        """Remember one more start, in place of ``replaces`` (the same start as saved
        before its last events arrived) when given; returns the history."""
        kept = self.load()
        if replaces is not None:
            kept = tuple(p for p in kept if (p.node_id, p.finished_at)
                         != (replaces.node_id, replaces.finished_at))
        history = (*kept, start)[-KEEP:]
        records = [
            {
                "node_id": p.node_id,
                "start_type": p.start_type,
                "finished_at": p.finished_at,
                "phases": [list(x) for x in p.phases],
                "total_s": p.total_s,
                "partial": p.partial,
            }
            for p in history
        ]
        with contextlib.suppress(OSError, NdbtopError):
            write_private(self.path, dumps(records).encode())
        return history


def _top(directory: Path) -> Path:
    """The state directory when ``directory`` is in it, else ``directory`` itself (one given
    by a caller): the part that must be private."""
    try:
        top = state_dir()
    except NdbtopError:
        return directory
    return top if directory == top or top in directory.parents else directory
