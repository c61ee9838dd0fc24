"""The fleet overview and going between clusters, one of them not answering.

The overview watches three clusters: two simulators and an address where nothing
listens. The session is driven key by key: its loop is the one ``ndbtop fleet`` runs,
with each app run under Textual's pilot instead of on a terminal.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from ndbtop.actions.audit import AuditLog
from ndbtop.collect.hub import Hub
from ndbtop.fleet.watch import Fleet, Member
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.context_label import ContextLabel
from ndbtop.tui.fleet import BACK, FleetApp
from ndbtop.tui.launch import ClusterView, _session
from ndbtop.tui.screen_text import screen_text
from tests.tui.conftest import SIZE, wait_until

INTERVAL = 1.0
"""Refresh of the hubs: a loaded machine still answers within it (a late answer would show
the row stale)."""


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def clusters(start_sim: Callable[..., Awaitable[Any]]) -> dict[str, str]:
    """prod (threads, production), dr (node-restart) and lost (nothing listens)."""
    prod = await start_sim("threads")
    dr = await start_sim("node-groups")
    return {"prod": prod.connectstring, "dr": dr.connectstring,
            "lost": f"127.0.0.1:{closed_port()}"}


LABELS = {"prod": ContextLabel("prod", "red", True), "dr": ContextLabel("dr", "blue"),
          "lost": ContextLabel("lost", "green")}


def hub(connectstring: str) -> Hub:
    return Hub(parse_connectstring(connectstring), RealClock(), INTERVAL, events=True)


def fleet(clusters: dict[str, str]) -> Fleet:
    return Fleet([Member(name, hub(cs), LABELS[name].color, LABELS[name].production)
                  for name, cs in clusters.items()])


def text(app: App[Any]) -> str:
    return screen_text(app)


def row(app: App[Any], name: str) -> str:
    return next((line for line in text(app).splitlines()[2:] if f" {name} " in line), "")


async def test_the_overview_has_a_row_per_cluster_and_one_that_does_not_answer_says_why(
        clusters: dict[str, str]) -> None:
    watched = fleet(clusters)
    await watched.start()
    app = FleetApp(watched)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(lambda: "2/2" in row(app, "prod") and "4" in row(app, "dr")
                             and "✖" in row(app, "lost"), "three rows")
            assert "PROD" in row(app, "prod") and "none" in row(app, "prod")
            # node-groups: node 5 of group 1 is down.
            assert "3/4" in row(app, "dr") and "ng 1" in row(app, "dr")
            assert "✖ connection refused" in row(app, "lost")
            assert "3 clusters · 1 not answering" in text(app).splitlines()[0]
            await pilot.press("down", "down")
            await wait_until(lambda: "not answering: " in text(app), "the lost detail")
            assert f"not answering: {clusters['lost']}: connection refused" in text(app)
            await pilot.press("enter")
        assert app.return_value == "lost"
    finally:
        await watched.stop()


async def test_going_from_the_overview_to_clusters_and_back(clusters: dict[str, str],
                                                             tmp_path: Path) -> None:
    """prod opened from the overview, F back, the cluster that does not answer opened (its
    view says why), Escape from the overview back to it, F, dr opened, q quits."""
    seen: list[str] = []

    async def open_cluster(name: str) -> ClusterView:
        h = hub(clusters[name])

        async def start() -> Hub:
            return h

        return ClusterView(start, AuditLog(tmp_path / "audit.log", name,
                                           LABELS[name].production),
                           LABELS[name], read_only=name == "dr")

    async def in_overview(app: FleetApp, pilot: Any, choose: str) -> None:
        await wait_until(lambda: "2/2" in row(app, "prod") and "✖" in row(app, "lost"),
                         "the overview's rows")
        names = ["prod", "dr", "lost"]
        key = app.query_one("#fleet-table").selected_key  # type: ignore[attr-defined]
        if choose == "back":
            await pilot.press("escape")
            return
        steps = names.index(choose) - names.index(key)
        await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps), "enter")

    async def in_cluster(app: NdbtopApp, pilot: Any, name: str, key: str) -> None:
        first = lambda: text(app).splitlines()[0]  # noqa: E731
        if name == "lost":
            await wait_until(lambda: "no management server: " in first(), "lost's reason")
            assert f"{clusters['lost']}: connection refused" in first()
        else:
            await wait_until(lambda: "mgm 0s" in text(app) or "mgm 1s" in text(app),
                             f"{name} answering")
        assert first().startswith(f"  {name} ")
        assert ("PRODUCTION" in first()) == (name == "prod")
        assert ("READ-ONLY" in first()) == (name == "dr")
        await pilot.press(key)

    script = [("cluster", "prod", "F"), ("fleet", "lost", None), ("cluster", "lost", "F"),
              ("fleet", "back", None), ("cluster", "lost", "F"), ("fleet", "dr", None),
              ("cluster", "dr", "q")]

    async def run(app: Any) -> Any:
        kind, name, key = script.pop(0)
        assert isinstance(app, NdbtopApp if kind == "cluster" else FleetApp), (kind, app)
        seen.append(f"{kind} {name}")
        async with app.run_test(size=SIZE) as pilot:
            if kind == "cluster":
                await in_cluster(app, pilot, name, key)
            else:
                await in_overview(app, pilot, name)
        return app.return_value

    first = await open_cluster("prod")
    status = await _session(open_cluster, lambda: fleet(clusters), first, None, None,
                            "textual-dark", None, run=run)
    assert status == 0 and script == []
    assert seen == ["cluster prod", "fleet lost", "cluster lost", "fleet back",
                    "cluster lost", "fleet dr", "cluster dr"]


def test_back_is_not_a_cluster_name() -> None:
    assert not BACK.isprintable()
