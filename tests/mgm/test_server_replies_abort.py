"""``-a``, several nodes in one request and failed restart waits, against replies written
by hand from the reference (server-rules.md §6, mgm-protocol.md §3), not the simulator.

The scripted server below answers as ``MgmtSrvr::restartNodes`` (MgmtSrvr.cpp),
``MgmApiSession::restart`` (Services.cpp) and ``Ndbcntr::execSTOP_REQ`` (NdbcntrMain.cpp)
do: 5063 while a data node is STARTING unless ``-a``/``-f``, 5031 for several nodes
without abort, and the reply layouts of mgm-protocol.md §3.1.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import RestartNode, StopNode
from ndbtop.actions.guards import PHRASE_LOSE_CLUSTER
from ndbtop.actions.runner import run_action
from ndbtop.errors import MgmCommandError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.ops.rolling import PER_GROUP_PHRASE, Decision, Problem, RollingRestart, plan_rolling

Scripted = Callable[..., Awaitable[Any]]

GROUPS = {2: 0, 3: 0, 4: 1, 5: 1}
REPLY_5031 = (b"restart reply\nresult: 5031-Unsupported multi node shutdown. Abort option "
              b"required.: Permanent error: Application error\nrestarted: 0\ndisconnect: 0\n\n")
REPLY_5063 = (b"restart reply\nresult: 5063-Operation not allowed while nodes are starting or "
              b"stopping.: Permanent error: Application error\nrestarted: 0\ndisconnect: 0\n\n")
REPLY_5025 = (b"restart reply\nresult: 5025-Time-out due to node shutdown not completing in "
              b"time: Temporary error: Timeout expired\nrestarted: 1\ndisconnect: 0\n\n")


def status_reply(states: dict[int, tuple[str, int, int]]) -> bytes:
    """``get status`` as printNodeStatus prints it (server-rules.md §1): zeros for a node
    with no contact."""
    out = [b"node status\nnodes: %d\n" % (len(states) + 1)]
    for n, (status, phase, connects) in states.items():
        gone = status == "NO_CONTACT"
        fields = [("type", "NDB"), ("status", status), ("version", 0 if gone else 525315),
                  ("mysql_version", 0 if gone else 525315), ("startphase", phase),
                  ("dynamic_id", 0 if gone else n), ("node_group", 0 if gone else GROUPS[n]),
                  ("connect_count", 0 if gone else connects),
                  ("address", "" if gone else f"10.0.0.{n}"), ("is_single_user", 0)]
        out += [f"node.{n}.{k}: {v}\n".encode() for k, v in fields]
    out.append(b"node.1.type: MGM\nnode.1.status: CONNECTED\nnode.1.version: 525315\n"
               b"node.1.mysql_version: 525315\nnode.1.startphase: 0\nnode.1.dynamic_id: 0\n"
               b"node.1.node_group: 0\nnode.1.connect_count: 0\nnode.1.address: 10.0.0.1\n"
               b"node.1.is_single_user: 0\n\n")
    return b"".join(out)


class Cluster:
    """Four data nodes as a real management server reports and rules on them. A restart
    accepted puts its nodes STARTING; each ``get status`` afterwards moves them on, to
    STARTED with one more connect."""

    def __init__(self) -> None:
        self.states = {n: ("STARTED", 0, 1) for n in GROUPS}
        self.server: Any = None
        self.restart_reply: bytes | None = None
        """A reply to give to the next restart instead of the rules' own."""

    def args(self) -> dict[str, str]:
        return dict(line.split(": ", 1) for line in self.server.requests[-1][1])

    async def get_status(self, writer: Any) -> None:
        writer.write(status_reply(self.states))
        await writer.drain()
        for n, (status, phase, connects) in self.states.items():
            if status == "STARTING":
                self.states[n] = ("STARTED", 0, connects) if phase >= 5 else (
                    "STARTING", phase + 5, connects)

    async def restart(self, writer: Any) -> None:
        a = self.args()
        ids = [int(x) for x in a["node"].split()]
        abort, force = a.get("abort") == "1", a.get("force") == "1"
        starting = any(s == "STARTING" for s, _, _ in self.states.values())
        if self.restart_reply is not None:
            reply, self.restart_reply = self.restart_reply, None
            for n in ids:
                self.states[n] = ("NOT_STARTED", 0, self.states[n][2] + 1)
        elif starting and not (abort or force):
            reply = REPLY_5063
        elif len(ids) > 1 and not (abort or force):
            reply = REPLY_5031
        else:
            for n in ids:
                self.states[n] = ("STARTING", 0, self.states[n][2] + 1)
            reply = b"restart reply\nresult: Ok\nrestarted: %d\ndisconnect: 0\n\n" % len(ids)
        writer.write(reply)
        await writer.drain()

    async def start(self, writer: Any) -> None:
        n = int(self.args()["node"])
        self.states[n] = ("STARTING", 0, self.states[n][2])
        writer.write(b"start reply\nresult: Ok\n\n")
        await writer.drain()


@pytest.fixture
async def cluster(scripted: Scripted) -> Cluster:
    c = Cluster()
    c.server = await scripted({"get status": c.get_status, "restart node v2": c.restart,
                               "start": c.start})
    return c


async def test_abort_of_the_last_started_node_is_sent_only_with_its_phrase_and_audited(
    cluster: Cluster, tmp_path: Path
) -> None:
    """execSTOP_REQ kills one node with abort before any node-group check (§6): the guard
    names the loss of the cluster, asks for a phrase, and the audit keeps what was said."""
    cluster.states[3] = ("NO_CONTACT", 0, 0)
    cs = parse_connectstring(cluster.server.connectstring)
    audit = AuditLog(tmp_path / "audit.log")
    refused = await run_action(RestartNode((2,), abort=True), cs, audit, confirmed="2")
    assert not refused.ok and refused.reply == (
        "not sent: node 2 is killed at once; node group 0 loses its last node and every "
        "data node shuts down; this was not confirmed with 'shut down every data node'")
    assert "restart node v2" not in cluster.server.commands
    sent = await run_action(RestartNode((2,), abort=True), cs, audit,
                            confirmed=PHRASE_LOSE_CLUSTER)
    assert sent.ok and sent.reply == "Ok, restarted: 1"
    record = next(r for r in audit.records() if r["event"] == "sent")
    assert record["consequence"] == ("node 2 is killed at once; node group 0 loses its last "
                                     "node and every data node shuts down")
    assert record["confirmed_with"] == PHRASE_LOSE_CLUSTER
    assert any("-a is not checked against the node group" in w
               for w in record["told"])  # type: ignore[union-attr]


async def test_abort_and_force_are_sent_while_a_node_starts(
    cluster: Cluster, tmp_path: Path
) -> None:
    """MgmtSrvr::restartNodes/stopNodes skip the "any node starting" check with -a or -f."""
    cluster.states[4] = ("STARTING", 3, 2)
    cs = parse_connectstring(cluster.server.connectstring)
    audit = AuditLog(tmp_path / "audit.log")
    outcome = await run_action(RestartNode((2,), abort=True), cs, audit, confirmed="2")
    assert outcome.ok
    told = next(r for r in audit.records() if r["event"] == "sent")["told"]
    assert not any("5063" in w for w in told)  # type: ignore[union-attr]


async def test_several_nodes_graceful_are_refused_before_sending_and_the_reply_is_read(
    cluster: Cluster, tmp_path: Path
) -> None:
    cs = parse_connectstring(cluster.server.connectstring)
    audit = AuditLog(tmp_path / "audit.log")
    for action in (RestartNode((2, 4)), StopNode((2, 4))):
        outcome = await run_action(action, cs, audit)
        assert outcome.reply.startswith(
            "not sent: 5031-Unsupported multi node shutdown. Abort option required. — ")
    assert "restart node v2" not in cluster.server.commands
    client = MgmClient(cs)
    try:
        with pytest.raises(MgmCommandError) as info:
            await client.restart_nodes([2, 4])
    finally:
        await client.close()
    assert (info.value.code, info.value.node_ids) == (5031, (2, 4))


async def test_several_nodes_forced_are_sent_told_as_an_abort(
    cluster: Cluster, tmp_path: Path
) -> None:
    """MgmApiSession::restart retries 5031 with several nodes and -f as an abort."""
    cs = parse_connectstring(cluster.server.connectstring)
    audit = AuditLog(tmp_path / "audit.log")
    outcome = await run_action(RestartNode((2, 4), force=True), cs, audit, confirmed="2 4")
    assert outcome.ok and outcome.reply == "Ok, restarted: 2"
    told = " ".join(next(r for r in audit.records() if r["event"] == "sent")["told"])
    assert "the management server retries it as an abort restart (-a)" in told
    assert "nodes 2 4 are killed at once, together" in told


async def _never(problem: Problem) -> Decision:
    raise AssertionError(f"unexpected problem: {problem}")


@pytest.mark.parametrize("per_group", [False, True])
async def test_rolling_restart_completes_against_a_server_enforcing_5031_and_5063(
    cluster: Cluster, tmp_path: Path, per_group: bool
) -> None:
    cs = parse_connectstring(cluster.server.connectstring)
    client = MgmClient(cs)
    try:
        nodes = await client.get_status()
    finally:
        await client.close()
    plan = plan_rolling(nodes, per_group=per_group)
    audit = AuditLog(tmp_path / "audit.log")
    engine = RollingRestart(plan, cs, audit, decide=_never, poll=0.01, node_timeout=5,
                            confirmed=plan.phrase)
    result = await asyncio.wait_for(engine.run(), 10)
    assert sorted(result.done) == [2, 3, 4, 5] and not result.problems
    nodes_sent = [r["command"] for r in audit.records() if r["event"] == "sent"]
    if per_group:
        assert nodes_sent == ["2 4 RESTART -a", "3 5 RESTART -a"]
        assert plan.phrase == PER_GROUP_PHRASE
    else:
        assert nodes_sent == ["2 RESTART", "3 RESTART", "4 RESTART", "5 RESTART"]
    assert all(connects == 2 for _, _, connects in cluster.states.values())


async def test_after_5025_the_question_offers_to_start_the_node_left_not_started(
    cluster: Cluster, tmp_path: Path
) -> None:
    """restartNodes returns 5025 before START_ORD: the node stays NOT_STARTED (§6)."""
    cluster.restart_reply = REPLY_5025
    cs = parse_connectstring(cluster.server.connectstring)
    client = MgmClient(cs)
    try:
        nodes = await client.get_status()
    finally:
        await client.close()
    plan = plan_rolling(nodes, only=[3])
    problems: list[Problem] = []

    async def decide(problem: Problem) -> Decision:
        problems.append(problem)
        return Decision.START

    audit = AuditLog(tmp_path / "audit.log")
    engine = RollingRestart(plan, cs, audit, decide=decide, poll=0.01, node_timeout=5)
    result = await asyncio.wait_for(engine.run(), 10)
    assert result.done == [3]
    [problem] = problems
    assert problem.not_started == (3,)
    assert problem.message == (
        "5025-Time-out due to node shutdown not completing in time: Temporary error: Timeout "
        "expired; the management server sends the start order only after both of its waits "
        "succeed: node 3 is left NOT_STARTED (start it with 3 START)")
    assert ("start", ("node: 3",)) in cluster.server.requests
    assert [r["command"] for r in audit.records() if r["event"] == "sent"] == [
        "3 RESTART", "3 START"]
