"""Hostile servers and files: replies written by hand in the reference's format, with
text chosen to attack the terminal (escape sequences, markup, controls, bidi)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ndbtop.mgm.client import CLUSTER_LOGLEVEL_NAMES

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"
"""Puts ``rm -rf ~`` on the clipboard of a terminal that allows OSC 52."""
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
BACKSPACED = "STARTED" + "\b" * 7 + "FAILED!"
ATTACKS = (OSC52, TITLE, CLEAR, BACKSPACED, "\x00", "a\rb", "\u202egnp.exe", "\x9b31m", "\x7f")
MARKUP = ("[/bold]", "[link=http://example.invalid/]x[/link]", "[bold red]boom")

RAW_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
"""A control character that may not reach a terminal (line feeds and tabs may)."""


def node_fields(node_id: int, **overrides: object) -> dict[str, object]:
    """The fields of a started data node in node group 0, as the server sends them."""
    fields: dict[str, object] = {
        "type": "NDB", "status": "STARTED", "version": 525315, "mysql_version": 525315,
        "startphase": 0, "dynamic_id": node_id, "node_group": 0, "connect_count": 1,
        "address": f"10.0.0.{node_id}", "is_single_user": 0,
    }
    fields.update(overrides)
    return fields


def status_reply(nodes: Mapping[int, Mapping[str, object]]) -> bytes:
    """A ``node status`` reply for ``nodes``."""
    lines = ["node status", f"nodes: {len(nodes)}"]
    for node_id, fields in nodes.items():
        lines += [f"node.{node_id}.{name}: {value}" for name, value in fields.items()]
    return ("\n".join(lines) + "\n\n").encode("utf-8", "surrogateescape")


def version_reply(string: str = "mysql-8.4.3 ndb-8.4.3") -> bytes:
    """A ``get version`` reply of 8.4.3 with ``string`` as its text."""
    return (
        "version\nid: 525315\nmajor: 8\nminor: 4\nbuild: 3\n"
        f"string: {string}\nmysql_major: 8\nmysql_minor: 4\nmysql_build: 3\n\n"
    ).encode()


def loglevel_reply(level: int = 7) -> bytes:
    """A ``get cluster loglevel`` reply with every category at ``level``."""
    body = "".join(f"{name}: {level}\n" for name in CLUSTER_LOGLEVEL_NAMES)
    return ("get cluster loglevel\n" + body + "\n").encode()


def backup_status_reply(nodes: Mapping[int, Mapping[str, object]]) -> bytes:
    """``dump events`` of BackupStatus: "Backup not started" from every data node."""
    data = [n for n, fields in nodes.items() if fields.get("type", "NDB") == "NDB"]
    keys = ("n_bytes_lo", "n_bytes_hi", "n_records_lo", "n_records_hi", "n_log_bytes_lo",
            "n_log_bytes_hi", "n_log_records_lo", "n_log_records_hi")
    blocks = "".join(
        f"log event reply\ntype=62\ntime=0\nsource_nodeid={n}\nstarting_node=0\nbackup_id=0\n"
        + "".join(f"{k}=0\n" for k in keys) + "\n"
        for n in data
    )
    return f"dump events reply\nresult: Ok\nevents: {len(data)}\n\n{blocks}".encode()


CONFIG_REFUSED = b"get config reply\nresult: Configuration not available in this script\n\n"


def mgm_script(nodes: Mapping[int, Mapping[str, object]], *, version: str | None = None,
               extra: Iterable[tuple[str, object]] = ()) -> dict[str, object]:
    """Replies of a management server with ``nodes``."""
    script: dict[str, object] = {
        "get status": status_reply(nodes),
        "get cluster loglevel": loglevel_reply(),
        "dump events": backup_status_reply(nodes),
        # The event subscription is accepted (mgm-protocol.md §5); no event follows.
        "listen event": b"listen event\nresult: 0\n\n",
        # A real server always answers the configuration request; this one refuses it.
        "get config_v2": CONFIG_REFUSED,
        "get config": CONFIG_REFUSED,
    }
    if version is not None:
        script["get version"] = version_reply(version)
    script.update(dict(extra))
    return script


def assert_inert(text: str) -> None:
    """No control sequence and no markup-made link in ``text``."""
    found = RAW_CONTROL.search(text)
    assert found is None, f"raw {found.group()!r} in {text!r}"
