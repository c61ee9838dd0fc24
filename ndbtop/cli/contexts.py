"""``ndbtop contexts``: the contexts of ``clusters.toml``, and whether each answers now.

Every context's management servers are asked for ``get status`` at once, each context
within twice :data:`PROBE_TIMEOUT` seconds in all (connecting, ``get status`` and ``get
version`` together): one that does not answer, or answers slowly, delays no other.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from ndbtop.cli.exits import DONE, UNREACHABLE
from ndbtop.contexts import Context, ContextsError, load_contexts
from ndbtop.errors import NdbtopError
from ndbtop.sanitise import sanitise

if TYPE_CHECKING:
    from ndbtop.mgm.connectstring import MgmAddress
    from ndbtop.mgm.replies import ServerVersion
    from ndbtop.mgm.status import NodeStatus

PROBE_TIMEOUT = 3.0
"""Seconds a context's management servers have to answer."""


async def probe(context: Context, timeout: float = PROBE_TIMEOUT) -> tuple[bool, str]:
    """Whether ``context``'s management server answers, and what it said (or why not)."""
    # Imported here: ``contexts --names`` runs at every completion of --context.
    from ndbtop.cli.sources import cluster_connectstring
    from ndbtop.mgm.client import MgmClient
    from ndbtop.model.summary import summarize

    args = argparse.Namespace(connectstring=context.connectstring,
                              ndb_tls_search_path=context.option("ndb_tls_search_path"),
                              ndb_mgm_tls=context.option("ndb_mgm_tls"))
    try:
        client = MgmClient(cluster_connectstring(args), connect_timeout=timeout,
                           timeout=timeout)
    except NdbtopError as exc:
        return False, str(exc)

    async def ask() -> tuple[MgmAddress, tuple[NodeStatus, ...], ServerVersion]:
        address = await client.connect()
        return address, tuple(await client.get_status()), await client.get_version()

    try:
        address, nodes, version = await asyncio.wait_for(ask(), timeout * 2)
    except asyncio.TimeoutError:
        return False, f"no answer within {timeout * 2:g} s"
    except (NdbtopError, OSError) as exc:
        why = str(exc) or type(exc).__name__
        return False, why.removeprefix("cannot connect to a management server: ")
    finally:
        await client.close()
    s = summarize(nodes)
    return True, (f"{address}, NDB {version.text}, {s.data_started}/{s.data_nodes} data "
                  "nodes started")


def flags(context: Context) -> str:
    """``production, read-only, replicates to dr``, or ``-``."""
    out = [name for name, on in (("production", context.production),
                                 ("read-only", context.read_only)) if on]
    if context.replicates_to:
        out.append(f"replicates to {', '.join(context.replicates_to)}")
    return ", ".join(out) or "-"


async def _probe_all(contexts: tuple[Context, ...]) -> list[tuple[bool, str]]:
    return list(await asyncio.gather(*(probe(c) for c in contexts)))


def run_contexts(args: argparse.Namespace) -> int:
    """List the contexts with whether each answers; exit 3 when one does not. With
    ``--names``, their names only, reading the file alone."""
    contexts = load_contexts()
    if args.names:
        sys.stdout.write("".join(f"{name}\n" for name in contexts))
        return DONE
    if not contexts:
        raise ContextsError(f"no contexts in {contexts.path}")
    answers = asyncio.run(_probe_all(contexts.contexts))
    rows = [("CONTEXT", "MANAGEMENT SERVERS", "FLAGS", "ANSWERS NOW")]
    for c, (ok, said) in zip(contexts.contexts, answers):
        rows.append((c.name, c.connectstring or "(default)", flags(c),
                     f"{'yes' if ok else 'no'}: {sanitise(said)}"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    out = sys.stdout
    out.write(f"{contexts.path}\n")
    for r in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(r, widths)) + "  " + r[3] + "\n")
    return DONE if all(ok for ok, _ in answers) else UNREACHABLE
