"""Every redo rate names what it counts, and a finished initialisation shows its average."""

from __future__ import annotations

from ndbtop.model.phases import apply_event, apply_status
from ndbtop.model.redo_rates import log_rate_text, redo_speed_text, written_rate_text
from tests.model.test_model_phases import event
from tests.model.test_start_evidence import ndb


def ref(instance: int) -> int:
    # Word 1 of LogFileInitStatus: node id in the low 16 bits, LDM instance above
    # (redo-init.md §6).
    return (instance << 16) | 10


def test_sparse_log_rate_says_what_the_disk_writes() -> None:
    # SPARSE writes one 32 KiB page per MiB of log: 17.5 MB/s of log is 0.55 MB/s written.
    assert log_rate_text(17.5) == (
        "17.5 MB/s of log initialised (≈0.55 MB/s written, one 32 KiB page per MB)")
    assert written_rate_text(0.55 * 1024 * 1024) == (
        "0.55 MB/s written (≈17.6 MB/s of log, one 32 KiB page per MB)")
    assert log_rate_text(50.0, sparse=False).endswith("(all of it written: FULL)")
    assert log_rate_text(None) == "? MB/s of log initialised"


def test_a_finished_initialisation_shows_its_average_not_a_question_mark() -> None:
    t: dict = {}
    t = apply_event(t, event(10, 10, (525315, 525315), 1000.0))
    t = apply_event(t, event(13, 10, (1, 0), 1000.5))
    t = apply_event(t, event(71, 10, (ref(1), 8, 0, 2048, 0), 1001.0))
    t = apply_event(t, event(72, 10, (ref(1), 8, 8, 2048, 2048), 1102.5))
    # 2,048 MB from the start of phase 2 (1000.5) to the completion (1102.5): 20.1 MB/s.
    assert redo_speed_text(t[10]) == (
        "done, average 20.1 MB/s of log initialised (≈0.63 MB/s written, one 32 KiB page per MB)")


def test_no_average_when_the_beginning_was_not_seen() -> None:
    t = apply_status({}, [ndb("STARTING", 1)], 1000.0)
    t = apply_event(t, event(71, 10, (ref(1), 8, 4, 2048, 1024), 1010.0))
    t = apply_event(t, event(72, 10, (ref(1), 8, 8, 2048, 2048), 1050.0))
    assert redo_speed_text(t[10]) == "done (no average: its beginning was not seen)"
