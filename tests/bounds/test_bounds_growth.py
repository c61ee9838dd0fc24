"""Inputs whose shape made the work grow faster than the input, each with a doubling test
that counts the lines of ndbtop's code run (:func:`tests.bounds.conftest.work`), not time.

- Lock waits: a queue of transactions on one hot row, a layered graph (each transaction
  of a layer waiting for every one of the layer before: paths multiply), and one long
  deadlock cycle. Depth and cycles come from strongly connected components and the
  longest path on their graph, once per read, in the collector's thread.
- ``config --diff`` against a config.ini of many sections.
- An error-log entry whose problem data runs over many lines.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ndbtop.errors import UsageError
from ndbtop.mgm.packed_config import unpack
from ndbtop.model import locks as locks_model
from ndbtop.model.config_decode import raw_config
from ndbtop.model.config_ini import ConfigIniError, diff_ini, parse_ini
from ndbtop.model.errorlog import parse_error_log
from ndbtop.model.locks import LockRow, lock_waits, wait_tree
from ndbtop.model.locks_read import locks_read
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ndbinfo.panels import build_sample
from ndbtop.ndbinfo.statements import Tally
from ndbtop.report.locks import locks_json, locks_text
from ndbtop.sim.config import simple_config
from ndbtop.sim.config_blob import pack_v2
from tests.bounds.conftest import LINEAR_LIMIT, work, work_growth
from tests.findings.test_rules_server_words import NOW, snap


def row(transid: int, state: str, num: int, waiting_for: int | None = None) -> LockRow:
    return LockRow(2, 1, 17, 0, num, transid, "X", state, "UPDATE", 5000, num, waiting_for,
                   "shop/def/orders")


def queue(n: int) -> tuple[LockRow, ...]:
    """One hot row: transaction 0 holds it, transaction k queues behind k - 1."""
    return (row(0, "H", 0), *(row(k, "W", k, k - 1) for k in range(1, n + 1)))


def layers(count: int, width: int = 4) -> tuple[LockRow, ...]:
    """``count`` layers of ``width`` transactions, each holding a row that every
    transaction of the next layer waits for: ``width ** count`` paths."""
    rows = []
    num = 0
    held: list[int] = []
    for layer in range(count):
        mine = []
        for i in range(width):
            transid = layer * width + i + 1
            for lock in held:
                num += 1
                rows.append(row(transid, "W", num, lock))
            num += 1
            rows.append(row(transid, "H", num))
            mine.append(num)
        held = mine
    return tuple(rows)


def cycle(n: int) -> tuple[LockRow, ...]:
    """A deadlock of ``n`` transactions, each waiting for the next one's row."""
    return (*(row(k, "H", 2 * k) for k in range(n)),
            *(row(k, "W", 2 * k + 1, 2 * ((k + 1) % n)) for k in range(n)))


def with_locks(rows: tuple[LockRow, ...]) -> ClusterSnapshot:
    sample = NdbinfoSample(NOW, None, locks=rows,
                           read_at=(("transactions", NOW), ("locks", NOW)))
    return snap(ndbinfo=sample)


def report(s: ClusterSnapshot) -> None:
    """Everything a refresh of the Locks view, --once and the JSON do with the waits."""
    read = locks_read(s)
    wait_tree(read.waits)
    locks_text(s)
    locks_json(s)


@pytest.mark.parametrize(("make", "n"), [(queue, 400), (layers, 60), (cycle, 400)],
                         ids=["queue on one row", "layered graph", "deadlock cycle"])
def test_lock_waits_grow_linearly(make: Any, n: int) -> None:
    ratio = work_growth(lambda size: with_locks(make(size)), report, n)
    assert ratio < LINEAR_LIMIT, ratio


PER_ROW = 100
"""Lines of ndbtop's code run per lock row, at most, to work out the waits (a search of the
paths, as before, ran about 900 per row of a queue of 200 and 37,000 per row of a layered
graph of 224 rows)."""


@pytest.mark.parametrize("rows", [queue(1000), layers(50), cycle(1000)],
                         ids=["queue on one row", "layered graph", "deadlock cycle"])
def test_lock_waits_cost_a_bounded_work_per_row(rows: tuple[LockRow, ...]) -> None:
    assert work(lambda: lock_waits(rows)) < PER_ROW * len(rows)


def test_depths_and_cycles_are_those_of_the_graph() -> None:
    waits = {w.waiter: w for w in lock_waits(queue(1000))}
    assert waits[1000].depth == 1000 and waits[1].depth == 1
    assert not any(w.cycle for w in waits.values())
    deep = lock_waits(layers(50))  # 4 ** 50 paths, 992 rows like the field's
    assert len(layers(50)) == 4 * 50 + 16 * 49 == 984 and max(w.depth for w in deep) == 49
    ring = lock_waits(cycle(1000))
    assert all(w.cycle and w.depth == 999 for w in ring)
    tail = lock_waits((*cycle(3), row(99, "W", 999, 0)))  # 99 waits for 0, in the cycle
    by = {w.waiter: w for w in tail}
    assert (by[99].depth, by[99].cycle, by[0].depth) == (3, False, 2)


def test_the_waits_are_worked_out_in_the_collectors_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    samples: list[NdbinfoSample] = []
    reader = threading.Thread(target=lambda: samples.append(build_sample(
        NOW, None, {"locks": layers(50)}, {}, set(), 10, (("locks", NOW),), Tally())))
    reader.start()
    reader.join()

    def on_the_ui_thread(rows: object) -> None:
        raise AssertionError("lock waits worked out by the view")

    monkeypatch.setattr(locks_model, "lock_waits", on_the_ui_thread)
    read = locks_read(snap(ndbinfo=samples[0]))
    assert len(read.waits) == 4 * 49 * 4


def ini(sections: int) -> str:
    """A config.ini of ``sections`` [system] and [tcp] sections around four nodes."""
    nodes = "".join(f"[ndbd]\nNodeId={i}\nHostName=10.0.0.{i}\n" for i in range(1, 5))
    other = "".join("[system]\nName=c\n[tcp]\nNodeId1=1\nNodeId2=2\n"
                    for _ in range(sections // 2))
    return "[ndbd default]\nNoOfReplicas=2\n" + nodes + other


RAW = raw_config(unpack(pack_v2(simple_config(
    "c", tuple((i, f"10.0.0.{i}", (i - 1) // 2) for i in range(1, 5))))))


def test_config_diff_grows_linearly_with_the_sections() -> None:
    ratio = work_growth(ini, lambda text: diff_ini(parse_ini(text, "c.ini"), RAW), 2000)
    assert ratio < LINEAR_LIMIT, ratio


def test_a_config_ini_with_more_node_sections_than_node_ids_is_refused() -> None:
    # ConfigInfo.cpp transformNode: "too many nodes configured, only up to 255 nodes".
    text = "".join(f"[api]\n# {i}\n" for i in range(256))
    with pytest.raises(ConfigIniError, match=r"c\.ini:511: too many nodes configured"):
        parse_ini(text, "c.ini")
    sections = parse_ini("".join("[api]\n" for _ in range(255)), "c.ini")
    assert [s.node_id for s in sections] == list(range(1, 256))


@pytest.mark.parametrize("digits", [4301, 100_000])
def test_a_value_of_thousands_of_digits_is_not_a_value(digits: int) -> None:
    text = f"[ndbd]\nNodeId=2\nDataMemory={'9' * digits}\n"
    with pytest.raises(UsageError, match=r"c\.ini:3: DataMemory=9+: not a value"):
        parse_ini(text, "c.ini")
    with pytest.raises(ConfigIniError, match="is not a node id"):
        parse_ini(f"[ndbd]\nNodeId={'0' * digits}2{'0' * 3}\n", "c.ini")


def error_log(lines: int) -> str:
    data = "".join(f"word {i}\n" for i in range(lines))
    return ("Current byte-offset of file-pointer is: 1067\n"
            "Time: Friday 1 March 2024 - 10:00:00\nStatus: Temporary error, restart node\n"
            "Message: Internal program error (failed ndbrequire) (Internal error, programming "
            "error or missing error message, please report a bug)\nError: 2341\n"
            f"Error data: DbtupMain.cpp\n{data}Error object: DBTUP (Line: 1) 0x00000000\n"
            "Program: ndbmtd\nPid: 1234 thr: 3\nVersion: mysql-8.0.35 ndb-8.0.35\n"
            "Trace file name: ndb_2_trace.log.1_t3\nTrace file path: /d/ndb_2_trace.log.1 "
            "[t1..t8]\n***EOM***\n")


def test_an_error_log_entry_of_many_lines_is_read_in_linear_work() -> None:
    ratio = work_growth(error_log, lambda text: parse_error_log(text, 2, "e.log"), 5000)
    assert ratio < LINEAR_LIMIT, ratio
    entry = parse_error_log(error_log(250_000), 2, "e.log")
    assert entry.error_data is not None and entry.error_data.count("\n") == 250_000
    assert (entry.error_code, entry.pid, entry.thread) == (2341, 1234, 3)
