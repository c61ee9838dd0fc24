"""Running an action on its own management connection, audited, never retried.

The runner asks the management server for the live status again just before
sending, so an action confirmed on a paused or stale screen is checked against
the cluster as it is now. The server's reply, success or refusal, comes back
verbatim.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ndbtop.actions.admin_commands import (
    ENABLE_WIRE,
    EnterSingleUser,
    ExitSingleUser,
    SetLogFilter,
)
from ndbtop.actions.audit import AuditLog
from ndbtop.actions.backup_commands import WAIT_WORDS, AbortBackup, StartBackup
from ndbtop.actions.commands import (
    Action,
    RestartNode,
    SetClusterLogLevel,
    StartNode,
    StopNode,
    wire_text,
)
from ndbtop.actions.guards import assess
from ndbtop.actions.mgm_node_guards import mgmd_of
from ndbtop.actions.production import on_production
from ndbtop.actions.target import audit_fields
from ndbtop.compat import SLOTS
from ndbtop.errors import (
    MgmCommandError,
    MgmError,
    MgmParserError,
    MgmProtocolError,
    NdbtopError,
)
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.events.decode import decode_event
from ndbtop.model.backups import Backup, apply_status_report
from ndbtop.model.config import ClusterConfig


@dataclass(frozen=True, **SLOTS)
class ActionOutcome:
    """What happened: ``ok``, and the server's reply or the error, verbatim."""

    action: Action
    ok: bool
    reply: str
    target: str = ""


async def run_action(
    action: Action,
    connectstring: ConnectString,
    audit: AuditLog,
    *,
    timeout: float = 5.0,
    config: ClusterConfig | None = None,
    confirmed: str | None = None,
) -> ActionOutcome:
    """Send ``action`` to the first management server that answers and report the reply.

    ``confirmed`` is what the operator typed to confirm. An action whose
    consequence reaches the whole cluster is sent only when that is the phrase
    the live state asks for: a cluster that changed since the confirmation
    needs a new one. The audit record of the request holds what the operator
    was told (the warnings and the consequence) and what they typed.
    """
    client = MgmClient(connectstring, timeout=timeout)
    target = ""
    generation = config.generation if config is not None else None
    try:
        address = await client.connect()
        target = str(address)
        nodes = await client.get_status()
        backups = await live_backups(client) if isinstance(action, StartBackup) else ()
        mgmd = await mgmd_of(client, action, nodes)
        live = on_production(assess(action, nodes, config, backups, target, mgmd), action,
                             audit.production_context)
        if live.allowed and live.consequence is not None and confirmed != live.confirm_text:
            live = replace(live, blockers=(
                f"{live.consequence}; this was not confirmed with '{live.confirm_text}'",
            ))
        if not live.allowed:
            reply = "not sent: " + "; ".join(live.blockers)
            audit.write(
                event="refused", **audit_fields(target, generation), command=action.ndb_mgm(),
                reply=reply,
            )
            return ActionOutcome(action, False, reply, target)
        told: dict[str, object] = {}
        if live.warnings:
            told["told"] = list(live.warnings)
        if live.consequence is not None:
            told["consequence"] = live.consequence
        if confirmed is not None:
            told["confirmed_with"] = confirmed
        audit.write(
            event="sent",
            **audit_fields(target, generation),
            command=action.ndb_mgm(),
            request=wire_text(action),
            **told,
        )
        reply = await _send(client, action)
        audit.write(
            event="reply", **audit_fields(target, generation), command=action.ndb_mgm(), ok=True,
            reply=reply,
        )
        return ActionOutcome(action, True, reply, target)
    except MgmCommandError as exc:
        audit.write(
            event="reply",
            **audit_fields(target, generation),
            command=action.ndb_mgm(),
            ok=False,
            reply=exc.result,
        )
        return ActionOutcome(action, False, exc.result, target)
    except MgmError as exc:
        audit.write(
            event="error",
            **audit_fields(target, generation),
            command=action.ndb_mgm(),
            ok=False,
            reply=str(exc),
        )
        return ActionOutcome(action, False, str(exc), target)
    finally:
        await client.close()


async def live_backups(client: MgmClient) -> tuple[Backup, ...]:
    """Whether a backup runs, as the data nodes report it now (REPORT BACKUPSTATUS)."""
    try:
        raw = await client.dump_events(EventType.BACKUP_STATUS)
    except (MgmCommandError, MgmParserError, MgmProtocolError):
        # The data nodes could not report, or the server has no such request: the
        # data nodes' own refusal (1302) remains.
        await client.close()
        return ()
    now = time.time()
    return apply_status_report((), tuple(decode_event(r, now) for r in raw), now)


async def _send(client: MgmClient, action: Action) -> str:
    if isinstance(action, RestartNode):
        r = await client.restart_nodes(
            action.node_ids,
            initial=action.initial,
            nostart=action.nostart,
            abort=action.abort,
            force=action.force,
        )
        return f"{r.result}, restarted: {r.count}"
    if isinstance(action, StopNode):
        r = await client.stop_nodes(action.node_ids, abort=action.abort, force=action.force)
        return f"{r.result}, stopped: {r.count}"
    if isinstance(action, StartNode):
        r = await client.start_node(action.node_id)
        return r.result
    if isinstance(action, SetClusterLogLevel):
        for node_id in action.node_ids:
            await client.set_cluster_loglevel(node_id, action.category, action.level)
        return "Ok"
    if isinstance(action, SetLogFilter):
        states = []
        for severity in action.severities:
            on = await client.set_logfilter(int(severity), ENABLE_WIRE[action.enable])
            states.append(f"{severity.name} {'enabled' if on else 'disabled'}")
        return ", ".join(states)
    if isinstance(action, EnterSingleUser):
        await client.enter_single_user(action.api_id)
        return f"Ok, single user mode entered: access is granted for API node {action.api_id} only"
    if isinstance(action, ExitSingleUser):
        await client.exit_single_user()
        return "Ok, exiting single user mode in progress"
    if isinstance(action, StartBackup):
        backup_id = await client.start_backup(
            wait=action.wait, backup_id=action.backup_id, snapshot_start=action.snapshot_start
        )
        if backup_id is None:
            return "Ok (NOWAIT: the backup's id arrives with BackupStarted)"
        done = "completed" if action.wait == 2 else "started"
        return f"Ok, backup {backup_id} {done} ({WAIT_WORDS[action.wait]})"
    if isinstance(action, AbortBackup):
        await client.abort_backup(action.backup_id)
        return f"Ok, abort of backup {action.backup_id} ordered"
    raise NdbtopError(f"unknown action {action!r}")
