"""The single file's preamble: the cache it unpacks into is the user's own, mode 0700.

packaging/pyz_preamble.py runs before the PEX bootstrap unpacks anything; here it runs
alone in a fresh interpreter and prints the PEX_ROOT it leaves for the bootstrap.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

PREAMBLE = Path(__file__).resolve().parent.parent / "packaging" / "pyz_preamble.py"
NOBODY = 65534


def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    program = PREAMBLE.read_text() + "\nimport os\nprint(os.environ['PEX_ROOT'])\n"
    return subprocess.run([sys.executable, "-I", "-c", program], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", **env}, timeout=30)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_home_gets_a_private_cache(tmp_path: Path) -> None:
    done = run({"HOME": str(tmp_path)})
    assert (done.returncode, done.stderr) == (0, "")
    root = tmp_path / ".cache" / "ndbtop" / "pyz"
    assert done.stdout == f"{root}\n"
    assert mode(root) == mode(root.parent) == 0o700
    assert root.stat().st_uid == os.getuid()


def test_xdg_cache_home_is_followed(tmp_path: Path) -> None:
    done = run({"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert done.stdout == f"{tmp_path / 'xdg' / 'ndbtop' / 'pyz'}\n"
    assert not (tmp_path / "home").exists()


def refused(done: subprocess.CompletedProcess[str], path: Path, why: str) -> None:
    assert (done.returncode, done.stdout) == (4, "")
    assert done.stderr == (f"ndbtop: error: the cache directory {str(path)!r} is not safe to "
                           f"use: {why} (refused: set PEX_ROOT to a directory of your own "
                           "that only you can write to)\n")


def test_an_open_cache_of_the_users_is_refused_not_repaired(tmp_path: Path) -> None:
    top = tmp_path / ".cache" / "ndbtop"
    top.mkdir(parents=True)
    top.chmod(0o777)
    refused(run({"HOME": str(tmp_path)}), top, "others may write to it (mode 0777)")
    assert mode(top) == 0o777 and not (top / "pyz").exists()


def other_users(path: Path) -> Path:
    """``path`` made a directory of another user's (nobody), or, not as root, root's ``/``."""
    if os.getuid() != 0:
        return Path("/")
    path.mkdir(mode=0o700)
    os.chown(path, NOBODY, NOBODY)
    return path


def test_a_cache_another_user_owns_is_refused_in_one_line(tmp_path: Path) -> None:
    theirs = other_users(tmp_path / "theirs")
    done = run({"HOME": str(tmp_path), "PEX_ROOT": str(theirs)})
    refused(done, theirs, f"it belongs to another user (uid {theirs.stat().st_uid})")


def test_a_cache_that_is_a_link_is_refused_even_to_the_users_own_directory(
        tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (tmp_path / ".cache").mkdir()
    link = tmp_path / ".cache" / "ndbtop"
    link.symlink_to(mine)
    refused(run({"HOME": str(tmp_path)}), link, "it is a link")


@pytest.mark.parametrize("variable", ["XDG_CACHE_HOME", "PEX_ROOT"])
def test_a_parent_others_may_write_to_without_the_sticky_bit_is_refused(
        tmp_path: Path, variable: str) -> None:
    # Another user could rename the cache away and put a tree of their own in its place.
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    done = run({"HOME": str(tmp_path), variable: str(shared / "cache")})
    refused(done, shared, "others may write to it without the sticky bit (mode 0777)")
    assert not (shared / "cache").exists()


def test_a_parent_with_the_sticky_bit_is_like_tmp(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    done = run({"HOME": str(tmp_path), "XDG_CACHE_HOME": str(shared / "cache")})
    assert (done.returncode, done.stderr) == (0, "")
    assert mode(shared / "cache" / "ndbtop" / "pyz") == 0o700


def test_a_parent_link_is_followed_and_where_it_leads_is_checked(tmp_path: Path) -> None:
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    (open_dir / "home").mkdir(mode=0o700)
    link = tmp_path / "home"
    link.symlink_to(open_dir / "home")
    refused(run({"HOME": str(link)}), open_dir,
            "others may write to it without the sticky bit (mode 0777)")
    open_dir.chmod(0o755)
    done = run({"HOME": str(link)})
    assert (done.returncode, done.stderr) == (0, "")
    assert (open_dir / "home" / ".cache" / "ndbtop" / "pyz").is_dir()


@pytest.mark.parametrize("home", ["", "relative/home"])
def test_an_empty_or_relative_home_makes_no_cache_anywhere(tmp_path: Path, home: str) -> None:
    done = subprocess.run([sys.executable, "-I", "-c", PREAMBLE.read_text()],
                          capture_output=True, text=True, timeout=30, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "HOME": home})
    assert done.returncode == 4 and done.stdout == ""
    assert done.stderr == ("ndbtop: error: no home directory for the cache: HOME is empty or "
                           "not an absolute path (set HOME, or PEX_ROOT to a directory of your "
                           "own)\n")
    assert list(tmp_path.iterdir()) == []
    assert not Path("/.cache/ndbtop").exists()


def test_a_file_in_the_caches_place_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "ndbtop").write_text("")
    refused(run({"HOME": str(tmp_path)}), tmp_path / ".cache" / "ndbtop",
            "it is not a directory")


def test_a_home_that_cannot_be_written_is_one_line() -> None:
    done = run({"HOME": "/proc/1/nonexistent"})
    assert done.returncode == 4
    assert done.stderr.startswith("ndbtop: error: cannot make the cache directory ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
