"""Decoding of event blocks: malformed and unknown input, and the typed views ndbtop uses."""

from __future__ import annotations

import pytest

from ndbtop.mgm.events import (
    Category,
    Severity,
    StartType,
    decode_event,
    decode_text_line,
    log_file_init,
    start_phase,
    statistics,
)
from ndbtop.mgm.events.decode import TEXT_LINE_TYPE
from ndbtop.mgm.wire import RawEvent


def raw(event_type: int, *body: tuple[str, str], source: int = 2) -> RawEvent:
    return RawEvent(event_type, 0, source, tuple(body))


def test_known_event_carries_its_catalogue_classification() -> None:
    event = decode_event(raw(1, ("node", "4"), source=1), 10.0)
    assert (event.name, event.category, event.severity, event.threshold) == (
        "Disconnected",
        Category.CONNECTION,
        Severity.ALERT,
        8,
    )
    assert event.text == "Node 4 Disconnected"


def test_missing_key_marks_malformed_and_still_gives_a_text() -> None:
    event = decode_event(raw(13, ("phase", "5")), 0.0)
    assert event.malformed and event.known
    assert event.fields == (("phase", 5),)
    assert event.get("starttype") is None
    assert event.text == "Start phase 5 completed (initial start)"


@pytest.mark.parametrize("bad", ["abc", "", "1.5", "0x10", "99999999999", "-2147483649"])
def test_non_numeric_or_out_of_range_value_marks_malformed(bad: str) -> None:
    event = decode_event(raw(4, ("gci", bad)), 0.0)
    assert event.malformed
    assert event.get("gci") is None
    assert event.text == "Global checkpoint 0 started"


@pytest.mark.parametrize(
    ("text", "value"),
    [("-1", 0xFFFFFFFF), ("-2147483648", 0x80000000), ("4294967295", 0xFFFFFFFF), (" 7 ", 7)],
)
def test_values_are_32_bit_words(text: str, value: int) -> None:
    event = decode_event(raw(4, ("gci", text)), 0.0)
    assert not event.malformed
    assert event.get("gci") == value


def test_first_occurrence_of_a_key_wins() -> None:
    event = decode_event(raw(4, ("gci", "5"), ("gci", "6")), 0.0)
    assert event.get("gci") == 5


def test_extra_keys_are_kept_in_the_body_only() -> None:
    event = decode_event(raw(4, ("gci", "5"), ("future", "1")), 0.0)
    assert event.fields == (("gci", 5),)
    assert event.body == (("gci", "5"), ("future", "1"))
    assert not event.malformed


def test_data_form_with_bad_token_is_malformed() -> None:
    event = decode_event(raw(72, ("data", "196611 16 x 1024 ")), 0.0)
    assert event.malformed
    assert event.words == (196611, 16, 0, 1024)


def test_data_form_without_data_is_malformed() -> None:
    event = decode_event(raw(18), 0.0)
    assert event.malformed
    assert event.text == "Node shutdown aborted"


def test_keyed_type_sent_as_raw_words_by_an_older_server() -> None:
    ref = (0xF7 << 16) | 3
    event = decode_event(raw(71, ("data", f"{ref} 16 4 1024 256 ")), 0.0)
    assert not event.malformed
    assert event.get("node_id") == ref
    assert event.get("mbytes_done") == 256
    assert event.text.startswith("Local redo log file initialization status:")


def test_unknown_type_is_kept_raw() -> None:
    event = decode_event(raw(61, ("data", "1 2 ")), 4.0)
    assert (event.known, event.malformed, event.name) == (False, False, "Unknown")
    assert event.category is None and event.severity is None
    assert event.words == (1, 2)
    assert event.text == "Unknown event type 61 [1 2]"
    assert event.received_at == 4.0


def test_unknown_type_with_named_keys_keeps_them_in_the_text() -> None:
    event = decode_event(raw(99, ("foo", "1"), ("bar", "x")), 0.0)
    assert event.body == (("foo", "1"), ("bar", "x"))
    assert event.text == "Unknown event type 99 [foo=1 bar=x]"


def test_event_is_frozen_and_hashable() -> None:
    event = decode_event(raw(4, ("gci", "5")), 0.0)
    with pytest.raises(AttributeError):
        event.text = "x"  # type: ignore[misc]
    assert hash(event) == hash(decode_event(raw(4, ("gci", "5")), 0.0))


def test_text_line_decoding() -> None:
    event = decode_text_line("Node 12: Node 3 Connected", 9.0)
    assert (event.type, event.source_node, event.text, event.malformed) == (
        TEXT_LINE_TYPE,
        12,
        "Node 3 Connected",
        False,
    )
    odd = decode_text_line("something else", 9.0)
    assert (odd.source_node, odd.text, odd.malformed) == (0, "something else", True)


@pytest.mark.parametrize(
    ("start_type", "name", "member"),
    [
        (0, "initial start", StartType.INITIAL_START),
        (1, "system restart", StartType.SYSTEM_RESTART),
        (2, "node restart", StartType.NODE_RESTART),
        (3, "initial node restart", StartType.INITIAL_NODE_RESTART),
        (4, "system restart (not restorable)", StartType.SYSTEM_RESTART_NOT_RESTORABLE),
        (5, "illegal start type", StartType.ILLEGAL_TYPE),
        (9, "unknown (9)", None),
    ],
)
def test_start_phase_view(start_type: int, name: str, member: StartType | None) -> None:
    event = decode_event(raw(13, ("phase", "101"), ("starttype", str(start_type))), 0.0)
    view = start_phase(event)
    assert view is not None
    assert (view.phase, view.start_type, view.start_type_name, view.known_start_type) == (
        101,
        start_type,
        name,
        member,
    )


def test_start_phase_view_of_another_type_is_none() -> None:
    assert start_phase(decode_event(raw(4, ("gci", "1")), 0.0)) is None


def test_log_file_init_in_progress() -> None:
    ref = (0xF7 << 16) | 3
    event = decode_event(
        raw(
            71,
            ("node_id", str(ref)),
            ("total_files", "16"),
            ("file_done", "4"),
            ("total_mbytes", "1024"),
            ("mbytes_done", "256"),
        ),
        0.0,
    )
    view = log_file_init(event)
    assert view is not None
    assert (view.node_id, view.total_files, view.files_done, view.total_mbytes) == (3, 16, 4, 1024)
    assert (view.mbytes_done, view.completed, view.fraction) == (256, False, 0.25)


def test_log_file_init_completed_branch() -> None:
    ref = (0xF7 << 16) | 3
    body = [("node_id", str(ref))] + [(k, "0") for k in ("total_files", "file_done")]
    body += [("total_mbytes", "0"), ("mbytes_done", "0")]
    event = decode_event(raw(71, *body), 0.0)
    view = log_file_init(event)
    assert view is not None
    assert (view.node_id, view.completed, view.fraction) == (3, True, 1.0)
    assert event.text == "Node 3: Log file initializtion completed"


def test_log_file_init_comp_status() -> None:
    ref = (0xF7 << 16) | 4
    view = log_file_init(decode_event(raw(72, ("data", f"{ref} 16 16 0 0 ")), 0.0))
    assert view is not None
    assert (view.node_id, view.files_done, view.completed, view.fraction) == (4, 16, True, 1.0)


@pytest.mark.parametrize(
    ("event_type", "body", "expected"),
    [
        (
            35,
            [
                (k, str(i))
                for i, k in enumerate(
                    [
                        "trans_count",
                        "commit_count",
                        "read_count",
                        "simple_read_count",
                        "write_count",
                        "attrinfo_count",
                        "conc_op_count",
                        "abort_count",
                        "scan_count",
                        "range_scan_count",
                    ],
                    start=1,
                )
            ],
            {"trans_count": 1, "commit_count": 2, "abort_count": 8, "range_scan_count": 10},
        ),
        (36, [("ops", "77")], {"ops": 77}),
        (39, [("mean_loop_count", "1500")], {"mean_loop_count": 1500}),
        (
            40,
            [("to_node", "3"), ("mean_sent_bytes", "2048")],
            {"to_node": 3, "mean_sent_bytes": 2048},
        ),
        (
            41,
            [("from_node", "3"), ("mean_received_bytes", "99")],
            {"from_node": 3, "mean_received_bytes": 99},
        ),
        (68, [("data", "1 2 3 4 5 ")], {"total_usec": 1, "const": 2, "exec": 3, "extra_time": 5}),
        (
            70,
            [
                ("mt_deliver_thread", "1"),
                ("mt_prioa_count", "2"),
                ("mt_prioa_size", "3"),
                ("mt_priob_count", "4"),
                ("mt_priob_size", "5"),
            ],
            {"thread": 1, "prioa_count": 2, "prioa_bytes": 3, "priob_count": 4, "priob_bytes": 5},
        ),
        (
            50,
            [
                ("gth", "-1"),
                ("page_size_bytes", "32768"),
                ("pages_used", "64"),
                ("pages_total", "1280"),
                ("block", "249"),
            ],
            {"gth": -1, "pages_used": 64, "pages_total": 1280, "block": 249},
        ),
    ],
)
def test_statistics_views(
    event_type: int, body: list[tuple[str, str]], expected: dict[str, int]
) -> None:
    values = statistics(decode_event(raw(event_type, *body), 0.0))
    assert values is not None
    assert {k: values[k] for k in expected} == expected


def test_trans_report_local_counts_only_when_present() -> None:
    parsable = decode_event(raw(35, *[(f"k{i}", "1") for i in range(3)]), 0.0)
    values = statistics(parsable)
    assert values is not None and "local_read_count" not in values
    from_words = decode_event(raw(35, ("data", " ".join(str(i) for i in range(1, 13)))), 0.0)
    values = statistics(from_words)
    assert values is not None
    assert (values["local_read_count"], values["local_write_count"]) == (11, 12)


def test_statistics_of_another_type_is_none() -> None:
    assert statistics(decode_event(raw(13, ("phase", "1"), ("starttype", "0")), 0.0)) is None
