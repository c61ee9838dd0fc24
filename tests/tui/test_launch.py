"""Starting the live view: the process settles its memory management first."""

from __future__ import annotations

import subprocess
import sys


def test_settling_memory_freezes_what_is_loaded_and_collects_less_often() -> None:
    code = (
        "import gc; from ndbtop.tui.launch import settle_memory; "
        "before = gc.get_freeze_count(); settle_memory(); "
        "print(before, gc.get_freeze_count() > 1000, gc.get_threshold())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split(maxsplit=2)
    assert out == ["0", "True", "(10000, 20, 10)\n"]
