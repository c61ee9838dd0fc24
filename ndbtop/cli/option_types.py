"""The value types of ndbtop's options: each reads an option's text and refuses a bad
value with a one-line :class:`argparse.ArgumentTypeError`."""

from __future__ import annotations

import argparse
import contextlib
import math
from collections.abc import Callable

from ndbtop.actions.backup_commands import BackupCommandError, parse_backup_id
from ndbtop.report.section_names import parse_sections
from ndbtop.sim.startplan import START_PHASES
from ndbtop.textnum import MAX_WHOLE, NumberError, is_digits, parse_float, parse_int


def number(
    low: float, high: float, *, above: bool = False, integer: bool = False
) -> Callable[[str], float]:
    """The type of a numeric option: a finite number from ``low`` (excluded with
    ``above``) to ``high``. ``nan``, ``inf`` and anything out of range are refused when
    the command line is read."""

    def parse(text: str) -> float:
        try:
            value: float = (parse_int(text, -MAX_WHOLE, MAX_WHOLE) if integer
                            else float(parse_float(text, -math.inf, math.inf)))
        except NumberError:
            with contextlib.suppress(ValueError):
                if not math.isfinite(float(text)):
                    raise argparse.ArgumentTypeError(f"not a finite number: {text!r}") from None
            kind = "a whole number" if integer else "a number"
            raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None
        if above and value <= low and low == 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        if value < low or (above and value <= low) or value > high:
            bound = "above" if above else "from"
            raise argparse.ArgumentTypeError(f"{text!r} out of range ({bound} {low:g} to {high:g})")
        return value

    return parse


DAY = 86400.0
positive = number(0, 7 * DAY, above=True)
"""Seconds (or another positive quantity) of at most a week."""


def port(text: str) -> int:
    """A TCP port to connect to, 1-65535."""
    if not is_digits(text) or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (1-65535)")
    return int(text)


def listen_port(text: str) -> int:
    """A TCP port to listen on, 1-65535, or 0 for a free one."""
    if not is_digits(text) or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (0-65535; 0: a free one)")
    return int(text)


def node_list(text: str) -> tuple[int, ...]:
    """Node ids (1-255) separated by commas or spaces."""
    ids = []
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        if not is_digits(part) or not 1 <= int(part) <= 255:
            raise argparse.ArgumentTypeError(f"invalid node id {part!r} (1-255)")
        ids.append(int(part))
    if not ids:
        raise argparse.ArgumentTypeError("no node id given")
    return tuple(ids)


def node_id(text: str) -> int:
    """One node id (1-255)."""
    ids = node_list(text)
    if len(ids) != 1:
        raise argparse.ArgumentTypeError(f"one node id expected, not {text!r}")
    return ids[0]


def start_phase(text: str) -> int:
    """A start phase the simulator knows."""
    if not is_digits(text) or int(text) not in START_PHASES:
        phases = ", ".join(map(str, START_PHASES))
        raise argparse.ArgumentTypeError(f"invalid start phase {text!r} ({phases})")
    return int(text)


report_interval = number(0, DAY)
"""Seconds between backup status reports: 0 (only at connect) to a day."""


def backup_id(text: str) -> int:
    """A backup id, as ``START BACKUP`` takes it."""
    try:
        return parse_backup_id(text)
    except BackupCommandError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (not {text!r})") from None


def host_list(text: str) -> tuple[str, ...]:
    """Host names separated by commas, each one ndbtop may pass to ssh."""
    from ndbtop.host.remote import UnusableHost, check_host

    hosts = tuple(h for h in text.split(",") if h)
    if not hosts:
        raise argparse.ArgumentTypeError("no host given")
    for h in hosts:
        try:
            check_host(h)
        except UnusableHost as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return hosts


def one_host(text: str) -> str:
    """One host name ndbtop may pass to ssh."""
    hosts = host_list(text)
    if len(hosts) != 1:
        raise argparse.ArgumentTypeError("one host, not a list")
    return hosts[0]


def existing_dir(text: str) -> str:
    """A directory, as an absolute path (the command checks that it exists)."""
    import os

    if not text or "\n" in text:
        raise argparse.ArgumentTypeError("an empty path or one with a line break")
    return os.path.abspath(text)


def report_frequency(text: str) -> int:
    """Seconds between a data node's memory reports, 0 or more."""
    if not is_digits(text, 6):
        raise argparse.ArgumentTypeError(f"invalid report frequency {text[:20]!r} (seconds, "
                                         "0 or more)")
    return int(text)


def section_list(text: str) -> tuple[str, ...]:
    """Names of ``--once`` report sections, separated by commas."""
    try:
        return parse_sections(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def interval(text: str) -> float:
    """The refresh interval: 0.1 s to an hour."""
    value = number(0, 3600, above=True)(text)
    if value < 0.1:
        raise argparse.ArgumentTypeError("the refresh interval must be at least 0.1 s")
    return value
