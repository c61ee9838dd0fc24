"""Files ndbtop writes and reads: private, never through a planted link, bounded.

ndbtop often runs as root in shared directories, and reads files attached to tickets.
Every file it creates (recordings, bundles, the audit log, crash reports, the start
history) is mode 0600 and is created without following a link: a new file is made
under a temporary name in the same directory (``O_EXCL``) and renamed into place, which
replaces a link rather than writing through it. Its own directory, the state
directory (``$XDG_STATE_HOME/ndbtop``, ``~/.local/state/ndbtop``), is mode 0700.

Every file it reads (option files, ``Ndb.cfg``, recordings, audit logs) must be a
regular file below a size limit: ``/dev/zero`` or a directory is a clear error, never
a hang.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import stat
import tempfile
import traceback
from pathlib import Path
from typing import BinaryIO

from ndbtop.errors import FileError
from ndbtop.sanitise import sanitise, sanitise_lines


class UnfitFile(FileError):
    """A file to read that is not a regular file, or too large; ``reason`` says which."""

    def __init__(self, what: str, path: Path, reason: str) -> None:
        super().__init__(f"{what} {sanitise(str(path))} {reason}")
        self.reason = reason


def state_dir() -> Path:
    """``$XDG_STATE_HOME/ndbtop`` (``~/.local/state/ndbtop``); not created."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ndbtop"


def state_subdir(name: str | None = None) -> Path:
    """The state directory, or directory ``name`` in it, created mode 0700 if missing."""
    top = state_dir()
    top.parent.mkdir(parents=True, exist_ok=True)
    for path in (top,) if name is None else (top, top / name):
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
    return top if name is None else top / name


def make_dirs(directory: Path) -> None:
    """``directory`` in the state directory, made with its parents as ``mkdir -p``, each
    mode 0700. A directory elsewhere is the user's: it must exist (``FileNotFoundError``
    naming it, or ``NotADirectoryError``), ndbtop makes none there."""
    top = state_dir()
    if directory == top or top in directory.parents:
        state_subdir()
        for part in reversed([directory, *directory.parents][: len(directory.parents) -
                                                             len(top.parents)]):
            with contextlib.suppress(FileExistsError):
                part.mkdir(mode=0o700)
        return
    if not directory.is_dir():
        if directory.exists():
            raise NotADirectoryError(errno.ENOTDIR, f"{directory} is not a directory",
                                     str(directory))
        raise FileNotFoundError(errno.ENOENT, f"no directory {directory}", str(directory))


def check_writable_dir(path: Path) -> None:
    """Raise ``OSError`` (as :func:`create_private` would) when the directory ``path`` is
    to be written in is missing outside the state directory: checked before a long
    collection, not after it."""
    parent = path.parent
    top = state_dir()
    if parent != top and top not in parent.parents:
        make_dirs(parent)


def create_private(path: Path) -> BinaryIO:
    """A new file at ``path``, mode 0600, open for writing; never written through a link.

    An existing file or link at ``path`` is replaced (in a directory where another user
    owns it and the sticky bit is set, the rename is refused: ``OSError``).
    """
    directory = path.parent
    make_dirs(directory)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.")
    try:
        os.replace(temporary, path)
    except OSError:
        os.close(fd)
        os.unlink(temporary)
        raise
    return os.fdopen(fd, "wb")


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as a new 0600 file (see :func:`create_private`)."""
    with create_private(path) as out:
        out.write(data)


def open_append(path: Path) -> int:
    """A descriptor appending to ``path``, created 0600 if missing.

    The file must be a regular file owned by this user, reached without a link: a log
    pointed at ``/dev/null`` or at someone else's file would lose or leak what it keeps.
    """
    make_dirs(path.parent)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
        os.close(fd)
        what = "a regular file" if stat.S_ISREG(info.st_mode) else "not a regular file"
        raise FileError(
            f"{sanitise(str(path))} is {what} not owned by you: refused "
            "(it must be a regular file of your own)"
        )
    return fd


def read_limited(path: Path, limit: int, what: str) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes.

    A file that cannot be opened or read raises its ``OSError``; anything but a regular
    file, or a larger one, raises :class:`UnfitFile` naming ``what``
    (``recording``, ``option file``).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnfitFile(what, path, "is not a regular file")
    with os.fdopen(fd, "rb") as f:
        if info.st_size > limit:
            raise UnfitFile(what, path, f"is larger than {_size(limit)}")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnfitFile(what, path, f"is larger than {_size(limit)}")
    return data


def _size(limit: int) -> str:
    return f"{limit // (1 << 20)} MB" if limit >= 1 << 20 else f"{limit // 1024} kB"


def write_crash_report(error: BaseException) -> Path:
    """The traceback of an internal error, in a new 0600 file of the state directory."""
    directory = state_subdir("crash")
    name = dt.datetime.now().strftime("crash-%Y%m%d-%H%M%S-%f.txt")
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    text = sanitise_lines("".join(lines))
    path = directory / name
    write_private(path, text.encode())
    return path

