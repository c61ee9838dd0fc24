"""``ndbtop wait --backup-completed ID`` against the simulated backup scenario."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from ndbtop.cli import main
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]


async def test_waits_for_the_backup_to_complete_printing_progress(
    start_sim: StartSim, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = await start_sim("backup", speed=60)  # backup 1 runs from 0.3 s to 5.2 s
    code = await asyncio.to_thread(
        main, ["wait", "-c", sim.connectstring, "--backup-completed", "1", "--timeout", "30",
               "--backup-status-interval", "0.3"],
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert any(line.startswith("backup 1 running: ") and "records" in line for line in lines)
    assert lines[-1].startswith("backup 1 completed: ")


async def test_an_aborted_backup_exits_1_with_its_error(
    start_sim: StartSim, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = await start_sim("backup", speed=100)  # backup 2 runs from 4.2 s to 5.4 s
    code = await asyncio.to_thread(
        main, ["wait", "-c", sim.connectstring, "--backup-completed", "2", "--timeout", "30",
               "--json"],
    )
    out, err = capsys.readouterr()
    assert code == 1
    last = json.loads(out.splitlines()[-1])
    assert (last["id"], last["state"], last["error"]) == (2, "aborted", 1326)
    assert err == (
        "ndbtop: backup 2 aborted: 1326: Backup aborted due to node failure: Permanent error: "
        "Internal error\n"
    )


async def test_a_backup_never_seen_times_out(
    start_sim: StartSim, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = await start_sim("threads")
    code = await asyncio.to_thread(
        main, ["wait", "-c", sim.connectstring, "--backup-completed", "99", "--timeout", "1"],
    )
    assert code == 1
    assert capsys.readouterr().err == (
        "ndbtop: timed out after 1 s waiting for backup 99: backup 99 was not seen: the data "
        "nodes report no backup running\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--backup-completed", "0"], "out of range"),
        (["--backup-completed", "x"], "expected <BackupId>"),
        (["--backup-status-interval", "-1"], "out of range (from 0 to 86400)"),
        (["--backup-status-interval", "nan"], "not a finite number"),
    ],
)
def test_bad_values_exit_2(argv: list[str], message: str,
                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["wait", "-c", "127.0.0.1:1", *argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "other", [["--nodes", "2"], ["--status", "started"], ["--interval", "2"]]
)
def test_node_options_do_not_apply_to_a_backup_wait(
    other: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["wait", "-c", "127.0.0.1:1", "--backup-completed", "3", *other]) == 2
    assert f"{other[0]} does not apply" in capsys.readouterr().err


def test_unreachable_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wait", "-c", "127.0.0.1:1", "--backup-completed", "4", "--timeout", "1"]) == 3
    assert "cannot connect" in capsys.readouterr().err


def test_the_report_interval_needs_a_backup_to_wait_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["wait", "-c", "127.0.0.1:1", "--backup-status-interval", "5"]) == 2
    assert "applies to wait --backup-completed only" in capsys.readouterr().err
