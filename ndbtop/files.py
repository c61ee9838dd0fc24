"""Files ndbtop writes and reads: private, never through a planted link, bounded.

ndbtop often runs as root in shared directories, and reads files attached to tickets.
Every file it creates (recordings, bundles, the audit log, crash reports, the start
history, the ``mgm`` prompt's history) is mode 0600 and is created without following a
link: a new file is made under a temporary name in the same directory (``O_EXCL``) and
renamed into place, which replaces a link rather than writing through it.

Its own directory, the state directory (``$XDG_STATE_HOME/ndbtop``,
``~/.local/state/ndbtop``), is trusted only as OpenSSH's StrictModes trusts a user's
``~/.ssh`` (``safe_path()`` in openssh-portable ``misc.c``): it and every directory on the
way to it is a directory owned by the user (or, above the state directory, by root) that no
one else may write to. A parent others may write to without the sticky bit (``/tmp``
has it) would let them swap what is below; the state directory itself and what ndbtop makes
in it must not be writable by others at all, nor be a link. A parent may be a link of
root's or the user's own: the directories it leads through are checked in turn. Anything
else is refused in one line (:class:`UnsafeDirectory`, exit 4), never repaired and then
trusted. What ndbtop makes there is made mode 0700.

Every file it reads (option files, ``Ndb.cfg``, recordings, audit logs, the start
history) must be a regular file below a size limit: ``/dev/zero`` or a directory is a
clear error, never a hang; a file of the state directory is read without following a link
and must be the user's own.
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


class UnsafeDirectory(FileError):
    """The state directory, or a directory on the way to it, that others could change."""

    def __init__(self, top: Path, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        """What is wrong with ``path`` (``is a link``, ``is writable by others...``)."""
        where = "" if path == top else f": {sanitise(str(path))}"
        super().__init__(
            f"the state directory {sanitise(str(top))} is not safe to use{where} {reason} "
            "(refused: make it your own and writable only by you, or set XDG_STATE_HOME to "
            "a directory that is)")


def state_dir() -> Path:
    """``$XDG_STATE_HOME/ndbtop`` (``~/.local/state/ndbtop``); not created or checked.

    A relative ``XDG_STATE_HOME`` is ignored, as the XDG Base Directory specification
    says; without it, an empty or relative ``HOME`` is refused (``FileError``): it would
    put the state directory in ``/`` or wherever ndbtop was started."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        home = os.environ.get("HOME")
        if home is None:
            home = str(Path.home())
        if not os.path.isabs(home):
            raise FileError("no state directory: HOME is empty or not an absolute path "
                            "(set HOME, or XDG_STATE_HOME to a directory of your own)")
        base = os.path.join(home, ".local", "state")
    return Path(os.path.normpath(base)) / "ndbtop"


OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
"""Write permission for anyone but the owner (OpenSSH's ``022``)."""


def check_tree(directory: Path, top: Path | None = None) -> None:
    """Raise :class:`UnsafeDirectory` unless ``directory`` (at or below ``top``, the state
    directory by default), as far as it exists, and every directory on the way to it may be
    trusted: see the module's description. A missing part is not checked (it is made
    private when needed, and checked then)."""
    top = state_dir() if top is None else top
    directory = Path(os.path.normpath(os.path.abspath(directory)))
    uid = os.geteuid()
    current = directory
    while True:
        own = current == top or top in current.parents
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            if current.parent == current:
                return
            current = current.parent
            continue
        except OSError as exc:
            raise UnsafeDirectory(top, current, f"cannot be read ({exc.strerror})") from None
        if stat.S_ISLNK(info.st_mode):
            if own or info.st_uid not in (uid, 0):
                owner = "" if own else f" owned by another user (uid {info.st_uid})"
                raise UnsafeDirectory(top, current, f"is a link{owner}")
            _check_resolved(top, Path(os.path.realpath(current)), uid)
        else:
            _check_one(top, current, info, uid, own)
        if current.parent == current:
            return
        current = current.parent


def _check_resolved(top: Path, target: Path, uid: int) -> None:
    """Every directory of ``target``, a path a link of a parent leads to (no link left)."""
    for path in (target, *target.parents):
        try:
            info = os.lstat(path)
        except OSError as exc:
            raise UnsafeDirectory(top, path, f"cannot be read ({exc.strerror})") from None
        _check_one(top, path, info, uid, own=False)


def _check_one(top: Path, path: Path, info: os.stat_result, uid: int, own: bool) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeDirectory(top, path, "is a link")
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeDirectory(top, path, "is not a directory")
    if info.st_uid != uid and (own or info.st_uid != 0):
        raise UnsafeDirectory(top, path, f"is owned by another user (uid {info.st_uid})")
    if info.st_mode & OTHERS_WRITE and (own or not info.st_mode & stat.S_ISVTX):
        sticky = "" if own else " without the sticky bit"
        raise UnsafeDirectory(top, path, f"is writable by others{sticky} "
                                         f"(mode {stat.S_IMODE(info.st_mode):04o})")


def state_subdir(name: str | None = None) -> Path:
    """The state directory, or directory ``name`` in it, made mode 0700 if missing and
    checked (:func:`check_tree`)."""
    top = state_dir()
    path = top if name is None else top / name
    make_dirs(path)
    return path


def make_dirs(directory: Path) -> None:
    """``directory`` in the state directory, made with its parents as ``mkdir -p``, each
    new one mode 0700, and checked (:func:`check_tree`: refused, never repaired, when others
    could change it). A directory elsewhere is the user's: it must exist
    (``FileNotFoundError`` naming it, or ``NotADirectoryError``), ndbtop makes none there."""
    top = state_dir()
    if directory == top or top in directory.parents:
        check_tree(directory, top)
        missing = []
        for part in (directory, *directory.parents):
            if os.path.lexists(part):
                break
            missing.append(part)
        for part in reversed(missing):
            with contextlib.suppress(FileExistsError):
                part.mkdir(mode=0o700)
        check_tree(directory, top)
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


def read_limited(path: Path, limit: int, what: str, *, private: bool = False) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes.

    A file that cannot be opened or read raises its ``OSError``; anything but a regular
    file, or a larger one, raises :class:`UnfitFile` naming ``what``
    (``recording``, ``option file``). ``private``: a file ndbtop keeps (the state
    directory's), opened without following a link and refused unless the user's own.
    """
    fd, info = _open_regular(path, what, private)
    with os.fdopen(fd, "rb") as f:
        if info.st_size > limit:
            raise UnfitFile(what, path, f"is larger than {_size(limit)}")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnfitFile(what, path, f"is larger than {_size(limit)}")
    return data


def read_tail(path: Path, limit: int, what: str, *, private: bool = False) -> bytes:
    """The last whole lines of ``path`` within its last ``limit`` bytes, a regular file
    (:class:`UnfitFile` otherwise); ``private`` as for :func:`read_limited`."""
    fd, info = _open_regular(path, what, private)
    with os.fdopen(fd, "rb") as f:
        start = max(info.st_size - limit, 0)
        f.seek(start)
        data = f.read(limit)
    if start > 0:
        cut = data.find(b"\n")
        data = b"" if cut < 0 else data[cut + 1:]
    return data


def _open_regular(path: Path, what: str, private: bool) -> tuple[int, os.stat_result]:
    """A descriptor reading ``path``, a regular file (and, ``private``, reached without a
    link and the user's own), with its status; :class:`UnfitFile` otherwise."""
    nofollow = os.O_NOFOLLOW if private else 0
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | nofollow | getattr(os, "O_CLOEXEC", 0))
    info = os.fstat(fd)
    reason = ("is not a regular file" if not stat.S_ISREG(info.st_mode)
              else f"is owned by another user (uid {info.st_uid})"
              if private and info.st_uid != os.geteuid() else None)
    if reason is not None:
        os.close(fd)
        raise UnfitFile(what, path, reason)
    return fd, info


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

