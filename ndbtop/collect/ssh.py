"""A data node host sampled through one long-lived system ``ssh`` process.

The process runs the fixed loop of :mod:`ndbtop.host.remote`; every interval the source
asks for one sample, parses it with :mod:`ndbtop.host.procfs` and keeps the last two, so
the rates are those of the local collector. When ``ssh`` exits, does not answer or the
host is not Linux, the source records the reason (ssh's last message on stderr) and
starts a new ``ssh`` after a backoff. Nothing here ever waits on a host outside its own
task. A request given up before its answer ended (its time passed, or the caller stopped
waiting) ends the ``ssh`` process: the rest of that answer would otherwise be read as the
next request's.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import replace

from ndbtop.collect.health import Health
from ndbtop.compat import AsyncLock
from ndbtop.host.log_tail import FileTail, parse_tail
from ndbtop.host.procfs import parse_df, parse_sample
from ndbtop.host.remote import SshOptions, UnusableHost, check_host, check_path, ssh_argv
from ndbtop.host.samples import DiskFree, HostSample, RedoFiles
from ndbtop.host.view import HostView, host_view
from ndbtop.model.hosts import smoothed_rate
from ndbtop.model.sources import SourceState
from ndbtop.textnum import int_or_none, is_digits

READ_LIMIT = 8 * 1024 * 1024
"""Largest answer accepted from the loop (a sample or a file)."""


def report_state(state: SourceState) -> str:
    """A host source's state as the reports name it: ``ok``, ``connecting`` or ``error``."""
    if state is SourceState.CONNECTED:
        return "ok"
    return "connecting" if state is SourceState.CONNECTING else "error"


class HostError(Exception):
    """Sampling a host failed; the message is what the user sees."""


class LinkRefused(HostError):
    """A file to read on a host is a symbolic link: it is not followed."""


def one_line(text: str, limit: int = 200) -> str:
    """One line of ssh's or the host's text, shortened (shown escaped where it is shown)."""
    return text.strip()[:limit]


class SshHost:
    """One data node host read through ``ssh`` (several data nodes on it are read once)."""

    via = "ssh"

    def __init__(
        self,
        host: str,
        options: SshOptions,
        interval: float,
        on_update: Callable[[], None],
    ) -> None:
        self.host = host
        self.options = options
        self.interval = interval
        self.on_update = on_update
        self.name = f"host {host}"
        self.health = Health(self.name, host)
        self.view: HostView | None = None
        self.sample: HostSample | None = None
        self.redo_rates: dict[int, float | None] = {}
        self.redo_births: dict[str, float | None] = {}
        """Birth time of ``S0.FragLog`` by DBLQH directory (None: the host cannot tell)."""
        self._prev: HostSample | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._stderr: asyncio.Task[None] | None = None
        self._last_stderr = ""
        self._token = ""
        self._clk_tck = 100
        self._lock = AsyncLock()
        self._connecting = AsyncLock()
        self._aborted: str | None = None
        self.connects = 0

    @property
    def status(self):
        """The source's current state."""
        return self.health.status

    @property
    def pid(self) -> int | None:
        """The pid of the running ``ssh`` process, if any."""
        return self._proc.pid if self._proc is not None and self._proc.returncode is None else None

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        while True:
            line = await stream.readline()
            if not line:
                return
            text = one_line(line.decode("utf-8", "replace"))
            if text:
                self._last_stderr = text

    def _failure(self, fallback: str) -> str:
        return self._last_stderr or fallback

    async def connect(self) -> None:
        """Start ``ssh`` and wait for the loop's greeting (connect timeout plus 2 s)."""
        async with self._connecting:
            await self._connect()

    async def ensure_connected(self) -> None:
        """Connect unless connected: the sampler and a file read may ask at the same time,
        and the second must not end the first one's ``ssh``."""
        async with self._connecting:
            if self.pid is None:
                await self._connect()

    async def _connect(self) -> None:
        await self.close()
        self._aborted = None
        try:
            argv = ssh_argv(check_host(self.host), self.options, self.interval)
        except UnusableHost as exc:
            raise HostError(str(exc)) from None
        self._last_stderr = ""
        self.connects += 1
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=READ_LIMIT,
                start_new_session=True,
            )
        except FileNotFoundError:
            raise HostError(f"{self.options.program!r} not found in PATH: cannot read "
                            "data node hosts over SSH (install OpenSSH's client)") from None
        except OSError as exc:
            raise HostError(f"cannot run {self.options.program}: {exc.strerror}") from None
        self._proc = proc
        assert proc.stderr is not None and proc.stdout is not None and proc.stdin is not None
        self._stderr = asyncio.create_task(self._drain_stderr(proc.stderr))
        self._token = secrets.token_hex(8)
        proc.stdin.write(f"{self._token}\n".encode())
        budget = self.options.connect_timeout + 2.0
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), budget)
        except asyncio.TimeoutError:
            raise HostError(self._failure(f"no answer within {budget:.0f} s")) from None
        text = line.decode("utf-8", "replace").rstrip("\n")
        marker = f"@{self._token} "
        if not text.startswith(marker):
            await self._wait_exit()
            raise HostError(self._failure("the host did not run the sampling loop"))
        kind, _, arg = text[len(marker):].partition(" ")
        if kind == "nolinux":
            raise HostError(f"not a Linux host ({one_line(arg) or 'unknown system'}): "
                            "no /proc/diskstats to read")
        if kind != "hello":
            raise HostError("unexpected greeting from the sampling loop")
        self._clk_tck = int_or_none(arg, 1, 1_000_000) or 100

    async def _wait_exit(self) -> None:
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(proc.wait(), 1.0)
        if self._stderr is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._stderr), 0.5)

    async def _request(self, lines: str, timeout: float | None) -> list[str]:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise HostError("not connected")
        end = f"@{self._token} end\n".encode()
        async with self._lock:
            try:
                proc.stdin.write(lines.encode())
                await proc.stdin.drain()
                if timeout is None:
                    data = await proc.stdout.readuntil(end)
                else:
                    data = await asyncio.wait_for(proc.stdout.readuntil(end), timeout)
            except asyncio.TimeoutError:
                # The rest of this answer would be read as the next request's: end ssh.
                self.abort(f"no answer from {self.host} within {timeout:.0f} s")
                raise HostError(f"no answer from {self.host} within {timeout:.0f} s") from None
            except asyncio.CancelledError:
                self.abort(f"a request to {self.host} was given up before its answer ended")
                raise
            except (asyncio.IncompleteReadError, ConnectionError, BrokenPipeError):
                if self._aborted:
                    raise HostError(self._aborted) from None
                await self._wait_exit()
                code = proc.returncode
                raise HostError(self._failure(f"ssh exited (status {code})")) from None
            except asyncio.LimitOverrunError:
                raise HostError("answer too large") from None
        return data.decode("utf-8", "replace").split("\n")

    @property
    def answer_timeout(self) -> float:
        """How long a sample may take before the host counts as not answering."""
        return max(3 * self.interval, 5.0)

    def abort(self, reason: str) -> None:
        """End the ``ssh`` process of a request that takes too long; it fails with ``reason``."""
        self._aborted = reason
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()

    async def poll_once(self, bounded: bool = True) -> HostView | None:
        """Take one sample and return the rates since the previous one.

        ``bounded``: give up after :attr:`answer_timeout` (otherwise the caller watches the
        time and calls :meth:`abort`).
        """
        lines = await self._request("s\n", self.answer_timeout if bounded else None)
        sample = parse_sample(lines, f"@{self._token} ", self._clk_tck)
        if not sample.disks:
            raise HostError("no disks in /proc/diskstats")
        self._prev, self.sample = self.sample, sample
        self.view = host_view(self._prev, sample)
        self._update_redo_rates(self._prev, sample)
        await self._read_births(sample)
        return self.view

    async def _read_births(self, sample: HostSample) -> None:
        """Ask once for the birth of the first file of each redo log directory seen open."""
        dirs = {d for r in sample.redo for d in r.log_dirs}
        self.redo_births = {d: t for d, t in self.redo_births.items() if d in dirs}
        marker = f"@{self._token} "
        for d in sorted(dirs - set(self.redo_births)):
            try:
                lines = await self._request(f"b\n{check_path(d)}\n", self.answer_timeout)
            except ValueError:
                self.redo_births[d] = None
                continue
            body = [line.strip() for line in lines if line.strip() and not line.startswith(marker)]
            value = body[0] if body else ""
            self.redo_births[d] = float(value) if is_digits(value, 12) and int(value) > 0 else None

    def redo_began(self, files: RedoFiles) -> float | None:
        """When the process's redo log files were first created, if the host can tell."""
        known = [t for d in files.log_dirs if (t := self.redo_births.get(d)) is not None]
        return min(known) if known else None

    def _update_redo_rates(self, prev: HostSample | None, cur: HostSample) -> None:
        before: dict[int, RedoFiles] = {r.pid: r for r in prev.redo} if prev else {}
        elapsed = cur.monotonic - prev.monotonic if prev else None
        rates: dict[int, float | None] = {}
        for r in cur.redo:
            old = before.get(r.pid)
            delta = None
            if old is not None and old.write_bytes is not None and r.write_bytes is not None:
                delta = r.write_bytes - old.write_bytes
            rates[r.pid] = smoothed_rate(self.redo_rates.get(r.pid), delta, elapsed)
        self.redo_rates = rates

    async def read_file(self, path: str) -> str | None:
        """Up to 512 KiB of a file on the host; ``None`` when it cannot be read there;
        :class:`LinkRefused` when it is a symbolic link (never followed: a link to a file
        only root may read would put it on the screen and in the bundle).

        Uses the sampling connection, or opens it when there is none.
        """
        await self.ensure_connected()
        lines = await self._request(f"e\n{check_path(path)}\n", 10.0)
        marker = f"@{self._token} "
        if any(line == f"{marker}nolog" for line in lines):
            return None
        if any(line == f"{marker}link" for line in lines):
            raise LinkRefused(f"{path} is a symbolic link: not followed")
        body = [line for line in lines if not line.startswith(marker)]
        return "\n".join(body)

    async def log_tail(self, path: str, limit: int) -> FileTail | None:
        """The last ``limit`` bytes of a file on the host (0: only its size and time), with
        the host's clock; ``None`` when it is not a regular file that can be read there."""
        await self.ensure_connected()
        lines = await self._request(f"c\n{check_path(path)}\n{max(int(limit), 0)}\n", 30.0)
        tail = parse_tail(lines, f"@{self._token} ")
        return None if tail is None else replace(tail, whole=limit >= tail.size)

    async def disk_free(self, path: str) -> DiskFree | None:
        """The file system holding ``path`` on the host (``df``); ``None`` when there is
        no such path there."""
        await self.ensure_connected()
        lines = await self._request(f"d\n{check_path(path)}\n", 10.0)
        marker = f"@{self._token} "
        body = [line for line in lines if line.strip() and not line.startswith(marker)]
        return parse_df(body[-1], path) if body else None

    async def attempt(self, notify: bool = True, bounded: bool = True) -> float:
        """Connect if needed and sample once; returns the seconds until the next attempt.

        ``notify``: call ``on_update`` afterwards; ``bounded``: see :meth:`poll_once`.
        """
        started = time.monotonic()
        try:
            await self.ensure_connected()
            await self.poll_once(bounded)
        except HostError as exc:
            await self.close()
            delay = self.health.failed(str(exc))
            if notify:
                self.on_update()
            return delay
        self.health.ok()
        if notify:
            self.on_update()
        return self.interval - (time.monotonic() - started)

    async def run(self) -> None:
        """Sample until cancelled."""
        try:
            while True:
                await self.health.sleep(await self.attempt())
        finally:
            await self.close()

    async def close(self) -> None:
        """Stop the ``ssh`` process (the loop on the host ends with its input)."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.returncode is None:
            if proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 2.0)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        if self._stderr is not None:
            self._stderr.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._stderr
            self._stderr = None

    @property
    def state(self) -> str:
        """``ok``, ``connecting`` or ``error``, as the JSON report names them."""
        return report_state(self.health.status.state)
