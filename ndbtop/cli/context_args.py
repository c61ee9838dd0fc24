"""``--context NAME``: a context's settings become the options not given on the command line.

Every command that reaches a cluster takes ``--context`` (or ``$NDBTOP_CONTEXT``). The
context's keys are the options' own names; an option given on the command line wins over
the context's key, and so does the command line's choice between a SQL node and
``--no-sql``. A context's ``read_only`` disables actions as ``--read-only`` does, and
``--read-write`` lifts it for one run only once its phrase is typed at the terminal.
"""

from __future__ import annotations

import argparse
import os
import sys

from ndbtop.contexts import Context, load_contexts
from ndbtop.errors import UsageError

ENVIRONMENT = "NDBTOP_CONTEXT"
"""The variable that names the context when ``--context`` does not."""

SQL_KEYS = frozenset({"mysql_host", "mysql_port", "mysql_user", "mysql_socket", "login_path",
                      "defaults_group_suffix"})
"""Option destinations that describe the SQL node: ``--no-sql`` on the command line drops
them from the context, and any of them on the command line drops its ``no_sql``."""


def context_name(args: argparse.Namespace, env: dict[str, str] | None = None) -> str | None:
    """The context the command works on: ``--context``, else ``$NDBTOP_CONTEXT``, else
    None (also for a command that takes no ``--context``)."""
    if not hasattr(args, "context"):
        return None
    env = dict(os.environ) if env is None else env
    return args.context or env.get(ENVIRONMENT) or None


def apply_context(args: argparse.Namespace, env: dict[str, str] | None = None
                  ) -> Context | None:
    """Fill the options the command line did not give from the named context; sets
    ``args.context_info`` (None without a context) and returns it."""
    name = context_name(args, env)
    args.context_info = None
    if name is None:
        if getattr(args, "read_write", False):
            raise UsageError("--read-write lifts a context's read_only: name the context "
                             "(--context NAME)")
        return None
    context = load_contexts().named(name)
    given = set(getattr(args, "given", ()))
    for destination, value in context.options:
        if not hasattr(args, destination) or destination in given:
            continue
        if destination in SQL_KEYS and "no_sql" in given:
            continue
        if destination == "no_sql" and given & (SQL_KEYS | {"mysql_password"}):
            continue
        setattr(args, destination, list(value) if isinstance(value, tuple) else value)
    args.context_info = context
    return context


def lift_phrase(context: Context) -> str:
    """What is typed to lift ``context``'s ``read_only`` for one run."""
    return f"allow actions on {context.name}"


def context_read_only(args: argparse.Namespace, ask: object = None) -> str | None:
    """Why the context disables actions (``read_only of context dr (FILE, line N)``), or
    None when it does not or ``--read-write`` was confirmed by its phrase."""
    context: Context | None = getattr(args, "context_info", None)
    lift = getattr(args, "read_write", False)
    if context is None or not context.read_only:
        if lift:
            name = context.name if context is not None else "?"
            raise UsageError(f"--read-write: context {name} is not read_only")
        return None
    origin = f"read_only of context {context.name} ({context.where('read_only')})"
    if not lift:
        return origin
    phrase = lift_phrase(context)
    if not sys.stdin.isatty():
        raise UsageError(f"--read-write: {origin}; its phrase is typed at a terminal, "
                         "never given by a script")
    reader = ask if callable(ask) else input
    sys.stderr.write(f"ndbtop: context {context.name} is {origin}.\n".replace(
        f"is read_only of context {context.name}", "is read_only"))
    typed = str(reader(f"type '{phrase}' to allow actions for this run: ")).strip()
    if typed != phrase:
        raise UsageError(f"--read-write: '{phrase}' was not typed; {context.name} stays "
                         "read-only")
    return None
