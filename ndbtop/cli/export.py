"""``ndbtop export``: the cluster's figures for Prometheus, over HTTP.

The same sources as the live view run on their own interval; the HTTP server
reads the last snapshot they made. The process logs one line per source state
change (connected, retrying, ...), never one per scrape, and stops cleanly on
SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from ndbtop.cli.parser import DEFAULT_LISTEN_HOST
from ndbtop.cli.sources import cluster_connectstring, host_reader, ndbinfo_reader, ssh_options
from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.errors import UsageError
from ndbtop.export.http import is_loopback
from ndbtop.export.server import MetricsServer, SnapshotCollector
from ndbtop.model.clock import RealClock
from ndbtop.model.sources import SourceStatus
from ndbtop.sanitise import write_line
from ndbtop.textnum import is_digits


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT``, ``:PORT`` (every interface) or ``PORT`` (loopback)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = DEFAULT_LISTEN_HOST, text
    elif host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise UsageError(f"--listen {text!r}: write an IPv6 address in brackets ([::1]:PORT)")
    if not is_digits(port) or not 0 <= int(port) <= 65535:
        raise UsageError(f"--listen {text!r}: invalid port {port!r} (0-65535)")
    return host or "", int(port)


def exposed_warning(host: str, port: int) -> str | None:
    """The line logged when the metrics are served beyond this host, else None."""
    if is_loopback(host):
        return None
    where = "every interface" if host in ("", "::", "0.0.0.0") else "a non-loopback address"
    shown = f"[{host}]" if ":" in host else host
    return (f"ndbtop export: warning: listening on {where} ({shown}:{port}): anyone who can "
            "reach this host reads the metrics")


def state_line(status: SourceStatus) -> str:
    """The log line for a source that changed state (stderr escapes what a server sent:
    :class:`ndbtop.sanitise.SafeStream`)."""
    line = f"ndbtop export: {status.name} {status.state.value}"
    if status.target:
        line += f" ({status.target})"
    if status.error:
        line += f": {status.error}"
    return line


def export_hub(args: argparse.Namespace) -> Hub:
    """The hub the options describe: the live view's sources (management server, events,
    ndbinfo, this host, every data node's host with ``--ssh``), the same intervals."""
    return Hub(
        cluster_connectstring(args),
        RealClock(),
        args.interval,
        ndbinfo=ndbinfo_reader(args),
        host=host_reader(args),
        ssh=ssh_options(args),
        history_dir=default_history_dir(),
        backup_status_every=args.backup_status_interval,
    )


def run_export(args: argparse.Namespace) -> int:
    """Serve the metrics until SIGTERM (exit 0) or Ctrl-C (exit 130)."""
    host, port = parse_listen(args.listen)
    hub = export_hub(args)
    cluster = str(hub.connectstring)
    collector = SnapshotCollector()
    try:
        server = MetricsServer(collector, host, port, cluster)
    except OSError as exc:
        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        raise UsageError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    return asyncio.run(serve(hub, collector, server, cluster))


async def serve(hub: Hub, collector: SnapshotCollector, server: MetricsServer,
                cluster: str) -> int:
    """Run the sources and the HTTP server until a signal; the exit status."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    status = {"code": 0}

    def on_signal(code: int) -> None:
        status["code"] = code
        stop.set()

    loop.add_signal_handler(signal.SIGTERM, on_signal, 0)
    loop.add_signal_handler(signal.SIGINT, on_signal, 130)
    states: dict[str, object] = {}

    def on_state_change() -> None:
        collector.publish(hub.snapshot())
        for s in hub.source_statuses():
            if states.get(s.name) != s.state:
                states[s.name] = s.state
                write_line(sys.stderr, state_line(s))
        sys.stderr.flush()

    hub.add_listener(on_state_change)
    collector.publish(hub.snapshot())
    server.start()
    host, port = server.address
    shown = f"[{host}]" if ":" in host else host
    write_line(sys.stderr, f"ndbtop export: serving http://{shown}:{port}/metrics for {cluster}")
    warning = exposed_warning(host, port)
    if warning is not None:
        write_line(sys.stderr, warning)
    sys.stderr.flush()
    await hub.start()
    try:
        while not stop.is_set():
            collector.publish(hub.snapshot())
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), hub.interval)
    finally:
        await asyncio.to_thread(server.close)
        await hub.stop()
        write_line(sys.stderr, "ndbtop export: stopped")
    return status["code"]
