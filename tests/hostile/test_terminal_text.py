"""Nothing from a server reaches the terminal as code: --once, --json, wait, errors."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.sanitise import SafeStream, json_text, sanitise, sanitise_lines
from tests.conftest import run_cli
from tests.hostile.conftest import (
    ATTACKS,
    BACKSPACED,
    MARKUP,
    OSC52,
    TITLE,
    assert_inert,
    mgm_script,
    node_fields,
    status_reply,
)

Scripted = Callable[..., Awaitable[Any]]


async def ndbtop(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run the ndbtop command; its status, stdout and stderr."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ndbtop", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


@pytest.mark.parametrize("attack", ATTACKS)
def test_sanitise_shows_every_control_escaped(attack: str) -> None:
    shown = sanitise(f"10.0.0.2{attack}")
    assert_inert(shown)
    assert "\n" not in shown and "\t" not in shown
    assert shown.startswith("10.0.0.2")


def test_escapes_are_visible_and_readable() -> None:
    assert sanitise(OSC52) == "\\x1b]52;c;cm0gLXJmIH4K\\x07"
    assert sanitise(BACKSPACED) == "STARTED" + "\\x08" * 7 + "FAILED!"
    assert sanitise("\u202eabc\x9b\x7f") == "\\u202eabc\\x9b\\x7f"
    assert sanitise_lines("a\tb\nc\rd") == "a\tb\nc\\x0dd"
    assert sanitise("plain text: 10.0.0.2 [ok] é ü 日本") == "plain text: 10.0.0.2 [ok] é ü 日本"


def test_json_keeps_the_exact_data_and_is_inert() -> None:
    value = {"address": "".join(ATTACKS)}
    text = json_text(value)
    assert_inert(text)
    assert text.isascii()
    assert json.loads(text) == value


def test_safe_stream_sanitises_what_it_writes(capsys: pytest.CaptureFixture[str]) -> None:
    stream = SafeStream(sys.stdout)
    assert stream.write(f"node {TITLE}\n") == len(f"node {TITLE}\n")
    assert capsys.readouterr().out == "node \\x1b]0;pwned\\x07\n"


async def test_once_shows_hostile_server_text_escaped(scripted: Scripted,
                                                      tmp_path: Path) -> None:
    nodes = {
        2: node_fields(2, address=f"10.0.0.2{OSC52}"),
        3: node_fields(3, status=f"STARTING{TITLE}", address="[/bold]"),
        4: node_fields(4, type="API", status="CONNECTED", address=MARKUP[1], node_group=-256),
    }
    server = await scripted(mgm_script(nodes, version=f"mysql-8.4.3{TITLE} ndb"))
    status, out, err = await ndbtop("-c", server.connectstring, "--once", "--no-sql",
                                    "--no-host", env={"XDG_STATE_HOME": str(tmp_path)})
    assert status == 0, err
    assert_inert(out)
    assert_inert(err)
    assert "10.0.0.2\\x1b]52;c;cm0gLXJmIH4K\\x07" in out
    assert "STARTING\\x1b]0;pwned\\x07" in out
    assert "[/bold]" in out


async def test_once_json_keeps_the_exact_text(scripted: Scripted, tmp_path: Path) -> None:
    address = "10.0.0.2" + "".join(ATTACKS)
    server = await scripted(mgm_script({2: node_fields(2, address=address)}))
    status, out, err = await ndbtop("-c", server.connectstring, "--once", "--json",
                                    "--no-sql", "--no-host",
                                    env={"XDG_STATE_HOME": str(tmp_path)})
    assert status == 0, err
    assert_inert(out)
    # The line feed of the data is not something the wire can carry: everything else is.
    assert json.loads(out)["nodes"][0]["address"] == address


async def test_wait_prints_hostile_status_escaped(
    scripted: Scripted, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = status_reply({2: node_fields(2, status=f"STARTED{CLEAR_TITLE}")})
    replies = iter([hostile, hostile])

    async def status(writer: asyncio.StreamWriter) -> None:
        # The hostile status twice, then STARTED: the wait prints every change and ends met,
        # whenever the machine lets it get there.
        writer.write(next(replies, status_reply({2: node_fields(2)})))
        await writer.drain()

    server = await scripted({**mgm_script({2: node_fields(2)}), "get status": status})
    # In this process (its own event loop in a thread; the server answers from this one).
    code, out, err = await asyncio.to_thread(
        run_cli, capsys, ["wait", "-c", server.connectstring, "--interval", "0.1"])
    assert code == 0, err
    assert_inert(out + err)
    assert "\\x1b]0;pwned\\x07" in out + err


CLEAR_TITLE = TITLE + "\x1b[2J"


@pytest.mark.parametrize("where", ["environment", "argument"])
async def test_connectstring_echoed_in_errors_is_escaped(where: str, tmp_path: Path) -> None:
    hostile = "bad\x1b[2Jhost:x"  # no ';': that separates parts of a connect string
    args = ["--once", "--no-sql", "--no-host"]
    env = {"XDG_STATE_HOME": str(tmp_path)}
    if where == "environment":
        env["NDB_CONNECTSTRING"] = hostile
    else:
        args = ["-c", hostile, *args]
    status, _, err = await ndbtop(*args, env=env)
    assert status == 2
    assert_inert(err)
    assert "\\x1b[2J" in err
    assert len(err.strip().splitlines()) == 1


async def test_ndb_cfg_echoed_in_errors_is_escaped(tmp_path: Path) -> None:
    (tmp_path / "Ndb.cfg").write_text(f"nodeid=x{TITLE}\n")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ndbtop", "--once", "--no-sql", "--no-host",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "NDB_CONNECTSTRING"}
        | {"XDG_STATE_HOME": str(tmp_path), "PYTHONPATH": str(Path.cwd())},
    )
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    assert_inert(err.decode())
