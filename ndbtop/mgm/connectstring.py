"""NDB connect strings, parsed as ``LocalConfig`` does.

Tokens are separated by ``;`` or ``,``. Recognised forms: ``nodeid=N``,
``bind-address=H[:P]``, ``host=H[:P]``, ``mgmd=H[:P]``, ``host://H[:P]``,
``file=PATH`` / ``file://PATH`` (a file holding a connect string), ``#``
comments and bare ``H[:P]`` or ``H P``. IPv6 addresses are written ``[addr]:port``.
A host without a port uses 1186.

When no connect string is given, the lookup order is the ``NDB_CONNECTSTRING``
environment variable, ``Ndb.cfg`` in ``NDB_HOME``, ``Ndb.cfg`` in the current
directory, then ``localhost:1186``.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ndbtop.compat import SLOTS
from ndbtop.errors import ConnectStringError
from ndbtop.files import read_limited
from ndbtop.mgm.tls import TlsOptions
from ndbtop.textnum import is_digits

DEFAULT_PORT = 1186
DEFAULT_CONNECTSTRING = "localhost:1186"


@dataclass(frozen=True, **SLOTS)
class MgmAddress:
    """One management server: host and TCP port, plus an optional local bind address."""

    host: str
    port: int = DEFAULT_PORT
    bind_address: str | None = None

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


@dataclass(frozen=True, **SLOTS)
class ConnectString:
    """A parsed connect string: management servers in failover order, and ``nodeid``."""

    addresses: tuple[MgmAddress, ...]
    nodeid: int | None = None
    source: str = ""
    tls: TlsOptions = field(default_factory=TlsOptions, compare=False)
    """How TLS to these servers is set up (``--ndb-tls-search-path``, ``--ndb-mgm-tls``)."""

    def __str__(self) -> str:
        return ",".join(str(a) for a in self.addresses)


def split_host_port(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """Split ``host``, ``host:port``, ``host port``, ``[v6]`` or ``[v6]:port``."""
    t = text.strip()
    if not t:
        raise ConnectStringError("empty host in connect string")
    if t.startswith("["):
        end = t.find("]")
        if end < 0:
            raise ConnectStringError(f"unclosed '[' in {text!r}")
        host, rest = t[1:end], t[end + 1 :]
        if not host:
            raise ConnectStringError(f"empty IPv6 address in {text!r}")
        if rest == "":
            return host, default_port
        if not rest.startswith(":"):
            raise ConnectStringError(f"unexpected {rest!r} after IPv6 address in {text!r}")
        return host, _port(rest[1:], text)
    if " " in t:
        host, _, port = t.partition(" ")
        return host, _port(port.strip(), text)
    if t.count(":") > 1:
        # A bare IPv6 address without brackets and without a port.
        try:
            ipaddress.IPv6Address(t)
        except ValueError:
            raise ConnectStringError(
                f"invalid address {text!r} (write IPv6 addresses as [addr]:port)"
            ) from None
        return t, default_port
    host, sep, port = t.partition(":")
    if not host:
        raise ConnectStringError(f"empty host in {text!r}")
    return host, (_port(port, text) if sep else default_port)


def _port(text: str, whole: str) -> int:
    if not is_digits(text):
        raise ConnectStringError(f"invalid port {text!r} in {whole!r}")
    port = int(text)
    if not 1 <= port <= 65535:
        raise ConnectStringError(f"port {port} out of range (1-65535) in {whole!r}")
    return port


def parse_connectstring(text: str, *, _depth: int = 0) -> ConnectString:
    """Parse a connect string; :class:`ConnectStringError` with a clear reason if it is bad."""
    if _depth > 3:
        raise ConnectStringError("connect string files nest too deeply")
    addresses: list[MgmAddress] = []
    nodeid: int | None = None
    default_bind: str | None = None
    for raw in text.replace(";", ",").split(","):
        tok = raw.strip()
        if not tok or tok.startswith("#"):
            continue
        low = tok.lower()
        if low.startswith("nodeid="):
            value = tok[7:].strip()
            if not is_digits(value) or not 1 <= int(value) <= 255:
                raise ConnectStringError(f"invalid nodeid {value!r} (expected 1-255)")
            nodeid = int(value)
        elif low.startswith("bind-address="):
            bind, _ = split_host_port(tok[13:], 0) if tok[13:].strip() else ("", 0)
            if not bind:
                raise ConnectStringError("empty bind-address in connect string")
            if addresses:
                last = addresses[-1]
                addresses[-1] = MgmAddress(last.host, last.port, bind)
            else:
                default_bind = bind
        elif low.startswith("ownprocessid "):
            continue
        elif low.startswith("file://") or low.startswith("file="):
            path = tok[7:] if low.startswith("file://") else tok[5:]
            inner = _read_file(path.strip())
            parsed = parse_connectstring(inner, _depth=_depth + 1)
            addresses.extend(parsed.addresses)
            nodeid = parsed.nodeid if parsed.nodeid is not None else nodeid
        else:
            for prefix in ("host=", "host://", "mgmd="):
                if low.startswith(prefix):
                    tok = tok[len(prefix) :]
                    break
            host, port = split_host_port(tok)
            addresses.append(MgmAddress(host, port, default_bind))
    if not addresses:
        raise ConnectStringError(f"no management server in connect string {text!r}")
    return ConnectString(tuple(addresses), nodeid, text)


def _read_file(path: str) -> str:
    try:
        return read_limited(Path(path), 64 * 1024, "connect string file").decode(
            "utf-8", errors="replace"
        )
    except OSError as exc:
        raise ConnectStringError(
            f"cannot read connect string file {path}: {exc.strerror}"
        ) from None


def resolve_connectstring(
    given: str | None, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> ConnectString:
    """The connect string to use: the given one, else the NDB lookup order."""
    if given is not None:
        return parse_connectstring(given)
    env = os.environ if env is None else env
    if env.get("NDB_CONNECTSTRING"):
        return parse_connectstring(env["NDB_CONNECTSTRING"])
    candidates = []
    if env.get("NDB_HOME"):
        candidates.append(Path(env["NDB_HOME"]) / "Ndb.cfg")
    candidates.append((cwd or Path.cwd()) / "Ndb.cfg")
    for path in candidates:
        if path.is_file():
            return parse_connectstring(_read_file(str(path)))
    return parse_connectstring(DEFAULT_CONNECTSTRING)
