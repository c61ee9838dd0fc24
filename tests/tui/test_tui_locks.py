"""The Locks view (key 0 of ten views): transactions idle past the threshold and the lock
waits as trees, read only while it shows; the header's oldest transaction from the last read,
with that read's age."""

from __future__ import annotations

from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.sim.runtime import Simulator
from ndbtop.tui.app import VIEWS
from tests.tui.conftest import VIEW_KEYS

LOCKS_KEY = next(key for key, name in VIEW_KEYS.items() if name == "locks")


def test_locks_is_the_last_view_on_the_key_of_its_place() -> None:
    assert VIEWS[-1][0] == "locks"
    assert str(len(VIEWS) % 10) == LOCKS_KEY


async def test_the_chain_shows_while_the_view_does_and_the_header_keeps_the_last_read(
        tui) -> None:
    async with tui("lock-chain", speed=1.0) as t:
        assert "txn idle" not in t.header()
        assert "transactions" not in t.hub.panels_wanted()
        await t.view(LOCKS_KEY)
        await t.until_shown("Lock waits (ndbinfo.cluster_locks, read ")
        await t.until_shown("deepest chain 3")
        await t.until(lambda: t.text().count("└ ") == 3 and "over 60 s" in t.text(),
                      "the chain and the transactions laid out")
        text = t.text()
        lines = [line.strip() for line in text.splitlines()]
        holder = next(line for line in lines if line.startswith("holder "))
        assert "api 50 Started, idle 6" in holder
        waits = [line for line in lines if line.startswith("└ ")]
        assert [w.split(" on ")[1].split(" ")[0] for w in waits] == [
            "shop.orders", "shop.stock", "shop.payments"]
        assert "over 60 s" in text and "--txn-age" in text
        await t.until(lambda: "txn idle 6" in t.header(), "the header's long transaction")
        assert {"transactions", "locks"} <= t.hub.panels_wanted()

        await t.view("1")
        assert not {"transactions", "locks"} & t.hub.panels_wanted()
        assert "txn idle 6" in t.header() and "read " in t.header()


async def test_without_a_sql_node_the_lists_say_not_read(tui) -> None:
    def mgm_only(sim: Simulator, interval: float) -> Hub:
        return Hub(parse_connectstring(sim.connectstring), sim.clock, interval)

    async with tui("lock-chain", make_hub=mgm_only) as t:
        await t.view(LOCKS_KEY)
        await t.until_shown("Lock waits (ndbinfo.cluster_locks): not read: no SQL node")
        text = t.text()
        assert "Transactions (ndbinfo.cluster_transactions): not read: no SQL node" in text
        assert "none" not in text and "No SQL node: cluster_transactions" in text
