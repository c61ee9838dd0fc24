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
from ndbtop.contexts import ContextsError
from ndbtop.fleet.rows import FleetRow
from ndbtop.fleet.watch import Fleet, FrozenFleet, Member
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.context_label import ContextLabel
from ndbtop.tui.fleet import BACK, FleetApp, detail_text
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
            # node-groups: node 5 of group 1 is down (its finding needs the configuration
            # too: a busy machine may draw the row before it).
            await wait_until(lambda: "2/2" in row(app, "prod") and "3/4" in row(app, "dr")
                             and "ng 1" in row(app, "dr")
                             and "✖ connection refused" in row(app, "lost"), "three rows")
            assert "PROD" in row(app, "prod") and "none" in row(app, "prod")
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
            # A busy machine may let a connect time out first: the next attempt is refused.
            await wait_until(
                lambda: f"no management server: {clusters['lost']}: connection refused"
                in first(), "lost's reason")
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


PROD_ROW = FleetRow("prod", "red", True, answers=True, address="10.0.1.1:1186",
                    version="8.4.3", data_started=3, data_nodes=4, groups_at_risk=(0,),
                    activity="node 2 node restart, 5 copy data, wait LCP",
                    activity_short="node 2 restart ph 5", age=3.0, stale=False)


def test_the_detail_gives_the_version_and_the_age_the_narrow_table_cuts_off() -> None:
    detail = detail_text(PROD_ROW).plain.splitlines()
    assert detail[0] == " prod  PRODUCTION  10.0.1.1:1186  NDB 8.4.3  answered 3s ago"
    lost = FleetRow("qa", answers=False, why="cannot connect to a management server: "
                    "10.0.3.1:1186: connection refused", age=75.0)
    assert detail_text(lost).plain.splitlines()[:2] == [
        " qa   no management server answered",
        "not answering: 10.0.3.1:1186: connection refused (last answer 1m15s ago)"]


async def test_at_80_columns_the_overview_says_it_all_and_offers_only_keys_that_work() -> None:
    app = FleetApp(FrozenFleet([PROD_ROW]), simulated="fleet of 1")  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)):
        await wait_until(lambda: "answered 3s ago" in text(app), "the detail")
        lines = [line.rstrip() for line in text(app).splitlines()]
        # The header says it is simulated before anything else; the detail is whole.
        assert lines[0].startswith(" ndbtop fleet   SIM fleet of 1   1 clusters")
        assert lines[-4:-1] == ["  prod  PRODUCTION  10.0.1.1:1186  NDB 8.4.3  answered 3s ago",
                                " node 2 node restart, 5 copy data, wait LCP",
                                " Enter opens it in the live view (F there comes back here)"]
        # No cluster was open: Escape goes nowhere, so the bar does not offer it.
        assert lines[-1].strip() == "⏎ Open  q Quit"
    back = FleetApp(FrozenFleet([PROD_ROW]), back="prod")  # type: ignore[arg-type]
    async with back.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: "answered" in text(back), "the detail")
        assert text(back).splitlines()[-1].strip() == "esc Back  ⏎ Open  q Quit"
        await pilot.press("escape")
    assert back.return_value == BACK


async def test_escape_goes_back_to_the_open_cluster_after_another_failed_to_open(
        tmp_path: Path) -> None:
    """prod is open, F, Enter on 'locked' (its password command fails): the overview
    says why, and Escape reopens prod."""
    opened: list[str] = []

    async def open_cluster(name: str) -> ClusterView:
        opened.append(name)
        if name == "locked":
            raise ContextsError("password_command of context locked: pass exited 1")

        async def start() -> Hub:
            return hub("127.0.0.1:1")

        return ClusterView(start, AuditLog(tmp_path / "audit.log"), LABELS["prod"])

    seen: list[tuple[str, Any, Any]] = []
    choices = ["locked", BACK]

    async def run(app: Any) -> Any:
        if isinstance(app, NdbtopApp):
            seen.append(("cluster", app.context.name if app.context else None, None))
            app.to_fleet = len(seen) < 4
            return 0
        seen.append(("fleet", app.back, app.note))
        return choices.pop(0)

    first = await open_cluster("prod")
    status = await _session(open_cluster, lambda: Fleet([]), first, None, None,
                            "textual-dark", None, run=run)
    assert status == 0 and opened == ["prod", "locked", "prod"]
    assert seen == [
        ("cluster", "prod", None), ("fleet", "prod", None),
        ("fleet", "prod", "cannot open locked: password_command of context locked: pass "
                          "exited 1"),
        ("cluster", "prod", None)]
