"""``ndbtop mgm``: ``ndb_mgm``'s commands, with ndbtop's guards, confirmation and audit.

``-e COMMAND`` runs one command; without it a prompt reads commands
(:mod:`ndbtop.cli.mgm_prompt`). Commands that change nothing (SHOW, STATUS,
REPORT, CLUSTERLOG INFO) run at once. Every other command is assessed against
the live status and configuration by :func:`ndbtop.actions.guards.assess`, shown
with its exact request and the management server it goes to, confirmed, and sent
by :func:`ndbtop.actions.runner.run_action`, which checks again and audits.

A plain yes/no is answered by ``--yes``; a typed phrase (a node id, or a phrase
naming what happens to the cluster) never is: scripts give it with ``--confirm``.
``--dry-run`` sends nothing and exits 1 when the command would be refused or
needs a phrase ``--confirm`` did not give. ``--wait`` waits, once the request is sent, for
the nodes it acted on as ``ndbtop wait`` does (:mod:`ndbtop.cli.mgm_wait`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace

from ndbtop.actions.admin_commands import Report
from ndbtop.actions.audit import AuditLog, audit_log
from ndbtop.actions.backup_commands import StartBackup
from ndbtop.actions.commands import Action, wire_text
from ndbtop.actions.guards import Assessment, assess
from ndbtop.actions.mgm_language import Command, Query, bind
from ndbtop.actions.mgm_node_guards import mgmd_of
from ndbtop.actions.production import on_production
from ndbtop.actions.runner import live_backups, run_action
from ndbtop.actions.target import cluster_target
from ndbtop.cli.exits import DONE, NOT_MET
from ndbtop.cli.mgm_wait import send_and_wait, wait_target
from ndbtop.cli.prompt import read_line
from ndbtop.compat import SLOTS
from ndbtop.errors import MgmCommandError, MgmError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.backups import Backup
from ndbtop.model.config import ClusterConfig
from ndbtop.model.config_decode import config_from_blob
from ndbtop.report.ndb_mgm import clusterlog_info_text, report_text, show_text, status_text
from ndbtop.sanitise import laid_out, write_line


@dataclass(frozen=True, **SLOTS)
class Live:
    """What the management server said just now: its address, the nodes, the configuration."""

    address: str
    nodes: tuple[NodeStatus, ...]
    config: ClusterConfig | None
    mgmd: int | None = None
    """The node id of the management server answering (asked only for an action on
    management nodes)."""

    @property
    def target(self) -> str:
        """``management server HOST:PORT, configuration generation N``."""
        return cluster_target(self.address, self.config.generation if self.config else None)


def audit_of(args: argparse.Namespace) -> AuditLog:
    """The audit log of the actions on this cluster (naming its context, if any)."""
    return audit_log(args.audit_log, getattr(args, "context_info", None))


async def read_live(client: MgmClient) -> Live:
    """Connect, then ``get status`` and the configuration (None when it cannot be read)."""
    address = str(await client.connect())
    nodes = await client.get_status()
    try:
        config: ClusterConfig | None = config_from_blob(await client.get_config_blob())
    except MgmError as exc:
        write_line(sys.stderr, f"ndbtop: node groups and hosts from the status only: {exc}")
        config = None
    return Live(address, tuple(nodes), config)


async def execute(command: Command, args: argparse.Namespace, connectstring: ConnectString,
                  *, interactive: bool = False) -> int:
    """Run one parsed command; its exit status."""
    if args.read_only and not args.dry_run and not isinstance(command, Query):
        # Refused before anything is asked or shown: no request, no question to answer.
        write_line(sys.stderr, f"ndbtop: refused: read-only ({args.read_only_origin}); "
                   "nothing was sent")
        return NOT_MET
    client = MgmClient(connectstring)
    try:
        live = await read_live(client)
        if isinstance(command, Query):
            return await _query(command, client, live, args)
        change = bind(command, tuple(n.node_id for n in live.nodes if n.type == "NDB"))
        backups: tuple[Backup, ...] = ()
        if any(isinstance(a, StartBackup) for a in change.actions):
            backups = await live_backups(client)
        for action in change.actions:
            if (mgmd := await mgmd_of(client, action, live.nodes)) is not None:
                live = replace(live, mgmd=mgmd)
                break
    finally:
        await client.close()
    if getattr(args, "wait", False):
        for action in change.actions:
            wait_target(action)
    status = DONE
    for action in change.actions:
        verdict = on_production(assess(action, live.nodes, live.config, backups, live.address,
                                       live.mgmd), action, audit_of(args).production_context)
        status = await _act(action, verdict, live, args, connectstring, interactive)
        if status != DONE:
            break
    return status


async def _query(query: Query, client: MgmClient, live: Live, args: argparse.Namespace) -> int:
    out = sys.stdout
    if getattr(args, "dry_run", False):
        write_line(out, f"changes nothing; asks the {live.target}")
        return DONE
    if query.kind == "SHOW":
        write_line(out, f"Connected to Management Server at: {live.address}")
        out.write(show_text(live.nodes, live.config))
        return DONE
    if query.kind == "STATUS":
        text, found = status_text(live.nodes, query.node_ids)
        out.write(text)
        return DONE if found else NOT_MET
    if query.kind == "CLUSTERLOG INFO":
        out.write(clusterlog_info_text(await client.get_info_clusterlog()))
        return DONE
    report = query.report
    assert isinstance(report, Report)
    for node_id in report.node_ids:
        if not any(n.node_id == node_id and n.type == "NDB" for n in live.nodes):
            write_line(sys.stderr, f"ERROR: node {node_id} is not a NDB node!")
            return NOT_MET
    try:
        events = await client.dump_events(report.event_type, report.node_ids or None)
    except MgmCommandError as exc:
        write_line(sys.stderr, f"ERROR: failed to fetch report! {exc.result}")
        return NOT_MET
    out.write(report_text(events))
    return DONE


def verdict_text(action: Action, verdict: Assessment, live: Live) -> str:
    """The command, where it goes, its exact request (``>`` lines, as mgm-protocol.md writes
    them), and what the guard found."""
    lines = [f"ndb_mgm> {action.ndb_mgm()}", f"to the {live.target}; sends:"]
    lines += [f"> {line}".rstrip() for line in wire_text(action).split("\n")[:-1]]
    lines += [f"refused: {b}" for b in verdict.blockers]
    lines += [f"warning: {w}" for w in verdict.warnings]
    if verdict.consequence is not None:
        lines.append(f"THE SERVER WILL DO THIS: {verdict.consequence}")
    if verdict.allowed:
        if verdict.confirm_text is not None:
            lines.append(f"confirm by typing: {verdict.confirm_text}  "
                         f"(or --confirm \"{verdict.confirm_text}\"; --yes does not skip it)")
        else:
            lines.append("confirm: yes/no (--yes answers yes)")
    return laid_out(lines) + "\n"


async def _act(action: Action, verdict: Assessment, live: Live, args: argparse.Namespace,
               connectstring: ConnectString, interactive: bool) -> int:
    out, err = sys.stdout, sys.stderr
    out.write(verdict_text(action, verdict, live))
    out.flush()
    given = getattr(args, "confirm", None)
    if args.dry_run:
        return _dry_run_verdict(verdict, args, given)
    if not verdict.allowed:
        write_line(err, f"ndbtop: refused: {'; '.join(verdict.blockers)}; nothing was sent")
        return NOT_MET
    typed = await _confirmation(verdict, args, interactive)
    if typed is False:
        return NOT_MET
    async def send() -> int:
        outcome = await run_action(action, connectstring, audit_of(args), config=live.config,
                                   confirmed=typed if isinstance(typed, str) else None)
        if not outcome.ok:
            write_line(err, f"ndbtop: {action.ndb_mgm()}: {outcome.reply}")
            return NOT_MET
        write_line(out, f"{action.ndb_mgm()}: {outcome.reply}")
        out.flush()
        return DONE

    if getattr(args, "wait", False):
        return await send_and_wait(action, args, connectstring, send)
    return await send()


def _dry_run_verdict(verdict: Assessment, args: argparse.Namespace, given: str | None) -> int:
    """The last line of ``--dry-run``: what a run with these options would do (nothing is
    sent now); exit 1 when it would not send the command."""
    out, err = sys.stdout, sys.stderr
    if not verdict.allowed:
        write_line(out, "verdict: refused (above); dry run, nothing sent")
        return NOT_MET
    if args.read_only:
        out.write(f"verdict: refused: read-only ({args.read_only_origin}); dry run, nothing "
                  "sent\n")
        write_line(err, f"ndbtop: would be refused: read-only ({args.read_only_origin})")
        return NOT_MET
    phrase = verdict.confirm_text
    if phrase is not None and given != phrase:
        out.write(f"verdict: allowed once '{phrase}' is typed (--confirm); dry run, nothing "
                  "sent\n")
        write_line(err, f"ndbtop: would need '{phrase}' typed (--confirm)")
        return NOT_MET
    run = ("a run with this --confirm sends it" if phrase is not None
           else "a run sends it once answered yes (--yes)")
    write_line(out, f"verdict: allowed: {run}; dry run, nothing sent")
    return DONE


async def _confirmation(verdict: Assessment, args: argparse.Namespace,
                        interactive: bool) -> str | bool:
    """The phrase typed (or given with --confirm), True for a yes, False when not confirmed
    (the reason written to stderr)."""
    err = sys.stderr
    given = getattr(args, "confirm", None)
    phrase = verdict.confirm_text
    if phrase is None:
        if given is not None:
            err.write("ndbtop: refused: --confirm is for a typed phrase; this command asks "
                      "yes/no (--yes); nothing was sent\n")
            return False
        if args.yes:
            return True
        answer = await _ask("send it? [y/N] ", interactive)
        if answer is None:
            err.write("ndbtop: refused: it needs a yes (--yes, or a terminal to ask on); "
                      "nothing was sent\n")
            return False
        if answer.strip().lower() not in ("y", "yes"):
            write_line(err, "ndbtop: not confirmed; nothing was sent")
            return False
        return True
    if given is not None:
        if given != phrase:
            err.write(f"ndbtop: refused: --confirm '{given}' is not '{phrase}'; "
                      "nothing was sent\n")
            return False
        return given
    answer = await _ask(f"type '{phrase}' to confirm: ", interactive)
    if answer is None:
        err.write(f"ndbtop: refused: it needs '{phrase}' typed: pass --confirm \"{phrase}\" "
                  "(--yes does not skip it); nothing was sent\n")
        return False
    if answer.strip() != phrase:
        write_line(err, "ndbtop: not confirmed; nothing was sent")
        return False
    return phrase


async def _ask(question: str, interactive: bool) -> str | None:
    """A line from the terminal, or None without one."""
    if interactive:
        try:
            return input(question)
        except EOFError:
            return None
    if not sys.stdin.isatty():
        return None
    sys.stdout.write(question)
    sys.stdout.flush()
    return await read_line(sys.stdin.fileno())
