"""Shared fixtures: simulated clusters on loopback ports, clients, raw protocol conversations.

Every server listens on 127.0.0.1 with a port the kernel picks. Tests wait for
conditions with :func:`wait_until` (bounded), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.wire import LineBuffer
from ndbtop.sim.clock import SimClock
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario

FAST = 500.0
"""Simulated seconds per real second for tests that let the cluster run by itself."""

READ_TIMEOUT = 3.0
"""Real seconds a test waits for bytes it expects from a server."""


class ManualTime:
    """A stand-in for the real-time source of a :class:`SimClock`.

    Simulated time moves only when the test calls :meth:`advance`, so node
    states are exactly where the test put them.
    """

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass (the clock runs at speed 1)."""
        self.now += seconds


async def wait_until(
    predicate: Callable[[], bool], timeout: float = READ_TIMEOUT, what: str = "condition"
) -> None:
    """Wait until ``predicate()`` holds; fail the test after ``timeout`` real seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.002)


async def advance_until(
    sim: Simulator, time: ManualTime, predicate: Callable[[], bool], step: float = 0.5
) -> None:
    """Let simulated time pass in ``step`` steps until ``predicate`` holds (an hour at most)."""
    for _ in range(int(3600 / step)):
        sim.sync()
        if predicate():
            return
        time.advance(step)
    raise AssertionError("the simulated cluster never got there")


def run_cli(capsys: pytest.CaptureFixture[str], argv: Sequence[str]) -> tuple[int, str, str]:
    """``ndbtop ARGV`` in this process: its exit status (a usage error's too), stdout and
    stderr."""
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def make_cluster(scenario: str | SimCluster, seed: int = 1) -> SimCluster:
    """A scenario's cluster by name, or the cluster given."""
    if isinstance(scenario, SimCluster):
        return scenario
    return build_scenario(scenario, ScenarioOptions(seed=seed))


@pytest.fixture
def two_mgmds() -> SimCluster:
    """A started cluster of data nodes 2 and 3 with two management servers (1 and 4)."""
    config = simple_config("two-mgmds", ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0)),
                           mgm=((1, "10.0.0.1"), (4, "10.0.0.4")), api=((5, None),))
    cluster = SimCluster(config)
    cluster.boot_started()
    return cluster


class RawConn:
    """A raw TCP conversation with a management server: bytes in, bytes out."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def send(self, data: bytes) -> None:
        """Write ``data``."""
        self.writer.write(data)
        await self.writer.drain()

    async def read(self, count: int, timeout: float = READ_TIMEOUT) -> bytes:
        """Up to ``count`` bytes: fewer only if the server closed or went quiet."""
        out = b""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(out) < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            try:
                chunk = await asyncio.wait_for(self.reader.read(count - len(out)), remaining)
            except asyncio.TimeoutError:
                break
            if not chunk:
                break
            out += chunk
        return out

    async def read_until(self, marker: bytes, timeout: float = READ_TIMEOUT) -> bytes:
        """Bytes up to and including ``marker``; fails the test if it does not come."""
        try:
            return await asyncio.wait_for(self.reader.readuntil(marker), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"no {marker!r} within {timeout} s") from None

    async def expect(self, expected: bytes, timeout: float = READ_TIMEOUT) -> None:
        """The next bytes are exactly ``expected``."""
        got = await self.read(len(expected), timeout)
        assert got == expected

    async def exchange(self, request: bytes, expected: bytes) -> None:
        """Send a request; its reply is exactly ``expected``."""
        await self.send(request)
        await self.expect(expected)

    async def in_sync(self) -> None:
        """No stray bytes are pending: a liveness check gets exactly its own reply."""
        await self.exchange(b"check connection\n\n", b"check connection reply\nresult: Ok\n\n")

    async def closed_by_server(self, timeout: float = READ_TIMEOUT) -> bool:
        """True when the server closes the connection without sending anything more."""
        try:
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
        except asyncio.TimeoutError:
            return False
        except ConnectionError:
            return True
        return data == b""

    async def read_to_eof(self, timeout: float = READ_TIMEOUT) -> bytes:
        """Everything until the server closes; fails the test if it does not close."""
        try:
            return await asyncio.wait_for(self.reader.read(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"the server did not close within {timeout} s") from None

    async def close(self) -> None:
        """Close the socket."""
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


@pytest.fixture(autouse=True)
def private_state_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                      ) -> None:
    """Audit logs, start history and recordings go to a temporary directory, never ~."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture(autouse=True)
def private_config_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                       ) -> None:
    """No user's clusters.toml or $NDBTOP_CONTEXT reaches a test: the contexts file is read
    from an empty temporary directory unless the test writes one there."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("NDBTOP_CONTEXT", raising=False)


@pytest.fixture(autouse=True)
def no_dns_for_invalid_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Names under ``.invalid`` (RFC 6761) fail to resolve without asking a DNS server."""
    real = socket.getaddrinfo

    def getaddrinfo(host: object, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name.rstrip(".").endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
async def start_sim() -> AsyncIterator[Callable[..., Awaitable[Simulator]]]:
    """Start simulators (management servers only, no SQL node); all are closed afterwards.

    ``await start_sim(scenario, speed=..., time=ManualTime(), require_tls=...)``:
    with ``time`` the simulated clock moves only when the test advances it.
    """
    started: list[Simulator] = []

    async def start(
        scenario: str | SimCluster = "threads",
        *,
        speed: float = FAST,
        time: ManualTime | None = None,
        require_tls: bool = False,
        seed: int = 1,
        tls: Any = None,
    ) -> Simulator:
        cluster = make_cluster(scenario, seed)
        if time is not None:
            clock = SimClock(speed=1.0, real=time, start_at=cluster.now)
        else:
            clock = SimClock(speed=speed, start_at=cluster.now)
        sim = Simulator(cluster, clock)
        started.append(sim)
        await sim.start(sql_port=None, require_tls=require_tls, tls=tls)
        return sim

    yield start
    for sim in started:
        await sim.close()


@pytest.fixture
async def sim(start_sim: Callable[..., Awaitable[Simulator]]) -> Simulator:
    """The ``threads`` scenario (data nodes 2 and 3 started in node group 0, mgmd 1), fast."""
    return await start_sim("threads")


@pytest.fixture
async def make_client() -> AsyncIterator[Callable[..., MgmClient]]:
    """Build clients for a connect string; all are closed afterwards."""
    clients: list[MgmClient] = []

    def make(
        connectstring: str, *, timeout: float = 3.0, connect_timeout: float = 2.0
    ) -> MgmClient:
        client = MgmClient(
            parse_connectstring(connectstring), connect_timeout=connect_timeout, timeout=timeout
        )
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()


@pytest.fixture
async def client(sim: Simulator, make_client: Callable[..., MgmClient]) -> MgmClient:
    """A client of the ``sim`` fixture's management server."""
    return make_client(sim.connectstring)


@pytest.fixture
async def raw() -> AsyncIterator[Callable[[int], Awaitable[RawConn]]]:
    """Open raw connections to a loopback port; all are closed afterwards."""
    conns: list[RawConn] = []

    async def connect(port: int) -> RawConn:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        conn = RawConn(reader, writer)
        conns.append(conn)
        return conn

    yield connect
    for conn in conns:
        await conn.close()


class ScriptedServer:
    """A stand-in management server that answers each command with canned bytes.

    ``replies`` maps a command line to the bytes to send or to a coroutine
    function given the writer. A command it does not know gets no answer at
    all (a hung server).
    """

    def __init__(self, replies: dict[str, Any]) -> None:
        self.replies = replies
        self.requests: list[tuple[str, tuple[str, ...]]] = []
        """Every request received: its command line and its argument lines."""
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> int:
        """Listen on a free loopback port."""
        self._server = await asyncio.start_server(self._session, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    @property
    def connectstring(self) -> str:
        """``127.0.0.1:<port>``."""
        return f"127.0.0.1:{self.port}"

    @property
    def commands(self) -> list[str]:
        """The command line of every request received, in order."""
        return [command for command, _ in self.requests]

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        lines = LineBuffer(100000)
        request: list[str] = []
        try:
            while data := await reader.read(4096):
                for line in lines.feed(data):
                    if line:
                        request.append(line)
                        continue
                    if not request:
                        continue
                    command, args = request[0], tuple(request[1:])
                    request = []
                    self.requests.append((command, args))
                    reply = self.replies.get(command)
                    if isinstance(reply, bytes):
                        writer.write(reply)
                        await writer.drain()
                    elif reply is not None:
                        await reply(writer)
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def close(self) -> None:
        """Stop listening and drop every connection."""
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.close()


VERSION_REPLY = (
    b"version\nid: 525315\nmajor: 8\nminor: 4\nbuild: 3\nstring: mysql-8.4.3 ndb-8.4.3\n"
    b"mysql_major: 8\nmysql_minor: 4\nmysql_build: 3\n\n"
)
CLIENTVERSION_REPLY = b"set clientversion reply\nresult: Ok\n\n"


@pytest.fixture
async def scripted() -> AsyncIterator[Callable[[dict[str, Any]], Awaitable[ScriptedServer]]]:
    """Start scripted servers; ``get version`` and ``set clientversion`` answer by default."""
    servers: list[ScriptedServer] = []

    async def start(replies: dict[str, Any], *, handshake: bool = True) -> ScriptedServer:
        script = dict(replies)
        if handshake:
            script.setdefault("get version", VERSION_REPLY)
            script.setdefault("set clientversion", CLIENTVERSION_REPLY)
        server = ScriptedServer(script)
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.close()


class ThreadedSimulator:
    """A simulator on its own event loop in a thread, for code that runs ``asyncio.run``."""

    def __init__(
        self, cluster: SimCluster, speed: float, sql: bool = False, tls: Any = None,
        require_tls: bool = False,
    ) -> None:
        self.cluster = cluster
        self.speed = speed
        self.sql = sql
        self.tls = tls
        self.require_tls = require_tls
        self.sim: Simulator | None = None
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._start())
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self._close())
        self._loop.close()

    async def _start(self) -> None:
        clock = SimClock(speed=self.speed, start_at=self.cluster.now)
        self.sim = Simulator(self.cluster, clock)
        await self.sim.start(
            sql_port=0 if self.sql else None, tls=self.tls, require_tls=self.require_tls
        )

    async def _close(self) -> None:
        if self.sim is not None:
            await self.sim.close()

    def start(self) -> None:
        """Start the thread and wait until the servers listen."""
        self._thread.start()
        if not self._ready.wait(READ_TIMEOUT):
            raise AssertionError("simulator thread did not start")
        if self._error is not None:
            raise self._error

    @property
    def connectstring(self) -> str:
        """The simulated management servers."""
        assert self.sim is not None
        return self.sim.connectstring

    def stop(self) -> None:
        """Close the servers and end the thread."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(READ_TIMEOUT)


@pytest.fixture
def threaded_sim() -> Iterator[Callable[..., ThreadedSimulator]]:
    """Start simulators in background threads; all are stopped afterwards."""
    running: list[ThreadedSimulator] = []

    def start(scenario: str | SimCluster = "threads", *, speed: float = FAST,
              sql: bool = False, tls: Any = None, require_tls: bool = False
              ) -> ThreadedSimulator:
        ts = ThreadedSimulator(make_cluster(scenario), speed, sql, tls, require_tls)
        running.append(ts)
        ts.start()
        return ts

    yield start
    for ts in running:
        ts.stop()


@pytest.fixture
def manual_time() -> ManualTime:
    """A real-time source the test advances by hand."""
    return ManualTime()


@pytest.fixture
def until() -> Callable[..., Awaitable[None]]:
    """:func:`wait_until`: await a condition with a bounded timeout."""
    return wait_until


@pytest.fixture
def advance() -> Callable[..., Awaitable[None]]:
    """:func:`advance_until`: move a hand-driven simulation forward until a condition holds."""
    return advance_until
