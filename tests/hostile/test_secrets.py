"""A password given with -p is hidden from ps; --help recommends the prompt."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.cli.proctitle import masked

Scripted = Callable[..., Awaitable[Any]]


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["ndbtop", "-ps3cret", "--once"], ["ndbtop", "-pxxxxxx", "--once"]),
        (["ndbtop", "-p", "s3cret"], ["ndbtop", "-p", "xxxxxx"]),
        (["ndbtop", "--mysql-password=s3cret"], ["ndbtop", "--mysql-password=xxxxxx"]),
        (["ndbtop", "--mysql-pass", "s3cret"], ["ndbtop", "--mysql-pass", "xxxxxx"]),
        (["ndbtop", "-c", "s3cret", "-p", "s3cret"], ["ndbtop", "-c", "s3cret", "-p", "xxxxxx"]),
    ],
)
def test_the_password_is_masked_where_it_was_given(argv: list[str], shown: list[str]) -> None:
    assert masked(argv, "s3cret") == shown


async def test_ps_does_not_show_a_password_given_with_p(scripted: Scripted,
                                                        tmp_path: Path) -> None:
    server = await scripted({})  # answers the handshake, never get status: ndbtop waits
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ndbtop", "--once", "-p", "TopS3cret!", "-c",
        server.connectstring, "--no-host", "--mysql-host", "127.0.0.1",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},
    )
    cmdline = Path(f"/proc/{proc.pid}/cmdline")
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while "get status" not in server.commands:
            assert loop.time() < deadline, "ndbtop never asked for the status"
            await asyncio.sleep(0.02)
        # ndbtop reads the command line before it connects: by now the title is rewritten.
        shown = cmdline.read_bytes().replace(b"\0", b" ")
        assert b"TopS3cret!" not in shown
        assert b"-p xxxxxxxxxx" in shown
    finally:
        proc.kill()
        await proc.wait()


def test_help_recommends_the_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "better without a value: ndbtop asks for it (or use $MYSQL_PWD or an option file)" in out
