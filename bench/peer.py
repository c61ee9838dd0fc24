"""ndbtop side by side with the closest Textual peer, Dolphie, in one run on one machine.

Each program runs alone in a 120x40 tmux pane at a 1 s refresh: ndbtop watching the
simulator's ``large`` and ``max`` clusters, Dolphie (from PyPI, in a throwaway virtual
environment under /tmp, never a dependency of ndbtop) watching an idle MariaDB that this
run starts privately. Measured over the same window for each: the program's own CPU
seconds (user + system, not wall time) as a share of one core, and the bytes it writes
to the terminal. The three take turns, and the turns are repeated: the machine is shared,
so medians and the spread are reported, with the load average the runs were taken under.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness import PYTHON, ROOT, SimProcess
from tmux import TmuxPane

PEER = "dolphie==6.18.0"
PEER_VENV = Path("/tmp/ndbtop-bench-peer")
SETTLE_S = 8.0
"""Seconds a program runs before its window opens (start-up is not what is compared)."""


def peer_python() -> Path:
    """The throwaway virtual environment holding Dolphie (created on first use)."""
    python = PEER_VENV / "bin" / "python"
    if not (PEER_VENV / "bin" / "dolphie").exists():
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PEER], check=True)
    return python


@contextmanager
def idle_mariadb() -> Iterator[Any]:
    """A private MariaDB with nothing to do, on its own socket and a free port."""
    sys.path.insert(0, str(ROOT / "tests" / "ndbinfo"))
    from mariadb_fixture import MariaDbServer

    with tempfile.TemporaryDirectory(prefix="ndbtop-bench-mariadb-") as base:
        server = MariaDbServer(Path(base))
        server.install()
        server.start()
        try:
            yield server
        finally:
            server.stop()


def ndbtop_pane(sim: SimProcess, name: str, root: Path = ROOT) -> TmuxPane:
    """ndbtop's live view of ``sim`` at a 1 s refresh, the ndbtop of the tree at ``root``."""
    env = {"TERM": "xterm-256color", "XDG_STATE_HOME": "/tmp/ndbtop-bench-state"}
    return TmuxPane([PYTHON, "-m", "ndbtop", *sim.args, "--interval", "1"], env=env, cwd=root,
                    name=name)


def dolphie_pane(server: Any, home: Path) -> TmuxPane:
    """Dolphie's default panels on ``server`` at a 1 s refresh (root over the socket, which
    has no password in a fresh data directory)."""
    dolphie = PEER_VENV / "bin" / "dolphie"
    env = {"TERM": "xterm-256color", "HOME": str(home)}
    return TmuxPane([str(dolphie), "-S", server.socket, "-u", "root", "-r", "1"], env=env,
                    name="dolphie")


def window(pane: TmuxPane, seconds: float, keys: tuple[str, ...] = ()) -> dict[str, float]:
    """CPU share, terminal bytes per second and RSS of ``pane`` over ``seconds``, and the
    load average at its end; ``keys`` are typed one at a time at equal intervals inside
    the window (a view per key)."""
    time.sleep(SETTLE_S)
    cpu0, out0, t0 = pane.cpu_seconds(), pane.bytes_written(), time.monotonic()
    parts = len(keys) + 1
    for i in range(parts):
        if i:
            pane.send_keys(keys[i - 1])
        time.sleep(seconds / parts)
    elapsed = time.monotonic() - t0
    return {"cpu_pct": 100 * (pane.cpu_seconds() - cpu0) / elapsed,
            "output_kb_s": (pane.bytes_written() - out0) / elapsed / 1024,
            "rss_mb": pane.rss_mb(), "load_1min": os.getloadavg()[0]}


def side_by_side(seconds: float = 30.0, repeats: int = 3,
                 baseline: Path | None = None) -> dict[str, Any]:
    """ndbtop on ``large`` and ``max`` and Dolphie on an idle MariaDB, ``repeats`` turns;
    with ``baseline`` (another tree of ndbtop, such as main before a change), its live view
    too in every turn (``before_large``, ``before_max``), under the same load."""
    peer_python()
    trees = [("", ROOT)] + ([("before_", baseline)] if baseline is not None else [])
    runs: dict[str, list[dict[str, float]]] = {
        f"{prefix}{scenario}": [] for prefix, _ in trees for scenario in ("large", "max")}
    runs["dolphie"] = []
    loads = [os.getloadavg()[0]]
    with idle_mariadb() as server, tempfile.TemporaryDirectory() as home:
        for _ in range(repeats):
            for scenario in ("large", "max"):
                for prefix, root in trees:
                    sim = SimProcess(scenario)
                    pane = ndbtop_pane(sim, f"{prefix}{scenario}", root)
                    try:
                        runs[f"{prefix}{scenario}"].append(window(pane, seconds))
                    finally:
                        pane.stop()
                        sim.stop()
            pane = dolphie_pane(server, Path(home))
            try:
                runs["dolphie"].append(window(pane, seconds))
            finally:
                pane.stop()
            loads.append(os.getloadavg()[0])
    out: dict[str, Any] = {"seconds": seconds, "repeats": repeats, "load_1min": loads}
    for name, samples in runs.items():
        for measure in ("cpu_pct", "output_kb_s", "rss_mb", "load_1min"):
            values = [s[measure] for s in samples]
            out[f"{name}_{measure}"] = statistics.median(values)
            out[f"{name}_{measure}_all"] = values
    for key in runs:
        if key != "dolphie":
            out[f"cpu_ratio_{key}"] = out["dolphie_cpu_pct"] / out[f"{key}_cpu_pct"]
    out["baseline"] = str(baseline) if baseline is not None else None
    return out
