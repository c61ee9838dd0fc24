"""``ndbtop man``: the manual page ndbtop(1), made from the option declarations.

Commands, options and their help come from :mod:`ndbtop.cli.parser` (the same
declarations the parser and the shell completion are made from), the NDB versions
from :mod:`ndbtop.cli.about`. No date in the page: the same sources give the same page.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

from ndbtop import __version__
from ndbtop.cli.command_help import DESCRIPTIONS
from ndbtop.cli.exits import EXIT_STATUSES
from ndbtop.cli.optionspec import LIVE, Option
from ndbtop.cli.parser import COMMANDS, OPTIONS, build_parser


def roff(text: str) -> str:
    """``text`` safe in a roff line: backslashes and hyphens escaped, no leading control."""
    out = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + out if out[:1] in (".", "'") else out


def _flags(o: Option) -> str:
    if o.positional:
        return f"\\fI{roff(str(o.kwargs.get('metavar', o.name)))}\\fR"
    metavar = o.kwargs.get("metavar")
    if metavar is None and "choices" in o.kwargs:
        metavar = "{" + ",".join(o.kwargs["choices"]) + "}"
    takes = o.kwargs.get("action") not in ("store_true", "store_false")
    value = ""
    if takes and metavar:
        value = f" \\fI{roff(str(metavar))}\\fR"
        if o.kwargs.get("nargs") == "?":
            value = f" [\\fI{roff(str(metavar))}\\fR]"
    return ", ".join(f"\\fB{roff(f)}\\fR" for f in o.flags) + value


def _where(o: Option) -> str:
    names = ["the live view" if c == LIVE else c for c in (LIVE, *COMMANDS) if c in o.commands]
    return ", ".join(names)


STATE_FILES = (
    ("audit.log", "every action sent to a cluster (\\fB\\-\\-audit\\-log\\fR names another)"),
    ("history/", "how long each start phase took, per cluster, for the next start"),
    ("recordings/", "what \\fBR\\fR records in the live view (ndbtop\\-DATE\\-TIME.ndbrec)"),
    ("mgm_history", "the command history of the \\fBndbtop mgm\\fR prompt"),
    ("crash/", "the report of an internal error"),
)
"""The files ndbtop keeps in its state directory (mode 0700, files 0600), and what for."""


def _files() -> list[str]:
    lines = [".TP", "\\fB$XDG_STATE_HOME/ndbtop/\\fR (\\fB~/.local/state/ndbtop/\\fR)",
             "the state directory, mode 0700; the only place ndbtop creates directories. "
             "It and every directory on the way to it must be the user's (above it, root's "
             "too), not a link, and writable by no one else (above it, unless sticky), or it "
             "is refused (exit 4)"]
    for name, what in STATE_FILES:
        lines += [".TP", f"\\fB$XDG_STATE_HOME/ndbtop/{roff(name)}\\fR", what]
    lines += [
        ".TP", "\\fB$XDG_CONFIG_HOME/ndbtop/clusters.toml\\fR "
        "(\\fB~/.config/ndbtop/clusters.toml\\fR)",
        "the contexts: one table per cluster, named by the context, whose keys are the "
        "options' names (connectstring, mysql_host, ...) and password_command, read_only, "
        "production, color, replicates_to; refused when others can write it",
        ".TP", "\\fB~/.mylogin.cnf\\fR",
        "the login path file of mysql_config_editor, read for \\fB\\-\\-login\\-path\\fR",
        ".TP", "\\fB~/.my.cnf\\fR",
        "SQL node options in the [client] and [ndbtop] groups (\\fB\\-\\-defaults\\-file\\fR "
        "names another); read_only in [ndbtop] is \\fB\\-\\-read\\-only\\fR",
        ".TP", "\\fBNdb.cfg\\fR",
        "the connect string, in $NDB_HOME or the current directory, when neither "
        "\\fB\\-\\-ndb\\-connectstring\\fR nor NDB_CONNECTSTRING gives one",
    ]
    return lines


def page() -> str:
    """The roff source of ndbtop(1)."""
    from ndbtop.cli.about import version_text

    parser = build_parser()
    lines = [
        f'.TH NDBTOP 1 "" "ndbtop {__version__}" "User Commands"',
        ".SH NAME",
        "ndbtop \\- a live terminal UI for MySQL NDB Cluster operations",
        ".SH SYNOPSIS",
        ".B ndbtop",
        "[\\fIOPTION\\fR...]",
        ".br",
        ".B ndbtop",
        "\\fICOMMAND\\fR [\\fIOPTION\\fR...] [\\fIARGUMENT\\fR]",
        ".SH DESCRIPTION",
        roff(parser.description or ""),
        ".PP",
        roff(parser.epilog or ""),
        ".SH COMMANDS",
    ]
    for command in COMMANDS:
        argument = next((o for o in OPTIONS if o.positional and command in o.commands), None)
        usage = f"\\fB{roff(command)}\\fR"
        if argument is not None:
            usage += f" \\fI{roff(str(argument.kwargs.get('metavar', argument.name)))}\\fR"
        lines += [".TP", usage, roff(DESCRIPTIONS[command][1])]
    lines.append(".SH OPTIONS")
    lines += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR",
              "show the help of ndbtop or of the command and exit",
              ".TP", "\\fB\\-\\-version\\fR",
              "show the version, the Python it runs on, and the NDB versions and protocol "
              "features ndbtop uses with each, and exit"]
    groups: dict[str, list[Option]] = {}
    for o in OPTIONS:
        groups.setdefault(o.group, []).append(o)
    for group, options in groups.items():
        lines.append(f".SS {roff(group[:1].upper() + group[1:])}")
        for o in options:
            help_text = str(o.kwargs.get("help", ""))
            lines += [".TP", _flags(o), roff(help_text),
                      f"({'argument' if o.positional else 'option'} of {_where(o)})"]
    lines += [".SH NDB VERSIONS", ".nf"]
    lines += [roff(line) for line in version_text().splitlines()[1:]]
    lines += [
        ".fi",
        ".SH ENVIRONMENT",
        ".TP", "\\fBNDB_CONNECTSTRING\\fR",
        "the management servers when \\fB\\-\\-ndb\\-connectstring\\fR is not given",
        ".TP", "\\fBMYSQL_PWD\\fR", "the SQL node password",
        ".TP", "\\fBNDBTOP_CONTEXT\\fR", "the context when \\fB\\-\\-context\\fR is not given",
        ".TP", "\\fBXDG_CONFIG_HOME\\fR",
        "where clusters.toml is (default ~/.config/ndbtop)",
        ".TP", "\\fBNO_COLOR\\fR", "no colours, as \\fB\\-\\-no\\-color\\fR",
        ".TP", "\\fBXDG_STATE_HOME\\fR",
        "where the audit log, recordings and history go (default ~/.local/state/ndbtop)",
        ".SH FILES",
        *_files(),
        ".SH EXIT STATUS",
        "Errors are one line on standard error.",
        *(line for status, meaning in EXIT_STATUSES
          for line in (".TP", f"\\fB{status}\\fR", roff(meaning))),
        ".SH SEE ALSO",
        ".BR ndb_mgm (1),",
        ".BR ndb_waiter (1),",
        ".BR ndb_mgmd (8),",
        ".BR ndbd (8)",
    ]
    return "\n".join(lines) + "\n"


def run_man(args: argparse.Namespace) -> int:
    """Print the page: through ``man`` on a terminal when there is one, else its roff source."""
    text = page()
    man = shutil.which("man")
    if sys.stdout.isatty() and man is not None:
        done = subprocess.run([man, "-l", "-"], input=text.encode(), check=False)
        if done.returncode == 0:
            return 0
    sys.stdout.write(text)
    return 0
