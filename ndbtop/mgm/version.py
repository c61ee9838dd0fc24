"""NDB version numbers: ``(major << 16) | (minor << 8) | build``."""

from __future__ import annotations

import functools

from ndbtop.textnum import is_digits


def make_version(major: int, minor: int, build: int) -> int:
    """Encode a version as NDB does (``NDB_MAKE_VERSION``)."""
    return (major << 16) | (minor << 8) | build


def split_version(version: int) -> tuple[int, int, int]:
    """Split an encoded version into (major, minor, build)."""
    v = version & 0xFFFFFFFF
    return (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF


@functools.lru_cache(maxsize=64)
def version_text(version: int) -> str | None:
    """``8.4.3`` for an encoded version; ``None`` for 0 (not connected)."""
    if version == 0:
        return None
    major, minor, build = split_version(version)
    return f"{major}.{minor}.{build}"


def parse_version_text(text: str) -> int:
    """Encode ``"8.4.3"`` (or ``"ndb-8.4.3"``); ``ValueError`` for anything else."""
    t = text.strip().removeprefix("ndb-")
    parts = t.split(".")
    if len(parts) != 3 or not all(is_digits(p, 3) for p in parts):
        raise ValueError(f"not a version: {text!r}")
    major, minor, build = (int(p) for p in parts)
    if not all(0 <= p <= 255 for p in (major, minor, build)):
        raise ValueError(f"not a version: {text!r}")
    return make_version(major, minor, build)


def version_string(ndb_version: int, mysql_version: int = 0) -> str:
    """``mysql-8.4.3 ndb-8.4.3`` as ``ndbGetVersionString`` prints it."""
    ndb = "ndb-{}.{}.{}".format(*split_version(ndb_version))
    if mysql_version == 0:
        return ndb
    return "mysql-{}.{}.{} ".format(*split_version(mysql_version)) + ndb
