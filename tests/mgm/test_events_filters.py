"""``listen event`` filter parsing, formatting and event routing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndbtop.mgm.events import (
    CATALOGUE,
    Category,
    FilterRejected,
    ListenFilter,
    event_passes,
    format_filter,
    parse_filter,
)
from ndbtop.mgm.events.filters import c_atoi


def accepted(spec: str) -> dict[Category, int]:
    result = parse_filter(spec)
    assert isinstance(result, ListenFilter), result
    return {c: level for c, level in result.as_dict().items() if level}


def rejected(spec: str) -> str:
    result = parse_filter(spec)
    assert isinstance(result, FilterRejected), result
    return result.message


@pytest.mark.parametrize(
    ("spec", "levels"),
    [
        ("STARTUP=15 STATISTICS=5 250=7", {Category.STARTUP: 7, Category.STATISTICS: 5}),
        ("261=15 250=1 252=5", {Category.BACKUP: 15, Category.STARTUP: 1, Category.STATISTICS: 5}),
        ("startup:3,backup=4", {Category.STARTUP: 3, Category.BACKUP: 4}),
        ("  \tConnection=8\t ", {Category.CONNECTION: 8}),
        ("257=7", {Category.WARNING: 7}),
        (
            "schema=1 congestion=2 debug=3",
            {Category.SCHEMA: 1, Category.CONGESTION: 2, Category.DEBUG: 3},
        ),
        ("STARTUP=", {}),
        ("STARTUP=7x", {Category.STARTUP: 7}),
        ("STARTUP=\t+9", {Category.STARTUP: 9}),
        ("250abc=4", {Category.STARTUP: 4}),
        ("STARTUP=4294967297", {Category.STARTUP: 1}),
        ("STARTUP=0", {}),
    ],
)
def test_accepted_filters(spec: str, levels: dict[Category, int]) -> None:
    assert accepted(spec) == levels


def test_unnamed_categories_are_zero() -> None:
    result = parse_filter("BACKUP=15")
    assert isinstance(result, ListenFilter)
    assert result.level(Category.BACKUP) == 15
    assert result.level(Category.STARTUP) == 0
    assert len(result.levels) == len(Category)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("WARNING=7", "Unknown category: >WARNING<"),
        ("warning=7", "Unknown category: >WARNING<"),
        ("STARTUP", "Invalid filter specification: >STARTUP< >STARTUP< 1"),
        ("", "Invalid filter specification: >< >< 1"),
        ("   ", "Invalid filter specification: >< >< 1"),
        ("STARTUP==1", "Invalid filter specification: >STARTUP==1< >STARTUP==1< 3"),
        (
            "STARTUP=1  BACKUP=2",
            "Invalid filter specification: >STARTUP=1  BACKUP=2< >< 1",
        ),
        ("STARTUP=1, BACKUP=2", "Invalid filter specification: >STARTUP=1, BACKUP=2< >< 1"),
        (
            "STARTUP=1 BACKUP=2 x:1:2",
            "Invalid filter specification: >STARTUP=1 BACKUP=2 x:1:2< >x:1:2< 3",
        ),
        ("FOO=1", "Unknown category: >FOO<"),
        ("249=1", "Unknown category: >249<"),
        ("263=1", "Unknown category: >263<"),
        ("=5", "Unknown category: ><"),
        ("STARTUP=16", "Invalid level: >16<"),
        ("STARTUP=-1", "Invalid level: >-1<"),
        ("STARTUP=\t99", "Invalid level: >\t99<"),
        ("BACKUP=15 STARTUP=20", "Invalid level: >20<"),
    ],
)
def test_rejected_filters(spec: str, message: str) -> None:
    assert rejected(spec) == message


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12),
        ("  -3", -3),
        ("+4x", 4),
        ("x4", 0),
        ("", 0),
        ("\n\v\f\r 5", 5),
        ("4294967296", 0),
        ("2147483648", -2147483648),
        ("99999999999999999999999", -1),
    ],
)
def test_c_atoi(text: str, value: int) -> None:
    assert c_atoi(text) == value


def test_format_filter() -> None:
    assert format_filter({250: 7, 252: 15}) == "250=7 252=15"
    assert format_filter([(Category.BACKUP, 15), (Category.STARTUP, 1)]) == "261=15 250=1"
    assert format_filter({}) == ""


@given(
    st.dictionaries(
        st.sampled_from(list(Category)), st.integers(min_value=0, max_value=15), min_size=1
    )
)
def test_formatted_filters_parse_back(levels: dict[Category, int]) -> None:
    result = parse_filter(format_filter(levels))
    assert isinstance(result, ListenFilter)
    assert {c: result.level(c) for c in levels} == levels


def test_event_passes_on_threshold() -> None:
    start_phase = CATALOGUE[13]  # STARTUP, threshold 4
    assert event_passes(start_phase, {Category.STARTUP: 4})
    assert not event_passes(start_phase, {Category.STARTUP: 3})
    assert not event_passes(start_phase, {Category.BACKUP: 15})
    parsed = parse_filter("STARTUP=7")
    assert isinstance(parsed, ListenFilter)
    assert event_passes(CATALOGUE[71], parsed)  # LogFileInitStatus needs STARTUP=7
    assert not event_passes(CATALOGUE[20], parsed)  # StartLog needs 10


def test_threshold_zero_reaches_everyone() -> None:
    lcp_stopped = CATALOGUE[8]
    assert lcp_stopped.threshold == 0
    assert event_passes(lcp_stopped, {})
    assert event_passes(lcp_stopped, {Category.BACKUP: 1})
