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
from ndbtop.cli.sources import (
    cluster_connectstring,
    context_namespace,
    host_reader,
    ndbinfo_reader,
    replication_setup,
    ssh_options,
)
from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.collect.sql import NdbinfoReader
from ndbtop.errors import NdbtopError, UsageError
from ndbtop.export.http import is_loopback
from ndbtop.export.server import MetricsServer, SnapshotCollector
from ndbtop.host.remote import SshOptions
from ndbtop.mgm.connectstring import ConnectString
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
    ``--ssh``, replication with ``--replica-mysql-host`` or a context's ``replicates_to``,
    read at every refresh), the same intervals."""
    return _hub(args, cluster_connectstring(args), ndbinfo_reader(args), ssh_options(args),
                local_host)


def _hub(args: argparse.Namespace, connectstring: ConnectString,
         ndbinfo: tuple[NdbinfoReader, str] | None, ssh: SshOptions | None,
         local_host: bool) -> Hub:
    hub = Hub(
        connectstring,
        RealClock(),
        args.interval,
        ndbinfo=ndbinfo,
        host=host_reader(args) if local_host else None,
        ssh=ssh,
        history_dir=default_history_dir(),
        backup_status_every=args.backup_status_interval,
        replication=replication_setup(args),
    )
    hub.want_replication("export", True)
    return hub


KEPT = ("interval", "backup_status_interval", "no_sql", "no_host", "replication_lag_threshold",
        "debug")
"""Options of ``export --contexts`` that every context's sources take (those describing
how to reach a cluster are refused: :data:`ndbtop.cli.clashes.PER_CLUSTER`)."""


class ContextNotStarted(Exception):
    """A context of ``export --contexts`` whose sources cannot start: ``reason`` is one of
    :data:`~ndbtop.export.many.START_REASONS`, ``str()`` the one line saying why."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(text)
        self.reason = reason


def context_hub(name: str, args: argparse.Namespace, kept: tuple[str, ...] = KEPT) -> Hub:
    """The hub of ``export --context NAME`` (this host's disks read by none), or
    :class:`ContextNotStarted` naming the step that failed; the SQL node's password
    command runs last, once the rest is known to be usable."""
    from ndbtop.contexts.password import PasswordCommandError

    step = "context"
    try:
        one = context_namespace(name, args, "export", kept)
        step = "connectstring"
        connectstring = cluster_connectstring(one)
        step = "ssh"
        ssh = ssh_options(one)
        step = "sql_options"
        ndbinfo = ndbinfo_reader(one)
        step = "context"
        return _hub(one, connectstring, ndbinfo, ssh, local_host=False)
    except PasswordCommandError as exc:
        raise ContextNotStarted("password_command", str(exc)) from None
    except (NdbtopError, OSError) as exc:
        raise ContextNotStarted(step, str(exc)) from None


Watched = list[tuple[Optional[str], Hub, SnapshotCollector]]
"""Each cluster served: its context's name (None: one cluster, unlabelled), its hub and
its collector."""


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
    from ndbtop.contexts import ContextsError, load_contexts
    from ndbtop.export.many import Exposition, NotStarted, make_multi_app

    contexts = load_contexts()
    if not contexts:
        raise ContextsError(f"no contexts in {contexts.path}")
    # --replication-lag-threshold is for the contexts that replicate (to or from another).
    replicating = {name for pair in contexts.replication() for name in pair}
    if "replication_lag_threshold" in getattr(args, "given", ()) and not replicating:
        raise UsageError(f"--replication-lag-threshold: no context of {contexts.path} "
                         "replicates (replicates_to)")
    unlagged = tuple(k for k in KEPT if k != "replication_lag_threshold")
    watched: Watched = []
    served: dict[str, Exposition] = {}
    down = []
    for name in contexts:
        try:
            # This host is no data node host of every cluster: only --ssh reads hosts.
            hub = context_hub(name, args, KEPT if name in replicating else unlagged)
        except ContextNotStarted as exc:
            write_line(sys.stderr, f"ndbtop export: {name} not started ({exc.reason}): {exc}")
            served[name] = NotStarted(name, exc.reason)
            down.append(name)
            continue
        collector = SnapshotCollector(cluster=name)
        watched.append((name, hub, collector))
        served[name] = collector
    app = make_multi_app(served, str(contexts.path))
    count = f"{len(served)} context{'' if len(served) == 1 else 's'}"
    described = f"{count} of {contexts.path} (/probe?context=NAME)"
    if down:
        described += f"; not started: {', '.join(down)}"
    return watched, app, described


def _listen_and_serve(watched: Watched, host: str, port: int, described: str,
                      app: Callable[..., Iterable[bytes]] | None = None) -> int:
    try:
        server = MetricsServer(watched[0][2] if watched else None, host, port, described,
                               app=app)
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
    interval = min((hub.interval for _, hub, _ in watched), default=1.0)
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
