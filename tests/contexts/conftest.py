"""Writing a clusters.toml where ndbtop looks for it ($XDG_CONFIG_HOME/ndbtop)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ndbtop.contexts import clusters_path


@pytest.fixture
def clusters_file() -> Callable[[str], Path]:
    """``write(text)``: the contexts file, mode 0600 in a 0700 directory; returns its path."""

    def write(text: str) -> Path:
        path = clusters_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        path.write_text(text)
        os.chmod(path, 0o600)
        return path

    return write
