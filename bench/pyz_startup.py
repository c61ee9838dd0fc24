"""Start-up to the first screen: ``dist/ndbtop.pyz`` against the installed package.

Run after ``packaging/build-pyz``: the same wheels it fetched (build/pyz) are installed
into a new virtual environment, offline, so that both run the same code on the same
Python. Each run starts ``demo`` in a pseudo-terminal of 120x40 and times the first
screen (the first view's tab drawn), then types ``q``. The pyz is timed cold (an empty
``HOME``: it unpacks into its cache first) and warm (its cache already made).

    python3 bench/pyz_startup.py [--runs 5] [--python python3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from pyzrun import FIRST_SCREEN, Terminal, isolated_env  # noqa: E402


def first_screen(argv: list[str], home: Path) -> float:
    """Seconds from the start of ``argv`` (``... demo``) to its first screen."""
    term = Terminal(argv, isolated_env(home))
    try:
        shown = term.until(FIRST_SCREEN, 120)
        if shown is None:
            raise SystemExit(f"no first screen: {' '.join(argv)}")
        term.press(b"q")
        term.wait(30)
        return shown
    finally:
        term.kill()


def version_time(argv: list[str], home: Path) -> float:
    """Seconds ``argv --version`` takes."""
    start = time.monotonic()
    subprocess.run([*argv, "--version"], env=isolated_env(home), check=True,
                   capture_output=True)
    return time.monotonic() - start


def main() -> int:
    """Print the size and the median start-up times as a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default="python3")
    args = parser.parse_args()
    pyz = ROOT / "dist" / "ndbtop.pyz"
    python = subprocess.run([args.python, "-c", "import sys; print(sys.executable)"],
                            check=True, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="ndbtop-bench-") as tmp:
        venv = Path(tmp, "venv")
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-index",
                        "--disable-pip-version-check",
                        "--find-links", str(ROOT / "build" / "pyz" / "wheels"),
                        "--find-links", str(ROOT / "build" / "pyz" / "ndbtop-wheel"),
                        "ndbtop"], check=True)
        installed = [str(venv / "bin" / "ndbtop")]
        site = subprocess.run([str(venv / "bin" / "python"), "-c",
                               "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True).stdout.strip()
        size = sum(f.stat().st_size for f in Path(site).rglob("*") if f.is_file()
                   and "pip" not in f.relative_to(site).parts[0])
        single = [python, "-I", str(pyz)]
        rows: dict[str, list[float]] = {"installed": [], "pyz cold": [], "pyz warm": []}
        versions: dict[str, list[float]] = {"installed": [], "pyz warm": []}
        warm_home = Path(tmp, "warm")
        warm_home.mkdir()
        first_screen([*single, "demo"], warm_home)  # makes the cache
        for _ in range(args.runs):
            home = Path(tempfile.mkdtemp(dir=tmp))
            rows["installed"].append(first_screen([*installed, "demo"], home))
            rows["pyz cold"].append(first_screen([*single, "demo"], home))
            rows["pyz warm"].append(first_screen([*single, "demo"], warm_home))
            versions["installed"].append(version_time(installed, home))
            versions["pyz warm"].append(version_time(single, warm_home))
    version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             check=True, capture_output=True, text=True).stdout.strip()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Python {version}, {args.runs} runs each, medians; load average {load} on "
          f"{os.cpu_count()} CPUs")
    print(f"dist/ndbtop.pyz: {pyz.stat().st_size / 1e6:.1f} MB; the installed package and "
          f"its dependencies: {size / 1e6:.1f} MB in site-packages")
    print("| | demo to first screen | --version |")
    print("| --- | --- | --- |")
    for name, times in rows.items():
        v = versions.get(name)
        vt = f"{statistics.median(v):.2f} s" if v else "-"
        print(f"| {name} | {statistics.median(times):.2f} s "
              f"({min(times):.2f}-{max(times):.2f}) | {vt} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
