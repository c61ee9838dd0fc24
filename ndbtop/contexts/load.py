"""Reading ``clusters.toml``: one table per cluster, every key checked, every error a line.

The file is trusted with where clusters are and how to reach them, so it must be the
user's own (or root's) and writable by no one else, and so must every directory on the way
to it (OpenSSH's StrictModes rule, as for the state directory: :func:`~ndbtop.files.
check_tree`; a directory others may write to needs the sticky bit); it is read as a
regular file of at most 1 MB. Every mistake is one line naming the file and the line, a
table or array nested too deeply for the parser too.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ndbtop.compat import SLOTS, toml_loads
from ndbtop.contexts.keys import BY_NAME, KEYS, NAME, SSH_KEYS, BadValue
from ndbtop.errors import UsageError
from ndbtop.files import UnfitFile, UnsafeDirectory, check_tree, read_limited

FILE_LIMIT = 1 << 20
"""Bytes ``clusters.toml`` may hold."""


class ContextsError(UsageError):
    """``clusters.toml`` cannot be used: missing, unsafe, malformed, or naming no such
    context."""


@dataclass(frozen=True, **SLOTS)
class Context:
    """One cluster as ``clusters.toml`` describes it.

    ``options`` holds the keys that stand for a command-line option, by the option's
    destination (``mysql_host``...); the others are fields of their own.
    """

    name: str
    path: Path
    line: int
    """The line of the context's ``[name]`` table."""
    options: tuple[tuple[str, Any], ...] = ()
    password_command: str | None = None
    read_only: bool = False
    production: bool = False
    color: str | None = None
    replicates_to: tuple[str, ...] = ()
    lines: tuple[tuple[str, int], ...] = field(default=(), repr=False)
    """The line of each key given."""

    def option(self, destination: str, default: Any = None) -> Any:
        """The value of the option ``destination`` (``connectstring``...), or ``default``."""
        return dict(self.options).get(destination, default)

    @property
    def connectstring(self) -> str | None:
        """The management servers, as ``-c`` takes them (None: ndbtop's default)."""
        value = self.option("connectstring")
        return None if value is None else str(value)

    def where(self, key: str | None = None) -> str:
        """``clusters.toml, line 4`` for ``key`` (or the context's table)."""
        line = dict(self.lines).get(key, self.line) if key else self.line
        return f"{self.path}, line {line}"


@dataclass(frozen=True)
class Contexts(Mapping[str, Context]):
    """Every context of a file, in the file's order."""

    path: Path
    contexts: tuple[Context, ...] = ()

    def __getitem__(self, name: str) -> Context:
        for context in self.contexts:
            if context.name == name:
                return context
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (c.name for c in self.contexts)

    def __len__(self) -> int:
        return len(self.contexts)

    def named(self, name: str) -> Context:
        """The context ``name``; a name the file lacks is a one-line error listing them."""
        try:
            return self[name]
        except KeyError:
            known = ", ".join(self) or "none"
            raise ContextsError(f"no context {name!r} in {self.path} (it has: {known})"
                                ) from None

    def replication(self) -> tuple[tuple[str, str], ...]:
        """Every ``(source, replica)`` pair that ``replicates_to`` names, in file order."""
        return tuple((c.name, to) for c in self.contexts for to in c.replicates_to)

    def replicas_of(self, name: str) -> tuple[Context, ...]:
        """The contexts ``name`` replicates to."""
        return tuple(self[to] for to in self.named(name).replicates_to)

    def sources_of(self, name: str) -> tuple[Context, ...]:
        """The contexts that replicate to ``name``."""
        return tuple(c for c in self.contexts if name in c.replicates_to)


def clusters_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/ndbtop/clusters.toml`` (``~/.config/ndbtop/clusters.toml``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "ndbtop" / "clusters.toml"


def load_contexts(path: Path | None = None) -> Contexts:
    """The contexts of ``path`` (default :func:`clusters_path`); raises
    :class:`ContextsError` with one line when the file cannot be used."""
    path = clusters_path() if path is None else path
    return parse_contexts(read_safely(path), path)


def read_safely(path: Path) -> str:
    """The text of ``path``, refused unless only its owner (the user, or root) can write it
    and its directory."""
    try:
        data = read_limited(path, FILE_LIMIT, "contexts file")
        info = os.stat(path)
        parent = os.stat(path.parent)
    except FileNotFoundError:
        raise ContextsError(f"no contexts: {path} does not exist (README: \"Several "
                            "clusters\" has an example)") from None
    except OSError as exc:
        raise ContextsError(f"cannot read {path}: {(exc.strerror or str(exc)).lower()}"
                            ) from None
    except UnfitFile as exc:
        raise ContextsError(f"cannot read {path}: {exc.reason}") from None
    refusal = unsafe(info, "", path) or unsafe(parent, "its directory ", path.parent)
    if refusal is not None:
        raise ContextsError(refusal)
    try:
        check_tree(path.parent, top=path)
    except UnsafeDirectory as exc:
        raise ContextsError(f"{path}: the directory {exc.path} on the way to it {exc.reason}: "
                            "refused, as anyone who can change it chooses the clusters "
                            "ndbtop acts on") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ContextsError(f"{path} is not UTF-8 text") from None


def unsafe(info: os.stat_result, what: str, path: Path) -> str | None:
    """Why a file (or directory) that others could change is refused, else None."""
    mine = info.st_uid in (os.geteuid(), 0)
    sticky = stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX
    if not mine:
        return f"{what}{path} is owned by another user (uid {info.st_uid}): refused"
    if info.st_mode & 0o022 and not sticky:
        mode = stat.filemode(info.st_mode)
        return (f"{what}{path} can be written by others ({mode}): refused, as anyone who "
                f"can change it chooses the clusters ndbtop acts on (chmod go-w {path})")
    return None


_HEADER = re.compile(r"\s*\[(?!\[)\s*(\"[^\"]*\"|'[^']*'|[^\]\s]+)\s*\]")
_KEY = re.compile(r"\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[A-Za-z0-9_-]+)\s*[=.]")


def _unquote(text: str) -> str:
    return text[1:-1] if text[:1] in "\"'" else text


def key_lines(text: str) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """The line of each table header and of each key in it (``""`` for keys before the
    first table): tomllib gives values, not where they were written."""
    tables: dict[str, int] = {}
    keys: dict[tuple[str, str], int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header is not None:
            table = _unquote(header.group(1))
            tables.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if key is not None:
            keys.setdefault((table, _unquote(key.group(1))), number)
    return tables, keys


def parse_contexts(text: str, path: Path) -> Contexts:
    """The contexts ``text`` (read from ``path``) describes; one line per mistake."""
    try:
        data = toml_loads(text)
    except ValueError as exc:
        raise ContextsError(f"{path}: not TOML: {exc}") from None
    except RecursionError:
        raise ContextsError(f"{path}: not TOML ndbtop reads: tables or arrays nested too "
                            "deeply") from None
    tables, keys = key_lines(text)
    contexts = []
    for name, table in data.items():
        if not isinstance(table, dict):
            line = keys.get(("", name), 1)
            raise ContextsError(f"{path}, line {line}: {name!r} is outside a context: every "
                                "key belongs in a table named by its context ([prod])")
        if not NAME.match(name):
            raise ContextsError(
                f"{path}, line {tables.get(name, 1)}: {name!r} is not a context name "
                "(letters, digits, _ . -; at most 63)")
        contexts.append(_context(name, table, path, tables.get(name, 1), keys, tables))
    names = {c.name for c in contexts}
    for c in contexts:
        for to in c.replicates_to:
            if to == c.name or to not in names:
                why = "itself" if to == c.name else f"{to!r}, which is no context of this file"
                raise ContextsError(f"{c.where('replicates_to')}: replicates_to in context "
                                    f"{c.name} names {why}")
    return Contexts(path, tuple(contexts))


def _context(name: str, table: dict[str, Any], path: Path, line: int,
             keys: dict[tuple[str, str], int], tables: dict[str, int]) -> Context:
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for key, raw in table.items():
        at = keys.get((name, key)) or tables.get(f"{name}.{key}") or line
        spec = BY_NAME.get(key)
        if spec is None or isinstance(raw, dict):
            known = ", ".join(k.name for k in KEYS)
            raise ContextsError(f"{path}, line {at}: unknown key {key!r} in context {name} "
                                f"(known: {known})")
        try:
            values[key] = spec.read(raw)
        except BadValue as exc:
            raise ContextsError(f"{path}, line {at}: {key} in context {name} must be {exc}"
                                ) from None
        lines[key] = at
    options = {BY_NAME[k].option: v for k, v in values.items() if BY_NAME[k].option}
    if any(k in values for k in SSH_KEYS):
        if values.get("ssh") is False:
            raise ContextsError(f"{path}, line {lines['ssh']}: ssh = false in context {name} "
                                f"beside {', '.join(k for k in SSH_KEYS if k in values)}")
        options["ssh"] = True
    if options.get("no_sql") and any(k.startswith("mysql_") for k in values):
        raise ContextsError(f"{path}, line {lines['no_sql']}: no_sql in context {name} "
                            "beside a SQL node's key")
    return Context(
        name=name, path=path, line=line,
        options=tuple(sorted(options.items())),
        password_command=values.get("password_command"),
        read_only=values.get("read_only", False),
        production=values.get("production", False),
        color=values.get("color"),
        replicates_to=values.get("replicates_to", ()),
        lines=tuple(sorted(lines.items())),
    )
