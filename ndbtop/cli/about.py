"""``ndbtop --version``: the version, the Python it runs on, and the NDB versions it speaks to.

The protocol facts come from the modules that act on them: the configuration command
from :data:`ndbtop.mgm.config_fetch.V2_SINCE`, TLS from
:data:`ndbtop.mgm.starttls.TLS_SINCE`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from ndbtop import __version__

SERIES: tuple[tuple[str, tuple[int, int]], ...] = (
    ("7.6", (7, 6)), ("8.0", (8, 0)), ("8.4", (8, 4)), ("9.x", (9, 0)),
)
"""The NDB release series ndbtop was written against, with the (major, minor) of each."""


def _config_protocol(series: tuple[int, int], v2_since: tuple[int, int, int]) -> str:
    v1, v2 = "get config (v1)", "get config_v2 (v2)"
    if series < v2_since[:2]:
        return v1
    if series == v2_since[:2]:
        since = ".".join(map(str, v2_since))
        return f"{v1} before {since}, {v2} from {since}"
    return v2


def _tls(series: tuple[int, int], tls_since: tuple[int, int, int]) -> str:
    since = ".".join(map(str, tls_since))
    if series < tls_since[:2]:
        return f"none (start tls is from {since})"
    return f"start tls (from {since})"


def version_text() -> str:
    """The lines ``ndbtop --version`` prints."""
    from ndbtop.mgm.config_fetch import V2_SINCE
    from ndbtop.mgm.starttls import TLS_SINCE
    from ndbtop.mgm.version import split_version

    v2_since = split_version(V2_SINCE)
    python = ".".join(map(str, sys.version_info[:3]))
    lines = [
        f"ndbtop {__version__} (Python {python}, {sys.executable or 'python'})",
        "Written against MySQL NDB Cluster " + ", ".join(s for s, _ in SERIES[:-1])
        + f" and {SERIES[-1][0]}.",
        "What it asks of the management server of each:",
    ]
    width = max(len(s) for s, _ in SERIES)
    for name, series in SERIES:
        lines.append(f"  {name:<{width}}  config: {_config_protocol(series, v2_since)}")
        lines.append(f"  {'':<{width}}  TLS: {_tls(series, TLS_SINCE)}")
    return "\n".join(lines) + "\n"


class VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` as it is (argparse's own would re-wrap it)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> NoReturn:
        """Print the text and exit 0."""
        sys.stdout.write(version_text())
        sys.stdout.flush()
        parser.exit(0)
