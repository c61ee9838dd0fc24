"""System variables of the simulated SQL node.

The seven ``ndbinfo_*`` variables of ndbinfo.md §1.4, plus the usual server
variables clients read on connect (``@@version``, ``@@version_comment``...).
``ndbinfo_offline`` is GLOBAL only; the others are session variables whose
global value is the default a session starts from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mysql_mimic.variables import (
    SYSTEM_VARIABLES,
    GlobalVariables,
    SessionVariables,
    VariableSchema,
)

from ndbtop.sim.sqlnode.exprtypes import GROUP_CONCAT_MAX_LEN_DEFAULT
from ndbtop.sim.sqlnode.schema import DATABASE, TABLE_PREFIX

VERSION_COMMENT = "MySQL Cluster Community Server - GPL"

GLOBAL_ONLY = frozenset({"ndbinfo_offline"})
"""Variables with no session value: ``SET ndbinfo_offline`` fails (ERROR 1229)."""

_TRUE = {"ON", "TRUE", "YES", "1"}
_FALSE = {"OFF", "FALSE", "NO", "0"}


def as_bool(value: Any) -> bool:
    """A boolean variable's value from ``ON``/``OFF``, ``1``/``0`` or ``TRUE``/``FALSE``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    text = str(value).strip().upper()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(value)


def _bounded(low: int, high: int) -> Callable[[Any], int]:
    def convert(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(value)
        return max(low, min(high, int(value)))

    return convert


def variable_schema(ndb_version: int, server_id: int = 1,
                    log_bin: bool = False) -> dict[str, VariableSchema]:
    """Every system variable: name -> (type, default, dynamic)."""
    major, minor, build = (ndb_version >> 16) & 0xFF, (ndb_version >> 8) & 0xFF, ndb_version & 0xFF
    schema = dict(SYSTEM_VARIABLES)
    schema.update(
        {
            "version": (str, f"{major}.{minor}.{build}-cluster", False),
            "version_comment": (str, VERSION_COMMENT, False),
            "license": (str, "GPL", False),
            "default_storage_engine": (str, "InnoDB", True),
            "default_tmp_storage_engine": (str, "InnoDB", True),
            "transaction_isolation": (str, "REPEATABLE-READ", True),
            "sql_mode": (
                str,
                "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
                "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
                True,
            ),
            "group_concat_max_len": (
                _bounded(4, 2**64 - 1), GROUP_CONCAT_MAX_LEN_DEFAULT, True
            ),
            "ndbinfo_database": (str, DATABASE, False),
            "ndbinfo_max_bytes": (_bounded(0, 65535), 0, True),
            "ndbinfo_max_rows": (_bounded(1, 256), 10, True),
            "ndbinfo_offline": (as_bool, False, True),
            "ndbinfo_show_hidden": (as_bool, False, True),
            "ndbinfo_table_prefix": (str, TABLE_PREFIX, False),
            "ndbinfo_version": (int, ndb_version, False),
            "server_id": (_bounded(0, 2**32 - 1), server_id, True),
            "log_bin": (as_bool, log_bin, False),
        }
    )
    return schema


def shown(value: Any) -> str:
    """A value as ``SHOW VARIABLES`` prints it (booleans as ``ON``/``OFF``)."""
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    if value is None:
        return ""
    return str(value)


class ServerVariables(GlobalVariables):
    """The global values of one simulated SQL node, shared by its sessions."""


class SessionValues(SessionVariables):
    """One session's variables: its own values, else the server's global values."""

    def __init__(self, global_variables: ServerVariables) -> None:
        super().__init__(global_variables)

    def get_variable(self, name: str) -> Any | None:
        """The session value; GLOBAL-only variables and unset ones read the global value."""
        lowered = name.lower()
        if lowered in GLOBAL_ONLY or lowered not in self._values:
            return self.global_variables.get_variable(lowered)
        return self._values[lowered]
