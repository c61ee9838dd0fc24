"""The management server's cluster log file, read from its host, is untrusted text.

Whoever can write to it (or to the management server's DataDir) chooses what ndbtop reads:
lines of any length, times no server wrote, rotated files that are links, pipes or devices,
a file that grows while it is read, paths with shell syntax. What the server can write is
bounded (Logger.hpp ``MAX_LOG_MESSAGE_SIZE`` 1024: Logger.cpp ``log`` formats each message
into a buffer of that size; LogHandler.hpp ``MAX_HEADER_LENGTH`` 128): anything beyond is
text, never an event; a time before 1970, past ndbtop's latest or past the host's clock is
no time at all, so a forged line cannot stay a current finding forever or end a report
with an error.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from ndbtop.collect import cluster_log
from ndbtop.collect.cluster_log import AHEAD_S, ClusterLogSource, LocalFiles, read_place
from ndbtop.collect.ssh import HostError, SshHost
from ndbtop.findings import evaluate
from ndbtop.host.log_tail import FileTail, parse_tail, utc_offset
from ndbtop.host.remote import SCRIPT, SshOptions, check_path
from ndbtop.mgm.cluster_log import MAX_LINE_CHARS, LogPlace, log_place, parse_line
from ndbtop.report.cluster_log import cluster_log_json, cluster_log_text
from ndbtop.tui.views.events import history_line
from tests.conftest import wait_until
from tests.findings.test_rules_server_words import WALL, snap

UTC = dt.timezone.utc
HEAD = "2024-05-01 12:00:00 [MgmtSrvr] WARNING  -- Node 2: "
STOPPED = "ALERT    -- Node {node}: Forced node shutdown completed. Caused by error 2341: 'x'."


def _stamp(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at))


def test_a_line_longer_than_the_server_writes_is_text_cut_to_the_limit() -> None:
    # The longest text the server writes still reads as its event (a WarningEvent).
    longest = parse_line(HEAD + "x" * 1023, UTC)
    assert longest.time is not None and longest.event is not None
    assert (longest.event.type, longest.text) == (46, "x" * 1023)
    # 4 MB in one line (all READ_LIMIT lets through): text, cut, no time, no event.
    huge = parse_line(HEAD + "\x1b[31m" * 800_000, UTC)
    assert (huge.time, huge.node, huge.severity, huge.event) == (None, None, None, None)
    assert len(huge.text) == MAX_LINE_CHARS and huge.text.startswith(HEAD)


@pytest.mark.parametrize("stamp, offset", [
    ("9999-12-31 23:59:59", "-2359"),  # year 10000 in UTC: no date to print
    ("0001-01-01 00:00:00", "+2359"),  # year 0 in UTC
    ("1969-12-31 23:59:59", "+0000"),
    ("5139-01-01 00:00:00", "+0000"),  # past textnum.MAX_TIME
])
def test_a_time_no_server_wrote_is_no_time_and_every_report_renders_the_line(
    stamp: str, offset: str
) -> None:
    line = parse_line(f"{stamp} [MgmtSrvr] {STOPPED.format(node=3)}", utc_offset(offset))
    assert (line.time, line.event) == (None, None)
    s = snap(cluster_log=(line,))
    assert cluster_log_json(s)[0]["time"] is None
    assert cluster_log_text(s) is not None
    assert history_line(line).plain.startswith("--:--:--")
    assert "node_stopped" not in {f.id for f in evaluate(s)}


class Host:
    """A management server's host whose file holds ``text`` and whose clock says ``now``."""

    def __init__(self, text: str, now: float) -> None:
        self.data = text.encode()
        self.now = now

    async def log_tail(self, path: str, limit: int) -> FileTail | None:
        if not path.endswith(".log"):
            return None
        body = self.data[len(self.data) - limit:] if limit else b""
        return FileTail(len(self.data), self.now, body.decode(), limit >= len(self.data),
                        UTC, self.now)


async def test_a_line_stamped_after_the_hosts_clock_is_no_current_finding() -> None:
    # Node 3's stop 10 s ago is a finding of now; node 4's, stamped a year ahead, would be
    # one for a year: it reads as text that follows node 3's line.
    now = WALL
    lines = [f"{_stamp(now - 10)} [MgmtSrvr] {STOPPED.format(node=3)}",
             f"{_stamp(now + AHEAD_S - 1)} [MgmtSrvr] INFO     -- Node 2: within the slack",
             f"{_stamp(now + 365 * 86400)} [MgmtSrvr] {STOPPED.format(node=4)}"]
    read, why = await read_place(Host("\n".join(lines) + "\n", now),
                                 LogPlace(1, "mgm1", "/data/ndb_1_cluster.log"), now)
    assert why is None and read is not None
    assert [ln.time is not None for ln in read.lines] == [True, True, False]
    assert read.lines[2].text == lines[2]
    found = [(f.id, f.nodes) for f in evaluate(snap(cluster_log=read.lines))]
    assert found == [("node_stopped", (3,))]


async def test_the_lines_are_read_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 MB of lines take seconds: the live view's event loop does not wait for them.
    threads = []
    real = cluster_log.parse_lines

    def spy(*args: object) -> object:
        threads.append(threading.current_thread())
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cluster_log, "parse_lines", spy)
    text = f"{_stamp(WALL - 10)} [MgmtSrvr] {STOPPED.format(node=3)}\n"
    read, _ = await read_place(Host(text, WALL), LogPlace(1, "mgm1", "/d/x.log"), WALL)
    assert read is not None and len(read.lines) == 1
    assert threads and threading.main_thread() not in threads


async def test_rotated_files_that_are_links_pipes_or_devices_are_not_read(
    tmp_path: Path,
) -> None:
    now = time.time()
    secret = tmp_path / "secret"
    secret.write_text(f"{_stamp(now - 5)} [MgmtSrvr] INFO     -- Node 2: root:$6$hash\n")
    log = tmp_path / "ndb_1_cluster.log"
    log.write_text(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(now - 1))} "
                   "[MgmtSrvr] INFO     -- Node 2: the newest line\n")
    os.mkfifo(tmp_path / "ndb_1_cluster.log.1")  # opened for reading, it would block
    (tmp_path / "ndb_1_cluster.log.2").symlink_to(secret)
    (tmp_path / "ndb_1_cluster.log.3").symlink_to("/dev/zero")
    place = log_place(1, "localhost", str(tmp_path), "")
    read, why = await asyncio.wait_for(read_place(LocalFiles(), place, now), 10)
    assert why is None and read is not None
    assert [ln.text for ln in read.lines] == ["the newest line"]
    # The file itself as a link is no file.
    log.unlink()
    log.symlink_to(secret)
    read, why = await read_place(LocalFiles(), place, now)
    assert read is None and why == f"no cluster log file {log} on localhost"


def test_log_destination_and_datadir_are_data_never_shell() -> None:
    place = log_place(1, "mgm1", "/data", "FILE:filename=$(touch x)|`id`&'\"../..,maxfiles="
                      "99999999999999999999")
    assert place.path == "/data/$(touch x)|`id`&'\"../.." and place.max_files == 65
    # A DataDir with a line break cannot be sent to the host's loop as one line.
    broken = log_place(1, "mgm1", "/data\nc\n/etc/shadow", "")
    assert broken.path is not None
    with pytest.raises(ValueError, match="line break"):
        check_path(broken.path)


async def test_a_path_that_cannot_be_sent_is_a_problem_of_that_server() -> None:
    class Refusing:
        async def log_tail(self, path: str, limit: int) -> FileTail | None:
            return check_path(path) and None

    source = ClusterLogSource(None, 1.0, lambda host: None, {"mgm1": Refusing()})
    read = await source.read_all([LogPlace(1, "mgm1", "/data\nx/ndb_1_cluster.log")], 5.0, WALL)
    assert read.lines == () and len(read.problems) == 1
    assert read.problems[0][0] == 1 and "line break" in read.problems[0][1]


def _loop(requests: str, env: dict[str, str] | None = None, cwd: Path | None = None
          ) -> list[str]:
    """The host's fixed loop, run by ``sh`` here as the host runs it."""
    done = subprocess.run(["sh", "-c", SCRIPT], input="t\n" + requests, text=True,
                          capture_output=True, timeout=30, check=True, env=env, cwd=cwd)
    return done.stdout.split("\n")


def test_the_remote_read_ends_at_the_size_it_names_while_the_file_grows(
    tmp_path: Path,
) -> None:
    # A stat that lets the file grow right after it measured it: the bytes read are those
    # up to that size, so the next read (from that size) reads the rest once.
    log = tmp_path / "ndb_1_cluster.log"
    log.write_bytes(b"first\nsecond\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stat = bin_dir / "stat"
    stat.write_text(f'#!/bin/sh\n{shutil.which("stat")} "$@"\necho grown >> "{log}"\n')
    stat.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    tail = parse_tail(_loop(f"c\n{log}\n7\n", env), "@t ")
    assert tail is not None and tail.size == 13 and tail.text == "second"
    assert log.read_bytes() == b"first\nsecond\ngrown\n"


def test_the_remote_read_takes_paths_as_data_and_refuses_links_and_pipes(
    tmp_path: Path,
) -> None:
    odd = tmp_path / "a $(touch ran) `touch ran` 'q\" ; x.log"
    odd.write_text("one\ntwo\n")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link").symlink_to(odd)
    tail = parse_tail(_loop(f"c\n{odd}\n100\n", cwd=tmp_path), "@t ")
    assert tail is not None and (tail.size, tail.text) == (8, "one\ntwo")
    assert not (tmp_path / "ran").exists()
    for path in (tmp_path / "pipe", tmp_path / "link", Path("/dev/zero")):
        answer = _loop(f"c\n{path}\n100\n")
        assert "@t nofile" in answer and parse_tail(answer, "@t ") is None


def _slow_ssh(tmp_path: Path) -> str:
    """A stand-in for ssh speaking the loop's protocol: ``c`` answers with the path's
    length as its size; for ``/slow`` it stops halfway (waiting on a pipe no one writes)."""
    os.mkfifo(tmp_path / "never")
    program = tmp_path / "ssh"
    program.write_text(
        "#!/bin/sh\nIFS= read -r t\necho \"@$t hello 100\"\n"
        "while IFS= read -r c; do case $c in c)\n"
        "  IFS= read -r f; IFS= read -r n; echo \"@$t clog\"; echo \"@$t file ${#f} 1\"\n"
        f"  if [ \"$f\" = /slow ]; then read -r x < {tmp_path / 'never'}; fi\n"
        "  echo \"@$t now 1 +0000\"; echo \"@$t end\";; esac; done\n")
    program.chmod(0o755)
    return str(program)


async def test_a_read_given_up_halfway_ends_ssh_and_no_answer_is_read_twice(
    tmp_path: Path,
) -> None:
    # Without it the next request would read the rest of the first one's answer as its own:
    # the size of /slow for /second.
    host = SshHost("mgm1", SshOptions(program=_slow_ssh(tmp_path)), 1.0, lambda: None)
    try:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(host.log_tail("/slow", 10), 0.5)
        await wait_until(lambda: host.pid is None, what="the ssh process ended")
        second = await host.log_tail("/second", 10)
        assert second is not None and second.size == len("/second")
        with pytest.raises(HostError, match="no answer from mgm1 within 0 s"):
            await host._request("c\n/slow\n10\n", 0.2)
        await wait_until(lambda: host.pid is None, what="the ssh process ended")
    finally:
        await host.close()
