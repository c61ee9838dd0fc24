"""A password given on the command line is hidden from ``ps``, as the mysql client does.

``ps`` and ``/proc/PID/cmdline`` show the process arguments to every user of the
machine. Once the command line is read, the process title is rewritten with every
character of the password replaced by ``x`` (setproctitle rewrites the memory those
tools read). The prompt (``-p`` alone), ``$MYSQL_PWD`` or an option file never put it
there at all.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def masked(argv: Sequence[str], password: str) -> list[str]:
    """``argv`` with the password of ``-pPASSWORD``, ``-p PASSWORD`` or
    ``--mysql-password[=]PASSWORD`` (or an abbreviation of it) replaced by x's."""
    out = list(argv)
    hidden = "x" * len(password)
    for i, word in enumerate(out):
        previous = out[i - 1] if i else ""
        if word == password and (previous == "-p" or _is_password_option(previous)):
            out[i] = hidden
        elif word.startswith("-p") and not word.startswith("--") and word[2:] == password:
            out[i] = "-p" + hidden
        elif "=" in word and _is_password_option(word.split("=", 1)[0]):
            name, value = word.split("=", 1)
            if value == password:
                out[i] = f"{name}={hidden}"
    return out


def _is_password_option(word: str) -> bool:
    return len(word) > len("--mysql-p") and "--mysql-password".startswith(word)


def hide_password(password: object) -> bool:
    """Rewrite the process title without ``password`` (a string given on the command
    line); returns whether it was there to hide."""
    if not isinstance(password, str) or not password:
        return False
    argv = list(getattr(sys, "orig_argv", sys.argv))
    shown = masked(argv, password)
    if shown == argv:
        return False
    import setproctitle

    setproctitle.setproctitle(" ".join(shown))
    return True
