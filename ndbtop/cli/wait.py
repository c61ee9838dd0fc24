"""``ndbtop wait``: block until data nodes reach a state (scripts; replaces ndb_waiter)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from ndbtop.cli.exits import DONE, NOT_MET, UNREACHABLE
from ndbtop.cli.sources import cluster_connectstring
from ndbtop.errors import MgmError
from ndbtop.model.clock import RealClock
from ndbtop.ops.wait import NodeChange, Target, wait_for
from ndbtop.sanitise import json_text


def run_wait(args: argparse.Namespace) -> int:
    """0 when every node reached the state, 1 on timeout, 3 when the server is unreachable."""
    connectstring = cluster_connectstring(args)

    def show(change: NodeChange) -> None:
        if args.json:
            sys.stdout.write(json_text(change.as_json()) + "\n")
        else:
            sys.stdout.write(change.text() + "\n")
        sys.stdout.flush()

    try:
        result = asyncio.run(wait_for(connectstring, Target(args.status), args.nodes,
                                      args.timeout, clock=RealClock(), interval=args.interval,
                                      on_change=show))
    except MgmError as exc:
        sys.stderr.write(f"ndbtop: error: {exc}\n")
        return UNREACHABLE
    if result.reached:
        return DONE
    if result.error is not None:
        sys.stderr.write(f"ndbtop: error: {result.error}\n")
        return UNREACHABLE
    missing = ", ".join(f"node {n.node_id} {n.status}" for n in result.missing)
    sys.stderr.write(f"ndbtop: timed out after {args.timeout:g} s waiting for "
                     f"{args.status}: {missing}\n")
    return NOT_MET
