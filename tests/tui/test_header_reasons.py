"""The header gives the address and the reason of every source that cannot be reached or
refuses: the management server (refused, cannot resolve, TLS refused) and a SQL login
refused (``ndbinfo ... access denied for monitor@sql1``), each as the real failure
leaves it in the source's status."""

from __future__ import annotations

import socket
from typing import Any

from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.model.sources import SourceState
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions, options_summary
from ndbtop.tui.widgets.header import no_mgm_text, reasons_text, source_text


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _failed(hub: Hub, name: str, until: Any) -> None:
    await hub.start()
    try:
        await until(lambda: hub.snapshot().source(name).state is SourceState.RETRYING,
                    what=f"{name} failing")
    finally:
        await hub.stop()


async def test_a_refused_management_server_is_named_with_its_address(until: Any) -> None:
    port = _closed_port()
    hub = Hub(parse_connectstring(f"127.0.0.1:{port}"), RealClock(), 0.2, events=False)
    await _failed(hub, "mgm", until)
    snap = hub.snapshot()
    assert no_mgm_text(snap).plain == (
        f"no management server: 127.0.0.1:{port}: connection refused")
    # Beside the sources' states, the reason (the address is the first line's).
    assert reasons_text(list(snap.sources)).plain == " · mgm: connection refused"


async def test_a_management_server_name_that_does_not_resolve_says_so(until: Any) -> None:
    # .invalid never resolves (RFC 2606): no connection is attempted.
    hub = Hub(parse_connectstring("mgmd.invalid:1186"), RealClock(), 0.2, events=False)
    await _failed(hub, "mgm", until)
    text = no_mgm_text(hub.snapshot()).plain
    assert text.startswith("no management server: mgmd.invalid:1186: cannot resolve host")


async def test_a_sql_login_refused_is_named_in_the_header(
    threaded_sim: Any, until: Any,
) -> None:
    ts = threaded_sim("threads", speed=1.0, sql=True)
    options = MysqlOptions(host="127.0.0.1", port=ts.sim.sql_port, user="root",
                           password="not-the-password")
    hub = Hub(parse_connectstring(ts.connectstring), RealClock(), 0.2, events=False,
              ndbinfo=(NdbinfoCollector(options), options_summary(options)))
    await _failed(hub, "ndbinfo", until)
    snap = hub.snapshot()
    shown = reasons_text(list(snap.sources)).plain
    assert shown == f" · ndbinfo: access denied for root@127.0.0.1:{ts.sim.sql_port}"
    assert "not-the-password" not in shown
    assert source_text(snap.source("ndbinfo"), snap.taken_at, snap.interval).plain.startswith(
        "ndbinfo lost")
