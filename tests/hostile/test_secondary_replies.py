"""Only ``get status`` is essential: any other reply ndbtop cannot use loses its own part."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.report.render import report_json, report_text
from tests.hostile.conftest import mgm_script, node_fields
from tests.hostile.test_terminal_text import ndbtop

Scripted = Callable[..., Awaitable[Any]]
NOT_IMPLEMENTED = b"get cluster loglevel reply\nresult: Not implemented\n\n"


async def test_an_odd_loglevel_reply_degrades_only_the_levels(
    scripted: Scripted, tmp_path: Path
) -> None:
    script = mgm_script({2: node_fields(2)}, extra=[("get cluster loglevel", NOT_IMPLEMENTED)])
    server = await scripted(script)
    for args in (["--once"], ["--once", "--json"]):
        status, out, err = await ndbtop("-c", server.connectstring, *args, "--no-sql",
                                        "--no-host", env={"XDG_STATE_HOME": str(tmp_path)})
        assert status == 0, err
        assert "10.0.0.2" in out
    mgm = next(s for s in json.loads(out)["sources"] if s["name"] == "mgm")
    assert mgm["state"] == "connected"
    assert [u["part"] for u in mgm["unavailable"]] == ["cluster log levels"]
    assert "get cluster loglevel reply" in mgm["unavailable"][0]["reason"]


async def test_odd_handshake_replies_keep_the_session(scripted: Scripted) -> None:
    script = mgm_script(
        {2: node_fields(2)},
        extra=[
            ("set clientversion", b"set clientversion reply\nresult: Unknown command\n\n"),
            ("get cluster loglevel", NOT_IMPLEMENTED),
        ],
    )
    server = await scripted(script)
    hub = Hub(parse_connectstring(server.connectstring), RealClock(), 0.1, events=False)
    try:
        snap = await hub.collect_once()
        again = await hub.mgm.poll_once()
    finally:
        await hub.stop()
    assert [n.node_id for n in snap.nodes] == [2]
    parts = dict(snap.source("mgm").unavailable)
    assert set(parts) == {"client version", "cluster log levels"}
    assert "Unknown command" in parts["client version"]
    assert "Sources:" in report_text(snap) and "cluster log levels unavailable" in report_text(snap)
    assert report_json(snap)["cluster_log_levels"] == {}
    # The levels are not asked again at every refresh once they failed.
    assert server.commands.count("get cluster loglevel") == 1
    assert again.unavailable == snap.source("mgm").unavailable
    assert server.commands.count("get version") == 1
