# ndbtop.pyz unpacks its code and wheels once, into a cache directory of the user's own:
# $PEX_ROOT if set, else $XDG_CACHE_HOME/ndbtop/pyz (~/.cache/ndbtop/pyz). Run by the PEX
# bootstrap before anything is unpacked. The cache is trusted as OpenSSH's StrictModes
# trusts ~/.ssh (safe_path() in openssh-portable misc.c), the rule ndbtop's state directory
# follows (ndbtop/files.py): the cache and what is in its place below the user's cache
# directory must be directories of the user's own, not links, that no one else may write
# to; every directory on the way to it must be the user's or root's, writable by no one
# else unless it has the sticky bit, and a link there (the user's or root's) is followed and
# checked in turn. Anything else is refused in one line, exit 4, never repaired and then
# trusted. Missing directories are made mode 0700. An empty or relative HOME is refused:
# it would put the cache at / (as root: /.cache) or wherever ndbtop was started.
def _ndbtop_private_cache():
    import os
    import stat
    import sys

    uid = os.geteuid()

    def refuse(message):
        sys.stderr.write("ndbtop: error: " + message.encode("ascii", "backslashreplace")
                         .decode().replace("\n", "\\n") + "\n")
        sys.exit(4)

    def unsafe(path, why):
        refuse(f"the cache directory {path!r} is not safe to use: {why} (refused: set "
               "PEX_ROOT to a directory of your own that only you can write to)")

    def check_one(path, st, own):
        if stat.S_ISLNK(st.st_mode):
            unsafe(path, "it is a link")
        if not stat.S_ISDIR(st.st_mode):
            unsafe(path, "it is not a directory")
        if st.st_uid != uid and (own or st.st_uid != 0):
            unsafe(path, f"it belongs to another user (uid {st.st_uid})")
        if st.st_mode & 0o022 and (own or not st.st_mode & stat.S_ISVTX):
            sticky = "" if own else " without the sticky bit"
            unsafe(path, f"others may write to it{sticky} (mode "
                         f"{stat.S_IMODE(st.st_mode):04o})")

    def check(path, top):
        # path and every directory above it, as far as they exist; at or below top: own.
        current = path
        while True:
            own = current == top or current.startswith(top.rstrip("/") + "/")
            try:
                st = os.lstat(current)
            except (FileNotFoundError, NotADirectoryError):
                st = None
            except OSError as exc:
                unsafe(current, f"it cannot be read ({exc.strerror})")
            if st is not None and stat.S_ISLNK(st.st_mode) and not own and st.st_uid in (uid, 0):
                target = os.path.realpath(current)
                for part in [target, *parents_of(target)]:
                    try:
                        check_one(part, os.lstat(part), False)
                    except OSError as exc:
                        unsafe(part, f"it cannot be read ({exc.strerror})")
            elif st is not None:
                check_one(current, st, own)
            parent = os.path.dirname(current)
            if parent == current:
                return
            current = parent

    def parents_of(path):
        out = []
        while os.path.dirname(path) != path:
            path = os.path.dirname(path)
            out.append(path)
        return out

    def private(path, top):
        check(path, top)
        missing = []
        part = path
        while not os.path.lexists(part):
            missing.append(part)
            part = os.path.dirname(part)
        for part in reversed(missing):
            try:
                os.mkdir(part, 0o700)
            except FileExistsError:
                pass
            except OSError as exc:
                refuse(f"cannot make the cache directory {part!r} ({exc.strerror}; "
                       "set PEX_ROOT to a directory of your own)")
        check(path, top)

    root = os.environ.get("PEX_ROOT")
    if root:
        root = os.path.normpath(os.path.abspath(os.path.expanduser(root)))
        private(root, root)
        return
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):
        home = os.environ.get("HOME")
        if home is None:
            home = os.path.expanduser("~")
        if not os.path.isabs(home):
            refuse("no home directory for the cache: HOME is empty or not an absolute path "
                   "(set HOME, or PEX_ROOT to a directory of your own)")
        cache = os.path.join(home, ".cache")
    top = os.path.join(os.path.normpath(cache), "ndbtop")
    root = os.path.join(top, "pyz")
    private(root, top)
    os.environ["PEX_ROOT"] = root


_ndbtop_private_cache()
del _ndbtop_private_cache
