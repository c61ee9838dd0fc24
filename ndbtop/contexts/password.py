"""A context's ``password_command``: the SQL password from a program, never from the file.

The command is split as a shell would split it (``shlex``) but run without a shell, with
no terminal (standard input is ``/dev/null``: a password manager answers through its
agent), and must print the password on its first line within :data:`TIMEOUT` seconds.
The password is kept in memory only; what the command wrote to stderr is quoted, one line,
only when it fails.
"""

from __future__ import annotations

import shlex
import subprocess

from ndbtop.contexts.load import Context, ContextsError
from ndbtop.sanitise import sanitise

TIMEOUT = 30.0
"""Seconds a password command may take."""
OUTPUT_LIMIT = 64 << 10
"""Bytes of output read from it."""


class PasswordCommandError(ContextsError):
    """A context's ``password_command`` failed: its one line names the context and the
    command's first word, never the password."""


def run_password_command(context: Context, timeout: float = TIMEOUT) -> str:
    """The password ``context.password_command`` prints; a failure is one line naming the
    context and the command's first word."""
    command = context.password_command
    if command is None:
        raise ValueError(f"context {context.name} has no password_command")
    where = f"password_command of context {context.name} ({context.where('password_command')})"
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise PasswordCommandError(f"{where}: {exc}") from None
    if not argv:
        raise PasswordCommandError(f"{where}: empty")
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)
    except FileNotFoundError:
        raise PasswordCommandError(f"{where}: no program {argv[0]!r}") from None
    except PermissionError:
        raise PasswordCommandError(f"{where}: {argv[0]!r} cannot be run") from None
    except subprocess.TimeoutExpired:
        raise PasswordCommandError(f"{where}: no answer within {timeout:g} s") from None
    if done.returncode != 0:
        said = done.stderr[:OUTPUT_LIMIT].decode("utf-8", "replace").strip().splitlines()
        tail = f": {sanitise(said[-1])}" if said else ""
        raise PasswordCommandError(f"{where}: {argv[0]} exited {done.returncode}{tail}")
    out = done.stdout[:OUTPUT_LIMIT].decode("utf-8", "replace")
    return out.splitlines()[0] if out.splitlines() else ""
