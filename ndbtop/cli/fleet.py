"""``ndbtop fleet``, and the live view of a context that can show it (``F``).

The overview watches every context of ``clusters.toml`` with a hub that reads only its
management server. Enter opens one: its live view starts as ``ndbtop --context NAME``
would (the command line's display and safety options kept), with every source.
"""

from __future__ import annotations

import argparse

from ndbtop.actions.audit import audit_log
from ndbtop.cli.sources import cluster_connectstring, context_namespace
from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.contexts import Context, Contexts, ContextsError, load_contexts
from ndbtop.errors import NdbtopError
from ndbtop.fleet.watch import Fleet, Member
from ndbtop.model.clock import RealClock

FLEET_INTERVAL = 2.0
"""The overview's refresh unless ``--interval`` says otherwise."""


def fleet_interval(args: argparse.Namespace) -> float:
    """``--interval`` when given, else :data:`FLEET_INTERVAL`."""
    return float(args.interval) if "interval" in getattr(args, "given", ()) else FLEET_INTERVAL


def fleet_hub(context: Context, interval: float) -> Hub:
    """A hub on ``context``'s management servers only: ``get status``, the configuration
    once, events; its start history read, not written."""
    args = argparse.Namespace(connectstring=context.connectstring,
                              ndb_tls_search_path=context.option("ndb_tls_search_path"),
                              ndb_mgm_tls=context.option("ndb_mgm_tls"))
    return Hub(cluster_connectstring(args), RealClock(), interval, events=True,
               sql_disabled_reason="fleet overview: management server only",
               history_dir=default_history_dir(), history_writes=False)


def fleet_of(contexts: Contexts, interval: float) -> Fleet:
    """Every context, each watched by :func:`fleet_hub` (one whose connect string cannot
    be read is a row saying why)."""
    members = []
    for c in contexts.contexts:
        try:
            hub: Hub | None = fleet_hub(c, interval)
            error = None
        except NdbtopError as exc:
            hub, error = None, str(exc)
        members.append(Member(c.name, hub, c.color, c.production, c.read_only, error))
    return Fleet(members)


def view_of(args: argparse.Namespace, hub: Hub) -> object:
    """The live view of the cluster ``args`` names (``--context``), on ``hub``."""
    from ndbtop.tui.context_label import ContextLabel
    from ndbtop.tui.launch import ClusterView

    context: Context = args.context_info

    async def start() -> Hub:
        return hub

    return ClusterView(start, audit_log(args.audit_log, context),
                       ContextLabel(context.name, context.color, context.production,
                                    context.read_only),
                       read_only=args.read_only)


def run_live(hub: Hub, args: argparse.Namespace) -> int:
    """The live view of one cluster; with a context, ``F`` goes to the fleet overview."""
    from ndbtop.tui.launch import run_session, run_tui

    context: Context | None = getattr(args, "context_info", None)
    if context is None:
        return run_tui(hub, args)
    return run_session(args, lambda name: _open(name, args),
                       lambda: fleet_of(load_contexts(context.path), FLEET_INTERVAL),
                       first=view_of(args, hub))  # type: ignore[arg-type]


async def _open(name: str, base: argparse.Namespace) -> object:
    from ndbtop.cli.monitor_hub import monitor_hub

    args = context_namespace(name, base)
    return view_of(args, monitor_hub(args))


def run_fleet(args: argparse.Namespace) -> int:
    """``ndbtop fleet``: the overview of every context."""
    from ndbtop.tui.launch import run_session

    contexts = load_contexts()
    if not contexts:
        raise ContextsError(f"no contexts in {contexts.path}")
    interval = fleet_interval(args)
    return run_session(args, lambda name: _open(name, args),
                       lambda: fleet_of(contexts, interval))  # type: ignore[arg-type]
