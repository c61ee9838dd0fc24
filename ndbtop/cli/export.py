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
from collections.abc import Callable, Iterable
from typing import Optional

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


def export_hub(args: argparse.Namespace, *, local_host: bool = True) -> Hub:
    """The hub the options describe: the live view's sources (management server, events,
    ndbinfo, this host unless ``local_host`` is False, every data node's host with
    ``--ssh``), the same intervals."""
    return Hub(
        cluster_connectstring(args),
        RealClock(),
        args.interval,
        ndbinfo=ndbinfo_reader(args),
        host=host_reader(args) if local_host else None,
        ssh=ssh_options(args),
        history_dir=default_history_dir(),
        backup_status_every=args.backup_status_interval,
    )


Watched = list[tuple[Optional[str], Hub, SnapshotCollector]]
"""Each cluster served: its context's name (None: one cluster, unlabelled), its hub and
its collector."""

KEPT = ("interval", "backup_status_interval", "no_sql", "debug")
"""Options of ``export --contexts`` that every context's sources take."""


def run_export(args: argparse.Namespace) -> int:
    """Serve the metrics until SIGTERM (exit 0) or Ctrl-C (exit 130)."""
    host, port = parse_listen(args.listen)
    if args.all_contexts:
        watched, app, described = contexts_served(args)
        return _listen_and_serve(watched, host, port, described, app)
    hub = export_hub(args)
    context = getattr(args, "context_info", None)
    name = context.name if context is not None else None
    described = str(hub.connectstring) + (f" (context {name})" if name else "")
    return _listen_and_serve([(name, hub, SnapshotCollector(cluster=name))], host, port,
                             described)


def contexts_served(args: argparse.Namespace
                    ) -> tuple[Watched, Callable[..., Iterable[bytes]], str]:
    """``export --contexts``: every context's sources (as ``export --context NAME`` with
    this line's intervals), the app serving them, and what the log line calls them."""
    from ndbtop.cli.fleet import context_namespace
    from ndbtop.contexts import ContextsError, load_contexts
    from ndbtop.export.many import make_multi_app

    contexts = load_contexts()
    if not contexts:
        raise ContextsError(f"no contexts in {contexts.path}")
    watched: Watched = []
    for name in contexts:
        one = context_namespace(name, args, "export", KEPT)
        # This host is no data node host of every cluster: only --ssh reads hosts.
        watched.append((name, export_hub(one, local_host=False), SnapshotCollector(cluster=name)))
    app = make_multi_app({n: c for n, _, c in watched if n is not None}, str(contexts.path))
    return watched, app, f"{len(watched)} contexts of {contexts.path} (/probe?context=NAME)"


def _listen_and_serve(watched: Watched, host: str, port: int, described: str,
                      app: Callable[..., Iterable[bytes]] | None = None) -> int:
    try:
        server = MetricsServer(watched[0][2], host, port, described, app=app)
    except OSError as exc:
        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        raise UsageError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    return asyncio.run(serve(watched, server, described))


async def serve(watched: Watched, server: MetricsServer, cluster: str) -> int:
    """Run the sources and the HTTP server until a signal; the exit status."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    status = {"code": 0}

    def on_signal(code: int) -> None:
        status["code"] = code
        stop.set()

    loop.add_signal_handler(signal.SIGTERM, on_signal, 0)
    loop.add_signal_handler(signal.SIGINT, on_signal, 130)

    def watch(name: str | None, hub: Hub, collector: SnapshotCollector) -> None:
        states: dict[str, object] = {}
        prefix = f"{name} " if name is not None else ""

        def on_state_change() -> None:
            collector.publish(hub.snapshot())
            for s in hub.source_statuses():
                if states.get(s.name) != s.state:
                    states[s.name] = s.state
                    write_line(sys.stderr, state_line(s).replace(
                        "ndbtop export: ", f"ndbtop export: {prefix}", 1))
            sys.stderr.flush()

        hub.add_listener(on_state_change)
        collector.publish(hub.snapshot())

    for name, hub, collector in watched:
        watch(name, hub, collector)
    server.start()
    host, port = server.address
    shown = f"[{host}]" if ":" in host else host
    where = "metrics" if len(watched) == 1 and watched[0][0] is None else ""
    write_line(sys.stderr, f"ndbtop export: serving http://{shown}:{port}/{where} for {cluster}")
    warning = exposed_warning(host, port)
    if warning is not None:
        write_line(sys.stderr, warning)
    sys.stderr.flush()
    for _, hub, _ in watched:
        await hub.start()
    interval = min(hub.interval for _, hub, _ in watched)
    try:
        while not stop.is_set():
            for _, hub, collector in watched:
                collector.publish(hub.snapshot())
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
    finally:
        await asyncio.to_thread(server.close)
        for _, hub, _ in watched:
            await hub.stop()
        write_line(sys.stderr, "ndbtop export: stopped")
    return status["code"]
