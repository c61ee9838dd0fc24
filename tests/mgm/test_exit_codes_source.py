"""The exit-code table against the server's own (``ndbd_exit_codes.cpp`` ``errArray``,
stored entry by entry in fixtures/ndbd_exit_codes.tsv with its citation).

A code the source's table holds and ndbtop's lacks fails here: NDBStopForced would then
quote the server's fallback slogan for a node that crashed with, say, 2354 (end of the redo
log), and the advice would be a plain restart that crashes again.
"""

from __future__ import annotations

from pathlib import Path

from ndbtop.mgm.events.decode import decode_event
from ndbtop.mgm.events.exitcodes import (
    EXIT_CODES,
    NO_SLOGAN,
    ExitClassification,
    ExitStatus,
    exit_status,
    exit_texts,
)
from ndbtop.mgm.wire import RawEvent

FIXTURE = Path(__file__).parent / "fixtures" / "ndbd_exit_codes.tsv"
MACROS = {
    "XNE": ExitClassification.NONE, "XUE": ExitClassification.UNKNOWN,
    "XIE": ExitClassification.INTERNAL_ERROR, "XCE": ExitClassification.CONFIGURATION_ERROR,
    "XAE": ExitClassification.ARBITRATION_ERROR, "XRE": ExitClassification.RESTART_ERROR,
    "XCR": ExitClassification.RESOURCE_CONFIGURATION_ERROR,
    "XFF": ExitClassification.FILESYSTEM_FULL_ERROR,
    "XFI": ExitClassification.FILESYSTEM_INCONSISTENCY_ERROR,
    "XFL": ExitClassification.FILESYSTEM_LIMIT,
}


def source_table() -> list[tuple[int, ExitClassification, str]]:
    rows = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        code, macro, text = line.split("\t")
        rows.append((int(code), MACROS[macro], text))
    return rows


def test_every_code_of_the_source_table_is_held_with_its_class_and_text() -> None:
    rows = source_table()
    assert len(rows) > 70 and rows[-1][0] == 0  # the whole table, up to its sentinel
    first: dict[int, tuple[ExitClassification, str]] = {}
    for code, cl, text in rows[:-1]:
        first.setdefault(code, (cl, text))  # ndbd_exit_message: the first entry wins
    missing = sorted(set(first) - set(EXIT_CODES))
    assert missing == []
    assert {c: EXIT_CODES[c] for c in first} == first
    # Nothing invented beside the source.
    assert sorted(set(EXIT_CODES) - set(first)) == []
    assert rows[-1][2] == NO_SLOGAN and rows[-1][1] is ExitClassification.UNKNOWN


def test_the_codes_the_audit_found_missing() -> None:
    # ndbd_exit_codes.cpp: {NDBD_EXIT_NO_MORE_REDOLOG, XCR, "Fatal error due to end of REDO
    # log. Increase NoOfFragmentLogFiles or FragmentLogFileSize"} and the LQH watchdog.
    assert exit_texts(2354) == (
        "Fatal error due to end of REDO log. Increase NoOfFragmentLogFiles or "
        "FragmentLogFileSize", "Resource configuration error",
        "Permanent error, external action needed")
    assert exit_status(2354) is ExitStatus.PERMANENT
    assert exit_texts(7200)[0].startswith("LCP fragment scan watchdog detected a problem.")
    for code in (2344, 2355, 6102, 6304, 6305):
        assert exit_texts(code)[0] != NO_SLOGAN
    assert exit_status(2303) is ExitStatus.TEMPORARY
    assert exit_status(2310) is ExitStatus.FILESYSTEM_ERROR


def test_a_code_beyond_the_table_gets_the_servers_fallback() -> None:
    # ndbd_exit_message stops at the sentinel {0, XUE, "No message slogan found ..."}.
    assert exit_texts(9999) == (NO_SLOGAN, "Unknown", "Unknown")


def test_7400_is_quoted_as_the_newest_table_writes_it() -> None:
    # ndbd_exit_codes.c (the newest copy): {NDBD_EXIT_API_FAIL_HANDLING_TIMEOUT, XIE,
    # "Timeout handling Api failure.  Please check ApiFailureHandlingTimeout config or report
    # a bug."}: a node the data nodes stopped for an API node's failure handling (QMGR).
    assert exit_texts(7400) == (
        "Timeout handling Api failure.  Please check ApiFailureHandlingTimeout config or "
        "report a bug.", "Internal error, programming error or missing error message, please "
        "report a bug", "Temporary error, restart node")
    raw = RawEvent(59, 0, 3, (("action", "0"), ("signum", "0"), ("error", "7400"),
                              ("sphase", "255"), ("extra", "0")))
    assert "No message slogan" not in decode_event(raw, 0.0).text


def test_ndbstopforced_quotes_the_table_as_eventlogger_does() -> None:
    # EventLogger.cpp getTextNDBStopForced: " Caused by error %d: '%s(%s). %s'."
    raw = RawEvent(59, 0, 3, (("action", "0"), ("signum", "0"), ("error", "2354"),
                              ("sphase", "255"), ("extra", "0")))
    text = decode_event(raw, 0.0).text
    assert text == ("Forced node shutdown completed. Caused by error 2354: 'Fatal error due to "
                    "end of REDO log. Increase NoOfFragmentLogFiles or FragmentLogFileSize"
                    "(Resource configuration error). Permanent error, external action "
                    "needed'.")
