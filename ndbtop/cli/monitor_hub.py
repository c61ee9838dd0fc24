"""The hub of ``ndbtop`` against a real cluster (the live view, ``--once``, a context opened
from the fleet overview): every source the options ask for."""

from __future__ import annotations

import argparse

from ndbtop.cli.sources import (
    cluster_connectstring,
    host_reader,
    ndbinfo_reader,
    replication_setup,
    ssh_options,
)
from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.model.clock import RealClock


def monitor_hub(args: argparse.Namespace) -> Hub:
    """The live view's hub: every source the options ask for."""
    hub = Hub(
        cluster_connectstring(args),
        RealClock(),
        args.interval,
        ndbinfo=ndbinfo_reader(args),
        host=host_reader(args),
        ssh=ssh_options(args),
        events=True,
        history_dir=None if args.once else default_history_dir(),
        backup_status_every=args.backup_status_interval,
        replication=replication_setup(args),
    )
    hub.want_txn_age(args.txn_age)
    return hub
