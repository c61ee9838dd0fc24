"""``ndbtop completion bash|zsh|fish``: shell completion made from the option declarations.

Every command and option comes from :data:`ndbtop.cli.parser.COMMANDS` and
:data:`ndbtop.cli.parser.OPTIONS`, so the scripts cannot drift from the parser. Values
completed: an option's choices, the scenario names (``--scenario``), the report
sections (``--section``, after each comma of its list), files and directories for
``FILE``/``PATH``/``DIR`` values, the shell of ``completion``, and the contexts of
``clusters.toml`` (``--context``): the script asks the ndbtop being completed for
``contexts --names``, which reads that file and nothing else (a file others can write is
refused, so it offers nothing), and offers each line as it is, never expanded by the shell.
Node ids are not completed: knowing them takes a round trip to a management server,
too slow and too likely to hang for a key press.
"""

from __future__ import annotations

import argparse
import sys

from ndbtop.cli.command_help import DESCRIPTIONS
from ndbtop.cli.optionspec import LIVE, Option
from ndbtop.cli.parser import COMMANDS, OPTIONS
from ndbtop.report.section_names import section_names

SHELLS = ("bash", "zsh", "fish")
FILES = frozenset({"FILE", "PATH"})
DIRECTORIES = frozenset({"DIR"})
NAMES = ("ndbtop", "ndbtop.pyz")
"""The command names completed: the installed script and the single file."""
CONTEXT_NAMES = ("contexts", "--names")
"""The arguments that make the ndbtop being completed print the contexts' names."""


def scenario_names() -> tuple[str, ...]:
    """The simulator's scenarios, in their order."""
    from ndbtop.sim.scenarios import SCENARIOS

    return tuple(SCENARIOS)


def takes_value(o: Option) -> bool:
    """True when the option is followed by its value (not a flag, not ``-p``'s optional one)."""
    return (not o.positional and o.kwargs.get("action") not in ("store_true", "store_false")
            and o.kwargs.get("nargs") != "?")


def values(o: Option) -> tuple[str, tuple[str, ...]]:
    """What completes the option's value: ``("words", names)``, ``("list", names)`` (names
    separated by commas), ``("contexts", ())`` (the names ``ndbtop contexts --names``
    prints), ``("files", ())``, ``("dirs", ())`` or ``("none", ())``."""
    if o.destination == "context":
        return "contexts", ()
    if "choices" in o.kwargs:
        return "words", tuple(o.kwargs["choices"])
    if o.destination == "scenario":
        return "words", scenario_names()
    if o.destination == "section":
        return "list", section_names()
    metavar = str(o.kwargs.get("metavar", ""))
    if metavar in FILES:
        return "files", ()
    if metavar in DIRECTORIES:
        return "dirs", ()
    return "none", ()


def options_of(command: str) -> list[Option]:
    """The options (not positionals) ``command`` takes, in declaration order."""
    return [o for o in OPTIONS if command in o.commands and not o.positional]


def flags_of(command: str) -> list[str]:
    """Every flag ``command`` takes, with ``--help`` (and ``--version`` for the live view)."""
    flags = [f for o in options_of(command) for f in o.flags]
    return [*flags, "-h", "--help", *(["--version"] if command == LIVE else [])]


def summary(o: Option) -> str:
    """The first clause of the option's help, for the shells that show one."""
    text = str(o.kwargs.get("help", ""))
    for stop in ("; ", " (", ": "):
        text = text.split(stop, 1)[0]
    return text[:70]


def positional(command: str) -> Option | None:
    """The positional argument of ``command``, if it has one."""
    return next((o for o in OPTIONS if o.positional and command in o.commands), None)


def _bash_value_cases() -> list[str]:
    cases = []
    by_kind: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for o in OPTIONS:
        if takes_value(o):
            by_kind.setdefault(values(o), []).extend(o.flags)
    for (kind, words), flags in by_kind.items():
        action = {"words": f'COMPREPLY=($(compgen -W "{" ".join(words)}" -- "$cur"))',
                  # The names before the last comma stay; the one after it is completed.
                  "list": f'COMPREPLY=($(compgen -P "${{cur%"${{cur##*,}}"}}" '
                          f'-W "{" ".join(words)}" -- "${{cur##*,}}"))',
                  "files": 'COMPREPLY=($(compgen -f -- "$cur"))',
                  "dirs": 'COMPREPLY=($(compgen -d -- "$cur"))',
                  "contexts": "_ndbtop_contexts",
                  "none": "COMPREPLY=()"}[kind]
        cases.append(f"        {'|'.join(flags)})\n            {action}\n            return ;;")
    return cases


def _positional_action(command: str, shell: str) -> str:
    o = positional(command)
    if o is None:
        return {"bash": "COMPREPLY=()", "zsh": ":", "fish": ""}[shell]
    kind, words = values(o)
    if shell == "bash":
        return (f'COMPREPLY=($(compgen -W "{" ".join(words)}" -- "$cur"))' if kind == "words"
                else 'COMPREPLY=($(compgen -f -- "$cur"))')
    return f"compadd -- {' '.join(words)}" if kind == "words" else "_files"


def bash() -> str:
    """The bash completion script."""
    lines = [
        "# bash completion for ndbtop (made by 'ndbtop completion bash')",
        "_ndbtop_contexts() {",
        "    # The names the completed ndbtop reads from clusters.toml (no compgen -W: it",
        "    # would expand them).",
        "    local name",
        "    COMPREPLY=()",
        "    while IFS= read -r name; do",
        '        [[ $name == "$cur"* ]] && COMPREPLY+=("$name")',
        f'    done < <("${{COMP_WORDS[0]}}" {" ".join(CONTEXT_NAMES)} 2>/dev/null </dev/null)',
        "}",
        "_ndbtop() {",
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
        "    local cmd='' i",
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        "        case ${COMP_WORDS[i]} in",
        f"            {'|'.join(COMMANDS)}) cmd=${{COMP_WORDS[i]}}; break ;;",
        "        esac",
        "    done",
        "    case $prev in",
        *_bash_value_cases(),
        "    esac",
        "    local opts",
        "    case $cmd in",
        f"        '') opts=\"{' '.join(flags_of(LIVE))}\" ;;",
        *[f"        {c}) opts=\"{' '.join(flags_of(c))}\" ;;" for c in COMMANDS],
        "    esac",
        "    if [[ $cur == -* ]]; then",
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
        "    elif [[ -z $cmd ]]; then",
        f'        COMPREPLY=($(compgen -W "{" ".join(COMMANDS)}" -- "$cur"))',
        "    else",
        "        case $cmd in",
        *[f"            {c}) {_positional_action(c, 'bash')} ;;" for c in COMMANDS
          if positional(c) is not None],
        "            *) COMPREPLY=() ;;",
        "        esac",
        "    fi",
        "}",
        f"complete -F _ndbtop {' '.join(NAMES)}",
    ]
    return "\n".join(lines) + "\n"


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


_ZSH_CONTEXTS = ('compadd -- ${(f)"$("${words[1]}" ' + " ".join(CONTEXT_NAMES)
                 + ' 2>/dev/null </dev/null)"}')
"""The names the completed ndbtop reads from clusters.toml, one a line, each added as it
is (compadd expands nothing)."""


def _zsh_value_cases() -> list[str]:
    cases = []
    for o in OPTIONS:
        if not takes_value(o):
            continue
        kind, words = values(o)
        action = {"words": f"compadd -- {' '.join(words)}",
                  "list": f"_values -s , {_zsh_quote(str(o.kwargs.get('metavar', 'value')))} "
                          f"{' '.join(words)}",
                  "files": "_files",
                  "dirs": "_files -/",
                  "contexts": _ZSH_CONTEXTS,
                  "none": f"_message {_zsh_quote(str(o.kwargs.get('metavar', 'value')))}"}[kind]
        cases.append(f"    ({'|'.join(o.flags)}) {action}; return ;;")
    return cases


def zsh() -> str:
    """The zsh completion function (``_ndbtop``)."""
    def described(command: str) -> str:
        items = [f"{f}:{summary(o)}".replace("\\", "") for o in options_of(command)
                 for f in o.flags]
        items += ["-h:show the help", "--help:show the help"]
        if command == LIVE:
            items.append("--version:show the version and the NDB versions spoken to")
        return " ".join(_zsh_quote(i) for i in items)

    lines = [
        "#compdef ndbtop ndbtop.pyz",
        "# zsh completion for ndbtop (made by 'ndbtop completion zsh')",
        "_ndbtop() {",
        "  local cmd='' i prev=${words[CURRENT-1]}",
        "  local -a commands options",
        "  commands=(" + " ".join(_zsh_quote(f"{c}:{DESCRIPTIONS[c][0]}") for c in COMMANDS)
        + ")",
        "  for (( i = 2; i < CURRENT; i++ )); do",
        "    case ${words[i]} in",
        f"      ({'|'.join(COMMANDS)}) cmd=${{words[i]}}; break ;;",
        "    esac",
        "  done",
        "  case $prev in",
        *_zsh_value_cases(),
        "  esac",
        "  case $cmd in",
        f"    ('') options=({described(LIVE)}) ;;",
        *[f"    ({c}) options=({described(c)}) ;;" for c in COMMANDS],
        "  esac",
        "  if [[ ${words[CURRENT]} == -* ]]; then",
        "    _describe -t options option options",
        "  elif [[ -z $cmd ]]; then",
        "    _describe -t commands command commands",
        "  else",
        "    case $cmd in",
        *[f"      ({c}) {_positional_action(c, 'zsh')} ;;" for c in COMMANDS
          if positional(c) is not None],
        "    esac",
        "  fi",
        "}",
        'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then',
        '  _ndbtop "$@"',
        "else",
        f"  compdef _ndbtop {' '.join(NAMES)}",
        "fi",
    ]
    return "\n".join(lines) + "\n"


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish() -> str:
    """The fish completion script."""
    lines = [
        "# fish completion for ndbtop (made by 'ndbtop completion fish')",
        "function __ndbtop_contexts",
        "    # The names the completed ndbtop reads from clusters.toml.",
        "    set -l ndbtop (commandline -opc)[1]",
        f"    command $ndbtop {' '.join(CONTEXT_NAMES)} 2>/dev/null </dev/null",
        "end",
    ]
    for name in NAMES:
        c = f"complete -c {name}"
        lines.append(f"{c} -f")
        lines.append(f"{c} -n __fish_use_subcommand -l version "
                     "-d 'show the version and the NDB versions spoken to'")
        for command in COMMANDS:
            lines.append(f"{c} -n __fish_use_subcommand -a {command} "
                         f"-d {_fish_quote(DESCRIPTIONS[command][0])}")
        for o in OPTIONS:
            if o.positional:
                continue
            where = " ".join(sorted(x for x in o.commands if x))
            conditions = []
            if LIVE in o.commands:
                conditions.append("__fish_use_subcommand")
            if where:
                conditions.append(f"__fish_seen_subcommand_from {where}")
            condition = _fish_quote("; or ".join(conditions))
            value = ""
            if takes_value(o):
                kind, words = values(o)
                listed = f'(__fish_complete_list , "string split , {",".join(words)}")'
                value = {"words": f" -x -a {_fish_quote(' '.join(words))}",
                         "list": f" -x -a {_fish_quote(listed)}", "files": " -r -F",
                         "contexts": " -x -a '(__ndbtop_contexts)'",
                         "dirs": " -x -a '(__fish_complete_directories)'", "none": " -x"}[kind]
            for flag in o.flags:
                switch = f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"
                lines.append(f"{c} -n {condition} {switch}{value} -d {_fish_quote(summary(o))}")
        for command in COMMANDS:
            o = positional(command)
            if o is None:
                continue
            kind, words = values(o)
            what = f"-a {_fish_quote(' '.join(words))}" if kind == "words" else "-F"
            lines.append(f"{c} -n '__fish_seen_subcommand_from {command}' {what}")
    return "\n".join(lines) + "\n"


def script(shell: str) -> str:
    """The completion script for ``shell`` (one of :data:`SHELLS`)."""
    return {"bash": bash, "zsh": zsh, "fish": fish}[shell]()


def run_completion(args: argparse.Namespace) -> int:
    """Print the script for ``args.shell``."""
    sys.stdout.write(script(args.shell))
    return 0
