"""ndbtop.compat behaves alike on every Python supported (3.9 to 3.13)."""

from __future__ import annotations

import asyncio
import dataclasses
import ssl
import sys
import threading
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndbtop.compat import (
    SLOTS,
    UNION_TYPES,
    AsyncEvent,
    AsyncLock,
    start_tls,
    start_tls_by_loop,
    type_hints,
    zip_strict,
)
from ndbtop.mgm.tls import TlsOptions, client_setup, server_context
from ndbtop.model.ndbinfo import ThreadCpu
from ndbtop.sim.tlscerts import SERVER_CERT, SERVER_KEY, make_cluster_certs


@dataclasses.dataclass(frozen=True, **SLOTS)
class Hinted:
    count: int | None
    names: tuple[str | int, ...]
    ratio: float = 0.0


def test_slots_are_made_where_dataclass_can() -> None:
    assert hasattr(Hinted, "__slots__") == (sys.version_info >= (3, 10))
    assert Hinted(1, ("a",)) == Hinted(1, ("a",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        Hinted(1, ()).count = 2  # type: ignore[misc]


def test_type_hints_read_bar_unions_as_unions() -> None:
    hints = type_hints(Hinted)
    assert typing.get_origin(hints["count"]) in UNION_TYPES
    assert set(typing.get_args(hints["count"])) == {int, type(None)}
    assert typing.get_origin(hints["names"]) is tuple
    item, dots = typing.get_args(hints["names"])
    assert typing.get_origin(item) in UNION_TYPES and set(typing.get_args(item)) == {str, int}
    assert dots is Ellipsis and hints["ratio"] is float


def generated(n: int) -> Iterator[int]:
    yield from range(n)


def listed(n: int) -> list[int]:
    return list(range(n))


@pytest.mark.parametrize("make", [listed, generated])
def test_zip_strict_pairs_equal_lengths_and_refuses_others(make: typing.Any) -> None:
    assert list(zip_strict(make(3), make(3))) == [(0, 0), (1, 1), (2, 2)]
    assert list(zip_strict()) == []
    with pytest.raises(ValueError):
        list(zip_strict(make(3), make(2)))
    with pytest.raises(ValueError):
        list(zip_strict(make(2), make(3)))


def test_lock_and_event_made_in_a_thread_without_a_loop_work_under_asyncio_run() -> None:
    """3.9's own bind to the thread's loop when made: here there is none."""
    results: list[object] = []

    def thread() -> None:
        lock, event = AsyncLock(), AsyncEvent()

        async def main() -> str:
            async def holder() -> None:
                async with lock:
                    event.set()
                    await asyncio.sleep(0)

            task = asyncio.ensure_future(holder())
            await event.wait()
            async with lock:  # contended: the holder has it
                pass
            await task
            return "ok"

        try:
            results.append(asyncio.run(main()))
        except Exception as exc:  # the failure, shown by the assertion below
            results.append(exc)

    worker = threading.Thread(target=thread)
    worker.start()
    worker.join(30)
    assert results == ["ok"]


@pytest.fixture(scope="module")
def tls_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("compat-tls")
    make_cluster_certs(directory)
    return directory


@pytest.mark.parametrize("upgrade", [start_tls, start_tls_by_loop])
async def test_a_cleartext_stream_is_upgraded_to_tls_on_both_sides(
    tls_dir: Path, upgrade: typing.Any
) -> None:
    """The 3.9/3.10 way (loop.start_tls) runs on every version, beside the one chosen."""
    server_ctx = server_context(tls_dir / SERVER_CERT, tls_dir / SERVER_KEY)
    client_ctx = client_setup(TlsOptions(str(tls_dir), "strict")).context
    assert client_ctx is not None
    served: list[object] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert await reader.readline() == b"start tls\n"
        writer.write(b"Ok\n")
        await upgrade(writer, server_ctx, 5.0)
        served.append(writer.get_extra_info("ssl_object"))
        writer.write(b"over tls: " + await reader.readline())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"start tls\n")
        assert await asyncio.wait_for(reader.readline(), 5) == b"Ok\n"
        await asyncio.wait_for(upgrade(writer, client_ctx, 5.0), 10)
        tls = writer.get_extra_info("ssl_object")
        assert isinstance(tls, ssl.SSLObject) and tls.version() == "TLSv1.3"
        writer.write(b"hello\n")
        assert await asyncio.wait_for(reader.readline(), 5) == b"over tls: hello\n"
        assert await asyncio.wait_for(reader.read(), 5) == b""
        assert isinstance(served[0], ssl.SSLObject)
        writer.close()
    finally:
        server.close()
        await server.wait_closed()


def test_type_hints_of_a_named_tuple_are_evaluated() -> None:
    # On 3.9 a NamedTuple's postponed annotations are forward references, not text: the
    # recording's checks must see int, not a reference they would let anything through.
    hints = type_hints(ThreadCpu)
    assert hints["thr_no"] is int and hints["thread_name"] is str
    assert hints["os_tid"] == typing.Optional[int]
