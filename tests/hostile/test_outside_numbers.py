"""Numbers from outside: one parser (``ndbtop/textnum.py``) for every source.

Each source is fed what the third attack sent: Unicode digits (``²``, which
``isdigit`` takes and ``int()`` refuses; ``٣``, which both take), ``nan`` and ``inf``,
5,000 digits, numbers beyond any range and negative ones. Whatever comes, the source
gives a finite, bounded number or none, never an exception.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.collect.ssh import SshHost
from ndbtop.demo.capture import CaptureSpec
from ndbtop.errors import MgmProtocolError
from ndbtop.host.collector import HostCollector
from ndbtop.host.processes import ProcessInfo, classify, node_id_from_cmdline
from ndbtop.host.procfs import parse_sample
from ndbtop.host.remote import SshOptions
from ndbtop.mgm.wire import parse_int as parse_wire_int
from ndbtop.model.ndbinfo import DiskStat
from ndbtop.ndbinfo.rows import INT_HIGH, to_int, to_pct
from ndbtop.ndbinfo.text_rows import parse_numbers
from ndbtop.report.render import report_json
from ndbtop.sanitise import json_text
from ndbtop.textnum import (
    MAX_FLOAT,
    MAX_TIME,
    U64,
    NumberError,
    dumps,
    float_or_none,
    int_or_none,
    is_digits,
    parse_float,
    parse_int,
)
from tests.captures import captured_now

HUGE = "9" * 5000
"""A number of 5,000 digits: beyond int()'s limit of 4,300 (a ValueError there) and
quadratic to convert below it."""
UNICODE_DIGITS = ("²", "٣", "३", "１", "𝟘", "Ⅻ", "¼")
"""Superscript, Arabic-Indic, Devanagari, fullwidth, mathematical, Roman numeral, fraction."""
NOT_FINITE = ("nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1e400")
PAYLOADS = (*UNICODE_DIGITS, *NOT_FINITE, HUGE, "-1", "1_000", "+7", "0x10", "", " ", "1e308",
            str(U64 + 1), str(-(1 << 70)))

OUTSIDE_TEXT = st.one_of(
    st.sampled_from(PAYLOADS),
    st.text(st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=8),
    st.floats().map(repr),
    st.integers(-(10**60), 10**60).map(str),
    st.text(max_size=12),
)
"""Text where a number belongs, as a hostile source sends it."""


@settings(max_examples=400, deadline=None)
@given(OUTSIDE_TEXT, st.integers(-(10**30), 10**30), st.integers(0, 10**30))
def test_parse_int_takes_only_ascii_digits_within_the_stated_range(
    text: str, low: int, span: int
) -> None:
    high = low + span
    try:
        value = parse_int(text, low, high)
    except NumberError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 200
        return
    assert low <= value <= high
    digits = text.strip().removeprefix("-")
    assert digits and all("0" <= c <= "9" for c in digits) and int(text.strip()) == value


@settings(max_examples=400, deadline=None)
@given(OUTSIDE_TEXT)
def test_parse_float_gives_only_finite_numbers_in_range(text: str) -> None:
    try:
        value = parse_float(text)
    except NumberError:
        return
    assert math.isfinite(value) and -MAX_FLOAT <= value <= MAX_FLOAT
    assert text.strip().isascii()


@pytest.mark.parametrize("text", PAYLOADS)
def test_every_attack_payload_is_refused_or_bounded(text: str) -> None:
    assert int_or_none(text) is None
    value = float_or_none(text)
    assert value is None or (math.isfinite(value) and abs(value) <= MAX_FLOAT)
    assert is_digits(text) == (text == str(U64 + 1))


def test_what_is_taken() -> None:
    assert parse_int(" 42 ") == 42
    assert parse_int("-5", -10, 10) == -5
    assert parse_int(str(U64)) == U64
    assert parse_float("1.5e3") == 1500.0
    assert parse_float("-0.25", -1.0, 1.0) == -0.25
    assert is_digits("0042") and not is_digits("-1") and not is_digits("1" * 21)
    with pytest.raises(NumberError, match=r"out of range \(0 to 10\): '11'"):
        parse_int("11", 0, 10)
    with pytest.raises(NumberError, match="not a whole number: '²'"):
        parse_int("²")


# The management server (wire values), ndbinfo rows.

@pytest.mark.parametrize("text", ["²", "٣", HUGE, "nan", "1_0", "+1"])
def test_a_reply_field_that_is_no_number_is_a_protocol_error(text: str) -> None:
    with pytest.raises(MgmProtocolError, match="expected a number"):
        parse_wire_int(text, "node_group")


@settings(max_examples=300, deadline=None)
@given(st.one_of(OUTSIDE_TEXT, OUTSIDE_TEXT.map(str.encode),
                 st.floats(), st.integers(-(10**50), 10**50),
                 st.decimals(allow_nan=True, allow_infinity=True)))
def test_ndbinfo_values_are_bounded_numbers_or_the_default(value: object) -> None:
    number = to_int(value, default=-1)
    assert number == -1 or -INT_HIGH <= number <= INT_HIGH
    pct = to_pct(value)
    assert pct is None or (math.isfinite(pct) and abs(pct) <= MAX_FLOAT)


def test_ndbinfo_rows_as_text_with_unicode_digits_or_huge_numbers() -> None:
    # A row of text (the packed form of ndbinfo/queries.py) with a '٣' or 5,000 digits
    # is read part by part: the part is the default, never 3 or an exception.
    rows = parse_numbers(["1 ٣ 2 3 4", f"2 {HUGE} 5 6 7", "3 1_000 8 9 10"], DiskStat)
    assert [(r.node_id, r.reads_completed) for r in rows] == [(1, 0), (2, 0), (3, 0)]
    assert [r.writes_completed for r in rows] == [2, 5, 8]
    assert to_int(Decimal("NaN"), default=-1) == -1 and to_int("12.00") == 12


# Hosts: /proc text of a remote host, local processes' arguments.

M = "@tok "


def _sample(uptime: str, number: str) -> list[str]:
    return [
        f"{M}sample", f"{M}uptime", f"{uptime} 1.0",
        f"{M}disk", f" 254 0 vda 1 0 {number} 1 1 0 8 1 0 1 1",
        f" 254 0 vdb {number} 0 8 1 1 0 8 1 0 1 1",
        f"{M}stat", f"cpu  {number} 10 3739 664938 577 0 165 38 0 0",
        f"{M}mem", f"MemTotal: {number} kB",
        f"{M}proc {number}", "C ndbmtd\x1e--ndb-nodeid=2\x1e",
        f"{M}proc 4001", f"C ndbmtd\x1e--ndb-nodeid={number}\x1e",
        "4001 (ndbmtd) S 1 1 1 0 -1 0 0 0 0 0 7 5 0 0",
        f"{number} (ldm) S 1 1 1 0 -1 0 0 0 0 0 7 5 0 0",
        f"write_bytes: {number}",
        f"l-wx------ 1 m m 64 Nov 25 10:00 41 -> /d/ndb_{number}_fs/D8/DBLQH/S3.FragLog",
        f"{M}end",
    ]


@pytest.mark.parametrize("uptime", [*NOT_FINITE, "²", HUGE, "-5"])
@pytest.mark.parametrize("number", ["²", "٣", HUGE, "-1", "1e3"])
def test_remote_proc_text_with_hostile_numbers(uptime: str, number: str) -> None:
    sample = parse_sample(_sample(uptime, number), M, 100)
    assert math.isfinite(sample.monotonic) and sample.monotonic >= 0
    assert [d.name for d in sample.disks] == []
    assert sample.cpu is None and sample.memory is not None
    assert sample.memory.total is None
    (thread,) = sample.threads
    assert thread.node_id is None and thread.pid == 4001
    assert [r.write_bytes for r in sample.redo] == [None]


@settings(max_examples=200, deadline=None)
@given(OUTSIDE_TEXT, OUTSIDE_TEXT)
def test_remote_proc_text_of_any_numbers_gives_a_bounded_sample(uptime: str, number: str) -> None:
    if "\n" in uptime + number or "\r" in uptime + number:
        return
    sample = parse_sample(_sample(uptime.split(" ")[0] or "x", number), M, 100)
    assert math.isfinite(sample.monotonic) and 0 <= sample.monotonic <= MAX_TIME
    for disk in sample.disks:
        assert all(0 <= v <= U64 * 512 for v in (disk.reads, disk.writes, disk.read_bytes))
    assert all(math.isfinite(t.user_s) and t.user_s >= 0 for t in sample.threads)


@pytest.mark.parametrize("value", ["²", "٣", HUGE, "0", "-3", "nan", "1_0"])
def test_a_process_node_id_that_is_no_number_is_none(value: str) -> None:
    for cmdline in (["ndbmtd", f"--ndb-nodeid={value}"], ["ndbmtd", "-c", f"nodeid={value}"],
                    ["ndbmtd", f"--allocated-nodeid={value}"]):
        assert node_id_from_cmdline(cmdline) is None
    (proc,) = classify([ProcessInfo(10, "ndbmtd", ("ndbmtd", f"--ndb-nodeid={value}"))])
    assert proc.node_id is None


def test_a_local_process_with_a_superscript_node_id(tmp_path: Path) -> None:
    # Any local user can start a process called ndbmtd with --ndb-nodeid=²: the local
    # collector (run as root by --once and report --bundle) reads it as a data node
    # without a node id.
    proc = subprocess.Popen(["ndbmtd", "-c", "read x; :", "sh", "--ndb-nodeid=²"],
                            executable="/bin/sh", stdin=subprocess.PIPE)
    try:
        collector = HostCollector(pids=[proc.pid])
        collector.sample()
        assert [(p.pid, p.node_id) for p in collector.processes] == [(proc.pid, None)]
    finally:
        proc.kill()
        proc.wait()


def _fake_ssh(tmp_path: Path, hello: str, sample: list[str]) -> str:
    """A stand-in for ssh that speaks the sampling loop's protocol (host/remote.py's
    SCRIPT): the token, a greeting with CLK_TCK, then one sample per ``s``."""
    body = "\n".join(line.replace(M, "@$t ") for line in sample)
    script = tmp_path / "ssh"
    script.write_text(
        "#!/bin/sh\nread t\n"
        f"echo \"@$t hello {hello}\"\n"
        "while read c; do\n"
        f"  [ \"$c\" = s ] && cat <<EOF\n{body}\nEOF\n"
        "done\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("hello", ["²", HUGE, "nan", "-1"])
async def test_a_host_whose_greeting_and_proc_numbers_are_hostile(
    tmp_path: Path, hello: str
) -> None:
    good = _sample("100.0", "8")[:6]
    program = _fake_ssh(tmp_path, hello, [*good, f"{M}end"])
    host = SshHost("db1", SshOptions(program=program), 1.0, lambda: None)
    try:
        await host.connect()
        assert host.pid is not None
        view = await host.poll_once()
        assert view is not None
    finally:
        await host.close()


@pytest.mark.parametrize("uptime", ["nan", "inf"])
async def test_a_remote_uptime_of_nan_gives_finite_rates(tmp_path: Path, uptime: str) -> None:
    program = _fake_ssh(tmp_path, "100", [*_sample(uptime, "8")[:6], f"{M}end"])
    host = SshHost("db1", SshOptions(program=program), 1.0, lambda: None)
    try:
        await host.connect()
        await host.poll_once()
        view = await host.poll_once()
    finally:
        await host.close()
    assert view is not None
    for disk in view.disks:
        for value in (disk.r_s, disk.w_s, disk.util_pct, disk.await_ms):
            assert value is None or math.isfinite(value)


# JSON out.

def test_json_has_no_nan_a_non_finite_value_is_null_with_the_reason() -> None:
    value = {"nodes": [{"uptime_s": math.nan, "rate": math.inf, "ok": 1.5}]}
    text = json_text(value, indent=2)
    decoded = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert decoded["nodes"] == [{"uptime_s": None, "rate": None, "ok": 1.5}]
    assert decoded["not_finite"] == {"nodes[0].uptime_s": "nan", "nodes[0].rate": "inf"}
    assert json.loads(dumps([math.nan])) == [None]
    assert "not_finite" not in json_text({"a": 1.0})


def test_once_json_prints_no_bare_nan() -> None:
    # --once --json prints json_text(report_json(snapshot)) (cli/monitor.py); a figure
    # that is not finite, however it came, is null there with the reason.
    cap = captured_now(CaptureSpec("threads", 600.0, samples=2, interval=0.25))
    assert cap.snapshot.host is not None
    snap = dataclasses.replace(cap.snapshot,
                               host=dataclasses.replace(cap.snapshot.host, interval_s=math.nan))
    out = json_text(report_json(snap), indent=2)
    decoded = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert decoded["not_finite"] == {"host.interval_s": "nan"}


def test_start_times_from_the_host_take_ascii_digits_only() -> None:
    """A /proc stat line's starttime (field 22) and /proc/stat's btime are read by the one
    ASCII rule: a Unicode digit or a number longer than any clock is no time."""
    from ndbtop.host.procfs import start_ticks

    fields = ["S"] + ["0"] * 18 + ["123456"] + ["0"] * 5
    assert start_ticks("4242 (ndbmtd) " + " ".join(fields)) == 123456
    for bad in ("12²", "٣٣", "9" * 5000):
        fields[19] = bad
        assert start_ticks("4242 (ndbmtd) " + " ".join(fields)) is None
