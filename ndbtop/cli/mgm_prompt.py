"""The ``ndbtop mgm`` prompt: one command per line, with history and completion.

History is kept in ``$XDG_STATE_HOME/ndbtop/mgm_history`` (mode 0600 in the
0700 state directory, which is refused when others could change it); ndbtop reads it
(bounded, never through a link) and writes it (a new file renamed into place) itself,
never readline, so a link planted there is replaced, not written through. Completion
offers the language's words and the node ids of the cluster's last ``get status``.
``QUIT``, ``EXIT`` or ``BYE`` (or end of input) leave; ``HELP`` prints the commands.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from ndbtop.actions.mgm_language import COMMAND_WORDS, USAGE, MgmUsageError, parse
from ndbtop.cli.exits import DONE
from ndbtop.errors import MgmError, NdbtopError
from ndbtop.files import read_limited, state_subdir, write_private
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.sanitise import write_line

HISTORY_LENGTH = 1000
HISTORY_BYTES = 1 << 20
"""Bytes of the history file read at most."""
LEAVE = ("QUIT", "EXIT", "BYE")


def history_path() -> Path:
    """``$XDG_STATE_HOME/ndbtop/mgm_history``."""
    return state_subdir() / "mgm_history"


def completer(words: Sequence[str], node_ids: Callable[[], Sequence[int]]
              ) -> Callable[[str, int], str | None]:
    """A readline completer: the language's words (upper case) and the node ids."""

    def complete(text: str, state: int) -> str | None:
        choices = [w for w in words if w.startswith(text.upper())]
        choices += [str(n) for n in node_ids() if str(n).startswith(text)]
        return choices[state] if state < len(choices) else None

    return complete


def run_prompt(args: argparse.Namespace, connectstring: ConnectString) -> int:
    """Read and run commands until QUIT or end of input; the last command's status."""
    from ndbtop.cli.mgm import execute

    known: list[int] = []
    with contextlib.suppress(MgmError):
        known[:] = asyncio.run(_node_ids(connectstring))
    path = history_path()
    readline = _setup_readline(lambda: known, path)
    write_line(sys.stdout, f"-- ndbtop mgm -- {connectstring} -- HELP lists the commands --")
    status = DONE
    try:
        while True:
            try:
                line = input("ndb_mgm> ")
            except EOFError:
                write_line(sys.stdout, "")
                break
            if line.strip().upper().rstrip(";") in LEAVE:
                break
            if line.strip().upper() in ("HELP", "?"):
                sys.stdout.write(USAGE.replace(" | ", "\n") + "\n")
                continue
            try:
                command = parse(line)
                if command is None:
                    continue
                status = asyncio.run(execute(command, args, connectstring, interactive=True))
            except MgmUsageError as exc:
                write_line(sys.stdout, f"{exc}")
            except NdbtopError as exc:
                write_line(sys.stderr, f"ndbtop: error: {exc}")
    finally:
        if readline is not None:
            save_history(readline, path)
    return status


def load_history(readline: ModuleType, path: Path) -> None:
    """The last :data:`HISTORY_LENGTH` lines of ``path`` as readline's history (none when
    it is missing, not a regular file of the user's own, or larger than
    :data:`HISTORY_BYTES`)."""
    readline.clear_history()
    try:
        data = read_limited(path, HISTORY_BYTES, "mgm history", private=True)
    except (OSError, NdbtopError):
        return
    for line in data.decode("utf-8", errors="replace").splitlines()[-HISTORY_LENGTH:]:
        readline.add_history(line)


def save_history(readline: ModuleType, path: Path) -> None:
    """readline's history, its last :data:`HISTORY_LENGTH` lines, as a new 0600 file at
    ``path`` (a link there is replaced, never written through)."""
    count = readline.get_current_history_length()
    lines = [readline.get_history_item(i) for i in range(max(count - HISTORY_LENGTH, 0) + 1,
                                                           count + 1)]
    data = "".join(f"{line}\n" for line in lines if line is not None)
    with contextlib.suppress(OSError, NdbtopError):
        write_private(path, data.encode("utf-8", errors="replace"))


async def _node_ids(connectstring: ConnectString) -> list[int]:
    client = MgmClient(connectstring)
    try:
        return [n.node_id for n in await client.get_status()]
    finally:
        await client.close()


def _setup_readline(node_ids: Callable[[], Sequence[int]], path: Path) -> ModuleType | None:
    """readline with the history of ``path`` and completion; None where it is missing."""
    try:
        import readline
    except ImportError:
        return None
    readline.set_history_length(HISTORY_LENGTH)
    load_history(readline, path)
    readline.set_completer(completer(COMMAND_WORDS, node_ids))
    readline.set_completer_delims(" \t;")
    readline.parse_and_bind("tab: complete")
    return readline
