"""Build ``dist/ndbtop.pyz``, ndbtop and its dependencies in one file (``packaging/build-pyz``).

The file is a PEX (https://docs.pex-tool.org). PEX rather than shiv because:

- a multi-platform PEX keeps each wheel apart (``.deps/<wheel>``) and picks, at run time,
  the ones that fit the interpreter and machine; shiv installs every wheel into one
  ``site-packages``, where psutil's x86_64 and aarch64 builds collide (both are
  ``_psutil_linux.abi3.so``);
- PEX builds are reproducible by default (fixed 1980-01-01 timestamps, sorted entries,
  no ``.pyc``), where shiv needs ``--reproducible`` and a fixed ``SOURCE_DATE_EPOCH``;
- it takes a preamble (``packaging/pyz_preamble.py``) run before anything is unpacked,
  which makes the cache directory the user's own, mode 0700, and refuses one that others
  could change (the state directory's rule);
- it runs under ``python3 -I`` (isolated mode) and never reads the user's site-packages;
- ``--venv``: the first run makes a virtual environment in the cache, and later runs
  start ndbtop in it directly instead of resolving every wheel again (a warm start costs
  about what the installed package's does: bench/RESULTS.md, "Single-file build").

Steps: the tracked sources are copied to ``build/pyz/src`` with fixed timestamps and made
into a wheel; the dependencies' wheels (``--only-binary=:all:``) are fetched by
``pip download`` for every supported CPython (from 3.9, as far as ``requires-python``
allows) on manylinux x86_64 and aarch64 (glibc 2.28: RHEL and Oracle Linux 8 and later),
at the versions pinned in ``packaging/pyz-constraints.txt``; PEX then builds the file from
those wheels alone (``--no-pypi``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "packaging"
WORK = ROOT / "build" / "pyz"
PYTHONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
"""The CPython versions the file is made for, as far as requires-python allows."""
ARCHES = ("x86_64", "aarch64")
MANYLINUX = "manylinux_2_28"
"""glibc 2.28: RHEL and Oracle Linux 8 (2.28) and 9 (2.34)."""
EPOCH = "315532800"
"""SOURCE_DATE_EPOCH of every build: 1980-01-01, the earliest time a zip entry can have."""


def run(*argv: str | Path, env: dict[str, str] | None = None, quiet: bool = False) -> None:
    """Run a build step (``quiet``: without its standard output); a failure ends the build."""
    result = subprocess.run([str(a) for a in argv], env=env,
                            stdout=subprocess.DEVNULL if quiet else None)
    if result.returncode:
        sys.exit(f"build-pyz: failed: {' '.join(map(str, argv[:4]))} ... "
                 f"(exit {result.returncode})")


def tracked_files() -> list[str]:
    """The files the package is built from: those git tracks or would (not ignored), else the
    tree's."""
    paths = ["ndbtop", "packaging/share", "pyproject.toml", "README.md"]
    if (ROOT / ".git").exists():
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard", "--", *paths],
                             check=True, capture_output=True).stdout
        return sorted(p for p in out.decode().split("\0") if p and (ROOT / p).is_file())
    found = []
    for p in paths:
        top = ROOT / p
        if top.is_file():
            found.append(p)
            continue
        for f in top.rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts:
                found.append(str(f.relative_to(ROOT)))
    return sorted(found)


def stage_sources(dest: Path) -> None:
    """Copy the sources to ``dest`` with every timestamp set to :data:`EPOCH`."""
    shutil.rmtree(dest, ignore_errors=True)
    for rel in tracked_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, target)
        os.utime(target, (int(EPOCH), int(EPOCH)))


def project() -> dict:
    """``[project]`` of pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def pythons(requires: str) -> tuple[list[str], list[str]]:
    """The versions of :data:`PYTHONS` that ``requires`` allows, and those it does not."""
    spec = SpecifierSet(requires)
    allowed = [v for v in PYTHONS if spec.contains(v)]
    return allowed, [v for v in PYTHONS if v not in allowed]


def marker_env(python: str) -> dict[str, str]:
    """The environment markers of CPython ``python`` on Linux."""
    return {"python_version": python, "python_full_version": f"{python}.0",
            "implementation_name": "cpython", "platform_python_implementation": "CPython",
            "sys_platform": "linux", "os_name": "posix"}


def requirements_for(python: str, requirements: list[str]) -> list[str]:
    """The requirements that apply to CPython ``python``, without their markers: pip
    evaluates a requirement's marker (``tomli; python_version < "3.11"``) for the
    interpreter it runs on, not for ``--python-version``."""
    env = marker_env(python)
    chosen = [Requirement(r) for r in requirements]
    return [f"{r.name}{r.specifier}" for r in chosen if r.marker is None or r.marker.evaluate(env)]


def pins_for(python: str, dest: Path) -> Path:
    """The pins of ``pyz-constraints.txt`` that apply to CPython ``python``, in a file of
    their own: pip evaluates a constraint's marker for the interpreter it runs on, not for
    ``--python-version``."""
    lines = []
    env = marker_env(python)
    for line in (HERE / "pyz-constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            lines.append(f"{req.name}{req.specifier}\n")
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"constraints-{python}.txt"
    path.write_text("".join(lines))
    return path


def download(python: str, arch: str, requirements: list[str], wheels: Path) -> None:
    """``pip download`` the wheels of ``requirements`` for CPython ``python`` on ``arch``."""
    tag = python.replace(".", "")
    run(sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--only-binary=:all:", "--platform", f"{MANYLINUX}_{arch}",
        "--python-version", python, "--implementation", "cp", "--abi", f"cp{tag}",
        "--abi", "abi3", "--abi", "none",
        "--constraint", pins_for(python, WORK), "--dest", wheels,
        *requirements_for(python, requirements))


def sha256(path: Path) -> str:
    """The SHA-256 of a file, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main() -> int:
    """Build the file; print where it is, its size and its SHA-256."""
    parser = argparse.ArgumentParser(prog="build-pyz", description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "dist" / "ndbtop.pyz",
                        help="where to write the file (default dist/ndbtop.pyz)")
    out = parser.parse_args().output.resolve()

    meta = project()
    allowed, left_out = pythons(meta.get("requires-python", ""))
    if left_out:
        print(f"build-pyz: not for CPython {', '.join(left_out)} (pyproject.toml: "
              f"requires-python {meta.get('requires-python')})")
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH, PYTHONHASHSEED="0")

    src, wheels, own = WORK / "src", WORK / "wheels", WORK / "ndbtop-wheel"
    stage_sources(src)
    shutil.rmtree(own, ignore_errors=True)
    shutil.rmtree(src / "build", ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--no-build-isolation", "--wheel-dir", own, src, env=env)
    for python in allowed:
        for arch in ARCHES:
            download(python, arch, list(meta["dependencies"]), wheels)

    platforms = [f"--platform=linux_{arch}-cp-{p}-cp{p.replace('.', '')}"
                 for p in allowed for arch in ARCHES]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    run(sys.executable, "-m", "pex", f"ndbtop=={meta['version']}",
        "--no-pypi", "--find-links", own, "--find-links", wheels,
        "--constraints", HERE / "pyz-constraints.txt",
        *platforms, f"--manylinux={MANYLINUX}", "--pip-version=vendored",
        "--console-script", "ndbtop", "--python-shebang", "/usr/bin/env python3",
        "--preamble-file", HERE / "pyz_preamble.py",
        "--venv", "--no-compile", "--no-use-system-time", "--no-record-git-state",
        "--pex-root", WORK / "pex-root", "--output-file", tmp, env=env, quiet=True)
    os.replace(tmp, out)
    print(f"build-pyz: {out.relative_to(ROOT) if ROOT in out.parents else out}: "
          f"{out.stat().st_size} bytes, sha256 {sha256(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
