"""One table of exit statuses, in the code and in the README, used by every command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ndbtop.cli import main
from ndbtop.cli.exits import (
    EXIT_STATUSES,
    FILE,
    NOT_MET,
    PIPE_CLOSED,
    UNREACHABLE,
    USAGE,
    status_of,
)
from ndbtop.errors import (
    ConnectStringError,
    FileError,
    MgmConnectError,
    NdbtopError,
    SqlError,
    UsageError,
)
from ndbtop.record.reader import read_recording

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_has_the_table_of_the_code() -> None:
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", README.read_text(), re.MULTILINE)
    assert [(int(code), text) for code, text in rows] == list(EXIT_STATUSES)


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (UsageError("x"), USAGE),
        (ConnectStringError("x"), USAGE),
        (MgmConnectError("x"), UNREACHABLE),
        (SqlError("x"), UNREACHABLE),
        (FileError("x"), FILE),
        (NdbtopError("x"), NOT_MET),
    ],
)
def test_each_kind_of_error_has_its_status(error: NdbtopError, status: int) -> None:
    assert status_of(error) == status


def test_report_of_a_recording_that_does_not_exist_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.ndbrec"
    status = main(["report", "--bundle", str(tmp_path / "b.tgz"), "--recording", str(missing),
                   "-c", "127.0.0.1:1", "--no-sql", "--no-host"])
    assert status == FILE
    err = capsys.readouterr().err
    assert err == f"ndbtop: error: cannot read recording {missing}: no such file\n"
    assert not (tmp_path / "b.tgz").exists()


def test_replay_of_a_file_that_does_not_exist_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(tmp_path / "nope")]) == FILE
    assert "cannot read recording" in capsys.readouterr().err


def test_record_of_a_cluster_that_never_answers_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.ndbrec"
    status = main(["record", str(path), "-c", "127.0.0.1:1", "--no-sql", "--no-host",
                   "--duration", "0.5", "--interval", "0.2"])
    err = capsys.readouterr().err
    assert status == UNREACHABLE
    assert err.endswith("ndbtop: error: the management server never answered: cannot connect "
                        "to a management server: 127.0.0.1:1: connection refused\n")
    assert len(read_recording(path)) >= 1


def test_output_into_a_closed_pipe_ends_quietly_as_sigpipe_would() -> None:
    # `ndbtop wait --json | head -1`: the reader went away; no "internal error", no
    # traceback at exit. The pipe's read end is closed before ndbtop starts.
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "ndbtop", "completion", "bash"],
                              stdout=write, stderr=subprocess.PIPE, timeout=60,
                              cwd=Path(__file__).resolve().parents[1])
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (PIPE_CLOSED, b"")
