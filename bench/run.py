"""ndbtop benchmarks against the simulator's ``large`` and ``max`` scenarios.

Run with ``.venv/bin/python bench/run.py`` (``--quick`` shortens the long runs;
``--peer`` runs only the comparison with Dolphie and the ``max`` budget; ``--live`` only
the live view's CPU on ``large`` and ``max`` beside Dolphie's, against their budgets, which
every change to the refresh path reruns, with ``--baseline DIR`` measuring the tree at DIR
in the same turns; ``--memory`` only the memory runs of ``large`` and of ``max`` with its
hosts over SSH). The
simulated cluster runs in its own process so that only ndbtop's own costs are
measured; the live view runs in a pseudo-terminal of 120x40 (a tmux pane of that
size for the comparison). Results are printed as a table and written as JSON
(``--json FILE``). Each kind of measure has its own module beside this one; this one
runs them and prints the table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from cluster_load import cluster_load, status_parse
from collect_cost import recording_cost, refresh_cost
from config_cost import config_decode, config_reads
from event_latency import event_latency
from export_cost import idle_cost, scrape_cost
from key_latency import key_latency
from live_view import startup, steady_state
from memory_run import memory_growth
from peer import side_by_side

TARGETS = {
    "collect_ms": 30.0,
    "render_ms": 20.0,
    "cpu_pct": 5.0,
    "startup_s": 1.5,
    "rss_mb": 150.0,
    "mgm_requests": 1.0,
    "ndbinfo_queries": 4.0,
    "output_kb_s": 4.0,
    "scrape_ms": 50.0,
    "scrape_mb": 2.0,
    "config_decode_ms": 20.0,
}
MAX_TARGETS = {
    "cpu_pct": 2.0,
    "output_kb_s": 2.0,
    "rss_mb": 150.0,
    "collect_ms": 30.0,
    "draw_ms": 20.0,
    "key_p95_ms": 50.0,
    "peer_share": 0.1,
}
"""The budget of the largest scenario (255 nodes, 4,608 threads) at a 1 s refresh, and
ndbtop's CPU as a share of Dolphie's."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short runs (CPU 20 s, RSS 60 s)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--peer", action="store_true",
                        help="only ndbtop beside Dolphie, and the max scenario's budget")
    parser.add_argument("--repeats", type=int, default=3,
                        help="turns of the comparison with Dolphie (default 3)")
    parser.add_argument("--live", action="store_true",
                        help="only the live view's CPU on large and max beside Dolphie's, "
                        "against the budgets; exits 1 when one is missed")
    parser.add_argument("--baseline", metavar="DIR", type=Path,
                        help="with --live or --peer: also measure the ndbtop of the tree at "
                        "DIR (main before a change, say) in the same turns")
    parser.add_argument("--memory", action="store_true",
                        help="only the live view's memory: large, then max with its 144 data "
                        "node hosts read over SSH (--memory-seconds each)")
    parser.add_argument("--memory-seconds", type=float,
                        help="length of each --memory run (default 1800; --quick: 180)")
    args = parser.parse_args()
    if sum((args.memory, args.peer, args.live)) > 1:
        parser.error("--memory, --peer and --live are separate runs: give one")
    if args.baseline is not None and not (args.peer or args.live):
        parser.error("--baseline goes with --live or --peer")
    if args.baseline is not None and not (args.baseline / "ndbtop" / "__main__.py").exists():
        parser.error(f"--baseline {args.baseline}: no ndbtop tree there")
    if args.memory:
        return memory_only(args)
    if args.live:
        return live_only(args)
    cpu_seconds = 20 if args.quick else 60
    rss_seconds = 60 if args.quick else 600
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(),
                    "cpu_model": _cpu_model()},
    }
    results["load_1min_start"] = os.getloadavg()[0]
    print(f"ndbtop beside Dolphie, {args.repeats} turns of 30 s each ...", flush=True)
    results["peer"] = side_by_side(30.0, args.repeats, args.baseline)
    print("key-to-screen latency, max ...", flush=True)
    results["keys_max"] = key_latency("max", 30.0)
    print("event-to-screen latency, large and max ...", flush=True)
    results["events_large"] = event_latency("large")
    results["events_max"] = event_latency("max")
    print("refresh cost ...", flush=True)
    results["refresh_max"] = asyncio.run(refresh_cost("max", 8))
    if args.peer:
        print_peer_table(results)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2))
        return 0
    results["refresh_large"] = asyncio.run(refresh_cost("large", 15))
    print("cluster load ...", flush=True)
    results["load_large"] = asyncio.run(cluster_load("large", 12))
    print("get status 255 nodes ...", flush=True)
    results["status_255"] = asyncio.run(status_parse(50))
    print("configuration ...", flush=True)
    results["config_max"] = config_decode(30)
    results["config_reads_large"] = asyncio.run(config_reads("large", 30))
    print("recording ...", flush=True)
    results["recording_large"] = asyncio.run(recording_cost("large", 30))
    print("ndbtop export ...", flush=True)
    results["export_max"] = asyncio.run(scrape_cost("max", 20))
    results["export_idle_large"] = idle_cost("large", cpu_seconds / 2)
    print("start-up ...", flush=True)
    results["startup"] = startup()
    print(f"steady state {cpu_seconds} s ...", flush=True)
    results["steady_large"] = steady_state("large", cpu_seconds)
    print(f"memory over {rss_seconds} s ...", flush=True)
    results["memory_large"] = memory_growth("large", rss_seconds)
    print_table(results)
    print_peer_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def live_only(args: argparse.Namespace) -> int:
    """The live view's CPU on ``large`` and ``max`` beside Dolphie's; 1 when over budget."""
    print(f"ndbtop beside Dolphie, {args.repeats} turns of 30 s each ...", flush=True)
    results: dict[str, Any] = {"peer": side_by_side(30.0, args.repeats, args.baseline)}
    met = print_live_table(results["peer"])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if met else 1


def print_live_table(p: dict[str, Any]) -> bool:
    """CPU of the live view on ``large`` and ``max`` (and of the baseline's), Dolphie's, the
    load average at each turn; whether this tree meets both budgets."""
    budget = {"large": MAX_TARGETS["peer_share"] * p["dolphie_cpu_pct"],
              "max": MAX_TARGETS["cpu_pct"]}
    names = [("dolphie", "Dolphie, idle MariaDB")]
    for scenario in ("large", "max"):
        if p.get("baseline"):
            names.append((f"before_{scenario}", f"ndbtop {scenario}, baseline"))
        names.append((scenario, f"ndbtop {scenario}"))
    print(f"\n{'CPU at a 1 s refresh':30} {'median':>7} {'budget':>7}  ok   "
          "x less than Dolphie  turns (load average at each)")
    met = True
    for key, name in names:
        scenario = key.replace("before_", "")
        target = budget.get(scenario) if key != "dolphie" else None
        value = p[f"{key}_cpu_pct"]
        ok = "" if target is None else ("yes" if value <= target else "NO")
        if key in budget:
            met = met and value <= budget[key]
        ratio = "" if key == "dolphie" else f"{p['dolphie_cpu_pct'] / value:.1f}x"
        turns = ", ".join(f"{c:.2f}% ({lo:.1f})" for c, lo in
                          zip(p[f"{key}_cpu_pct_all"], p[f"{key}_load_1min_all"]))
        shown = "-" if target is None else f"{target:.2f}"
        print(f"{name:30} {value:6.2f}% {shown:>7}  {ok:3}  {ratio:>19}  {turns}")
    return met


def memory_only(args: argparse.Namespace) -> int:
    """The two memory runs one after the other (memory_run.py runs one alone)."""
    seconds = args.memory_seconds or (180.0 if args.quick else 1800.0)
    results: dict[str, Any] = {"load_1min_start": os.getloadavg()[0]}
    for key, scenario, ssh in (("memory_large", "large", False), ("memory_max_ssh", "max", True)):
        print(f"memory of {scenario}{' over SSH' if ssh else ''}, {seconds:g} s ...", flush=True)
        results[key] = memory_growth(scenario, seconds, ssh)
    print_memory_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def print_memory_table(r: dict[str, Any]) -> None:
    """RSS by minute, peak, growth and CPU of each memory run; hosts of the SSH one."""
    for key in ("memory_large", "memory_max_ssh"):
        m = r[key]
        print(f"{key}: RSS by minute {m['rss_by_minute_mb']} MB; peak {m['rss_peak_mb']} MB; "
              f"growth {m['rss_growth_mb']:+.2f} MB (from {m['growth_from_s']:g} s); "
              f"ndbtop CPU {m['cpu_s']} s ({m['cpu_pct']}% of a core)")
        if m["ssh"]:
            print(f"  hosts connected {m['hosts_connected_end']}/{m['hosts']} "
                  f"(after {m['connect_s']} s; not connected: "
                  f"{', '.join(m['hosts_not_connected']) or 'none'}); ssh processes alive "
                  f"{m['ssh_children_end']}, seen {m['ssh_processes_seen']}")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def print_table(r: dict[str, Any]) -> None:
    rows = [
        ("1 collect, large (wall, both sources)", r["refresh_large"]["collect_wall_ms_median"],
         "ms", None),
        ("1 collect, large (ndbtop CPU)", r["refresh_large"]["collect_cpu_ms_median"], "ms",
         TARGETS["collect_ms"]),
        ("1 render Nodes, large", r["refresh_large"]["render_nodes_ms_median"], "ms",
         TARGETS["render_ms"]),
        ("1 render Threads, large", r["refresh_large"]["render_threads_ms_median"], "ms",
         TARGETS["render_ms"]),
        ("1 collect, max (ndbtop CPU)", r["refresh_max"]["collect_cpu_ms_median"], "ms", None),
        ("2 CPU at 1 s refresh, large", r["steady_large"]["cpu_pct"], "% core",
         TARGETS["cpu_pct"]),
        ("3 start-up of ndbtop demo", r["startup"]["startup_s_median"], "s",
         TARGETS["startup_s"]),
        ("4 peak RSS, large", r["memory_large"]["rss_peak_mb"], "MB", TARGETS["rss_mb"]),
        ("4 RSS growth once history is full", r["memory_large"]["rss_growth_mb"], "MB",
         None),
        ("5 mgm requests per refresh", r["load_large"]["mgm_requests_per_refresh"], "",
         TARGETS["mgm_requests"]),
        ("5 ndbinfo queries per refresh", r["load_large"]["ndbinfo_queries_per_refresh"], "",
         TARGETS["ndbinfo_queries"]),
        ("5 ndbinfo rows scanned per refresh", r["load_large"]["ndbinfo_rows_per_refresh"], "",
         None),
        ("6 terminal output, large", r["steady_large"]["output_kb_s"], "KB/s",
         TARGETS["output_kb_s"]),
        ("7 get status 255 nodes, client/raw", r["status_255"]["ratio"], "x", None),
        ("9 decode the configuration of max", r["config_max"]["decode_ms_median"], "ms",
         TARGETS["config_decode_ms"]),
        ("9 configuration reads in 30 refreshes, large",
         r["config_reads_large"]["config_reads"], "", None),
        ("8 record a delta, large (CPU)", r["recording_large"]["delta_write_cpu_ms_median"],
         "ms", None),
        ("8 record a key frame, large (CPU)", r["recording_large"]["key_frame_write_cpu_ms"],
         "ms", None),
        ("8 recording on disk per snapshot", r["recording_large"]["bytes_per_snapshot"] / 1024,
         "KB", None),
        ("8 replay one step, large (CPU)", r["recording_large"]["step_ms"], "ms", None),
        ("9 export: one scrape, max (CPU)", r["export_max"]["scrape_cpu_ms_median"], "ms",
         TARGETS["scrape_ms"]),
        ("9 export: one scrape, max, all new (CPU)",
         r["export_max"]["scrape_everything_new_cpu_ms_median"], "ms", TARGETS["scrape_ms"]),
        ("9 export: first scrape, max (CPU)", r["export_max"]["scrape_first_cpu_ms"], "ms",
         None),
        ("9 export: one scrape, max (size)", r["export_max"]["text_bytes"] / 1e6, "MB",
         TARGETS["scrape_mb"]),
        ("9 export: idle at 1 s, large", r["export_idle_large"]["idle_cpu_pct"], "% core",
         r["refresh_large"]["collect_cpu_ms_median"] / 10),
        ("9 export: scraped every second, large", r["export_idle_large"][
            "scraped_every_second_cpu_pct"], "% core", None),
    ]
    print(f"{'measure':40} {'value':>10} {'unit':7} {'target':>8}  ok")
    for name, value, unit, target in rows:
        ok = "" if target is None else ("yes" if value <= target else "NO")
        shown = "-" if target is None else f"{target:g}"
        print(f"{name:40} {value:10.2f} {unit:7} {shown:>8}  {ok}")


def print_peer_table(r: dict[str, Any]) -> None:
    """ndbtop beside Dolphie, and the max scenario's budget."""
    p, k, m = r["peer"], r["keys_max"], r["refresh_max"]

    def spread(name: str) -> str:
        values = p[f"{name}_all"]
        return f"{min(values):.2f}-{max(values):.2f}"

    rows = [
        ("Dolphie, idle MariaDB: CPU", p["dolphie_cpu_pct"], "% core", None,
         spread("dolphie_cpu_pct")),
        ("ndbtop large: CPU", p["large_cpu_pct"], "% core",
         MAX_TARGETS["peer_share"] * p["dolphie_cpu_pct"], spread("large_cpu_pct")),
        ("ndbtop max: CPU", p["max_cpu_pct"], "% core",
         min(MAX_TARGETS["cpu_pct"], MAX_TARGETS["peer_share"] * p["dolphie_cpu_pct"]),
         spread("max_cpu_pct")),
        ("Dolphie: terminal output", p["dolphie_output_kb_s"], "KB/s", None,
         spread("dolphie_output_kb_s")),
        ("ndbtop large: terminal output", p["large_output_kb_s"], "KB/s", None,
         spread("large_output_kb_s")),
        ("ndbtop max: terminal output", p["max_output_kb_s"], "KB/s",
         MAX_TARGETS["output_kb_s"], spread("max_output_kb_s")),
        ("ndbtop max: RSS", max(p["max_rss_mb_all"]), "MB", MAX_TARGETS["rss_mb"], ""),
        ("max: collect (CPU, median)", m["collect_cpu_ms_median"], "ms",
         MAX_TARGETS["collect_ms"], ""),
        ("max: draw Nodes (CPU, median)", m["render_nodes_ms_median"], "ms",
         MAX_TARGETS["draw_ms"], ""),
        ("max: draw Threads (CPU, median)", m["render_threads_ms_median"], "ms",
         MAX_TARGETS["draw_ms"], ""),
        ("max: key to screen p95", k["p95_ms"], "ms", MAX_TARGETS["key_p95_ms"],
         f"p50 {k['p50_ms']:.0f}"),
        ("max: key to screen p95, cursor moves", k["move_p95_ms"], "ms", None, ""),
        ("max: key to screen p95, view switches", k["switch_p95_ms"], "ms", None, ""),
    ]
    print(f"\nload average (1 min) during the comparison: "
          f"{', '.join(f'{x:.1f}' for x in p['load_1min'])}")
    print(f"{'measure':40} {'median':>8} {'unit':7} {'target':>8}  ok  spread")
    for name, value, unit, target, extra in rows:
        ok = "" if target is None else ("yes" if value <= target else "NO")
        shown = "-" if target is None else f"{target:.2f}"
        print(f"{name:40} {value:8.2f} {unit:7} {shown:>8}  {ok:3} {extra}")


if __name__ == "__main__":
    sys.exit(main())
