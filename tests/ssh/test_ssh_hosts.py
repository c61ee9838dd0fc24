"""Data node hosts read through a real ssh client and a private sshd on loopback."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from ndbtop.collect.ssh import HostError, SshHost
from ndbtop.host.remote import SshOptions
from tests.ssh.conftest import GOOD_HOSTS, MISMATCH_HOST, NO_SSHD_HOST, PrivateSshd, StandIn


def _host(sshd: PrivateSshd, host: str, interval: float = 0.2) -> SshHost:
    return SshHost(host, sshd.options, interval, lambda: None)


async def _sample_twice(h: SshHost) -> None:
    await h.connect()
    await h.poll_once()
    await h.poll_once()


async def test_two_healthy_hosts_give_disks_cpu_and_threads_by_id(
    sshd: PrivateSshd, standins: list[StandIn], tmp_path: Path
) -> None:
    standins.append(StandIn(2, tmp_path, angel=True))
    standins.append(StandIn(3, tmp_path))
    hosts = [_host(sshd, h) for h in GOOD_HOSTS]
    try:
        await asyncio.gather(*(_sample_twice(h) for h in hosts))
        for h in hosts:
            view = h.view
            assert view is not None and view.interval_s and view.interval_s > 0
            assert view.disks and all(not d.name.startswith("loop") for d in view.disks)
            assert view.cpu is not None and view.cpu.idle is not None
            # The angel's child maps to node 2 through --allocated-nodeid; the angel itself
            # contributes no threads; node 3 through --ndb-nodeid.
            # Every thread's comm is ndbmtd, as on a real host: they are known by tid.
            by_node = {(t.node_id, t.tid): t.thread_name for t in view.threads}
            working = {(s.node_id, tid) for s in standins for tid in s.tids}
            assert len(working) == 4 and working <= set(by_node)
            assert {by_node[k] for k in working} == {"ndbmtd"}
            angel_pid = standins[0].proc.pid
            assert all(t.pid != angel_pid for t in view.threads)
            assert h.sample is not None and h.sample.memory is not None
            assert h.sample.memory.total and h.sample.memory.total > 0
    finally:
        await asyncio.gather(*(h.close() for h in hosts))


async def test_a_host_without_sshd_is_named_in_its_error_and_others_are_fine(
    sshd: PrivateSshd,
) -> None:
    down, up = _host(sshd, NO_SSHD_HOST), _host(sshd, GOOD_HOSTS[0])
    try:
        results = await asyncio.gather(down.attempt(), up.attempt())
        assert results[0] > 0
        assert down.state == "error"
        assert "Connection refused" in (down.status.error or "")
        assert up.state == "ok" and up.view is not None
    finally:
        await asyncio.gather(down.close(), up.close())


async def test_a_host_key_mismatch_is_an_error_without_a_prompt(sshd: PrivateSshd) -> None:
    h = _host(sshd, MISMATCH_HOST)
    try:
        with pytest.raises(HostError) as err:
            await asyncio.wait_for(h.connect(), 10)
        assert "host key" in str(err.value).lower()
    finally:
        await h.close()


async def test_a_killed_ssh_process_is_reported_and_replaced(sshd: PrivateSshd) -> None:
    states: list[str] = []
    changed = asyncio.Event()

    def on_update() -> None:
        states.append(h.state)
        changed.set()

    h = SshHost(GOOD_HOSTS[1], sshd.options, 0.2, on_update)

    async def until(state: str) -> None:
        while not states or states[-1] != state:
            changed.clear()
            await changed.wait()

    task = asyncio.create_task(h.run())
    try:
        await asyncio.wait_for(until("ok"), 15)
        first = h.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        await asyncio.wait_for(until("error"), 15)
        assert "ssh exited" in (h.status.error or "")
        await asyncio.wait_for(until("ok"), 15)
        assert h.pid not in (None, first) and h.connects == 2
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert h.pid is None


@pytest.mark.parametrize(
    "host", ["; rm -rf ~", "$(reboot)", "a'b", 'a"b', "a\nb", "-oProxyCommand=touch x", "", "u@h"]
)
async def test_hostile_host_names_never_reach_ssh(host: str, tmp_path: Path) -> None:
    spy = tmp_path / "ssh"
    spy.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\n")
    spy.chmod(0o755)
    h = SshHost(host, SshOptions(program=str(spy)), 1.0, lambda: None)
    await h.attempt()
    assert h.state == "error" and "refused" in (h.status.error or "")
    assert not (tmp_path / "ran").exists()


async def test_ssh_missing_from_path_is_one_clear_line() -> None:
    h = SshHost("db1", SshOptions(program="ndbtop-test-no-such-ssh"), 1.0, lambda: None)
    await h.attempt()
    assert h.status.error is not None
    assert "not found in PATH" in h.status.error and "\n" not in h.status.error


async def test_a_host_that_is_not_linux_gets_a_clear_message(tmp_path: Path) -> None:
    # No real non-Linux host here: a stand-in for ssh answers as the loop does there.
    fake = tmp_path / "ssh"
    fake.write_text('#!/bin/sh\nread t\necho "@$t nolinux FreeBSD"\n')
    fake.chmod(0o755)
    h = SshHost("bsd1", SshOptions(program=str(fake)), 1.0, lambda: None)
    await h.attempt()
    assert h.status.error == "not a Linux host (FreeBSD): no /proc/diskstats to read"


async def test_hostile_paths_are_read_as_data_on_the_host(
    sshd: PrivateSshd, tmp_path: Path
) -> None:
    h = _host(sshd, GOOD_HOSTS[0])
    marker = tmp_path / "pwned"
    try:
        await h.connect()
        for path in (f"$(touch {marker})", f"; touch {marker}", f"`touch {marker}`",
                     "-n", "' \" \\"):
            assert await h.read_file(path) is None
        with pytest.raises(ValueError):
            await h.read_file(f"x\ntouch {marker}")
        real = tmp_path / "ndb_2_error.log"
        real.write_text("first\nsecond\n")
        assert (await h.read_file(str(real)) or "").startswith("first\nsecond")
        assert not marker.exists()
        await h.poll_once()
        assert h.view is not None
    finally:
        await h.close()


async def test_redo_files_and_write_bytes_of_an_initialising_node(
    sshd: PrivateSshd, standins: list[StandIn], tmp_path: Path
) -> None:
    node = StandIn(5, tmp_path)
    standins.append(node)
    h = _host(sshd, GOOD_HOSTS[0])
    try:
        await h.connect()
        for part in range(4):
            node.send(f"redo {part} 0")
        await h.poll_once()
        first = next(r for r in h.sample.redo if r.node_id == 5)
        assert first.open_files == ((0, 0), (1, 0), (2, 0), (3, 0))
        assert first.write_bytes is not None and first.write_bytes >= 4 << 20
        node.send("redo 0 1")
        node.send("redo 0 2")
        node.send("redo 2 1")
        await h.poll_once()
        second = next(r for r in h.sample.redo if r.node_id == 5)
        assert second.open_files == ((0, 2), (1, 0), (2, 1), (3, 0))
        assert second.write_bytes is not None
        assert second.write_bytes >= first.write_bytes + (3 << 20)
        assert h.redo_rates[second.pid] and h.redo_rates[second.pid] > 0
    finally:
        await h.close()


async def test_a_host_that_stops_answering_is_cut_off_without_holding_up_the_others(
    sshd: PrivateSshd,
) -> None:
    from ndbtop.collect.hosts import HostSet
    from ndbtop.mgm.status import NodeStatus

    ticks = 0
    changed = asyncio.Event()

    def on_update() -> None:
        nonlocal ticks
        ticks += 1
        changed.set()

    hosts = HostSet(None, sshd.options, 0.2, on_update)
    hosts.update((NodeStatus(2, "NDB", "STARTED", address=GOOD_HOSTS[0]),
                  NodeStatus(3, "NDB", "STARTED", address=GOOD_HOSTS[1])), None)
    a, b = hosts.remote[GOOD_HOSTS[0]], hosts.remote[GOOD_HOSTS[1]]

    async def until(check: Callable[[], bool]) -> None:
        while not check():
            changed.clear()
            await changed.wait()

    hosts.start()
    try:
        await asyncio.wait_for(until(lambda: a.state == b.state == "ok"), 15)
        stalled = b.pid
        assert stalled is not None
        os.kill(stalled, signal.SIGSTOP)
        before = a.status.last_ok
        await asyncio.wait_for(until(lambda: b.state == "error"), 15)
        assert "no answer from 127.0.0.3 within" in (b.status.error or "")
        # The other host went on being sampled every interval meanwhile.
        assert a.state == "ok" and a.status.last_ok is not None and a.status.last_ok > before
        await asyncio.wait_for(until(lambda: b.state == "ok"), 15)
        assert b.pid not in (None, stalled)
    finally:
        await hosts.stop()
