"""``clusters.toml`` as an attacker would write it, or the directories on the way to it.

The file chooses which clusters ndbtop acts on and which program prints a password: it is
trusted only as OpenSSH trusts ``~/.ssh`` (StrictModes, ``safe_path()`` in
openssh-portable ``misc.c``), the rule the state directory follows (files.check_tree).
Every bad value is one line, never an internal error.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ndbtop.contexts import Context, ContextsError, load_contexts, parse_contexts
from ndbtop.contexts.password import PasswordCommandError, run_password_command

GOOD = '[prod]\nconnectstring = "mgm1:1186"\n'


def test_a_directory_on_the_way_that_others_may_write_to_is_refused(
    clusters_file: Callable[[str], Path],
) -> None:
    path = clusters_file(GOOD)
    above = path.parent.parent
    mode = above.stat().st_mode & 0o7777
    try:
        # Another user could rename ndbtop/ away and put a directory of theirs in its place.
        os.chmod(above, 0o777)
        with pytest.raises(ContextsError, match=rf"the directory {above} on the way to it is "
                           r"writable by others without the sticky bit \(mode 0777\): refused"):
            load_contexts()
        # /tmp's rule: with the sticky bit, only the owner may rename what is in it.
        os.chmod(above, 0o1777)
        assert list(load_contexts()) == ["prod"]
    finally:
        os.chmod(above, mode)


def test_a_directory_on_the_way_that_is_another_users_is_refused(
    clusters_file: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = clusters_file(GOOD)
    mine = os.geteuid()
    real_lstat = os.lstat

    def lstat(p: object) -> os.stat_result:
        info = real_lstat(p)  # type: ignore[arg-type]
        if Path(str(p)) == path.parent.parent:
            fields = list(info)
            fields[4] = mine + 12345  # st_uid
            return os.stat_result(fields)
        return info

    monkeypatch.setattr(os, "lstat", lstat)
    with pytest.raises(ContextsError, match=rf"{path.parent.parent} on the way to it is owned "
                       rf"by another user \(uid {mine + 12345}\)"):
        load_contexts()


@pytest.mark.parametrize("nested", [
    "ssh_option = " + "[" * 3000 + "]" * 3000,
    "color = " + "{a = " * 3000 + "1" + "}" * 3000,
])
def test_values_nested_too_deeply_are_one_line(nested: str) -> None:
    with pytest.raises(ContextsError, match="nested too deeply"):
        parse_contexts(f"[prod]\n{nested}\n", Path("clusters.toml"))


def test_a_deeply_nested_file_is_one_line_and_exit_2(
    clusters_file: Callable[[str], Path], capsys: pytest.CaptureFixture[str],
) -> None:
    from ndbtop.cli import main

    clusters_file("[prod]\nssh_option = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["contexts"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested too deeply" in err and "Traceback" not in err


@pytest.mark.parametrize("table, wants", [
    ('["--read-write"]\nconnectstring = "x"', "not a context name"),
    ('["prod\\u001b[31m"]\nconnectstring = "x"', "not a context name"),
    ('["prod\\u202e"]\nconnectstring = "x"', "not a context name"),
    ('[prod]\ncolor = "[bold]red"', "must be a colour"),
    ('[prod]\ncolor = "red on white"', "must be a colour"),
    ('[prod]\nconnectstring = "mgm1\\u001b]0;x\\u0007"', "without control characters"),
    ('[prod]\nmysql_port = 1e3', "TCP port number"),
    ('[prod]\nmysql_port = nan', "TCP port number"),
    ('[prod]\nreplicates_to = ["--read-write"]', "a context's name"),
])
def test_hostile_names_and_values_are_refused_naming_what_they_must_be(
    table: str, wants: str,
) -> None:
    with pytest.raises(ContextsError, match=wants):
        parse_contexts(table + "\n", Path("clusters.toml"))


def test_a_password_commands_escapes_stay_in_the_password_and_out_of_its_error(
    tmp_path: Path,
) -> None:
    program = tmp_path / "pw.py"
    program.write_text("import sys\n"
                       "sys.stdout.write('s3cret\\x1b[2J\\nsecond line\\n')\n"
                       "sys.stderr.write('bad \\x1b]0;title\\x07 thing\\n')\n"
                       "sys.exit(int(sys.argv[1]))\n")

    def context(status: int) -> Context:
        return Context("prod", Path("c.toml"), 1,
                       password_command=f"{sys.executable} {program} {status}")

    # The first line is the password, whatever it holds: it is never shown.
    assert run_password_command(context(0)) == "s3cret\x1b[2J"
    with pytest.raises(PasswordCommandError) as caught:
        run_password_command(context(3))
    said = str(caught.value)
    assert "\x1b" not in said and "bad \\x1b]0;title\\x07 thing" in said
    assert "s3cret" not in said and "exited 3" in said


async def test_a_management_server_that_answers_each_question_slowly_is_one_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each answer comes just within the time a reply may take, so no single step times out:
    # the context's probe still ends at its one deadline (twice the probe's timeout).
    from ndbtop.cli.contexts import probe
    from ndbtop.mgm import client

    class Slow:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        async def _answer(self, value: object) -> object:
            await asyncio.sleep(0.2)
            return value

        async def connect(self) -> object:
            return await self._answer("127.0.0.1:1186")

        async def get_status(self) -> object:
            return await self._answer(())

        async def get_version(self) -> object:
            return await self._answer(None)

        async def close(self) -> None:
            pass

    monkeypatch.setattr(client, "MgmClient", Slow)
    context = Context("prod", Path("c.toml"), 1, options=(("connectstring", "mgm1:1186"),))
    ok, said = await asyncio.wait_for(probe(context, timeout=0.25), 5)
    assert (ok, said) == (False, "no answer within 0.5 s")
