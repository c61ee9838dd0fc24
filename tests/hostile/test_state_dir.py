"""The state directory is trusted only as OpenSSH's StrictModes trusts ``~/.ssh``
(openssh-portable ``misc.c`` ``safe_path()``: each directory on the way owned by the user or
root, not writable by group or others), with the sticky bit allowed above it (``/tmp``):
anything else is refused in one line with exit 4, never repaired and then trusted."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.cli.mgm_prompt import HISTORY_BYTES, history_path, run_prompt
from ndbtop.cli.parser import build_parser
from ndbtop.collect.history_store import HistoryStore, default_history_dir
from ndbtop.errors import FileError
from ndbtop.files import UnsafeDirectory, check_tree, state_dir, state_subdir, write_private
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.history import PastStart
from tests.conftest import run_cli

START = PastStart(2, "node restart", 1_700_000_000.0, ((1, 10.0), (2, 20.0)), 30.0)


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``XDG_STATE_HOME``, made 0700; the state directory is ``xdg / "ndbtop"``."""
    base = tmp_path / "xdg"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_STATE_HOME", str(base))
    return base


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def refusal(action: Callable[[], object]) -> str:
    with pytest.raises(UnsafeDirectory) as caught:
        action()
    text = str(caught.value)
    assert "\n" not in text and text.startswith("the state directory ")
    return text


def test_a_fresh_state_directory_is_made_private(xdg: Path) -> None:
    assert state_subdir("history") == xdg / "ndbtop" / "history"
    assert mode(xdg / "ndbtop") == mode(xdg / "ndbtop" / "history") == 0o700


def test_a_state_directory_that_is_a_link_is_refused_even_to_a_private_one(
        xdg: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (xdg / "ndbtop").symlink_to(mine)
    assert "is a link" in refusal(lambda: state_subdir("history"))
    assert list(mine.iterdir()) == []


@pytest.mark.parametrize("bits", [0o777, 0o1777, 0o770])
def test_a_state_directory_others_may_write_to_is_refused_and_left_as_it_is(
        xdg: Path, bits: int) -> None:
    # Even with the sticky bit: others could make history/<key>.json before ndbtop does.
    top = xdg / "ndbtop"
    top.mkdir()
    top.chmod(bits)
    assert f"is writable by others (mode {bits:04o})" in refusal(lambda: state_subdir("crash"))
    assert mode(top) == bits and not (top / "crash").exists()
    assert f"(mode {bits:04o})" in refusal(default_history_dir)
    assert f"(mode {bits:04o})" in refusal(default_audit_path)


def test_a_state_directory_of_another_user_is_refused(
        xdg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (xdg / "ndbtop").mkdir(mode=0o700)
    mine = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: mine + 12345)
    assert f"is owned by another user (uid {mine})" in refusal(lambda: state_subdir())


def test_a_parent_others_may_write_to_needs_the_sticky_bit(xdg: Path) -> None:
    xdg.chmod(0o777)
    text = refusal(lambda: state_subdir("recordings"))
    assert f": {xdg} is writable by others without the sticky bit (mode 0777)" in text
    assert not (xdg / "ndbtop").exists()
    xdg.chmod(0o1777)
    assert state_subdir("recordings").is_dir()


def test_a_parent_link_is_followed_and_what_it_leads_through_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    (shared / "state").mkdir(parents=True)
    shared.chmod(0o777)
    link = tmp_path / "state-link"
    link.symlink_to(shared / "state")
    monkeypatch.setenv("XDG_STATE_HOME", str(link))
    assert f": {shared} is writable by others without the sticky bit" in refusal(
        lambda: state_subdir())
    shared.chmod(0o755)
    assert state_subdir() == link / "ndbtop" and (shared / "state" / "ndbtop").is_dir()


def test_history_in_a_directory_others_could_write_is_not_read(xdg: Path) -> None:
    history = xdg / "ndbtop" / "history"
    history.mkdir(parents=True, mode=0o700)
    store = HistoryStore(history, "cluster")
    store.add(START)
    assert store.load() == (START,)
    history.chmod(0o777)  # another user may have planted cluster.json: it skews estimates
    assert store.load() == ()
    assert "(mode 0777)" in refusal(default_history_dir)
    assert mode(history) == 0o777


def test_a_planted_link_in_place_of_the_history_is_not_followed(
        xdg: Path, tmp_path: Path) -> None:
    history = state_subdir("history")
    elsewhere = tmp_path / "elsewhere.json"
    HistoryStore(tmp_path, "elsewhere").add(START)
    (history / "cluster.json").symlink_to(elsewhere)
    assert HistoryStore(history, "cluster").load() == ()


def test_an_unsafe_state_directory_is_one_line_and_exit_4(
        xdg: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (xdg / "ndbtop").mkdir(mode=0o700)
    (xdg / "ndbtop" / "history").mkdir(mode=0o777)
    (xdg / "ndbtop" / "history").chmod(0o777)
    status, out, err = run_cli(capsys, ["wait", "-c", "127.0.0.1:1", "--timeout", "1"])
    assert (status, out) == (4, "")
    assert err == (f"ndbtop: error: the state directory {xdg / 'ndbtop'} is not safe to use: "
                   f"{xdg / 'ndbtop' / 'history'} is writable by others (mode 0777) (refused: "
                   "make it your own and writable only by you, or set XDG_STATE_HOME to a "
                   "directory that is)\n")


@pytest.mark.parametrize("home", ["", "relative"])
def test_an_empty_home_gives_no_state_directory_at_the_root(
        monkeypatch: pytest.MonkeyPatch, home: str) -> None:
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", home)
    with pytest.raises(FileError, match="HOME is empty or not an absolute path"):
        state_dir()
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")  # ignored, as XDG says
    with pytest.raises(FileError, match="HOME is empty"):
        state_dir()


def prompt(lines: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    answers = iter(lines)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    args = build_parser().parse_args(["mgm", "-c", "127.0.0.1:1"])
    args.read_only, args.read_only_origin = False, None
    return run_prompt(args, parse_connectstring("127.0.0.1:1"))


def test_the_mgm_history_never_writes_through_a_planted_link(
        xdg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Under a sudo rule for `ndbtop mgm`, a link to a root-owned file would let the user
    # truncate it, append what was typed and make it 0600.
    victim = tmp_path / "victim"
    victim.write_text("root:x:0:0::/root:/bin/sh\n")
    victim.chmod(0o644)
    state_subdir()
    history_path().symlink_to(victim)
    assert prompt(["quit"], monkeypatch) == 0
    assert victim.read_text() == "root:x:0:0::/root:/bin/sh\n" and mode(victim) == 0o644
    assert not history_path().is_symlink() and mode(history_path()) == 0o600


def test_the_mgm_history_read_is_bounded(
        xdg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readline = pytest.importorskip("readline")
    state_subdir()
    write_private(history_path(), b"2 STATUS\n" * (HISTORY_BYTES // 9 + 1))
    assert prompt(["quit"], monkeypatch) == 0
    assert readline.get_current_history_length() == 0
    write_private(history_path(), b"".join(b"%d STATUS\n" % i for i in range(2000)))
    assert prompt(["quit"], monkeypatch) == 0
    assert readline.get_current_history_length() == 1000
    assert history_path().read_bytes().split(b"\n")[:1] == [b"1000 STATUS"]


def test_the_audit_log_is_read_from_its_tail(xdg: Path, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    monkeypatch.setattr("ndbtop.actions.audit.READ_LIMIT", 200)
    audit = AuditLog(state_subdir() / "audit.log")
    for i in range(20):
        audit.write(event="sent", step=i)
    steps = [r["step"] for r in audit.records()]
    assert steps == list(range(20 - len(steps), 20)) and 0 < len(steps) < 20


def test_check_tree_stops_at_what_exists(tmp_path: Path) -> None:
    check_tree(tmp_path / "a" / "b" / "c", tmp_path / "a")
    (tmp_path / "a").write_text("")
    with pytest.raises(UnsafeDirectory, match="is not a directory"):
        check_tree(tmp_path / "a" / "b", tmp_path / "a")
