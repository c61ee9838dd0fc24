"""Confirmations on a production context: the phrase names the context.

On a context marked ``production = true`` every action that changes the cluster is
confirmed by typing a phrase that names what it does and where, ``restart node 3 on
prod``: a shell history recalled in the wrong terminal, or a habit of pressing Enter,
cannot act on production. A phrase the guards already ask for (``restart the whole
cluster``) gains ``on prod``; a node or backup id to type becomes the full phrase.
"""

from __future__ import annotations

from dataclasses import replace

from ndbtop.actions.admin_commands import EnterSingleUser, ExitSingleUser, SetLogFilter
from ndbtop.actions.assessment import Assessment
from ndbtop.actions.backup_commands import AbortBackup, StartBackup
from ndbtop.actions.commands import Action, RestartNode, SetClusterLogLevel, StartNode, StopNode
from ndbtop.textnum import is_digits


def action_words(action: Action) -> str:
    """What ``action`` does, in the words of its phrase: ``restart node 3``."""
    if isinstance(action, (RestartNode, StopNode)):
        verb = "restart" if isinstance(action, RestartNode) else "stop"
        ids = " ".join(map(str, action.node_ids))
        # Its options too (-i, -a...): ticking one asks for the phrase again.
        flags = [w for w in action.ndb_mgm().split() if w.startswith("-")]
        return " ".join([f"{verb} node{'s' if len(action.node_ids) > 1 else ''} {ids}", *flags])
    if isinstance(action, StartNode):
        return f"start node {action.node_id}"
    if isinstance(action, StartBackup):
        return "start a backup"
    if isinstance(action, AbortBackup):
        return f"abort backup {action.backup_id}"
    if isinstance(action, SetClusterLogLevel):
        return "change the cluster log levels"
    if isinstance(action, SetLogFilter):
        return "change the cluster log filter"
    if isinstance(action, EnterSingleUser):
        return "enter single user mode"
    if isinstance(action, ExitSingleUser):
        return "exit single user mode"
    return action.ndb_mgm().lower()


def production_phrase(action: Action, asked: str | None, context: str) -> str:
    """The phrase a production context asks for ``action``, given the one the guards
    ask for (``asked``: None, an id, or a phrase)."""
    if asked is None or is_digits(asked):
        return f"{action_words(action)} on {context}"
    return f"{asked} on {context}"


def on_production(assessment: Assessment, action: Action, context: str | None) -> Assessment:
    """``assessment`` as a production context ``context`` asks it (unchanged for None)."""
    if context is None:
        return assessment
    return replace(assessment,
                   confirm_text=production_phrase(action, assessment.confirm_text, context))


ROLLING = "rolling restart"
"""What a production context's rolling restart is confirmed with, before ``on NAME``."""


def rolling_phrase(asked: str | None, context: str | None) -> str | None:
    """The phrase a rolling restart's plan wants typed: its own (``abort transactions``),
    and on a production context that phrase or ``rolling restart``, then ``on NAME``."""
    if context is None:
        return asked
    return f"{asked or ROLLING} on {context}"
