"""``--once`` during a backup: the data nodes' status reports, twice an interval apart, and
the estimate of when its data will be written."""

from __future__ import annotations

import json
import re

import pytest

from ndbtop.cli import main


def test_once_json_has_the_running_backup_with_each_node_and_a_rate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["demo", "--scenario", "backup", "--at", "150", "--once", "--json", "--no-sql",
                 "--interval", "0.5"])
    out = capsys.readouterr().out
    assert code == 0
    backups = json.loads(out)["backups"]
    assert len(backups) == 1
    b = backups[0]
    assert (b["id"], b["state"], b["starting_node"]) == (1, "running", 1)
    assert b["started_at"] is None  # no event seen: the start time is not known, not zero
    assert [n["node_id"] for n in b["nodes"]] == [2, 3, 4, 5]
    assert b["bytes"] == sum(n["bytes"] + n["log_bytes"] for n in b["nodes"])
    assert b["data_bytes"] == sum(n["bytes"] for n in b["nodes"])
    assert all(n["bytes_per_s"] and n["bytes_per_s"] > 0 for n in b["nodes"])
    # No SQL node: DataMemory in use came from REPORT MEMORYUSAGE, asked for this backup.
    eta = b["eta"]
    assert eta is not None and "eta_missing" not in b
    assert eta["low"] <= eta["seconds"] <= eta["high"]
    assert eta["basis"][0] == "DataMemory in use / replicas, at most"


def test_once_text_gives_the_running_backups_estimate_under_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["demo", "--scenario", "backup", "--at", "150", "--once", "--no-sql",
                 "--interval", "0.5"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    at = lines.index("Backups:")
    line = next(x for x in lines[at:] if x.startswith("  backup 1 data done: "))
    assert re.fullmatch(r"  backup 1 data done: ETA \S+ \(\S+–\S+\) in \S+ · DataMemory in "
                        r"use / replicas, at most, .*, backup log not known ahead", line), line


def test_once_without_a_backup_has_an_empty_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--scenario", "threads", "--once", "--json", "--no-sql",
                 "--interval", "0.2"]) == 0
    assert json.loads(capsys.readouterr().out)["backups"] == []
