"""Every option a command's --help shows is used by that command, or refused.

Two walks over the declared options: each option a command takes is read by the
code that command runs (so no option is listed and then ignored), and each option
that loses its meaning beside another one (``--theme`` with ``--once``) is refused
with one line and exit 2, before or after the command.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from ndbtop.cli import main
from ndbtop.cli.clashes import CLASHES, Clash
from ndbtop.cli.optionspec import LIVE, Option
from ndbtop.cli.parser import COMMANDS, OPTIONS

ENTRY = {
    LIVE: "ndbtop.cli.monitor", "demo": "ndbtop.cli.demo", "sim": "ndbtop.cli.sim",
    "wait": "ndbtop.cli.wait", "rolling-restart": "ndbtop.cli.rolling", "mgm": "ndbtop.cli.mgm_run",
    "record": "ndbtop.cli.record", "replay": "ndbtop.cli.record", "report": "ndbtop.cli.bundle",
    "export": "ndbtop.cli.export", "check": "ndbtop.cli.check",
    "config": "ndbtop.cli.config", "contexts": "ndbtop.cli.contexts",
    "fleet": "ndbtop.cli.fleet", "completion": "ndbtop.cli.completion",
    "man": "ndbtop.cli.manpage",
}
"""The module each command's dispatch (ndbtop.cli.main) hands the parsed options to."""

DECLARING = frozenset({"ndbtop.cli", "ndbtop.cli.parser", "ndbtop.cli.optionspec",
                       "ndbtop.cli.clashes"})
"""Modules that declare or route the options (mentioning them there is not using them)."""

GLOBAL = frozenset({"debug"})
"""Read by ndbtop.cli.main for every command (tracebacks of internal errors)."""

BY_DEST = {o.destination: o for o in OPTIONS}


def _source(module: str) -> ast.Module:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    return ast.parse(Path(spec.origin).read_text())


def _modules(entry: str) -> set[str]:
    """``entry`` and the command-line modules it imports, at any depth."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for node in ast.walk(_source(module)):
            names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            todo += [n for n in names if (n.startswith("ndbtop.cli.") or n == "ndbtop.tui.launch")
                     and n not in DECLARING]
    return seen


def _reads(modules: set[str]) -> set[str]:
    """The names read as ``args.NAME`` or named as strings (``"NAME" in args.given``)."""
    out: set[str] = set()
    for module in modules:
        for node in ast.walk(_source(module)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "args":
                out.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.add(node.value)
    return out


@pytest.mark.parametrize("command", [LIVE, *COMMANDS], ids=lambda c: c or "live-view")
def test_every_option_a_command_takes_is_read_by_it(command: str) -> None:
    read = _reads(_modules(ENTRY[command])) | GLOBAL
    unused = [o.name for o in OPTIONS if command in o.commands and o.destination not in read]
    assert unused == [], f"{command or 'the live view'} lists but never reads {unused}"


def _cases() -> list[tuple[str, Clash, Option]]:
    cases = []
    for clash in CLASHES:
        for command in sorted(clash.commands):
            takes = [o for o in OPTIONS if command in o.commands and not o.positional]
            refused = ([o for o in takes if o.destination not in {clash.when, "list", "debug"}]
                       if clash.refused == ("*",) else
                       [BY_DEST[d] for d in clash.refused if command in BY_DEST[d].commands])
            cases += [(command, clash, o) for o in refused]
    return cases


BASE = {"record": ["out.rec"], "replay": ["out.rec"], "report": ["--bundle", "b.tgz"]}


def _words(o: Option) -> list[str]:
    kwargs = dict(o.kwargs)
    if kwargs.get("action") in ("store_true", "store_false"):
        return [o.name]
    if "choices" in kwargs:
        return [o.name, kwargs["choices"][-1]]
    if o.destination == "mysql_password":
        return [f"{o.name}=x"]
    if o.name == "--section":
        return [o.name, "nodes"]
    return [o.name, "2"]


@pytest.mark.parametrize(("command", "clash", "o"), _cases(),
                         ids=lambda v: v if isinstance(v, str) else getattr(v, "name", "clash"))
def test_an_option_that_cannot_apply_beside_another_is_refused(
    command: str, clash: Clash, o: Option, capsys: pytest.CaptureFixture[str]
) -> None:
    when = [] if clash.absent else _words(BY_DEST[clash.when])
    head = [command] if command else []
    base = BASE.get(command, [])
    for argv in (head + base + when + _words(o), _words(o) + head + base + when):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert err.startswith(f"ndbtop{' ' + command if command else ''}: error: {o.name} ")
        assert BY_DEST[clash.when].name in err


def test_the_clash_table_names_real_options() -> None:
    for clash in CLASHES:
        assert clash.when in BY_DEST
        assert clash.refused == ("*",) or all(d in BY_DEST for d in clash.refused)
        assert clash.commands <= {LIVE, *COMMANDS}
        for command in clash.commands:
            assert command in BY_DEST[clash.when].commands, (clash.when, command)


def test_the_same_options_alone_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--list"]) == 0
    assert "config-change" in capsys.readouterr().out
    assert main(["--no-sql", "--no-host", "--once", "-c", "127.0.0.1:1"]) == 3
    assert "management server" in capsys.readouterr().err
