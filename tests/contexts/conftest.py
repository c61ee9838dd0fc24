"""Writing a clusters.toml where ndbtop looks for it ($XDG_CONFIG_HOME/ndbtop)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ndbtop.cli import main
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


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """``run(*argv)``: ndbtop's exit status, stdout and stderr."""

    def call(*argv: str) -> tuple[int, str, str]:
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = int(exc.code or 0)
        out, err = capsys.readouterr()
        return status, out, err

    return call
