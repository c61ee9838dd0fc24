"""The fixed command a data node host runs over SSH, and the ``ssh`` command line.

Nothing is installed or written on the host: ``ssh`` runs one fixed POSIX ``sh`` loop
that needs only ``/proc`` and the usual tools (cat, head, grep, tr, ls, dd, stat). The loop
reads requests on its standard input, one per line, and answers on its output:

- first line: a random token; every marker line the loop prints starts with
  ``@<token>`` (see :mod:`ndbtop.host.procfs`), then ``hello <CLK_TCK>``, or
  ``nolinux <uname -s>`` and exit when there is no ``/proc/diskstats``;
- ``s``: one sample, between the ``sample`` and ``end`` markers;
- ``e`` followed by a line holding a file path: up to 512 KiB of that file between the
  ``log`` and ``end`` markers (``nolog`` when it cannot be read, ``link`` when it is a
  symbolic link: never followed, the file is opened with ``O_NOFOLLOW``, ``dd
  iflag=nofollow``, so a link put in its place after the check is not followed either);
- ``d`` followed by a line holding a path: the last line of ``df -P -k`` for that path
  (the file system holding it) between the ``df`` and ``end`` markers;
- ``b`` followed by a line holding a directory: the birth time (``stat -c %W``, 0 when
  the file system does not keep it) of ``S0.FragLog`` in it, between ``birth`` and
  ``end``: when a redo log part's first file was created;
- ``c`` followed by a line holding a path and a line holding a byte count: after the
  ``clog`` marker, ``file <size> <mtime>`` and the last that many bytes of the file as it
  was at that size (bytes appended meanwhile are left for the next read) when it is a
  regular file (never through a symbolic link: a link at the name answers ``nofile``, and
  ``dd iflag=nofollow,nonblock`` neither follows one swapped in after that check nor waits
  on a pipe), then ``now <epoch> <utc offset>`` (the host's clock, to read the file's local
  times), then ``end``. Read-only: ``dd`` and ``stat``.

Paths are data read by ``read`` and used only inside double quotes, never parsed by a
shell.

The script holds no value from the configuration: host names go to ``ssh`` after
``--`` (and must pass :func:`check_host`), paths go through standard input.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.textnum import int_or_none

SCRIPT = (
    'IFS= read -r t || exit 0; '
    'if [ ! -r /proc/diskstats ]; then echo "@$t nolinux $(uname -s 2>/dev/null)"; exit 0; fi; '
    'echo "@$t hello $(getconf CLK_TCK 2>/dev/null || echo 100)"; '
    'while IFS= read -r c; do case $c in '
    's) echo "@$t sample"; echo "@$t uptime"; cat /proc/uptime; '
    'echo "@$t disk"; cat /proc/diskstats; '
    'echo "@$t stat"; grep -E "^(cpu|btime) " /proc/stat; '
    'echo "@$t mem"; head -n 3 /proc/meminfo; '
    'for d in /proc/[0-9]*; do '
    'n=; read -r n 2>/dev/null < "$d/comm"; '
    'case $n in ndbmtd|ndbd) ;; *) continue;; esac; '
    'echo "@$t proc ${d#/proc/}"; '
    'printf "C "; tr "\\n\\000" " \\036" < "$d/cmdline"; echo; '
    'cat "$d"/task/*/stat; grep "^write_bytes" "$d/io"; ls -l "$d/fd" | grep "FragLog"; '
    'done 2>/dev/null; '
    'echo "@$t end";; '
    'e) IFS= read -r f || exit 0; '
    'if [ -L "$f" ]; then echo "@$t link"; '
    'elif [ -f "$f" ] && [ -r "$f" ]; then echo "@$t log"; '
    'dd if="$f" iflag=nofollow bs=65536 count=8 2>/dev/null | tr -d "\\000"; echo; '
    'else echo "@$t nolog"; fi; echo "@$t end";; '
    'd) IFS= read -r f || exit 0; echo "@$t df"; '
    'df -P -k -- "$f" 2>/dev/null | tail -n 1; echo "@$t end";; '
    'b) IFS= read -r f || exit 0; echo "@$t birth"; '
    'stat -c %W -- "$f/S0.FragLog" 2>/dev/null; echo "@$t end";; '
    'c) IFS= read -r f || exit 0; IFS= read -r n || exit 0; '
    'case $n in ""|*[!0-9]*) n=0;; esac; echo "@$t clog"; '
    'if [ -f "$f" ] && [ ! -h "$f" ] && [ -r "$f" ]; then '
    'set -- $(stat -c "%s %Y" -- "$f" 2>/dev/null); echo "@$t file $1 $2"; '
    'case $1 in ""|*[!0-9]*) n=0;; esac; '
    'if [ "$n" -gt 0 ]; then k=0; if [ "$1" -gt "$n" ]; then k=$(($1 - n)); fi; '
    'dd if="$f" iflag=nofollow,nonblock,skip_bytes,count_bytes skip="$k" count="$n" '
    'bs=65536 2>/dev/null | tr -d "\\000"; echo; fi; '
    'else echo "@$t nofile"; fi; date "+@$t now %s %z"; echo "@$t end";; '
    'esac; done'
)
"""The loop, on one line (a login shell of any kind passes it to ``sh -c`` unchanged)."""

REMOTE_COMMAND = "exec sh -c " + shlex.quote(SCRIPT)
"""What ``ssh`` asks the host's login shell to run: fixed, whatever the host."""

DEFAULT_CONNECT_TIMEOUT = 5
"""Seconds ``ssh`` waits for the TCP connection (``ConnectTimeout``) unless told otherwise."""

_HOST = re.compile(r"[A-Za-z0-9_.:%\[\]-]{1,253}")


class UnusableHost(ValueError):
    """A host name that cannot be given to ``ssh`` safely."""


def check_host(host: str) -> str:
    """``host`` if it is a plain host name or address; raises :class:`UnusableHost` else.

    Letters, digits, ``. - _ : % [ ]`` only, and no leading ``-``: a value from the
    configuration can then be neither an ``ssh`` option nor ``user@host``, and holds no
    shell syntax, quote, space or newline.
    """
    if not _HOST.fullmatch(host) or host.startswith("-"):
        raise UnusableHost(f"host name {host!r} refused: not a plain host name or address")
    return host.strip("[]") if host.startswith("[") and host.endswith("]") else host


def check_path(path: str) -> str:
    """``path`` if it can be sent to the loop as one line; raises ValueError else."""
    if not path or "\n" in path or "\0" in path or "\r" in path:
        raise ValueError(f"path {path!r} refused: empty or holds a line break")
    return path


@dataclass(frozen=True, **SLOTS)
class SshOptions:
    """How to run ``ssh``: ``config`` is ``-F``, ``user`` is ``-l``, ``options`` are ``-o``."""

    config: str | None = None
    user: str | None = None
    options: tuple[str, ...] = ()
    program: str = "ssh"

    @property
    def connect_timeout(self) -> float:
        """The ``ConnectTimeout`` in effect: the user's ``-o`` if given, else the default."""
        for opt in self.options:
            key, _, value = opt.replace("=", " ", 1).partition(" ")
            seconds = int_or_none(value, 0, 86_400)
            if key.strip().lower() == "connecttimeout" and seconds is not None:
                return float(seconds)
        return float(DEFAULT_CONNECT_TIMEOUT)


def ssh_argv(host: str, opts: SshOptions, interval: float) -> list[str]:
    """The ``ssh`` argument list for sampling ``host`` (checked with :func:`check_host`).

    ``BatchMode=yes`` comes first so that no user option can turn it off (ssh keeps the
    first value it is given); the connect timeout and keep-alive come after the user's
    options, which may change them. Host-key checking is left as the user set it.
    """
    argv = [opts.program, "-T", "-x", "-a", "-o", "BatchMode=yes"]
    if opts.config:
        argv += ["-F", opts.config]
    if opts.user:
        argv += ["-l", opts.user]
    for opt in opts.options:
        argv += ["-o", opt]
    alive = max(round(max(interval, 1.0) * 5), 5)
    argv += [
        "-o", f"ConnectTimeout={DEFAULT_CONNECT_TIMEOUT}",
        "-o", f"ServerAliveInterval={alive}",
        "-o", "ServerAliveCountMax=3",
        "--", check_host(host), REMOTE_COMMAND,
    ]
    return argv


def refuse_option_values(values: Sequence[str], what: str) -> None:
    """Raise ValueError for a value that starts with ``-`` or holds a line break."""
    for v in values:
        if v.startswith("-") or "\n" in v or "\r" in v:
            raise ValueError(f"{what} {v!r} refused")
