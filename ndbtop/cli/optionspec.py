"""Command-line options declared once, taken before or after the command.

Every option of ``ndbtop`` is one :class:`Option` (made by :func:`option`) in
``ndbtop.cli.parser.OPTIONS``, naming the commands that take it (:data:`LIVE` is
``ndbtop`` without a command, the live view). From that one declaration:

- the option is accepted before the command (``ndbtop -c db1 rolling-restart``)
  and after it (``ndbtop rolling-restart -c db1``), with the same meaning; given
  in both places, the one after the command wins;
- ``ndbtop COMMAND --help`` lists it for every command that takes it, and
  ``ndbtop --help`` for the live view;
- given to a command that does not take it, in either place, it is refused with
  one line and exit status 2 rather than ignored;
- its default is set only for the commands that take it, and
  ``args.given`` holds the destinations given on the command line.

Adding an option for a set of commands is one entry::

    option("--ssh-user", commands={LIVE, "record", "report"}, group="hosts",
           metavar="USER", help="user for ssh to the data node hosts")

Options that differ from one command to another are declared once with the
union of their commands and read the same way by every command. Positional
arguments (``FILE``) are declared the same way; they belong after the command.

How it works: every parser (the top one and each command's) gets its options
with the default ``argparse.SUPPRESS``, so that a command's parser never
overwrites with a default what was given before the command; defaults and
refusals are applied once the whole line is parsed (:func:`finish`).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

LIVE = ""
"""The live view: ``ndbtop`` without a command."""


@dataclass(frozen=True)
class Option:
    """One option (or positional argument) and the commands that take it."""

    flags: tuple[str, ...]
    commands: frozenset[str]
    group: str
    default: Any = None
    required: bool = False
    dest: str = ""
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def positional(self) -> bool:
        """True for a positional argument such as ``FILE``."""
        return not self.flags[0].startswith("-")

    @property
    def destination(self) -> str:
        """The attribute of the parsed arguments that holds the value."""
        if self.dest:
            return self.dest
        if self.positional:
            return self.flags[0]
        long = next((f for f in self.flags if f.startswith("--")), self.flags[0])
        return long.lstrip("-").replace("-", "_")

    @property
    def name(self) -> str:
        """The name for messages: the first long flag, or the positional's name."""
        return next((f for f in self.flags if f.startswith("--")), self.flags[0])


def option(
    *flags: str,
    commands: Iterable[str],
    group: str,
    default: Any = None,
    required: bool = False,
    dest: str = "",
    **kwargs: Any,
) -> Option:
    """Declare an option: ``flags`` and ``kwargs`` as for ``add_argument``."""
    return Option(tuple(flags), frozenset(commands), group, default, required, dest, kwargs)


def add_options(parser: argparse.ArgumentParser, options: Sequence[Option], command: str) -> None:
    """Add every option to ``parser``, the parser of ``command``.

    Only the options ``command`` takes show in its help; the others are parsed
    all the same, to be routed to the command after them (on the top parser) or
    refused by :func:`finish` with a message naming the commands that take them.
    """
    destinations = [o.destination for o in options]
    if len(set(destinations)) != len(destinations):
        raise ValueError("two options store into the same destination")
    groups: dict[str, Any] = {}
    for o in options:
        takes = command in o.commands
        if o.positional and not takes:
            continue
        group = groups.get(o.group)
        if group is None:
            group = groups[o.group] = parser.add_argument_group(o.group)
        kwargs = dict(o.kwargs)
        if not o.positional:
            kwargs["dest"] = o.destination
            kwargs["default"] = argparse.SUPPRESS
        if not takes:
            kwargs["help"] = argparse.SUPPRESS
        group.add_argument(*o.flags, **kwargs)


def finish(
    args: argparse.Namespace,
    options: Sequence[Option],
    command: str,
    refuse: Any,
) -> argparse.Namespace:
    """Refuse the options ``command`` cannot use, check required ones, fill in defaults.

    ``refuse(message)`` reports a usage error and does not return.
    """
    given = {o.destination for o in options if hasattr(args, o.destination)}
    where = "the live view" if command == LIVE else command
    for o in options:
        if o.destination in given and command not in o.commands:
            takers = sorted(c or "the live view" for c in o.commands)
            refuse(f"{o.name} does not apply to {where} (it is an option of {', '.join(takers)})")
    for o in options:
        if command not in o.commands or o.destination in given:
            continue
        if o.required:
            refuse(f"the following arguments are required: {o.name}")
        setattr(args, o.destination, o.default)
    args.given = frozenset(given)
    return args


def commands_taking(options: Sequence[Option], destination: str) -> frozenset[str]:
    """The commands that take the option stored in ``destination``."""
    return next(o.commands for o in options if o.destination == destination)
