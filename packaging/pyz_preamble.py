# ndbtop.pyz unpacks its code and wheels once, into a cache directory that is the user's
# own and mode 0700: $PEX_ROOT if set, else $XDG_CACHE_HOME/ndbtop/pyz
# (~/.cache/ndbtop/pyz). Run by the PEX bootstrap before anything is unpacked; a
# directory another user owns, or one that is not a directory, is refused in one line.
def _ndbtop_private_cache():
    import os
    import stat
    import sys

    def refuse(message):
        sys.stderr.write("ndbtop: error: " + message + "\n")
        sys.exit(2)

    def parents(path):
        try:
            os.makedirs(path, 0o700, exist_ok=True)
        except OSError as exc:
            refuse(f"cannot make the cache directory {path!r} ({exc.strerror}; "
                   "set PEX_ROOT to a directory of your own)")

    def private(path):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            refuse(f"cannot make the cache directory {path!r} ({exc.strerror}; "
                   "set PEX_ROOT to another)")
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            refuse(f"the cache directory {path!r} is not a directory (set PEX_ROOT to another)")
        if st.st_uid != os.getuid():
            refuse(f"the cache directory {path!r} belongs to another user "
                   "(set PEX_ROOT to another)")
        if stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(path, 0o700)

    root = os.environ.get("PEX_ROOT")
    if root:
        root = os.path.abspath(os.path.expanduser(root))
        parents(os.path.dirname(root))
        private(root)
        return
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(cache):
        refuse("no home directory for the cache (set PEX_ROOT to a directory of your own)")
    parents(cache)
    top = os.path.join(cache, "ndbtop")
    private(top)
    root = os.path.join(top, "pyz")
    private(root)
    os.environ["PEX_ROOT"] = root


_ndbtop_private_cache()
del _ndbtop_private_cache
