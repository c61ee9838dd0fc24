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


def test_an_open_cache_of_the_users_is_closed(tmp_path: Path) -> None:
    top = tmp_path / ".cache" / "ndbtop"
    top.mkdir(parents=True)
    top.chmod(0o755)
    assert run({"HOME": str(tmp_path)}).returncode == 0
    assert mode(top) == 0o700


def test_a_cache_another_user_owns_is_refused_in_one_line(tmp_path: Path) -> None:
    if os.getuid() == 0:
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, NOBODY, NOBODY)
    else:
        theirs = Path("/")  # root's
    done = run({"HOME": str(tmp_path), "PEX_ROOT": str(theirs)})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"ndbtop: error: the cache directory {str(theirs)!r} belongs to "
                           "another user (set PEX_ROOT to another)\n")


def test_a_file_in_the_caches_place_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "ndbtop").write_text("")
    done = run({"HOME": str(tmp_path)})
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "is not a directory" in done.stderr


def test_a_home_that_cannot_be_written_is_one_line() -> None:
    done = run({"HOME": "/proc/1/nonexistent"})
    assert done.returncode == 2
    assert done.stderr.startswith("ndbtop: error: cannot make the cache directory ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
