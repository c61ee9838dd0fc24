"""Where the SQL node is and how to log in, following the MySQL client's conventions.

Sources, from lowest to highest precedence:

1. built-in defaults: host ``localhost``, port 3306, the OS login name as user;
2. the environment: ``MYSQL_HOST``, ``MYSQL_TCP_PORT``, ``MYSQL_UNIX_PORT``, ``MYSQL_PWD``;
3. one option file, ``~/.my.cnf`` or the ``--defaults-file`` that replaces it, groups
   ``[client]`` then ``[ndbtop]`` (a value in ``[ndbtop]`` wins over ``[client]``), then
   with ``--defaults-group-suffix`` the same groups with the suffix
   (``[client_prod]``, ``[ndbtop_prod]``), as the MySQL client reads them;
4. with ``--login-path NAME``, ``~/.mylogin.cnf`` (:mod:`ndbtop.ndbinfo.mylogin`), groups
   ``[client]`` then ``[NAME]``;
5. a context's ``password_command`` (the password only);
6. the command line.

As in the mysql client, host ``localhost`` means the Unix socket when one is given
or found at the usual paths, and TCP to 127.0.0.1 otherwise. As in the MariaDB
client, a port given on the command line without a socket asks for TCP.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ndbtop.compat import SLOTS
from ndbtop.errors import UsageError
from ndbtop.files import UnfitFile, read_limited
from ndbtop.textnum import float_or_none, int_or_none

DEFAULT_PORT = 3306
DEFAULT_CONNECT_TIMEOUT = 3.0
"""Seconds to wait for the TCP (or socket) connection and the server's greeting."""
DEFAULT_READ_TIMEOUT = 5.0
"""Seconds to wait for an answer to a query; an ndbinfo scan of a large cluster takes < 1 s."""

OPTION_GROUPS = ("client", "ndbtop")
"""Option-file groups read, in increasing precedence."""

OPTION_NAMES = (
    "host",
    "port",
    "user",
    "password",
    "socket",
    "ssl-ca",
    "ssl-cert",
    "ssl-key",
    "connect-timeout",
)
"""Option names understood in option files and in the command-line mapping."""

SOCKET_PATHS = (
    Path("/var/run/mysqld/mysqld.sock"),
    Path("/run/mysqld/mysqld.sock"),
    Path("/tmp/mysql.sock"),
    Path("/var/lib/mysql/mysql.sock"),
)
"""Where MySQL and MariaDB packages put the server's Unix socket."""

_ENVIRONMENT = {
    "host": "MYSQL_HOST",
    "port": "MYSQL_TCP_PORT",
    "socket": "MYSQL_UNIX_PORT",
    "password": "MYSQL_PWD",
}
_MAX_INCLUDE_DEPTH = 10
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", "\\": "\\", '"': '"', "'": "'"}


def login_name(env: Mapping[str, str]) -> str:
    """The OS login name, looked up as :func:`getpass.getuser` does, in ``env`` first."""
    for key in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        if env.get(key):
            return env[key]
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return "root"


@dataclass(frozen=True, **SLOTS)
class MysqlOptions:
    """How to reach and log in to the SQL node.

    ``socket`` set means a Unix socket connection (``host`` and ``port`` unused).
    ``password`` never appears in ``repr()`` or ``str()``. ``origins`` records where
    each value came from, as ``(option, origin)`` pairs, for display.
    """

    host: str = "localhost"
    port: int = DEFAULT_PORT
    user: str = field(default_factory=lambda: login_name(os.environ))
    password: str = field(default="", repr=False)
    socket: str | None = None
    ssl_ca: str | None = None
    ssl_cert: str | None = None
    ssl_key: str | None = None
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    write_timeout: float = DEFAULT_READ_TIMEOUT
    origins: tuple[tuple[str, str], ...] = ()

    def origin(self, option: str) -> str:
        """Where ``option`` (a name of :data:`OPTION_NAMES`) came from; ``default`` if unset."""
        return dict(self.origins).get(option, "default")

    @property
    def target(self) -> str:
        """The server address for messages: ``127.0.0.1:3306`` or ``socket /path``."""
        if self.socket:
            return f"socket {self.socket}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def options_summary(options: MysqlOptions) -> str:
    """One line naming the account and server, never the password: ``root@127.0.0.1:3306``."""
    if options.socket:
        return f"{options.user}@localhost via {options.socket}"
    return f"{options.user}@{options.target}"


def describe_options(options: MysqlOptions) -> tuple[str, ...]:
    """One line per connection setting with its origin; the password only as given or not."""
    password = "given" if options.origin("password") != "default" else "none"
    lines = [
        f"user {options.user} ({options.origin('user')})",
        f"password {password} ({options.origin('password')})",
    ]
    if options.socket:
        lines.append(f"socket {options.socket} ({options.origin('socket')})")
    else:
        lines.append(f"host {options.host} ({options.origin('host')})")
        lines.append(f"port {options.port} ({options.origin('port')})")
    for name, value in (
        ("ssl-ca", options.ssl_ca),
        ("ssl-cert", options.ssl_cert),
        ("ssl-key", options.ssl_key),
    ):
        if value:
            lines.append(f"{name} {value} ({options.origin(name)})")
    return tuple(lines)


_Setting = tuple[Optional[str], str]
"""An option's value (None for a bare ``name`` line) and where it came from."""


def resolve_mysql_options(
    cli: Mapping[str, str | None],
    env: Mapping[str, str],
    defaults_file: Path | None,
    home: Path,
    *,
    socket_paths: Sequence[Path] = SOCKET_PATHS,
    group_suffix: str | None = None,
    login_path: str | None = None,
    password: _Setting | None = None,
) -> MysqlOptions:
    """Combine the command line, the option file and the environment into options.

    ``cli`` maps option names (:data:`OPTION_NAMES`, dashes or underscores) to the
    values given on the command line, None for options not given. ``defaults_file``
    replaces ``home/.my.cnf``; it must exist, while a missing ``~/.my.cnf`` is fine.
    ``group_suffix`` also reads the groups with that suffix, ``login_path`` that group of
    the login path file (which must hold it), ``password`` is ``(password, origin)`` from a
    context's command. An unreadable or malformed option file raises :class:`UsageError`.
    """
    settings: dict[str, _Setting] = {}
    for name, variable in _ENVIRONMENT.items():
        if env.get(variable):
            settings[name] = (env[variable], variable)
    path = defaults_file if defaults_file is not None else home / ".my.cnf"
    wanted = [*OPTION_GROUPS, *(f"{g}{group_suffix}" for g in OPTION_GROUPS if group_suffix)]
    groups = read_option_file(path, wanted, required=defaults_file is not None)
    if login_path is not None:
        wanted += ["client", login_path]
        groups = _login_groups(env, home, login_path)
    for group in wanted:
        for name, setting in groups.get(group.lower(), {}).items():
            if setting[0] is not None:
                settings[name] = setting
    if password is not None:
        settings["password"] = password
    given_on_cli = set()
    for raw, value in cli.items():
        if value is not None:
            name = _option_name(raw)
            settings[name] = (value, "command line")
            given_on_cli.add(name)

    def value(name: str) -> str | None:
        setting = settings.get(name)
        return setting[0] if setting is not None and setting[0] != "" else None

    origins: dict[str, str] = {name: origin for name, (_, origin) in settings.items()}
    port = _port(settings["port"]) if value("port") else DEFAULT_PORT
    connect_timeout = (
        _seconds(settings["connect-timeout"]) if value("connect-timeout") else None
    ) or DEFAULT_CONNECT_TIMEOUT
    user = value("user")
    if user is None:
        user = login_name(env)
        origins["user"] = "login name"
    host = value("host") or "localhost"
    socket = value("socket")
    if host != "localhost":
        socket = None
    elif "port" in given_on_cli and "socket" not in given_on_cli:
        host, socket = "127.0.0.1", None
    elif socket is None:
        found = next((p for p in socket_paths if p.is_socket()), None)
        if found is not None:
            socket = str(found)
            origins["socket"] = "found at the usual path"
        else:
            host = "127.0.0.1"
    if socket is None:
        origins.pop("socket", None)
    password = settings["password"][0] if "password" in settings else None
    if password is None:
        origins.pop("password", None)
    return MysqlOptions(
        host=host,
        port=port,
        user=user,
        password=password or "",
        socket=socket,
        ssl_ca=value("ssl-ca"),
        ssl_cert=value("ssl-cert"),
        ssl_key=value("ssl-key"),
        connect_timeout=connect_timeout,
        origins=tuple(sorted(origins.items())),
    )


def _login_groups(env: Mapping[str, str], home: Path, login_path: str
                  ) -> dict[str, dict[str, _Setting]]:
    """The ``[client]`` and ``[login_path]`` groups of the login path file, which must exist
    and hold the second."""
    from ndbtop.ndbinfo.mylogin import login_file, read_login_file

    path = login_file(env, home)
    text = read_login_file(path)
    if text is None:
        raise UsageError(f"--login-path {login_path}: no login path file {path} "
                         "(mysql_config_editor set --login-path=... writes it)")
    found: dict[str, dict[str, _Setting]] = {"client": {}, login_path.lower(): {}}
    _read_text(text, path, found, depth=_MAX_INCLUDE_DEPTH)
    if not found[login_path.lower()]:
        raise UsageError(f"--login-path {login_path}: {path} has no login path of that name")
    return found


OPTION_FILE_LIMIT = 1 << 20
"""Bytes an option file may hold (``/dev/zero`` or a huge file is refused, not read)."""


def read_option_file(
    path: Path, groups: Sequence[str], *, required: bool = True
) -> dict[str, dict[str, _Setting]]:
    """The options of ``groups`` in an option file (and the files it includes).

    Returns ``{group: {option: (value, origin)}}``; within a group the last line wins.
    Option names are lower case with dashes. A missing file raises :class:`UsageError`
    only if ``required``; an unreadable or malformed one always does.
    """
    found: dict[str, dict[str, _Setting]] = {g.lower(): {} for g in groups}
    _read_file(path, found, required=required, depth=0)
    return found


def _read_file(
    path: Path, found: dict[str, dict[str, _Setting]], *, required: bool, depth: int
) -> None:
    try:
        text = read_limited(path, OPTION_FILE_LIMIT, "option file").decode(
            "utf-8", errors="replace"
        )
    except FileNotFoundError:
        if required:
            raise UsageError(f"could not open the option file {path}: no such file") from None
        return
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        raise UsageError(f"could not read the option file {path}: {reason}") from None
    except UnfitFile as exc:
        raise UsageError(f"could not read the option file {path}: {exc.reason}") from None
    _read_text(text, path, found, depth)


def _read_text(text: str, path: Path, found: dict[str, dict[str, _Setting]], depth: int
               ) -> None:
    group: str | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{path}, line {lineno}"
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "!":
            _directive(line, where, found, depth)
            continue
        if line[0] == "[":
            end = line.find("]")
            if end < 0:
                raise UsageError(f"malformed option file {where}: wrong group definition")
            group = line[1:end].strip().lower()
            continue
        if group is None:
            raise UsageError(f"malformed option file {where}: option outside any [group]")
        if group not in found:
            continue
        name, eq, rest = _remove_end_comment(line).partition("=")
        option = _option_name(name)
        if not option:
            raise UsageError(f"malformed option file {where}: no option name")
        found[group][option] = (_option_value(rest) if eq else None, f"{path} [{group}]")


def _directive(line: str, where: str, found: dict[str, dict[str, _Setting]], depth: int) -> None:
    parts = line[1:].split(None, 1)
    word = parts[0] if parts else ""
    target = Path(parts[1].strip()).expanduser() if len(parts) == 2 else None
    if word not in ("include", "includedir") or target is None:
        raise UsageError(f"malformed option file {where}: wrong '!' directive")
    if depth >= _MAX_INCLUDE_DEPTH:
        raise UsageError(f"malformed option file {where}: includes nested too deeply")
    if word == "include":
        _read_file(target, found, required=False, depth=depth + 1)
        return
    try:
        files = sorted(p for p in target.iterdir() if p.suffix == ".cnf" and p.is_file())
    except OSError:
        return
    for included in files:
        _read_file(included, found, required=False, depth=depth + 1)


def _remove_end_comment(line: str) -> str:
    """Cut a ``#`` comment that is outside quotes, as the MySQL option parser does."""
    quote = ""
    escape = False
    for i, ch in enumerate(line):
        if ch in "'\"" and not escape:
            if not quote:
                quote = ch
            elif quote == ch:
                quote = ""
        elif not quote and ch == "#":
            return line[:i]
        escape = bool(quote) and ch == "\\" and not escape
    return line


def _option_value(text: str) -> str:
    value = text.strip()
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    out = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _option_name(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _port(setting: _Setting) -> int:
    text, origin = setting
    port = int_or_none(str(text), 0, 65535)
    if port is None:
        raise UsageError(f"port {text!r} ({origin}) is not a TCP port number")
    return port or DEFAULT_PORT


def _seconds(setting: _Setting) -> float:
    text, origin = setting
    seconds = float_or_none(str(text), 0.0, 31536000.0)
    if not seconds:
        raise UsageError(f"connect-timeout {text!r} ({origin}) is not a number of seconds")
    return seconds
