"""The keys a context's table may hold, and what each value must be.

A key is named as the command line names the option it stands for (``mysql_host`` is
``--mysql-host``); a key with no option of its own (``password_command``, ``production``,
``color``, ``replicates_to``) belongs to the context alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ndbtop.compat import SLOTS

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}\Z")
"""A context's name: a letter or digit, then letters, digits, ``_``, ``.`` or ``-`` (63 at
most): safe in a header, a Prometheus label, a confirmation phrase and a file name."""

COLOURS = (
    "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    "bright_black", "bright_red", "bright_green", "bright_yellow", "bright_blue",
    "bright_magenta", "bright_cyan", "bright_white",
)
"""The colours a context's label may have by name (the terminal's 16), besides ``#rrggbb``."""
_HEX = re.compile(r"#[0-9a-fA-F]{6}\Z")


class BadValue(ValueError):
    """A value a key cannot take; its text says what the key wants."""


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadValue("a non-empty string")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise BadValue("a string without control characters")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadValue("true or false")
    return value


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise BadValue("a TCP port number, 1-65535")
    return value


def _texts(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise BadValue("a list of strings")
    return tuple(_text(v) for v in value)


def _names(value: Any) -> tuple[str, ...]:
    """One context's name or a list of them (checked against the others once all are read)."""
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, list) and not isinstance(names, tuple):
        raise BadValue("a context's name or a list of them")
    out = []
    for name in names:
        if not isinstance(name, str) or not NAME.match(name):
            raise BadValue("a context's name or a list of them")
        out.append(name)
    return tuple(out)


def _colour(value: Any) -> str:
    if not isinstance(value, str) or not (value in COLOURS or _HEX.match(value)):
        raise BadValue(f"a colour: {', '.join(COLOURS[:8])}, bright_..., or #rrggbb")
    return value


def _tls_mode(value: Any) -> str:
    if value not in ("relaxed", "strict"):
        raise BadValue("relaxed or strict")
    return str(value)


@dataclass(frozen=True, **SLOTS)
class Key:
    """One key: how its value is read, and the option it stands for (None: the context's
    own)."""

    name: str
    read: Callable[[Any], Any]
    option: str | None
    help: str


KEYS: tuple[Key, ...] = (
    Key("connectstring", _text, "connectstring", "management servers (-c)"),
    Key("mysql_host", _text, "mysql_host", "SQL nodes (--mysql-host)"),
    Key("mysql_port", _port, "mysql_port", "their port (--mysql-port)"),
    Key("mysql_user", _text, "mysql_user", "SQL user (--mysql-user)"),
    Key("mysql_socket", _text, "mysql_socket", "Unix socket (--mysql-socket)"),
    Key("password_command", _text, None,
        "a command that prints the SQL password (run without a shell or a terminal)"),
    Key("login_path", _text, "login_path", "the password from this login path of "
        "~/.mylogin.cnf (--login-path)"),
    Key("defaults_group_suffix", _text, "defaults_group_suffix",
        "the password from [client<suffix>] of ~/.my.cnf (--defaults-group-suffix)"),
    Key("defaults_file", _text, "defaults_file", "option file instead of ~/.my.cnf"),
    Key("no_sql", _flag, "no_sql", "no SQL node (--no-sql)"),
    Key("ndb_tls_search_path", _text, "ndb_tls_search_path", "TLS certificates "
        "(--ndb-tls-search-path)"),
    Key("ndb_mgm_tls", _tls_mode, "ndb_mgm_tls", "relaxed or strict (--ndb-mgm-tls)"),
    Key("ssh", _flag, "ssh", "read the data node hosts over ssh (--ssh)"),
    Key("ssh_config", _text, "ssh_config", "ssh configuration file, -F (--ssh-config)"),
    Key("ssh_user", _text, "ssh_user", "remote user (--ssh-user)"),
    Key("ssh_option", _texts, "ssh_option",
        'ssh -o options, e.g. ["ProxyJump=bastion"] (--ssh-option)'),
    Key("read_only", _flag, None, "no action on this cluster (--read-write and a phrase "
        "lift it for one run)"),
    Key("production", _flag, None, "every confirmation wants a phrase naming the context"),
    Key("color", _colour, None, "the colour of the context's label in the header"),
    Key("replicates_to", _names, None, "the contexts this cluster replicates to"),
)
"""Every key of a context, in the order the README lists them."""

BY_NAME = {k.name: k for k in KEYS}

SSH_KEYS = ("ssh_config", "ssh_user", "ssh_option")
"""Keys that say how to reach the hosts over ssh: given, they turn ``ssh`` on."""
