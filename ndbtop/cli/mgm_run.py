"""``ndbtop mgm``'s entry: the one command ``-e`` names (:mod:`ndbtop.cli.mgm`), or the
prompt (:mod:`ndbtop.cli.mgm_prompt`)."""

from __future__ import annotations

import argparse
import asyncio

from ndbtop.actions.mgm_language import parse
from ndbtop.cli.exits import DONE
from ndbtop.cli.mgm import execute
from ndbtop.cli.mgm_prompt import run_prompt
from ndbtop.cli.sources import cluster_connectstring
from ndbtop.errors import UsageError


def run_mgm(args: argparse.Namespace) -> int:
    """Run ``-e COMMAND``, or the prompt; the exit status of the (last) command."""
    if args.execute is None and args.wait:
        raise UsageError("--wait follows the one command -e sends: the prompt does not wait")
    connectstring = cluster_connectstring(args)
    if args.execute is None:
        return run_prompt(args, connectstring)
    command = parse(args.execute)
    if command is None:
        return DONE
    return asyncio.run(execute(command, args, connectstring))
