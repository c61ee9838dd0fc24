"""The event catalogue against the reference's tables (§4.1, §5.3, §5.4)."""

from __future__ import annotations

import pytest

from ndbtop.mgm.events import (
    BY_NAME,
    CATALOGUE,
    CLUSTER_LOG_DEFAULT_LEVELS,
    START_TYPE_TEXTS,
    Category,
    EventType,
    Severity,
    StartType,
)


def test_every_type_from_0_to_87_except_61() -> None:
    assert set(CATALOGUE) == set(range(88)) - {61}
    assert all(spec.type == t for t, spec in CATALOGUE.items())
    assert len(BY_NAME) == len(CATALOGUE)


def test_types_per_category() -> None:
    per_category = {c: sorted(t for t, s in CATALOGUE.items() if s.category is c) for c in Category}
    assert per_category[Category.CONNECTION] == [0, 1, 2, 3, 51]
    assert per_category[Category.CHECKPOINT] == [4, 5, 6, 7, 8, 9, 38, 73]
    assert per_category[Category.STARTUP] == [
        10,
        11,
        12,
        13,
        14,
        15,
        16,
        17,
        18,
        19,
        20,
        21,
        53,
        59,
        60,
        71,
        72,
        77,
        78,
        79,
        80,
        86,
    ]
    assert per_category[Category.NODERESTART] == [
        22,
        23,
        24,
        25,
        26,
        27,
        28,
        29,
        30,
        31,
        32,
        33,
        34,
        82,
        83,
        84,
    ]
    assert per_category[Category.STATISTICS] == [35, 36, 37, 39, 40, 41, 50, 68, 70]
    assert per_category[Category.ERROR] == [42, 43, 44, 45, 46, 69]
    assert per_category[Category.INFO] == [47, 48, 49, 52, 58, 81, 85, 87]
    assert per_category[Category.BACKUP] == [54, 55, 56, 57, 62, 63, 64, 65, 66, 67]
    assert per_category[Category.SCHEMA] == [74, 75, 76]
    for empty in (Category.SHUTDOWN, Category.CONGESTION, Category.DEBUG, Category.WARNING):
        assert per_category[empty] == []


@pytest.mark.parametrize(
    ("event_type", "name", "threshold", "severity"),
    [
        (1, "Disconnected", 8, Severity.ALERT),
        (8, "LCPStoppedInCalcKeepGci", 0, Severity.ALERT),
        (12, "STTORRYRecieved", 15, Severity.INFO),
        (13, "StartPhaseCompleted", 4, Severity.INFO),
        (14, "CM_REGCONF", 3, Severity.INFO),
        (30, "ArbitResult", 2, Severity.ALERT),
        (42, "TransporterError", 2, Severity.ERROR),
        (43, "TransporterWarning", 8, Severity.WARNING),
        (47, "SentHeartbeat", 12, Severity.INFO),
        (50, "MemoryUsage", 5, Severity.INFO),
        (59, "NDBStopForced", 1, Severity.ALERT),
        (69, "SubscriptionStatus", 4, Severity.WARNING),
        (71, "LogFileInitStatus", 7, Severity.INFO),
        (84, "NodeFailRejected", 6, Severity.ALERT),
        (9, "LCPFragmentCompleted", 11, Severity.INFO),
    ],
)
def test_matrix_rows(event_type: int, name: str, threshold: int, severity: Severity) -> None:
    spec = CATALOGUE[event_type]
    assert (spec.name, spec.threshold, spec.severity) == (name, threshold, severity)


@pytest.mark.parametrize(
    ("event_type", "body"),
    [
        (13, (("phase", 1), ("starttype", 2))),
        (16, (("own_id", 1), ("left_id", 3), ("right_id", 3), ("dynamic_id", 4))),
        (
            71,
            (
                ("node_id", 1),
                ("total_files", 2),
                ("file_done", 3),
                ("total_mbytes", 4),
                ("mbytes_done", 5),
            ),
        ),
        (
            56,
            (
                ("starting_node", 1),
                ("backup_id", 2),
                ("start_gci", 3),
                ("stop_gci", 4),
                ("n_bytes", 5),
                ("n_records", 6),
                ("n_log_bytes", 7),
                ("n_log_records", 8),
                ("n_bytes_hi", 11),
                ("n_records_hi", 12),
                ("n_log_bytes_hi", 13),
                ("n_log_records_hi", 14),
            ),
        ),
        (51, (("node", 1), ("version", 2))),
    ],
)
def test_body_rows(event_type: int, body: tuple[tuple[str, int], ...]) -> None:
    assert CATALOGUE[event_type].body == body


def test_data_form_types() -> None:
    data_form = sorted(t for t, s in CATALOGUE.items() if s.data_form)
    assert data_form == [
        12,
        18,
        22,
        23,
        31,
        32,
        33,
        46,
        49,
        60,
        68,
        69,
        72,
        74,
        75,
        76,
        77,
        78,
        79,
        80,
        81,
        82,
        83,
        84,
    ]


def test_node_ref_keys_only_on_backup_starting_node() -> None:
    with_refs = {t: s.node_ref_keys for t, s in CATALOGUE.items() if s.node_ref_keys}
    assert with_refs == {t: frozenset({"starting_node"}) for t in (54, 55, 56, 57, 62)}


def test_category_names() -> None:
    assert [c.value for c in Category] == list(range(250, 263))
    assert Category.WARNING.filter_name is None
    assert Category.STATISTICS.filter_name == "STATISTICS"
    assert [c.loglevel_name for c in Category] == [
        "startup",
        "shutdown",
        "statistics",
        "checkpoint",
        "noderestart",
        "connection",
        "info",
        "warning",
        "error",
        "congestion",
        "debug",
        "backup",
        "schema",
    ]
    assert Category.SCHEMA.index == 12


def test_cluster_log_defaults() -> None:
    assert dict(CLUSTER_LOG_DEFAULT_LEVELS) == {
        c: 15 if c in (Category.ERROR, Category.BACKUP) else 8 if c is Category.CONNECTION else 7
        for c in Category
    }


def test_severities_and_start_types() -> None:
    assert [(s.name, s.value) for s in Severity] == [
        ("ON", 0),
        ("DEBUG", 1),
        ("INFO", 2),
        ("WARNING", 3),
        ("ERROR", 4),
        ("CRITICAL", 5),
        ("ALERT", 6),
        ("ALL", 7),
    ]
    assert [s.value for s in StartType] == [0, 1, 2, 3, 4, 5]
    assert StartType.SYSTEM_RESTART_NOT_RESTORABLE not in START_TYPE_TEXTS
    assert START_TYPE_TEXTS[StartType.ILLEGAL_TYPE] == ""


def test_named_event_types_match_the_catalogue() -> None:
    for member in EventType:
        assert member.value in CATALOGUE
    assert CATALOGUE[EventType.LOG_FILE_INIT_STATUS].name == "LogFileInitStatus"
