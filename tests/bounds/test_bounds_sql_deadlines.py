"""The SQL node: a connect and a refresh each end within their deadline, however slowly
the server sends.

pymysql's read timeout is per read of the socket, so a server that sends a byte at a
time never trips it. The first server here sends a real handshake greeting (MySQL
protocol, Protocol::HandshakeV10) a byte every 0.2 s; the second is the simulated SQL
node behind a loopback proxy that, once told, passes its answers on a byte every 0.05 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.errors import SqlTimeout
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.sqlnode import start_sql_node

GREETING = (b"\x0a8.4.3\x00" + b"\x01\x00\x00\x00" + b"abcdefgh\x00" + b"\xff\xf7\x21\x02\x00"
            b"\xff\x81\x15" + b"\x00" * 10 + b"ijklmnopqrst\x00" + b"mysql_native_password\x00")
"""Protocol::HandshakeV10: version 10, server version, thread id, scramble, capabilities,
character set, status, the scramble's second part and the authentication plugin."""


async def trickle_greeting(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    packet = len(GREETING).to_bytes(3, "little") + b"\x00" + GREETING
    with contextlib.suppress(ConnectionError, asyncio.CancelledError):
        for byte in packet * 20:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.2)
    writer.close()


class TrickleProxy:
    """Forwards a loopback connection to ``port``; once ``slow`` is set, the server's bytes
    go on one at a time."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.slow = False
        self.listen_port = 0
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._session, "127.0.0.1", 0)
        self.listen_port = self._server.sockets[0].getsockname()[1]

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter,
                    may_trickle: bool) -> None:
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while data := await src.read(65536):
                if may_trickle and self.slow:
                    for i in range(len(data)):
                        dst.write(data[i:i + 1])
                        await dst.drain()
                        await asyncio.sleep(0.05)
                else:
                    dst.write(data)
                    await dst.drain()
        dst.close()

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        for task in (asyncio.create_task(self._pipe(reader, up_writer, False)),
                     asyncio.create_task(self._pipe(up_reader, writer, True))):
            self._tasks.add(task)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


@contextlib.asynccontextmanager
async def greeting_server() -> AsyncIterator[int]:
    server = await asyncio.start_server(trickle_greeting, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


async def test_a_trickled_greeting_ends_the_connect_within_its_deadline() -> None:
    async with greeting_server() as port:
        options = MysqlOptions(host="127.0.0.1", port=port, user="root", connect_timeout=1,
                               read_timeout=1)
        collector = NdbinfoCollector(options)
        started = time.monotonic()
        try:
            await asyncio.to_thread(collector.connect)
        except SqlTimeout as exc:
            raised: Exception | None = exc
        else:
            raised = None
        took = time.monotonic() - started
    # Before, the greeting alone took 20 s here, a read every 0.2 s never timing out.
    assert isinstance(raised, SqlTimeout), raised
    assert str(raised) == (f"the SQL node at 127.0.0.1:{port} did not complete the "
                           "connection within 3 s")
    assert took < 6.0


async def test_a_trickled_refresh_ends_within_its_deadline() -> None:
    cluster = build_scenario("threads")
    cluster.advance(10)
    sql = await start_sql_node(SimNdbinfo(cluster), port=0)
    proxy = TrickleProxy(sql.port)
    await proxy.start()
    try:
        options = MysqlOptions(host="127.0.0.1", port=proxy.listen_port, user="root",
                               connect_timeout=1, read_timeout=1)
        collector = NdbinfoCollector(options)
        await asyncio.to_thread(collector.connect)
        await asyncio.to_thread(collector.sample)
        proxy.slow = True
        started = time.monotonic()
        try:
            await asyncio.to_thread(collector.sample)
        except SqlTimeout as exc:
            raised: Exception | None = exc
        else:
            raised = None
        took = time.monotonic() - started
        assert isinstance(raised, SqlTimeout), raised
        assert "did not complete a refresh within 2 s" in str(raised)
        assert took < 5.0
        assert not collector.connected
    finally:
        await proxy.close()
        await sql.close()
