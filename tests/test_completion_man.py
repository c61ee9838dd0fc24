"""Shell completion, the man page and --version: made from the declarations, so they cannot drift.

Every command and every flag of :data:`ndbtop.cli.parser.OPTIONS` must be in the bash,
zsh and fish scripts and in ndbtop(1); the files pip installs under share/
(packaging/share, pyproject.toml data-files) must be what ``ndbtop completion`` and
``ndbtop man`` print now; the bash script is run by bash to see what it completes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ndbtop.actions.audit import default_audit_path
from ndbtop.cli import main
from ndbtop.cli.about import version_text
from ndbtop.cli.completion import SHELLS, script
from ndbtop.cli.exits import EXIT_STATUSES
from ndbtop.cli.manpage import page, roff
from ndbtop.cli.mgm_prompt import history_path as mgm_history_path
from ndbtop.cli.parser import COMMANDS, OPTIONS
from ndbtop.collect.history_store import default_history_dir
from ndbtop.files import state_dir, write_crash_report
from ndbtop.mgm.config_fetch import V2_SINCE
from ndbtop.mgm.starttls import TLS_SINCE
from ndbtop.mgm.version import version_text as ndb_version
from ndbtop.record.recorder import default_recording_path
from ndbtop.report.section_names import section_names
from ndbtop.sim.scenarios import SCENARIOS

ROOT = Path(__file__).resolve().parent.parent
SHARE = ROOT / "packaging" / "share"
INSTALLED = {
    "bash": SHARE / "bash-completion" / "completions" / "ndbtop",
    "zsh": SHARE / "zsh" / "site-functions" / "_ndbtop",
    "fish": SHARE / "fish" / "vendor_completions.d" / "ndbtop.fish",
}
FLAGS = sorted({f for o in OPTIONS if not o.positional for f in o.flags})


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("shell", SHELLS)
def test_every_command_and_flag_is_completed(shell: str) -> None:
    text = script(shell)
    for command in COMMANDS:
        assert command in text, (shell, command)
    for flag in FLAGS:
        needle = (f"-l {flag[2:]} " if flag.startswith("--") else f"-s {flag[1:]} ") \
            if shell == "fish" else flag
        assert needle in text, (shell, flag)


def test_the_man_page_lists_every_command_and_flag() -> None:
    text = page()
    assert text.startswith(".TH NDBTOP 1 ")
    for command in COMMANDS:
        assert f"\n\\fB{roff(command)}\\fR" in text, command
    for flag in FLAGS:
        assert f"\\fB{roff(flag)}\\fR" in text, flag


@pytest.mark.parametrize("shell", SHELLS)
def test_the_installed_completion_is_what_ndbtop_prints(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(["completion", shell], capsys)
    assert status == 0
    assert INSTALLED[shell].read_text() == out, "run packaging/make-share"


def test_the_installed_man_page_is_what_ndbtop_prints(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["man"], capsys)
    assert status == 0
    assert (SHARE / "man" / "man1" / "ndbtop.1").read_text() == out, "run packaging/make-share"


def test_pip_installs_them_under_share() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    for path in [*INSTALLED.values(), SHARE / "man" / "man1" / "ndbtop.1"]:
        assert f'"{path.relative_to(ROOT)}"' in text


def test_an_unknown_shell_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["completion", "csh"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.count("\n") == 1 and "invalid choice: 'csh'" in err


def _bash_complete(words: list[str]) -> list[str]:
    """What the bash script offers with the cursor at the end of ``words``."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (f"{script('bash')}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; "
               '_ndbtop; printf "%s\\n" "${COMPREPLY[@]}"')
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", program],
                          capture_output=True, text=True, check=True)
    return [w for w in done.stdout.splitlines() if w]


def test_the_bash_script_is_valid_bash() -> None:
    done = subprocess.run(["bash", "-n"], input=script("bash"), capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")


def test_bash_completes_commands_options_and_values() -> None:
    assert _bash_complete(["ndbtop", "re"]) == ["record", "replay", "report"]
    assert _bash_complete(["ndbtop", "demo", ""]) == []
    assert _bash_complete(["ndbtop", "demo", "--scenario", ""]) == list(SCENARIOS)
    assert _bash_complete(["ndbtop", "--theme", "ansi"]) == ["ansi", "ansi-light"]
    assert _bash_complete(["ndbtop", "completion", ""]) == list(SHELLS)
    # Only the options of the command already typed: --scenario is demo's, not wait's.
    assert "--scenario" in _bash_complete(["ndbtop", "demo", "--sc"])
    assert _bash_complete(["ndbtop", "wait", "--sc"]) == []
    assert _bash_complete(["ndbtop", "wait", "--st"]) == ["--status"]
    assert _bash_complete(["ndbtop", "wait", "--status", "n"]) == ["not-started", "no-contact"]


def test_version_names_the_ndb_versions_and_what_ndbtop_asks_each(
    capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and out == version_text()
    lines = out.splitlines()
    assert lines[0].startswith("ndbtop 0.1.0 (Python 3.")
    assert lines[1] == "Written against MySQL NDB Cluster 7.6, 8.0, 8.4 and 9.x."
    series: dict[str, str] = {}
    name = ""
    for line in lines[3:]:
        name = line[:5].strip() or name
        series[name] = series.get(name, "") + line[5:].strip() + "\n"
    assert list(series) == ["7.6", "8.0", "8.4", "9.x"]
    v2 = ndb_version(V2_SINCE)
    tls = ".".join(map(str, TLS_SINCE))
    # get config_v2 from 8.0.18 (config_fetch.V2_SINCE); start tls from 8.3.0 (TLS_SINCE).
    assert series["7.6"] == f"config: get config (v1)\nTLS: none (start tls is from {tls})\n"
    assert series["8.0"] == (f"config: get config (v1) before {v2}, get config_v2 (v2) "
                             f"from {v2}\nTLS: none (start tls is from {tls})\n")
    for new in ("8.4", "9.x"):
        assert series[new] == f"config: get config_v2 (v2)\nTLS: start tls (from {tls})\n"
    assert max(map(len, lines[1:])) <= 80


def test_the_completion_of_section_offers_every_name_after_each_comma() -> None:
    names = list(section_names())
    assert _bash_complete(["ndbtop", "--once", "--section", ""]) == names
    assert _bash_complete(["ndbtop", "demo", "--section", "p"]) == ["processes"]
    assert _bash_complete(["ndbtop", "--once", "--section", "nodes,f"]) == ["nodes,findings"]
    assert _bash_complete(["ndbtop", "--section", "nodes,findings,t"]) == [
        "nodes,findings,tables"]
    # zsh's _values and fish's __fish_complete_list split the list at its commas too.
    assert f"(--section) _values -s , 'NAME,...' {' '.join(names)}; return ;;" in script("zsh")
    assert (f"-l section -x -a '(__fish_complete_list , \"string split , {','.join(names)}\")'"
            in script("fish"))


def test_the_man_page_gives_every_exit_status_and_the_files_ndbtop_uses() -> None:
    text = page()
    exits = text.split("\n.SH EXIT STATUS\n", 1)[1].split("\n.SH ", 1)[0] + "\n"
    assert exits.count(".TP\n") == len(EXIT_STATUSES)
    for status, meaning in EXIT_STATUSES:
        assert f".TP\n\\fB{status}\\fR\n{roff(meaning)}\n" in exits
    files = text.split("\n.SH FILES\n", 1)[1].split("\n.SH ", 1)[0]
    state = state_dir()
    for path, slash in ((default_audit_path(), ""), (default_history_dir(), "/"),
                        (default_recording_path().parent, "/"), (mgm_history_path(), ""),
                        (write_crash_report(RuntimeError("test")).parent, "/")):
        name = path.relative_to(state).as_posix() + slash
        assert f"\\fB$XDG_STATE_HOME/ndbtop/{roff(name)}\\fR" in files, name
    assert "\\fB~/.my.cnf\\fR" in files and "\\fBNdb.cfg\\fR" in files


FAKE_NDBTOP = """#!/bin/sh
printf '%s|' "$@" >> "{calls}"
read -r line && echo "stdin was read" >> "{calls}"
printf 'prod\\nprod-dr\\nstaging\\n$(touch {pwned})\\n*\\n'
"""


@pytest.fixture
def fake_ndbtop(tmp_path: Path) -> tuple[Path, Path, Path]:
    """An ``ndbtop`` that logs how it was run and prints names, one a shell would expand."""
    calls, pwned = tmp_path / "calls", tmp_path / "pwned"
    program = tmp_path / "bin" / "ndbtop"
    program.parent.mkdir()
    program.write_text(FAKE_NDBTOP.format(calls=calls, pwned=pwned))
    program.chmod(0o755)
    return program, calls, pwned


def _zsh_complete(words: list[str]) -> list[str]:
    """What the zsh function offers (compadd stood in for) at the end of ``words``."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = ("compadd() { [[ $1 == -- ]] && shift; print -rl -- \"$@\"; }\n"
               f"compdef() {{ :; }}\n{script('zsh')}\nwords=({quoted}); "
               f"CURRENT={len(words)}; _ndbtop")
    done = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True,
                          check=True)
    return [w for w in done.stdout.splitlines() if w]


def _fish_complete(line: str, path: Path) -> list[str]:
    """What the fish script offers for the command line ``line`` (``ndbtop`` in ``path``)."""
    done = subprocess.run(
        ["fish", "--no-config", "-c", f"source; complete -C{_fish_text(line)}"],
        input=script("fish"), capture_output=True, text=True, check=True,
        env={"PATH": f"{path}:/usr/bin:/bin", "HOME": str(path)})
    return [w.split("\t", 1)[0] for w in done.stdout.splitlines() if w]


def _fish_text(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def test_every_shell_offers_the_context_names_as_printed_and_runs_nothing_else(
        fake_ndbtop: tuple[Path, Path, Path]) -> None:
    program, calls, pwned = fake_ndbtop
    literal = f"$(touch {pwned})"
    every = ["prod", "prod-dr", "staging", literal, "*"]
    assert _bash_complete([str(program), "--context", "pr"]) == ["prod", "prod-dr"]
    assert _bash_complete([str(program), "wait", "--context", ""]) == every
    assert _zsh_complete([str(program), "check", "--context", ""]) == every
    assert sorted(_fish_complete("ndbtop --context ", program.parent)) == sorted(every)
    assert _fish_complete("ndbtop export --context st", program.parent) == ["staging"]
    # Only 'contexts --names', with nothing to read on stdin; no name was expanded.
    assert calls.read_text() == "contexts|--names|" * 5
    assert not pwned.exists()


def test_context_names_come_from_the_file_alone_and_an_unsafe_file_gives_none(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ndbtop.contexts import clusters_path

    path = clusters_path()
    path.parent.mkdir(parents=True)
    path.parent.chmod(0o700)
    # No server answers at these addresses: --names asks none.
    path.write_text('[prod]\nconnectstring = "127.0.0.1:9"\n[dr]\nconnectstring = "127.0.0.1:19"\n')
    path.chmod(0o600)
    assert run(["contexts", "--names"], capsys) == (0, "prod\ndr\n", "")
    # The completion runs the real command: the names, from the wrapper the shell runs.
    wrapper = tmp_path / "ndbtop"
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} XDG_CONFIG_HOME={path.parent.parent} "
                       f'exec {sys.executable} -m ndbtop "$@"\n')
    wrapper.chmod(0o755)
    assert _bash_complete([str(wrapper), "--context", ""]) == ["prod", "dr"]
    path.chmod(0o622)
    status, out, err = run(["contexts", "--names"], capsys)
    assert (status, out) == (2, "") and "can be written by others" in err
    assert _bash_complete([str(wrapper), "--context", ""]) == []
