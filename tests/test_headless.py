"""The headless core never imports the terminal UI libraries."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import importlib
    import json
    import pkgutil
    import sys

    import ndbtop

    # Not the UI, and not __main__ (importing it runs the command line).
    SKIP = {"ndbtop.tui", "ndbtop.__main__"}
    imported = []

    def walk(package):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if info.name in SKIP:
                continue
            module = importlib.import_module(info.name)
            imported.append(info.name)
            if info.ispkg:
                walk(module)

    walk(ndbtop)
    ui = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
    print(json.dumps({"imported": imported, "ui": ui}))
    """
)


def test_no_module_outside_the_tui_imports_textual_or_rich() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["ui"] == []
    imported = set(result["imported"])
    for module in (
        "ndbtop.mgm.client",
        "ndbtop.mgm.events.decode",
        "ndbtop.sim.mgmd.server",
        "ndbtop.sim.runtime",
        "ndbtop.collect.hub",
        "ndbtop.cli.monitor",
        "ndbtop.cli.demo",
        "ndbtop.report.render",
    ):
        assert module in imported
    assert not any(m == "ndbtop.tui" or m.startswith("ndbtop.tui.") for m in imported)
