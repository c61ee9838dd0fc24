"""Numbers: every numeric option is finite and in its range when the command line is
read; values from a server outside the protocol's ranges are dropped with a reason."""

from __future__ import annotations

from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.report.render import report_text
from tests.hostile.conftest import mgm_script, node_fields

NUMERIC = [
    ["--once", "--interval={v}", "-c", "127.0.0.1:1"],
    ["wait", "--timeout={v}", "-c", "127.0.0.1:1"],
    ["wait", "--interval={v}", "-c", "127.0.0.1:1"],
    ["rolling-restart", "--node-timeout={v}", "--dry-run", "-c", "127.0.0.1:1"],
    ["record", "/nonexistent/r", "--duration={v}", "-c", "127.0.0.1:1"],
    ["record", "/nonexistent/r", "--max-mb={v}", "-c", "127.0.0.1:1"],
    ["record", "/nonexistent/r", "--keep={v}", "-c", "127.0.0.1:1"],
    ["report", "--bundle", "/nonexistent/b", "--events-seconds={v}", "-c", "127.0.0.1:1"],
    ["report", "--bundle", "/nonexistent/b", "--minutes={v}", "-c", "127.0.0.1:1"],
    ["replay", "/nonexistent/r", "--speed={v}"],
    ["demo", "--speed={v}", "--once"],
    ["demo", "--at={v}", "--once"],
    ["demo", "--seed={v}", "--once"],
]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e400", "99999999999999999999",
                                   "-1"])
@pytest.mark.parametrize("argv", NUMERIC, ids=lambda a: next(x for x in a if "{v}" in x)[:-4])
def test_numeric_options_refuse_nan_infinite_and_out_of_range(
    argv: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([a.replace("{v}", value) for a in argv])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "argument" in err and value in err


def test_the_range_is_stated(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["record", "/nonexistent/r", "--keep", "99999999999999999999"])
    assert "out of range (from 0 to 1000)" in capsys.readouterr().err


async def test_a_node_id_beyond_255_is_left_out_with_a_reason(scripted: Any) -> None:
    nodes = {2: node_fields(2), 99999: node_fields(99999)}
    server = await scripted(mgm_script(nodes))
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 0.1, events=False)
    try:
        snap = await hub.collect_once()
    finally:
        await hub.stop()
    assert [n.node_id for n in snap.nodes] == [2]
    reasons = dict(snap.source("mgm").unavailable)
    assert reasons["nodes out of range"] == "node id 99999 is beyond 255: left out"
    assert "nodes out of range unavailable: node id 99999" in report_text(snap)


async def test_an_event_from_a_node_beyond_255_is_left_out_with_a_reason(
    scripted: Any, until: Any
) -> None:
    events = (b"listen event\nresult: 0\n\n"
              b"log event reply\ntype=1\ntime=1\nsource_nodeid=99999\nnode=4\n\n"
              b"log event reply\ntype=1\ntime=1\nsource_nodeid=1\nnode=4\n\n")
    server = await scripted(mgm_script({2: node_fields(2)}, extra=[("listen event", events)]))
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 0.1, events=True)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().events_total >= 1
                    and hub.snapshot().source("events").unavailable, what="the events")
        snap = hub.snapshot()
    finally:
        await hub.stop()
    assert [e.source_node for e in snap.events] == [1]
    assert dict(snap.source("events").unavailable) == {
        "events refused": "Disconnected (type 1) from node 99999 is not a node id (1-255): "
                          "left out"}
