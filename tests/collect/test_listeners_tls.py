"""Every ``listen event`` connection ndbtop opens runs ``start tls`` with the TLS options
given, as the main connection does (server-rules.md §6: ``ndb_mgm_listen_event_internal``;
tls.md §3: ``listen event`` needs TLS on every connection when the server requires it): the
live view's event source and the triage bundle's listener, against a simulator that
requires TLS, with certificates made for the run outside ``$HOME/ndb-tls`` (the wait for a
backup: tests/ops/test_wait_backup_tls.py)."""

from __future__ import annotations

import asyncio
import contextlib
import tarfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from ndbtop.cli import main
from ndbtop.collect.events import EventSource
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.tls import SERVER_CERT, SERVER_KEY, TlsOptions, server_context
from ndbtop.model.clock import RealClock
from ndbtop.model.sources import SourceState
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.tlscerts import make_cluster_certs

StartSim = Callable[..., Awaitable[Simulator]]


@pytest.fixture
def certs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cluster's certificates in a directory of their own; an empty ``$HOME``."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    directory = tmp_path / "run-certs"
    make_cluster_certs(directory)
    return directory


async def tls_sim(start_sim: StartSim, certs: Path, scenario: str, speed: float) -> Simulator:
    return await start_sim(scenario, speed=speed, require_tls=True,
                           tls=server_context(certs / SERVER_CERT, certs / SERVER_KEY))


@pytest.mark.parametrize(("directory", "state"), [
    ("run-certs", SourceState.CONNECTED), ("home", SourceState.RETRYING)])
async def test_the_live_event_source_listens_over_tls(
    start_sim: StartSim, certs: Path, directory: str, state: SourceState
) -> None:
    sim = await tls_sim(start_sim, certs, "threads", 50)
    address = parse_connectstring(sim.connectstring).addresses[0]
    settled = asyncio.Event()
    events: list[Event] = []

    def update() -> None:
        if source.status.state in (SourceState.CONNECTED, SourceState.RETRYING):
            settled.set()

    source = EventSource(lambda: address, lambda: {"STARTUP": 15}, RealClock(),
                         events.append, update,
                         tls=TlsOptions(str(certs.parent / directory), "relaxed"))
    task = asyncio.create_task(source.run())
    try:
        await asyncio.wait_for(settled.wait(), 10.0)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    status = source.status
    assert status.state == state
    if state == SourceState.RETRYING:
        # Without a certificate it stays in cleartext and is refused, saying where it looked.
        assert status.error is not None
        assert "Requires TLS" in status.error and str(certs.parent / "home") in status.error
    else:
        assert status.error is None


async def test_the_bundle_listens_over_tls(
    start_sim: StartSim, certs: Path, tmp_path: Path
) -> None:
    sim = await tls_sim(start_sim, certs, "threads", 50)
    bundle = tmp_path / "b.tar.gz"
    code = await asyncio.to_thread(
        main, ["report", "--bundle", str(bundle), "-c", sim.connectstring, "--no-host",
               "--no-sql", "--events-seconds", "0.5", "--audit-log", str(tmp_path / "audit"),
               "--ndb-tls-search-path", str(certs), "--ndb-mgm-tls", "strict"],
    )
    assert code == 0
    with tarfile.open(bundle) as tar:
        member = tar.extractfile("ndbtop-bundle/MANIFEST.txt")
        assert member is not None
        manifest = member.read().decode()
    # A refused listener would add "; <why>" to the note.
    assert "events.txt: cluster events received while collecting (0.5 s)\n" in manifest
