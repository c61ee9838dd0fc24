"""Recording the values that are named tuples (threads), backups, and reading older
recordings."""

from __future__ import annotations

import json

import pytest

from ndbtop.model.backups import RUNNING, Backup, NodeProgress
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.membership_rows import MembershipRow
from ndbtop.model.ndbinfo import NdbinfoSample, ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.record.codec import decode, encode


def test_a_thread_is_recorded_by_field_name_and_read_back_as_a_thread() -> None:
    thread = ThreadCpu(2, 3, "ldm", ("DBLQH", "DBACC"), 40.0, 5.0, 42.0, None, 3.0, 0.0, 4103)
    sample = NdbinfoSample(taken_at=1.0, ndb_version=None, threads=(thread,))
    record = json.loads(json.dumps(encode(sample)))
    assert record["threads"] == [
        {
            "@": "ThreadCpu",
            "node_id": 2,
            "thr_no": 3,
            "thread_name": "ldm",
            "blocks": ["DBLQH", "DBACC"],
            "os_user_pct": 40.0,
            "os_system_pct": 5.0,
            "exec_pct": 42.0,
            "spin_pct": None,
            "send_pct": 3.0,
            "buffer_full_pct": 0.0,
            "os_tid": 4103,
        }
    ]
    back = decode(record)
    assert back == sample
    assert type(back.threads[0]) is ThreadCpu and back.threads[0].cpu_pct == 45.0


def test_a_thread_from_an_older_recording_drops_the_figures_no_longer_kept() -> None:
    old = {
        "@": "ThreadCpu",
        "node_id": 2,
        "thr_no": 3,
        "thread_name": "ldm",
        "blocks": ["DBLQH"],
        "os_user_pct": 40.0,
        "os_system_pct": 5.0,
        "os_idle_pct": 55.0,
        "exec_pct": 42.0,
        "sleep_pct": 58.0,
        "spin_pct": 0.0,
        "send_pct": 3.0,
        "buffer_full_pct": 0.0,
        "os_tid": 4103,
    }
    assert decode(old) == ThreadCpu(2, 3, "ldm", ("DBLQH",), 40.0, 5.0, 42.0, 0.0, 3.0, 0.0, 4103)


def test_backups_are_recorded_and_read_back() -> None:
    backup = Backup(
        7, RUNNING, starting_node=1, master=2, started_at=100.0,
        nodes=(NodeProgress(2, 10, 2**40, 3, 4096, 110.0, 1.5e8),),
    )
    snap = ClusterSnapshot(1.0, 2.0, 1.0, (), backups=(backup,))
    back = decode(json.loads(json.dumps(encode(snap))))
    assert back == snap and back.backups[0].node(2).bytes == 2**40


def test_a_host_view_is_recorded_with_its_disk_counters_and_read_without_them() -> None:
    from ndbtop.host.samples import DiskCounters
    from ndbtop.host.view import HostView

    view = HostView(5.0, 1.0, (), None, (), (DiskCounters("sda", 1, 2, 3, 4, 5, 6, 7, 8, 9),))
    assert decode(json.loads(json.dumps(encode(view)))) == view
    # A recording made before the counters were kept reads back with none.
    older = encode(view)
    del older["disk_counters"]
    assert decode(older).disk_counters == ()


def test_membership_rows_are_recorded_and_read_back() -> None:
    row = MembershipRow(2, None, 5, 3, 2, 3, 1, 0, 49, "4a2b000100000000", "ARBIT_RUN", True,
                        (1, 49), ())
    sample = NdbinfoSample(taken_at=1.0, ndb_version=None, membership=(row,))
    back = decode(json.loads(json.dumps(encode(sample))))
    assert back.membership == (row,)
    damaged = encode(sample)
    damaged["membership"][0]["arbitrator"] = "49"
    with pytest.raises(ValueError, match=r"MembershipRow\.arbitrator"):
        decode(damaged)


def test_start_estimates_are_recorded_and_read_back_and_a_bad_one_refused() -> None:
    etas = ((3, Eta(600.0, 300.0, 900.0, 1_800_000_000.0, ("restart_info (this node)",))),
            (4, EtaMissing("start not seen from its beginning: its times are lower bounds")))
    snap = ClusterSnapshot(taken_at=1.0, wall=2.0, interval=1.0, sources=(), start_etas=etas)
    record = json.loads(json.dumps(encode(snap)))
    assert decode(record) == snap
    record["start_etas"][0][1]["seconds"] = "600"
    with pytest.raises(ValueError, match=r"^Eta\.seconds holds str$"):
        decode(record)


def test_a_phase_not_seen_is_recorded_as_none_and_an_older_phase_reads_as_measured() -> None:
    from ndbtop.model.phases import PhaseRecord

    unseen = PhaseRecord(3, 1000.0, None, False)
    bound = PhaseRecord(4, 1000.0, 30.0, False, lower_bound=True)
    assert [decode(json.loads(json.dumps(encode(r)))) for r in (unseen, bound)] == [
        unseen, bound]
    # A recording made before lower bounds were kept has no such field: a measured phase.
    older = {"@": "PhaseRecord", "phase": 5, "began_at": 1030.0, "seconds": 10.0,
             "exact": True}
    assert decode(older) == PhaseRecord(5, 1030.0, 10.0, True, lower_bound=False)
    with pytest.raises(ValueError, match=r"PhaseRecord\.seconds"):
        decode({**older, "seconds": "10"})
