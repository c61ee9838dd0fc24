"""Files: created 0600 without following planted links, in a 0700 state directory; files
read are regular and bounded (no /dev/zero hang, no compression bomb)."""

from __future__ import annotations

import gzip
import json
import os
import stat
import tarfile
import zlib
from pathlib import Path

import pytest

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.cli import main
from ndbtop.errors import FileError, NdbtopError, UsageError
from ndbtop.files import create_private, read_limited, state_dir
from ndbtop.ndbinfo.options import read_option_file
from ndbtop.record import reader
from ndbtop.record.reader import read_recording
from ndbtop.record.recorder import Recorder, default_recording_path
from ndbtop.report.bundle import Bundle


def mode(path: Path) -> int:
    """The permission bits of ``path`` (not following a link)."""
    return stat.S_IMODE(path.lstat().st_mode)


def victim(tmp_path: Path) -> Path:
    """Another file, 0600, that a planted link points at."""
    path = tmp_path / "victim"
    path.write_text("precious\n")
    path.chmod(0o600)
    return path


def test_a_new_file_replaces_a_planted_link_and_never_writes_through_it(tmp_path: Path) -> None:
    target = victim(tmp_path)
    planted = tmp_path / "shared" / "ndbtop.ndbrec"
    planted.parent.mkdir()
    planted.symlink_to(target)
    with create_private(planted) as out:
        out.write(b"mine")
    assert target.read_text() == "precious\n"
    assert not planted.is_symlink() and planted.read_bytes() == b"mine"
    assert mode(planted) == 0o600
    assert not [p for p in planted.parent.iterdir() if p.name.startswith(".")]


def test_recordings_go_to_the_private_state_directory(tmp_path: Path) -> None:
    path = default_recording_path()
    assert path.parent == state_dir() / "recordings"
    assert mode(state_dir()) == 0o700 and mode(path.parent) == 0o700
    target = victim(tmp_path)
    planted = tmp_path / "rec.ndbrec"
    planted.symlink_to(target)
    recorder = Recorder(planted)
    recorder.close()
    assert target.read_text() == "precious\n"
    assert mode(planted) == 0o600


def test_bundles_are_private_and_do_not_follow_links(tmp_path: Path) -> None:
    target = victim(tmp_path)
    path = tmp_path / "bundle.tar.gz"
    path.symlink_to(target)
    bundle = Bundle()
    bundle.add("report.txt", ["node \x1b]0;x\x07"], "the report")
    bundle.write(path)
    assert target.read_text() == "precious\n"
    assert mode(path) == 0o600
    with tarfile.open(path) as tar:
        members = tar.getmembers()
        assert {m.mode for m in members} == {0o600}
        report = tar.extractfile("ndbtop-bundle/report.txt")
        assert report is not None and report.read() == b"node \\x1b]0;x\\x07\n"


def test_the_audit_log_is_created_private(tmp_path: Path) -> None:
    log = AuditLog(default_audit_path())
    log.write(action="test")
    assert mode(default_audit_path()) == 0o600
    assert mode(state_dir()) == 0o700


@pytest.mark.parametrize("kind", ["dev-null", "link", "directory"])
def test_an_audit_log_that_is_not_a_plain_file_of_ours_refuses_actions(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "audit.log"
    if kind == "dev-null":
        path = Path("/dev/null")
    elif kind == "link":
        path.symlink_to(victim(tmp_path))
    else:
        path.mkdir()
    with pytest.raises(NdbtopError, match="refused"):
        AuditLog(path).write(action="restart")
    if kind == "link":
        assert (tmp_path / "victim").read_text() == "precious\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_an_audit_log_owned_by_someone_else_refuses_actions(tmp_path: Path) -> None:
    path = tmp_path / "audit.log"
    path.write_text("")
    os.chown(path, 54321, -1)
    with pytest.raises(NdbtopError, match="not owned by you"):
        AuditLog(path).write(action="restart")


def test_read_limited_refuses_devices_directories_and_big_files(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="not a regular file"):
        read_limited(Path("/dev/zero"), 1024, "recording")
    with pytest.raises(FileError, match="not a regular file"):
        read_limited(tmp_path, 1024, "recording")
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(FileError, match="larger than 1 kB"):
        read_limited(big, 1024, "option file")


def test_option_files_and_their_includes_must_be_regular(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a regular file"):
        read_option_file(Path("/dev/zero"), ("client",))
    including = tmp_path / "my.cnf"
    including.write_text("[client]\n!include /dev/zero\n")
    with pytest.raises(UsageError, match="not a regular file"):
        read_option_file(including, ("client",))


def _recording(path: Path, frame: bytes) -> Path:
    header = json.dumps({"k": "header", "format": 2}).encode() + b"\n"
    path.write_bytes(gzip.compress(header) + frame)
    return path


def test_a_compression_bomb_is_refused_per_frame(tmp_path: Path) -> None:
    # 2 MB on disk would become 2 GB: refused once the frame passes 64 MB.
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * (1 << 20)
    bomb = b"".join(compressor.compress(chunk) for _ in range(80)) + compressor.flush()
    path = _recording(tmp_path / "bomb.ndbrec", bomb)
    with pytest.raises(NdbtopError, match="frame 2 expands past 64 MB"):
        read_recording(path)


def test_a_recording_is_bounded_in_total(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_TOTAL", 1 << 20)
    frames = b"".join(gzip.compress(b"\0" * (600 << 10)) for _ in range(3))
    path = _recording(tmp_path / "many.ndbrec", frames)
    with pytest.raises(NdbtopError, match="expands past 1 MB"):
        read_recording(path)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["replay", "/dev/zero"], 4),
        (["replay", "/dev/null"], 4),
        (["replay", "{tmp}"], 4),
        (["--defaults-file", "/dev/zero", "--once", "--no-host", "-c", "127.0.0.1:1"], 2),
        (["report", "--bundle", "{tmp}/b.tgz", "--recording", "/dev/zero", "-c", "127.0.0.1:1"],
         4),
        (["report", "--bundle", "{tmp}/b.tgz", "--audit-log", "{tmp}", "-c", "127.0.0.1:1"], 4),
    ],
)
def test_files_that_are_not_regular_are_one_line_and_exit_with_their_status(
    argv: list[str], expected: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert status == expected, err
    assert len(err.splitlines()) == 1 and "not a regular file" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["record", "{tmp}/missing/dir/x.ndbrec", "-c", "127.0.0.1:1", "--no-sql"],
        ["report", "--bundle", "{tmp}/missing/dir/b.tgz", "-c", "127.0.0.1:1", "--no-sql"],
    ],
)
def test_a_missing_directory_is_named_and_never_created(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The README's exit status 4: a file that cannot be written. Checked before any
    # connection (127.0.0.1:1 would be exit 3).
    status = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert status == 4, err
    assert err.count("\n") == 1 and f"no directory {tmp_path}/missing/dir" in err
    assert not (tmp_path / "missing").exists()


def test_a_file_in_place_of_the_directory_is_named(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("")
    with pytest.raises(NotADirectoryError, match=f"{tmp_path}/plain is not a directory"):
        create_private(tmp_path / "plain" / "x.ndbrec")


def test_an_audit_log_in_a_missing_directory_refuses_the_action(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "audit.log"
    with pytest.raises(FileError, match=f"no directory {tmp_path}/missing: refused"):
        AuditLog(path).write(action="restart")
    assert not path.parent.exists()
