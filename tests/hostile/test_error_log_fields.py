"""An error-log entry with a field that is not a number stays in the view, the text
report and the bundle, the field marked; the log's offset is read by the one parser
of outside numbers."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ndbtop.model.errorlog import parse_error_log
from ndbtop.model.hosts import HostReport
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.render import error_log_json, error_log_line
from ndbtop.tui.views.down_node import error_log_text
from tests.ssh.test_error_log import NEW, OLD, error_log

HUGE = "9" * 5000


@pytest.mark.parametrize("code", ["²", "٣", HUGE, "-1", "2305x", "nan"])
def test_an_error_code_that_is_no_number_is_shown_marked(code: str) -> None:
    entry = parse_error_log(error_log([OLD, NEW.replace("Error: 2305", f"Error: {code}")]),
                            2, "/d/ndb_2_error.log")
    shown_code = code if len(code) <= 40 else code[:40] + "…"
    assert entry.problem is None
    assert (entry.error_code, entry.raw_error, entry.unreadable) == (None, shown_code,
                                                                      ("Error",))
    assert entry.time == "Wednesday 25 November 2026 - 10:40:17"
    assert entry.classification == "Arbitration error"
    line = error_log_line(entry)
    assert line.startswith(f"error {shown_code} (unreadable): Node lost connection")
    assert "; Wednesday 25 November 2026 - 10:40:17;" in line
    as_json = json.loads(json.dumps(error_log_json(entry)))
    assert as_json["error_code"] is None and as_json["unreadable"] == ["Error"]
    snap = ClusterSnapshot(taken_at=0.0, wall=0.0, interval=1.0, sources=(), hosts=(
        HostReport("db1", "ssh", (2,), "ok", error_logs=(entry,)),))
    shown = error_log_text(snap, 2)
    assert shown is not None
    assert f"Error: {shown_code} (unreadable)" in shown.plain
    assert "Message: Node lost connection" in shown.plain


def test_a_number_is_shown_as_it_was() -> None:
    entry = parse_error_log(error_log([OLD, NEW]), 2, "x")
    assert (entry.error_code, entry.raw_error, entry.unreadable) == (2305, None, ())
    assert error_log_line(entry).startswith("error 2305: Node lost")


@pytest.mark.parametrize("offset", ["²", HUGE, "-5", "nan"])
def test_an_offset_that_is_no_number_reads_the_last_entry(offset: str) -> None:
    text = error_log([NEW, OLD], next_offset=1).replace(
        "file-pointer is: 1 ", f"file-pointer is: {offset} ", 1)
    entry = parse_error_log(text, 2, "x")
    assert entry.error_code == 2341 and entry.problem is None


def test_an_entry_without_an_error_field_shows_a_question_mark() -> None:
    text = error_log([NEW.replace("Error: 2305\n", "")])
    entry = parse_error_log(text, 2, "x")
    assert dataclasses.astuple(entry)[4:5] == (None,) and entry.raw_error is None
    assert error_log_line(entry).startswith("error ?: Node lost")
